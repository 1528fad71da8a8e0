// RoCEv2 codec tests: round trips for every opcode, IPv6/VLAN, bitmap extension,
// truncation and byte-flip robustness, ICRC masking, and two outside oracles:
// real NIC captures (traces/captures) and frames built by scapy.
#include "model/wire/pfc.h"
#include "model/wire/roce.h"
#include "platforms/network/psn_rules.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#ifndef OONIC_SOURCE_DIR
#define OONIC_SOURCE_DIR "."
#endif

namespace w = oonic::wire;
using w::ParseStatus;

namespace {

std::vector<uint8_t> make_payload(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 13 * i + (i >> 8));
  return v;
}

// A spec with every field set to something distinctive.
w::FrameSpec make_spec(uint8_t op, const std::vector<uint8_t>& payload, uint32_t seed) {
  w::FrameSpec s;
  s.dst_mac = {{0x10, 0x22, 0x33, 0x44, 0x55, static_cast<uint8_t>(seed)}};
  s.src_mac = {{0x20, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE}};
  s.tos = 0x8A;
  s.ttl = 33;
  s.udp_sport = static_cast<uint16_t>(0xC000 + seed);
  s.bth.opcode = op;
  s.bth.se = seed & 1;
  s.bth.migreq = true;
  s.bth.tver = static_cast<uint8_t>(seed % 3);
  s.bth.pkey = static_cast<uint16_t>(0x8001 + seed);
  s.bth.fecn = seed & 2;
  s.bth.becn = seed & 4;
  s.bth.dest_qp = 0xABCDEF ^ seed;
  s.bth.ack_req = true;
  s.bth.resv7 = w::kBthStartAddrCachedBit;
  s.bth.psn = w::psn_add(0xFFFFF0, seed);
  s.reth.va = 0x0123456789ABCDEFull;
  s.reth.rkey = 0xFEEDF00D;
  s.reth.dma_len = 0x00010000 + seed;
  s.aeth.syndrome = w::kAethNakPsnSeqErr;
  s.aeth.msn = 0x654321;
  s.immdt = 0xA5A51234;
  s.bitmap.base_psn = 0xFFFFF0;
  s.bitmap.nbits = 100;
  for (uint32_t i = 0; i < 100; i += 3) s.bitmap.set(i);
  s.payload = payload.empty() ? nullptr : payload.data();
  s.payload_len = static_cast<uint32_t>(payload.size());
  return s;
}

size_t l3_offset(const w::FrameSpec& s) {
  return w::kEthHeaderBytes + (s.vlan ? 4 : 0);
}

size_t expected_header_len(const w::FrameSpec& s, uint16_t flags) {
  size_t n = l3_offset(s) + (s.ip_version == 6 ? 40 : 20) + 8 + 12;
  if (flags & w::kHasOooAddr) n += 16;
  if (flags & w::kHasBitmap) n += 8 + 4 * ((s.bitmap.nbits + 31) / 32);
  if (flags & w::kHasFeedback) n += w::kFeedbackExtBytes;
  if (flags & w::kHasReth) n += 16;
  if (flags & w::kHasAeth) n += 4;
  if (flags & w::kHasImmDt) n += 4;
  return n;
}

uint32_t carried_icrc(const std::vector<uint8_t>& f) {
  const size_t n = f.size();
  return f[n - 4] | (f[n - 3] << 8) | (f[n - 2] << 16) | (static_cast<uint32_t>(f[n - 1]) << 24);
}

void refresh_icrc(std::vector<uint8_t>& f, size_t l3) {
  const uint32_t c = w::compute_icrc(f.data(), f.size(), l3);
  const size_t n = f.size();
  f[n - 4] = c & 0xFF;
  f[n - 3] = (c >> 8) & 0xFF;
  f[n - 2] = (c >> 16) & 0xFF;
  f[n - 1] = (c >> 24) & 0xFF;
}

// Remove `cut` bytes just before the ICRC of an IPv4 frame (no VLAN), fixing
// the IP total length, checksum-free, UDP length and ICRC.
void shrink_ipv4(std::vector<uint8_t>& f, size_t cut) {
  f.erase(f.end() - 4 - static_cast<long>(cut), f.end() - 4);
  const size_t ip_total = f.size() - 14;
  f[16] = static_cast<uint8_t>(ip_total >> 8);
  f[17] = static_cast<uint8_t>(ip_total);
  const size_t udp_len = ip_total - 20;
  f[38] = static_cast<uint8_t>(udp_len >> 8);
  f[39] = static_cast<uint8_t>(udp_len);
  refresh_icrc(f, 14);
}

// Builds, parses, and checks that every field came back.
void round_trip(const w::FrameSpec& s) {
  const w::OpcodeInfo* info = w::opcode_info(s.bth.opcode);
  ASSERT_NE(info, nullptr);
  const std::vector<uint8_t> f = w::build(s);
  ASSERT_EQ(f.size(), w::frame_size(s));
  ASSERT_EQ(f.size() % 4, l3_offset(s) % 4);  // IP packet length is a multiple of 4
  std::vector<uint8_t> buf(f.size());
  ASSERT_EQ(w::build(s, buf.data(), buf.size()), f.size());
  EXPECT_EQ(buf, f);
  EXPECT_EQ(w::build(s, buf.data(), buf.size() - 1), 0u);

  w::PacketView v;
  const ParseStatus st = w::parse(f.data(), f.size(), v);
  const bool cnp = s.bth.opcode == w::kCnp;
  ASSERT_EQ(st, cnp ? ParseStatus::kUdOrCnp : ParseStatus::kOk)
      << info->name << ": " << w::to_string(st);

  EXPECT_EQ(v.dst_mac, s.dst_mac);
  EXPECT_EQ(v.src_mac, s.src_mac);
  EXPECT_EQ(v.has_vlan, s.vlan);
  EXPECT_EQ(v.vlan_tci, s.vlan ? s.vlan_tci : 0);
  EXPECT_EQ(v.ip_version, s.ip_version);
  if (s.ip_version == 4) {
    EXPECT_EQ(0, std::memcmp(v.src_ip.data(), s.src_ip.data(), 4));
    EXPECT_EQ(0, std::memcmp(v.dst_ip.data(), s.dst_ip.data(), 4));
  } else {
    EXPECT_EQ(v.src_ip, s.src_ip);
    EXPECT_EQ(v.dst_ip, s.dst_ip);
  }
  EXPECT_EQ(v.tos, s.tos);
  EXPECT_EQ(v.ttl, s.ttl);
  EXPECT_EQ(v.udp_sport, s.udp_sport);
  EXPECT_EQ(v.udp_dport, w::kRoceUdpPort);

  EXPECT_EQ(v.bth.opcode, s.bth.opcode);
  EXPECT_EQ(v.bth.se, s.bth.se);
  EXPECT_EQ(v.bth.migreq, s.bth.migreq);
  EXPECT_EQ(v.bth.pad_count, (4 - s.payload_len % 4) % 4);
  EXPECT_EQ(v.bth.tver, s.bth.tver);
  EXPECT_EQ(v.bth.pkey, s.bth.pkey);
  EXPECT_EQ(v.bth.fecn, s.bth.fecn);
  EXPECT_EQ(v.bth.becn, s.bth.becn);
  EXPECT_EQ(v.bth.dest_qp, s.bth.dest_qp);
  EXPECT_EQ(v.bth.ack_req, s.bth.ack_req);
  EXPECT_EQ(v.bth.resv7, s.bth.resv7);
  EXPECT_EQ(v.bth.psn, s.bth.psn);

  EXPECT_EQ(v.info, info);
  const uint16_t flags = info->flags;
  EXPECT_EQ(v.flags, flags);
  if (flags & (w::kHasReth | w::kHasOooAddr)) {
    EXPECT_EQ(v.reth.va, s.reth.va);
    EXPECT_EQ(v.reth.rkey, s.reth.rkey);
    EXPECT_EQ(v.reth.dma_len, s.reth.dma_len);
  } else {
    EXPECT_EQ(v.reth.va, 0u);
    EXPECT_EQ(v.reth.rkey, 0u);
    EXPECT_EQ(v.reth.dma_len, 0u);
  }
  if (flags & w::kHasAeth) {
    EXPECT_EQ(v.aeth.syndrome, s.aeth.syndrome);
    EXPECT_EQ(v.aeth.msn, s.aeth.msn);
  } else {
    EXPECT_EQ(v.aeth.syndrome, 0u);
    EXPECT_EQ(v.aeth.msn, 0u);
  }
  EXPECT_EQ(v.immdt, (flags & w::kHasImmDt) ? s.immdt : 0u);
  if (flags & w::kHasBitmap) {
    EXPECT_EQ(v.bitmap.base_psn, s.bitmap.base_psn);
    EXPECT_EQ(v.bitmap.nbits, s.bitmap.nbits);
    EXPECT_EQ(v.bitmap.words, s.bitmap.words);
  } else {
    EXPECT_EQ(v.bitmap.nbits, 0u);
  }

  const size_t hl = expected_header_len(s, cnp ? 0 : flags);
  EXPECT_EQ(v.header_len, hl);
  EXPECT_EQ(v.frame_len, f.size());
  EXPECT_EQ(v.payload, f.data() + hl);
  ASSERT_EQ(v.payload_len, s.payload_len);
  if (s.payload_len) {
    EXPECT_EQ(0, std::memcmp(v.payload, s.payload, s.payload_len));
  }
  for (size_t i = hl + s.payload_len; i < f.size() - 4; ++i) EXPECT_EQ(f[i], 0) << "pad byte";
  EXPECT_EQ(v.icrc, carried_icrc(f));
  EXPECT_EQ(v.icrc, w::compute_icrc(f.data(), f.size(), l3_offset(s)));
}

