// RoCEv2 codec (see roce.h and docs/DESIGN.md "Wire format").
#include "model/wire/roce.h"

#include "model/wire/bytes.h"

#include <arpa/inet.h>
#include <isa-l/crc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace oonic::wire {
namespace {

// ---- the opcode table: the one place that says which headers an opcode carries ----

constexpr uint16_t kSendData = kHasPayload | kIsRequest;
constexpr uint16_t kReadRsp = kHasPayload | kIsResponse;
constexpr uint16_t kOooExt = kIsOoo | kIsExtension;

constexpr OpcodeInfo kOpcodes[] = {
    {kSendFirst, "SEND First", kSendData | kIsFirst},
    {kSendMiddle, "SEND Middle", kSendData},
    {kSendLast, "SEND Last", kSendData | kIsLast},
    {kSendLastImm, "SEND Last with Immediate", kSendData | kIsLast | kHasImmDt},
    {kSendOnly, "SEND Only", kSendData | kIsFirst | kIsLast},
    {kSendOnlyImm, "SEND Only with Immediate", kSendData | kIsFirst | kIsLast | kHasImmDt},
    {kWriteFirst, "RDMA WRITE First", kSendData | kIsFirst | kHasReth},
    {kWriteMiddle, "RDMA WRITE Middle", kSendData},
    {kWriteLast, "RDMA WRITE Last", kSendData | kIsLast},
    {kWriteLastImm, "RDMA WRITE Last with Immediate", kSendData | kIsLast | kHasImmDt},
    {kWriteOnly, "RDMA WRITE Only", kSendData | kIsFirst | kIsLast | kHasReth},
    {kWriteOnlyImm, "RDMA WRITE Only with Immediate",
     kSendData | kIsFirst | kIsLast | kHasReth | kHasImmDt},
    {kReadRequest, "RDMA READ Request", kIsRequest | kIsFirst | kIsLast | kHasReth},
    {kReadResponseFirst, "RDMA READ Response First", kReadRsp | kIsFirst | kHasAeth},
    {kReadResponseMiddle, "RDMA READ Response Middle", kReadRsp},
    {kReadResponseLast, "RDMA READ Response Last", kReadRsp | kIsLast | kHasAeth},
    {kReadResponseOnly, "RDMA READ Response Only", kReadRsp | kIsFirst | kIsLast | kHasAeth},
    {kAcknowledge, "Acknowledge", kIsResponse | kHasAeth},
    // ORNIC extensions (RC reserved range). FSpot packets carry the OOO address
    // extension (RETH layout: Write_Addr, R_Key, WQE length) right after the BTH.
    {kOooWriteFSpot, "OOO WRITE FSpot", kSendData | kOooExt | kHasOooAddr},
    {kOooWriteSpot, "OOO WRITE Spot", kSendData | kOooExt},
    {kOooWriteLast, "OOO WRITE Last", kSendData | kOooExt | kIsLast},
    {kOooWriteLastFSpot, "OOO WRITE Last FSpot", kSendData | kOooExt | kIsLast | kHasOooAddr},
    {kOooReadRequest, "OOO READ Request", kIsRequest | kIsFirst | kIsLast | kOooExt | kHasReth},
    {kOooReadResponse, "OOO READ Response", kReadRsp | kOooExt},
    {kSchemeFeedback, "Scheme Feedback", kIsResponse | kIsExtension | kHasFeedback | kHasAeth},
    {kOooNak, "OOO NAK", kIsResponse | kOooExt | kHasBitmap | kHasAeth},
    // RoCEv2 CNP: UD-class opcode, 16 B reserved payload. parse() reports kUdOrCnp.
    {kCnp, "CNP", kHasPayload},
};

struct OpcodeIndex {
  const OpcodeInfo* by_opcode[256] = {};
  constexpr OpcodeIndex() {
    for (const auto& i : kOpcodes) by_opcode[i.opcode] = &i;
  }
};
// Built at compile time: usable from other translation units' static initialisers.
constexpr OpcodeIndex kIndex{};

constexpr size_t kBitmapExtFixedBytes = 8;
constexpr uint32_t kMaxBitmapWords = kMaxBitmapBlockBits / 32;

inline uint32_t bitmap_words(uint32_t nbits) {
  uint32_t w = (nbits + 31) / 32;
  return w > kMaxBitmapWords ? kMaxBitmapWords : w;
}

inline bool is_ud_or_cnp(uint8_t op) {
  return (op & 0xE0) == 0x60 || op == kCnp;
}

// Bytes of transport headers after the BTH (extension headers, RETH, AETH, ImmDt).
size_t ext_header_bytes(uint16_t flags, uint32_t nbits) {
  size_t n = 0;
  if (flags & kHasOooAddr) n += kRethBytes;
  if (flags & kHasBitmap) n += kBitmapExtFixedBytes + 4u * bitmap_words(nbits);
  if (flags & kHasFeedback) n += kFeedbackExtBytes;
  if (flags & kHasReth) n += kRethBytes;
  if (flags & kHasAeth) n += kAethBytes;
  if (flags & kHasImmDt) n += kImmDtBytes;
  return n;
}

void read_reth(const uint8_t* p, Reth& r) {
  r.va = rd64(p);
  r.rkey = rd32(p + 8);
  r.dma_len = rd32(p + 12);
}
void write_reth(uint8_t* p, const Reth& r) {
  wr64(p, r.va);
  wr32(p + 8, r.rkey);
  wr32(p + 12, r.dma_len);
}

}  // namespace

