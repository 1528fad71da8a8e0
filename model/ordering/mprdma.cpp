// MP-RDMA receiver core (see mprdma.h for the contract, the cost model and the choices).
//
// State per QP: L two-bit slots packed into 64-bit words (slot i at bits 2i..2i+1 of the
// QP's words, 32 slots a word), head (slot index of rcv_nxt), rcv_nxt, first_empty (the
// last scan's stop offset) and the completion counters. Slot for PSN p (0 <= p - rcv_nxt
// < L): (head + p - rcv_nxt) % L.
#include "model/ordering/mprdma.h"

#include <stdexcept>

namespace oonic::ordering {

const char* to_string(MpRdma::Slot s) {
  switch (s) {
    case MpRdma::Slot::kEmpty:
      return "empty";
    case MpRdma::Slot::kReceived:
      return "received";
    case MpRdma::Slot::kTail:
      return "tail";
    case MpRdma::Slot::kTailCompletion:
      return "tail_completion";
  }
  return "?";
}

MpRdma::MpRdma(const Params& p) : p_(p) {
  if (p_.slots < 1 || p_.slots > (1u << 22))
    throw std::invalid_argument("MpRdma: slots (L) must be 1..2^22");
  if (p_.max_qps < 1) throw std::invalid_argument("MpRdma: max_qps must be >= 1");
  if (p_.scan_slots_per_cycle < 1)
    throw std::invalid_argument("MpRdma: scan_slots_per_cycle must be >= 1");
  if (p_.block_bits < 1) throw std::invalid_argument("MpRdma: block_bits must be >= 1");
  if (p_.head_advance != HeadAdvance::kPerMessage && p_.head_advance != HeadAdvance::kPerPacket)
    throw std::invalid_argument("MpRdma: unknown head_advance");
  words_per_qp_ = (p_.slots + 31) / 32;
  bitmap_blocks_ = (2 * p_.slots + p_.block_bits - 1) / p_.block_bits;
  qps_.assign(p_.max_qps, Qp{});
  bits_.assign(static_cast<size_t>(p_.max_qps) * words_per_qp_, 0u);
}

void MpRdma::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  (void)otd;
  if (qp >= qps_.size()) throw std::out_of_range("MpRdma::open: qp out of range");
  if (qps_[qp].open) close(qp);
  Qp& q = qps_[qp];
  q = Qp{};
  q.rcv_nxt = start_psn & wire::kPsnMask;
  q.open = true;
}

void MpRdma::close(uint32_t qp) {
  if (qp >= qps_.size()) return;
  uint64_t* w = words(qp);
  for (uint32_t i = 0; i < words_per_qp_; ++i) w[i] = 0;
  Qp& q = qps_[qp];
  q.head = 0;
  q.first_empty = 0;
  q.open = false;
}

bool MpRdma::is_open(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open;
}

uint32_t MpRdma::epsn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].rcv_nxt : 0;
}

uint32_t MpRdma::blocks_held(uint32_t qp) const {
  return is_open(qp) ? bitmap_blocks_ : 0;
}

uint64_t MpRdma::messages_completed(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].messages : 0;
}

uint64_t MpRdma::cqes(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].cqes : 0;
}

uint32_t MpRdma::lowest_missing(uint32_t qp) const {
  if (qp >= qps_.size()) return 0;
  return wire::psn_add(qps_[qp].rcv_nxt, qps_[qp].first_empty);
}

MpRdma::Slot MpRdma::slot(uint32_t qp, uint32_t i_from_head) const {
  if (qp >= qps_.size() || i_from_head >= p_.slots) return Slot::kEmpty;
  return get(words(qp), (qps_[qp].head + i_from_head) % p_.slots);
}

uint32_t MpRdma::head_ptr(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].head : 0;
}

// ---- receive ----------------------------------------------------------------------

Outcome MpRdma::receive(uint32_t qp, uint32_t psn) {
  PacketMeta meta;
  meta.last = true;
  return receive(qp, psn, meta);
}