std::vector<uint32_t> payload_lengths(uint16_t flags) {
  if (!(flags & w::kHasPayload)) return {0};
  return {0, 1, 2, 3, 4, 5, 37, 1024, 4096};
}

// Reference CRC-32 (bitwise, reflected 0xEDB88320) over a masked copy: an
// implementation independent of the codec's ISA-L path.
uint32_t reference_icrc(const std::vector<uint8_t>& f, size_t l3) {
  // 8 bytes of ones (the masked LRH) for IPv4 and IPv6 alike, as Linux rxe seeds it.
  std::vector<uint8_t> m(8, 0xFF);
  const bool v4 = (f[l3] >> 4) == 4;
  m.insert(m.end(), f.begin() + static_cast<long>(l3), f.end() - 4);
  const size_t ip = 8;
  const size_t ihl = v4 ? 20 : 40;
  if (v4) {
    m[ip + 1] = m[ip + 8] = m[ip + 10] = m[ip + 11] = 0xFF;
  } else {
    m[ip] |= 0x0F;
    m[ip + 1] = m[ip + 2] = m[ip + 3] = m[ip + 7] = 0xFF;
  }
  m[ip + ihl + 6] = m[ip + ihl + 7] = 0xFF;
  m[ip + ihl + 8 + 4] = 0xFF;
  uint32_t crc = 0xFFFFFFFF;
  for (uint8_t b : m) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// ---- a tiny capture reader: classic pcap (us/ns magic, either byte order) and pcapng ----

struct Capture {
  bool ok = false;
  std::string error;
  std::vector<std::vector<uint8_t>> frames;
};

uint32_t get32(const uint8_t* p, bool swap) {
  const uint32_t le = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
  return swap ? __builtin_bswap32(le) : le;
}
uint16_t get16(const uint8_t* p, bool swap) {
  const uint16_t le = static_cast<uint16_t>(p[0] | (p[1] << 8));
  return swap ? __builtin_bswap16(le) : le;
}

Capture read_capture(const std::string& path) {
  Capture c;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    c.error = "cannot open " + path;
    return c;
  }
  std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (d.size() < 24) {
    c.error = "short file";
    return c;
  }
  const uint32_t magic = get32(d.data(), false);
  if (magic == 0x0A0D0D0A) {  // pcapng (some of the captures are pcapng despite the name)
    size_t off = 0;
    bool swap = false;
    while (off + 12 <= d.size()) {
      const uint32_t type_le = get32(d.data() + off, false);
      if (type_le == 0x0A0D0D0A) swap = get32(d.data() + off + 8, false) != 0x1A2B3C4D;
      const uint32_t type = get32(d.data() + off, swap);
      const uint32_t blen = get32(d.data() + off + 4, swap);
      if (blen < 12 || blen % 4 || off + blen > d.size()) {
        c.error = "bad pcapng block";
        return c;
      }
      const uint8_t* b = d.data() + off + 8;  // block body
      if (type == 1 && get16(b, swap) != 1) {
        c.error = "pcapng interface not Ethernet";
        return c;
      }
      if (type == 6 || type == 2) {  // enhanced / obsolete packet block
        const uint32_t caplen = get32(b + 12, swap);
        if (20 + caplen + 12 > blen) {
          c.error = "bad packet block";
          return c;
        }
        c.frames.emplace_back(b + 20, b + 20 + caplen);
      } else if (type == 3) {  // simple packet block
        const uint32_t orig = get32(b, swap);
        const uint32_t caplen = std::min<uint32_t>(orig, blen - 16);
        c.frames.emplace_back(b + 4, b + 4 + caplen);
      }
      off += blen;
    }
    c.ok = true;
    return c;
  }
  bool swap;
  if (magic == 0xA1B2C3D4 || magic == 0xA1B23C4D) {
    swap = false;
  } else if (magic == 0xD4C3B2A1 || magic == 0x4D3CB2A1) {
    swap = true;
  } else {
    c.error = "not a capture";
    return c;
  }
  if (get32(d.data() + 20, swap) != 1) {
    c.error = "linktype not Ethernet";
    return c;
  }
  size_t off = 24;
  while (off + 16 <= d.size()) {
    const uint32_t caplen = get32(d.data() + off + 8, swap);
    if (off + 16 + caplen > d.size()) {
      c.error = "truncated record";
      return c;
    }
    c.frames.emplace_back(d.begin() + static_cast<long>(off) + 16,
                          d.begin() + static_cast<long>(off + 16 + caplen));
    off += 16 + caplen;
  }
  c.ok = off == d.size();
  if (!c.ok) c.error = "trailing bytes";
  return c;
}

bool is_roce_status(ParseStatus st) {
  return st != ParseStatus::kNotIp && st != ParseStatus::kNotUdp && st != ParseStatus::kNotRoce;
}

}  // namespace

// ---------------------------------------------------------------------------

TEST(WireOpcodes, TableHasStandardExtensionAndCnpOpcodes) {
  const auto& t = w::opcode_table();
  std::set<uint8_t> ops;
  for (const auto& i : t) {
    EXPECT_TRUE(ops.insert(i.opcode).second) << "duplicate opcode " << int(i.opcode);
    ASSERT_NE(i.name, nullptr);
    EXPECT_GT(std::strlen(i.name), 0u);
    const w::OpcodeInfo* p = w::opcode_info(i.opcode);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->flags, i.flags);
    EXPECT_STREQ(p->name, i.name);
    EXPECT_EQ(bool(i.flags & w::kIsExtension), i.opcode >= 0x18 && i.opcode <= 0x1F);
  }
  for (int op = 0x00; op <= 0x11; ++op) EXPECT_TRUE(ops.count(op)) << op;
  for (int op : {0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x81})
    EXPECT_TRUE(ops.count(op)) << op;
  EXPECT_EQ(t.size(), 18u + 8u + 1u);
  for (int op : {0x12, 0x13, 0x14, 0x15, 0x20, 0x64, 0x80, 0xFF})
    EXPECT_EQ(w::opcode_info(static_cast<uint8_t>(op)), nullptr) << op;
  // Header layout spot checks.
  EXPECT_EQ(w::opcode_info(w::kWriteOnlyImm)->flags & (w::kHasReth | w::kHasImmDt),
            w::kHasReth | w::kHasImmDt);
  EXPECT_TRUE(w::opcode_info(w::kReadResponseMiddle)->flags & w::kHasPayload);
  EXPECT_FALSE(w::opcode_info(w::kReadResponseMiddle)->flags & w::kHasAeth);
  EXPECT_EQ(w::opcode_info(w::kOooNak)->flags & (w::kHasBitmap | w::kHasAeth),
            w::kHasBitmap | w::kHasAeth);
  EXPECT_TRUE(w::opcode_info(w::kOooWriteLastFSpot)->flags & w::kHasOooAddr);
  EXPECT_FALSE(w::opcode_info(w::kOooWriteSpot)->flags & w::kHasOooAddr);
  EXPECT_TRUE(w::opcode_info(w::kOooReadRequest)->flags & w::kHasReth);
}

TEST(WireRoundTrip, EveryOpcodeIpv4) {
  uint32_t seed = 0;
  for (const auto& i : w::opcode_table()) {
    for (uint32_t len : payload_lengths(i.flags)) {
      SCOPED_TRACE(std::string(i.name) + " payload " + std::to_string(len));
      const auto pl = make_payload(len, static_cast<uint8_t>(seed));
      round_trip(make_spec(i.opcode, pl, seed++));
    }
  }
}

