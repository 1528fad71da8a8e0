// The text trace parser (platforms/trace/text_trace.h).
#include "platforms/trace/text_trace.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#include "model/core/error.h"
#include "model/wire/roce.h"

#include "platforms/trace/trace.h"

namespace oonic::trace::textfmt {

// Canonical spelling of an opcode for messages.
std::string op_display(uint8_t opcode) {
  for (const auto& o : kOpNames) {
    if (o.opcode == opcode) return std::string(o.name);
  }
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", opcode);
  return b;
}

// Upper case, '-' and ' ' to '_', "RDMA_" prefix dropped. Returns false if the
// name does not fit the buffer (then it is no opcode name).
bool normalize_op(std::string_view s, char (&buf)[64], std::string_view& out) {
  if (s.size() >= sizeof buf) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '-' || c == ' ') c = '_';
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    buf[i] = c;
  }
  out = std::string_view(buf, s.size());
  if (out.substr(0, 5) == "RDMA_") out.remove_prefix(5);
  return true;
}

uint64_t TextParser::number(std::string_view key, std::string_view v, uint64_t max) const {
  uint64_t x = 0;
  std::from_chars_result r{};
  const char* b = v.data();
  const char* e = v.data() + v.size();
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    r = std::from_chars(b + 2, e, x, 16);
  } else {
    r = std::from_chars(b, e, x, 10);
  }
  if (v.empty() || r.ec == std::errc::invalid_argument || r.ptr != e) {
    fail(key, "bad number '" + std::string(v) + "'");
  }
  if (r.ec == std::errc::result_out_of_range || x > max) {
    char m[32];
    std::snprintf(m, sizeof m, "0x%llx", static_cast<unsigned long long>(max));
    fail(key, "value " + std::string(v) + " out of range (max " + m + ")");
  }
  return x;
}

