// UET PDS and SES header codecs (model/wire/uet_pds.h, uet_ses.h): bytes derived
// by hand from the layouts in the headers, round trips over random headers, and bad
// input refused.
#include "model/wire/uet_frame.h"
#include "model/wire/uet_pds.h"
#include "model/wire/uet_ses.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace oonic::wire::uet {
namespace {

std::vector<uint8_t> write(const Pds& p) {
  std::vector<uint8_t> b(64, 0xEE);
  PdsStatus st;
  const size_t n = write_pds(p, b.data(), b.size(), &st);
  EXPECT_EQ(st, PdsStatus::kOk);
  b.resize(n);
  return b;
}

// RUD request, next header STD (3), AR: prologue 2 << 11 | 3 << 7 | 0x08 = 0x1188;
// clear_psn_offset -2 = 0xFFFE.
TEST(UetPds, RudRequestBytes) {
  Pds p;
  p.type = PdsType::kRudReq;
  p.next_hdr = static_cast<uint8_t>(NextHdr::kRequestStd);
  p.flags = kReqAr;
  p.clear_psn_offset = -2;
  p.psn = 0x01020304;
  p.spdcid = 0x0A0B;
  p.dpdcid = 0x0C0D;
  EXPECT_EQ(write(p), (std::vector<uint8_t>{0x11, 0x88, 0xFF, 0xFE, 0x01, 0x02, 0x03, 0x04, 0x0A,
                                            0x0B, 0x0C, 0x0D}));
  Pds q;
  size_t used = 0;
  const std::vector<uint8_t> b = write(p);
  ASSERT_EQ(read_pds(b.data(), b.size(), q, &used), PdsStatus::kOk);
  EXPECT_EQ(used, 12u);
  EXPECT_EQ(q.clear_psn_offset, -2);
  EXPECT_EQ(q.psn, 0x01020304u);
  EXPECT_EQ(q.dpdcid, 0x0C0D);
}

// With SYN the last 16 bits are use_rsv_pdc 1 | rsvd 3 | psn_offset 12: 0x8123. The CC
// form adds ccc_id and a 24-bit credit target; ROD_CC_REQ is type 14 (0x7000).
TEST(UetPds, SynAndCcRequestBytes) {
  Pds p;
  p.type = PdsType::kRodCcReq;
  p.flags = kReqSyn | kReqRetx;
  p.psn = 7;
  p.spdcid = 1;
  p.use_rsv_pdc = true;
  p.psn_offset = 0x123;
  p.ccc_id = 9;
  p.credit_target = 0xABCDEF;
  EXPECT_EQ(write(p), (std::vector<uint8_t>{0x70, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00,
                                            0x01, 0x81, 0x23, 0x09, 0xAB, 0xCD, 0xEF}));
  p.psn_offset = 0x1000;  // 13 bits: does not fit
  uint8_t b[16];
  PdsStatus st;
  EXPECT_EQ(write_pds(p, b, sizeof b, &st), 0u);
  EXPECT_EQ(st, PdsStatus::kBadField);
}

// ACK_CC (type 8, 0x4000) with M and req = 1 (clear PSN): flags 0x20 | 1 << 1 = 0x22.
// Extension: NSCC (0), mpr 64, SACK offset -64, bitmap, service time 0x1234,
// restore_cwnd | rcv_cwnd_pend 5 = 0x85, rcvd_bytes 0x010203, ooo_count 7.
TEST(UetPds, AckCcNsccBytes) {
  Pds p;
  p.type = PdsType::kAckCc;
  p.flags = kAckM | 1 << kAckReqShift;
  p.ack_psn_offset = 5;
  p.psn = 0x100;
  p.spdcid = 1;
  p.dpdcid = 2;
  p.mpr = 64;
  p.sack_psn_offset = -64;
  p.sack_bitmap = 0x8000000000000001ull;
  p.service_time = 0x1234;
  p.restore_cwnd = true;
  p.rcv_cwnd_pend = 5;
  p.rcvd_bytes = 0x010203;
  p.ooo_count = 7;
  const std::vector<uint8_t> want{0x40, 0x22, 0x00, 0x05, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00,
                                  0x02, 0x00, 0x40, 0xFF, 0xC0, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x01, 0x12, 0x34, 0x85, 0x01, 0x02, 0x03, 0x00, 0x07};
  EXPECT_EQ(write(p), want);
  Pds q;
  ASSERT_EQ(read_pds(want.data(), want.size(), q), PdsStatus::kOk);
  EXPECT_EQ(q.sack_psn_offset, -64);
  EXPECT_EQ(q.sack_bitmap, 0x8000000000000001ull);
  EXPECT_TRUE(q.restore_cwnd);
  EXPECT_EQ(q.rcv_cwnd_pend, 5);
  EXPECT_EQ(q.rcvd_bytes, 0x010203u);
  EXPECT_EQ(q.ooo_count, 7);
}

// NACK (type 10, 0x5000) for a trimmed packet, retransmitted (0x10).
TEST(UetPds, NackBytes) {
  Pds p;
  p.type = PdsType::kNack;
  p.flags = kAckRetx;
  p.nack_code = kNackTrimmed;
  p.psn = 0xFFF;
  p.spdcid = 3;
  p.dpdcid = 4;
  p.payload = 0x1000;
  EXPECT_EQ(write(p), (std::vector<uint8_t>{0x50, 0x10, 0x01, 0x00, 0x00, 0x00, 0x0F, 0xFF, 0x00,
                                            0x03, 0x00, 0x04, 0x00, 0x00, 0x10, 0x00}));
}

TEST(UetPds, TruncatedAndUnsupportedInputIsRefused) {
  Pds p;
  p.type = PdsType::kAckCc;
  const std::vector<uint8_t> b = write(p);
  Pds q;
  for (size_t n = 0; n < b.size(); ++n)
    EXPECT_EQ(read_pds(b.data(), n, q), PdsStatus::kTruncated) << n;
  // CCX (sizes differ between public sources), TSS, control, type 0 and 31: refused.
  for (unsigned t : {0u, 1u, 4u, 5u, 6u, 9u, 11u, 12u, 15u, 31u}) {
    const uint8_t h[32] = {static_cast<uint8_t>(t << 3), 0};
    EXPECT_EQ(read_pds(h, sizeof h, q), PdsStatus::kUnsupported) << t;
    Pds w;
    w.type = static_cast<PdsType>(t);
    uint8_t out[32];
    PdsStatus st;
    EXPECT_EQ(write_pds(w, out, sizeof out, &st), 0u);
    EXPECT_EQ(st, PdsStatus::kUnsupported);
  }
  // An ACK_CC whose CC type is neither NSCC nor credit.
  std::vector<uint8_t> c = b;
  c[12] = 0x20;
  EXPECT_EQ(read_pds(c.data(), c.size(), q), PdsStatus::kUnsupported);
  uint8_t small[8];
  PdsStatus st;
  EXPECT_EQ(write_pds(p, small, sizeof small, &st), 0u);
  EXPECT_EQ(st, PdsStatus::kTruncated);
}

// Random headers of every supported type: written then read, every field the type
// carries comes back, and the size is the type's.
TEST(UetPds, RandomRoundTrips) {
  std::mt19937_64 g(31);
  const PdsType types[] = {PdsType::kRudReq,   PdsType::kRodReq, PdsType::kRudCcReq,
                           PdsType::kRodCcReq, PdsType::kAck,    PdsType::kAckCc,
                           PdsType::kNack};
  for (int i = 0; i < 5000; ++i) {
    Pds p;
    p.type = types[g() % 7];
    p.next_hdr = g() & 0xF;
    p.flags = g() & 0x7F;
    p.clear_psn_offset = static_cast<int16_t>(g());
    p.ack_psn_offset = static_cast<int16_t>(g());
    p.psn = static_cast<uint32_t>(g());
    p.spdcid = static_cast<uint16_t>(g());
    p.dpdcid = static_cast<uint16_t>(g());
    p.use_rsv_pdc = g() & 1;
    p.psn_offset = g() & 0xFFF;
    p.ccc_id = static_cast<uint8_t>(g());
    p.credit_target = g() & 0xFFFFFF;
    p.cc_type = (g() & 1) ? CcType::kCredit : CcType::kNscc;
    p.cc_flags = g() & 0xF;
    p.mpr = static_cast<uint8_t>(g());
    p.sack_psn_offset = static_cast<int16_t>(g());
    p.sack_bitmap = g();
    p.service_time = static_cast<uint16_t>(g());
    p.restore_cwnd = g() & 1;
    p.rcv_cwnd_pend = g() & 0x7F;
    p.rcvd_bytes = g() & 0xFFFFFF;
    p.credit = g() & 0xFFFFFF;
    p.ooo_count = static_cast<uint16_t>(g());
    p.nack_code = static_cast<uint8_t>(g());
    p.vendor_code = static_cast<uint8_t>(g());
    p.payload = static_cast<uint32_t>(g());
    const std::vector<uint8_t> b = write(p);
    ASSERT_EQ(b.size(), pds_bytes(p.type));
    Pds q;
    size_t used = 0;
    ASSERT_EQ(read_pds(b.data(), b.size(), q, &used), PdsStatus::kOk);
    EXPECT_EQ(used, b.size());
    EXPECT_EQ(q.type, p.type);
    EXPECT_EQ(q.next_hdr, p.next_hdr);
    EXPECT_EQ(q.flags, p.flags);
    EXPECT_EQ(q.psn, p.psn);
    EXPECT_EQ(q.spdcid, p.spdcid);
    if (is_request(p.type)) {
      EXPECT_EQ(q.clear_psn_offset, p.clear_psn_offset);
      if (p.flags & kReqSyn) {
        EXPECT_EQ(q.use_rsv_pdc, p.use_rsv_pdc);
        EXPECT_EQ(q.psn_offset, p.psn_offset);
      } else {
        EXPECT_EQ(q.dpdcid, p.dpdcid);
      }
      if (p.type == PdsType::kRudCcReq || p.type == PdsType::kRodCcReq) {
        EXPECT_EQ(q.ccc_id, p.ccc_id);
        EXPECT_EQ(q.credit_target, p.credit_target);
      }
    } else if (p.type == PdsType::kNack) {
      EXPECT_EQ(q.dpdcid, p.dpdcid);
      EXPECT_EQ(q.nack_code, p.nack_code);
      EXPECT_EQ(q.vendor_code, p.vendor_code);
      EXPECT_EQ(q.payload, p.payload);
    } else {
      EXPECT_EQ(q.dpdcid, p.dpdcid);
      EXPECT_EQ(q.ack_psn_offset, p.ack_psn_offset);
      if (p.type == PdsType::kAckCc) {
        EXPECT_EQ(q.cc_type, p.cc_type);
        EXPECT_EQ(q.cc_flags, p.cc_flags);
        EXPECT_EQ(q.mpr, p.mpr);
        EXPECT_EQ(q.sack_psn_offset, p.sack_psn_offset);
        EXPECT_EQ(q.sack_bitmap, p.sack_bitmap);
        EXPECT_EQ(q.ooo_count, p.ooo_count);
        if (p.cc_type == CcType::kNscc) {
          EXPECT_EQ(q.service_time, p.service_time);
          EXPECT_EQ(q.restore_cwnd, p.restore_cwnd);
          EXPECT_EQ(q.rcv_cwnd_pend, p.rcv_cwnd_pend);
          EXPECT_EQ(q.rcvd_bytes, p.rcvd_bytes);
        } else {
          EXPECT_EQ(q.credit, p.credit);
        }
      }
    }
  }
}

}  // namespace
}  // namespace oonic::wire::uet

