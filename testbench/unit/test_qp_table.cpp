// model/core/qp_table.h: per-QP state made as QPs are used (issue 30).
#include "model/core/qp_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

TEST(QpTable, MakesEntriesWhenWrittenAndReadsTheInitialValueOtherwise) {
  oonic::QpTable<uint32_t> t(2048, 7);
  EXPECT_EQ(t.size(), 2048u);  // what the vector it replaces would report
  EXPECT_EQ(t.made(), 0u);
  const auto& c = t;
  EXPECT_EQ(c[1000], 7u);  // never written: the initial value, nothing made
  EXPECT_EQ(t.made(), 0u);
  t[3] = 9;  // the first chunk (16 entries) is made, each the initial value
  EXPECT_EQ(t.made(), oonic::QpTable<uint32_t>::kChunk);
  EXPECT_EQ(c[3], 9u);
  EXPECT_EQ(c[4], 7u);
  // A reference stays valid while the table grows.
  uint32_t& r = t[3];
  t[100] = 1;
  EXPECT_EQ(t.made(), 7 * oonic::QpTable<uint32_t>::kChunk);  // chunks 0..6
  r = 11;
  EXPECT_EQ(c[3], 11u);
  // each() visits the made entries in order.
  std::vector<uint32_t> seen;
  t.each([&seen](uint32_t i, uint32_t v) {
    if (v != 7) seen.push_back(i * 100 + v);
  });
  EXPECT_EQ(seen, (std::vector<uint32_t>{311, 10001}));
  // A copy is deep.
  oonic::QpTable<uint32_t> u = t;
  u[3] = 5;
  EXPECT_EQ(c[3], 11u);
  EXPECT_EQ(u[100], 1u);
}

}  // namespace
