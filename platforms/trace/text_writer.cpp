// Frames to text-trace lines (see text_writer.h and traces/README.md).
#include "platforms/trace/text_writer.h"

#include <cstdio>
#include <cstring>
#include <vector>

#include "model/wire/roce.h"
#include "model/wire/uet_frame.h"
#include "platforms/trace/trace.h"

namespace oonic::trace {

std::string format_time_ps(uint64_t ps) {
  char b[32];
  std::snprintf(b, sizeof b, "%llu.%03llu", static_cast<unsigned long long>(ps / 1000),
                static_cast<unsigned long long>(ps % 1000));
  return b;
}

namespace {

// Inverse of an odd number modulo 2^64 (Newton: each step doubles the bits).
constexpr uint64_t inverse_odd(uint64_t a) {
  uint64_t x = a;  // right to 3 bits
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}
constexpr uint64_t kInvM1 = inverse_odd(0xbf58476d1ce4e5b9ull);
constexpr uint64_t kInvM2 = inverse_odd(0x94d049bb133111ebull);
static_assert(kInvM1 * 0xbf58476d1ce4e5b9ull == 1, "inverse");
static_assert(kInvM2 * 0x94d049bb133111ebull == 1, "inverse");

// Inverse of x ^= x >> s.
inline uint64_t unxorshift(uint64_t y, int s) {
  uint64_t x = y;
  for (int i = 0; i * s < 64; ++i) x = y ^ (x >> s);
  return x;
}

}  // namespace

const char* text_opcode_name(uint8_t op) {
  switch (op) {
    case wire::kSendFirst:
      return "SEND_FIRST";
    case wire::kSendMiddle:
      return "SEND_MIDDLE";
    case wire::kSendLast:
      return "SEND_LAST";
    case wire::kSendLastImm:
      return "SEND_LAST_IMM";
    case wire::kSendOnly:
      return "SEND_ONLY";
    case wire::kSendOnlyImm:
      return "SEND_ONLY_IMM";
    case wire::kWriteFirst:
      return "WRITE_FIRST";
    case wire::kWriteMiddle:
      return "WRITE_MIDDLE";
    case wire::kWriteLast:
      return "WRITE_LAST";
    case wire::kWriteLastImm:
      return "WRITE_LAST_IMM";
    case wire::kWriteOnly:
      return "WRITE_ONLY";
    case wire::kWriteOnlyImm:
      return "WRITE_ONLY_IMM";
    case wire::kReadRequest:
      return "READ_REQUEST";
    case wire::kReadResponseFirst:
      return "READ_RESPONSE_FIRST";
    case wire::kReadResponseMiddle:
      return "READ_RESPONSE_MIDDLE";
    case wire::kReadResponseLast:
      return "READ_RESPONSE_LAST";
    case wire::kReadResponseOnly:
      return "READ_RESPONSE_ONLY";
    case wire::kAcknowledge:
      return "ACK";
    case wire::kOooWriteFSpot:
      return "OOO_WRITE_FSPOT";
    case wire::kOooWriteSpot:
      return "OOO_WRITE_SPOT";
    case wire::kOooWriteLast:
      return "OOO_WRITE_LAST";
    case wire::kOooWriteLastFSpot:
      return "OOO_WRITE_LAST_FSPOT";
    case wire::kOooReadRequest:
      return "OOO_READ_REQUEST";
    case wire::kOooReadResponse:
      return "OOO_READ_RESPONSE";
    case wire::kOooNak:
      return "OOO_NAK";
    case wire::kCnp:
      return "CNP";
    default:
      return nullptr;
  }
}

namespace {

const char kHex[] = "0123456789abcdef";

void append_hex(std::string& s, const uint8_t* p, size_t n) {
  size_t at = s.size();
  s.resize(at + 2 * n);
  char* o = &s[at];
  for (size_t i = 0; i < n; ++i) {
    o[2 * i] = kHex[p[i] >> 4];
    o[2 * i + 1] = kHex[p[i] & 15];
  }
}

void append_fmt(std::string& s, const char* fmt, unsigned long long v) {
  char b[48];
  std::snprintf(b, sizeof b, fmt, v);
  s += b;
}

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

uint64_t unsplitmix64(uint64_t z) {
  z = unxorshift(z, 31);
  z *= kInvM2;
  z = unxorshift(z, 27);
  z *= kInvM1;
  z = unxorshift(z, 30);
  return z - 0x9e3779b97f4a7c15ull;
}

bool find_pattern_address(const uint8_t* data, size_t n, uint64_t& addr) {
  for (size_t j = 0; j < 8 && j + 8 <= n; ++j) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b) w = (w << 8) | data[j + b];
    uint64_t a = (unsplitmix64(w) << 3) - j;  // the word at data + j is address (k << 3)
    if (check_pattern(a, data, n) == n) {
      addr = a;
      return true;
    }
  }
  return false;
}