TEST(WireRoundTrip, EveryOpcodeIpv6AndVlan) {
  uint32_t seed = 100;
  for (const auto& i : w::opcode_table()) {
    for (int variant = 0; variant < 3; ++variant) {
      for (uint32_t len : payload_lengths(i.flags)) {
        SCOPED_TRACE(std::string(i.name) + " variant " + std::to_string(variant) + " payload " +
                     std::to_string(len));
        const auto pl = make_payload(len, static_cast<uint8_t>(seed));
        w::FrameSpec s = make_spec(i.opcode, pl, seed++);
        if (variant != 1) {  // 0: IPv6, 1: IPv4 + VLAN, 2: IPv6 + VLAN
          s.ip_version = 6;
          s.src_ip = {{0xFD, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0}};
          s.dst_ip = {{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};
          s.tos = 0xB9;
        }
        if (variant != 0) {
          s.vlan = true;
          s.vlan_tci = static_cast<uint16_t>(0x6000 | (seed & 0xFFF));
        }
        round_trip(s);
      }
    }
  }
}

// A switch's trimming of RoCEv2 request data (switch.trim): every request opcode that
// carries payload, IPv4 and IPv6 + VLAN, comes out as its headers and an ICRC that checks,
// with the trimmed DSCP, ECN kept and its header fields as before; a frame without payload
// (READ request) or a response (READ response) is left as it is.
TEST(WireTrim, RequestDataKeepsItsHeadersAndAValidIcrc) {
  uint32_t seed = 7;
  int trimmed = 0;
  for (const auto& i : w::opcode_table()) {
    for (int v6 = 0; v6 < 2; ++v6) {
      SCOPED_TRACE(std::string(i.name) + (v6 ? " IPv6" : " IPv4"));
      const auto pl = make_payload(1001, static_cast<uint8_t>(seed));
      w::FrameSpec s = make_spec(i.opcode, pl, seed++);
      if (v6) {
        s.ip_version = 6, s.vlan = true, s.vlan_tci = 5;
        s.dst_ip = {{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};
      }
      s.tos = 0x02;  // ECT(0)
      std::vector<uint8_t> b = w::build(s);
      w::PacketView before;
      if (w::parse(b.data(), b.size(), before) != w::ParseStatus::kOk) {  // UD, CNP: not RC
        EXPECT_EQ(w::trim_frame(b.data(), b.size(), 16), b.size());
        continue;
      }
      const size_t n = w::trim_frame(b.data(), b.size(), 16);
      const bool cut = (before.flags & w::kIsRequest) && before.payload_len > 0;
      if (!cut) {
        EXPECT_EQ(n, b.size());
        continue;
      }
      EXPECT_EQ(n, before.header_len + 4u);
      ++trimmed;
      w::PacketView v;
      ASSERT_EQ(w::parse(b.data(), n, v, /*check_icrc=*/true), w::ParseStatus::kOk);
      EXPECT_EQ(v.payload_len, 0u);
      EXPECT_EQ(v.tos, 16 << 2 | 2);
      // A READ request never carries payload a switch would cut: never taken for trimmed.
      EXPECT_EQ(w::is_trimmed(v, 16, 18), (i.flags & w::kHasPayload) != 0);
      EXPECT_FALSE(w::is_trimmed(before, 16, 18));
      before.tos = 16 << 2;  // a whole frame marked CS2 (DSCP 16): its payload says not trimmed
      EXPECT_FALSE(w::is_trimmed(before, 16, 18));
      EXPECT_EQ(v.bth.psn, before.bth.psn);
      EXPECT_EQ(v.bth.dest_qp, before.bth.dest_qp);
      EXPECT_EQ(v.bth.opcode, before.bth.opcode);
      EXPECT_EQ(v.reth.va, before.reth.va);
    }
  }
  EXPECT_GE(trimmed, 20);  // WRITE, SEND and OOO WRITE forms, both IP versions
}

TEST(WireRoundTrip, BuildWritesExpectedIpAndUdpFields) {
  const auto pl = make_payload(37, 1);
  w::FrameSpec s = make_spec(w::kWriteFirst, pl, 3);
  const auto f = w::build(s);
  // frame = 14 + 20 + 8 + 12 + 16 (RETH) + 37 + 3 (pad) + 4
  ASSERT_EQ(f.size(), 14u + 20 + 8 + 12 + 16 + 37 + 3 + 4);
  EXPECT_EQ(f[12], 0x08);
  EXPECT_EQ(f[13], 0x00);
  EXPECT_EQ(f[14], 0x45);
  EXPECT_EQ((f[16] << 8) | f[17], int(f.size() - 14));
  // IPv4 header checksum verifies: one's complement sum of the header is 0xFFFF.
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (f[14 + i] << 8) | f[15 + i];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  EXPECT_EQ(sum, 0xFFFFu);
  EXPECT_EQ(f[23], 17);
  EXPECT_EQ((f[36] << 8) | f[37], 4791);
  EXPECT_EQ((f[38] << 8) | f[39], int(f.size() - 34));
  EXPECT_EQ(f[40], 0);  // UDP checksum 0
  EXPECT_EQ(f[41], 0);
  EXPECT_EQ((f[43] >> 4) & 3, 3);                                       // BTH pad count
  EXPECT_EQ(f[46], (s.bth.fecn ? 0x80 : 0) | (s.bth.becn ? 0x40 : 0));  // Resv6 zero
}

// The IPv4 identification is written where IPv4 has it (bytes 4-5 of the header) and
// parsed back; the header checksum still verifies. A switch fault rule drops by it
// (platforms/network/psn_rules.h: ID mod n == r).
TEST(WireRoundTrip, IpIdentificationIsWrittenParsedAndMatchedByTheFaultRule) {
  const auto pl = make_payload(64, 1);
  w::FrameSpec s = make_spec(w::kWriteMiddle, pl, 0);
  s.ip_id = 0x1234;
  const auto f = w::build(s);
  EXPECT_EQ((f[18] << 8) | f[19], 0x1234);
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += (f[14 + i] << 8) | f[15 + i];
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  EXPECT_EQ(sum, 0xFFFFu);
  w::PacketView v;
  ASSERT_EQ(w::parse(f.data(), f.size(), v), w::ParseStatus::kOk);
  EXPECT_EQ(v.ip_id, 0x1234);
  using oonic::network::PsnRule;
  EXPECT_TRUE(oonic::network::psn_rule_hit(f.data(), f.size(), {PsnRule{0x100, 0x34, true}}));
  EXPECT_FALSE(oonic::network::psn_rule_hit(f.data(), f.size(), {PsnRule{0x100, 0x33, true}}));
  // The same rule on the PSN field (the PSN is not 0x34 mod 256 here).
  EXPECT_NE(s.bth.psn % 0x100, 0x34u);
  EXPECT_FALSE(oonic::network::psn_rule_hit(f.data(), f.size(), {PsnRule{0x100, 0x34, false}}));
}

TEST(WireBitmap, RoundTripSeveralSizes) {
  std::mt19937 rng(7);
  for (uint32_t nbits : {1u, 2u, 16u, 31u, 32u, 33u, 64u, 100u, 320u, 511u, 512u}) {
    SCOPED_TRACE(nbits);
    w::FrameSpec s = make_spec(w::kOooNak, {}, nbits);
    s.bitmap = {};
    s.bitmap.base_psn = w::psn_add(0xFFFFFF, -static_cast<int64_t>(nbits / 2));
    s.bitmap.nbits = static_cast<uint16_t>(nbits);
    for (uint32_t i = 0; i < nbits; ++i)
      if (rng() & 1) s.bitmap.set(i);
    s.bitmap.set(nbits - 1);
    round_trip(s);
    const auto f = w::build(s);
    w::PacketView v;
    ASSERT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kOk);
    for (uint32_t i = 0; i < nbits; ++i) EXPECT_EQ(v.bitmap.test(i), s.bitmap.test(i)) << i;
    // Wire layout: rsvd, base_psn 24 BE, nbits 16 BE, rsvd 16, BE words (bit i = LSB-first).
    const uint8_t* e = f.data() + 14 + 20 + 8 + 12;
    EXPECT_EQ(e[0], 0);
    EXPECT_EQ(uint32_t((e[1] << 16) | (e[2] << 8) | e[3]), s.bitmap.base_psn);
    EXPECT_EQ(uint32_t((e[4] << 8) | e[5]), nbits);
    EXPECT_EQ(e[6] | e[7], 0);
    EXPECT_EQ(e[8 + 3] & 1, s.bitmap.test(0) ? 1 : 0);  // bit 0 = LSB of word 0's last byte
    EXPECT_EQ((e[8] >> 7) & 1, nbits > 31 && s.bitmap.test(31) ? 1 : 0);
    // AETH right after the bitmap.
    const uint8_t* a = e + 8 + 4 * ((nbits + 31) / 32);
    EXPECT_EQ(a[0], s.aeth.syndrome);
  }
}

TEST(WireBitmap, MalformedExtensionIsBadExtension) {
  w::PacketView v;
  {
    w::FrameSpec s = make_spec(w::kOooNak, {}, 1);
    s.bitmap.nbits = 0;
    const auto f = w::build(s);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
  }
  {
    w::FrameSpec s = make_spec(w::kOooNak, {}, 1);
    s.bitmap.nbits = w::kMaxBitmapBlockBits + 1;
    const auto f = w::build(s);  // does not write more than 16 words
    EXPECT_EQ(f.size(), 14u + 20 + 8 + 12 + 8 + 64 + 4 + 4);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
  }
  {  // nbits says more words than the packet holds
    w::FrameSpec s = make_spec(w::kOooNak, {}, 1);
    s.bitmap.nbits = 64;
    auto f = w::build(s);
    uint8_t* e = f.data() + 14 + 20 + 8 + 12;
    e[4] = 0x01;  // nbits = 0x0140 = 320
    e[5] = 0x40;
    refresh_icrc(f, 14);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
  }
  {  // bitmap extension cut short (IP/UDP lengths consistent)
    w::FrameSpec s = make_spec(w::kOooNak, {}, 1);
    s.bitmap.nbits = 32;
    auto f = w::build(s);
    shrink_ipv4(f, 4 + 4 + 3);  // AETH, the one word, and 3 fixed bytes
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
  }
  {  // OOO address extension cut short
    w::FrameSpec s = make_spec(w::kOooWriteFSpot, {}, 1);
    auto f = w::build(s);
    shrink_ipv4(f, 5);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
    w::FrameSpec s2 = make_spec(w::kOooWriteLastFSpot, {}, 1);
    f = w::build(s2);
    shrink_ipv4(f, 16);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadExtension);
  }
  {  // a standard header cut short is kTruncated
    w::FrameSpec s = make_spec(w::kReadRequest, {}, 1);
    auto f = w::build(s);
    shrink_ipv4(f, 1);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kTruncated);
  }
}

