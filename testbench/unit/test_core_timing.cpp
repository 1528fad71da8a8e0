// Cycle arithmetic (CycleClock, beats), FCFS resources with stall counting and
// the per-component RNG streams.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/resource.h"
#include "model/core/rng.h"

namespace {

using oonic::Cycle;

TEST(CoreCycles, PeriodRoundsToWholePicoseconds) {
  oonic::CycleClock c;  // 250 MHz: 1e6 / 250 = 4000 ps
  EXPECT_EQ(c.mhz(), 250.0);
  EXPECT_EQ(c.period_ps(), 4000u);
  c.set_mhz(156.25);  // 1e6 / 156.25 = 6400 exactly
  EXPECT_EQ(c.period_ps(), 6400u);
  c.set_mhz(322.265625);  // 1e6 / 322.265625 = 3103.03 -> 3103
  EXPECT_EQ(c.period_ps(), 3103u);
  c.set_mhz(300);  // 3333.33 -> 3333
  EXPECT_EQ(c.period_ps(), 3333u);
  c.set_mhz(1500);  // 666.67 -> 667 (rounds up)
  EXPECT_EQ(c.period_ps(), 667u);
  c.set_mhz(400000);  // 2.5 -> 3 (half rounds up)
  EXPECT_EQ(c.period_ps(), 3u);
  EXPECT_EQ(oonic::CycleClock(100).period_ps(), 10000u);
}

TEST(CoreCycles, CeilFloorAndToPs) {
  oonic::CycleClock c(250);  // 4000 ps
  EXPECT_EQ(c.to_ps(0), 0u);
  EXPECT_EQ(c.to_ps(3), 12000u);  // 3 x 4000
  EXPECT_EQ(c.ceil_cycles(0), 0u);
  EXPECT_EQ(c.ceil_cycles(1), 1u);  // seen on the next edge
  EXPECT_EQ(c.ceil_cycles(3999), 1u);
  EXPECT_EQ(c.ceil_cycles(4000), 1u);  // exactly on an edge: that edge
  EXPECT_EQ(c.ceil_cycles(4001), 2u);
  EXPECT_EQ(c.floor_cycles(3999), 0u);
  EXPECT_EQ(c.floor_cycles(4000), 1u);
  EXPECT_EQ(c.floor_cycles(7999), 1u);
  // ceil(to_ps(n)) == floor(to_ps(n)) == n.
  for (Cycle n : {0ull, 1ull, 17ull, 1000000ull}) {
    EXPECT_EQ(c.ceil_cycles(c.to_ps(n)), n);
    EXPECT_EQ(c.floor_cycles(c.to_ps(n)), n);
  }
}

TEST(CoreCycles, Beats) {
  EXPECT_EQ(oonic::beats(0, 64), 1u);  // an empty transfer still takes a beat
  EXPECT_EQ(oonic::beats(1, 64), 1u);
  EXPECT_EQ(oonic::beats(64, 64), 1u);
  EXPECT_EQ(oonic::beats(65, 64), 2u);
  EXPECT_EQ(oonic::beats(4096, 64), 64u);
  EXPECT_EQ(oonic::beats(4097, 64), 65u);
  EXPECT_EQ(oonic::beats(1500, 1), 1500u);
}

TEST(CoreResource, FcfsInBookingOrderWithStalls) {
  oonic::Resource r;
  EXPECT_EQ(r.free_at(), 0u);
  EXPECT_EQ(r.acquire(5, 3), 5u);  // idle: granted at 5, busy 5..7, free at 8
  EXPECT_EQ(r.free_at(), 8u);
  EXPECT_EQ(r.stall_cycles(), 0u);
  EXPECT_EQ(r.acquire(6, 2), 8u);  // waits 8 - 6 = 2; busy 8..9, free at 10
  EXPECT_EQ(r.stall_cycles(), 2u);
  EXPECT_EQ(r.acquire(20, 1), 20u);  // idle again; free at 21
  EXPECT_EQ(r.stall_cycles(), 2u);
  // Booked later for an earlier cycle: still served after every earlier booking.
  EXPECT_EQ(r.acquire(2, 1), 21u);  // waits 21 - 2 = 19 -> total 21
  EXPECT_EQ(r.stall_cycles(), 21u);
  EXPECT_EQ(r.acquire(30, 0), 30u);  // zero hold: free_at stays 30
  EXPECT_EQ(r.free_at(), 30u);
  EXPECT_EQ(r.acquire(30, 1), 30u);
  EXPECT_EQ(r.busy_cycles(), 3u + 2 + 1 + 1 + 0 + 1);  // 8
  EXPECT_EQ(r.grants(), 6u);
}

TEST(CoreResource, PicosecondVariant) {
  oonic::PsResource r;
  EXPECT_EQ(r.acquire(1000, 500), 1000u);  // free at 1500
  EXPECT_EQ(r.acquire(1200, 500), 1500u);  // stall 300, free at 2000
  EXPECT_EQ(r.acquire(2500, 100), 2500u);  // free at 2600
  EXPECT_EQ(r.stall_ps(), 300u);
  EXPECT_EQ(r.busy_ps(), 1100u);  // 500 + 500 + 100
  EXPECT_EQ(r.free_at(), 2600u);
  EXPECT_EQ(r.grants(), 3u);
}

std::vector<uint64_t> draw(oonic::Rng r, int n) {
  std::vector<uint64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(r());
  return v;
}

TEST(CoreRng, StreamsDependOnSeedAndNameOnly) {
  auto a1 = draw(oonic::make_rng(42, "nic0.rx.parser"), 8);
  auto a2 = draw(oonic::make_rng(42, "nic0.rx.parser"), 8);
  EXPECT_EQ(a1, a2);                                              // same seed + name -> same stream
  EXPECT_NE(a1, draw(oonic::make_rng(42, "nic0.rx.parsec"), 8));  // one letter differs
  EXPECT_NE(a1, draw(oonic::make_rng(43, "nic0.rx.parser"), 8));  // seed differs
  EXPECT_NE(draw(oonic::make_rng(0, ""), 8), draw(oonic::make_rng(0, "a"), 8));
  // Creating other streams in between does not shift this one.
  draw(oonic::make_rng(42, "nic1.tx"), 100);
  EXPECT_EQ(draw(oonic::make_rng(42, "nic0.rx.parser"), 8), a1);
}

TEST(CoreRng, KnownVectors) {
  // SplitMix64 (Vigna): the first output from state 0 is 0xE220A8397B1DCDAF.
  EXPECT_EQ(oonic::splitmix64(0), 0xE220A8397B1DCDAFull);
  // FNV-1a 64: offset basis for "", and the published vector for "a".
  EXPECT_EQ(oonic::fnv1a(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(oonic::fnv1a("a"), 0xaf63dc4c8601ec8cull);
  // Payload pattern: byte a of splitmix64(a >> 3), little-endian within the word:
  // addresses 0..7 are the bytes of 0xE220A8397B1DCDAF from the low end.
  const uint8_t word0[8] = {0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2};
  for (uint64_t a = 0; a < 8; ++a) EXPECT_EQ(oonic::pattern_byte(a), word0[a]) << a;
  // Address 8 starts the next word: splitmix64(1), not splitmix64(0) again.
  EXPECT_EQ(oonic::pattern_byte(8), static_cast<uint8_t>(oonic::splitmix64(1)));
}

}  // namespace