uint16_t ipv4_checksum(const uint8_t* h) {
  uint32_t sum = 0;
  for (size_t i = 0; i < kIpv4HeaderBytes; i += 2) sum += rd16(h + i);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

const OpcodeInfo* opcode_info(uint8_t opcode) {
  return kIndex.by_opcode[opcode];
}

const std::vector<OpcodeInfo>& opcode_table() {
  static const std::vector<OpcodeInfo> table(std::begin(kOpcodes), std::end(kOpcodes));
  return table;
}

const char* to_string(ParseStatus s) {
  switch (s) {
    case ParseStatus::kOk:
      return "ok";
    case ParseStatus::kTruncated:
      return "truncated";
    case ParseStatus::kNotIp:
      return "not IP";
    case ParseStatus::kNotUdp:
      return "not UDP";
    case ParseStatus::kNotRoce:
      return "not RoCEv2 (UDP port)";
    case ParseStatus::kBadIpHeader:
      return "bad IP header";
    case ParseStatus::kUnknownOpcode:
      return "unknown opcode";
    case ParseStatus::kBadExtension:
      return "malformed extension header";
    case ParseStatus::kBadPadding:
      return "bad pad count";
    case ParseStatus::kBadIcrc:
      return "bad ICRC";
    case ParseStatus::kUdOrCnp:
      return "UD or CNP";
  }
  return "?";
}

// ---- ICRC ----

uint32_t compute_icrc(const uint8_t* frame, size_t len, size_t l3_offset) {
  // Masked copy of the 8-byte all-ones prefix (RoCEv2 has no LRH: the IBA annex and
  // Linux rxe stand in 8 bytes of 0xFF for the masked LRH, for IPv4 and IPv6 alike),
  // then IP + UDP + BTH with the variant fields set to ones.
  uint8_t buf[8 + 60 + kUdpHeaderBytes + kBthBytes];
  if (frame == nullptr || l3_offset >= len) return 0;
  const uint8_t* ip = frame + l3_offset;
  size_t avail = len - l3_offset;
  std::memset(buf, 0xFF, 8);
  uint8_t* h = buf + 8;
  size_t ip_len = 0;
  if ((ip[0] >> 4) == 4) {
    ip_len = static_cast<size_t>(ip[0] & 0x0F) * 4;
    if (ip_len < kIpv4HeaderBytes) return 0;
    if (avail < ip_len + kUdpHeaderBytes + kBthBytes + kIcrcBytes) return 0;
    std::memcpy(h, ip, ip_len);
    h[1] = 0xFF;   // TOS
    h[8] = 0xFF;   // TTL
    h[10] = 0xFF;  // header checksum
    h[11] = 0xFF;
  } else {
    ip_len = kIpv6HeaderBytes;
    if (avail < ip_len + kUdpHeaderBytes + kBthBytes + kIcrcBytes) return 0;
    std::memcpy(h, ip, ip_len);
    h[0] |= 0x0F;  // traffic class (low nibble of byte 0, high of byte 1) + flow label
    h[1] = 0xFF;
    h[2] = 0xFF;
    h[3] = 0xFF;
    h[7] = 0xFF;  // hop limit
  }
  size_t n = 8 + ip_len;
  std::memcpy(buf + n, ip + ip_len, kUdpHeaderBytes + kBthBytes);
  buf[n + 6] = 0xFF;  // UDP checksum
  buf[n + 7] = 0xFF;
  buf[n + kUdpHeaderBytes + 4] = 0xFF;  // BTH FECN | BECN | Resv6
  n += kUdpHeaderBytes + kBthBytes;
  uint32_t crc = crc32_gzip_refl(0, buf, n);
  const size_t rest_off = ip_len + kUdpHeaderBytes + kBthBytes;
  const size_t rest_len = avail - rest_off - kIcrcBytes;
  if (rest_len > 0) crc = crc32_gzip_refl(crc, ip + rest_off, rest_len);
  return crc;
}

// ---- parse ----

int int_rate_code(double gbps) {
  for (uint32_t i = 0; i < kIntRateCodes; ++i)
    if (kIntRatesGbps[i] == gbps) return static_cast<int>(i);
  return -1;
}

IntHop IntHop::make(uint64_t time_ns, uint64_t tx_bytes, uint64_t qlen_bytes, int rate_code,
                    uint32_t multi) {
  const uint64_t m = multi ? multi : 1;
  const uint64_t t = time_ns & ((uint64_t{1} << kIntTimeBits) - 1);
  const uint64_t b = (tx_bytes / (kIntBytesUnit * m)) & ((uint64_t{1} << kIntBytesBits) - 1);
  const uint64_t q =
      std::min<uint64_t>(qlen_bytes / (kIntQlenUnit * m), (uint64_t{1} << kIntQlenBits) - 1);
  IntHop h;
  h.word = (static_cast<uint64_t>(rate_code & 0x1F) << (64 - 5)) |
           (t << (kIntBytesBits + kIntQlenBits)) | (b << kIntQlenBits) | q;
  return h;
}

double IntHop::gbps() const {
  const uint32_t c = static_cast<uint32_t>(word >> (64 - 5));
  return c < kIntRateCodes ? kIntRatesGbps[c] : 0;
}

IntHop IntStackView::hop(uint32_t i) const {
  IntHop h;
  if (records && i < max_hops) h.word = rd64(records + kIntHopBytes * i);
  return h;
}

IntStack IntStackView::copy() const {
  IntStack s;
  s.nhop = nhop, s.max_hops = max_hops, s.multi = multi;
  for (uint32_t i = 0; i < max_hops && i < kMaxIntHops; ++i) s.hop[i] = hop(i);
  return s;
}

uint64_t IntHop::time_delta_ns(const IntHop& earlier) const {
  const uint64_t mod = uint64_t{1} << kIntTimeBits;
  return (time_ns() + mod - earlier.time_ns()) % mod;
}

uint64_t IntHop::bytes_delta(const IntHop& earlier, uint32_t multi) const {
  const uint64_t mod = uint64_t{1} << kIntBytesBits;
  const uint64_t a = (word >> kIntQlenBits) & (mod - 1);
  const uint64_t b = (earlier.word >> kIntQlenBits) & (mod - 1);
  return ((a + mod - b) % mod) * kIntBytesUnit * (multi ? multi : 1);
}

ParseStatus parse(const uint8_t* frame, size_t len, PacketView& out, bool check_icrc) {
  out = PacketView{};
  if (frame == nullptr || len < kEthHeaderBytes) return ParseStatus::kTruncated;
  std::memcpy(out.dst_mac.data(), frame, 6);
  std::memcpy(out.src_mac.data(), frame + 6, 6);
  uint16_t ethertype = rd16(frame + 12);
  size_t l3 = kEthHeaderBytes;
  if (ethertype == kEtherTypeVlan) {
    if (len < kEthHeaderBytes + kVlanTagBytes) return ParseStatus::kTruncated;
    out.has_vlan = true;
    out.vlan_tci = rd16(frame + 14);
    ethertype = rd16(frame + 16);
    l3 += kVlanTagBytes;
  }

  size_t end = 0;  // end of the IP packet (Ethernet padding excluded)
  size_t l4 = 0;
  const uint8_t* ip = frame + l3;
  if (ethertype == kEtherTypeIpv4) {
    if (len - l3 < kIpv4HeaderBytes) return ParseStatus::kTruncated;
    if ((ip[0] >> 4) != 4 || (ip[0] & 0x0F) != 5) return ParseStatus::kBadIpHeader;
    const size_t total = rd16(ip + 2);
    if (total < kIpv4HeaderBytes) return ParseStatus::kBadIpHeader;
    if (total > len - l3) return ParseStatus::kTruncated;
    out.ip_version = 4;
    out.tos = ip[1];
    out.ttl = ip[8];
    out.ip_id = static_cast<uint16_t>(ip[4] << 8 | ip[5]);
    std::memcpy(out.src_ip.data(), ip + 12, 4);
    std::memcpy(out.dst_ip.data(), ip + 16, 4);
    if (ip[9] != 17) return ParseStatus::kNotUdp;
    end = l3 + total;
    l4 = l3 + kIpv4HeaderBytes;
  } else if (ethertype == kEtherTypeIpv6) {
    if (len - l3 < kIpv6HeaderBytes) return ParseStatus::kTruncated;
    if ((ip[0] >> 4) != 6) return ParseStatus::kBadIpHeader;
    const size_t plen = rd16(ip + 4);
    if (plen > len - l3 - kIpv6HeaderBytes) return ParseStatus::kTruncated;
    out.ip_version = 6;
    out.tos = static_cast<uint8_t>(((ip[0] & 0x0F) << 4) | (ip[1] >> 4));
    out.ttl = ip[7];
    std::memcpy(out.src_ip.data(), ip + 8, 16);
    std::memcpy(out.dst_ip.data(), ip + 24, 16);
    if (ip[6] != 17) return ParseStatus::kNotUdp;
    end = l3 + kIpv6HeaderBytes + plen;
    l4 = l3 + kIpv6HeaderBytes;
  } else {
    return ParseStatus::kNotIp;
  }

  // UDP
  if (end - l4 < kUdpHeaderBytes) return ParseStatus::kTruncated;
  const uint8_t* udp = frame + l4;
  out.udp_sport = rd16(udp);
  out.udp_dport = rd16(udp + 2);
  const size_t udp_len = rd16(udp + 4);
  if (out.udp_dport != kRoceUdpPort) return ParseStatus::kNotRoce;
  if (udp_len < kUdpHeaderBytes || udp_len > end - l4) return ParseStatus::kTruncated;
  end = l4 + udp_len;  // == IP end for any sane packet

  // BTH (+ room for the ICRC)
  const size_t l5 = l4 + kUdpHeaderBytes;
  if (end - l5 < kBthBytes + kIcrcBytes) return ParseStatus::kTruncated;
  const uint8_t* b = frame + l5;
  Bth& bth = out.bth;
  bth.opcode = b[0];
  bth.se = b[1] & 0x80;
  bth.migreq = b[1] & 0x40;
  bth.pad_count = (b[1] >> 4) & 0x3;
  bth.tver = b[1] & 0x0F;
  bth.pkey = rd16(b + 2);
  bth.fecn = b[4] & 0x80;
  bth.becn = b[4] & 0x40;
  bth.dest_qp = rd24(b + 5);
  bth.ack_req = b[8] & 0x80;
  bth.resv7 = b[8] & 0x7F;
  bth.psn = rd24(b + 9);

  const size_t tail = end - kIcrcBytes;  // ICRC position
  out.frame_len = static_cast<uint32_t>(end);
  out.icrc = static_cast<uint32_t>(frame[tail]) | (static_cast<uint32_t>(frame[tail + 1]) << 8) |
             (static_cast<uint32_t>(frame[tail + 2]) << 16) |
             (static_cast<uint32_t>(frame[tail + 3]) << 24);
  size_t pos = l5 + kBthBytes;

  if (is_ud_or_cnp(bth.opcode)) {
    // Not RC: report the BTH; the payload is everything after it (DETH included for UD).
    out.info = opcode_info(bth.opcode);
    out.flags = out.info ? out.info->flags : 0;
    out.header_len = static_cast<uint32_t>(pos);
    out.payload = frame + pos;
    const size_t area = tail - pos;
    out.payload_len = static_cast<uint32_t>(area >= bth.pad_count ? area - bth.pad_count : 0);
    if (check_icrc && compute_icrc(frame, end, l3) != out.icrc) return ParseStatus::kBadIcrc;
    return ParseStatus::kUdOrCnp;
  }
  const OpcodeInfo* info = opcode_info(bth.opcode);
  if (info == nullptr) return ParseStatus::kUnknownOpcode;
  out.info = info;
  const uint16_t flags = info->flags;

  // Extension headers (malformed or truncated -> kBadExtension).
  if ((flags & kSendData) == kSendData && (bth.resv7 & kBthEunomiaMetaBit)) {
    if (tail - pos < kEunomiaMetaBytes) return ParseStatus::kBadExtension;
    const uint8_t* e = frame + pos;
    if (e[4] & 0xFE) return ParseStatus::kBadExtension;  // undefined flag bits
    out.eunomia.head = rd32(e);
    out.eunomia.last = e[4] & 1;
    pos += kEunomiaMetaBytes;
    out.flags |= kHasEunomiaMeta;
  }
  if ((flags & kSendData) == kSendData && (bth.resv7 & kBthMpRdmaMetaBit)) {
    if (tail - pos < kMpRdmaMetaBytes) return ParseStatus::kBadExtension;
    const uint8_t* e = frame + pos;
    if ((e[0] & 0xFC) || e[4]) return ParseStatus::kBadExtension;  // undefined bits
    out.mprdma.retx = e[0] & 1;
    out.mprdma.sync = e[0] & 2;
    out.mprdma.ipsn = rd24(e + 1);
    out.mprdma.msn = rd24(e + 5);
    pos += kMpRdmaMetaBytes;
    out.flags |= kHasMpRdmaMeta;
  }
  if (flags & kHasOooAddr) {
    if (tail - pos < kRethBytes) return ParseStatus::kBadExtension;
    read_reth(frame + pos, out.reth);
    pos += kRethBytes;
    out.flags |= kHasOooAddr;
  }
  if (flags & kHasBitmap) {
    if (tail - pos < kBitmapExtFixedBytes) return ParseStatus::kBadExtension;
    const uint8_t* e = frame + pos;
    const uint32_t nbits = rd16(e + 4);
    if (nbits == 0 || nbits > kMaxBitmapBlockBits) return ParseStatus::kBadExtension;
    const uint32_t words = bitmap_words(nbits);
    if (tail - pos - kBitmapExtFixedBytes < 4u * words) return ParseStatus::kBadExtension;
    out.bitmap.base_psn = rd24(e + 1);
    out.bitmap.nbits = static_cast<uint16_t>(nbits);
    for (uint32_t w = 0; w < words; ++w) out.bitmap.words[w] = rd32(e + 8 + 4 * w);
    pos += kBitmapExtFixedBytes + 4u * words;
    out.flags |= kHasBitmap;
  }
  if (flags & kHasFeedback) {
    if (tail - pos < kFeedbackExtBytes) return ParseStatus::kBadExtension;
    const uint8_t* e = frame + pos;
    SchemeFeedback& f = out.feedback;
    f.type = e[0];
    f.info = e[1];
    f.vp = rd16(e + 2);
    for (int i = 0; i < 3; ++i) f.psn[i] = rd24(e + 4 + 4 * i), f.len[i] = e[7 + 4 * i];
    if (f.type < SchemeFeedback::kHoleNack || f.type > SchemeFeedback::kUetAck)
      return ParseStatus::kBadExtension;
    if (f.type == SchemeFeedback::kHoleNack) {
      if (f.info > 3) return ParseStatus::kBadExtension;
      for (int i = 0; i < f.info; ++i)
        if (f.len[i] == 0) return ParseStatus::kBadExtension;
    }
    pos += kFeedbackExtBytes;
    out.flags |= kHasFeedback;
  }
  if (flags & kHasReth) {
    if (tail - pos < kRethBytes) return ParseStatus::kTruncated;
    read_reth(frame + pos, out.reth);
    pos += kRethBytes;
    out.flags |= kHasReth;
  }
  if (flags & kHasAeth) {
    if (tail - pos < kAethBytes) return ParseStatus::kTruncated;
    out.aeth.syndrome = frame[pos];
    out.aeth.msn = rd24(frame + pos + 1);
    pos += kAethBytes;
    out.flags |= kHasAeth;
  }
  if (flags & kHasImmDt) {
    if (tail - pos < kImmDtBytes) return ParseStatus::kTruncated;
    out.immdt = rd32(frame + pos);
    pos += kImmDtBytes;
    out.flags |= kHasImmDt;
  }
  out.flags |= flags & ~(kHasReth | kHasAeth | kHasImmDt | kHasOooAddr | kHasBitmap | kHasFeedback);

  size_t area = tail - pos;
  if (bth.resv7 & kBthIntBit) {  // the INT trailer, found from its footer before the ICRC
    if (area < kIntFooterBytes) return ParseStatus::kBadExtension;
    const uint8_t* foot = frame + tail - kIntFooterBytes;
    const uint32_t nhop = foot[0], max_hops = foot[1];
    if (max_hops == 0 || max_hops > kMaxIntHops || nhop > max_hops || foot[3])
      return ParseStatus::kBadExtension;
    const size_t bytes = int_trailer_bytes(max_hops);
    if (area < bytes) return ParseStatus::kBadExtension;
    out.int_stack.nhop = static_cast<uint8_t>(nhop);
    out.int_stack.max_hops = static_cast<uint8_t>(max_hops);
    out.int_stack.multi = foot[2];
    out.int_stack.records = frame + tail - bytes;
    area -= bytes;
    out.flags |= kHasInt;
  }
  if (bth.pad_count > area) return ParseStatus::kBadPadding;
  out.header_len = static_cast<uint32_t>(pos);
  out.payload = frame + pos;
  out.payload_len = static_cast<uint32_t>(area - bth.pad_count);

  if (check_icrc && compute_icrc(frame, end, l3) != out.icrc) return ParseStatus::kBadIcrc;
  return ParseStatus::kOk;
}

// ---- build ----

namespace {
inline uint8_t pad_for(uint32_t payload_len) {
  return static_cast<uint8_t>((4 - payload_len % 4) % 4);
}
inline uint16_t spec_flags(const FrameSpec& s) {
  const OpcodeInfo* i = opcode_info(s.bth.opcode);
  return i ? i->flags : 0;
}
inline bool has_eunomia_meta(const FrameSpec& s) {
  return (s.bth.resv7 & kBthEunomiaMetaBit) && (spec_flags(s) & kSendData) == kSendData;
}
inline bool has_mprdma_meta(const FrameSpec& s) {
  return (s.bth.resv7 & kBthMpRdmaMetaBit) && (spec_flags(s) & kSendData) == kSendData;
}
inline size_t int_bytes(const FrameSpec& s) {
  return (s.bth.resv7 & kBthIntBit) && s.int_stack && s.int_stack->max_hops &&
                 opcode_info(s.bth.opcode)
             ? int_trailer_bytes(std::min<uint32_t>(s.int_stack->max_hops, kMaxIntHops))
             : 0;
}
}  // namespace

size_t frame_size(const FrameSpec& spec) {
  size_t n = kEthHeaderBytes + (spec.vlan ? kVlanTagBytes : 0);
  n += spec.ip_version == 6 ? kIpv6HeaderBytes : kIpv4HeaderBytes;
  n += kUdpHeaderBytes + kBthBytes + ext_header_bytes(spec_flags(spec), spec.bitmap.nbits);
  if (has_eunomia_meta(spec)) n += kEunomiaMetaBytes;
  if (has_mprdma_meta(spec)) n += kMpRdmaMetaBytes;
  n += spec.payload_len + pad_for(spec.payload_len) + int_bytes(spec) + kIcrcBytes;
  return n;
}

size_t header_size(const FrameSpec& spec) {
  return frame_size(spec) - spec.payload_len - pad_for(spec.payload_len) - int_bytes(spec) -
         kIcrcBytes;
}

uint16_t udp6_checksum(const uint8_t* ip6, size_t udp_len) {
  // One's-complement sum of the pseudo header (addresses, length, next header 17) and
  // the UDP datagram with its checksum field taken as 0.
  uint64_t sum = 0;
  for (size_t i = 8; i < 40; i += 2) sum += rd16(ip6 + i);
  sum += static_cast<uint32_t>(udp_len >> 16) + (udp_len & 0xFFFF) + 17;
  const uint8_t* u = ip6 + kIpv6HeaderBytes;
  for (size_t i = 0; i + 1 < udp_len; i += 2) {
    if (i != 6) sum += rd16(u + i);
  }
  if (udp_len & 1) sum += static_cast<uint32_t>(u[udp_len - 1]) << 8;
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  const uint16_t c = static_cast<uint16_t>(~sum);
  return c == 0 ? 0xFFFF : c;
}

size_t write_eth_ip_udp(const FrameSpec& spec, uint16_t udp_dport, size_t udp_len, uint8_t* out) {
  uint8_t* p = out;
  std::memcpy(p, spec.dst_mac.data(), 6);
  std::memcpy(p + 6, spec.src_mac.data(), 6);
  p += 12;
  if (spec.vlan) {
    wr16(p, kEtherTypeVlan);
    wr16(p + 2, spec.vlan_tci);
    p += kVlanTagBytes;
  }
  const bool v6 = spec.ip_version == 6;
  wr16(p, v6 ? kEtherTypeIpv6 : kEtherTypeIpv4);
  p += 2;
  const size_t ip_hdr = v6 ? kIpv6HeaderBytes : kIpv4HeaderBytes;
  if (!v6) {
    p[0] = 0x45;
    p[1] = spec.tos;
    wr16(p + 2, static_cast<uint16_t>(ip_hdr + udp_len));
    wr16(p + 4, spec.ip_id);  // identification
    wr16(p + 6, 0x4000);      // DF
    p[8] = spec.ttl;
    p[9] = 17;
    wr16(p + 10, 0);
    std::memcpy(p + 12, spec.src_ip.data(), 4);
    std::memcpy(p + 16, spec.dst_ip.data(), 4);
    wr16(p + 10, ipv4_checksum(p));
  } else {
    p[0] = static_cast<uint8_t>(0x60 | (spec.tos >> 4));
    p[1] = static_cast<uint8_t>((spec.tos << 4) & 0xF0);  // flow label 0
    p[2] = 0;
    p[3] = 0;
    wr16(p + 4, static_cast<uint16_t>(udp_len));
    p[6] = 17;
    p[7] = spec.ttl;
    std::memcpy(p + 8, spec.src_ip.data(), 16);
    std::memcpy(p + 24, spec.dst_ip.data(), 16);
  }
  p += ip_hdr;
  wr16(p, spec.udp_sport);
  wr16(p + 2, udp_dport);
  wr16(p + 4, static_cast<uint16_t>(udp_len));
  wr16(p + 6, 0);
  p += kUdpHeaderBytes;
  return static_cast<size_t>(p - out);
}

size_t build(const FrameSpec& spec, uint8_t* out, size_t cap) {
  const size_t size = frame_size(spec);
  if (out == nullptr || cap < size) return 0;
  const uint16_t flags = spec_flags(spec);
  const uint8_t pad = pad_for(spec.payload_len);
  const size_t l3 = kEthHeaderBytes + (spec.vlan ? kVlanTagBytes : 0);
  const bool v6 = spec.ip_version == 6;
  const size_t ip_hdr = v6 ? kIpv6HeaderBytes : kIpv4HeaderBytes;
  const size_t udp_len = size - l3 - ip_hdr;
  uint8_t* p = out + write_eth_ip_udp(spec, kRoceUdpPort, udp_len, out);

  const Bth& b = spec.bth;
  p[0] = b.opcode;
  p[1] = static_cast<uint8_t>((b.se ? 0x80 : 0) | (b.migreq ? 0x40 : 0) | (pad << 4) |
                              (b.tver & 0x0F));
  wr16(p + 2, b.pkey);
  p[4] = static_cast<uint8_t>((b.fecn ? 0x80 : 0) | (b.becn ? 0x40 : 0));
  wr24(p + 5, b.dest_qp & 0xFFFFFF);
  p[8] = static_cast<uint8_t>((b.ack_req ? 0x80 : 0) | (b.resv7 & 0x7F));
  wr24(p + 9, b.psn & kPsnMask);
  p += kBthBytes;
  if (has_eunomia_meta(spec)) {
    wr32(p, spec.eunomia.head);
    p[4] = spec.eunomia.last ? 1 : 0;
    p[5] = p[6] = p[7] = 0;
    p += kEunomiaMetaBytes;
  }
  if (has_mprdma_meta(spec)) {
    const MpRdmaMeta& m = spec.mprdma;
    p[0] = static_cast<uint8_t>((m.retx ? 1 : 0) | (m.sync ? 2 : 0));
    wr24(p + 1, m.ipsn & kPsnMask);
    p[4] = 0;
    wr24(p + 5, m.msn & kPsnMask);
    p += kMpRdmaMetaBytes;
  }

  if (flags & kHasOooAddr) {
    write_reth(p, spec.reth);
    p += kRethBytes;
  }
  if (flags & kHasBitmap) {
    const uint32_t words = bitmap_words(spec.bitmap.nbits);
    p[0] = 0;
    wr24(p + 1, spec.bitmap.base_psn & kPsnMask);
    wr16(p + 4, spec.bitmap.nbits);
    wr16(p + 6, 0);
    for (uint32_t w = 0; w < words; ++w) wr32(p + 8 + 4 * w, spec.bitmap.words[w]);
    p += kBitmapExtFixedBytes + 4u * words;
  }
  if (flags & kHasFeedback) {
    const SchemeFeedback& f = spec.feedback;
    p[0] = f.type;
    p[1] = f.info;
    wr16(p + 2, f.vp);
    for (int i = 0; i < 3; ++i) wr24(p + 4 + 4 * i, f.psn[i] & kPsnMask), p[7 + 4 * i] = f.len[i];
    p += kFeedbackExtBytes;
  }
  if (flags & kHasReth) {
    write_reth(p, spec.reth);
    p += kRethBytes;
  }
  if (flags & kHasAeth) {
    p[0] = spec.aeth.syndrome;
    wr24(p + 1, spec.aeth.msn & 0xFFFFFF);
    p += kAethBytes;
  }
  if (flags & kHasImmDt) {
    wr32(p, spec.immdt);
    p += kImmDtBytes;
  }
  if (spec.payload_len > 0) {
    if (spec.payload == p) {
      // already in place (the sender fetched it behind room for the headers)
    } else if (spec.payload != nullptr) {
      std::memcpy(p, spec.payload, spec.payload_len);
    } else {
      std::memset(p, 0, spec.payload_len);
    }
    p += spec.payload_len;
  }
  std::memset(p, 0, pad);
  p += pad;
  if (const size_t ib = int_bytes(spec)) {
    const uint32_t max_hops = static_cast<uint32_t>((ib - kIntFooterBytes) / kIntHopBytes);
    const IntStack& st = *spec.int_stack;
    for (uint32_t i = 0; i < max_hops; ++i) wr64(p + kIntHopBytes * i, st.hop[i].word);
    p += kIntHopBytes * max_hops;
    p[0] = std::min<uint8_t>(st.nhop, static_cast<uint8_t>(max_hops));
    p[1] = static_cast<uint8_t>(max_hops);
    p[2] = st.multi;
    p[3] = 0;
    p += kIntFooterBytes;
  }

  const uint32_t icrc = compute_icrc(out, size, l3);
  p[0] = static_cast<uint8_t>(icrc);
  p[1] = static_cast<uint8_t>(icrc >> 8);
  p[2] = static_cast<uint8_t>(icrc >> 16);
  p[3] = static_cast<uint8_t>(icrc >> 24);
  // IPv6 forbids a zero UDP checksum (RFC 8200 8.1); the ICRC masks the field, so it is
  // filled last, over the ICRC too. IPv4 keeps 0 ("no checksum"), as RoCEv2 NICs send.
  if (v6) wr16(out + l3 + ip_hdr + 6, udp6_checksum(out + l3, udp_len));
  return size;
}

bool push_int_hop(uint8_t* frame, const PacketView& v, IntHop hop, uint8_t multi) {
  if (!(v.flags & kHasInt) || v.int_stack.nhop >= v.int_stack.max_hops) return false;
  const size_t tail = v.frame_len - kIcrcBytes;
  uint8_t* foot = frame + tail - kIntFooterBytes;
  uint8_t* rec =
      frame + tail - int_trailer_bytes(v.int_stack.max_hops) + kIntHopBytes * v.int_stack.nhop;
  wr64(rec, hop.word);
  foot[0] = static_cast<uint8_t>(v.int_stack.nhop + 1);
  if (v.int_stack.nhop == 0) foot[2] = multi;
  const size_t l3 = kEthHeaderBytes + (v.has_vlan ? kVlanTagBytes : 0);
  const uint32_t icrc = compute_icrc(frame, v.frame_len, l3);
  for (int i = 0; i < 4; ++i) frame[tail + i] = static_cast<uint8_t>(icrc >> (8 * i));
  if (v.ip_version == 6) {  // the UDP checksum covers the trailer (and the ICRC)
    const size_t udp_len = v.frame_len - l3 - kIpv6HeaderBytes;
    wr16(frame + l3 + kIpv6HeaderBytes + 6, udp6_checksum(frame + l3, udp_len));
  }
  return true;
}

std::vector<uint8_t> build(const FrameSpec& spec) {
  std::vector<uint8_t> v(frame_size(spec));
  build(spec, v.data(), v.size());
  return v;
}

// ---- formatting ----

std::string format_mac(const std::array<uint8_t, 6>& mac) {
  char s[18];
  std::snprintf(s, sizeof s, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
                mac[4], mac[5]);
  return s;
}

std::string format_ip(uint8_t version, const std::array<uint8_t, 16>& ip) {
  char s[INET6_ADDRSTRLEN];
  if (version == 6) {
    if (inet_ntop(AF_INET6, ip.data(), s, sizeof s) == nullptr) return "?";
    return s;
  }
  std::snprintf(s, sizeof s, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
  return s;
}

size_t rewrite_ip_udp(uint8_t* frame, const PacketView& v, uint8_t dscp, size_t udp_len) {
  const size_t l3 = kEthHeaderBytes + (v.has_vlan ? kVlanTagBytes : 0);
  const size_t l4 = l3 + (v.ip_version == 6 ? kIpv6HeaderBytes : kIpv4HeaderBytes);
  const uint8_t tos = static_cast<uint8_t>(dscp << 2 | (v.tos & 3));
  uint8_t* ip = frame + l3;
  if (v.ip_version == 4) {
    ip[1] = tos;
    wr16(ip + 2, static_cast<uint16_t>(kIpv4HeaderBytes + udp_len));
    wr16(ip + 10, 0);
    wr16(ip + 10, ipv4_checksum(ip));
  } else {
    ip[0] = static_cast<uint8_t>(0x60 | tos >> 4);
    ip[1] = static_cast<uint8_t>((tos << 4) | (ip[1] & 0x0F));
    wr16(ip + 4, static_cast<uint16_t>(udp_len));
  }
  wr16(frame + l4 + 4, static_cast<uint16_t>(udp_len));
  return l4;
}

size_t trim_frame(uint8_t* frame, size_t len, uint8_t dscp) {
  PacketView v;
  if (parse(frame, len, v, /*check_icrc=*/false) != ParseStatus::kOk) return len;
  if (!(v.flags & kIsRequest) || !v.payload_len || (v.flags & kHasInt)) return len;
  const size_t hdr = v.header_len, n = hdr + kIcrcBytes;
  const size_t l3 = kEthHeaderBytes + (v.has_vlan ? kVlanTagBytes : 0);
  const size_t l4 = l3 + (v.ip_version == 6 ? kIpv6HeaderBytes : kIpv4HeaderBytes);
  const size_t udp_len = n - l4;
  rewrite_ip_udp(frame, v, dscp, udp_len);
  uint8_t* ip = frame + l3;
  uint8_t* udp = frame + l4;
  udp[kUdpHeaderBytes + 1] &= 0xCF;  // BTH pad count 0
  const uint32_t icrc = compute_icrc(frame, n, l3);
  for (int i = 0; i < 4; ++i) frame[hdr + i] = static_cast<uint8_t>(icrc >> (8 * i));
  if (v.ip_version == 6) wr16(udp + 6, udp6_checksum(ip, udp_len));  // over the ICRC too
  return n;
}

}  // namespace oonic::wire
