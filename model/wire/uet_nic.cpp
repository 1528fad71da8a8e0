// The NIC's packets on UET's wire (see uet_nic.h for the table).
#include "model/wire/uet_nic.h"

#include <algorithm>

namespace oonic::wire::uet {

namespace {

constexpr uint32_t kSackSpan = 64;  // SACK_PSN = ACK_PSN - 64: the 48 bits below ACK_PSN

bool fits16(int32_t d) {
  return d >= -32768 && d <= 32767;
}

bool fail(std::string* why, const std::string& m) {
  if (why) *why = m;
  return false;
}

uint8_t nak_code(uint8_t syndrome) {
  if (syndrome == kAethNakPsnSeqErr) return kNackRodOoo;
  if ((syndrome & 0xE0) == kAethRnrNak) return kNackNoPktBuffer;
  return 0;  // the vendor code alone tells it
}

bool request(const FrameSpec& s, uint32_t spdcid, const NicWire& w, UetFrameSpec& out,
             std::string* why) {
  const uint8_t op = s.bth.opcode;
  const bool write = op == kOooWriteFSpot || op == kOooWriteLastFSpot;
  const bool send = op == kSendFirst || op == kSendMiddle || op == kSendLast || op == kSendOnly;
  if (!write && !send) {
    const OpcodeInfo* i = opcode_info(op);
    return fail(why, std::string(i ? i->name : "opcode") + " has no form on UET's wire");
  }
  if (s.bth.resv7 & (kBthEunomiaMetaBit | kBthMpRdmaMetaBit | kBthIntBit))
    return fail(why,
                "a data packet with Eunomia, MP-RDMA or INT headers has no form on UET's wire");
  if (spdcid > 0xFFFF || s.bth.dest_qp > 0xFFFF)
    return fail(why, "QP number " + std::to_string(std::max(spdcid, s.bth.dest_qp)) +
                         " does not fit a 16-bit PDC id");
  Pds& p = out.pds;
  p.type = w.ordered ? PdsType::kRodReq : PdsType::kRudReq;
  p.next_hdr = static_cast<uint8_t>(NextHdr::kRequestStd);
  p.flags = static_cast<uint8_t>((s.bth.ack_req ? kReqAr : 0) | (s.uet.retx ? kReqRetx : 0));
  p.psn = s.bth.psn;
  p.spdcid = static_cast<uint16_t>(spdcid);
  p.dpdcid = static_cast<uint16_t>(s.bth.dest_qp);
  SesStd& e = out.ses;
  e.opcode = static_cast<uint8_t>(write ? SesOpcode::kWrite : SesOpcode::kSend);
  e.message_id = s.uet.msg_id;
  if (write) {
    e.som = s.uet.msg_offset == 0;
    e.eom = op == kOooWriteLastFSpot;
    e.buffer_offset = s.reth.va;
    e.memory_key = s.reth.rkey;
    e.request_length = s.reth.dma_len;
  } else {
    e.som = op == kSendFirst || op == kSendOnly;
    e.eom = op == kSendLast || op == kSendOnly;
  }
  if (!e.som) {
    e.payload_length = static_cast<uint16_t>(s.payload_len);
    e.message_offset = s.uet.msg_offset;
  }
  out.payload = s.payload;
  out.payload_len = s.payload_len;
  return true;
}

}  // namespace

bool carries(const FrameSpec& s) {
  const uint8_t op = s.bth.opcode;
  return !(op == kReadRequest || op == kOooReadRequest || op == kOooReadResponse ||
           (op >= kReadResponseFirst && op <= kReadResponseOnly));
}

uint32_t frames_of(const FrameSpec& s) {
  return s.bth.opcode == kSchemeFeedback && s.feedback.type == SchemeFeedback::kNack
             ? nack_entries(s.feedback)
             : 1;
}

bool to_uet(const FrameSpec& s, uint32_t spdcid, const NicWire& w, UetFrameSpec& out,
            std::string* why, uint32_t entry) {
  out = UetFrameSpec{};
  out.outer = s;
  if (opcode_info(s.bth.opcode) && (opcode_info(s.bth.opcode)->flags & kIsRequest))
    return request(s, spdcid, w, out, why);
  if (spdcid > 0xFFFF || s.bth.dest_qp > 0xFFFF)
    return fail(why, "QP number " + std::to_string(std::max(spdcid, s.bth.dest_qp)) +
                         " does not fit a 16-bit PDC id");
  Pds& p = out.pds;
  p.spdcid = static_cast<uint16_t>(spdcid);
  p.dpdcid = static_cast<uint16_t>(s.bth.dest_qp);
  if (s.bth.opcode == kAcknowledge) {
    if ((s.aeth.syndrome & 0xE0) == 0) {
      p.type = PdsType::kAck;
      p.psn = s.bth.psn;
    } else {
      p.type = PdsType::kNack;
      p.nack_code = nak_code(s.aeth.syndrome);
      p.vendor_code = s.aeth.syndrome;
      p.psn = s.bth.psn;
      p.payload = s.bth.psn;
    }
    return true;
  }
  if (s.bth.opcode != kSchemeFeedback)
    return fail(
        why, std::string(opcode_info(s.bth.opcode) ? opcode_info(s.bth.opcode)->name : "opcode") +
                 " has no form on UET's wire");
  const SchemeFeedback& f = s.feedback;
  if (f.type == SchemeFeedback::kNack && (f.info & kUetNackFlag)) {
    p.type = PdsType::kNack;
    entry = std::min<uint32_t>(entry, 2);
    p.nack_code = (f.info & kUetNackOutOfWindow) ? kNackPsnOutOfWindow
                  : uet_nack_last_hop(f, entry)  ? kNackTrimmedLastHop
                                                 : kNackTrimmed;
    p.psn = f.psn[entry];
    p.payload = s.bth.psn;
    if (entry && f.more_vp[entry - 1]) out.outer.udp_sport = f.more_vp[entry - 1];
    return true;
  }
  if (f.type != SchemeFeedback::kUetAck)
    return fail(why, "Scheme Feedback type " + std::to_string(f.type) +
                         " has no form on UET's wire (UET's ACK and NACK only)");
  p.type = PdsType::kAckCc;
  p.cc_type = CcType::kNscc;
  p.flags = (f.info & 1) ? kAckM : 0;
  const uint32_t cack = psn_add(s.bth.psn, -1);
  const int32_t ack_off = psn_diff(f.psn[0], cack);
  const uint32_t base = psn_add(f.psn[0], -static_cast<int64_t>(kSackSpan));
  const int32_t sack_off = psn_diff(base, cack);
  p.psn = cack;
  if (fits16(ack_off) && fits16(sack_off)) {
    p.ack_psn_offset = static_cast<int16_t>(ack_off);
    p.sack_psn_offset = static_cast<int16_t>(sack_off);
    const uint64_t bits = uet_sack_bits(f);  // bit i: PSN ACK_PSN - 1 - i
    uint64_t map = 0;
    for (uint32_t i = 0; i < kUetSackBits; ++i)
      if (bits >> i & 1) map |= uint64_t{1} << (kSackSpan - 1 - i);
    p.sack_bitmap = map;
  }  // else (a duplicate far below the cumulative PSN): the cumulative ACK alone
  p.ooo_count = f.psn[1] >= 0xFFFF ? 0xFFFF : static_cast<uint16_t>(f.psn[1]);
  p.rcvd_bytes = std::min<uint32_t>(uet_coalesced(f) * w.pmtu_bytes, 0xFFFFFF);
  return true;
}

ParseStatus to_view(const uint8_t* frame, const UetView& u, const NicWire& w, PacketView& v) {
  v = u.outer;  // Ethernet, IP, UDP; the payload and lengths below
  v.bth = Bth{};
  v.bth.dest_qp = u.pds.dpdcid;
  v.payload = u.payload;
  v.payload_len = u.payload_len;
  v.header_len = static_cast<uint32_t>(u.payload - frame);
  v.frame_len = v.header_len + u.payload_len;
  v.icrc = 0;
  const Pds& p = u.pds;
  uint8_t op;
  if (is_request(p.type)) {
    if (!u.has_ses) return ParseStatus::kUnknownOpcode;
    const SesStd& e = u.ses;
    v.bth.psn = p.psn & kPsnMask;
    v.bth.ack_req = (p.flags & kReqAr) != 0;
    if (e.opcode == static_cast<uint8_t>(SesOpcode::kWrite)) {
      op = e.eom ? kOooWriteLastFSpot : kOooWriteFSpot;
      v.reth.va = e.buffer_offset;
      v.reth.rkey = static_cast<uint32_t>(e.memory_key);
      v.reth.dma_len = e.request_length;
    } else if (e.opcode == static_cast<uint8_t>(SesOpcode::kSend)) {
      op = e.som && e.eom ? kSendOnly : e.som ? kSendFirst : e.eom ? kSendLast : kSendMiddle;
    } else {
      return ParseStatus::kUnknownOpcode;
    }
  } else if (u.payload_len) {
    return ParseStatus::kBadExtension;  // an ACK or NACK carries nothing after its headers
  } else if (p.type == PdsType::kAck) {
    op = kAcknowledge;
    v.bth.psn = p.psn & kPsnMask;
    v.aeth.syndrome = kAethAckNoCredit;
  } else if (p.type == PdsType::kNack && p.vendor_code) {
    if ((p.vendor_code & 0xE0) == 0) return ParseStatus::kUnknownOpcode;  // not a NAK syndrome
    op = kAcknowledge;
    v.bth.psn = p.psn & kPsnMask;
    v.aeth.syndrome = p.vendor_code;
  } else if (p.type == PdsType::kNack) {
    op = kSchemeFeedback;
    v.bth.psn = p.payload & kPsnMask;
    v.aeth.syndrome = kAethAckNoCredit;
    SchemeFeedback& f = v.feedback;
    f.type = SchemeFeedback::kNack;
    f.info = static_cast<uint8_t>(
        kUetNackFlag | 1 | (p.nack_code == kNackPsnOutOfWindow ? kUetNackOutOfWindow : 0) |
        (p.nack_code == kNackTrimmedLastHop ? uet_nack_last_hop_bit(0) : 0));
    f.psn[0] = p.psn & kPsnMask;
    f.vp = u.outer.udp_sport;
  } else if (p.type == PdsType::kAckCc && p.cc_type == CcType::kNscc) {
    op = kSchemeFeedback;
    const uint32_t cack = p.psn & kPsnMask;
    v.bth.psn = psn_add(cack, 1);
    v.aeth.syndrome = kAethAckNoCredit;
    SchemeFeedback& f = v.feedback;
    f.type = SchemeFeedback::kUetAck;
    f.psn[0] = psn_add(cack, p.ack_psn_offset);
    f.psn[1] = p.ooo_count == 0xFFFF ? kUetOooUnknown : p.ooo_count;
    const uint32_t base = psn_add(cack, p.sack_psn_offset);
    uint64_t bits = 0;  // back to bit i: PSN ACK_PSN - 1 - i
    for (uint32_t j = 0; j < kSackSpan; ++j) {
      if (!(p.sack_bitmap >> j & 1)) continue;
      const int32_t i = psn_diff(f.psn[0], psn_add(base, j)) - 1;
      if (i >= 0 && static_cast<uint32_t>(i) < kUetSackBits) bits |= uint64_t{1} << i;
    }
    set_uet_sack_bits(f, bits);
    const uint32_t coalesced =
        w.pmtu_bytes ? std::min<uint32_t>(p.rcvd_bytes / w.pmtu_bytes, 63) : 0;
    f.info = static_cast<uint8_t>(((p.flags & kAckM) ? 1 : 0) | coalesced << 2);
    f.vp = u.outer.udp_sport;
  } else {
    return ParseStatus::kUnknownOpcode;
  }
  v.bth.opcode = op;
  v.info = opcode_info(op);
  v.flags = v.info->flags;
  return ParseStatus::kOk;
}

}  // namespace oonic::wire::uet

namespace oonic::wire {

ParseStatus parse_any(const uint8_t* frame, size_t len, PacketView& out, bool check_icrc,
                      const uet::NicWire& w) {
  const ParseStatus st = parse(frame, len, out, check_icrc);
  if (st != ParseStatus::kNotRoce || out.udp_dport != uet::kUetUdpPort) return st;
  uet::UetView u;
  switch (uet::parse_frame(frame, len, u)) {
    case uet::UetStatus::kOk:
      break;
    case uet::UetStatus::kTruncated:
      return ParseStatus::kTruncated;
    case uet::UetStatus::kBadHeader:
      return ParseStatus::kBadIpHeader;
    case uet::UetStatus::kNotUet:
      return ParseStatus::kNotRoce;
    case uet::UetStatus::kUnsupported:
      return ParseStatus::kUnknownOpcode;
  }
  return uet::to_view(frame, u, w, out);
}

}  // namespace oonic::wire
