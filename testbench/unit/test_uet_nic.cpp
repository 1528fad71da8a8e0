// The NIC's packets on UET's wire (model/wire/uet_nic.h): each form the NIC sends goes
// through to_uet, build_frame and parse_any and comes back as the packet it was, with the
// header bytes the table in uet_nic.h says; what has no form is refused with a reason.
#include "model/wire/uet_nic.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/wire/bytes.h"

namespace oonic::wire::uet {
namespace {

FrameSpec base() {
  FrameSpec s;
  s.udp_sport = 0xC001;
  s.tos = 0x02;  // ECT(0)
  s.bth.dest_qp = 0x1234;
  return s;
}

std::vector<uint8_t> wire_of(const FrameSpec& s, const NicWire& w = {}, uint32_t entry = 0) {
  UetFrameSpec u;
  std::string why;
  EXPECT_TRUE(to_uet(s, 0x0042, w, u, &why, entry)) << why;
  return build_frame(u);
}

PacketView back(const std::vector<uint8_t>& f, const NicWire& w = {}) {
  PacketView v;
  EXPECT_EQ(parse_any(f.data(), f.size(), v, true, w), ParseStatus::kOk);
  return v;
}

// An OOO WRITE packet 3 of a 64 KB WQE: RUD_REQ (12 B) + SES standard request, not SOM
// (44 B): 14 + 20 + 8 + 12 + 44 = 98 header bytes, then the payload; back as FSpot.
TEST(UetNic, OooWriteIsARudRequestPlacedByItsOwnOffset) {
  std::vector<uint8_t> payload(1024);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  FrameSpec s = base();
  s.bth.opcode = kOooWriteFSpot;
  s.bth.psn = 0xFFFFFE;
  s.bth.ack_req = true;
  s.reth.va = 0x10000 + 3 * 1024;
  s.reth.rkey = 0xABCD;
  s.reth.dma_len = 65536;
  s.uet.retx = true, s.uet.msg_offset = 3 * 1024, s.uet.msg_id = 7;
  s.payload = payload.data(), s.payload_len = 1024;
  const std::vector<uint8_t> f = wire_of(s);
  ASSERT_EQ(f.size(), 98u + 1024);
  const uint8_t* pds = f.data() + 42;
  EXPECT_EQ(rd16(f.data() + 36), kUetUdpPort);
  EXPECT_EQ(rd16(f.data() + 34), 0xC001);  // the entropy value
  EXPECT_EQ(rd16(pds), 2 << 11 | 3 << 7 | kReqRetx | kReqAr);
  EXPECT_EQ(rd32(pds + 4), 0xFFFFFEu);
  EXPECT_EQ(rd16(pds + 8), 0x0042);   // spdcid: the sending QP
  EXPECT_EQ(rd16(pds + 10), 0x1234);  // dpdcid: the receiving QP
  const uint8_t* ses = pds + 12;
  EXPECT_EQ(ses[0], 1);         // WRITE
  EXPECT_EQ(ses[1] & 3, 0);     // neither EOM nor SOM
  EXPECT_EQ(rd16(ses + 2), 7);  // message_id
  EXPECT_EQ(rd64(ses + 12), 0x10000u + 3 * 1024);
  EXPECT_EQ(rd64(ses + 24), 0xABCDu);
  EXPECT_EQ(rd32(ses + 32) & 0x3FFF, 1024u);  // payload_length
  EXPECT_EQ(rd32(ses + 36), 3u * 1024);       // message_offset
  EXPECT_EQ(rd32(ses + 40), 65536u);          // request_length
  const PacketView v = back(f);
  EXPECT_EQ(v.bth.opcode, kOooWriteFSpot);
  EXPECT_EQ(v.bth.psn, 0xFFFFFEu);
  EXPECT_EQ(v.bth.dest_qp, 0x1234u);
  EXPECT_TRUE(v.bth.ack_req);
  EXPECT_EQ(v.reth.va, s.reth.va);
  EXPECT_EQ(v.reth.rkey, 0xABCDu);
  EXPECT_EQ(v.reth.dma_len, 65536u);
  EXPECT_EQ(v.header_len, 98u);
  EXPECT_EQ(v.frame_len, f.size());
  EXPECT_EQ(v.tos, 0x02);
  EXPECT_EQ(v.udp_sport, 0xC001);
  ASSERT_EQ(v.payload_len, 1024u);
  EXPECT_EQ(std::vector<uint8_t>(v.payload, v.payload + 1024), payload);
  EXPECT_TRUE(v.flags & kIsRequest);
}

TEST(UetNic, MessageEndsAndRodAndSends) {
  FrameSpec s = base();
  s.bth.opcode = kOooWriteLastFSpot;
  s.reth.va = 0x5000;
  const std::vector<uint8_t> f = wire_of(s, NicWire{4096, true});
  EXPECT_EQ(f[42] >> 3, static_cast<int>(PdsType::kRodReq));
  EXPECT_EQ(f[42 + 12 + 1] & 3, 3);  // EOM and SOM (offset 0)
  EXPECT_EQ(back(f).bth.opcode, kOooWriteLastFSpot);
  for (uint8_t op : {kSendFirst, kSendMiddle, kSendLast, kSendOnly}) {
    FrameSpec x = base();
    x.bth.opcode = op;
    x.uet.msg_offset = op == kSendFirst || op == kSendOnly ? 0 : 4096;
    const std::vector<uint8_t> g = wire_of(x);
    EXPECT_EQ(g[54], 5);  // SEND
    EXPECT_EQ(back(g).bth.opcode, op);
  }
}

// UET's ACK: CACK = ePSN - 1, ACK_PSN and the 48 SACK bits below it in the 64-bit bitmap,
// the OOO count, ECE and the coalesced packets (as rcvd_bytes) come back as they left,
// across the PSN wrap.
TEST(UetNic, UetAckRoundTripsOverRandomFields) {
  std::mt19937_64 rng(7);
  const NicWire w{1024, false};
  for (int i = 0; i < 2000; ++i) {
    FrameSpec s = base();
    s.bth.opcode = kSchemeFeedback;
    s.bth.psn = static_cast<uint32_t>(rng()) & kPsnMask;
    s.aeth.syndrome = kAethAckNoCredit;
    SchemeFeedback& f = s.feedback;
    f.type = SchemeFeedback::kUetAck;
    f.psn[0] = psn_add(s.bth.psn, static_cast<int64_t>(rng() % 20000) - 10000);
    f.psn[1] = rng() % 4 == 0 ? kUetOooUnknown : static_cast<uint32_t>(rng() % 5000);
    set_uet_sack_bits(f, rng() >> 16);
    f.info = static_cast<uint8_t>((rng() & 1) | (rng() % 64) << 2);
    f.vp = s.udp_sport;
    const std::vector<uint8_t> b = wire_of(s, w);
    ASSERT_EQ(b.size(), 14u + 20 + 8 + 32);
    const PacketView v = back(b, w);
    ASSERT_EQ(v.bth.opcode, kSchemeFeedback);
    EXPECT_EQ(v.bth.psn, s.bth.psn);
    EXPECT_EQ(v.feedback.type, SchemeFeedback::kUetAck);
    EXPECT_EQ(v.feedback.psn[0], f.psn[0]);
    EXPECT_EQ(v.feedback.psn[1], f.psn[1]);
    EXPECT_EQ(uet_sack_bits(v.feedback), uet_sack_bits(f)) << i;
    EXPECT_EQ(v.feedback.info, f.info);
    EXPECT_EQ(v.feedback.vp, f.vp);
    EXPECT_EQ(v.aeth.syndrome, kAethAckNoCredit);
  }
}

// A UET ACK for a duplicate 40,000 PSNs below ePSN (a stale resend) cannot say its PSN in
// a signed 16-bit offset: it leaves as the cumulative ACK alone, ACK_PSN = CACK, no SACK.
TEST(UetNic, FarDuplicateAckIsTheCumulativeAckAlone) {
  FrameSpec s = base();
  s.bth.opcode = kSchemeFeedback;
  s.bth.psn = 50000;  // ePSN
  s.feedback.type = SchemeFeedback::kUetAck;
  s.feedback.psn[0] = 10000;
  s.feedback.psn[1] = kUetOooUnknown;
  set_uet_sack_bits(s.feedback, ~uint64_t{0} >> 16);
  const PacketView v = back(wire_of(s));
  EXPECT_EQ(v.bth.psn, 50000u);
  EXPECT_EQ(v.feedback.psn[0], 49999u);
  EXPECT_EQ(uet_sack_bits(v.feedback), 0u);
  EXPECT_EQ(v.feedback.psn[1], kUetOooUnknown);
}

// A merged NACK (three trimmed PSNs in the QP's register) leaves as three NACK frames,
// each on the entropy value its PSN came on; PSN_OUT_OF_WINDOW when the bit says so.
TEST(UetNic, MergedNackIsOneFramePerPsn) {
  FrameSpec s = base();
  s.bth.opcode = kSchemeFeedback;
  s.bth.psn = 100;  // ePSN
  SchemeFeedback& f = s.feedback;
  f.type = SchemeFeedback::kNack;
  f.info = kUetNackFlag | 3;
  f.psn = {105, 108, 111};
  f.vp = 0xC001;
  f.more_vp = {0xC002, 0xC003};
  s.udp_sport = f.vp;
  ASSERT_EQ(frames_of(s), 3u);
  for (uint32_t e = 0; e < 3; ++e) {
    const std::vector<uint8_t> b = wire_of(s, {}, e);
    ASSERT_EQ(b.size(), 14u + 20 + 8 + 16);
    EXPECT_EQ(b[44], kNackTrimmed);
    const PacketView v = back(b);
    EXPECT_EQ(v.udp_sport, 0xC001 + e);
    EXPECT_EQ(v.feedback.type, SchemeFeedback::kNack);
    EXPECT_EQ(v.feedback.info, kUetNackFlag | 1);
    EXPECT_EQ(v.feedback.psn[0], f.psn[e]);
    EXPECT_EQ(v.feedback.vp, 0xC001 + e);
    EXPECT_EQ(v.bth.psn, 100u);
  }
  f.info = kUetNackFlag | kUetNackOutOfWindow | 1;
  const std::vector<uint8_t> b = wire_of(s);
  EXPECT_EQ(b[44], kNackPsnOutOfWindow);
  EXPECT_EQ(back(b).feedback.info, kUetNackFlag | kUetNackOutOfWindow | 1);
  // Entry 1 trimmed at its last hop (bit 3): its frame says TRIMMED_LASTHOP, read back
  // as entry 0's bit (2); entries 0 and 2 stay TRIMMED.
  f.info = kUetNackFlag | 3 | uet_nack_last_hop_bit(1);
  for (uint32_t e = 0; e < 3; ++e) {
    const std::vector<uint8_t> m = wire_of(s, {}, e);
    EXPECT_EQ(m[44], e == 1 ? kNackTrimmedLastHop : kNackTrimmed);
    EXPECT_EQ(back(m).feedback.info, kUetNackFlag | 1 | (e == 1 ? 0x04 : 0));
    EXPECT_EQ(uet_nack_last_hop(back(m).feedback, 0), e == 1);
  }
}

TEST(UetNic, RcAckAndNaksKeepTheirSyndrome) {
  for (uint8_t syn : {kAethAckNoCredit, kAethNakPsnSeqErr, kAethRnrNak, kAethNakRemoteAccess,
                      kAethNakInvalidReq}) {
    FrameSpec s = base();
    s.bth.opcode = kAcknowledge;
    s.bth.psn = 77;
    s.aeth.syndrome = syn;
    const std::vector<uint8_t> b = wire_of(s);
    EXPECT_EQ(b[42] >> 3,
              static_cast<int>(syn == kAethAckNoCredit ? PdsType::kAck : PdsType::kNack));
    const PacketView v = back(b);
    EXPECT_EQ(v.bth.opcode, kAcknowledge);
    EXPECT_EQ(v.bth.psn, 77u);
    EXPECT_EQ(v.aeth.syndrome, syn);
  }
}

TEST(UetNic, WhatHasNoFormIsRefusedWithAReason) {
  UetFrameSpec u;
  std::string why;
  FrameSpec s = base();
  s.bth.opcode = kOooWriteSpot;  // leaves out its address
  EXPECT_FALSE(to_uet(s, 1, {}, u, &why));
  EXPECT_NE(why.find("OOO WRITE Spot"), std::string::npos) << why;
  s.bth.opcode = kOooNak;
  EXPECT_FALSE(to_uet(s, 1, {}, u, &why));
  s.bth.opcode = kSchemeFeedback;
  s.feedback.type = SchemeFeedback::kMpAck;
  EXPECT_FALSE(to_uet(s, 1, {}, u, &why));
  EXPECT_NE(why.find("type 4"), std::string::npos) << why;
  s.bth.opcode = kOooWriteFSpot;
  EXPECT_FALSE(to_uet(s, 0x10000, {}, u, &why));  // a PDC id is 16 bits
  EXPECT_NE(why.find("65536"), std::string::npos) << why;
  s.bth.opcode = kReadRequest;
  EXPECT_FALSE(carries(s));  // READs keep RoCEv2's form
  s.bth.opcode = kReadResponseMiddle;
  EXPECT_FALSE(carries(s));
}

// parse_any reads a RoCEv2 frame exactly as parse does.
TEST(UetNic, ParseAnyReadsRoceAsParse) {
  FrameSpec s = base();
  s.bth.opcode = kWriteOnly;
  s.bth.psn = 9;
  std::vector<uint8_t> pl(100, 1);
  s.payload = pl.data(), s.payload_len = 100;
  const std::vector<uint8_t> f = build(s);
  PacketView a, b;
  ASSERT_EQ(parse(f.data(), f.size(), a, true), ParseStatus::kOk);
  ASSERT_EQ(parse_any(f.data(), f.size(), b, true), ParseStatus::kOk);
  EXPECT_EQ(a.bth.psn, b.bth.psn);
  EXPECT_EQ(a.header_len, b.header_len);
  EXPECT_EQ(a.payload_len, b.payload_len);
  std::vector<uint8_t> g = f;
  g[36] = 0x12, g[37] = 0xB9;  // UDP 4793, but no PDS header a NIC takes
  EXPECT_NE(parse_any(g.data(), g.size(), b, false), ParseStatus::kOk);
}

}  // namespace
}  // namespace oonic::wire::uet
