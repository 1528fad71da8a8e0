// UET RUD/ROD receiver core (see rud_receiver_core.h).
#include "model/uet/rud_receiver_core.h"

#include <algorithm>

namespace oonic::uet {

namespace w = wire::uet;

namespace {
// PSN distance b - a in 32-bit serial arithmetic.
int64_t diff(uint32_t b, uint32_t a) {
  return static_cast<int32_t>(b - a);
}
}  // namespace

RudReceiverCore::RudReceiverCore(const RudReceiverParams& p, uint32_t start_psn,
                                 uint16_t local_pdcid, uint16_t peer_pdcid)
    : p_(p),
      local_(local_pdcid),
      peer_(peer_pdcid),
      cack_(start_psn - 1),
      highest_(start_psn - 1),
      bits_(std::max<uint32_t>(p.window, 1), 0) {}

bool RudReceiverCore::seen(uint32_t psn) const {
  const int64_t d = diff(psn, cack_);
  if (d <= 0) return true;  // at or below CACK
  if (d > static_cast<int64_t>(bits_.size())) return false;
  return bits_[psn % bits_.size()];
}

w::Pds RudReceiverCore::ack(bool m) const {
  w::Pds a;
  a.type = w::PdsType::kAckCc;
  a.flags = m ? w::kAckM : 0;
  a.psn = cack_;
  a.spdcid = local_;
  a.dpdcid = peer_;
  a.ack_psn_offset = 0;
  // SACK: 64 PSNs from max(highest - 63, cack + 1).
  uint32_t base = cack_ + 1;
  if (diff(highest_, base) > 63) base = highest_ - 63;
  a.sack_psn_offset = static_cast<int16_t>(diff(base, cack_));
  uint64_t bm = 0;
  for (uint32_t i = 0; i < 64; ++i)
    if (diff(base + i, cack_) > 0 && diff(base + i, highest_) <= 0 && seen(base + i))
      bm |= uint64_t{1} << i;
  a.sack_bitmap = bm;
  a.cc_type = w::CcType::kNscc;
  a.ooo_count = static_cast<uint16_t>(std::min<uint32_t>(tracked_, 0xFFFF));
  return a;
}

w::Pds RudReceiverCore::nack(uint32_t psn, uint8_t code) const {
  w::Pds n;
  n.type = w::PdsType::kNack;
  n.nack_code = code;
  n.psn = psn;
  n.spdcid = local_;
  n.dpdcid = peer_;
  n.payload = highest_ + 1;
  return n;
}

RxVerdict RudReceiverCore::receive(const RxPacket& pkt) {
  RxVerdict v;
  const int64_t d = diff(pkt.psn, cack_);
  if (pkt.trimmed) {
    ++nacks_;
    v.reply = nack(pkt.psn, pkt.last_hop ? w::kNackTrimmedLastHop : w::kNackTrimmed);
    return v;
  }
  if (d > 0 && d > static_cast<int64_t>(bits_.size())) {
    ++nacks_;
    v.reply = nack(pkt.psn, w::kNackPsnOutOfWindow);
    return v;
  }
  if (seen(pkt.psn)) {  // a resend of what was placed: ACK at once, place nothing
    v.duplicate = true;
    ++dups_;
    ++acks_;
    since_ack_ = 0;
    v.reply = ack(pkt.ecn);
    return v;
  }
  if (p_.ordered && d != 1) {  // ROD takes only the next PSN
    ++nacks_;
    v.reply = nack(pkt.psn, w::kNackRodOoo);
    return v;
  }
  // Place it and track it; CACK moves over every PSN now complete.
  v.place = true;
  ++placed_;
  max_ood_ = std::max<uint32_t>(max_ood_, static_cast<uint32_t>(d - 1));
  if (diff(pkt.psn, highest_) > 0) highest_ = pkt.psn;
  bits_[pkt.psn % bits_.size()] = 1;
  ++tracked_;
  while (tracked_ && bits_[(cack_ + 1) % bits_.size()]) {
    bits_[(cack_ + 1) % bits_.size()] = 0;
    --tracked_;
    ++cack_;
  }
  peak_tracked_ = std::max(peak_tracked_, tracked_);
  if (++since_ack_ >= p_.ack_every || pkt.ar || pkt.ecn || first_) {
    first_ = false;
    since_ack_ = 0;
    ++acks_;
    v.reply = ack(pkt.ecn);
  }
  return v;
}

}  // namespace oonic::uet