std::string TextFrameWriter::fields(const uint8_t* frame, size_t len) const {
  return fields_with(frame, len, ep_, nullptr);
}

// The fields of a frame relative to the endpoints ep, or "" if the frame has no
// field form. If first is given, it receives the frame's own endpoints.
std::string TextFrameWriter::fields_with(const uint8_t* frame, size_t len, const Ep& ep,
                                         Ep* first) const {
  wire::PacketView v;
  wire::ParseStatus st = wire::parse(frame, len, v, true);
  bool bad_icrc = false;
  if (st == wire::ParseStatus::kBadIcrc) {
    bad_icrc = true;
  } else if (st == wire::ParseStatus::kUdOrCnp) {
    if (v.bth.opcode != wire::kCnp) return "";
  } else if (st != wire::ParseStatus::kOk) {
    return "";
  }
  const char* name = text_opcode_name(v.bth.opcode);
  const wire::OpcodeInfo* info = wire::opcode_info(v.bth.opcode);
  if (!name || !info || v.frame_len != len) return "";
  const uint16_t fl = info->flags;

  // The spec the text loader would build from the fields written below.
  wire::FrameSpec s;
  s.dst_mac = v.dst_mac;
  s.src_mac = v.src_mac;
  s.vlan = v.has_vlan;
  s.vlan_tci = v.vlan_tci;
  s.ip_version = v.ip_version;
  s.src_ip = v.src_ip;
  s.dst_ip = v.dst_ip;
  s.tos = v.tos;
  s.ttl = v.ttl;
  s.udp_sport = v.udp_sport;
  s.bth.opcode = v.bth.opcode;
  s.bth.se = v.bth.se;
  s.bth.pkey = v.bth.pkey;
  s.bth.fecn = v.bth.fecn;
  s.bth.becn = v.bth.becn;
  s.bth.dest_qp = v.bth.dest_qp;
  s.bth.ack_req = v.bth.ack_req;
  s.bth.resv7 = v.bth.resv7 & wire::kBthStartAddrCachedBit;
  s.bth.psn = v.bth.psn;
  const bool eunomia = (v.flags & wire::kHasEunomiaMeta) != 0;
  if (eunomia) {  // eunomia_head= (eunomia_last=): the BTH bit and the 8-byte header
    s.bth.resv7 |= wire::kBthEunomiaMetaBit;
    s.eunomia = v.eunomia;
  }
  if (fl & (wire::kHasReth | wire::kHasOooAddr)) s.reth = v.reth;
  if (fl & wire::kHasAeth) s.aeth = v.aeth;
  if (fl & wire::kHasImmDt) s.immdt = v.immdt;
  if (fl & wire::kHasBitmap) {
    if (v.bitmap.nbits == 0 || v.bitmap.nbits > wire::kMaxBitmapBlockBits) return "";
    uint32_t nb = v.bitmap.nbits;
    if (nb % 32 && (v.bitmap.words[nb / 32] >> (nb % 32)) != 0) return "";  // bits beyond nbits
    s.bitmap = v.bitmap;
  }
  if (fl & wire::kHasPayload) {
    s.payload = v.payload;
    s.payload_len = v.payload_len;
  } else if (v.payload_len != 0) {
    return "";
  }
  if (s.payload_len > 65000) return "";
  std::vector<uint8_t> built = wire::build(s);
  if (bad_icrc && built.size() >= wire::kIcrcBytes) {
    for (size_t b = 0; b < wire::kIcrcBytes; ++b) built[built.size() - 1 - b] ^= 0xff;
  }
  if (built.size() != len || std::memcmp(built.data(), frame, len) != 0) return "";

  if (first) {
    first->ip_version = v.ip_version;
    first->src_ip = v.src_ip;
    first->dst_ip = v.dst_ip;
    first->smac = v.src_mac;
    first->dmac = v.dst_mac;
  }

  std::string o;
  o.reserve(96 + 2 * v.payload_len);
  o += "op=";
  o += name;
  append_fmt(o, " qp=0x%llx", v.bth.dest_qp);
  append_fmt(o, " psn=%llu", v.bth.psn);
  if (eunomia) {  // in wire order: the metadata header follows the BTH
    append_fmt(o, " eunomia_head=%llu", v.eunomia.head);
    if (v.eunomia.last) o += " eunomia_last=1";
  }
  if (fl & (wire::kHasReth | wire::kHasOooAddr)) {
    append_fmt(o, " va=0x%llx", v.reth.va);
    append_fmt(o, " rkey=0x%llx", v.reth.rkey);
    append_fmt(o, " dmalen=%llu", v.reth.dma_len);
  }
  if (fl & wire::kHasAeth) {
    uint8_t dflt = v.bth.opcode == wire::kOooNak ? wire::kAethNakPsnSeqErr : wire::kAethAckNoCredit;
    if (v.aeth.syndrome != dflt) append_fmt(o, " syndrome=0x%02llx", v.aeth.syndrome);
    if (v.aeth.msn != 0) append_fmt(o, " msn=%llu", v.aeth.msn);
  }
  if (fl & wire::kHasImmDt) append_fmt(o, " imm=0x%llx", v.immdt);
  if (fl & wire::kHasBitmap) {
    append_fmt(o, " bitmap=%llu", v.bitmap.base_psn);
    append_fmt(o, ":%llu:", v.bitmap.nbits);
    for (uint32_t w = 0; w < (v.bitmap.nbits + 31u) / 32u; ++w)
      append_fmt(o, w ? ",%08llx" : "%08llx", v.bitmap.words[w]);
  }
  if (fl & wire::kHasPayload) {
    uint32_t n = v.payload_len;
    uint64_t addr = 0;
    if (n == 0) {
      // len=0 is the default
    } else if (all_zero(v.payload, n)) {
      if (!(v.bth.opcode == wire::kCnp && n == 16)) append_fmt(o, " len=%llu", n);
    } else if (n >= 16 && find_pattern_address(v.payload, n, addr)) {
      append_fmt(o, " len=%llu", n);
      append_fmt(o, " payload=pat:0x%llx", addr);
    } else {
      o += " payload=hex:";
      append_hex(o, v.payload, n);
    }
  }
  if (v.bth.ack_req) o += " ackreq=1";
  if (v.bth.se) o += " se=1";
  if (v.bth.fecn) o += " fecn=1";
  if (v.bth.becn) o += " becn=1";
  if (v.bth.resv7 & wire::kBthStartAddrCachedBit) o += " cached=1";
  if (v.bth.pkey != 0xffff) append_fmt(o, " pkey=0x%04llx", v.bth.pkey);
  const Ep& e = first ? *first : ep;
  bool other_version = v.ip_version != e.ip_version;
  if (other_version || v.src_ip != e.src_ip) o += " src=" + wire::format_ip(v.ip_version, v.src_ip);
  if (other_version || v.dst_ip != e.dst_ip) o += " dst=" + wire::format_ip(v.ip_version, v.dst_ip);
  if (v.src_mac != e.smac) o += " smac=" + wire::format_mac(v.src_mac);
  if (v.dst_mac != e.dmac) o += " dmac=" + wire::format_mac(v.dst_mac);
  if (v.udp_sport != 49152) append_fmt(o, " sport=%llu", v.udp_sport);
  if (v.has_vlan) append_fmt(o, " vlan=0x%04llx", v.vlan_tci);
  if (v.tos != 0) append_fmt(o, " tos=0x%02llx", v.tos);
  if (v.ttl != 64) append_fmt(o, " ttl=%llu", v.ttl);
  if (bad_icrc) o += " badicrc=1";
  return o;
}

