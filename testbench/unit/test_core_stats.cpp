// Stats tests: counters, histograms (last bucket collects the overflow),
// time-weighted gauges fed out of cycle order (change points, peak, mean, final,
// time-weighted histogram) and the registry (duplicates, JSON dump, lookups).
#include "model/core/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "model/core/error.h"

namespace {

using oonic::Cycle;
using oonic::Stats;
using oonic::TimeWeighted;
using Points = std::vector<std::pair<Cycle, int64_t>>;

TEST(CoreStatsCounter, Increments) {
  oonic::Counter c;
  EXPECT_EQ(c.value, 0u);
  c.inc();    // 1
  c.inc(41);  // 42
  c.inc(0);   // 42
  EXPECT_EQ(c.value, 42u);
}

TEST(CoreStatsHistogram, BucketsMinMaxMean) {
  Stats s;
  // 4 buckets of width 10: [0,10) [10,20) [20,30) [30,inf).
  oonic::Histogram& h = s.histogram("lat", "cycle", "latency", 10, 4);
  ASSERT_EQ(h.buckets.size(), 4u);
  EXPECT_EQ(h.mean(), 0);  // empty
  h.add(0);                // bucket 0
  h.add(9.99);             // 9.99/10 -> bucket 0
  h.add(10);               // exactly on the edge -> bucket 1
  h.add(35);               // bucket 3
  h.add(1000);             // 100 -> clamped to the last bucket, 3
  h.add(-5);               // <= 0 -> bucket 0
  EXPECT_EQ(h.buckets, (std::vector<uint64_t>{3, 1, 0, 2}));
  EXPECT_EQ(h.count, 6u);
  // sum = 0 + 9.99 + 10 + 35 + 1000 - 5 = 1049.99; mean = 1049.99 / 6 = 174.99833...
  EXPECT_DOUBLE_EQ(h.sum, 1049.99);
  EXPECT_DOUBLE_EQ(h.mean(), 1049.99 / 6);
  EXPECT_EQ(h.min, -5);
  EXPECT_EQ(h.max, 1000);
}

TEST(CoreStatsHistogram, FirstSampleSetsMinAndMax) {
  Stats s;
  oonic::Histogram& h = s.histogram("h", "", "", 1, 0);  // 0 buckets -> 1 bucket
  ASSERT_EQ(h.buckets.size(), 1u);
  h.add(7);  // min = max = 7 (not min(0, 7))
  EXPECT_EQ(h.min, 7);
  EXPECT_EQ(h.max, 7);
  h.add(9);
  EXPECT_EQ(h.min, 7);
  EXPECT_EQ(h.max, 9);
  EXPECT_EQ(h.buckets[0], 2u);
}

TEST(CoreStatsGauge, OutOfOrderChanges) {
  TimeWeighted g;
  // Booked out of order; two changes at cycle 6.
  g.change(10, +4);
  g.change(2, +3);
  g.change(6, -1);
  g.change(6, +2);
  g.change(15, -6);
  EXPECT_FALSE(g.finalized());
  g.finalize(20);
  EXPECT_TRUE(g.finalized());
  // Sorted: 2:+3 -> 3; 6:-1,+2 -> 4; 10:+4 -> 8; 15:-6 -> 2.
  EXPECT_EQ(g.points(), (Points{{2, 3}, {6, 4}, {10, 8}, {15, 2}}));
  EXPECT_EQ(g.peak(), 8);
  EXPECT_EQ(g.final_value(), 2);
  EXPECT_EQ(g.min_value(), 0);  // the initial 0 counts
  // Area: [0,2) 0 + [2,6) 3*4=12 + [6,10) 4*4=16 + [10,15) 8*5=40 + [15,20) 2*5=10 = 78.
  // Mean = 78 / 20 = 3.9.
  EXPECT_DOUBLE_EQ(g.mean(), 3.9);
  // Histogram over [0, 8] in 4 buckets: bucket(v) = floor(v / 8 * 4) = floor(v / 2),
  // clamped to 3. v=0 for 2 cycles -> b0; v=3 for 4 -> b1; v=4 for 4 -> b2;
  // v=8 for 5 -> b4 -> b3; v=2 for 5 -> b1. Fractions of 20: {2, 9, 4, 5} / 20.
  std::vector<double> h = g.histogram(8, 4);
  ASSERT_EQ(h.size(), 4u);
  EXPECT_DOUBLE_EQ(h[0], 0.10);
  EXPECT_DOUBLE_EQ(h[1], 0.45);
  EXPECT_DOUBLE_EQ(h[2], 0.20);
  EXPECT_DOUBLE_EQ(h[3], 0.25);
}

TEST(CoreStatsGauge, NetZeroCycleInTheMiddleIsDropped) {
  TimeWeighted g;
  g.change(3, +1);
  g.change(5, +2);
  g.change(5, -2);  // cycle 5 nets to 0: value stays 1
  g.change(8, +1);
  g.finalize(10);
  EXPECT_EQ(g.points(), (Points{{3, 1}, {8, 2}}));
  EXPECT_EQ(g.final_value(), 2);
  // Area: [3,8) 1*5=5 + [8,10) 2*2=4 = 9 -> mean 0.9.
  EXPECT_DOUBLE_EQ(g.mean(), 0.9);
}

// BUG: stats.cpp:42-44 (TimeWeighted::finalize) starts the dedup with an empty list, so a net-zero
// first cycle survives as a change point equal to the initial value 0: changes 5:+2, 5:-2, 8:+1
// give points {(5,0),(8,1)}. Expected {(8,1)} ("one per cycle with a change").
TEST(CoreStatsGauge, NetZeroFirstCycleIsDropped) {
  TimeWeighted g;
  g.change(5, +2);
  g.change(5, -2);
  g.change(8, +1);
  g.finalize(10);
  EXPECT_EQ(g.points(), (Points{{8, 1}}));
}

// BUG: stats.cpp:38 (TimeWeighted::finalize) updates peak_/min_ after every individual change
// instead of once per cycle, so the order in which same-cycle changes were booked leaks into
// peak(): 1:+2, then 5:+3 and 5:-2 booked in that order give a transient 5 inside cycle 5 and
// peak() = 5, although the value (and points()) is 2 then 3 and never 5. Booked as
// 5:-2 then 5:+3 the peak is 3. Likewise min_value() becomes -2 for 5:-2, 5:+2 from 0
// although the value never leaves 0 before cycle 6.
// Expected peak 3 (max over points) and min 0 regardless of booking order.
TEST(CoreStatsGauge, PeakAndMinIgnoreTransientsWithinACycle) {
  TimeWeighted a;
  a.change(1, +2);
  a.change(5, +3);
  a.change(5, -2);
  a.finalize(10);
  EXPECT_EQ(a.points(), (Points{{1, 2}, {5, 3}}));
  EXPECT_EQ(a.peak(), 3);
  TimeWeighted b;
  b.change(5, -2);
  b.change(5, +2);
  b.change(6, +1);
  b.finalize(10);
  EXPECT_EQ(b.min_value(), 0);
}

TEST(CoreStatsGauge, MeanIsClippedAtEnd) {
  TimeWeighted g;
  g.change(4, +10);
  g.change(12, -10);  // after the end: contributes no area
  g.finalize(8);
  // Area: [4,8) 10*4 = 40 -> mean 40/8 = 5.
  EXPECT_DOUBLE_EQ(g.mean(), 5.0);
  std::vector<double> h = g.histogram(10, 2);
  // Buckets of [0,10]: v=0 for 4 cycles -> b0; v=10 for 4 -> b2 -> clamped b1.
  EXPECT_DOUBLE_EQ(h[0], 0.5);
  EXPECT_DOUBLE_EQ(h[1], 0.5);
}

TEST(CoreStatsGauge, ChangeAtZeroAndNegativeValues) {
  TimeWeighted g;
  g.change(0, +6);
  g.change(3, -9);  // -3
  g.finalize(6);
  EXPECT_EQ(g.points(), (Points{{0, 6}, {3, -3}}));
  EXPECT_EQ(g.peak(), 6);
  EXPECT_EQ(g.min_value(), -3);
  EXPECT_EQ(g.final_value(), -3);
  // Area: [0,3) 6*3=18 + [3,6) -3*3=-9 = 9 -> mean 9/6 = 1.5.
  EXPECT_DOUBLE_EQ(g.mean(), 1.5);
}

TEST(CoreStatsGauge, EmptyAndZeroLength) {
  TimeWeighted g;
  EXPECT_EQ(g.histogram(10, 3), (std::vector<double>{0, 0, 0}));  // not finalized
  g.finalize(0);
  EXPECT_TRUE(g.points().empty());
  EXPECT_EQ(g.peak(), 0);
  EXPECT_EQ(g.mean(), 0);
  EXPECT_EQ(g.final_value(), 0);
  TimeWeighted h;
  h.finalize(100);  // never changed: 0 throughout
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.histogram(4, 2), (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(h.histogram(0, 2), (std::vector<double>{0.0, 0.0}));  // top <= 0
}

TEST(CoreStatsGauge, FinalizeIsRepeatable) {
  TimeWeighted g;
  g.change(2, +4);
  g.finalize(10);
  g.change(6, -4);  // booked late
  g.finalize(10);
  EXPECT_EQ(g.points(), (Points{{2, 4}, {6, 0}}));
  // Area: [2,6) 4*4 = 16 -> mean 1.6.
  EXPECT_DOUBLE_EQ(g.mean(), 1.6);
}

template <typename F>
std::string model_error(F&& f) {
  try {
    f();
  } catch (const oonic::Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kModel);
    return e.what();
  }
  ADD_FAILURE() << "expected an oonic::Error";
  return "";
}

TEST(CoreStatsRegistry, DuplicateNamesThrowAcrossKinds) {
  Stats s;
  s.counter("nic0.rx.packets", "packet", "packets");
  EXPECT_EQ(model_error([&] { s.counter("nic0.rx.packets", "", ""); }),
            "stat 'nic0.rx.packets' registered twice");
  model_error([&] { s.gauge("nic0.rx.packets", "", ""); });
  model_error([&] { s.histogram("nic0.rx.packets", "", "", 1, 1); });
  model_error([&] { s.derived("nic0.rx.packets", "", "", [] { return 0.0; }); });
  s.gauge("g", "", "");
  model_error([&] { s.counter("g", "", ""); });
  EXPECT_EQ(s.list().size(), 2u);
}

TEST(CoreStatsRegistry, ToJsonListAndLookups) {
  Stats s;
  oonic::Counter& c = s.counter("a.count", "packet", "packets seen");
  oonic::Histogram& h = s.histogram("a.lat", "cycle", "latency", 2, 3);
  TimeWeighted& g = s.gauge("a.depth", "entry", "queue depth");
  s.derived("a.ratio", "ratio", "count / 4", [&c] { return c.value / 4.0; });
  s.derived("a.nan", "ratio", "0/0", [] { return std::nan(""); });
  s.derived("a.inf", "ratio", "1/0", [] { return std::numeric_limits<double>::infinity(); });
  // References stay valid while more stats are registered (deque storage).
  for (int i = 0; i < 100; ++i) s.counter("filler." + std::to_string(i), "", "");
  c.inc(3);
  h.add(1);  // bucket 0
  h.add(5);  // 5/2 = 2 -> bucket 2
  g.change(5, +2);
  g.change(1, +1);
  nlohmann::json j = s.to_json(10);
  EXPECT_TRUE(g.finalized());  // to_json finalizes gauges at `end`
  EXPECT_EQ(j["a.count"]["value"], 3);
  EXPECT_EQ(j["a.count"]["unit"], "packet");
  EXPECT_EQ(j["a.count"]["desc"], "packets seen");
  EXPECT_EQ(j["a.lat"]["count"], 2);
  EXPECT_DOUBLE_EQ(j["a.lat"]["mean"].get<double>(), 3.0);  // (1 + 5) / 2
  EXPECT_EQ(j["a.lat"]["min"], 1.0);
  EXPECT_EQ(j["a.lat"]["max"], 5.0);
  EXPECT_EQ(j["a.lat"]["bucket_width"], 2.0);
  EXPECT_EQ(j["a.lat"]["buckets"].get<std::vector<uint64_t>>(), (std::vector<uint64_t>{1, 0, 1}));
  // Gauge: 1 from cycle 1, 3 from cycle 5, end 10: area 1*4 + 3*5 = 19 -> mean 1.9.
  EXPECT_EQ(j["a.depth"]["peak"], 3);
  EXPECT_EQ(j["a.depth"]["final"], 3);
  EXPECT_DOUBLE_EQ(j["a.depth"]["mean"].get<double>(), 1.9);
  EXPECT_DOUBLE_EQ(j["a.ratio"]["value"].get<double>(), 0.75);  // 3 / 4
  EXPECT_EQ(j["a.nan"]["value"], 0.0);                          // non-finite -> 0
  EXPECT_EQ(j["a.inf"]["value"], 0.0);
  EXPECT_EQ(j.size(), 106u);  // 6 + 100 fillers

  std::vector<Stats::Info> l = s.list();
  ASSERT_EQ(l.size(), 106u);
  EXPECT_EQ(l[0].name, "a.count");
  EXPECT_EQ(l[0].kind, Stats::Kind::kCounter);
  EXPECT_EQ(l[1].kind, Stats::Kind::kHistogram);
  EXPECT_EQ(l[2].kind, Stats::Kind::kGauge);
  EXPECT_EQ(l[3].kind, Stats::Kind::kDerived);
  EXPECT_EQ(l[2].unit, "entry");
  EXPECT_STREQ(oonic::to_string(Stats::Kind::kCounter), "counter");
  EXPECT_STREQ(oonic::to_string(Stats::Kind::kHistogram), "histogram");
  EXPECT_STREQ(oonic::to_string(Stats::Kind::kGauge), "gauge");
  EXPECT_STREQ(oonic::to_string(Stats::Kind::kDerived), "derived");

  EXPECT_EQ(s.find_counter("a.count"), &c);
  EXPECT_EQ(s.find_counter("a.depth"), nullptr);  // a gauge, not a counter
  EXPECT_EQ(s.counter_value("a.count"), 3u);
  EXPECT_EQ(s.counter_value("absent"), 0u);
  EXPECT_EQ(s.find_gauge("a.depth"), &g);
  EXPECT_EQ(s.find_gauge("a.count"), nullptr);
}

// write_json streams what to_json().dump(2) writes, at the top level and nested
// (the fabric writes a 1,024-host registry this way). Names are chosen so the
// piecewise (path, leaf) order must equal plain string order: "a.b" against
// "a.b.c", "a-b" ('-' < '.'), "a" with no path, and text that needs escaping.
TEST(CoreStatsRegistry, WriteJsonEqualsDump) {
  auto fill = [](Stats& s) {
    s.counter("a.b", "packet", "plain").inc(7);
    s.counter("a.b.c", "byte", "deeper").inc(1);
    s.counter("a-b", "", "dash sorts before dot");
    s.counter("a", "", "no path");
    s.counter("z.q\"uote", "x", "tab\there");
    oonic::Histogram& h = s.histogram("m.lat", "cycle", "latency", 0.5, 3);
    h.add(0.25);
    h.add(9);
    TimeWeighted& g = s.gauge("m.depth", "entry", "depth");
    g.change(3, +4);
    g.change(8, -1);
    s.derived("m.ratio", "ratio", "a third", [] { return 1.0 / 3.0; });
    s.derived("m.bad", "ratio", "non-finite", [] { return std::nan(""); });
    s.gauge("m.empty", "entry", "never changed");
    s.histogram("m.none", "cycle", "no samples", 1, 2);
  };
  Stats a, b;
  fill(a);
  fill(b);
  const std::string want = a.to_json(20).dump(2);
  std::ostringstream top;
  b.write_json(top, 20, 0);
  EXPECT_EQ(top.str(), want);

  Stats c, d;
  fill(c);
  fill(d);
  nlohmann::json doc;
  doc["stats"] = c.to_json(20);
  std::ostringstream nested;
  nested << "{\n  \"stats\": ";
  d.write_json(nested, 20, 1);
  nested << "\n}";
  EXPECT_EQ(nested.str(), doc.dump(2));

  Stats e;
  std::ostringstream none;
  e.write_json(none, 0, 0);
  EXPECT_EQ(none.str(), e.to_json(0).dump(2));
}

TEST(CoreStatsRegistry, ToJsonKeepsAnEarlierFinalize) {
  Stats s;
  TimeWeighted& g = s.gauge("g", "", "");
  g.change(0, +4);
  g.finalize(4);  // mean 4 over [0,4)
  nlohmann::json j = s.to_json(8);
  EXPECT_DOUBLE_EQ(j["g"]["mean"].get<double>(), 4.0);
}

}  // namespace