TEST(WireRobustness, EveryTruncationIsNotOk) {
  std::vector<std::vector<uint8_t>> frames;
  const auto pl = make_payload(101, 9);
  frames.push_back(w::build(make_spec(w::kWriteFirst, pl, 1)));
  frames.push_back(w::build(make_spec(w::kAcknowledge, {}, 2)));
  frames.push_back(w::build(make_spec(w::kOooNak, {}, 3)));
  frames.push_back(w::build(make_spec(w::kOooWriteFSpot, pl, 4)));
  {
    w::FrameSpec s = make_spec(w::kReadResponseFirst, pl, 5);
    s.ip_version = 6;
    s.vlan = true;
    frames.push_back(w::build(s));
  }
  {
    w::FrameSpec s = make_spec(w::kSendLastImm, pl, 6);
    s.vlan = true;
    frames.push_back(w::build(s));
  }
  for (const auto& f : frames) {
    w::PacketView v;
    ASSERT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kOk);
    for (size_t len = 0; len < f.size(); ++len) {
      // Exact-size heap copy, so a sanitizer sees any read past the end.
      std::vector<uint8_t> cut(f.begin(), f.begin() + static_cast<long>(len));
      const ParseStatus st = w::parse(len ? cut.data() : nullptr, len, v);
      EXPECT_NE(st, ParseStatus::kOk) << "len " << len;
      const ParseStatus st2 = w::parse(cut.data(), len, v, false);
      EXPECT_NE(st2, ParseStatus::kOk) << "len " << len;
    }
  }
}

TEST(WireRobustness, RandomByteFlipsNeverReadOutOfBounds) {
  std::mt19937 rng(12345);
  std::vector<std::vector<uint8_t>> base;
  const auto pl = make_payload(64, 3);
  const std::vector<uint8_t> none;
  for (const auto& i : w::opcode_table()) {
    const std::vector<uint8_t>& data = (i.flags & w::kHasPayload) ? pl : none;
    w::FrameSpec s = make_spec(i.opcode, data, i.opcode);
    s.ip_version = (i.opcode & 1) ? 6 : 4;
    s.vlan = i.opcode & 2;
    base.push_back(w::build(s));
  }
  std::map<ParseStatus, int> seen;
  for (int iter = 0; iter < 30000; ++iter) {
    std::vector<uint8_t> f = base[rng() % base.size()];
    const int flips = 1 + rng() % 4;
    for (int k = 0; k < flips; ++k) {
      // Bias the flips toward the headers.
      const size_t pos = (rng() & 1) ? rng() % std::min<size_t>(f.size(), 120) : rng() % f.size();
      f[pos] ^= static_cast<uint8_t>(1 + rng() % 255);
    }
    if (rng() % 4 == 0) f.resize(rng() % (f.size() + 1));
    std::vector<uint8_t> exact(f);  // exact-size heap buffer
    w::PacketView v;
    const ParseStatus st = w::parse(exact.data(), exact.size(), v, rng() & 1);
    ++seen[st];
    if (st == ParseStatus::kOk || st == ParseStatus::kUdOrCnp) {
      ASSERT_LE(v.frame_len, exact.size());
      ASSERT_GE(v.payload, exact.data());
      ASSERT_LE(v.header_len + v.payload_len + w::kIcrcBytes, v.frame_len);
      ASSERT_EQ(v.payload, exact.data() + v.header_len);
    }
  }
  EXPECT_GT(seen[ParseStatus::kBadIcrc], 0);
  EXPECT_GT(seen[ParseStatus::kTruncated], 0);
}

TEST(WireIcrc, MatchesIndependentBitwiseCrc) {
  for (int variant = 0; variant < 4; ++variant) {
    const auto pl = make_payload(1000 + variant, 4);
    w::FrameSpec s = make_spec(w::kWriteOnlyImm, pl, variant);
    s.ip_version = variant & 1 ? 6 : 4;
    s.vlan = variant & 2;
    const auto f = w::build(s);
    EXPECT_EQ(w::compute_icrc(f.data(), f.size(), l3_offset(s)), reference_icrc(f, l3_offset(s)));
    EXPECT_EQ(carried_icrc(f), reference_icrc(f, l3_offset(s)));
  }
}

TEST(WireIcrc, KnownCnpFromConnectX4LxLittleEndianOnWire) {
  // The CNP in captures/connectx4lx-cnp.pcap (from scapy's test suite).
  const char* hex =
      "e41d2dab2bc27cfe90643b32080045c2003c718c4000401191610a0011010a001201000012b70028"
      "00008100ffff40000118000000000000000000000000000000000000000082fd002a";
  std::vector<uint8_t> f;
  for (size_t i = 0; hex[i] && hex[i + 1]; i += 2)
    f.push_back(static_cast<uint8_t>(std::stoul(std::string(hex + i, 2), nullptr, 16)));
  ASSERT_EQ(f.size(), 74u);
  EXPECT_EQ(w::compute_icrc(f.data(), f.size(), 14), 0x2A00FD82u);  // bytes 82 fd 00 2a
  w::PacketView v;
  EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kUdOrCnp);
  EXPECT_EQ(v.bth.opcode, w::kCnp);
  EXPECT_EQ(v.bth.dest_qp, 0x118u);
  EXPECT_TRUE(v.bth.becn);
  EXPECT_EQ(v.tos, 0xC2);
  EXPECT_EQ(v.icrc, 0x2A00FD82u);
  EXPECT_EQ(v.payload_len, 16u);
  f[60] ^= 1;
  EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadIcrc);
}

TEST(WireIcrc, CorruptionDetectedMaskedFieldsIgnored) {
  const auto pl = make_payload(200, 5);
  for (int variant = 0; variant < 2; ++variant) {
    w::FrameSpec s = make_spec(w::kWriteMiddle, pl, 1);
    s.bth.fecn = false;
    s.bth.becn = false;
    s.ip_version = variant ? 6 : 4;
    const auto f = w::build(s);
    const size_t l3 = 14;
    const size_t bth = l3 + (variant ? 40 : 20) + 8;
    w::PacketView v;
    ASSERT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kOk);

    auto g = f;
    g[bth + 12 + 100] ^= 0x01;  // payload byte
    EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);
    EXPECT_EQ(w::parse(g.data(), g.size(), v, false), ParseStatus::kOk);

    g = f;
    g[bth + 11] ^= 0x01;  // PSN low byte
    EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);

    g = f;
    g[g.size() - 1] ^= 0x80;  // the ICRC itself
    EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);

    g = f;
    g[bth + 4] |= 0x80;  // FECN: masked, ICRC still good
    ASSERT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);
    EXPECT_TRUE(v.bth.fecn);
    g[bth + 4] |= 0x40;  // BECN too
    ASSERT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);
    EXPECT_TRUE(v.bth.becn);

    g = f;
    g[bth - 2] ^= 0xFF;  // UDP checksum field (masked)
    g[bth - 1] ^= 0x5A;
    EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);

    g = f;
    if (variant == 0) {
      g[l3 + 8] = 3;       // TTL (a router decrements it)
      g[l3 + 10] ^= 0x12;  // header checksum
      g[l3 + 11] ^= 0x34;
      g[l3 + 1] = 0x03;  // TOS: ECN CE
      ASSERT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);
      EXPECT_EQ(v.ttl, 3);
      EXPECT_EQ(v.tos, 0x03);
      g[l3 + 12] ^= 1;  // source address is covered
      EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);
    } else {
      g[l3 + 7] = 1;      // hop limit
      g[l3 + 1] |= 0x3F;  // traffic class low nibble + flow label
      g[l3 + 3] ^= 0xAA;
      ASSERT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);
      EXPECT_EQ(v.ttl, 1);
      g[l3 + 30] ^= 1;  // destination address is covered
      EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);
    }
  }
}