Outcome MpRdma::receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) {
  Outcome out;
  if (qp >= qps_.size() || !qps_[qp].open) {
    out.verdict = Verdict::kQpClosed;
    return out;
  }
  Qp& q = qps_[qp];
  const uint32_t l = p_.slots;
  psn &= wire::kPsnMask;
  out.blocks_held = bitmap_blocks_;

  const int32_t d = wire::psn_diff(psn, q.rcv_nxt);
  if (d < 0) {
    // Below rcv_nxt: known from the register, no slot access.
    out.verdict = Verdict::kDuplicate;
    out.feedback = Feedback::kSack;
    out.sack_psn = psn;
  } else if (static_cast<uint32_t>(d) >= l) {
    // Beyond the window: the locate's address arithmetic drops it, no slot access. The
    // NACK names the lost PSN (the first Empty slot, from the first_empty register).
    out.verdict = Verdict::kBeyondWindow;
    out.feedback = Feedback::kNack;
    out.sack_psn = wire::psn_add(q.rcv_nxt, q.first_empty);
  } else {
    const uint32_t off = static_cast<uint32_t>(d);
    uint64_t* w = words(qp);
    const uint32_t idx = (q.head + off) % l;
    // Locate: one slot read.
    out.locate_cycles = 1;
    out.cycles = 1;
    out.block_accesses = 1;
    out.feedback = Feedback::kSack;
    out.sack_psn = psn;
    if (get(w, idx) != Slot::kEmpty) {
      out.verdict = Verdict::kDuplicate;
    } else {
      // Slot write: 1 cycle.
      const Slot s = !meta.last        ? Slot::kReceived
                     : meta.completion ? Slot::kTailCompletion
                                       : Slot::kTail;
      set(w, idx, s);
      out.cycles += 1;
      out.block_accesses += 1;
      out.verdict = off == q.first_empty ? Verdict::kInOrder : Verdict::kOutOfOrder;

      const bool per_message = p_.head_advance == HeadAdvance::kPerMessage;
      if (per_message || off == 0) {
        // HoL scan: examine slots from the head up to and including the first Empty one.
        uint32_t examined = 0, stop = l, msg_end = 0;
        uint64_t msgs = 0, cqes = 0;
        for (uint32_t i = 0; i < l; ++i) {
          const Slot si = get(w, (q.head + i) % l);
          ++examined;
          if (si == Slot::kEmpty) {
            stop = i;
            break;
          }
          if (si == Slot::kTail || si == Slot::kTailCompletion) {
            ++msgs;
            if (si == Slot::kTailCompletion) ++cqes;
            msg_end = i + 1;
          }
        }
        const uint32_t w_per_cycle = p_.scan_slots_per_cycle;
        const uint32_t scan_cycles = (examined + w_per_cycle - 1) / w_per_cycle;
        out.cycles += scan_cycles;
        out.block_accesses += scan_cycles;
        const uint32_t advance = per_message ? msg_end : stop;
        if (advance > 0) {
          // One masked write clears the slots the head moves past.
          for (uint32_t i = 0; i < advance; ++i) set(w, (q.head + i) % l, Slot::kEmpty);
          out.block_accesses += 1;
          q.head = (q.head + advance) % l;
          q.rcv_nxt = wire::psn_add(q.rcv_nxt, advance);
          out.head_advanced = true;
        }
        q.first_empty = stop - advance;
        q.messages += msgs;
        q.cqes += cqes;
      }
    }
  }
  out.epsn = q.rcv_nxt;
  return out;
}

// ---- invariants -------------------------------------------------------------------

bool MpRdma::check_invariants(std::string* why) const {
  auto fail = [why](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const uint32_t l = p_.slots;
  const uint32_t used_bits_last = 2 * (l - (words_per_qp_ - 1) * 32);  // 2..64
  const uint64_t last_mask =
      used_bits_last == 64 ? ~uint64_t{0} : ((uint64_t{1} << used_bits_last) - 1);
  for (uint32_t qi = 0; qi < qps_.size(); ++qi) {
    const Qp& q = qps_[qi];
    const uint64_t* w = words(qi);
    const std::string tag = "qp " + std::to_string(qi) + ": ";
    if ((w[words_per_qp_ - 1] & ~last_mask) != 0) return fail(tag + "bits set beyond 2L");
    if (q.cqes > q.messages) return fail(tag + "more CQEs than completed messages");
    if (!q.open) {
      for (uint32_t i = 0; i < words_per_qp_; ++i)
        if (w[i] != 0) return fail(tag + "closed QP has a non-Empty slot");
      continue;
    }
    if (q.head >= l) return fail(tag + "head out of range");
    if (q.rcv_nxt > wire::kPsnMask) return fail(tag + "rcv_nxt beyond 24 bits");
    if (q.first_empty > l) return fail(tag + "first_empty beyond L");
    for (uint32_t i = 0; i < q.first_empty; ++i) {
      const Slot s = get(w, (q.head + i) % l);
      if (s == Slot::kEmpty) return fail(tag + "Empty slot before first_empty");
      if (s != Slot::kReceived)
        return fail(tag + "Tail before the first Empty slot (a complete HoL message left)");
    }
    if (q.first_empty < l && get(w, (q.head + q.first_empty) % l) != Slot::kEmpty)
      return fail(tag + "slot at first_empty is not Empty");
    if (p_.head_advance == HeadAdvance::kPerPacket && q.first_empty != 0)
      return fail(tag + "head slot not Empty (per-packet head)");
  }
  return true;
}

}  // namespace oonic::ordering