uint8_t TextParser::ip(std::string_view key, std::string_view v,
                       std::array<uint8_t, 16>& out) const {
  char buf[64];
  if (v.size() >= sizeof buf) fail(key, "bad IP address '" + std::string(v) + "'");
  std::memcpy(buf, v.data(), v.size());
  buf[v.size()] = 0;
  out.fill(0);
  if (v.find(':') != std::string_view::npos) {
    if (inet_pton(AF_INET6, buf, out.data()) == 1) return 6;
  } else if (inet_pton(AF_INET, buf, out.data()) == 1) {
    return 4;
  }
  fail(key, "bad IP address '" + std::string(v) + "'");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void TextParser::mac(std::string_view key, std::string_view v, std::array<uint8_t, 6>& out) const {
  // xx:xx:xx:xx:xx:xx (or '-' separators)
  bool ok = v.size() == 17;
  for (size_t i = 0; ok && i < 6; ++i) {
    int hi = hex_digit(v[3 * i]);
    int lo = hex_digit(v[3 * i + 1]);
    if (hi < 0 || lo < 0) ok = false;
    if (i < 5 && v[3 * i + 2] != ':' && v[3 * i + 2] != '-') ok = false;
    if (ok) out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  if (!ok) fail(key, "bad MAC address '" + std::string(v) + "' (expected xx:xx:xx:xx:xx:xx)");
}

void TextParser::hex(std::string_view key, std::string_view v, std::vector<uint8_t>& blob) const {
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) v.remove_prefix(2);
  if (v.size() % 2 != 0) fail(key, "odd number of hex digits");
  size_t n = v.size() / 2;
  size_t at = blob.size();
  blob.resize(at + n);
  for (size_t i = 0; i < n; ++i) {
    int hi = hex_digit(v[2 * i]);
    int lo = hex_digit(v[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      fail(key, "bad hex digit '" + std::string(1, hi < 0 ? v[2 * i] : v[2 * i + 1]) + "'");
    }
    blob[at + i] = static_cast<uint8_t>(hi << 4 | lo);
  }
}

void TextParser::time(std::string_view tok, Pending& p) const {
  if (tok == "-") {
    p.has_time = false;
    return;
  }
  size_t dot = tok.find('.');
  std::string_view ip = tok.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view() : tok.substr(dot + 1);
  uint64_t ns = 0;
  auto r = std::from_chars(ip.data(), ip.data() + ip.size(), ns, 10);
  bool ok = !ip.empty() && r.ec == std::errc() && r.ptr == ip.data() + ip.size();
  if (dot != std::string_view::npos) ok = ok && !fp.empty();
  uint64_t frac = 0;
  for (size_t i = 0; ok && i < fp.size(); ++i) {
    if (fp[i] < '0' || fp[i] > '9') ok = false;
    if (i >= 3) {
      if (ok && fp[i] != '0') fail("time", "time '" + std::string(tok) + "' finer than 1 ps");
      continue;
    }
    frac = frac * 10 + static_cast<uint64_t>(fp[i] - '0');
  }
  if (!ok) {
    if (tok.find('=') != std::string_view::npos) {
      fail("time", "a line starts with its time in ns or '-', got '" + std::string(tok) + "'");
    }
    fail("time", "bad time '" + std::string(tok) + "' (ns, e.g. 12.5, or '-')");
  }
  for (size_t i = fp.size(); i < 3; ++i) frac *= 10;
  if (ns > (std::numeric_limits<uint64_t>::max() - 999) / 1000) {
    fail("time", "time '" + std::string(tok) + "' out of range");
  }
  p.has_time = true;
  p.time_ps = ns * 1000 + frac;
  if (have_last_time_ && p.time_ps < last_time_ps_) {
    fail("time", "time " + std::string(tok) + " ns is earlier than the previous timed line");
  }
}

void TextParser::bitmap(std::string_view key, std::string_view v, wire::BitmapBlock& b) const {
  // <base_psn>:<nbits>[:<hexword>,<hexword>,...]
  size_t c1 = v.find(':');
  if (c1 == std::string_view::npos) fail(key, "expected <base_psn>:<nbits>:<hexwords>");
  size_t c2 = v.find(':', c1 + 1);
  std::string_view base = v.substr(0, c1);
  std::string_view nb = v.substr(c1 + 1, c2 == std::string_view::npos ? v.npos : c2 - c1 - 1);
  std::string_view words = c2 == std::string_view::npos ? std::string_view() : v.substr(c2 + 1);
  b = wire::BitmapBlock{};
  b.base_psn = static_cast<uint32_t>(number(key, base, wire::kPsnMask));
  uint64_t nbits = number(key, nb, wire::kMaxBitmapBlockBits);
  if (nbits == 0) fail(key, "bitmap of 0 bits");
  b.nbits = static_cast<uint16_t>(nbits);
  size_t nwords = (nbits + 31) / 32;
  size_t i = 0;
  while (!words.empty()) {
    size_t comma = words.find(',');
    std::string_view w = words.substr(0, comma);
    words = comma == std::string_view::npos ? std::string_view() : words.substr(comma + 1);
    if (i >= nwords) {
      fail(key,
           "more than " + std::to_string(nwords) + " words for " + std::to_string(nbits) + " bits");
    }
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
    uint32_t x = 0;
    auto r = std::from_chars(w.data(), w.data() + w.size(), x, 16);
    if (w.empty() || r.ec != std::errc() || r.ptr != w.data() + w.size()) {
      fail(key, "bad hex word '" + std::string(w) + "'");
    }
    uint32_t valid = (i + 1) * 32 <= nbits ? 0xffffffffu : ((1u << (nbits % 32)) - 1);
    if (x & ~valid) fail(key, "bits set beyond nbits=" + std::to_string(nbits));
    b.words[i++] = x;
  }
}

uint8_t TextParser::opcode(std::string_view key, std::string_view v) const {
  uint8_t op = 0;
  bool found = false;
  if (!v.empty() && v[0] >= '0' && v[0] <= '9') {
    op = static_cast<uint8_t>(number(key, v, 0xff));
    found = true;
  } else {
    char buf[64];
    std::string_view n;
    if (normalize_op(v, buf, n)) {
      for (const auto& o : kOpNames) {
        if (n == o.name) {
          op = o.opcode;
          found = true;
          break;
        }
      }
      if (!found) {  // the names of the codec's table ("RDMA WRITE First", ...)
        for (const auto& info : wire::opcode_table()) {
          char buf2[64];
          std::string_view n2;
          if (normalize_op(info.name, buf2, n2) && n == n2) {
            op = info.opcode;
            found = true;
            break;
          }
        }
      }
    }
  }
  if (!found || wire::opcode_info(op) == nullptr) {
    fail(key, "unknown opcode '" + std::string(v) + "'");
  }
  return op;
}

void TextParser::endpoint(std::string_view key, std::string_view v, std::array<uint8_t, 16>& ip_out,
                          uint8_t& version, std::array<uint8_t, 6>& mac_out) {
  // IP[,MAC]
  size_t comma = v.find(',');
  version = ip(key, v.substr(0, comma), ip_out);
  if (comma != std::string_view::npos) mac(key, v.substr(comma + 1), mac_out);
}

void TextParser::directive(const std::vector<std::pair<std::string_view, std::string_view>>& kv,
                           std::string_view name) {
  if (name != "@endpoints") {
    fail(name, "unknown directive (known: @endpoints peer=IP[,MAC] dut=IP[,MAC])");
  }
  Endpoints e = ep_;
  uint8_t vs = 0;
  uint8_t vd = 0;
  for (const auto& [k, v] : kv) {
    if (k == "peer") {
      endpoint(k, v, e.src_ip, vs, e.smac);
    } else if (k == "dut") {
      endpoint(k, v, e.dst_ip, vd, e.dmac);
    } else {
      fail(k, "unknown @endpoints field (known: peer, dut)");
    }
  }
  uint8_t v_src = vs ? vs : ep_.ip_version;
  uint8_t v_dst = vd ? vd : ep_.ip_version;
  if (v_src != v_dst) fail(vs ? "peer" : "dut", "peer and dut must both be IPv4 or both IPv6");
  e.ip_version = v_src;
  ep_ = e;
}

bool TextParser::version_header(std::string_view line) const {
  if (line.rfind("# oonic-trace", 0) != 0) return false;
  std::string_view ver = line.substr(13);
  while (!ver.empty() && (ver.front() == ' ' || ver.front() == '\t')) ver.remove_prefix(1);
  while (!ver.empty() && (ver.back() == ' ' || ver.back() == '\t')) ver.remove_suffix(1);
  if (ver != "v1") fail("header", "unsupported trace version '" + std::string(ver) + "'");
  return true;
}

// Whitespace separated, '#' starts a comment, "..." quotes spaces.
bool TextParser::tokenize(std::string_view line, std::string_view& first, KeyValues& kv) const {
  kv.clear();
  size_t i = 0;
  bool have_first = false;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    size_t start = i;
    bool quoted = false;
    while (i < line.size() && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
      if (line[i] == '"') quoted = !quoted;
      ++i;
    }
    std::string_view tok = line.substr(start, i - start);
    if (!have_first) {
      first = tok;
      have_first = true;
      continue;
    }
    size_t eq = tok.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      fail(tok, "expected key=value");
    }
    std::string_view k = tok.substr(0, eq);
    std::string_view v = tok.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    kv.emplace_back(k, v);
  }
  return have_first;
}