TEST(WireParse, EthernetPaddingAfterIpv4PacketIgnored) {
  w::FrameSpec s = make_spec(w::kWriteMiddle, {}, 1);  // 58 B: padded to 60 on the wire
  auto f = w::build(s);
  ASSERT_EQ(f.size(), 58u);
  f.push_back(0xAB);
  f.push_back(0xCD);
  w::PacketView v;
  ASSERT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kOk);
  EXPECT_EQ(v.frame_len, 58u);
  EXPECT_EQ(v.payload_len, 0u);

  const auto pl = make_payload(33, 2);
  for (int ipv = 4; ipv <= 6; ipv += 2) {
    w::FrameSpec s2 = make_spec(w::kSendOnlyImm, pl, 2);
    s2.ip_version = static_cast<uint8_t>(ipv);
    auto g = w::build(s2);
    const size_t n = g.size();
    g.insert(g.end(), 23, 0x77);
    ASSERT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kOk);
    EXPECT_EQ(v.frame_len, n);
    EXPECT_EQ(v.payload_len, 33u);
    EXPECT_EQ(v.immdt, s2.immdt);
  }
}

TEST(WireParse, NonRoceFramesClassified) {
  w::PacketView v;
  {  // ARP
    std::vector<uint8_t> arp(60, 0);
    std::memset(arp.data(), 0xFF, 6);
    arp[12] = 0x08;
    arp[13] = 0x06;
    EXPECT_EQ(w::parse(arp.data(), arp.size(), v), ParseStatus::kNotIp);
    arp[12] = 0x81;  // VLAN-tagged ARP
    arp[13] = 0x00;
    arp[16] = 0x08;
    arp[17] = 0x06;
    EXPECT_EQ(w::parse(arp.data(), arp.size(), v), ParseStatus::kNotIp);
    EXPECT_TRUE(v.has_vlan);
  }
  const auto pl = make_payload(40, 1);
  const auto base = w::build(make_spec(w::kSendOnly, pl, 1));
  {  // TCP
    auto f = base;
    f[14 + 9] = 6;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kNotUdp);
  }
  {  // UDP to port 53
    auto f = base;
    f[14 + 20 + 2] = 0;
    f[14 + 20 + 3] = 53;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kNotRoce);
    EXPECT_EQ(v.udp_dport, 53);
  }
  {  // source port 69 (TFTP) is still RoCEv2: only the destination port counts
    w::FrameSpec s = make_spec(w::kSendOnly, pl, 1);
    s.udp_sport = 69;
    const auto f = w::build(s);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kOk);
    EXPECT_EQ(v.udp_sport, 69);
  }
  {  // ICMPv6
    w::FrameSpec s = make_spec(w::kSendOnly, pl, 1);
    s.ip_version = 6;
    auto f = w::build(s);
    f[14 + 6] = 58;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kNotUdp);
  }
  {  // IPv4 options / bad version / bad total length
    auto f = base;
    f[14] = 0x46;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadIpHeader);
    f[14] = 0x55;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadIpHeader);
    f = base;
    f[16] = 0;
    f[17] = 19;
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadIpHeader);
    f[17] = static_cast<uint8_t>(base.size() - 14 + 1);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kTruncated);
  }
  {  // unknown opcodes: atomics, UC range
    for (uint8_t op : {0x12, 0x13, 0x14, 0x15, 0x20, 0x24, 0x40, 0x80, 0xA0}) {
      auto f = base;
      f[14 + 20 + 8] = op;
      refresh_icrc(f, 14);
      EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kUnknownOpcode) << int(op);
    }
  }
  {  // pad count larger than the payload
    auto f = w::build(make_spec(w::kAcknowledge, {}, 1));
    f[14 + 20 + 8 + 1] |= 0x30;
    refresh_icrc(f, 14);
    EXPECT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kBadPadding);
  }
}

TEST(WireParse, UdSendOnlyIsUdOrCnp) {
  // UD SEND Only (0x64): BTH + DETH (8 B) + payload. build() writes unknown
  // opcodes as BTH + payload, so the DETH travels as the first payload bytes.
  std::vector<uint8_t> deth_and_data = {0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
  const auto data = make_payload(24, 3);
  deth_and_data.insert(deth_and_data.end(), data.begin(), data.end());
  w::FrameSpec s = make_spec(w::kSendOnly, deth_and_data, 1);
  s.bth.opcode = 0x64;
  s.bth.dest_qp = 1;
  s.bth.psn = 0x123456;
  const auto f = w::build(s);
  w::PacketView v;
  ASSERT_EQ(w::parse(f.data(), f.size(), v), ParseStatus::kUdOrCnp);
  EXPECT_EQ(v.bth.opcode, 0x64);
  EXPECT_EQ(v.bth.dest_qp, 1u);
  EXPECT_EQ(v.bth.psn, 0x123456u);
  EXPECT_EQ(v.info, nullptr);
  EXPECT_EQ(v.payload_len, deth_and_data.size());
  auto g = f;
  g[g.size() - 10] ^= 4;
  EXPECT_EQ(w::parse(g.data(), g.size(), v), ParseStatus::kBadIcrc);
  EXPECT_EQ(w::parse(g.data(), g.size(), v, false), ParseStatus::kUdOrCnp);
}

TEST(WirePsn, AddAndDiffAcrossWrap) {
  EXPECT_EQ(w::psn_add(0xFFFFFF, 1), 0u);
  EXPECT_EQ(w::psn_add(0xFFFFFE, 5), 3u);
  EXPECT_EQ(w::psn_add(0, -1), 0xFFFFFFu);
  EXPECT_EQ(w::psn_add(2, -5), 0xFFFFFDu);
  EXPECT_EQ(w::psn_add(10, 1 << 24), 10u);
  EXPECT_EQ(w::psn_diff(0, 0xFFFFFF), 1);
  EXPECT_EQ(w::psn_diff(0xFFFFFF, 0), -1);
  EXPECT_EQ(w::psn_diff(3, 0xFFFFFE), 5);
  EXPECT_EQ(w::psn_diff(0xFFFFFE, 3), -5);
  EXPECT_EQ(w::psn_diff(100, 100), 0);
  EXPECT_EQ(w::psn_diff(1 << 23, 0), -(1 << 23));
  EXPECT_EQ(w::psn_diff((1 << 23) - 1, 0), (1 << 23) - 1);
  for (uint32_t a : {0u, 1u, 0x7FFFFFu, 0x800000u, 0xFFFFF0u, 0xFFFFFFu})
    for (int64_t d : {-1000, -1, 0, 1, 17, 1000})
      EXPECT_EQ(w::psn_diff(w::psn_add(a, d), a), d) << a << " " << d;
}

TEST(WireFormat, MacIpAndStatusStrings) {
  EXPECT_EQ(w::format_mac({{0x02, 0x00, 0xAB, 0xcd, 0x0e, 0xff}}), "02:00:ab:cd:0e:ff");
  EXPECT_EQ(w::format_ip(4, {{192, 168, 65, 5}}), "192.168.65.5");
  EXPECT_EQ(w::format_ip(6, {{0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}}), "fd00::2");
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(ParseStatus::kUdOrCnp); ++i)
    names.insert(w::to_string(static_cast<ParseStatus>(i)));
  EXPECT_EQ(names.size(), static_cast<size_t>(ParseStatus::kUdOrCnp) + 1);
  EXPECT_STREQ(w::to_string(ParseStatus::kOk), "ok");
}

