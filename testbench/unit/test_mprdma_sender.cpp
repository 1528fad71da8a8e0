// MP-RDMA's sender cores (model/sender/mprdma.h), without the kernel: the window after
// given ACK sequences, which VP each ACK clocks, pruning below snd_ool, burst control,
// the synchronise delay, restart after idle, recovery mode entry and exit, early
// retransmit, the timeout. Every number is derived by hand in the comments. Clock
// 1000 MHz (a cycle is a nanosecond), RTT 1 us = 1000 cycles.
#include "model/sender/mprdma.h"

#include <gtest/gtest.h>

#include "model/core/stats.h"
#include "model/schemes/sender_policies.h"
#include "model/sram/sram.h"

namespace oonic::sender {
namespace {

// One QP (qi 0): [una, high) sent; `more`: new data waiting.
class State final : public SendState {
 public:
  uint32_t una(uint32_t) const override { return una_; }
  uint32_t high(uint32_t) const override { return high_; }
  uint32_t send_psn(uint32_t) const override { return high_; }
  bool has_new(uint32_t) const override { return more; }
  bool in_write_or_send(uint32_t, uint32_t) const override { return true; }
  bool resend(uint32_t, uint32_t) override { return false; }
  void go_back(uint32_t, uint32_t) override {}
  uint32_t una_ = 0, high_ = 0;
  bool more = true;
};

wire::SchemeFeedback ack(uint32_t aack, uint32_t sack, uint16_t vp, bool ece = false,
                         bool retx = false) {
  wire::SchemeFeedback f;
  f.type = wire::SchemeFeedback::kMpAck;
  f.psn[0] = aack, f.psn[1] = sack, f.vp = vp;
  f.info = static_cast<uint8_t>((ece ? 1 : 0) | (retx ? 2 : 0));
  return f;
}
wire::SchemeFeedback nack(uint32_t psn) {
  wire::SchemeFeedback f;
  f.type = wire::SchemeFeedback::kNack;
  f.psn[0] = psn;
  return f;
}

struct Rig {
  Stats stats;
  MpRdmaParams p;
  State s;
  Rig() {
    p.initial_window = 4;
    p.rtt_us = 1;
    p.delta_psns = 8;
    p.probe_probability = 0;
  }
  MpRdmaWindow window() { return MpRdmaWindow(p, 1000, 40, 1024, 4, StatGroup(stats, "w")); }
  uint64_t stat(const char* name) { return stats.counter_value("w." + std::string(name)); }
  // The rsp manager's order: move una to the AACK, then tell the core.
  bool feed(MpRdmaWindow& w, Cycle t, const wire::SchemeFeedback& f) {
    if (f.type == wire::SchemeFeedback::kMpAck && wire::psn_diff(f.psn[0], s.una_) > 0) {
      w.on_ack(0, t, static_cast<uint32_t>(wire::psn_diff(f.psn[0], s.una_)));
      s.una_ = f.psn[0];
    }
    return w.on_feedback(0, t, f, s);
  }
  uint16_t send(MpRdmaWindow& w, Cycle t) {  // pick one new packet at t
    EXPECT_EQ(w.send_at(0, t, s, false), t);
    return w.picked(0, t, s.high_++, false, 100);
  }
};

bool random_vp(uint16_t vp) {
  return vp >= 49152;
}

TEST(MpRdmaWindow, InitialWindowGoesAtOnceOnRandomVpsThenAcksClockTheirOwnVp) {
  Rig r;
  MpRdmaWindow w = r.window();
  // First send: cwnd = IW = 4, four packets at once, each on a random VP.
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(random_vp(r.send(w, 0)));
  EXPECT_EQ(w.cwnd(0), 4.0);
  // awnd = 4 + 0 - (4 - 0) = 0: closed until an ACK.
  EXPECT_EQ(w.send_at(0, 10, r.s, false), kNever);
  // ACK of PSN 0 (AACK 1): inflate 0 + 1 - (1 - 0) = 0; cwnd 4 + 1/4 = 4.25;
  // awnd = 4.25 + 0 - (4 - 1) = 1.25 -> one packet on VP 50000.
  EXPECT_TRUE(r.feed(w, 100, ack(1, 0, 50000)));
  EXPECT_DOUBLE_EQ(w.cwnd(0), 4.25);
  EXPECT_EQ(w.inflate(0), 0);
  EXPECT_DOUBLE_EQ(w.awnd(0, r.s), 1.25);
  EXPECT_EQ(w.tokens(0), 1u);
  EXPECT_EQ(r.send(w, 100), 50000);
  // awnd = 4.25 - (5 - 1) = 0.25
  EXPECT_EQ(w.send_at(0, 101, r.s, false), kNever);
  // SACK 3 out of order (una stays 1): inflate 1; cwnd 4.25 + 1/4.25;
  // awnd = cwnd + 1 - 4 = 1.485... -> one packet on VP 50001.
  EXPECT_TRUE(r.feed(w, 200, ack(1, 3, 50001)));
  const double c1 = 4.25 + 1 / 4.25;
  EXPECT_DOUBLE_EQ(w.cwnd(0), c1);
  EXPECT_EQ(w.inflate(0), 1);
  // SACK 4 with ECE: inflate 2; cwnd - 1/2; awnd = c1 - 0.5 + 2 - 4 = 1.985 -> one more
  // token, VP 50002. Tokens go in ACK order; awnd lets one packet out (then 0.985).
  EXPECT_TRUE(r.feed(w, 300, ack(1, 4, 50002, /*ece=*/true)));
  EXPECT_DOUBLE_EQ(w.cwnd(0), c1 - 0.5);
  EXPECT_DOUBLE_EQ(w.awnd(0, r.s), c1 - 0.5 + 2 - 4);
  EXPECT_EQ(w.tokens(0), 2u);
  EXPECT_EQ(r.send(w, 300), 50001);
  EXPECT_EQ(w.send_at(0, 300, r.s, false), kNever);
  EXPECT_EQ(r.stat("ece_acks"), 1u);
  EXPECT_EQ(r.stat("clocked_packets"), 2u);
  // AACK jumps to 5 (PSNs 1..4 in): inflate 3 - (5 - 1) -> 0 (never below 0).
  r.feed(w, 400, ack(5, 2, 50003));
  EXPECT_EQ(w.inflate(0), 0);
}

TEST(MpRdmaWindow, AnAckMoreThanDeltaBelowTheHighestSackPrunesItsPathUnlessReTx) {
  Rig r;
  r.p.initial_window = 30;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 30; ++i) r.send(w, 0);
  r.feed(w, 10, ack(0, 20, 1));  // snd_ooh = 20, snd_ool = 12
  EXPECT_EQ(w.snd_ooh(0), 20u);
  const double c = w.cwnd(0);
  EXPECT_EQ(w.tokens(0), 1u);  // awnd = c + 1 - 30 = 1.03...: one packet on VP 1
  // SACK 11 < 12: a slow path: cwnd - 1, nothing clocked on VP 2.
  EXPECT_FALSE(r.feed(w, 20, ack(0, 11, 2)));
  EXPECT_DOUBLE_EQ(w.cwnd(0), c - 1);
  EXPECT_EQ(w.tokens(0), 1u);
  EXPECT_EQ(r.stat("pruned_acks"), 1u);
  // SACK 12 = snd_ool is not below it: a good path.
  r.feed(w, 30, ack(0, 12, 3));
  EXPECT_DOUBLE_EQ(w.cwnd(0), c - 1 + 1 / (c - 1));
  // The ACK of a retransmission (ReTx echo) counts as a good path, however low.
  const double c2 = w.cwnd(0);
  r.feed(w, 40, ack(0, 5, 4, false, /*retx=*/true));
  EXPECT_DOUBLE_EQ(w.cwnd(0), c2 + 1 / c2);
  EXPECT_EQ(r.stat("pruned_acks"), 1u);
  // delta 0: unbounded, nothing is pruned.
  Rig u;
  u.p.initial_window = 30;
  u.p.delta_psns = 0;
  MpRdmaWindow w2 = u.window();
  for (int i = 0; i < 30; ++i) u.send(w2, 0);
  u.feed(w2, 10, ack(0, 29, 1));
  u.feed(w2, 20, ack(0, 0, 2));
  EXPECT_EQ(u.stat("pruned_acks"), 0u);
}

TEST(MpRdmaWindow, BurstControlTwoPerAckTheRestByTheTimerOnRandomVps) {
  Rig r;
  r.p.initial_window = 10;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 10; ++i) r.send(w, 0);
  // One ACK moves una 0 -> 6 (earlier ACKs lost): inflate 1 - 6 -> 0; cwnd 10.1;
  // awnd = 10.1 - (10 - 6) = 6.1, but the ACK clocks only 2 packets onto its VP.
  r.feed(w, 100, ack(6, 5, 7777));
  EXPECT_EQ(w.tokens(0), 2u);
  EXPECT_EQ(r.send(w, 100), 7777);
  EXPECT_EQ(r.send(w, 100), 7777);
  // awnd 4.1 and no token: the burst timer, RTT/2 = 500 cycles from now.
  EXPECT_EQ(w.send_at(0, 110, r.s, false), 610u);
  EXPECT_EQ(w.send_at(0, 300, r.s, false), 610u);  // already armed
  EXPECT_EQ(r.stat("burst_timers"), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(random_vp(r.send(w, 610)));
  EXPECT_EQ(r.stat("burst_packets"), 4u);
  // awnd = 10.1 - (16 - 6) = 0.1: closed, and the burst is over.
  EXPECT_EQ(w.send_at(0, 611, r.s, false), kNever);
}

TEST(MpRdmaWindow, AnAckWithNothingToSendReducesTheWindow) {
  Rig r;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 4; ++i) r.send(w, 0);
  r.s.more = false;
  // cwnd 4.25, awnd 1.25 but no data: path window reduction, cwnd 3.25, nothing clocked.
  EXPECT_FALSE(r.feed(w, 100, ack(1, 0, 9)));
  EXPECT_DOUBLE_EQ(w.cwnd(0), 3.25);
  EXPECT_EQ(w.tokens(0), 0u);
  EXPECT_EQ(r.stat("window_reductions"), 1u);
}