namespace oonic::wire::uet {
namespace {

// A WRITE's later packet (SOM clear, EOM set): rsvd|opcode 0x01, flags 0x02, message
// 0x0102, RI generation 3, job 0x040506, PID on FEP 0xABC, RI 0x123, buffer offset,
// initiator, memory key, then rsvd 18 | payload length 4096 = 0x00001000, message
// offset 0x10000, request length 0x100000.
TEST(UetSes, StandardRequestBytes) {
  SesStd s;
  s.opcode = static_cast<uint8_t>(SesOpcode::kWrite);
  s.eom = true;
  s.message_id = 0x0102;
  s.ri_generation = 3;
  s.job_id = 0x040506;
  s.pid_on_fep = 0xABC;
  s.resource_index = 0x123;
  s.buffer_offset = 0x1122334455667788ull;
  s.initiator = 0x99AABBCC;
  s.memory_key = 0x0102030405060708ull;
  s.payload_length = 4096;
  s.message_offset = 0x10000;
  s.request_length = 0x100000;
  std::vector<uint8_t> b(kSesStdBytes);
  ASSERT_EQ(write_ses_std(s, b.data(), b.size()), kSesStdBytes);
  const std::vector<uint8_t> want{0x01, 0x02, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0A, 0xBC, 0x01,
                                  0x23, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA,
                                  0xBB, 0xCC, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00,
                                  0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00};
  EXPECT_EQ(b, want);
  SesStd r;
  ASSERT_EQ(read_ses_std(b.data(), b.size(), r), PdsStatus::kOk);
  EXPECT_EQ(r.payload_length, 4096);
  EXPECT_EQ(r.message_offset, 0x10000u);
  EXPECT_EQ(r.pid_on_fep, 0xABC);
  EXPECT_TRUE(r.eom);
  EXPECT_FALSE(r.som);
  // The first packet (SOM) carries 64 bits of header data where the offset was.
  s.som = true;
  s.hd = true;
  s.header_data = 0xDEADBEEFCAFEF00Dull;
  ASSERT_EQ(write_ses_std(s, b.data(), b.size()), kSesStdBytes);
  EXPECT_EQ(b[1], 0x07);  // hd | eom | som
  EXPECT_EQ(b[32], 0xDE);
  EXPECT_EQ(b[39], 0x0D);
  ASSERT_EQ(read_ses_std(b.data(), b.size(), r), PdsStatus::kOk);
  EXPECT_EQ(r.header_data, 0xDEADBEEFCAFEF00Dull);
  EXPECT_EQ(r.message_offset, 0u);
}

TEST(UetSes, BadFieldsAndShortInputAreRefused) {
  SesStd s;
  uint8_t b[kSesStdBytes];
  PdsStatus st;
  s.pid_on_fep = 0x1000;
  EXPECT_EQ(write_ses_std(s, b, sizeof b, &st), 0u);
  EXPECT_EQ(st, PdsStatus::kBadField);
  s = SesStd{};
  s.payload_length = 0x4000;  // 15 bits, SOM clear
  EXPECT_EQ(write_ses_std(s, b, sizeof b, &st), 0u);
  EXPECT_EQ(st, PdsStatus::kBadField);
  s = SesStd{};
  EXPECT_EQ(write_ses_std(s, b, sizeof b - 1, &st), 0u);
  EXPECT_EQ(st, PdsStatus::kTruncated);
  ASSERT_EQ(write_ses_std(s, b, sizeof b, &st), kSesStdBytes);
  SesStd r;
  for (size_t n = 0; n < kSesStdBytes; ++n)
    EXPECT_EQ(read_ses_std(b, n, r), PdsStatus::kTruncated) << n;
}

}  // namespace
}  // namespace oonic::wire::uet

