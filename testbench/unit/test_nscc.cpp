// NSCC's window core (model/sender/nscc.h), without the kernel. Every expected number is
// derived by hand in the comments: a 1000 MHz clock (a cycle is 1 ns), 100 Gbit/s, MSS
// 1000 B, network_rtt 12 us = the reference network, so a = b = 1 and target_Qdelay =
// 12 us; BDP = 150,000 B, maxwnd = 225,000 B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/core/error.h"
#include "model/core/stats.h"
#include "model/sender/nscc.h"
#include "testbench/common/fake_send_state.h"

namespace {

using oonic::StatGroup;
using oonic::Stats;
namespace sender = oonic::sender;

using State = oonic::testing::FakeSendState;

struct Rig {
  Stats stats;
  sender::NsccParams p;
  Rig() { p.network_rtt_us = 12; }
  sender::Nscc make() { return sender::Nscc(p, 1000, 100, 1000, 320, 4, StatGroup(stats, "tx")); }
};

// alpha = 4 MSS a b / target = 4000 / 12e6 B/ps; fi = 5 MSS a = 5000; eta = 0.15 MSS a =
// 150; fi_scale = 0.25 a; the first packet opens the window at maxwnd = 1.5 x 150,000.
TEST(Nscc, ConstantsScaleWithTheReferenceNetwork) {
  Rig r;
  sender::Nscc n = r.make();
  EXPECT_DOUBLE_EQ(n.alpha(), 4000.0 / 12e6);
  EXPECT_DOUBLE_EQ(n.fi(), 5000);
  EXPECT_DOUBLE_EQ(n.eta(), 150);
  EXPECT_DOUBLE_EQ(n.fi_scale(), 0.25);
  EXPECT_DOUBLE_EQ(n.target_ps(), 12e6);
  n.picked(0, 0, 0, false, 7);
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 225000);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 225000);
  // Half the RTT: the BDP and every constant scale by 1/2 (a), target too (b).
  r.p.network_rtt_us = 6;
  sender::Nscc h(r.p, 1000, 100, 1000, 320, 4, StatGroup(r.stats, "tx2"));
  EXPECT_DOUBLE_EQ(h.fi(), 2500);
  EXPECT_DOUBLE_EQ(h.alpha(), 4000.0 * 0.5 * 0.5 / 6e6);
}

TEST(Nscc, NeedsItsBaseRtt) {
  Rig r;
  r.p.network_rtt_us = 0;
  EXPECT_THROW(r.make(), oonic::Error);
}

// The window: a packet is picked while in flight + MSS <= cwnd (225 packets of 1000 B).
TEST(Nscc, WindowHoldsPacketsBeyondCwnd) {
  Rig r;
  sender::Nscc n = r.make();
  State s;
  EXPECT_EQ(n.send_at(0, 5, s, false), 5u);  // nothing sent yet
  n.picked(0, 0, 0, false, 7);
  s.send_ = 224;
  EXPECT_EQ(n.send_at(0, 5, s, false), 5u);  // 225 x 1000 = cwnd
  s.send_ = 225;
  EXPECT_EQ(n.send_at(0, 5, s, false), oonic::kNever);
}

// A recovery core that holds `n` SACKed PSNs past una (UET's scoreboard), in a
// loss-recovery episode or not.
class Sacks final : public sender::LossRecovery {
 public:
  const char* name() const override { return "sacks"; }
  uint32_t sacked_past_una(uint32_t) const override { return n; }
  bool in_loss_recovery(uint32_t) const override { return episode; }
  uint32_t n = 0;
  bool episode = false;
};

// n paired with the recovery core sk and its QP 0 opened (window 225 x 1000 B).
void open_paired(sender::Nscc& n, Sacks& sk) {
  n.pair(sk);
  n.picked(0, 0, 0, false, 7);
}

