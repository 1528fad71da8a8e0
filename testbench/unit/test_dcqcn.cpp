// DCQCN's reaction point (model/sender/dcqcn.h), without the kernel: rates
// after CNPs and timer periods against the update equations, evaluated here
// step by step. Clock 1000 MHz: one cycle is one nanosecond.
#include "model/sender/dcqcn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "model/core/stats.h"
#include "model/sram/sram.h"

namespace oonic::sender {
namespace {

constexpr double kLine = 100;  // Gbit/s
constexpr Cycle kUs = 1000;    // cycles a microsecond

struct Rig {
  Stats stats;
  DcqcnParams p;
  Dcqcn make() { return Dcqcn(p, 1000, kLine, 4, StatGroup(stats, "nic0.tx.rate")); }
};

// A fixed send state: PSNs [una, send) are in flight.
struct Flight : SendState {
  uint32_t u = 0, n = 0;
  uint32_t una(uint32_t) const override { return u; }
  uint32_t high(uint32_t) const override { return n; }
  uint32_t send_psn(uint32_t) const override { return n; }
  bool has_new(uint32_t) const override { return true; }
  bool in_write_or_send(uint32_t, uint32_t) const override { return true; }
  bool resend(uint32_t, uint32_t) override { return false; }
  void go_back(uint32_t, uint32_t) override {}
};

// cc.dcqcn.window_bytes 10240 with PMTU 1024: 10 PSNs in flight at line rate. After the
// first decrease (4 us, Rc = 100 (1 - a/2) ~ 50.8 Gbit/s) the scaled window is 10240 x
// Rc / 100 ~ 5198 bytes: 5 PSNs (5120) still fit, 6 (6144) do not. Unscaled: 10 always.
TEST(Dcqcn, WindowScalesWithTheRate) {
  Rig r;
  r.p.window_bytes = 10240;
  Dcqcn d(r.p, 1000, kLine, 4, StatGroup(r.stats, "nic0.tx.rate"), nullptr, 1024);
  Flight f;
  f.n = 9;
  EXPECT_EQ(d.send_at(0, 100, f, false), 100u);
  f.n = 10;
  EXPECT_EQ(d.send_at(0, 100, f, false), kNever);
  EXPECT_TRUE(d.on_ack(0, 100, 1));  // an ACK may open it: the QP Manager kicks the QP
  f.u = 1;
  EXPECT_EQ(d.send_at(0, 100, f, false), 100u);
  d.on_cnp(0, 0);
  const double a = std::pow(1 - 1.0 / 256, 4);
  ASSERT_DOUBLE_EQ(d.rate_gbps(0, 4 * kUs), kLine * (1 - a / 2));
  f.u = 0, f.n = 5;
  EXPECT_EQ(d.send_at(0, 4 * kUs, f, false), 4 * kUs);
  f.n = 6;
  EXPECT_EQ(d.send_at(0, 4 * kUs, f, false), kNever);
  r.p.window_scales = false;
  Dcqcn fixed(r.p, 1000, kLine, 4, StatGroup(r.stats, "nic1.tx.rate"), nullptr, 1024);
  fixed.on_cnp(0, 0);
  EXPECT_LT(fixed.rate_gbps(0, 4 * kUs), 51.0);
  f.n = 9;
  EXPECT_EQ(fixed.send_at(0, 4 * kUs, f, false), 4 * kUs);
  // No window (the default): never blocks, and ACKs kick nothing.
  r.p.window_bytes = 0;
  Dcqcn none(r.p, 1000, kLine, 4, StatGroup(r.stats, "nic2.tx.rate"), nullptr, 1024);
  f.n = 100000;
  EXPECT_EQ(none.send_at(0, 7, f, false), 7u);
  EXPECT_FALSE(none.on_ack(0, 7, 1));
}

TEST(Dcqcn, WithoutCnpTheQpRunsAtLineRateUnpaced) {
  Rig r;
  Dcqcn d = r.make();
  EXPECT_EQ(d.earliest(0, 500, 4096), 500u);
  d.sent(0, 500, 4096);
  EXPECT_EQ(d.earliest(0, 501, 4096), 501u);
  EXPECT_EQ(d.rate_gbps(0, 10 * kUs), kLine);
}

TEST(Dcqcn, OneCnpDecreasesAtTheNextCheckByAlphaOverTwo) {
  Rig r;
  Dcqcn d = r.make();
  d.on_cnp(0, 0);
  // First CNP: alpha = 1, rates unchanged (rate_on_first_cnp 1).
  EXPECT_EQ(d.alpha(0, 0), 1.0);
  EXPECT_EQ(d.rate_gbps(0, 3999), kLine);
  // Alpha ticks at 1, 2, 3, 4 us without a CNP since: alpha = (1 - g)^4; then the
  // decrease check at 4 us: Rc = 100 (1 - alpha / 2); Rt stays (no clamp, stage 0).
  const double g = 1.0 / 256;
  const double a = std::pow(1 - g, 4);
  EXPECT_DOUBLE_EQ(d.alpha(0, 4 * kUs), (1 - g) * (1 - g) * (1 - g) * (1 - g));
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 4 * kUs), kLine * (1 - a / 2));
  EXPECT_DOUBLE_EQ(d.target_gbps(0, 4 * kUs), kLine);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.rate_decreases"), 1u);
}