TEST(MpRdmaWindow, SyncMessageWaitsAlphaDeltaRttOverCwnd) {
  Rig r;
  MpRdmaWindow w = r.window();
  // cwnd 4, delta 8, RTT 1000: dt = 1 x 8 x 1000 / 4 = 2000 cycles.
  EXPECT_EQ(w.sync_delay(4), 2000u);
  EXPECT_EQ(w.send_at(0, 50, r.s, /*sync_first=*/true), 2050u);
  EXPECT_EQ(w.send_at(0, 1000, r.s, true), 2050u);
  EXPECT_EQ(w.send_at(0, 2050, r.s, true), 2050u);
  w.picked(0, 2050, r.s.high_++, false, 100);
  EXPECT_EQ(r.stat("sync_delays"), 1u);
  // The next Sync message is delayed again, by the window it finds.
  EXPECT_EQ(w.send_at(0, 2060, r.s, true), 4060u);
}

TEST(MpRdmaWindow, RestartAfterIdleAndTimeoutGoBackToTheInitialWindow) {
  Rig r;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 4; ++i) r.send(w, 0);
  r.s.more = false;
  for (uint32_t i = 0; i < 4; ++i) r.feed(w, 100 + i, ack(i + 1, i, 9));
  EXPECT_LT(w.cwnd(0), 4.0);  // reduced: nothing to send
  r.s.more = true;
  // Idle 3 RTT (3000 cycles) with nothing in flight: back to IW at the next send.
  // At 3000 (3000 - 103 < 3000: no restart yet) the window has room but no ACK clocks
  // it: the burst timer, 500 cycles on.
  EXPECT_EQ(w.send_at(0, 3000, r.s, false), 3500u);
  EXPECT_LT(w.cwnd(0), 4.0);
  EXPECT_EQ(w.send_at(0, 3104, r.s, false), 3104u);
  EXPECT_EQ(w.cwnd(0), 4.0);
  EXPECT_EQ(r.stat("restarts"), 2u);
  // A timeout: cwnd = IW, every outstanding packet counts as gone, IW goes at once.
  for (int i = 0; i < 4; ++i) r.send(w, 3104);  // high 8, una 4
  EXPECT_EQ(w.send_at(0, 3105, r.s, false), kNever);
  w.on_timeout(0, 9000);
  EXPECT_EQ(w.send_at(0, 9000, r.s, false), 9000u);
  EXPECT_EQ(w.inflate(0), 4);  // snd_nxt - snd_una
  // A resend consumes window as a new packet does: inflate - 1.
  w.picked(0, 9000, 4, /*retx=*/true, 100);
  EXPECT_EQ(w.inflate(0), 3);
}