// Resends take the window as htsim's can_send_NSCC has them: outside a loss-recovery
// episode a PSN queued to go again (a NACK's) is out of the flight until it goes and
// waits for the window like new data; in an episode (SLEEK's) resends pass the window.
// 226 sent past una with 1 queued: 225 in flight, one more would make 226 > 225: kNever
// (before this rule a queued resend always passed); 2 queued: 224, it fits. In an
// episode the resend goes whatever the window; after a timeout too, until una moves.
TEST(Nscc, QueuedResendsLeaveTheFlightAndPassTheWindowOnlyInRecovery) {
  Rig r;
  sender::Nscc n = r.make();
  Sacks sk;
  State s;
  open_paired(n, sk);
  s.send_ = 226;
  s.queued_ = 1;
  EXPECT_EQ(n.send_at(0, 5, s, false), oonic::kNever);
  s.queued_ = 2;
  EXPECT_EQ(n.send_at(0, 5, s, false), 5u);
  s.send_ = 300;
  s.queued_ = 1;
  EXPECT_EQ(n.send_at(0, 5, s, false), oonic::kNever);
  sk.episode = true;
  EXPECT_EQ(n.send_at(0, 5, s, false), 5u);
  s.queued_ = 0;
  EXPECT_EQ(n.send_at(0, 5, s, false), oonic::kNever);  // new data still waits
  sk.episode = false;
  s.queued_ = 1;
  n.on_timeout(0, 10);
  EXPECT_EQ(n.send_at(0, 11, s, false), 11u);  // the timeout's resend goes
  s.una_ = 1;                                  // una moved: the window again
  EXPECT_EQ(n.send_at(0, 12, s, false), oonic::kNever);
}

// cc.nscc.init_cwnd_pkts: the first window is that many MSS (htsim's -cwnd), maxwnd
// unchanged.
TEST(Nscc, FirstWindowFromInitCwnd) {
  Rig r;
  r.p.init_cwnd_pkts = 75;
  sender::Nscc n = r.make();
  n.picked(0, 0, 0, false, 7);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 75000);
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 225000);
}

// With UET's recovery paired, SACKed PSNs leave the flight: 230 sent past una with 5
// SACKed is 225 in flight, and one more would pass cwnd (225 x 1000): kNever; with 6
// SACKed, 224 in flight: one more fits. AckReq (htsim's
// AR) goes on the packet after which the window admits no other: with 223 in flight,
// 223 + 2 > 225 is false (no AR); with 224, true.
TEST(Nscc, SackedPsnsLeaveTheFlightAndTheWindowsLastPacketAsksForAnAck) {
  Rig r;
  sender::Nscc n = r.make();
  Sacks sk;
  State s;
  open_paired(n, sk);
  s.send_ = 230;
  sk.n = 5;
  EXPECT_EQ(n.send_at(0, 5, s, false), oonic::kNever);
  sk.n = 6;
  EXPECT_EQ(n.send_at(0, 5, s, false), 5u);
  oonic::wire::FrameSpec f;
  n.tag(0, f);
  EXPECT_TRUE(f.bth.ack_req);  // 224 in flight: this packet fills the window
  sk.n = 7;
  n.send_at(0, 5, s, false);
  oonic::wire::FrameSpec g;
  n.tag(0, g);
  EXPECT_FALSE(g.bth.ack_req);  // 223: another one fits after it
}

