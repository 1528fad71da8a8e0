// Unit tests of the transmit seam's loss-recovery cores (model/sender/standard_recovery.h,
// model/eunomia/sender_agent_core.h) and the policy tables (model/schemes/sender_policies.h),
// against a scripted send state: each test says which PSNs were sent, what feedback
// arrives, and which resends / go-backs the core must ask for. Plain C++.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/core/params.h"
#include "model/core/stats.h"
#include "model/eunomia/sender_agent_core.h"
#include "model/ornic/ornic_params.h"
#include "model/schemes/receive_schemes.h"
#include "model/schemes/sender_policies.h"
#include "model/sender/standard_recovery.h"
#include "model/sender/uet_recovery.h"

namespace {

using oonic::StatGroup;
using oonic::Stats;
namespace sender = oonic::sender;
namespace wire = oonic::wire;

// One QP (qi 0): [una, high) sent, the send pointer at send_psn; PSNs in `reads` belong to
// a READ's span. Records what the core asks for.
class ScriptedState final : public sender::SendState {
 public:
  uint32_t una(uint32_t) const override { return una_; }
  uint32_t high(uint32_t) const override { return high_; }
  uint32_t send_psn(uint32_t) const override { return send_; }
  bool has_new(uint32_t) const override { return more; }
  bool in_write_or_send(uint32_t, uint32_t psn) const override { return !reads.count(psn); }
  bool resend(uint32_t, uint32_t psn) override {
    if (wire::psn_diff(psn, una_) < 0 || wire::psn_diff(psn, high_) >= 0) return false;
    for (uint32_t q : resent)
      if (q == psn) return false;
    resent.push_back(psn);
    return true;
  }
  void go_back(uint32_t, uint32_t psn) override {
    go_backs.push_back(psn);
    resent.clear();
    send_ = psn;
  }
  void set(uint32_t una, uint32_t high) { una_ = una, high_ = high, send_ = high; }
  std::set<uint32_t> reads;
  std::vector<uint32_t> resent, go_backs;
  bool more = false;  // has_new

 private:
  uint32_t una_ = 0, high_ = 0, send_ = 0;
};

wire::SchemeFeedback fb(uint8_t type, uint32_t p0, uint32_t p1 = 0, uint8_t info = 0) {
  wire::SchemeFeedback f;
  f.type = type;
  f.psn[0] = p0, f.psn[1] = p1;
  f.info = info;
  return f;
}

TEST(GoBackN, SequenceNakAndTimeoutGoBackNackResendsOtherFeedbackIsIgnored) {
  sender::GoBackN r;
  ScriptedState s;
  s.set(10, 20);
  r.on_sequence_nak(s, 0, 13);
  EXPECT_EQ(s.go_backs, (std::vector<uint32_t>{13}));
  s.set(13, 20);
  r.on_timeout(s, 0);
  EXPECT_EQ(s.go_backs, (std::vector<uint32_t>{13, 13}));
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kNack, 17));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{17}));
  // A SACK or a bitmap block means nothing to go-back-N: left to the timeout.
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, 18));
  wire::BitmapBlock b;
  b.base_psn = 13, b.nbits = 4;
  r.on_bitmap_nak(s, 0, b);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{17}));
  EXPECT_FALSE(r.holds(0, true, 19, 13));
  EXPECT_TRUE(r.rerequest_on_read_sack());
}

TEST(OrnicRecovery, BitmapBlockResendsItsZeroBitsThatWereSent) {
  sender::OrnicRecovery r;
  ScriptedState s;
  s.set(100, 110);  // 110.. never sent
  wire::BitmapBlock b;
  b.base_psn = 100, b.nbits = 16;  // covers 100..115
  for (uint32_t i : {1u, 2u, 4u, 8u}) b.set(i);
  r.on_bitmap_nak(s, 0, b);
  // Zero bits: 100, 103, 105, 106, 107, 109 (and 110..115, never sent: not resent).
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{100, 103, 105, 106, 107, 109}));
  EXPECT_TRUE(s.go_backs.empty());
}