// The equations, cycle by cycle, for CNPs at the given cycles (the first at 0):
// at each cycle the timers tick first (alpha, decrease, increase), then a CNP
// that arrives then is noted.
struct Reference {
  double rc = kLine, rt = kLine, alpha = 1;
};
Reference reference(Cycle t, const std::vector<Cycle>& cnps, bool clamp) {
  const double g = 1.0 / 256;
  Reference r;
  bool alpha_cnp = false, dec_cnp = true, inc_on = false;
  uint32_t stage = 0;
  Cycle next_inc = 0;
  for (Cycle c = 1; c <= t; ++c) {
    if (c % kUs == 0) {
      r.alpha = alpha_cnp ? (1 - g) * r.alpha + g : (1 - g) * r.alpha;
      alpha_cnp = false;
    }
    if (c % (4 * kUs) == 0 && dec_cnp) {
      if (clamp || stage != 0) r.rt = r.rc;
      r.rc = std::max(0.1, r.rc * (1 - r.alpha / 2));
      stage = 0, dec_cnp = false, inc_on = true, next_inc = c + 900 * kUs;
    } else if (inc_on && c == next_inc) {
      if (stage == 1) r.rt = std::min(kLine, r.rt + 0.05);  // AI, F = 1
      if (stage > 1) r.rt = std::min(kLine, r.rt + 0.1);    // HAI
      r.rc = r.rc / 2 + r.rt / 2;
      ++stage, next_inc += 900 * kUs;
    }
    for (Cycle n : cnps)
      if (n == c) alpha_cnp = dec_cnp = true;
  }
  return r;
}

TEST(Dcqcn, IncreaseTimerStagesFastRecoveryThenAdditiveThenHyper) {
  for (bool clamp : {false, true}) {
    Rig r;
    r.p.clamp_target = clamp;
    Dcqcn d = r.make();
    // A second CNP at 5 us: alpha rises at the 6 us tick, a second decrease at 8 us,
    // then three increase periods: fast recovery, additive, hyper.
    // Queries advance the QP: they go in time order.
    const std::vector<Cycle> cnps{5 * kUs};
    auto check = [&](Cycle t) {
      Reference ref = reference(t, cnps, clamp);
      EXPECT_DOUBLE_EQ(d.rate_gbps(0, t), ref.rc) << t;
      EXPECT_DOUBLE_EQ(d.target_gbps(0, t), ref.rt) << t;
      EXPECT_DOUBLE_EQ(d.alpha(0, t), ref.alpha) << t;
    };
    d.on_cnp(0, 0);
    check(4 * kUs);
    d.on_cnp(0, 5 * kUs);
    check(8 * kUs);
    const double rt_after_decrease = d.target_gbps(0, 8 * kUs);
    for (Cycle t : {8 * kUs + 900 * kUs, 8 * kUs + 1800 * kUs, 8 * kUs + 2700 * kUs}) check(t);
    // With the clamp the second decrease set Rt below the line, so AI and HAI show.
    const double rt = d.target_gbps(0, 8 * kUs + 2700 * kUs);
    if (clamp) {
      EXPECT_LT(rt, kLine);
      EXPECT_NEAR(rt - rt_after_decrease, 0.15, 1e-9);  // + AI + HAI
    } else {
      EXPECT_EQ(rt, kLine);
    }
    EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.rate_decreases"), 2u);
    EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.fast_recoveries"), 1u);
    EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.additive_increases"), 1u);
    EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.hyper_increases"), 1u);
  }
}

