#include "model/ornic/rx/feedback.h"

namespace oonic::ornic {

bool selective_feedback(const ordering::Outcome& o, uint32_t psn, wire::BitmapBlock* b) {
  if (o.nak) {
    *b = o.nak_block;
    return true;
  }
  *b = wire::BitmapBlock{};
  switch (o.feedback) {
    case ordering::Feedback::kSack:
      if (o.verdict != ordering::Verdict::kOutOfOrder) return false;
      b->base_psn = o.epsn, b->nbits = 1;  // the first hole: ePSN
      return true;
    case ordering::Feedback::kNack:
      b->base_psn = psn & wire::kPsnMask, b->nbits = 1;
      return true;
    case ordering::Feedback::kHoleNack: {
      if (!o.nholes) return false;
      uint32_t base = o.holes[0].start_psn;
      for (uint8_t i = 1; i < o.nholes; ++i)
        if (wire::psn_diff(o.holes[i].start_psn, base) < 0) base = o.holes[i].start_psn;
      b->base_psn = base;
      b->nbits = wire::kMaxBitmapBlockBits;
      for (uint32_t i = 0; i < b->nbits; ++i) b->set(i);
      for (uint8_t h = 0; h < o.nholes; ++h)
        for (uint32_t k = 0; k < o.holes[h].length; ++k) {
          int32_t d = wire::psn_diff(wire::psn_add(o.holes[h].start_psn, k), base);
          if (d >= 0 && d < b->nbits) b->words[d / 32] &= ~(1u << (d % 32));
        }
      return true;
    }
    default:
      return false;
  }
}

void mp_ack(uint32_t aack, uint32_t sack, const wire::PacketView& v, wire::SchemeFeedback* fb) {
  using F = wire::SchemeFeedback;
  *fb = F{};
  fb->type = F::kMpAck;
  fb->psn[0] = aack & wire::kPsnMask;
  fb->psn[1] = sack & wire::kPsnMask;
  fb->vp = v.udp_sport;
  fb->info = static_cast<uint8_t>(((v.tos & 3) == 3 ? 1 : 0) |
                                  ((v.flags & wire::kHasMpRdmaMeta) && v.mprdma.retx ? 2 : 0));
}

void uet_ack(uint32_t psn, uint32_t ooo, uint64_t sack_bits, uint32_t coalesced,
             const wire::PacketView& v, wire::SchemeFeedback* fb) {
  using F = wire::SchemeFeedback;
  *fb = F{};
  fb->type = F::kUetAck;
  fb->psn[0] = psn & wire::kPsnMask;
  fb->psn[1] = ooo >= wire::kUetOooUnknown ? wire::kUetOooUnknown - 1 : ooo;  // not "unknown"
  wire::set_uet_sack_bits(*fb, sack_bits);
  fb->vp = v.udp_sport;
  fb->info =
      static_cast<uint8_t>(((v.tos & 3) == 3 ? 1 : 0) | (coalesced > 63 ? 63 : coalesced) << 2);
}

bool scheme_feedback(const ordering::Outcome& o, const wire::PacketView& v,
                     const ordering::SchemeTraits& traits, wire::SchemeFeedback* fb) {
  using F = wire::SchemeFeedback;
  const uint32_t psn = v.bth.psn;
  *fb = F{};
  switch (o.feedback) {
    case ordering::Feedback::kHoleNack:
      if (!o.nholes) return false;
      fb->type = F::kHoleNack;
      fb->info = o.nholes;
      for (uint8_t i = 0; i < o.nholes; ++i)
        fb->psn[i] = o.holes[i].start_psn, fb->len[i] = o.holes[i].length;
      return true;
    case ordering::Feedback::kSack:
      if (traits.uet_ack) {  // UET: the unit's ACK, in order or not
        uet_ack(o.sack_psn, o.ooo_count, o.sack_bits, o.coalesced, v, fb);
        return true;
      }
      if (traits.sack_as_mp_ack) {  // MP-RDMA ACKs every packet
        mp_ack(o.epsn, psn, v, fb);
        return true;
      }
      // In-order packets are ACKed as usual; a SACK reports an out-of-order one.
      if (o.verdict != ordering::Verdict::kOutOfOrder) return false;
      fb->type = F::kSack;
      fb->psn[0] = psn & wire::kPsnMask;
      return true;
    case ordering::Feedback::kNack:
      fb->type = F::kNack;
      fb->psn[0] = (traits.sack_as_mp_ack ? o.sack_psn : psn) & wire::kPsnMask;
      if (traits.sack_as_mp_ack || traits.uet_ack) fb->vp = v.udp_sport;
      // UET: beyond the window (a trimmed packet's NACK is the Req Processor's).
      if (traits.uet_ack) fb->info = wire::kUetNackFlag | wire::kUetNackOutOfWindow | 1;
      return true;
    default:
      return false;
  }
}

}  // namespace oonic::ornic