void TextFrameWriter::write(std::string& out, const uint8_t* frame, size_t len, bool has_time,
                            uint64_t time_ps, const std::string& comment) {
  std::string f;
  if (!ep_fixed_) {
    Ep e;
    f = fields_with(frame, len, ep_, &e);
    if (!f.empty()) {
      ep_fixed_ = true;
      if (e.ip_version != ep_.ip_version || e.src_ip != ep_.src_ip || e.dst_ip != ep_.dst_ip ||
          e.smac != ep_.smac || e.dmac != ep_.dmac) {
        out += "@endpoints peer=" + wire::format_ip(e.ip_version, e.src_ip) + "," +
               wire::format_mac(e.smac) + " dut=" + wire::format_ip(e.ip_version, e.dst_ip) + "," +
               wire::format_mac(e.dmac) + "\n";
      }
      ep_ = e;
    }
  } else {
    f = fields_with(frame, len, ep_, nullptr);
  }
  out += has_time ? format_time_ps(time_ps) : std::string("-");
  out += ' ';
  if (!f.empty()) {
    out += f;
    ++field_lines_;
  } else {
    out += "raw=";
    append_hex(out, frame, len);
    ++raw_lines_;
  }
  std::string note = comment;
  if (f.empty()) {  // say what a RoCE frame in raw= is (a comment: the loader ignores it)
    wire::PacketView v;
    wire::ParseStatus st = wire::parse(frame, len, v, false);
    if (st == wire::ParseStatus::kOk || st == wire::ParseStatus::kUdOrCnp) {
      const char* name = text_opcode_name(v.bth.opcode);
      char op[16];
      std::snprintf(op, sizeof op, "opcode=0x%02x", v.bth.opcode);
      char b[96];
      std::snprintf(b, sizeof b, "%s%s qp=0x%x psn=%u", note.empty() ? "" : " ", name ? name : op,
                    v.bth.dest_qp, v.bth.psn);
      note += b;
      if (v.flags & wire::kHasEunomiaMeta) {
        std::snprintf(b, sizeof b, " eunomia_head=%u%s", v.eunomia.head,
                      v.eunomia.last ? " eunomia_last=1" : "");
        note += b;
      }
    } else {  // a UET frame (UDP 4793): its PDS type, PSN, PDCs and entropy value
      wire::uet::UetView u;
      if (wire::uet::parse_frame(frame, len, u) == wire::uet::UetStatus::kOk) {
        char b[128];
        std::snprintf(b, sizeof b, "%suet %s psn=%u spdcid=%u dpdcid=%u ev=%u",
                      note.empty() ? "" : " ", wire::uet::type_name(u.pds.type).c_str(), u.pds.psn,
                      u.pds.spdcid, u.pds.dpdcid, u.outer.udp_sport);
        note += b;
        if (u.pds.type == wire::uet::PdsType::kNack) {
          std::snprintf(b, sizeof b, " nack_code=0x%02x", u.pds.nack_code);
          note += b;
        }
        if (u.trimmed) note += u.trimmed_last_hop ? " trimmed_last_hop" : " trimmed";
      }
    }
  }
  if (!note.empty()) {
    out += " # ";
    out += note;
  }
  out += '\n';
}

}  // namespace oonic::trace
