// UET's entropy value choice (model/uet/entropy_core.h), without the kernel.
#include "model/uet/entropy_core.h"

#include <gtest/gtest.h>

#include <set>

namespace oonic::uet {
namespace {

EntropyCore make(EvMode m, uint32_t paths = 8) {
  return EntropyCore({paths, m}, make_rng(7, "ev"));
}

// Round robin visits every EV once per round; the EVs share their upper bits and
// differ in the low log2(paths) bits.
TEST(UetEntropy, RoundRobinVisitsEveryPath) {
  EntropyCore c = make(EvMode::kRoundRobin);
  std::set<uint16_t> seen;
  uint16_t upper = 0;
  for (int i = 0; i < 8; ++i) {
    const uint16_t ev = c.next();
    seen.insert(ev & 7);
    if (i == 0) upper = ev & ~7;
    EXPECT_EQ(ev & ~7, upper);
  }
  EXPECT_EQ(seen.size(), 8u);
}

// Path avoidance over 4 EVs (indexes 0..3): a NACK on EV 1 (penalty 4) and ECN on EV 2
// (1). Round 1 from index 0: 0, then 1 is skipped (first skipped: 4 -> 3) and 2 skipped
// (stays 1), so 3; then 0; then 1 skipped (3 -> 2), 2 skipped, 3; ... A timeout sets 15.
TEST(UetEntropy, AvoidSkipsPenalizedPathsAndDrainsThem) {
  EntropyCore c = make(EvMode::kAvoid, 4);
  const uint16_t e0 = c.next();  // index 0
  const uint16_t upper = e0 & ~3;
  const uint16_t e1 = upper | 1, e2 = upper | 2;
  c.on_nack(e1, false);
  c.on_ecn(e2);
  EXPECT_EQ(c.penalty(e1), 4);
  EXPECT_EQ(c.next() & 3, 3);  // 1 and 2 skipped
  EXPECT_EQ(c.penalty(e1), 3);
  EXPECT_EQ(c.penalty(e2), 1);
  EXPECT_EQ(c.skipped(), 2u);
  EXPECT_EQ(c.next() & 3, 0);
  EXPECT_EQ(c.next() & 3, 3);  // 1 (3 -> 2) and 2 skipped again
  EXPECT_EQ(c.penalty(e1), 2);
  c.on_nack(e2, true);  // trimmed at the last hop: the path was good (htsim), no penalty
  EXPECT_EQ(c.penalty(e2), 1);
  c.on_timeout(e1);
  EXPECT_EQ(c.penalty(e1), 15);
  c.on_nack(e1, false);
  EXPECT_EQ(c.penalty(e1), 15);  // capped
}

// Mixed (htsim's MIXED): EVs unmarked ACKs came back on are used again, oldest first;
// a marked ACK recycles nothing and penalizes as in avoid; with none to recycle the
// choice is avoid's round robin. Over 4 EVs: 0, 1 from the round robin; good ACKs on 1
// then 0 and a marked one on 2: next 1, then 0 (recycled), then the round robin at
// index 2, skipped (ECN penalty 1 -> 0), so 3.
TEST(UetEntropy, MixedReusesEvsThatCameBackUnmarked) {
  EntropyCore c = make(EvMode::kMixed, 4);
  const uint16_t e0 = c.next(), e1 = c.next();
  EXPECT_EQ(e0 & 3, 0);
  EXPECT_EQ(e1 & 3, 1);
  const uint16_t e2 = (e0 & ~3) | 2;
  c.on_good(e1);
  c.on_good(e0);
  c.on_ecn(e2);
  EXPECT_EQ(c.next(), e1);
  EXPECT_EQ(c.next(), e0);
  EXPECT_EQ(c.reused(), 2u);
  EXPECT_EQ(c.next() & 3, 3);
  EXPECT_EQ(c.skipped(), 1u);
  // A NACK for a packet trimmed at its last hop counts as a good ACK (htsim's PATH_GOOD):
  // mixed takes its EV again; an upstream trim's NACK penalizes it.
  const uint16_t e3 = (e0 & ~3) | 3;
  c.on_nack(e3, true);
  EXPECT_EQ(c.penalty(e3), 0);
  EXPECT_EQ(c.next(), e3);
  c.on_nack(e3, false);
  EXPECT_EQ(c.penalty(e3), 4);
  EntropyCore a = make(EvMode::kAvoid, 4);  // avoid ignores good ACKs
  const uint16_t f0 = a.next();
  a.on_good(f0);
  EXPECT_EQ(a.next() & 3, 1);
  EXPECT_EQ(a.reused(), 0u);
}

// Every EV penalized: the next is taken anyway (no stall), and the first skipped drains.
TEST(UetEntropy, AllPenalizedStillSends) {
  EntropyCore c = make(EvMode::kAvoid, 2);
  const uint16_t e = c.next();
  c.on_timeout(e);
  c.on_timeout(static_cast<uint16_t>(e ^ 1));
  c.next();
  EXPECT_EQ(c.skipped(), 2u);
  EXPECT_EQ(c.penalty(static_cast<uint16_t>(e ^ 1)), 14);  // index 1 was first skipped
}

// Oblivious spraying: random EVs, all within the set, every path used over many packets;
// the same seed gives the same sequence.
TEST(UetEntropy, ObliviousSpraysDeterministically) {
  EntropyCore a = make(EvMode::kOblivious, 16), b = make(EvMode::kOblivious, 16);
  std::set<uint16_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const uint16_t x = a.next();
    EXPECT_EQ(x, b.next());
    seen.insert(x & 15);
  }
  EXPECT_EQ(seen.size(), 16u);
}

}  // namespace
}  // namespace oonic::uet