TEST(OrnicRecovery, BitmapBlockAcrossThePsnWrap) {
  sender::OrnicRecovery r;
  ScriptedState s;
  s.set(0xFFFFFE, 3);  // 0xFFFFFE, 0xFFFFFF, 0, 1, 2 sent
  wire::BitmapBlock b;
  b.base_psn = 0xFFFFFE, b.nbits = 5;
  b.set(0), b.set(2), b.set(4);
  r.on_bitmap_nak(s, 0, b);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{0xFFFFFF, 1}));
}

// Every SACK asks for the first hole; what keeps it from going twice is the send state
// (queued once here; the NIC's resend holdoff, tested in test_ornic_cores).
TEST(SelectiveRepeat, OneSackResendsTheFirstHole) {
  sender::SelectiveRepeat r(4);
  ScriptedState s;
  s.set(50, 60);
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, 53));
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, 54));  // same una: already queued
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{50}));
  s.set(51, 60);  // 50 arrived; a SACK now resends 51
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kMpAck, 51, 55));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{50, 51}));
  // QPs are independent.
  ScriptedState t;
  t.set(50, 60);
  r.on_feedback(t, 1, fb(wire::SchemeFeedback::kSack, 52));
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{50}));
}

// IRN's inference: a hole below the highest SACKed PSN is lost. SACK of 15 with una 10;
// an ACK moves una to 12 (11 filled): 12 is resent at once, with no further SACK. Once
// una passes 15, nothing is inferred.
TEST(SelectiveRepeat, AnAckOntoAHoleBelowTheHighestSackResendsIt) {
  sender::SelectiveRepeat r(4);
  ScriptedState s;
  s.set(10, 20);
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, 15));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{10}));
  r.advanced(0, 10, 12);
  s.set(12, 20);
  r.on_progress(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{10, 12}));
  r.advanced(0, 12, 16);
  s.set(16, 20);
  r.on_progress(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{10, 12}));
}

// A timeout resends una and the holes the NACKs told of, never a window (with none learnt:
// una alone).
TEST(HoleList, TimeoutResendsUnaAndTheLearntHolesNotAWindow) {
  sender::HoleList r(4);
  ScriptedState tail;
  tail.set(10, 20);
  r.on_timeout(tail, 0);
  EXPECT_TRUE(tail.go_backs.empty());
  EXPECT_EQ(tail.resent, (std::vector<uint32_t>{10}));
  ScriptedState s;
  s.set(10, 30);
  wire::SchemeFeedback f = fb(wire::SchemeFeedback::kHoleNack, 15, 0, /*info=*/1);
  f.len = {1, 0, 0};
  r.on_feedback(s, 0, f);  // learns hole 15 (and resends it)
  s.resent.clear();
  r.on_timeout(s, 0);
  EXPECT_TRUE(s.go_backs.empty());
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{10, 15}));
}

// The NACK lists its holes most recent (highest) first, as MELO's receiver keeps them; the
// sender resends them lowest first, so the front hole's resend reaches the receiver before
// a higher one's (MELO takes a retransmission only at the front of its list).
TEST(HoleList, HoleNackResendsEachHoleExactlyLowestFirst) {
  sender::HoleList r;
  ScriptedState s;
  s.set(200, 230);
  wire::SchemeFeedback f = fb(wire::SchemeFeedback::kHoleNack, 220, 210, /*info=*/3);
  f.psn[2] = 203;
  f.len = {3, 1, 2};
  r.on_feedback(s, 0, f);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{203, 204, 210, 220, 221, 222}));
  // info says how many entries count: the most recent hole only.
  ScriptedState t;
  t.set(200, 230);
  f.info = 1;
  r.on_feedback(t, 0, f);
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{220, 221, 222}));
}