// UET's ACK (kUetAck) counts the packets it covers, as QuickAdaptThenFairIncrease below
// shows with per-PSN ACKs. Four packets at t = 0; a UET ACK of PSN 0 (covers 1) at 13 us
// opens quick adapt's period (it ends at 37 us); a timeout at 20 us triggers it; a UET ACK
// of PSN 3 covering 3 packets at 40 us: 3 x 1000 B acknowledged < maxwnd >> 3, so cwnd =
// 3000 (one MSS if the coverage were not counted). Each UET ACK is one NSCC ACK, and an
// on_ack beside it (the cumulative ACK the same frame moved) is not counted again.
TEST(Nscc, UetAckCountsThePacketsItCovers) {
  Rig r;
  sender::Nscc n = r.make();
  State s;
  for (uint32_t psn = 0; psn < 4; ++psn) n.picked(0, 0, psn, false, 7);
  oonic::wire::SchemeFeedback fb;
  fb.type = oonic::wire::SchemeFeedback::kUetAck;
  fb.psn[0] = 0;
  fb.info = 1 << 2;
  EXPECT_TRUE(n.on_feedback(0, 13000, fb, s));
  n.on_timeout(0, 20000);
  fb.psn[0] = 3;
  fb.info = 3 << 2;
  EXPECT_TRUE(n.on_feedback(0, 40000, fb, s));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 3000);
  EXPECT_EQ(r.stats.scalar_value("tx.nscc_acks"), 2);
  n.on_ack(0, 40000, 3);  // the UET ACKs carry the update: not counted twice
  EXPECT_EQ(r.stats.scalar_value("tx.nscc_acks"), 2);
}

// Four packets at t = 0.
// ACK 1 at 13 us: delay 1 us (< target, not < 1 us: no fast increase): proportional,
//   inc = alpha x 1000 x 11e6 = 3,666,666.7; 13 us since the last adjustment (> network_rtt):
//   cwnd += inc / cwnd + eta, then clamped to maxwnd 225,000. Quick adapt's period starts:
//   it ends at 13 + 12 + 12 = 37 us.
// A timeout at 20 us triggers quick adapt.
// ACK 2 (PSNs 1, 2) at 40 us, past 37 us, 2000 B acknowledged < maxwnd >> 3 = 28,125:
//   cwnd = 2000; the rest of that ACK is skipped.
// ACK 3 (PSN 3) at 41 us: delay 29 us >= target, no ECN: fair increase, inc = 5000 x 1000;
//   28 us since the last adjustment: cwnd = 2000 + 5e6 / 2000 + 150 = 4650.
TEST(Nscc, QuickAdaptThenFairIncrease) {
  Rig r;
  sender::Nscc n = r.make();
  for (uint32_t psn = 0; psn < 4; ++psn) n.picked(0, 0, psn, false, 7);
  EXPECT_TRUE(n.on_ack(0, 13000, 1));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 225000);
  n.on_timeout(0, 20000);
  EXPECT_TRUE(n.on_ack(0, 40000, 2));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 2000);
  EXPECT_EQ(r.stats.counter_value("tx.quick_adapts"), 1u);
  EXPECT_TRUE(n.on_ack(0, 41000, 1));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 4650);
  EXPECT_FALSE(n.on_ack(0, 42000, 0));  // a duplicate moves nothing
}

// ECN (a CNP before the ACK) with the delay above target: avg_delay (weight 1 here) = 20 us
// > 12 us, so cwnd x max(1 - 0.8 x 8 / 20, 0.5) = 225,000 x 0.68 = 153,000, then + eta
// (32 us since the last adjustment) = 153,150. A second marked ACK 1 us later is within a
// base RTT of the cut: no second cut, and no adjustment (1 us, 1000 B acknowledged).
TEST(Nscc, EcnAboveTargetCutsOncePerBaseRtt) {
  Rig r;
  r.p.delay_alpha = 1;
  r.p.quick_adapt = false;
  sender::Nscc n = r.make();
  n.picked(0, 0, 0, false, 7);
  n.picked(0, 0, 1, false, 7);
  n.on_cnp(0, 31000);
  EXPECT_TRUE(n.on_ack(0, 32000, 1));
  EXPECT_DOUBLE_EQ(n.avg_delay_ps(0), 20e6);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 153150);
  n.on_cnp(0, 32500);
  EXPECT_TRUE(n.on_ack(0, 33000, 1));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 153150);
  EXPECT_EQ(r.stats.counter_value("tx.multiplicative_decreases"), 1u);
}