void TextParser::field(std::string_view k, std::string_view v, FrameLine& l,
                       std::vector<uint8_t>& blob) {
  int key = -1;
  for (int j = 0; j < kNumKeys; ++j) {
    if (k == kKeyNames[j]) {
      key = j;
      break;
    }
  }
  if (key < 0) {
    fail(k,
         "unknown field (known: op qp psn va rkey dmalen syndrome msn imm ackreq len payload "
         "src dst smac dmac sport vlan tos ttl pkey se fecn becn cached bitmap raw badicrc "
         "eunomia_head eunomia_last)");
  }
  if (l.seen & (1u << key)) fail(k, "field given twice");
  l.seen |= 1u << key;
  if (!header_field(static_cast<Key>(key), k, v, l.p.spec)) {
    frame_field(static_cast<Key>(key), k, v, l, blob);
  }
}

// The fields of the RoCE headers (BTH, RETH, AETH, ImmDt, bitmap, Eunomia's
// metadata): false for any other key.
bool TextParser::header_field(Key key, std::string_view k, std::string_view v,
                              wire::FrameSpec& s) const {
  switch (key) {
    case kOp:
      s.bth.opcode = opcode(k, v);
      break;
    case kQp:
      s.bth.dest_qp = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
      break;
    case kPsn:
      s.bth.psn = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
      break;
    case kVa:
      s.reth.va = number(k, v, std::numeric_limits<uint64_t>::max());
      break;
    case kRkey:
      s.reth.rkey = static_cast<uint32_t>(number(k, v, 0xffffffffu));
      break;
    case kDmalen:
      s.reth.dma_len = static_cast<uint32_t>(number(k, v, 0xffffffffu));
      break;
    case kSyndrome:
      s.aeth.syndrome = static_cast<uint8_t>(number(k, v, 0xff));
      break;
    case kMsn:
      s.aeth.msn = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
      break;
    case kImm:
      s.immdt = static_cast<uint32_t>(number(k, v, 0xffffffffu));
      break;
    case kAckreq:
      s.bth.ack_req = flag(k, v);
      break;
    case kPkey:
      s.bth.pkey = static_cast<uint16_t>(number(k, v, 0xffff));
      break;
    case kSe:
      s.bth.se = flag(k, v);
      break;
    case kFecn:
      s.bth.fecn = flag(k, v);
      break;
    case kBecn:
      s.bth.becn = flag(k, v);
      break;
    case kCached:
      if (flag(k, v)) s.bth.resv7 |= wire::kBthStartAddrCachedBit;
      break;
    case kBitmap:
      bitmap(k, v, s.bitmap);
      break;
    case kEunomiaHead:
      s.eunomia.head = static_cast<uint32_t>(number(k, v, 0xffffffffu));
      break;
    case kEunomiaLast:
      s.eunomia.last = flag(k, v);
      break;
    default:
      return false;
  }
  return true;
}