// The byte counter (the paper's): every B bytes sent after a decrease is an increase
// event beside the timer's; with T timer and C byte events, max(T, C) < F is fast
// recovery, min(T, C) > F hyper, else additive. Every rate change is reported.
TEST(Dcqcn, ByteCounterEventsCountBesideTheTimer) {
  Rig r;
  r.p.byte_counter_bytes = 10000;
  r.p.fast_recovery_stages = 2;
  r.p.clamp_target = true;
  Dcqcn d = r.make();
  std::vector<std::pair<Cycle, double>> seen;
  d.on_rate([&](uint32_t qi, Cycle t, double g) {
    EXPECT_EQ(qi, 0u);
    seen.push_back({t, g});
  });
  d.on_cnp(0, 0);
  d.on_cnp(0, 5 * kUs);  // decreases at 4 and 8 us; the second clamps Rt below the line
  const double rc0 = d.rate_gbps(0, 8 * kUs), rt0 = d.target_gbps(0, 8 * kUs);
  ASSERT_LT(rt0, kLine);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, 4 * kUs);
  EXPECT_EQ(seen[1].first, 8 * kUs);
  EXPECT_DOUBLE_EQ(seen[1].second, rc0);
  d.sent(0, 9 * kUs, 4000);
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 9 * kUs), rc0);  // 4000 < B: no event
  d.sent(0, 10 * kUs, 6000);                       // C = 0 -> 1: fast recovery
  double rc = (rc0 + rt0) / 2, rt = rt0;
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 10 * kUs), rc);
  d.sent(0, 11 * kUs, 20000);  // two events: C = 1 (fast), C = 2 (additive: max 2 = F)
  rc = (rc + rt) / 2;
  rt += 0.05, rc = (rc + rt) / 2;
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 11 * kUs), rc);
  EXPECT_DOUBLE_EQ(d.target_gbps(0, 11 * kUs), rt);
  // The timer's first event at 908 us: T = 0, C = 3: additive (min 0 <= F).
  rt += 0.05, rc = (rc + rt) / 2;
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 908 * kUs), rc);
  EXPECT_DOUBLE_EQ(d.target_gbps(0, 908 * kUs), rt);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.fast_recoveries"), 2u);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.additive_increases"), 2u);
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen.back().first, 908 * kUs);
  EXPECT_DOUBLE_EQ(seen.back().second, rc);
}

// Per-QP state lives in cc.context: a QP's word is live from its first CNP; a CNP is a
// read and a write, a packet asked for a read and a write, a packet sent a write.
TEST(Dcqcn, StateIsCountedInTheCcContextSram) {
  Rig r;
  Sram mem("cc.context", SramParams{256, 4, "1R1W", 1}, r.stats, "nic0.sram.cc.context");
  Dcqcn d(r.p, 1000, kLine, 4, StatGroup(r.stats, "nic0.tx.rate"), &mem);
  EXPECT_EQ(d.earliest(1, 0, 1000), 0u);  // no CNP yet: no state
  EXPECT_EQ(mem.reads() + mem.writes(), 0u);
  d.on_cnp(1, 10);
  const Cycle t = d.earliest(1, 20, 1000);
  d.sent(1, t, 1000);
  EXPECT_EQ(mem.reads(), 2u);
  EXPECT_EQ(mem.writes(), 3u);
  d.on_cnp(1, 5000);
  mem.occupancy().finalize(6000);
  EXPECT_EQ(mem.occupancy().final_value(), 256);  // one word, live from the first CNP
  EXPECT_EQ(mem.occupancy().points().front(), TimeWeighted::Point(10, 256));
}

TEST(Dcqcn, TheRateNeverFallsBelowTheMinimum) {
  Rig r;
  Dcqcn d = r.make();
  for (Cycle t = 0; t < 400 * kUs; t += kUs) d.on_cnp(0, t);
  EXPECT_DOUBLE_EQ(d.rate_gbps(0, 400 * kUs), 0.1);
}

TEST(Dcqcn, PacketsArePacedAtTheCurrentRate) {
  Rig r;
  Dcqcn d = r.make();
  d.on_cnp(1, 0);
  const double rc = d.rate_gbps(1, 4 * kUs);  // after the first decrease
  ASSERT_LT(rc, kLine);
  EXPECT_EQ(d.earliest(1, 4 * kUs, 4096), 4 * kUs);
  d.sent(1, 4 * kUs, 4096);
  // (4096 + 62) B x 8 / rc ns, rounded up to a cycle.
  const Cycle gap = static_cast<Cycle>(std::ceil(4158 * 8 / rc));
  EXPECT_EQ(d.earliest(1, 4 * kUs + 1, 4096), 4 * kUs + gap);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.rate.paced_packets"), 1u);
  // Asked ahead (prefetch) without sending: each answer books its slot.
  const Cycle t2 = 4 * kUs + gap;
  EXPECT_EQ(d.earliest(1, t2, 4096), t2 + gap);
  // A packet that left late pushes the next one.
  d.sent(1, t2 + gap + 500, 4096);
  EXPECT_EQ(d.earliest(1, t2 + gap + 501, 4096), t2 + gap + 500 + gap);
  // Another QP is not affected.
  EXPECT_EQ(d.earliest(2, 4 * kUs + 1, 4096), 4 * kUs + 1);
}

}  // namespace
}  // namespace oonic::sender
