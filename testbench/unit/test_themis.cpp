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
  c.p.max_block_us = 100;
  ThemisCore capped = c.make();
  capped.on_cnp_out(flow(), 0);
  EXPECT_EQ(capped.release_ps(flow(), now, 1000, &passes), now + 100 * kUs);
}

TEST(ThemisCore, AFlowsReleasesNeverGoBackSoNothingIsReordered) {
  Rig r;
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
