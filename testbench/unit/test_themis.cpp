// THEMIS's external-switch core (platforms/network/themis.h), without the kernel: the
// notification point's CNP and mark clearing, t_interval suppression, the reaction
// point's resubmit count against the CNPs, T_block for a given loop queue, no
// reordering. Times in ps; numbers derived by hand in the comments.
#include "platforms/network/themis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/core/stats.h"

namespace oonic::network {
namespace {

constexpr uint64_t kUs = 1000000;  // ps

struct Rig {
  Stats stats;
  ThemisParams p;
  Rig() { p.mode = "both"; }
  sender::DcqcnParams dcqcn;  // ns-3 HPCC's constants (the defaults)
  ThemisCore make() { return ThemisCore(p, dcqcn, 1000 * 1000000, StatGroup(stats, "sw.themis")); }
  uint64_t c(const char* n) { return stats.counter_value(std::string("sw.themis.") + n); }
};

ThemisCore::FlowKey flow(uint16_t sport = 7) {
  ThemisCore::FlowKey k;
  k.sender = 0x0b000101, k.receiver = 0x0b001001, k.sport = sport;
  return k;
}

TEST(ThemisCore, NpClearsTheMarkAndCnpsTheSenderOncePerInterval) {
  Rig r;
  ThemisCore t = r.make();
  bool send = false;
  uint32_t qpn = 0;
  // No ACK of the flow seen yet: its sender's QP is unknown; the mark stays.
  EXPECT_FALSE(t.on_marked_data_out(flow(), 0, &send, &qpn));
  EXPECT_FALSE(send);
  EXPECT_EQ(r.c("no_qpn"), 1u);
  t.learn_qpn(flow(), 0x123);
  // First marked packet: mark cleared, CNP to QP 0x123.
  EXPECT_TRUE(t.on_marked_data_out(flow(), 10 * kUs, &send, &qpn));
  EXPECT_TRUE(send);
  EXPECT_EQ(qpn, 0x123u);
  // 49 us later (t_interval 50 us): cleared, no CNP.
  EXPECT_TRUE(t.on_marked_data_out(flow(), 59 * kUs, &send, &qpn));
  EXPECT_FALSE(send);
  // A CNP from the far side inside the interval is dropped too; after it, forwarded.
  EXPECT_FALSE(t.forward_cnp_in(flow(), 59 * kUs));
  EXPECT_TRUE(t.forward_cnp_in(flow(), 60 * kUs));
  // The forwarded CNP restarts the interval for the switch's own CNPs.
  EXPECT_TRUE(t.on_marked_data_out(flow(), 100 * kUs, &send, &qpn));
  EXPECT_FALSE(send);
  EXPECT_TRUE(t.on_marked_data_out(flow(), 110 * kUs, &send, &qpn));
  EXPECT_TRUE(send);
  EXPECT_EQ(r.c("cnps_generated"), 2u);
  EXPECT_EQ(r.c("cnps_forwarded"), 1u);
  EXPECT_EQ(r.c("cnps_suppressed"), 3u);
  EXPECT_EQ(r.c("ce_cleared"), 4u);
  // Another flow (other source port) has its own interval.
  t.learn_qpn(flow(8), 0x200);
  EXPECT_TRUE(t.on_marked_data_out(flow(8), 111 * kUs, &send, &qpn));
  EXPECT_TRUE(send);
  EXPECT_EQ(qpn, 0x200u);
}

TEST(ThemisCore, RpBlocksAFlowByRttTimesOneOverItsDcqcnRateFractionMinusOne) {
  Rig r;
  r.p.block = "delay";
  r.p.pass_ns = 100;
  r.p.loop_gbps = 1000;  // 1 byte = 8 ps
  ThemisCore t = r.make();
  uint32_t passes = 0;
  // Not throttled: goes at once, no pass.
  EXPECT_EQ(t.release_ps(flow(), 0, 1000, &passes), 0u);
  EXPECT_EQ(passes, 0u);
  // A CNP at 0: DCQCN's first CNP keeps Rc = line (f = 1); the decrease check at 4 us
  // cuts Rc by alpha / 2 with alpha = (1 - 1/256)^4 after four alpha ticks without a
  // CNP: f = 1 - 0.984436.../2 = 0.507782...
  t.on_cnp_out(flow(), 0);
  EXPECT_DOUBLE_EQ(t.rate_fraction(flow(), 3 * kUs), 1.0);
  const double a = std::pow(255.0 / 256.0, 4);
  const double f = 1 - a / 2;
  EXPECT_NEAR(t.rate_fraction(flow(), 4 * kUs), f, 1e-9);
  // T_block = rtt x (1/f - 1), rtt 1 ms (the Rig's): 969.3... us.
  const uint64_t now = 4 * kUs;
  const uint64_t block = static_cast<uint64_t>(std::llround(1000 * kUs * (1 / f - 1)));
  EXPECT_EQ(t.release_ps(flow(), now, 1000, &passes), now + block);
  // Passes: 100 ns + 1000 B x 8 ps each (the loop was empty): ceil(block / 108,000).
  EXPECT_EQ(passes, static_cast<uint32_t>(std::ceil(block / 108000.0)));
  EXPECT_EQ(r.c("rp_cnps"), 1u);
  EXPECT_EQ(r.c("held_packets"), 1u);
  EXPECT_EQ(r.c("resubmits"), passes);
  // Another flow is not held.
  EXPECT_EQ(t.release_ps(flow(9), now, 1000, &passes), now);
  // themis.max_block_us caps T_block.
  Rig c;
  c.p.block = "delay";
  c.p.max_block_us = 100;
  ThemisCore capped = c.make();
  capped.on_cnp_out(flow(), 0);
  EXPECT_EQ(capped.release_ps(flow(), now, 1000, &passes), now + 100 * kUs);
}

TEST(ThemisCore, AFlowsReleasesNeverGoBackSoNothingIsReordered) {
  Rig r;
  r.p.block = "delay";
  ThemisCore t = r.make();
  uint32_t passes = 0;
  t.on_cnp_out(flow(), 0);
  const uint64_t a = t.release_ps(flow(), 4 * kUs, 1000, &passes);
  EXPECT_GT(a, 4 * kUs);
  // Much later DCQCN has recovered (f back near 1: a short block), but the packet may
  // not leave before the one still looping.
  uint64_t prev = a;
  for (uint64_t now = 5 * kUs; now < 5 * kUs + 50; ++now) {
    const uint64_t x = t.release_ps(flow(), now, 64, &passes);
    EXPECT_GE(x, prev);
    prev = x;
  }
}

// themis.block rate (the default): after the flow's first CNP its inbound packets wait
// in the flow's queue and leave one at a time, each after the one before it by that
// one's bytes at the flow's DCQCN rate Rc when it left: the flow enters the DC at Rc, in
// order, and a rate that recovers drains the queue faster. Rc at 4 us is 100 Gbit/s x f,
// f = 1 - (255/256)^4 / 2 (the decrease above); 1000 B then take 8,000 / (100 f) ns.
TEST(ThemisCore, RpRateBlockPacesAFlowAtItsDcqcnRateInOrder) {
  Rig r;
  r.p.pass_ns = 100;
  r.p.loop_gbps = 1000;  // 1 byte = 8 ps on the loop
  ThemisCore t = r.make();
  using H = ThemisCore::Hold;
  uint64_t wake = 0;
  uint32_t fl = 99, id = 0, early = 0;
  // Never throttled: every packet goes at once, even back to back.
  EXPECT_EQ(t.hold(flow(), 0, 1000, 1, &wake, &fl, &early), H::kPass);
  EXPECT_EQ(t.hold(flow(), 0, 1000, 2, &wake, &fl, &early), H::kPass);
  t.on_cnp_out(flow(), 0);
  const double f = 1 - std::pow(255.0 / 256.0, 4) / 2;
  const uint64_t now = 4 * kUs;
  const uint64_t ser = static_cast<uint64_t>(std::llround(1000 * 8.0 * 1000.0 / (100 * f)));
  // The first finds the flow free: it goes now and books the next slot, now + ser.
  EXPECT_EQ(t.hold(flow(), now, 1000, 3, &wake, &fl, &early), H::kPass);
  // Two more at the same instant wait: the first of them wakes the flow at now + ser.
  EXPECT_EQ(t.hold(flow(), now, 1000, 4, &wake, &fl, &early), H::kHeld);
  EXPECT_EQ(wake, now + ser);
  const uint32_t index = fl;
  EXPECT_EQ(t.hold(flow(), now, 1000, 5, &wake, &fl, &early), H::kHeld);
  EXPECT_EQ(wake, ThemisCore::kNoWake);  // the flow is already waiting
  EXPECT_EQ(r.c("held_packets"), 2u);
  EXPECT_EQ(r.c("held_peak_bytes"), 2000u);
  // Another flow of the same hosts (other source port) is not held.
  EXPECT_EQ(t.hold(flow(9), now, 1000, 6, &wake, &fl, &early), H::kPass);
  // The head leaves at now + ser; the next slot is ser later (Rc has not moved).
  ASSERT_TRUE(t.release_head(index, now + ser, &id, &wake));
  EXPECT_EQ(id, 4u);
  EXPECT_EQ(wake, now + 2 * ser);
  // Passes while it waited: ser / (100 ns + the 2000 B looping x 8 ps), rounded up.
  EXPECT_EQ(r.c("resubmits"), static_cast<uint64_t>(std::ceil(ser / 116000.0)));
  // Much later (1 ms: DCQCN's fast recovery, Rc = (Rc + Rt) / 2, has run once) the last
  // one leaves; the flow's next slot is its bytes at the recovered rate.
  const uint64_t late = 1000 * kUs;
  const double fr = t.rate_fraction(flow(), late);
  EXPECT_GT(fr, f);
  ASSERT_TRUE(t.release_head(index, late, &id, &wake));
  EXPECT_EQ(id, 5u);
  EXPECT_EQ(wake, ThemisCore::kNoWake);
  EXPECT_FALSE(t.release_head(index, late, &id, &wake));
  // A packet after the recovered slot passes; one inside it waits for it.
  const uint64_t slot = static_cast<uint64_t>(std::llround(1000 * 8.0 * 1000.0 / (100 * fr)));
  EXPECT_EQ(t.hold(flow(), late + 1, 1000, 7, &wake, &fl, &early), H::kHeld);
  EXPECT_EQ(wake, late + slot);
}

// The bytes held at once are bounded (themis.max_held_bytes): a packet that would pass
// the bound makes its flow's oldest held packet leave now (order kept), or passes itself
// when its flow holds none; counted as held_overflow.
TEST(ThemisCore, RpRateBlockLetsTheOldestGoWhenTheHeldBoundIsReached) {
  Rig r;
  r.p.max_held_bytes = 1500;
  ThemisCore t = r.make();
  using H = ThemisCore::Hold;
  uint64_t wake = 0;
  uint32_t fl = 0, id = 0, early = 0;
  t.on_cnp_out(flow(), 0);
  t.on_cnp_out(flow(9), 0);
  const uint64_t now = 4 * kUs;
  EXPECT_EQ(t.hold(flow(), now, 1000, 1, &wake, &fl, &early), H::kPass);
  EXPECT_EQ(t.hold(flow(), now, 1000, 2, &wake, &fl, &early), H::kHeld);  // 1000 B held
  const uint64_t due = wake;
  const uint32_t index = fl;
  EXPECT_EQ(early, ThemisCore::kNoId);
  // 2000 > 1500: packet 2 leaves now, packet 3 waits in its place (the flow's wake kept).
  EXPECT_EQ(t.hold(flow(), now, 1000, 3, &wake, &fl, &early), H::kHeld);
  EXPECT_EQ(early, 2u);
  EXPECT_EQ(wake, ThemisCore::kNoWake);
  // Another flow, holding nothing, finds the loop full: its packet passes (its first went
  // at once and booked its pacing slot).
  EXPECT_EQ(t.hold(flow(9), now, 1000, 4, &wake, &fl, &early), H::kPass);
  EXPECT_EQ(t.hold(flow(9), now, 1000, 5, &wake, &fl, &early), H::kPass);
  EXPECT_EQ(r.c("held_overflow"), 2u);
  EXPECT_EQ(r.c("held_peak_bytes"), 1000u);
  ASSERT_TRUE(t.release_head(index, due, &id, &wake));
  EXPECT_EQ(id, 3u);
}

// np_key host_pair (the artefact): t_interval counts per host pair, so a second flow
// between the same two hosts gets no CNP of its own inside the interval; per flow (the
// default) it does.
TEST(ThemisCore, NpHostPairKeyShareOneIntervalBetweenTwoHosts) {
  for (const char* key : {"flow", "host_pair"}) {
    SCOPED_TRACE(key);
    Rig r;
    r.p.np_key = key;
    ThemisCore t = r.make();
    t.learn_qpn(flow(7), 0x10);
    t.learn_qpn(flow(8), 0x20);
    bool send = false;
    uint32_t qpn = 0;
    EXPECT_TRUE(t.on_marked_data_out(flow(7), 10 * kUs, &send, &qpn));
    EXPECT_TRUE(send);
    EXPECT_TRUE(t.on_marked_data_out(flow(8), 11 * kUs, &send, &qpn));
    EXPECT_EQ(send, std::string(key) == "flow");
    // After the interval (50 us) the pair may have its next CNP.
    EXPECT_TRUE(t.on_marked_data_out(flow(8), 61 * kUs, &send, &qpn));
    EXPECT_TRUE(send);
    EXPECT_EQ(qpn, 0x20u);
  }
}

// themis.preset artefact sets the np's keys (and the NICs' CNP interval) it was not given.
TEST(ThemisParams, ArtefactPresetSetsTheNpKeysLeftUnset) {
  ThemisParams p;
  double cnp_interval_us = 50;
  ParamTable t;
  p.describe(t);
  t.add("cc.cnp_interval_us", &cnp_interval_us, "us", "the NICs' CNP interval", 0, 1e6);
  t.set("themis.preset", "artefact", "test");
  t.set("themis.t_interval_us", "9", "test");  // set explicitly: kept
  t.apply_presets();
  EXPECT_EQ(p.np_scope, "all");
  EXPECT_EQ(p.np_key, "host_pair");
  EXPECT_DOUBLE_EQ(p.t_interval_us, 9);
  EXPECT_DOUBLE_EQ(cnp_interval_us, 5);
  ThemisParams q;
  ParamTable u;
  q.describe(u);
  u.apply_presets();  // paper: the defaults stay
  EXPECT_EQ(q.np_scope, "wan");
  EXPECT_EQ(q.np_key, "flow");
  EXPECT_DOUBLE_EQ(q.t_interval_us, 50);
}

TEST(ThemisCore, LoopBlockPassesShareOneFifoLoopAndGrowWithCnps) {
  Rig r;
  r.p.block = "loop";
  r.p.step = 2;
  r.p.pass_ns = 100;
  r.p.loop_gbps = 1000;  // 1 byte = 8 ps on the loop
  ThemisCore t = r.make();
  uint32_t passes = 0;
  t.on_cnp_out(flow(), 0);  // n = 1
  // A: one pass from 0: 1000 B on the loop (8,000 ps) + 100 ns = 108,000.
  EXPECT_EQ(t.release_ps(flow(), 0, 1000, &passes), 108000u);
  EXPECT_EQ(passes, 1u);
  // B, at 0 too: the loop is busy until 8,000, so 116,000; but it may not leave before
  // A plus its own time at 100 Gbit/s (80,000 ps): 188,000.
  EXPECT_EQ(t.release_ps(flow(), 0, 1000, &passes), 188000u);
  // Two more CNPs (step 2): n = 2, step 3.
  t.on_cnp_out(flow(), 10);
  t.on_cnp_out(flow(), 20);
  // C at 200,000: two passes, each 8,000 + 100,000 ps: 416,000.
  EXPECT_EQ(t.release_ps(flow(), 200000, 1000, &passes), 416000u);
  EXPECT_EQ(passes, 2u);
  // 500 us without a CNP: one pass fewer; 1,000 us: none (not held).
  EXPECT_EQ(t.release_ps(flow(), 20 + 500 * kUs, 1000, &passes), 20 + 500 * kUs + 108000u);
  EXPECT_EQ(passes, 1u);
  EXPECT_EQ(t.release_ps(flow(), 20 + 1500 * kUs, 1000, &passes), 20 + 1500 * kUs);
  EXPECT_EQ(passes, 0u);
  EXPECT_EQ(r.c("resubmits"), 5u);
}

}  // namespace
}  // namespace oonic::network