TEST(MpRdmaWindow, ANackOpensOneSlotAndClocksItOntoTheVpItEchoes) {
  Rig r;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 4; ++i) r.send(w, 0);
  // NACK (the receiver dropped a packet that came on VP 777): inflate 0 -> 1, awnd = 4 + 1
  // - 4 = 1: one packet, onto VP 777 (that path delivered); cwnd unchanged.
  wire::SchemeFeedback n = nack(0);
  n.vp = 777;
  EXPECT_TRUE(r.feed(w, 50, n));
  EXPECT_EQ(w.inflate(0), 1);
  EXPECT_EQ(w.cwnd(0), 4.0);
  EXPECT_EQ(r.send(w, 50), 777);
  EXPECT_EQ(w.send_at(0, 51, r.s, false), kNever);
}

TEST(MpRdmaWindow, WithoutMpRdmaAcksTheCumulativeAckClocksRandomVps) {
  Rig r;
  MpRdmaWindow w = r.window();
  for (int i = 0; i < 4; ++i) r.send(w, 0);
  // An ORNIC receiver's ACK of 3 PSNs: cwnd + 1/4 + 1/4.0625 + 1/4.1244...; two packets
  // (max_per_ack) onto random VPs; the third waits for the burst timer.
  EXPECT_TRUE(w.on_ack(0, 100, 3));
  r.s.una_ = 3;
  // Taken at the next send_at (no MP-RDMA ACK came with it).
  EXPECT_EQ(w.send_at(0, 100, r.s, false), 100u);
  double c = 4;
  for (int i = 0; i < 3; ++i) c += 1 / c;
  EXPECT_DOUBLE_EQ(w.cwnd(0), c);
  EXPECT_EQ(w.tokens(0), 2u);
  EXPECT_TRUE(random_vp(w.picked(0, 100, r.s.high_++, false, 100)));
  EXPECT_TRUE(random_vp(r.send(w, 100)));
  EXPECT_EQ(w.send_at(0, 100, r.s, false), 600u);  // awnd = c - (6 - 3) = 1.2: burst timer
  // A CNP (these receivers' congestion signal): cwnd - 1/2.
  w.on_cnp(0, 200);
  EXPECT_DOUBLE_EQ(w.cwnd(0), c - 0.5);
  // Once an MP-RDMA ACK came, the cumulative ACK no longer clocks and CNPs are ignored.
  r.feed(w, 300, ack(4, 3, 5));
  const double c2 = w.cwnd(0);
  w.on_ack(0, 310, 1);
  w.on_cnp(0, 320);
  EXPECT_EQ(w.cwnd(0), c2);
}