// The fields of the frame around the RoCE headers: Ethernet, IP, UDP, the
// payload, a raw frame, the ICRC.
void TextParser::frame_field(Key key, std::string_view k, std::string_view v, FrameLine& l,
                             std::vector<uint8_t>& blob) const {
  Pending& p = l.p;
  wire::FrameSpec& s = p.spec;
  switch (key) {
    case kLen:
      l.len = number(k, v, kMaxLen);
      break;
    case kPayload:
      if (v == "zero") {
        p.kind = PayloadKind::kZero;
      } else if (v.rfind("hex:", 0) == 0) {
        p.kind = PayloadKind::kHex;
        p.blob_off = static_cast<uint32_t>(blob.size());
        hex(k, v.substr(4), blob);
        p.blob_len = static_cast<uint32_t>(blob.size() - p.blob_off);
        if (p.blob_len > kMaxLen) fail(k, "payload longer than 65000 bytes");
      } else if (v.rfind("pat:", 0) == 0) {
        p.kind = PayloadKind::kPat;
        p.pat_addr = number(k, v.substr(4), std::numeric_limits<uint64_t>::max());
      } else {
        fail(k, "bad payload '" + std::string(v) + "' (zero, hex:<bytes> or pat:<addr>)");
      }
      break;
    case kSrc:
      l.v_src = ip(k, v, s.src_ip);
      break;
    case kDst:
      l.v_dst = ip(k, v, s.dst_ip);
      break;
    case kSmac:
      mac(k, v, s.src_mac);
      break;
    case kDmac:
      mac(k, v, s.dst_mac);
      break;
    case kSport:
      s.udp_sport = static_cast<uint16_t>(number(k, v, 0xffff));
      break;
    case kVlan:
      s.vlan = true;
      s.vlan_tci = static_cast<uint16_t>(number(k, v, 0xffff));
      break;
    case kTos:
      s.tos = static_cast<uint8_t>(number(k, v, 0xff));
      break;
    case kTtl:
      s.ttl = static_cast<uint8_t>(number(k, v, 0xff));
      break;
    case kRaw:
      p.kind = PayloadKind::kRaw;
      p.blob_off = static_cast<uint32_t>(blob.size());
      hex(k, v, blob);
      p.blob_len = static_cast<uint32_t>(blob.size() - p.blob_off);
      if (p.blob_len == 0) fail(k, "empty frame");
      if (p.blob_len > kMaxRaw) fail(k, "frame longer than 262144 bytes");
      break;
    case kBadIcrc:
      p.bad_icrc = flag(k, v);
      break;
    default:  // header_field's
      break;
  }
}

