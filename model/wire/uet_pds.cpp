// UET PDS header codec (see uet_pds.h for the layouts and their sources).
#include "model/wire/uet_pds.h"

#include <cstring>

#include "model/wire/bytes.h"

namespace oonic::wire::uet {

std::string type_name(PdsType t) {
  static const char* const kNames[] = {
      nullptr,  "tss",     "rud_req", "rod_req", "rudi_req", "rudi_resp",  "uud_req",   "ack",
      "ack_cc", "ack_ccx", "nack",    "control", "nack_ccx", "rud_cc_req", "rod_cc_req"};
  const auto i = static_cast<size_t>(t);
  if (i < sizeof kNames / sizeof kNames[0] && kNames[i]) return kNames[i];
  return "type_" + std::to_string(i);
}

bool is_request(PdsType t) {
  return t == PdsType::kRudReq || t == PdsType::kRodReq || t == PdsType::kRudCcReq ||
         t == PdsType::kRodCcReq;
}

namespace {

bool is_cc_request(PdsType t) {
  return t == PdsType::kRudCcReq || t == PdsType::kRodCcReq;
}

uint16_t prologue(const Pds& p) {
  return static_cast<uint16_t>((static_cast<unsigned>(p.type) & 0x1F) << 11 |
                               (p.next_hdr & 0xF) << 7 | (p.flags & 0x7F));
}

}  // namespace

const char* to_string(PdsStatus s) {
  switch (s) {
    case PdsStatus::kOk:
      return "ok";
    case PdsStatus::kTruncated:
      return "truncated";
    case PdsStatus::kUnsupported:
      return "unsupported PDS type";
    case PdsStatus::kBadField:
      return "field out of range";
  }
  return "?";
}

size_t pds_bytes(PdsType t) {
  switch (t) {
    case PdsType::kRudReq:
    case PdsType::kRodReq:
      return kReqBytes;
    case PdsType::kRudCcReq:
    case PdsType::kRodCcReq:
      return kReqCcBytes;
    case PdsType::kAck:
      return kAckBytes;
    case PdsType::kAckCc:
      return kAckCcBytes;
    case PdsType::kNack:
      return kNackBytes;
    default:
      return 0;
  }
}

size_t write_pds(const Pds& p, uint8_t* out, size_t cap, PdsStatus* st) {
  auto fail = [st](PdsStatus s) -> size_t {
    if (st) *st = s;
    return 0;
  };
  const size_t n = pds_bytes(p.type);
  if (!n) return fail(PdsStatus::kUnsupported);
  if (cap < n) return fail(PdsStatus::kTruncated);
  const bool syn = is_request(p.type) && (p.flags & kReqSyn);
  if (p.next_hdr > 0xF || p.flags > 0x7F || p.cc_flags > 0xF || p.rcv_cwnd_pend > 0x7F ||
      p.rcvd_bytes > 0xFFFFFF || p.credit > 0xFFFFFF || p.credit_target > 0xFFFFFF ||
      (syn && p.psn_offset > 0xFFF))
    return fail(PdsStatus::kBadField);
  std::memset(out, 0, n);
  wr16(out, prologue(p));
  if (is_request(p.type)) {
    wr16(out + 2, static_cast<uint16_t>(p.clear_psn_offset));
    wr32(out + 4, p.psn);
    wr16(out + 8, p.spdcid);
    wr16(out + 10,
         syn ? static_cast<uint16_t>((p.use_rsv_pdc ? 0x8000 : 0) | p.psn_offset) : p.dpdcid);
    if (is_cc_request(p.type)) {
      out[12] = p.ccc_id;
      wr24(out + 13, p.credit_target);
    }
  } else if (p.type == PdsType::kAck || p.type == PdsType::kAckCc) {
    wr16(out + 2, static_cast<uint16_t>(p.ack_psn_offset));
    wr32(out + 4, p.psn);
    wr16(out + 8, p.spdcid);
    wr16(out + 10, p.dpdcid);
    if (p.type == PdsType::kAckCc) {
      uint8_t* e = out + kAckBytes;
      e[0] = static_cast<uint8_t>((static_cast<unsigned>(p.cc_type) & 0xF) << 4 | p.cc_flags);
      e[1] = p.mpr;
      wr16(e + 2, static_cast<uint16_t>(p.sack_psn_offset));
      wr64(e + 4, p.sack_bitmap);
      if (p.cc_type == CcType::kNscc) {
        wr16(e + 12, p.service_time);
        e[14] = static_cast<uint8_t>((p.restore_cwnd ? 0x80 : 0) | p.rcv_cwnd_pend);
        wr24(e + 15, p.rcvd_bytes);
      } else {
        wr24(e + 12, p.credit);
      }
      wr16(e + 18, p.ooo_count);
    }
  } else {  // NACK
    out[2] = p.nack_code;
    out[3] = p.vendor_code;
    wr32(out + 4, p.psn);
    wr16(out + 8, p.spdcid);
    wr16(out + 10, p.dpdcid);
    wr32(out + 12, p.payload);
  }
  if (st) *st = PdsStatus::kOk;
  return n;
}

PdsStatus read_pds(const uint8_t* in, size_t len, Pds& p, size_t* used) {
  if (len < 2) return PdsStatus::kTruncated;
  p = Pds{};
  const uint16_t pro = rd16(in);
  p.type = static_cast<PdsType>(pro >> 11);
  p.next_hdr = static_cast<uint8_t>(pro >> 7 & 0xF);
  p.flags = static_cast<uint8_t>(pro & 0x7F);
  const size_t n = pds_bytes(p.type);
  if (!n) return PdsStatus::kUnsupported;
  if (len < n) return PdsStatus::kTruncated;
  if (is_request(p.type)) {
    p.clear_psn_offset = static_cast<int16_t>(rd16(in + 2));
    p.psn = rd32(in + 4);
    p.spdcid = rd16(in + 8);
    const uint16_t last = rd16(in + 10);
    if (p.flags & kReqSyn) {
      p.use_rsv_pdc = last & 0x8000;
      p.psn_offset = last & 0xFFF;
    } else {
      p.dpdcid = last;
    }
    if (is_cc_request(p.type)) {
      p.ccc_id = in[12];
      p.credit_target = rd24(in + 13);
    }
  } else if (p.type == PdsType::kAck || p.type == PdsType::kAckCc) {
    p.ack_psn_offset = static_cast<int16_t>(rd16(in + 2));
    p.psn = rd32(in + 4);
    p.spdcid = rd16(in + 8);
    p.dpdcid = rd16(in + 10);
    if (p.type == PdsType::kAckCc) {
      const uint8_t* e = in + kAckBytes;
      p.cc_type = static_cast<CcType>(e[0] >> 4);
      p.cc_flags = e[0] & 0xF;
      p.mpr = e[1];
      p.sack_psn_offset = static_cast<int16_t>(rd16(e + 2));
      p.sack_bitmap = rd64(e + 4);
      if (p.cc_type == CcType::kNscc) {
        p.service_time = rd16(e + 12);
        p.restore_cwnd = e[14] & 0x80;
        p.rcv_cwnd_pend = e[14] & 0x7F;
        p.rcvd_bytes = rd24(e + 15);
      } else if (p.cc_type == CcType::kCredit) {
        p.credit = rd24(e + 12);
      } else {
        return PdsStatus::kUnsupported;  // a CC type UET 1.0 does not define
      }
      p.ooo_count = rd16(e + 18);
    }
  } else {  // NACK
    p.nack_code = in[2];
    p.vendor_code = in[3];
    p.psn = rd32(in + 4);
    p.spdcid = rd16(in + 8);
    p.dpdcid = rd16(in + 10);
    p.payload = rd32(in + 12);
  }
  if (used) *used = n;
  return PdsStatus::kOk;
}

}  // namespace oonic::wire::uet
