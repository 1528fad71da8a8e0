#include "model/ordering/uet_rud.h"

namespace oonic::ordering {

void UetRud::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  CyclicBitmapUnit::open(qp, start_psn, otd);
  if (acks_.has(qp)) acks_.open(qp), ooo_[qp] = 0;
}

void UetRud::set_feedback(Outcome& out, uint32_t psn) const {
  // receive() decides every ACK; the base only says what a drop beyond the window gets.
  out.feedback = out.verdict == Verdict::kBeyondWindow ? Feedback::kNack : Feedback::kNone;
  (void)psn;
}

void UetRud::ack(uint32_t qp, uint32_t psn, Outcome& out, uint32_t covered) {
  out.feedback = Feedback::kSack;
  out.sack_psn = psn & wire::kPsnMask;
  out.ooo_count = ooo_[qp];
  out.coalesced = covered;
  // The SACK bitmap: PSN psn - 1 - i for i < 48. Below ePSN every bit is 1 without a
  // read; past it, each bitmap word the span reaches beyond the packet's own (read by the
  // locate) is read once.
  const uint32_t epsn = CyclicBitmapUnit::epsn(qp), w = p_.window_bits;
  auto word_of = [&](int32_t d) {
    return ((head(qp) + static_cast<uint32_t>(d)) % w) / p_.word_bits;
  };
  const int32_t dp = wire::psn_diff(psn, epsn);
  const uint32_t own = dp >= 0 ? word_of(dp) : ~0u;
  uint64_t bits = 0;
  uint32_t last = ~0u;
  for (uint32_t i = 0; i < wire::kUetSackBits; ++i) {
    const uint32_t p = wire::psn_add(psn, -static_cast<int32_t>(i) - 1);
    const int32_t d = wire::psn_diff(p, epsn);
    if (d < 0) {
      bits |= uint64_t{1} << i;
      continue;
    }
    if (received(qp, p)) bits |= uint64_t{1} << i;
    const uint32_t word = word_of(d);
    if (word != own && word != last) ++out.cycles, ++out.block_accesses;
    last = word;
  }
  out.sack_bits = bits;
}

Outcome UetRud::receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) {
  Outcome out = CyclicBitmapUnit::receive(qp, psn);
  if (!acks_.has(qp)) return out;
  const bool had_ooo = ooo_[qp] > 0;
  switch (out.verdict) {
    case Verdict::kInOrder:
      // The head passed this PSN and every placed one right after it.
      ooo_[qp] -= static_cast<uint32_t>(wire::psn_diff(out.epsn, psn) - 1);
      break;
    case Verdict::kOutOfOrder:
      ++ooo_[qp];
      break;
    case Verdict::kDuplicate:  // ACKed at once: the sender learns it arrived
      ack(qp, psn, out, 0);
      return out;
    default:
      out.ooo_count = ooo_[qp];
      return out;
  }
  const bool drained = had_ooo && ooo_[qp] == 0;  // the hole filled: ePSN passed every PSN
  if (const uint32_t n = acks_.placed(qp, meta.ack_req || meta.ecn || drained))
    ack(qp, psn, out, n);
  else
    out.ooo_count = ooo_[qp];
  return out;
}

void UetRod::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  Gbn::open(qp, start_psn, otd);
  if (acks_.has(qp)) acks_.open(qp);
}

Outcome UetRod::receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) {
  Outcome out = Gbn::receive(qp, psn);
  if (!acks_.has(qp)) return out;
  // UET's ACK: everything below ePSN is in, nothing past it is held (bitmap all ones).
  auto ack = [&](uint32_t coalesced) {
    out.feedback = Feedback::kSack;
    out.sack_psn = psn & wire::kPsnMask;
    out.ooo_count = 0;
    out.sack_bits = ~uint64_t{0} >> (64 - wire::kUetSackBits);
    out.coalesced = coalesced;
  };
  switch (out.verdict) {
    case Verdict::kInOrder:
      if (const uint32_t n = acks_.placed(qp, meta.ack_req || meta.ecn))
        ack(n);
      else
        out.feedback = Feedback::kNone;
      break;
    case Verdict::kDuplicate:
      ack(0);
      break;
    default:  // out of order: Gbn's NAK once per ePSN (ROD_OOO), or nothing
      break;
  }
  return out;
}

}  // namespace oonic::ordering