void TextParser::require(const FrameLine& l, Key key) const {
  if (!l.has(key)) {
    fail(kKeyNames[key], "missing (required by " + op_display(l.p.spec.bth.opcode) + ")");
  }
}

void TextParser::forbid(const FrameLine& l, Key key, const char* what) const {
  if (l.has(key)) {
    fail(kKeyNames[key], "not carried by " + op_display(l.p.spec.bth.opcode) + " (" + what + ")");
  }
}

// What the opcode needs of a field line, and the defaults it takes.
void TextParser::check_fields(FrameLine& l) const {
  if (!l.has(kOp)) fail("op", "missing (every line needs op= or raw=)");
  wire::FrameSpec& s = l.p.spec;
  // IP version: both ends the same.
  uint8_t vs = l.v_src ? l.v_src : ep_.ip_version;
  uint8_t vd = l.v_dst ? l.v_dst : ep_.ip_version;
  if (vs != vd) fail(l.v_src ? "src" : "dst", "src and dst must both be IPv4 or both IPv6");
  s.ip_version = vs;
  check_headers(l);
  check_payload(l);
}

void TextParser::check_headers(FrameLine& l) const {
  wire::FrameSpec& s = l.p.spec;
  const uint8_t op = s.bth.opcode;
  const uint16_t fl = wire::opcode_info(op)->flags;
  require(l, kQp);
  if (op != wire::kCnp) require(l, kPsn);
  if (fl & (wire::kHasReth | wire::kHasOooAddr)) {
    require(l, kVa);
    require(l, kRkey);
    if (!l.has(kDmalen)) {
      if (op == wire::kWriteOnly || op == wire::kWriteOnlyImm) {
        s.reth.dma_len = static_cast<uint32_t>(
            l.p.kind == PayloadKind::kHex && !l.has(kLen) ? l.p.blob_len : l.len);
      } else {
        require(l, kDmalen);
      }
    }
  } else {
    forbid(l, kVa, "no RETH / address header");
    forbid(l, kRkey, "no RETH / address header");
    forbid(l, kDmalen, "no RETH / address header");
  }
  if (fl & wire::kHasAeth) {
    if (!l.has(kSyndrome)) {
      s.aeth.syndrome = op == wire::kOooNak ? wire::kAethNakPsnSeqErr : wire::kAethAckNoCredit;
    }
  } else {
    forbid(l, kSyndrome, "no AETH");
    forbid(l, kMsn, "no AETH");
  }
  if (!(fl & wire::kHasImmDt)) forbid(l, kImm, "no ImmDt");
  // Eunomia's metadata extension (Head, last): data packets only (WRITE, SEND, OOO
  // WRITE), as wire::build writes it; either key sets the BTH bit and adds the header.
  constexpr uint16_t kEunomiaData = wire::kHasPayload | wire::kIsRequest;
  if ((fl & kEunomiaData) == kEunomiaData) {
    if (l.has(kEunomiaLast) && !l.has(kEunomiaHead)) {
      fail("eunomia_head", "missing (eunomia_last needs the message's Head)");
    }
    if (l.has(kEunomiaHead)) s.bth.resv7 |= wire::kBthEunomiaMetaBit;
  } else {
    forbid(l, kEunomiaHead, "no Eunomia metadata: WRITE, SEND and OOO WRITE data packets only");
    forbid(l, kEunomiaLast, "no Eunomia metadata: WRITE, SEND and OOO WRITE data packets only");
  }
  if (fl & wire::kHasBitmap) {
    require(l, kBitmap);
  } else {
    forbid(l, kBitmap, "no bitmap header");
  }
}