TEST(MpRdmaRecovery, NackEntersRecoveryResendsFromTheNackedPsnAndExitsPastRecovery) {
  Stats stats;
  MpRdmaParams p;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 10, s.high_ = 30;
  EXPECT_FALSE(rc.has_resend(s, 0));  // more = true: no early retransmit
  rc.on_feedback(s, 0, nack(12));
  EXPECT_TRUE(rc.in_recovery(0));
  EXPECT_EQ(rc.recovery_point(0), 30u);
  uint32_t psn = 0;
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 12u);
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 13u);
  // Another NACK inside the mode changes nothing.
  rc.on_feedback(s, 0, nack(12));
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 14u);
  // snd_una moves to 20: resends go on from max(snd_retx, snd_una).
  s.una_ = 20;
  rc.advanced(0, 10, 20);
  EXPECT_TRUE(rc.in_recovery(0));
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 20u);
  // snd_una passes recovery (30): the mode ends.
  s.una_ = 30, s.high_ = 40;
  rc.advanced(0, 20, 30);
  EXPECT_FALSE(rc.in_recovery(0));
  EXPECT_FALSE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(stats.counter_value("r.recoveries"), 1u);
  EXPECT_EQ(stats.counter_value("r.recovery_exits"), 1u);
  EXPECT_EQ(stats.counter_value("r.recovery_resends"), 4u);
}

