// The Verilated bitmap RTL behind the ordering seam (model/ordering/rtl_bitmap.h),
// without the SystemC kernel: seeded random operations (open, receive near and far
// from ePSN, close, reopen) on several QPs and small geometries that reach every path
// (duplicates, OTD NAKs, beyond the window, pool exhaustion, multi-word blocks); the
// lockstep core must never differ and both must keep their invariants. The planted-bug
// library must differ, first on a call that frees a block.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/ordering/rtl_bitmap.h"

namespace {

using oonic::ordering::OrnicBitmap;
using oonic::ordering::RtlOrnicBitmap;
using oonic::ordering::Verdict;

std::string lib(const char* name) {
  return std::string(OONIC_BINARY_DIR) + "/" + name;
}

RtlOrnicBitmap::Params Make(uint32_t m, uint32_t n, uint32_t pool, uint32_t qps, const char* l,
                            uint32_t renak = 0) {
  RtlOrnicBitmap::Params p;
  p.geometry = OrnicBitmap::Params{m, n, pool, qps, renak};
  p.library = lib(l);
  p.check = true;
  return p;
}

// Runs `calls` random operations; returns how many of each verdict were seen.
std::array<int, 8> Drive(RtlOrnicBitmap& u, uint32_t m, uint32_t n, uint32_t qps, uint32_t seed,
                         int calls, bool check_invariants) {
  std::mt19937 rng(seed);
  std::array<int, 8> seen{};
  std::vector<uint32_t> next(qps, 0);  // a sender's next new PSN per QP
  for (uint32_t q = 0; q < qps; ++q) {
    const uint32_t start = (rng() % 2) ? 0xFFFFF0u : rng() & 0xFFFFFFu;  // some wrap 2^24
    u.open(q, start, 1 + rng() % (m * n));
    next[q] = start;
  }
  for (int i = 0; i < calls; ++i) {
    const uint32_t q = rng() % qps;
    const uint32_t r = rng() % 100;
    if (r == 0) {  // close and reopen
      u.close(q);
      next[q] = rng() & 0xFFFFFFu;
      u.open(q, next[q], 1 + rng() % (m * n));
      continue;
    }
    const uint32_t e = u.epsn(q);
    uint32_t psn;
    if (r < 60)
      psn = (e + rng() % (m * n + m)) & 0xFFFFFFu;  // in the window, or just past it
    else if (r < 75)
      psn = e;  // in order
    else if (r < 85)
      psn = (e - 1 - rng() % 8) & 0xFFFFFFu;  // below ePSN
    else
      psn = (e + rng() % (4 * m * n)) & 0xFFFFFFu;  // far ahead
    const auto out = u.receive(q, psn);
    ++seen[static_cast<size_t>(out.verdict)];
    if (out.nak) ++seen[7];
    EXPECT_EQ(u.mismatches(), 0u) << "call " << i << ": " << u.first_mismatch()->what;
    if (u.mismatches()) return seen;
    if (check_invariants && i % 64 == 0) {
      std::string why;
      EXPECT_TRUE(u.check_invariants(&why)) << why;
      if (!why.empty()) return seen;
    }
  }
  return seen;
}

TEST(RtlBitmap, RandomOperationsMatchTheCore) {
  struct G {
    uint32_t m, n, pool, qps, renak;  // renak: bitmap.renak_psns (0: NAK once per ePSN)
  };
  for (const G& g :
       {G{16, 20, 4096, 8, 64}, G{4, 6, 10, 4, 0}, G{1, 40, 24, 3, 5}, G{33, 5, 12, 4, 0},
        G{512, 3, 6, 2, 100}, G{64, 2, 3, 5, 1}, G{16, 20, 4096, 8, 0}}) {
    RtlOrnicBitmap u(Make(g.m, g.n, g.pool, g.qps, "liboonic_rtl_ornic_bitmap.so", g.renak));
    auto seen = Drive(u, g.m, g.n, g.qps, 7 + g.m, 20000, true);
    SCOPED_TRACE("M " + std::to_string(g.m) + " N " + std::to_string(g.n));
    EXPECT_EQ(u.mismatches(), 0u);
    EXPECT_EQ(u.calls(), static_cast<uint64_t>(seen[0] + seen[1] + seen[2] + seen[3] + seen[4] +
                                               seen[5] + seen[6]));
    EXPECT_GT(seen[static_cast<size_t>(Verdict::kInOrder)], 0);
    EXPECT_GT(seen[static_cast<size_t>(Verdict::kOutOfOrder)], 0);
    EXPECT_GT(seen[static_cast<size_t>(Verdict::kDuplicate)], 0);
    EXPECT_GT(seen[static_cast<size_t>(Verdict::kBeyondWindow)], 0);
    EXPECT_GT(seen[7], 0);                  // NAKs
    if (g.m > 1 && g.pool < g.qps * g.n) {  // M = 1: a block is freed as it is taken
      EXPECT_GT(seen[static_cast<size_t>(Verdict::kPoolExhausted)], 0);
    }
  }
}

// A long head scan: M = 1, N = 300. PSNs 1..200 each fill (and free) their node at once,
// leaving 200 all_1 nodes; PSN 0 then frees the header node and scans them: 1 locate + 1
// alloc + 1 free (node writes) + 200 all_1 nodes read and cleared + 1 empty node read
// = 404 node accesses, past any 8-bit counter.
TEST(RtlBitmap, LongScanCountsEveryAccess) {
  RtlOrnicBitmap u(Make(1, 300, 8, 2, "liboonic_rtl_ornic_bitmap.so"));
  u.open(0, 0, 1000);
  for (uint32_t p = 1; p <= 200; ++p) u.receive(0, p);
  const auto out = u.receive(0, 0);
  EXPECT_EQ(out.node_accesses, 404u);
  // A closed QP: nothing reported, as the core (not its last ePSN, 501).
  u.open(1, 500, 10);
  u.receive(1, 500);
  u.close(1);
  const auto closed = u.receive(1, 5);
  EXPECT_EQ(closed.verdict, Verdict::kQpClosed);
  EXPECT_EQ(closed.epsn, 0u);
  EXPECT_EQ(out.epsn, 201u);
  EXPECT_EQ(u.mismatches(), 0u) << (u.first_mismatch() ? u.first_mismatch()->what : "");
}

TEST(RtlBitmap, PlantedBugDiffersFirstOnAFree) {
  RtlOrnicBitmap u(Make(4, 6, 64, 2, "liboonic_rtl_ornic_bitmap_bug.so"));
  u.open(0, 100, 1000);
  // 101..103 out of order (no free), then 100 fills the block 100..103: the free.
  for (uint32_t p : {101u, 102u, 103u}) {
    u.receive(0, p);
    EXPECT_EQ(u.mismatches(), 0u);
  }
  const auto out = u.receive(0, 100);
  // Core: locate 1 + RMW 1 + free 1 + scan 1 (next node empty) = 4; the bug adds one.
  EXPECT_EQ(out.cycles, 5u);
  ASSERT_EQ(u.mismatches(), 1u);
  EXPECT_EQ(u.first_mismatch()->call, 4u);
  EXPECT_EQ(u.first_mismatch()->psn, 100u);
  EXPECT_EQ(u.first_mismatch()->what, "cycles: rtl 5, core 4");
}

TEST(RtlBitmap, GeometryBeyondTheRtlIsAConfigError) {
  try {
    RtlOrnicBitmap u(Make(16, 20, 1u << 20, 8, "liboonic_rtl_ornic_bitmap.so"));
    FAIL() << "no error";
  } catch (const oonic::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bitmap.pool_blocks 1048576"), std::string::npos)
        << e.what();
  }
  try {
    RtlOrnicBitmap u(Make(16, 20, 64, 8, "no-such-lib.so"));
    FAIL() << "no error";
  } catch (const oonic::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bitmap.rtl_library"), std::string::npos) << e.what();
  }
}

}  // namespace