void TextParser::check_payload(FrameLine& l) const {
  wire::FrameSpec& s = l.p.spec;
  const uint8_t op = s.bth.opcode;
  if (wire::opcode_info(op)->flags & wire::kHasPayload) {
    if (l.p.kind == PayloadKind::kHex) {
      if (l.has(kLen) && l.len != l.p.blob_len) {
        fail("len", "len=" + std::to_string(l.len) + " but the hex payload has " +
                        std::to_string(l.p.blob_len) + " bytes");
      }
      l.len = l.p.blob_len;
    } else if (l.p.kind == PayloadKind::kPat && !l.has(kLen)) {
      fail("len", "missing (payload=pat needs len=)");
    } else if (op == wire::kCnp && !l.has(kLen)) {
      l.len = 16;  // RoCEv2 CNP: 16 reserved bytes
    }
    s.payload_len = static_cast<uint32_t>(l.len);
  } else {
    forbid(l, kLen, "no payload");
    forbid(l, kPayload, "no payload");
  }
}

void TextParser::frame_line(std::string_view first, const KeyValues& kv, std::vector<Pending>& out,
                            std::vector<uint8_t>& blob) {
  FrameLine l;
  l.p.line = line_;
  time(first, l.p);
  wire::FrameSpec& s = l.p.spec;
  s.ip_version = ep_.ip_version;
  s.src_ip = ep_.src_ip;
  s.dst_ip = ep_.dst_ip;
  s.src_mac = ep_.smac;
  s.dst_mac = ep_.dmac;
  for (const auto& [k, v] : kv) field(k, v, l, blob);
  if (l.has(kRaw)) {
    for (const auto& kvp : kv) {
      if (kvp.first != "raw") fail(kvp.first, "raw= takes no other field");
    }
    l.p.frame_len = l.p.blob_len;
  } else {
    check_fields(l);
    l.p.frame_len = static_cast<uint32_t>(wire::frame_size(s));
  }
  out.push_back(l.p);
  if (l.p.has_time) {
    have_last_time_ = true;
    last_time_ps_ = l.p.time_ps;
  }
}

void TextParser::run(std::vector<Pending>& out, std::vector<uint8_t>& blob) {
  KeyValues kv;
  kv.reserve(32);
  size_t pos = 0;
  while (pos < text_.size()) {
    size_t nl = text_.find('\n', pos);
    if (nl == std::string_view::npos) nl = text_.size();
    std::string_view line = text_.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (version_header(line)) continue;
    std::string_view first;
    if (!tokenize(line, first, kv)) continue;  // blank or comment
    if (first[0] == '@') {
      directive(kv, first);
      continue;
    }
    frame_line(first, kv, out, blob);
  }
}

}  // namespace oonic::trace::textfmt