namespace oonic::wire::uet {
namespace {

UetFrameSpec write_request(uint8_t ip_version, uint32_t payload_len,
                           const std::vector<uint8_t>& payload) {
  UetFrameSpec s;
  s.outer.ip_version = ip_version;
  s.outer.src_ip = {10, 0, 0, 1};
  s.outer.dst_ip = {10, 0, 0, 2};
  if (ip_version == 6) s.outer.src_ip[15] = 1, s.outer.dst_ip[15] = 2;
  s.outer.udp_sport = 0xBEEF;                  // the entropy value
  s.outer.tos = UetDscp{}.trimmable << 2 | 2;  // ECT(0)
  s.pds.type = PdsType::kRudReq;
  s.pds.next_hdr = static_cast<uint8_t>(NextHdr::kRequestStd);
  s.pds.psn = 1000;
  s.pds.spdcid = 7;
  s.pds.dpdcid = 9;
  s.ses.opcode = static_cast<uint8_t>(SesOpcode::kWrite);
  s.ses.message_id = 3;
  s.ses.payload_length = static_cast<uint16_t>(payload_len);
  s.ses.message_offset = 8192;
  s.ses.request_length = 65536;
  s.payload = payload.data();
  s.payload_len = payload_len;
  return s;
}

// A WRITE request over IPv4 and IPv6: Ethernet 14 + IP (20 / 40) + UDP 8 + PDS 12 +
// SES 44 + payload; the parser gives back every header and the payload in place.
TEST(UetFrame, RequestRoundTripsOverIpv4AndIpv6) {
  std::vector<uint8_t> payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  for (uint8_t ipv : {4, 6}) {
    const UetFrameSpec s = write_request(ipv, 1000, payload);
    const std::vector<uint8_t> f = build_frame(s);
    ASSERT_EQ(f.size(), 14u + (ipv == 4 ? 20u : 40u) + 8 + 12 + 44 + 1000);
    UetView v;
    ASSERT_EQ(parse_frame(f.data(), f.size(), v), UetStatus::kOk);
    EXPECT_EQ(v.outer.udp_sport, 0xBEEF);
    EXPECT_EQ(v.outer.udp_dport, kUetUdpPort);
    EXPECT_EQ(v.pds.psn, 1000u);
    EXPECT_EQ(v.pds.dpdcid, 9);
    ASSERT_TRUE(v.has_ses);
    EXPECT_EQ(v.ses.message_offset, 8192u);
    EXPECT_EQ(v.ses.payload_length, 1000);
    ASSERT_EQ(v.payload_len, 1000u);
    EXPECT_EQ(std::vector<uint8_t>(v.payload, v.payload + v.payload_len), payload);
    EXPECT_FALSE(v.trimmed);
    // Cut short anywhere: truncated, never a crash.
    for (size_t n : {size_t{10}, size_t{40}, f.size() - 1000 - 1, f.size() - 1})
      EXPECT_NE(parse_frame(f.data(), n, v), UetStatus::kOk) << n;
  }
}

// Trimming keeps the headers, cuts the payload, sets DSCP trimmed (16) keeping ECN, and
// fixes the IP and UDP lengths; the parser tells it trimmed (last hop: 18).
TEST(UetFrame, TrimmingCutsThePayloadAndMarksTheDscp) {
  std::vector<uint8_t> payload(4096, 0x5A);
  std::vector<uint8_t> f = build_frame(write_request(4, 4096, payload));
  const size_t n = trim_frame(f.data(), f.size(), false);
  EXPECT_EQ(n, 14u + 20 + 8 + 12 + 44);
  UetView v;
  ASSERT_EQ(parse_frame(f.data(), n, v), UetStatus::kOk);
  EXPECT_TRUE(v.trimmed);
  EXPECT_FALSE(v.trimmed_last_hop);
  EXPECT_EQ(v.payload_len, 0u);
  EXPECT_EQ(v.outer.tos, 16 << 2 | 2);
  EXPECT_EQ(v.ses.payload_length, 4096);            // what was sent: the receiver NACKs it
  EXPECT_EQ(f[16] << 8 | f[17], 20 + 8 + 12 + 44);  // IPv4 total length
  uint32_t sum = 0;                                 // the IPv4 header checksum holds
  for (size_t i = 14; i < 34; i += 2) sum += static_cast<uint32_t>(f[i] << 8 | f[i + 1]);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  EXPECT_EQ(sum, 0xFFFFu);
  EXPECT_EQ(trim_frame(f.data(), n, true), n);  // nothing left to cut
  std::vector<uint8_t> g = build_frame(write_request(6, 512, payload));
  const size_t m = trim_frame(g.data(), g.size(), true);
  ASSERT_EQ(parse_frame(g.data(), m, v), UetStatus::kOk);
  EXPECT_TRUE(v.trimmed && v.trimmed_last_hop);
}

// ACKs carry no SES header; a RoCE frame is not UET; an SES form not read is refused.
TEST(UetFrame, AcksRoceAndUnsupportedForms) {
  UetFrameSpec a;
  a.outer.src_ip = {10, 0, 0, 2};
  a.pds.type = PdsType::kAck;
  a.pds.psn = 77;
  const std::vector<uint8_t> f = build_frame(a);
  EXPECT_EQ(f.size(), 14u + 20 + 8 + 12);
  UetView v;
  ASSERT_EQ(parse_frame(f.data(), f.size(), v), UetStatus::kOk);
  EXPECT_FALSE(v.has_ses);
  EXPECT_EQ(v.pds.psn, 77u);
  FrameSpec roce;
  roce.bth.opcode = kWriteOnly;
  const std::vector<uint8_t> r = build(roce);
  EXPECT_EQ(parse_frame(r.data(), r.size(), v), UetStatus::kNotUet);
  UetFrameSpec wrong = write_request(4, 0, {});  // a request announcing a response
  wrong.pds.next_hdr = static_cast<uint8_t>(NextHdr::kResponse);
  std::vector<uint8_t> w = build_frame(wrong);
  EXPECT_EQ(parse_frame(w.data(), w.size(), v), UetStatus::kUnsupported);
  UetFrameSpec bad = write_request(4, 0, {});
  bad.ses.pid_on_fep = 0x1000;
  EXPECT_TRUE(build_frame(bad).empty());
}

// The small (20 B) and medium (32 B) requests and the three responses, byte by byte from
// xdp2's layouts, and through whole frames: a small WRITE request and an ACK carrying a
// READ response with data.
TEST(UetSes, SmallMediumAndResponseBytes) {
  SesStd s;
  s.opcode = 1, s.version = 2, s.som = true, s.hd = false, s.message_id = 0x0102;
  s.ri_generation = 0x03, s.job_id = 0x040506, s.pid_on_fep = 0x708, s.resource_index = 0x90A;
  s.buffer_offset = 0x1112131415161718ull, s.initiator = 0x21222324;
  s.memory_key = 0x3132333435363738ull;
  uint8_t b[64];
  ASSERT_EQ(write_ses_small(s, b, sizeof b), kSesSmallBytes);
  const uint8_t common[12] = {0x01, 0x81, 0x01, 0x02, 0x03, 0x04,
                              0x05, 0x06, 0x07, 0x08, 0x09, 0x0A};
  EXPECT_EQ(std::memcmp(b, common, 12), 0);
  EXPECT_EQ(b[12], 0x11);
  EXPECT_EQ(b[19], 0x18);
  SesStd r;
  ASSERT_EQ(read_ses_small(b, kSesSmallBytes, r), PdsStatus::kOk);
  EXPECT_EQ(r.buffer_offset, s.buffer_offset);
  EXPECT_EQ(r.initiator, 0u);  // not in the small form
  ASSERT_EQ(write_ses_medium(s, b, sizeof b), kSesMediumBytes);
  EXPECT_EQ(b[20], 0x21);
  EXPECT_EQ(b[31], 0x38);
  ASSERT_EQ(read_ses_medium(b, kSesMediumBytes, r), PdsStatus::kOk);
  EXPECT_EQ(r.memory_key, s.memory_key);
  EXPECT_EQ(r.initiator, s.initiator);
  EXPECT_EQ(read_ses_medium(b, kSesMediumBytes - 1, r), PdsStatus::kTruncated);

  SesResponse rsp;
  rsp.list = 1, rsp.opcode = 2, rsp.version = 0, rsp.return_code = 1, rsp.message_id = 0x0304;
  rsp.ri_generation = 5, rsp.job_id = 0x060708, rsp.modified_length = 0x0A0B0C0D;
  rsp.read_request_message_id = 0x1112, rsp.payload_length = 0x0ABC, rsp.message_offset = 0x2122;
  ASSERT_EQ(write_ses_response(rsp, NextHdr::kResponse, b, sizeof b), kSesResponseBytes);
  const uint8_t none[12] = {0x42, 0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x0D};
  EXPECT_EQ(std::memcmp(b, none, 12), 0);
  ASSERT_EQ(write_ses_response(rsp, NextHdr::kResponseData, b, sizeof b), kSesResponseDataBytes);
  EXPECT_EQ(b[8], 0x11);
  EXPECT_EQ(b[10], 0x0A);  // rsvd 4 | payload_length 12
  EXPECT_EQ(b[11], 0xBC);
  SesResponse back;
  ASSERT_EQ(read_ses_response(b, kSesResponseDataBytes, NextHdr::kResponseData, back),
            PdsStatus::kOk);
  EXPECT_EQ(back.payload_length, 0x0ABC);
  EXPECT_EQ(back.message_offset, 0x2122u);
  rsp.payload_length = 0x1000;  // 13 bits: too long for the with-data form, not the small
  EXPECT_EQ(write_ses_response(rsp, NextHdr::kResponseData, b, sizeof b), 0u);
  rsp.original_request_psn = 0x31323334;
  ASSERT_EQ(write_ses_response(rsp, NextHdr::kResponseDataSmall, b, sizeof b),
            kSesResponseDataSmallBytes);
  const uint8_t small[12] = {0x42, 0x01, 0x10, 0x00, 0x00, 0x06,
                             0x07, 0x08, 0x31, 0x32, 0x33, 0x34};
  EXPECT_EQ(std::memcmp(b, small, 12), 0);
  EXPECT_EQ(write_ses_response(rsp, NextHdr::kRequestStd, b, sizeof b), 0u);
  EXPECT_EQ(read_ses_response(b, 12, NextHdr::kRequestStd, back), PdsStatus::kUnsupported);
}

TEST(UetFrame, SmallRequestsAndResponsesInFrames) {
  UetFrameSpec q = write_request(4, 0, {});
  q.pds.next_hdr = static_cast<uint8_t>(NextHdr::kRequestSmall);
  q.ses.buffer_offset = 0x4000;
  const std::vector<uint8_t> f = build_frame(q);
  EXPECT_EQ(f.size(), 14u + 20 + 8 + 12 + kSesSmallBytes);
  UetView v;
  ASSERT_EQ(parse_frame(f.data(), f.size(), v), UetStatus::kOk);
  EXPECT_TRUE(v.has_ses);
  EXPECT_EQ(v.ses.buffer_offset, 0x4000u);
  UetFrameSpec a;
  a.pds.type = PdsType::kAck;
  a.pds.next_hdr = static_cast<uint8_t>(NextHdr::kResponseData);
  a.response.opcode = 3, a.response.payload_length = 16, a.response.message_offset = 4096;
  const std::vector<uint8_t> payload(16, 0xAB);
  a.payload = payload.data(), a.payload_len = 16;
  const std::vector<uint8_t> g = build_frame(a);
  ASSERT_EQ(g.size(), 14u + 20 + 8 + 12 + kSesResponseDataBytes + 16);
  ASSERT_EQ(parse_frame(g.data(), g.size(), v), UetStatus::kOk);
  EXPECT_FALSE(v.has_ses);
  EXPECT_TRUE(v.has_response);
  EXPECT_EQ(v.response.message_offset, 4096u);
  EXPECT_EQ(v.payload_len, 16u);
  EXPECT_EQ(parse_frame(g.data(), g.size() - 16 - 1, v), UetStatus::kTruncated);
}

}  // namespace
}  // namespace oonic::wire::uet