namespace {

// Books `n` random changes on both gauges, in bursts booked out of order but
// never before the cycle `settled` reaches; settles one of them as it goes.
struct SettleCase {
  TimeWeighted whole, settled;
  Points taken;
  void run(uint64_t seed, int n, bool take, Cycle end_extra) {
    uint64_t x = seed;
    auto next = [&](uint64_t m) {  // xorshift: no dependence on <random>'s layout
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      return x % m;
    };
    whole.track_histogram(40, 8);
    settled.track_histogram(40, 8);
    Cycle now = 0;
    for (int i = 0; i < n; ++i) {
      now += next(3);
      Cycle t = now + next(20);  // a block books up to 20 cycles ahead
      int64_t d = static_cast<int64_t>(next(9)) - 4;
      whole.change(t, d);
      settled.change(t, d);
      if (i % 7 == 6) settled.settle(now, take ? &taken : nullptr);
    }
    Cycle end = now + end_extra;
    whole.finalize(end);
    settled.finalize(end);
  }
};

}  // namespace

// Settling behind simulated time changes no figure: the change points (those
// taken and those kept), peak, min, mean, final and the histogram are those of a
// gauge finalized once.
TEST(CoreStatsGauge, SettlingKeepsEveryFigure) {
  for (bool take : {false, true}) {
    for (Cycle extra : {Cycle{0}, Cycle{5}, Cycle{100}}) {
      SettleCase c;
      c.run(0x9e3779b97f4a7c15ull + extra, 2000, take, extra);
      Points all = c.taken;
      all.insert(all.end(), c.settled.points().begin(), c.settled.points().end());
      EXPECT_EQ(all, c.whole.points());
      EXPECT_GT(all.size(), 100u);
      if (take) {
        EXPECT_LT(c.settled.points().size(), all.size() / 4);
      }
      EXPECT_EQ(c.settled.peak(), c.whole.peak());
      EXPECT_EQ(c.settled.min_value(), c.whole.min_value());
      EXPECT_EQ(c.settled.final_value(), c.whole.final_value());
      EXPECT_EQ(c.settled.mean(), c.whole.mean());
      EXPECT_EQ(c.settled.histogram(40, 8), c.whole.histogram(40, 8));
    }
  }
}