// A sample below the base RTT lowers it: maxwnd = 1.5 x 100 Gbit/s x 6 us = 112,500, and
// the window follows it down. A resent PSN gives no sample.
TEST(Nscc, LowerRttShrinksMaxwnd) {
  Rig r;
  r.p.quick_adapt = false;
  sender::Nscc n = r.make();
  n.picked(0, 0, 0, false, 7);
  n.picked(0, 0, 1, true, 7);  // resent: no sample
  EXPECT_TRUE(n.on_ack(0, 6000, 1));
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 112500);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 112500);
  EXPECT_TRUE(n.on_ack(0, 3000, 1));  // PSN 1: 3 us would lower it again, were it a sample
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 112500);
}

// cc.nscc.base_rtt_on_nack (htsim's update_base_rtt_on_nack): a NACK 6 us after its
// packet lowers maxwnd to 1.5 x 100 Gbit/s x 6 us = 112,500 as an ACK's sample does; the
// NACK then takes an MSS off the 225,000 window (quick adapt off), 224,000, which the new
// maxwnd bounds: 112,500. Off, the same NACK leaves maxwnd at 225,000 (cwnd 224,000).
TEST(Nscc, NackRttLowersTheBaseRttWhenAsked) {
  for (bool on : {false, true}) {
    Rig r;
    r.p.quick_adapt = false;
    r.p.base_rtt_on_nack = on;
    sender::Nscc n = r.make();
    n.picked(0, 0, 0, false, 7);
    oonic::wire::SchemeFeedback fb;
    fb.type = oonic::wire::SchemeFeedback::kNack;
    fb.info = oonic::wire::kUetNackFlag | 1;
    fb.psn = {0, 0, 0};
    State s;
    EXPECT_TRUE(n.on_feedback(0, 6000, fb, s));
    EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), on ? 112500 : 225000);
    EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), on ? 112500 : 224000);
  }
}

// The send-time ring keeps a window (320) of PSNs: an answer about PSN 0 once PSN 320 has
// gone (a late duplicate's ACK) is no RTT sample, else it would read PSN 320's time (1 ns
// before it) and hold the base RTT, and maxwnd with it, near zero (a WebSearch flow then
// crawled at one packet a round trip). PSN 1's answer, a window below, is still a sample:
// 6 us, maxwnd 112,500.
// MP-RDMA-style per-packet ACKs at 6 us, first about `stale` (no sample: maxwnd stays
// 225,000), then about `fresh`, sent at 0 (a 6 us sample: maxwnd 112,500).
void stale_then_fresh(sender::Nscc& n, uint32_t stale, uint32_t fresh) {
  oonic::wire::SchemeFeedback fb;
  fb.type = oonic::wire::SchemeFeedback::kMpAck;
  State s;
  fb.psn = {0, stale, 0};
  EXPECT_TRUE(n.on_feedback(0, 6000, fb, s));
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 225000);
  fb.psn = {0, fresh, 0};
  EXPECT_TRUE(n.on_feedback(0, 6000, fb, s));
  EXPECT_DOUBLE_EQ(n.maxwnd_bytes(0), 112500);
}

TEST(Nscc, NoRttSampleFromAPsnItsRingSlotNoLongerHolds) {
  Rig r;
  r.p.quick_adapt = false;
  sender::Nscc n = r.make();
  for (uint32_t psn = 0; psn < 320; ++psn) n.picked(0, 0, psn, false, 7);
  n.picked(0, 5999, 320, false, 7);
  stale_then_fresh(n, 0, 1);
}