TEST(SenderAgentCore, HoldsTheLastPacketOfAnOooWriteUntilAllBeforeItIsAcked) {
  Stats stats;
  oonic::eunomia::SenderAgentCore a(StatGroup(stats, "tx.sender_agent"), 4, 320);
  EXPECT_TRUE(a.holds(0, /*last=*/true, /*send_psn=*/9, /*una=*/5));
  EXPECT_TRUE(a.holds(0, true, 9, 7));    // still held; counted once per packet
  EXPECT_FALSE(a.holds(0, true, 9, 9));   // everything before it acknowledged
  EXPECT_FALSE(a.holds(0, false, 8, 5));  // not a last packet
  EXPECT_EQ(stats.counter_value("tx.sender_agent.last_packet_holds"), 1u);
  // Every data packet of an OOO WQE carries Head and the last bit.
  wire::FrameSpec f;
  sender::PacketTag tg;
  tg.head = 1234, tg.last = true;
  a.tag(f, tg);
  EXPECT_NE(f.bth.resv7 & wire::kBthEunomiaMetaBit, 0);
  EXPECT_EQ(f.eunomia.head, 1234u);
  EXPECT_TRUE(f.eunomia.last);
  EXPECT_FALSE(a.rerequest_on_read_sack());
}

TEST(SenderAgentCore, SacksAreMarkedAndATimeoutResendsOnlyWhatNoSackCovers) {
  Stats stats;
  oonic::eunomia::SenderAgentCore a(StatGroup(stats, "tx.sender_agent"), 4, 320);
  EXPECT_EQ(a.ring_psns(), 512u);  // 320 rounded up to a power of two
  ScriptedState s;
  s.set(10, 16);
  for (uint32_t p : {11u, 13u, 14u}) a.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, p));
  EXPECT_TRUE(s.resent.empty());  // a SACK is information only
  EXPECT_TRUE(a.sacked(0, 13));
  a.on_timeout(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{10, 12, 15}));
  EXPECT_EQ(stats.counter_value("tx.sender_agent.timeout_resends"), 3u);
  EXPECT_EQ(stats.counter_value("tx.sender_agent.timeout_skipped"), 3u);
  // The cumulative ACK passing 11..13 clears their marks.
  a.advanced(0, 10, 14);
  EXPECT_FALSE(a.sacked(0, 11));
  EXPECT_FALSE(a.sacked(0, 13));
  EXPECT_TRUE(a.sacked(0, 14));
  // A NACK resends that PSN.
  ScriptedState t;
  t.set(14, 16);
  a.on_feedback(t, 0, fb(wire::SchemeFeedback::kNack, 15));
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{15}));
}

// IRN's two timeout levels (eunomia.sender.rto_*): RTO_low with at most N outstanding.
TEST(SenderAgentCore, TimeoutIsIrnsTwoLevels) {
  Stats stats;
  oonic::sender::IrnTimerParams irn;  // 100 us, 320 us, N = 3
  oonic::eunomia::SenderAgentCore a(StatGroup(stats, "tx.sender_agent"), 4, 320, irn);
  EXPECT_DOUBLE_EQ(a.timeout_ns(1), 100000.0);
  EXPECT_DOUBLE_EQ(a.timeout_ns(3), 100000.0);
  EXPECT_DOUBLE_EQ(a.timeout_ns(4), 320000.0);
  // The other cores leave the timeout to the NIC (0).
  sender::GoBackN g;
  EXPECT_DOUBLE_EQ(g.timeout_ns(10), 0.0);
}