// A gauge booked in cycle order settles without a sort; a change booked after a
// settle, before a change still pending, must still come first.
TEST(CoreStatsGauge, InOrderThenEarlierThanThePendingTail) {
  TimeWeighted g;
  g.change(10, 1), g.change(20, 1), g.change(30, -1);
  g.settle(15);
  g.change(25, 5);  // before the pending change at 30
  g.settle(100);
  g.change(120, -6);
  g.change(110, 1);  // out of order within the pending changes
  g.finalize(200);
  const std::vector<TimeWeighted::Point> want = {{10, 1}, {20, 2},  {25, 7},
                                                 {30, 6}, {110, 7}, {120, 1}};
  EXPECT_EQ(g.points(), want);
  EXPECT_EQ(g.peak(), 7);
  EXPECT_EQ(g.final_value(), 1);
}

TEST(CoreStatsGauge, SettledCyclesCannotBeBookedAgain) {
  TimeWeighted g;
  g.change(3, +1);
  g.settle(10);
  g.change(10, +1);  // at the settled cycle: fine
  EXPECT_EQ(model_error([&] { g.change(9, -1); }),
            "occupancy change booked at cycle 9, before cycle 10 whose changes were already "
            "settled");
  model_error([&] { g.finalize(9); });  // the run cannot end before what was settled
  g.finalize(12);
  EXPECT_EQ(g.points(), (Points{{3, 1}, {10, 2}}));
}

TEST(CoreStatsGauge, TakenPointsLeaveOnlyTheTrackedHistogram) {
  TimeWeighted g;
  g.track_histogram(8, 4);
  g.change(2, +4);
  g.change(6, +4);
  Points taken;
  g.settle(5, &taken);
  EXPECT_EQ(taken, (Points{{2, 4}}));
  g.finalize(10);
  EXPECT_EQ(g.points(), (Points{{6, 8}}));
  // v=0 for 2 cycles -> b0, v=4 for 4 -> b2, v=8 for 4 -> b3.
  EXPECT_EQ(g.histogram(8, 4), (std::vector<double>{0.2, 0.0, 0.4, 0.4}));
  model_error([&] { g.histogram(16, 4); });
}