// Across the PSN wrap: the ring's 320 slots do not divide 2^24 (2^24 mod 320 = 256), so
// PSN 0xFFFFFF and PSN 255, 256 apart, share slot 255. An answer about 0xFFFFFF after 255
// went (1 ns before it) is no sample; one about PSN 254, sent at 0, is (6 us: 112,500).
TEST(Nscc, NoRttSampleFromASlotAPsnAcrossTheWrapTook) {
  Rig r;
  r.p.quick_adapt = false;
  sender::Nscc n = r.make();
  for (uint32_t psn = 0xFFFFFF - 63; psn <= 0xFFFFFF; ++psn) n.picked(0, 0, psn, false, 7);
  for (uint32_t psn = 0; psn < 255; ++psn) n.picked(0, 0, psn, false, 7);
  n.picked(0, 5999, 255, false, 7);
  stale_then_fresh(n, 0xFFFFFF, 254);
}

// Spraying: rr gives each packet the next of `paths` entropy values as its source port
// (all distinct over a round, then again in the same order); off keeps the QP's port.
TEST(Nscc, SprayRoundRobinOverEntropyValues) {
  Rig r;
  sender::Nscc off = r.make();
  EXPECT_EQ(off.picked(0, 0, 0, false, 4791), 4791);
  r.p.spray = "rr";
  r.p.paths = 8;
  sender::Nscc n(r.p, 1000, 100, 1000, 320, 4, StatGroup(r.stats, "tx2"));
  std::vector<uint16_t> round;
  for (uint32_t psn = 0; psn < 8; ++psn) round.push_back(n.picked(0, 0, psn, false, 4791));
  std::vector<uint16_t> sorted = round;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());  // 8 distinct
  for (uint32_t psn = 8; psn < 16; ++psn)
    EXPECT_EQ(n.picked(0, 0, psn, false, 4791), round[psn - 8]);
  r.p.paths = 6;
  EXPECT_THROW(sender::Nscc(r.p, 1000, 100, 1000, 320, 4, StatGroup(r.stats, "tx3")), oonic::Error);
}

// Per-packet ACK frames (MP-RDMA's ACK: the packet's PSN, its entropy value, ECN):
// - an ECN-marked ACK at 13 us for PSN 0: delay 1 us < target with ECN: no change to the
//   window but eta (13 us since the last adjustment; clamped at maxwnd), and the entropy
//   value of PSN 0 is penalised, so the round robin skips it next time: PSN 4 goes out on
//   PSN 1's value;
// - a NACK (the receiver dropped PSN 2): avg_delay takes a sample of network_rtt (12 us),
//   0.0125 x 12e6 + 0.9875 x 12,500 = 162,343.75 ps, and the window loses one MSS
//   (quick adapt off here): 224,000;
// - cumulative ACKs then only kick the QP.
TEST(Nscc, PerPacketAcksEcnNackAndAvoidance) {
  Rig r;
  r.p.quick_adapt = false;
  r.p.spray = "avoid";
  r.p.paths = 4;
  sender::Nscc n = r.make();
  uint16_t ev[4];
  for (uint32_t psn = 0; psn < 4; ++psn) ev[psn] = n.picked(0, 0, psn, false, 4791);
  oonic::wire::SchemeFeedback fb;
  fb.type = oonic::wire::SchemeFeedback::kMpAck;
  fb.psn = {1, 0, 0};
  fb.vp = ev[0];
  fb.info = 1;  // ECE
  State s;
  EXPECT_TRUE(n.on_feedback(0, 13000, fb, s));
  EXPECT_DOUBLE_EQ(n.avg_delay_ps(0), 12500);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 225000);
  EXPECT_EQ(n.picked(0, 13000, 4, false, 4791), ev[1]);
  fb.type = oonic::wire::SchemeFeedback::kNack;
  fb.vp = ev[2];
  EXPECT_TRUE(n.on_feedback(0, 14000, fb, s));
  EXPECT_DOUBLE_EQ(n.avg_delay_ps(0), 162343.75);
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 224000);
  EXPECT_TRUE(n.on_ack(0, 15000, 1));
  EXPECT_DOUBLE_EQ(n.cwnd_bytes(0), 224000);
  EXPECT_EQ(r.stats.counter_value("tx.nscc_acks"), 1u);
}

}  // namespace