// The option beyond the paper: a SACK more than the threshold past an un-SACKed PSN
// resends it, once.
TEST(SenderAgentCore, SackLossInferenceIsOffByDefaultAndResendsOncePastTheThreshold) {
  Stats stats;
  oonic::eunomia::SenderAgentCore off(StatGroup(stats, "a"), 4, 320);
  ScriptedState s;
  s.set(10, 30);
  off.on_feedback(s, 0, fb(wire::SchemeFeedback::kSack, 25));
  EXPECT_TRUE(s.resent.empty());
  oonic::sender::IrnTimerParams irn;
  irn.sack_loss_threshold = 3;
  oonic::eunomia::SenderAgentCore on(StatGroup(stats, "b"), 4, 320, irn);
  ScriptedState t;
  t.set(10, 30);
  on.on_feedback(t, 0, fb(wire::SchemeFeedback::kSack, 12));  // 12 - 10 = 2 <= 3: nothing
  EXPECT_TRUE(t.resent.empty());
  on.on_feedback(t, 0, fb(wire::SchemeFeedback::kSack, 15));  // passes 10, 11 by more than 3
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{10, 11}));       // 12 was SACKed
  on.on_feedback(t, 0, fb(wire::SchemeFeedback::kSack, 16));  // reaches 12 only (SACKed);
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{10, 11}));       // 10, 11 are not resent again
  on.on_feedback(t, 0, fb(wire::SchemeFeedback::kSack, 18));  // 13, 14 (15, 16 SACKed)
  EXPECT_EQ(t.resent, (std::vector<uint32_t>{10, 11, 13, 14}));
  EXPECT_EQ(stats.counter_value("b.sack_inferred_resends"), 4u);
}

TEST(SenderAgentCore, TimeoutOverAReadSpanGoesBackN) {
  Stats stats;
  oonic::eunomia::SenderAgentCore a(StatGroup(stats, "tx.sender_agent"), 4, 320);
  ScriptedState s;
  s.set(10, 16);
  s.reads = {12, 13};
  a.on_timeout(s, 0);
  EXPECT_TRUE(s.resent.empty());
  EXPECT_EQ(s.go_backs, (std::vector<uint32_t>{10}));
}

// A rate core that keeps a window of `w` packets (NSCC's, for UET's recovery).
class FixedWindow final : public sender::RateControl {
 public:
  explicit FixedWindow(double w) : w_(w) {}
  const char* name() const override { return "fixed"; }
  double window_packets(uint32_t) const override { return w_; }

 private:
  double w_;
};

// UET's ACK naming `psn`, the receiver's OOO count, and the PSNs below psn it holds.
wire::SchemeFeedback uet_ack(uint32_t psn, uint32_t ooo, const std::set<uint32_t>& have,
                             uint32_t epsn) {
  wire::SchemeFeedback f = fb(wire::SchemeFeedback::kUetAck, psn, ooo);
  uint64_t bits = 0;
  for (uint32_t i = 0; i < wire::kUetSackBits; ++i) {
    const uint32_t p = wire::psn_add(psn, -1 - static_cast<int64_t>(i));
    if (wire::psn_diff(p, epsn) < 0 || have.count(p)) bits |= uint64_t{1} << i;
  }
  wire::set_uet_sack_bits(f, bits);
  return f;
}

// PSNs 101..115 received but 105 (una 100).
std::set<uint32_t> sacked_but_105() {
  std::set<uint32_t> have;
  for (uint32_t p = 101; p <= 115; ++p)
    if (p != 105) have.insert(p);
  return have;
}

// SLEEK with a window of 8 packets: threshold = max(min(1.5 x 8, 320), 5) = 12. PSNs
// 100..129 sent; 100 and 105 lost, 101..115 otherwise in. An ACK with OOO count 11 does
// nothing; one with 14 enters recovery (recovery_psn 130) and resends the un-SACKed PSNs
// of [100, min(130, 100 + 8, 115)) = 100..107: 100 and 105. The SACKs count out of
// flight (14 held past una). The ACK of 100 moves una to 105: 101..104 leave the count
// (10), and the next span (108..112) is all SACKed: nothing more. Passing 130 ends it.
TEST(UetRecovery, OutOfOrderCountEntersRecoveryAndResendsWhatSacksDoNotHold) {
  Stats st;
  sender::UetRecovery r(sender::UetRecoveryParams{}, 4, 320, StatGroup(st, "t"));
  FixedWindow w(8);
  r.pair(w);
  EXPECT_EQ(r.threshold(0), 12u);
  ScriptedState s;
  s.set(100, 130);
  const std::set<uint32_t> have = sacked_but_105();
  r.on_feedback(s, 0, uet_ack(112, 11, have, 100));
  EXPECT_TRUE(s.resent.empty());
  EXPECT_FALSE(r.in_recovery(0));
  r.on_feedback(s, 0, uet_ack(115, 14, have, 100));
  EXPECT_TRUE(r.in_recovery(0));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{100, 105}));
  EXPECT_EQ(r.sacked_past_una(0), 14u);
  EXPECT_TRUE(r.sacked(0, 104));
  EXPECT_FALSE(r.sacked(0, 105));
  r.advanced(0, 100, 105);
  s.set(105, 130);
  r.on_progress(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{100, 105}));
  EXPECT_EQ(r.sacked_past_una(0), 10u);
  r.advanced(0, 105, 130);
  EXPECT_FALSE(r.in_recovery(0));
  EXPECT_EQ(r.sacked_past_una(0), 0u);
  EXPECT_EQ(st.scalar_value("t.loss_recoveries"), 1);
  EXPECT_EQ(st.scalar_value("t.recovery_resends"), 2);
}