// The SACK record: recovery mode skips what an ACK already SACKed (12 lost, 13 and 15
// SACKed: the span resends 12, 14, 16, ...), and recovery_hold_psns holds new data past
// snd_una + it while the mode is on.
TEST(MpRdmaRecovery, RecoverySkipsSackedPsnsAndCanHoldNewData) {
  Stats stats;
  MpRdmaParams p;
  p.recovery_hold_psns = 8;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 10, s.high_ = 20;
  EXPECT_FALSE(rc.holds(0, false, 25, 10));  // not in recovery: no hold
  rc.on_feedback(s, 0, ack(12, 13, 5));
  rc.on_feedback(s, 0, ack(12, 15, 5));
  rc.on_feedback(s, 0, nack(12));
  uint32_t psn = 0;
  std::vector<uint32_t> sent;
  for (int i = 0; i < 4 && rc.next_resend(s, 0, &psn); ++i) sent.push_back(psn);
  EXPECT_EQ(sent, (std::vector<uint32_t>{12, 14, 16, 17}));
  EXPECT_EQ(stats.counter_value("r.sacked_skips"), 2u);
  EXPECT_FALSE(rc.holds(0, false, 17, 10));  // 17 - 10 < 8
  EXPECT_TRUE(rc.holds(0, false, 18, 10));   // 18 - 10 >= 8
  MpRdmaParams q;                            // sack_skip off: the whole span again
  q.sack_skip = false;
  MpRdmaRecovery all(q, 4, StatGroup(stats, "a"));
  State t;
  t.una_ = 10, t.high_ = 20;
  all.on_feedback(t, 0, ack(12, 13, 5));
  all.on_feedback(t, 0, nack(12));
  ASSERT_TRUE(all.next_resend(t, 0, &psn));
  EXPECT_EQ(psn, 12u);
  ASSERT_TRUE(all.next_resend(t, 0, &psn));
  EXPECT_EQ(psn, 13u);
}

// The SACK record covers [snd_una, snd_una + 256): a SACK of 15 (bit 15) says nothing of
// PSN 271, which maps onto the same bit.
TEST(MpRdmaRecovery, TheSackRecordSaysNothingPast256PsnsFromSndUna) {
  Stats stats;
  MpRdmaParams p;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 10, s.high_ = 400;
  rc.on_feedback(s, 0, ack(10, 15, 5));
  rc.on_feedback(s, 0, nack(270));
  uint32_t psn = 0;
  std::vector<uint32_t> sent;
  for (int i = 0; i < 3 && rc.next_resend(s, 0, &psn); ++i) sent.push_back(psn);
  EXPECT_EQ(sent, (std::vector<uint32_t>{270, 271, 272}));
}

TEST(MpRdmaRecovery, ANackBelowSndRetxAfterTheSpanWasResentStartsTheModeAgain) {
  Stats stats;
  MpRdmaParams p;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 0, s.high_ = 3;
  rc.on_feedback(s, 0, nack(1));
  uint32_t psn = 0;
  while (rc.next_resend(s, 0, &psn)) {
  }
  EXPECT_EQ(psn, 2u);  // resent 1, 2
  s.high_ = 8;
  rc.on_feedback(s, 0, nack(1));  // the resend of 1 was lost too
  EXPECT_EQ(rc.recovery_point(0), 8u);
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 1u);
  EXPECT_EQ(stats.counter_value("r.recoveries"), 2u);
}

TEST(MpRdmaRecovery, TheNackedPsnIsSentAgainWhenNacksStillNameItAfterRenackFrames) {
  Stats stats;
  MpRdmaParams p;
  p.renack_frames = 3;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  class Queueing final : public SendState {
   public:
    uint32_t una(uint32_t) const override { return 10; }
    uint32_t high(uint32_t) const override { return 50; }
    uint32_t send_psn(uint32_t) const override { return 50; }
    bool has_new(uint32_t) const override { return true; }
    bool in_write_or_send(uint32_t, uint32_t) const override { return true; }
    bool resend(uint32_t, uint32_t psn) override {
      queued.push_back(psn);
      return true;
    }
    void go_back(uint32_t, uint32_t) override {}
    std::vector<uint32_t> queued;
  } s;
  rc.on_feedback(s, 0, nack(10));
  uint32_t psn = 0;
  ASSERT_TRUE(rc.next_resend(s, 0, &psn));
  EXPECT_EQ(psn, 10u);                   // the lost PSN, then the span goes on
  rc.on_feedback(s, 0, ack(10, 30, 1));  // frame 1 since
  rc.on_feedback(s, 0, nack(10));        // 2: too soon
  EXPECT_TRUE(s.queued.empty());
  rc.on_feedback(s, 0, nack(10));  // 3: the resend of 10 was lost too
  EXPECT_EQ(s.queued, (std::vector<uint32_t>{10}));
  EXPECT_EQ(stats.counter_value("r.lost_resends"), 1u);
  rc.on_feedback(s, 0, nack(10));  // counting starts again
  EXPECT_EQ(s.queued.size(), 1u);
}

