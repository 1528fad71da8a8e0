// The fabric's data-path scoreboard (platforms/host/flow_check.h), without
// the kernel: sources read as the address pattern, destinations are compared
// as written and their coverage recorded; wrong bytes, a flow's bytes in
// another's buffer, gaps and stray writes are all caught.
#include "platforms/host/flow_check.h"

#include <gtest/gtest.h>

#include <vector>

#include "platforms/trace/trace.h"

namespace oonic::host {
namespace {

std::vector<uint8_t> pattern(uint64_t addr, size_t n) {
  std::vector<uint8_t> v(n);
  trace::fill_pattern(addr, v.data(), n);
  return v;
}

TEST(FlowCheck, SourcesReadAsThePattern) {
  FlowCheck c;
  std::vector<uint8_t> b(100);
  ASSERT_TRUE(c.read(kSourceBase + 3, b.data(), b.size()));
  EXPECT_EQ(b, pattern(kSourceBase + 3, 100));
  c.add_dest(kDestBase, 64, kSourceBase);
  EXPECT_FALSE(c.read(kDestBase, b.data(), 8));  // destinations are not kept
  EXPECT_EQ(c.bad_reads(), 1u);
}

TEST(FlowCheck, CoverageOutOfOrderAndRepeated) {
  FlowCheck c;
  const uint64_t src = kSourceBase + 0x1000;
  const uint32_t i = c.add_dest(kDestBase, 3000, src);
  auto put = [&](uint64_t off, size_t n) {
    auto p = pattern(src + off, n);
    return c.write(kDestBase + off, p.data(), n);
  };
  ASSERT_TRUE(put(2000, 1000));  // last piece first
  ASSERT_TRUE(put(0, 1000));
  EXPECT_FALSE(c.data(i).complete());
  EXPECT_EQ(c.data(i).covered_bytes(), 2000u);
  ASSERT_TRUE(put(500, 1000));  // overlaps the first piece (a retransmission)
  ASSERT_TRUE(put(1500, 500));
  EXPECT_TRUE(c.data(i).complete());
  EXPECT_EQ(c.data(i).covered.size(), 1u);
  EXPECT_EQ(c.data(i).written, 3500u);
  EXPECT_EQ(c.data(i).mismatch_at, ~uint64_t{0});
}

TEST(FlowCheck, WrongBytesAndAnotherFlowsBytesAreMismatches) {
  FlowCheck c;
  const uint32_t a = c.add_dest(kDestBase, 4096, kSourceBase);
  const uint32_t b = c.add_dest(kDestBase + 4096, 4096, kSourceBase + 4096);
  auto p = pattern(kSourceBase, 4096);
  p[1234] ^= 1;
  ASSERT_TRUE(c.write(kDestBase, p.data(), p.size()));
  EXPECT_EQ(c.data(a).mismatch_at, 1234u);
  // Flow a's (correct) bytes written into flow b's buffer.
  auto q = pattern(kSourceBase, 4096);
  ASSERT_TRUE(c.write(kDestBase + 4096, q.data(), q.size()));
  EXPECT_EQ(c.data(b).mismatch_at, 0u);
}

TEST(FlowCheck, StrayWritesAreRefusedAndCounted) {
  FlowCheck c;
  c.add_dest(kDestBase + 4096, 100, kSourceBase);
  uint8_t x[8] = {};
  EXPECT_FALSE(c.write(kDestBase, x, 8));              // before every flow
  EXPECT_FALSE(c.write(kDestBase + 4096 + 96, x, 8));  // past the flow's end
  EXPECT_FALSE(c.write(kSourceBase, x, 8));            // into a source
  EXPECT_EQ(c.stray_writes(), 3u);
}

// Pieces in order grow one range; writes alternating between two flows land in each.
TEST(FlowCheck, InOrderPiecesAndInterleavedFlows) {
  FlowCheck c;
  const uint32_t a = c.add_dest(kDestBase, 4000, kSourceBase);
  const uint32_t b = c.add_dest(kDestBase + 8192, 4000, kSourceBase + 8192);
  for (uint64_t off = 0; off < 4000; off += 1000)
    for (uint32_t f : {b, a}) {
      const uint64_t d = f == a ? kDestBase : kDestBase + 8192;
      const uint64_t src = f == a ? kSourceBase : kSourceBase + 8192;
      auto p = pattern(src + off, 1000);
      ASSERT_TRUE(c.write(d + off, p.data(), p.size()));
      EXPECT_EQ(c.data(f).covered.size(), 1u);
      EXPECT_EQ(c.data(f).covered_bytes(), off + 1000);
    }
  EXPECT_TRUE(c.data(a).complete());
  EXPECT_TRUE(c.data(b).complete());
  EXPECT_EQ(c.data(a).mismatch_at, ~uint64_t{0});
  EXPECT_EQ(c.data(b).mismatch_at, ~uint64_t{0});
  EXPECT_EQ(c.landed_bytes(), 8000u);
  uint8_t x[8] = {};
  EXPECT_FALSE(c.write(kDestBase + 4000, x, 8));  // between the flows
  EXPECT_EQ(c.stray_writes(), 1u);
}

}  // namespace
}  // namespace oonic::host