// Real captures from real NICs (see traces/captures/README.md): every
// RoCEv2 frame parses and its ICRC verifies.
TEST(WireCaptures, RealNicFramesParseAndIcrcVerifies) {
  struct Expect {
    const char* file;
    size_t frames;
    size_t roce;
  };
  const Expect files[] = {
      {"huawei-rc-send-1k.pcap", 123, 105}, {"softroce-write-read-cm.pcap", 16, 12},
      {"softroce-write-read.pcap", 12, 12}, {"connectx4lx-cnp.pcap", 1, 1},
      {"softroce-read-request.pcap", 1, 1},
  };
  std::map<std::string, std::map<uint8_t, int>> opcodes;
  for (const auto& e : files) {
    SCOPED_TRACE(e.file);
    const Capture c = read_capture(std::string(OONIC_SOURCE_DIR "/traces/captures/") + e.file);
    ASSERT_TRUE(c.ok) << c.error;
    EXPECT_EQ(c.frames.size(), e.frames);
    size_t roce = 0;
    for (size_t k = 0; k < c.frames.size(); ++k) {
      const auto& f = c.frames[k];
      w::PacketView v;
      const ParseStatus st = w::parse(f.data(), f.size(), v);
      if (!is_roce_status(st)) continue;
      ++roce;
      EXPECT_TRUE(st == ParseStatus::kOk || st == ParseStatus::kUdOrCnp)
          << "frame " << k << ": " << w::to_string(st);
      const size_t l3 = 14 + (v.has_vlan ? 4 : 0);
      EXPECT_EQ(w::compute_icrc(f.data(), v.frame_len, l3), v.icrc) << "frame " << k;
      EXPECT_EQ(v.udp_dport, 4791);
      ++opcodes[e.file][v.bth.opcode];
      if (std::string(e.file) == "connectx4lx-cnp.pcap") {
        EXPECT_EQ(st, ParseStatus::kUdOrCnp);
        EXPECT_EQ(v.bth.opcode, w::kCnp);
        EXPECT_EQ(v.bth.dest_qp, 0x118u);
        EXPECT_EQ(v.tos >> 2, 48);
        EXPECT_EQ(v.tos & 3, 2);
      }
      if (std::string(e.file) == "softroce-read-request.pcap") {
        EXPECT_EQ(st, ParseStatus::kOk);
        EXPECT_EQ(v.bth.opcode, w::kReadRequest);
        EXPECT_EQ(v.bth.dest_qp, 0x11u);
        EXPECT_EQ(v.bth.psn, 5557091u);
        EXPECT_TRUE(v.flags & w::kHasReth);
      }
      if (st == ParseStatus::kOk && v.bth.opcode == w::kWriteOnly) {
        EXPECT_EQ(v.payload_len, 18u);
        EXPECT_EQ(v.bth.pad_count, 2);
        EXPECT_EQ(v.reth.dma_len, 18u);
      }
      if (st == ParseStatus::kOk && v.bth.opcode == w::kReadRequest &&
          std::string(e.file).rfind("softroce-write-read", 0) == 0) {
        EXPECT_EQ(v.reth.dma_len, 4096u);
      }
    }
    EXPECT_EQ(roce, e.roce);
  }
  auto& h = opcodes["huawei-rc-send-1k.pcap"];
  EXPECT_EQ(h[w::kSendFirst], 33);
  EXPECT_EQ(h[w::kSendLastImm], 33);
  EXPECT_EQ(h[w::kSendOnlyImm], 2);
  EXPECT_EQ(h[w::kAcknowledge], 37);
  for (const char* f : {"softroce-write-read-cm.pcap", "softroce-write-read.pcap"}) {
    auto& o = opcodes[f];
    EXPECT_EQ(o[w::kWriteOnly], 1) << f;
    EXPECT_EQ(o[w::kReadRequest], 1) << f;
    EXPECT_EQ(o[w::kReadResponseFirst], 1) << f;
    EXPECT_EQ(o[w::kReadResponseMiddle], 2) << f;
    EXPECT_EQ(o[w::kReadResponseLast], 1) << f;
  }
}

// Frames built by scapy (testbench/oracles/scapy_frames.py) parse with their
// ICRC accepted, and carry the opcodes / PSNs / payload lengths the script wrote.
TEST(WireScapy, ScapyBuiltFramesParseWithIcrc) {
  if (std::system("/usr/bin/python3 -c 'import scapy.contrib.roce' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 with scapy not available";
  const std::string out =
      ::testing::TempDir() + "oonic_wire_scapy_" + std::to_string(::getpid()) + ".pcap";
  const std::string cmd =
      "/usr/bin/python3 " OONIC_SOURCE_DIR "/testbench/oracles/scapy_frames.py " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const Capture c = read_capture(out);
  ASSERT_TRUE(c.ok) << c.error;
  std::ifstream side(out + ".txt");
  ASSERT_TRUE(side.good());
  std::vector<std::array<uint32_t, 3>> expect;
  uint32_t op, psn, len;
  while (side >> op >> psn >> len) expect.push_back({op, psn, len});
  ASSERT_EQ(c.frames.size(), expect.size());
  ASSERT_GE(c.frames.size(), 8u);
  // IPv6 frames carry the ICRC Linux soft-RoCE computes (8 bytes of ones before the
  // masked IPv6 header, testbench/oracles/icrc_rxe.py): an IPv6 rule that differs from
  // IPv4's fails here as kBadIcrc.
  int saw_v6 = 0, saw_v6_vlan = 0;
  bool saw_vlan = false;
  for (size_t k = 0; k < c.frames.size(); ++k) {
    SCOPED_TRACE("frame " + std::to_string(k));
    const auto& f = c.frames[k];
    w::PacketView v;
    const ParseStatus st = w::parse(f.data(), f.size(), v);
    if (expect[k][0] == w::kCnp) {
      EXPECT_EQ(st, ParseStatus::kUdOrCnp);
    } else {
      EXPECT_EQ(st, ParseStatus::kOk) << w::to_string(st);
    }
    EXPECT_EQ(v.bth.opcode, expect[k][0]);
    EXPECT_EQ(v.bth.psn, expect[k][1]);
    EXPECT_EQ(v.payload_len, expect[k][2]);
    const size_t l3 = 14 + (v.has_vlan ? 4 : 0);
    EXPECT_EQ(w::compute_icrc(f.data(), f.size(), l3), v.icrc);
    saw_v6 += v.ip_version == 6;
    saw_v6_vlan += v.ip_version == 6 && v.has_vlan;
    saw_vlan |= v.has_vlan;
    // Payload bytes as the script made them: (seed + 7 i) & 0xFF.
    if (st == ParseStatus::kOk && v.payload_len > 1) {
      EXPECT_EQ(uint8_t(v.payload[1] - v.payload[0]), 7);
    }
  }
  EXPECT_GE(saw_v6, 4);
  EXPECT_GE(saw_v6_vlan, 2);
  EXPECT_TRUE(saw_vlan);
  std::remove(out.c_str());
  std::remove((out + ".txt").c_str());
}

// A payload already sitting where build() would put it (the QP Manager fetches
// it behind room for the headers) gives the same frame as a copied one.
TEST(WireBuild, PayloadInPlaceEqualsCopied) {
  using namespace oonic::wire;
  std::vector<uint8_t> payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 31 + 7);
  for (uint8_t op : {kWriteFirst, kOooWriteFSpot, kOooWriteSpot, kSendLast}) {
    for (uint32_t len : {1u, 3u, 1000u}) {
      FrameSpec s;
      s.bth.opcode = op;
      s.bth.psn = 77;
      s.reth.va = 0x1000;
      s.payload = payload.data();
      s.payload_len = len;
      std::vector<uint8_t> copied = build(s);
      std::vector<uint8_t> buf(2048, 0xEE);
      uint8_t* at = buf.data() + 200;
      std::copy(payload.begin(), payload.begin() + len, at);
      s.payload = at;
      size_t h = header_size(s);
      ASSERT_EQ(build(s, at - h, frame_size(s)), copied.size());
      EXPECT_TRUE(std::equal(copied.begin(), copied.end(), at - h)) << int(op) << " " << len;
    }
  }
}

// The baselines' feedback frame (opcode 0x1E): every type round-trips; a bad
// type, too many holes, an empty hole or a cut extension is a counted drop
// (kBadExtension), never a crash.
TEST(WireSchemeFeedback, RoundTripAndMalformed) {
  using namespace oonic::wire;
  using F = SchemeFeedback;
  std::vector<F> cases(5);
  cases[0].type = F::kHoleNack, cases[0].info = 3;
  cases[0].psn = {0xFFFFFE, 10, 20}, cases[0].len = {3, 1, 255};
  cases[1].type = F::kSack, cases[1].psn[0] = 77;
  cases[2].type = F::kNack, cases[2].psn[0] = 0xABCDEF;
  cases[3].type = F::kMpAck, cases[3].info = 3, cases[3].vp = 0xBEEF;
  cases[3].psn = {5, 9, 0};
  cases[4].type = F::kUetAck, cases[4].info = 3 << 2 | 1, cases[4].vp = 0x1234;
  cases[4].psn[0] = 500, cases[4].psn[1] = 7;
  set_uet_sack_bits(cases[4], 0xABCDEF123456ull);
  for (const F& f : cases) {
    FrameSpec s;
    s.bth.opcode = kSchemeFeedback;
    s.bth.psn = 1234;
    s.aeth.syndrome = kAethAckNoCredit;
    s.aeth.msn = 9;
    s.feedback = f;
    auto b = build(s);
    EXPECT_EQ(b.size(), 14u + 20 + 8 + 12 + kFeedbackExtBytes + 4 + 4);
    PacketView v;
    ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk) << int(f.type);
    EXPECT_EQ(v.bth.psn, 1234u);
    EXPECT_EQ(v.feedback.type, f.type);
    EXPECT_EQ(v.feedback.info, f.info);
    EXPECT_EQ(v.feedback.vp, f.vp);
    EXPECT_EQ(v.feedback.psn, f.psn);
    EXPECT_EQ(v.feedback.len, f.len);
    EXPECT_EQ(uet_sack_bits(v.feedback), uet_sack_bits(f));
    EXPECT_EQ(v.aeth.msn, 9u);
    EXPECT_TRUE(v.flags & kHasFeedback);
  }
  EXPECT_EQ(uet_sack_bits(cases[4]), 0xABCDEF123456ull);  // 48 bits: entry 2, then len[0..2]
  EXPECT_EQ(cases[4].psn[2], 0x123456u);
  EXPECT_EQ(cases[4].len[0], 0xEF);
  EXPECT_EQ(uet_coalesced(cases[4]), 3u);
  auto bad = [&](F f) {
    FrameSpec s;
    s.bth.opcode = kSchemeFeedback;
    s.feedback = f;
    auto b = build(s);
    PacketView v;
    return parse(b.data(), b.size(), v, /*check_icrc=*/true);
  };
  F f;
  f.type = 9;
  EXPECT_EQ(bad(f), ParseStatus::kBadExtension);
  f.type = F::kHoleNack, f.info = 4, f.len = {1, 1, 1};
  EXPECT_EQ(bad(f), ParseStatus::kBadExtension);
  f.info = 2, f.len = {1, 0, 0};
  EXPECT_EQ(bad(f), ParseStatus::kBadExtension);
  // Cut inside the extension: IP/UDP lengths shortened with the frame.
  FrameSpec s;
  s.bth.opcode = kSchemeFeedback;
  auto b = build(s);
  b.resize(14 + 20 + 8 + 12 + 10);
  b[16] = 0, b[17] = static_cast<uint8_t>(20 + 8 + 12 + 10);               // IPv4 total length
  b[14 + 20 + 4] = 0, b[14 + 20 + 5] = static_cast<uint8_t>(8 + 12 + 10);  // UDP length
  PacketView v;
  ParseStatus st = parse(b.data(), b.size(), v, /*check_icrc=*/false);
  EXPECT_TRUE(st == ParseStatus::kBadExtension || st == ParseStatus::kTruncated) << int(st);
}

