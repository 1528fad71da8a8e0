// IRN receiver core (see irn.h for the contract, the feedback choices and the BDP
// arithmetic; the bitmap and its cost model are detail::CyclicBitmap, static_bitmap.h).
#include "model/ordering/irn.h"

namespace oonic::ordering {

void Irn::set_feedback(Outcome& out, uint32_t psn) const {
  switch (out.verdict) {
    case Verdict::kInOrder:
    case Verdict::kDuplicate:
      out.feedback = Feedback::kAck;
      break;
    case Verdict::kOutOfOrder:
      out.feedback = Feedback::kSack;
      out.sack_psn = psn & wire::kPsnMask;
      break;
    case Verdict::kBeyondWindow:
      out.feedback = Feedback::kNack;
      break;
    default:
      out.feedback = Feedback::kNone;
      break;
  }
}

}  // namespace oonic::ordering