// tx.uet.sleek false (htsim without -sleek): the same out-of-order count starts no
// episode and resends nothing; a NACK still resends its PSN, and the timeout una (and the
// holes below the highest SACKed PSN, 105 here, queued already).
TEST(UetRecovery, WithoutSleekOnlyNacksAndTheTimeoutResend) {
  Stats st;
  sender::UetRecoveryParams p;
  p.sleek = false;
  sender::UetRecovery r(p, 4, 320, StatGroup(st, "t"));
  FixedWindow w(8);
  r.pair(w);
  ScriptedState s;
  s.set(100, 130);
  const std::set<uint32_t> have = sacked_but_105();
  r.on_feedback(s, 0, uet_ack(115, 14, have, 100));
  EXPECT_FALSE(r.in_recovery(0));
  EXPECT_TRUE(s.resent.empty());
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kNack, 105));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{105}));
  r.on_timeout(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{105, 100}));  // 105 is queued already
}

// A QP whose PSNs start in the upper half of the 24-bit space (0x900000) and wrap: the
// scoreboard takes its place from the first ACK, as at PSN 100 (it once stayed at 0 and
// marked nothing: psn - 0 reads negative past 2^23).
TEST(UetRecovery, ScoreboardFollowsAQpStartingAnywhere) {
  for (const uint32_t base : {0x900000u, 0xFFFFF8u}) {
    Stats st;
    sender::UetRecovery r(sender::UetRecoveryParams{}, 4, 320, StatGroup(st, "t"));
    FixedWindow w(8);
    r.pair(w);
    ScriptedState s;
    const uint32_t una = base;
    s.set(una, wire::psn_add(una, 30));
    std::set<uint32_t> have;
    for (uint32_t k = 1; k <= 15; ++k)
      if (k != 5) have.insert(wire::psn_add(una, k));
    r.on_feedback(s, 0, uet_ack(wire::psn_add(una, 15), 14, have, una));
    EXPECT_EQ(r.sacked_past_una(0), 14u) << base;
    EXPECT_TRUE(r.sacked(0, wire::psn_add(una, 4))) << base;
    EXPECT_FALSE(r.sacked(0, wire::psn_add(una, 5))) << base;
    EXPECT_EQ(s.resent, (std::vector<uint32_t>{una, wire::psn_add(una, 5)})) << base;
  }
}