// Eunomia's data-packet metadata (Head 32 + last): flagged by BTH byte 8 bit 5
// on data opcodes, 8 bytes right after the BTH (before RETH / the OOO address).
TEST(WireEunomiaMeta, RoundTripTruncatedAndIgnoredOffData) {
  using namespace oonic::wire;
  std::vector<uint8_t> payload(100, 0x5A);
  for (uint8_t op : {kWriteFirst, kWriteMiddle, kSendOnly, kOooWriteFSpot, kOooWriteSpot}) {
    FrameSpec s;
    s.bth.opcode = op;
    s.bth.psn = 500;
    s.bth.resv7 = kBthEunomiaMetaBit;
    s.reth.va = 0xABCD000, s.reth.rkey = 7, s.reth.dma_len = 4096;
    s.eunomia.head = 0xDEADBEEF;
    s.eunomia.last = op == kSendOnly;
    s.payload = payload.data();
    s.payload_len = 100;
    FrameSpec plain = s;
    plain.bth.resv7 = 0;
    auto b = build(s);
    EXPECT_EQ(b.size(), build(plain).size() + kEunomiaMetaBytes) << int(op);
    EXPECT_EQ(header_size(s), header_size(plain) + kEunomiaMetaBytes);
    PacketView v;
    ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk) << int(op);
    EXPECT_TRUE(v.flags & kHasEunomiaMeta);
    EXPECT_EQ(v.eunomia.head, 0xDEADBEEFu);
    EXPECT_EQ(v.eunomia.last, op == kSendOnly);
    if (v.flags & (kHasReth | kHasOooAddr)) {
      EXPECT_EQ(v.reth.va, 0xABCD000u) << int(op);
    }
    ASSERT_EQ(v.payload_len, 100u);
    EXPECT_EQ(v.payload[0], 0x5A);
  }
  // On a non-data opcode the bit means nothing and no extension is read.
  FrameSpec ack;
  ack.bth.opcode = kAcknowledge;
  ack.bth.resv7 = kBthEunomiaMetaBit;
  auto a = build(ack);
  PacketView v;
  ASSERT_EQ(parse(a.data(), a.size(), v), ParseStatus::kOk);
  EXPECT_FALSE(v.flags & kHasEunomiaMeta);
  // Undefined flag bits or a frame cut inside the extension: counted drops.
  FrameSpec s;
  s.bth.opcode = kWriteMiddle;
  s.bth.resv7 = kBthEunomiaMetaBit;
  auto b = build(s);
  b[14 + 20 + 8 + 12 + 4] = 0x80;
  refresh_icrc(b, 14);
  EXPECT_EQ(parse(b.data(), b.size(), v), ParseStatus::kBadExtension);
  auto c = build(s);
  c.resize(14 + 20 + 8 + 12 + 6);
  c[16] = 0, c[17] = static_cast<uint8_t>(20 + 8 + 12 + 6);
  c[14 + 20 + 4] = 0, c[14 + 20 + 5] = static_cast<uint8_t>(8 + 12 + 6);
  EXPECT_EQ(parse(c.data(), c.size(), v, /*check_icrc=*/false), ParseStatus::kBadExtension);
}

// MP-RDMA's data-packet metadata (ReTx, Sync, iPSN 24, MSN 24): flagged by BTH byte 8
// bit 4, 8 bytes after the BTH (after Eunomia's when both are set, before RETH / OOO
// address). Byte layout checked by hand: flags | iPSN | 0 | MSN.
TEST(WireMpRdmaMeta, RoundTripLayoutTruncatedAndIgnoredOffData) {
  using namespace oonic::wire;
  std::vector<uint8_t> payload(64, 0x3C);
  for (uint8_t op : {kWriteFirst, kSendMiddle, kOooWriteFSpot, kOooWriteSpot, kOooWriteLast}) {
    FrameSpec s;
    s.bth.opcode = op;
    s.bth.psn = 77;
    s.bth.resv7 = kBthMpRdmaMetaBit;
    s.reth.va = 0x1234000, s.reth.rkey = 9, s.reth.dma_len = 2048;
    s.mprdma.retx = true;
    s.mprdma.sync = op == kSendMiddle;
    s.mprdma.ipsn = 0xABCDEF;
    s.mprdma.msn = 0x010203;
    s.payload = payload.data();
    s.payload_len = 64;
    FrameSpec plain = s;
    plain.bth.resv7 = 0;
    auto b = build(s);
    EXPECT_EQ(b.size(), build(plain).size() + kMpRdmaMetaBytes) << int(op);
    const uint8_t* e = b.data() + 14 + 20 + 8 + 12;
    EXPECT_EQ(e[0], op == kSendMiddle ? 3 : 1);
    const std::vector<uint8_t> rest(e + 1, e + 8);
    EXPECT_EQ(rest, (std::vector<uint8_t>{0xAB, 0xCD, 0xEF, 0, 1, 2, 3}));
    PacketView v;
    ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk) << int(op);
    ASSERT_TRUE(v.flags & kHasMpRdmaMeta);
    EXPECT_TRUE(v.mprdma.retx);
    EXPECT_EQ(v.mprdma.sync, op == kSendMiddle);
    EXPECT_EQ(v.mprdma.ipsn, 0xABCDEFu);
    EXPECT_EQ(v.mprdma.msn, 0x010203u);
    if (v.flags & (kHasReth | kHasOooAddr)) {
      EXPECT_EQ(v.reth.va, 0x1234000u) << int(op);
    }
    ASSERT_EQ(v.payload_len, 64u);
    EXPECT_EQ(v.payload[0], 0x3C);
  }
  // Both extensions: Eunomia's first, then MP-RDMA's.
  FrameSpec both;
  both.bth.opcode = kWriteMiddle;
  both.bth.resv7 = kBthMpRdmaMetaBit | kBthEunomiaMetaBit;
  both.eunomia.head = 5, both.mprdma.ipsn = 6, both.mprdma.msn = 7;
  auto bb = build(both);
  PacketView v;
  ASSERT_EQ(parse(bb.data(), bb.size(), v), ParseStatus::kOk);
  EXPECT_EQ(v.eunomia.head, 5u);
  EXPECT_EQ(v.mprdma.ipsn, 6u);
  EXPECT_EQ(v.mprdma.msn, 7u);
  // On an ACK the bit means nothing.
  FrameSpec ack;
  ack.bth.opcode = kAcknowledge;
  ack.bth.resv7 = kBthMpRdmaMetaBit;
  auto a = build(ack);
  ASSERT_EQ(parse(a.data(), a.size(), v), ParseStatus::kOk);
  EXPECT_FALSE(v.flags & kHasMpRdmaMeta);
  // Undefined flag bits, a non-zero reserved byte, a frame cut inside: counted drops.
  FrameSpec s;
  s.bth.opcode = kWriteMiddle;
  s.bth.resv7 = kBthMpRdmaMetaBit;
  for (size_t at : {size_t{0}, size_t{4}}) {
    auto b = build(s);
    b[14 + 20 + 8 + 12 + at] = 0x80;
    refresh_icrc(b, 14);
    EXPECT_EQ(parse(b.data(), b.size(), v), ParseStatus::kBadExtension) << at;
  }
  auto c = build(s);
  c.resize(14 + 20 + 8 + 12 + 6);
  c[16] = 0, c[17] = static_cast<uint8_t>(20 + 8 + 12 + 6);
  c[14 + 20 + 4] = 0, c[14 + 20 + 5] = static_cast<uint8_t>(8 + 12 + 6);
  EXPECT_EQ(parse(c.data(), c.size(), v, /*check_icrc=*/false), ParseStatus::kBadExtension);
}

