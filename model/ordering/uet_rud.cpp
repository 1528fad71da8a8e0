#include "model/ordering/uet_rud.h"

namespace oonic::ordering {

void UetRud::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  CyclicBitmapUnit::open(qp, start_psn, otd);
  if (qp < since_.size()) since_[qp] = 0, first_[qp] = 1;
}

void UetRud::set_feedback(Outcome& out, uint32_t psn) const {
  switch (out.verdict) {
    case Verdict::kDuplicate:
      out.feedback = Feedback::kAck;
      break;
    case Verdict::kBeyondWindow:
      out.feedback = Feedback::kNack;
      break;
    case Verdict::kOutOfOrder:
      out.feedback = Feedback::kSack;
      out.sack_psn = psn & wire::kPsnMask;
      break;
    case Verdict::kInOrder:
      out.feedback = Feedback::kAck;
      break;
    default:
      out.feedback = Feedback::kNone;
      break;
  }
}

Outcome UetRud::receive(uint32_t qp, uint32_t psn) {
  Outcome out = CyclicBitmapUnit::receive(qp, psn);
  if (out.verdict != Verdict::kInOrder && out.verdict != Verdict::kOutOfOrder) return out;
  // A placed packet: ACK the PDC's first one and every ack_every-th; coalesce the rest.
  if (qp >= since_.size()) return out;
  ++since_[qp];
  if (first_[qp] || since_[qp] >= p_.ack_every) {
    first_[qp] = 0, since_[qp] = 0;
    return out;
  }
  out.feedback = Feedback::kNone, out.sack_psn = 0;
  return out;
}

}  // namespace oonic::ordering