// A NACK (a trimmed packet) resends its PSN at once; the timeout resends una and every
// PSN below the highest one an ACK named that no SACK holds (0..4 here: 5..10 arrived),
// never a window; a resend asks for an ACK (AckReq).
TEST(UetRecovery, NackResendsAtOnceTimeoutResendsTheHolesAndResendsAskForAnAck) {
  Stats st;
  sender::UetRecovery r(sender::UetRecoveryParams{}, 4, 320, StatGroup(st, "t"));
  FixedWindow w(8);
  r.pair(w);
  ScriptedState s;
  s.set(0, 20);
  r.on_feedback(s, 0, uet_ack(10, 6, {5, 6, 7, 8, 9}, 0));
  EXPECT_TRUE(s.resent.empty());  // 6 < 12
  r.on_feedback(s, 0, fb(wire::SchemeFeedback::kNack, 15));
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{15}));
  r.on_timeout(s, 0);
  EXPECT_EQ(s.resent, (std::vector<uint32_t>{15, 0, 1, 2, 3, 4}));
  EXPECT_TRUE(s.go_backs.empty());
  wire::FrameSpec f;
  sender::PacketTag t;
  r.tag(f, t);
  EXPECT_FALSE(f.bth.ack_req);
  t.retx = true;
  r.tag(f, t);
  EXPECT_TRUE(f.bth.ack_req);
  EXPECT_EQ(st.scalar_value("t.nack_resends"), 1);
  EXPECT_EQ(st.scalar_value("t.timeout_resends"), 5);
  // A NACK's resend skips the NIC's holdoff under RUD, not under ROD (ordered).
  const wire::SchemeFeedback nack = fb(wire::SchemeFeedback::kNack, 15);
  EXPECT_FALSE(r.holdoff(nack));
  EXPECT_TRUE(r.holdoff(fb(wire::SchemeFeedback::kUetAck, 15)));
  sender::UetRecovery rod(sender::UetRecoveryParams{}, 4, 320, StatGroup(st, "rod"), true);
  EXPECT_TRUE(rod.holdoff(nack));
}

TEST(SenderPolicy, EveryReceiveSchemeNamesARecoveryInTheTable) {
  for (const auto& sc : oonic::ordering::schemes()) {
    SCOPED_TRACE(sc.name);
    EXPECT_NO_THROW(sender::find_recovery(sc.traits.recovery));
  }
  Stats stats;
  sender::SenderPolicy p =
      sender::make_sender_policy("hole-list", "none", StatGroup(stats, "nic0.tx"), {});
  ASSERT_TRUE(p.recovery && p.rate);
  EXPECT_STREQ(p.recovery->name(), "hole-list");
  EXPECT_STREQ(p.rate->name(), "none");
  try {
    sender::find_recovery("go-back-m");
    FAIL() << "an unknown recovery must be an error";
  } catch (const oonic::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("go-back-m"), std::string::npos) << w;
    EXPECT_NE(w.find("selective-repeat"), std::string::npos) << w;  // the choices
  }
}

}  // namespace

namespace {

// A rate row brings its own parameters: the table gets its keys through tx.*'s set,
// a copy of the NIC's params copies them (a fabric host's params are a copy with its
// own link rate), and the core built from the env reads the values set.
TEST(SenderPolicy, RateRowsOwnTheirParameters) {
  oonic::ornic::OrnicParams p;
  oonic::ParamTable t;
  p.describe(t);
  for (const sender::RateKind& k : sender::rate_kinds()) {
    const bool has = p.sender.rates.has(k.name);
    EXPECT_EQ(has, k.params != nullptr) << k.name;
  }
  ASSERT_TRUE(t.has("cc.dcqcn.g"));
  ASSERT_TRUE(t.has("cc.mprdma.delta_psns"));
  oonic::apply_override(t, "cc.dcqcn.g=0.5");
  EXPECT_EQ(p.sender.dcqcn().g, 0.5);
  oonic::ornic::OrnicParams copy = p;
  copy.sender.rates.find<sender::DcqcnParams>("dcqcn")->g = 0.25;
  EXPECT_EQ(p.sender.dcqcn().g, 0.5);  // a deep copy
  EXPECT_EQ(copy.sender.dcqcn().g, 0.25);
  sender::PolicyEnv env;
  env.rate_params = &copy.sender.rates;
  EXPECT_EQ(sender::rate_params_of<sender::DcqcnParams>(env, "dcqcn").g, 0.25);
  env.rate_params = nullptr;  // none given: the type's defaults
  EXPECT_EQ(sender::rate_params_of<sender::DcqcnParams>(env, "dcqcn").g, sender::DcqcnParams{}.g);
}

}  // namespace