// 802.1Qbb: DA 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101, class-enable
// vector, 8 x 16-bit times, zero padding to 60 bytes.
TEST(Pfc, BuildsTheStandardLayoutAndParsesItBack) {
  w::Pfc p;
  p.enable = 0x0A;
  p.quanta[1] = 0xFFFF;
  p.quanta[3] = 0x0102;
  std::vector<uint8_t> f(w::kPfcFrameBytes, 0xEE);
  w::build_pfc(p, {{2, 0, 0, 0, 0, 5}}, f.data());
  const std::vector<uint8_t> head = {0x01, 0x80, 0xC2, 0,    0,    1,    2,    0,    0,
                                     0,    0,    5,    0x88, 0x08, 0x01, 0x01, 0x00, 0x0A,
                                     0,    0,    0xFF, 0xFF, 0,    0,    0x01, 0x02};
  EXPECT_TRUE(std::equal(head.begin(), head.end(), f.begin()));
  EXPECT_TRUE(std::all_of(f.begin() + 34, f.end(), [](uint8_t b) { return b == 0; }));
  w::Pfc q;
  ASSERT_TRUE(w::parse_pfc(f.data(), f.size(), q));
  EXPECT_EQ(q.enable, 0x0A);
  EXPECT_EQ(q.quanta, p.quanta);
  f[15] = 0x02;  // another MAC Control opcode: not PFC
  EXPECT_FALSE(w::parse_pfc(f.data(), f.size(), q));
  EXPECT_FALSE(w::parse_pfc(f.data(), 20, q));
}

// HPCC's INT stack (BTH byte 8 bit 3): a trailer after the payload and its pad, before the
// ICRC: max_hops records of 8 bytes, then nhop | max_hops | 0 | 0. Layout by hand for a
// 3-hop stack on a 61-byte payload (3 pad bytes): the footer sits right before the ICRC.
TEST(WireInt, TrailerLayoutRoundTripAndSwitchStamps) {
  using namespace oonic::wire;
  std::vector<uint8_t> payload(61, 0x5A);
  FrameSpec s;
  s.bth.opcode = kWriteFirst;
  s.bth.psn = 9;
  s.bth.resv7 = kBthIntBit;
  s.reth.va = 0x4000, s.reth.rkey = 1, s.reth.dma_len = 61;
  IntStack empty;
  empty.max_hops = 3;
  s.int_stack = &empty;
  s.payload = payload.data();
  s.payload_len = 61;
  FrameSpec plain = s;
  plain.bth.resv7 = 0;
  auto b = build(s);
  ASSERT_EQ(b.size(), build(plain).size() + 3 * 8 + 4);
  const size_t foot = b.size() - 4 - 4;
  EXPECT_EQ(b[foot], 0);      // nhop
  EXPECT_EQ(b[foot + 1], 3);  // max_hops
  PacketView v;
  ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk);
  ASSERT_TRUE(v.flags & kHasInt);
  EXPECT_EQ(v.int_stack.max_hops, 3);
  EXPECT_EQ(v.int_stack.nhop, 0);
  EXPECT_EQ(v.payload_len, 61u);  // the trailer is not payload
  EXPECT_EQ(v.reth.va, 0x4000u);
  // Two switches stamp: the records land in order, the ICRC stays valid.
  const IntHop h1 = IntHop::make(1000, 128 * 7, 80 * 3, int_rate_code(100), 1);
  const IntHop h2 = IntHop::make(2500, 128 * 9, 0, int_rate_code(400), 1);
  ASSERT_TRUE(push_int_hop(b.data(), v, h1));
  ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk);
  ASSERT_TRUE(push_int_hop(b.data(), v, h2));
  ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk);  // ICRC checked
  EXPECT_EQ(v.int_stack.nhop, 2);
  EXPECT_EQ(v.int_stack.hop(0).word, h1.word);
  EXPECT_EQ(v.int_stack.hop(1).word, h2.word);
  EXPECT_EQ(b[foot], 2);
  EXPECT_EQ(v.int_stack.multi, 1);  // the first switch wrote its units
  // The record's bytes: rate code 8 (100 G) | time 1000 | bytes 7 | qlen 3, big-endian.
  const uint64_t w = uint64_t{8} << 59 | uint64_t{1000} << 35 | uint64_t{7} << 15 | 3;
  EXPECT_EQ(h1.word, w);
  EXPECT_EQ(b[foot - 24], static_cast<uint8_t>(w >> 56));
  EXPECT_EQ(b[foot - 17], static_cast<uint8_t>(w));
  // A third fits, a fourth does not (the stack is full: nothing written).
  ASSERT_TRUE(push_int_hop(b.data(), v, h2));
  ASSERT_EQ(parse(b.data(), b.size(), v), ParseStatus::kOk);
  EXPECT_FALSE(push_int_hop(b.data(), v, h1));
  // An ACK echoes a stack after its AETH.
  FrameSpec ack;
  ack.bth.opcode = kAcknowledge;
  ack.bth.resv7 = kBthIntBit;
  ack.aeth.syndrome = kAethAckNoCredit;
  const IntStack echo = v.int_stack.copy();
  ack.int_stack = &echo;
  auto a = build(ack);
  PacketView av;
  ASSERT_EQ(parse(a.data(), a.size(), av), ParseStatus::kOk);
  EXPECT_EQ(av.aeth.syndrome, kAethAckNoCredit);
  EXPECT_EQ(av.int_stack.nhop, 3);
  EXPECT_EQ(av.int_stack.hop(1).word, h2.word);
  EXPECT_EQ(av.int_stack.multi, 1);
  EXPECT_EQ(av.payload_len, 0u);
  // A bad footer (max_hops 0 or above 16, nhop > max_hops, reserved bytes, a trailer
  // longer than the frame) is a counted drop, not a crash.
  for (auto bad :
       std::vector<std::pair<size_t, uint8_t>>{{1, 0}, {1, 17}, {0, 4}, {3, 1}, {1, 16}}) {
    auto c = build(s);
    c[c.size() - 8 + bad.first] = bad.second;
    refresh_icrc(c, 14);
    EXPECT_EQ(parse(c.data(), c.size(), v), ParseStatus::kBadExtension)
        << bad.first << "=" << int(bad.second);
  }
}

// A hop record's fields and deltas across the wraps of its 24-bit time and 20-bit byte
// counter; the queue saturates; rates outside the table have no code.
TEST(WireInt, HopFieldsDeltasAndSaturation) {
  using namespace oonic::wire;
  const IntHop a = IntHop::make((1u << 24) - 100, (uint64_t{1} << 20) * 128 - 256, 80 * 5, 8, 1);
  const IntHop b = IntHop::make((1u << 24) + 400, (uint64_t{1} << 20) * 128 + 384, 1u << 30, 8, 1);
  EXPECT_EQ(b.time_delta_ns(a), 500u);
  EXPECT_EQ(b.bytes_delta(a, 1), 640u);  // 2 + 3 units of 128 B
  EXPECT_EQ(a.qlen_bytes(1), 400u);
  EXPECT_EQ(b.qlen_bytes(1), ((1u << 15) - 1) * 80u);  // saturated
  EXPECT_DOUBLE_EQ(a.gbps(), 100);
  // With multi 4 the units are 512 B and 320 B.
  const IntHop m = IntHop::make(0, 512 * 3, 320 * 2, int_rate_code(1600), 4);
  EXPECT_EQ(m.bytes_delta(IntHop::make(0, 0, 0, 0, 4), 4), 1536u);
  EXPECT_EQ(m.qlen_bytes(4), 640u);
  EXPECT_DOUBLE_EQ(m.gbps(), 1600);
  EXPECT_EQ(int_rate_code(33), -1);
  EXPECT_EQ(int_rate_code(40), 5);
}