TEST(MpRdmaRecovery, EarlyRetransmitResendsUnackedPsnsBelowTheHighestSackOnce) {
  Stats stats;
  MpRdmaParams p;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 20, s.high_ = 30;
  rc.on_feedback(s, 0, ack(20, 25, 1));  // snd_ooh 25
  uint32_t psn = 0;
  EXPECT_FALSE(rc.next_resend(s, 0, &psn));  // new data waits: no early retransmit
  s.more = false;
  std::vector<uint32_t> got;
  while (rc.next_resend(s, 0, &psn)) got.push_back(psn);
  EXPECT_EQ(got, (std::vector<uint32_t>{20, 21, 22, 23, 24}));  // 25 and up: in flight
  EXPECT_FALSE(rc.has_resend(s, 0));
  p.early_retransmit = false;
  MpRdmaRecovery off(p, 4, StatGroup(stats, "off"));
  off.on_feedback(s, 0, ack(20, 25, 1));
  EXPECT_FALSE(off.next_resend(s, 0, &psn));
}

TEST(MpRdmaRecovery, TimeoutResendsFromUnaAndEveryDataPacketIsTagged) {
  Stats stats;
  MpRdmaParams p;
  MpRdmaRecovery rc(p, 4, StatGroup(stats, "r"));
  State s;
  s.una_ = 5, s.high_ = 9;
  rc.on_timeout(s, 0);
  uint32_t psn = 0;
  std::vector<uint32_t> got;
  while (rc.next_resend(s, 0, &psn)) got.push_back(psn);
  EXPECT_EQ(got, (std::vector<uint32_t>{5, 6, 7, 8}));
  wire::FrameSpec f;
  f.bth.opcode = wire::kOooWriteSpot;
  PacketTag t;
  t.head = 0x1000005, t.last = true, t.retx = true, t.sync = true, t.msn = 7;
  rc.tag(f, t);
  EXPECT_TRUE(f.bth.resv7 & wire::kBthMpRdmaMetaBit);
  EXPECT_TRUE(f.mprdma.retx);
  EXPECT_TRUE(f.mprdma.sync);
  EXPECT_EQ(f.mprdma.ipsn, 5u);  // 24 bits
  EXPECT_EQ(f.mprdma.msn, 7u);
}

TEST(MpRdmaWindow, InitialWindowDefaultsToOneBdp) {
  Rig r;
  r.p.initial_window = 0;
  r.p.rtt_us = 12;
  // 40 Gbit/s x 12 us = 60000 B; / (1024 + 62) B = 55.2 -> 55 packets.
  EXPECT_EQ(r.window().initial_window(), 55u);
}

TEST(MpRdmaPolicy, TheSchemeTakesBothMpRdmaCoresAndTheirStateIsInCcContext) {
  Stats stats;
  SramParams sp{kMpRdmaStateBits, 4, "1R1W", 1};
  Sram mem("cc.context", sp, stats, "s");
  PolicyEnv env;
  env.max_qps = 4;
  env.cc_context = &mem;
  SenderPolicy pol = make_sender_policy("mprdma", "mprdma", StatGroup(stats, "nic0.tx"), env);
  EXPECT_STREQ(pol.recovery->name(), "mprdma");
  EXPECT_STREQ(pol.rate->name(), "mprdma");
  EXPECT_TRUE(find_rate("mprdma").context);
  State s;
  pol.rate->send_at(0, 0, s, false);
  mem.occupancy().finalize(10);
  EXPECT_EQ(mem.occupancy().final_value(), kMpRdmaStateBits);
  EXPECT_EQ(mem.reads(), 1u);
  EXPECT_EQ(kMpRdmaStateBits, 647u);
}

}  // namespace
}  // namespace oonic::sender
