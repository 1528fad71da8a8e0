// Checks shared by the ordering cores' unit tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "model/ordering/ordering_unit.h"

namespace oonic::test {

// The core's own consistency check, as a gtest assertion with its reason.
inline ::testing::AssertionResult Invariants(const ordering::OrderingUnit& u) {
  std::string why;
  if (u.check_invariants(&why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "invariant violated: " << why;
}

}  // namespace oonic::test

// The cost an Outcome reports: cycles, locate cycles, node and block accesses.
#define EXPECT_COST(o, cyc, loc, na, ba)                      \
  do {                                                        \
    EXPECT_EQ((o).cycles, static_cast<uint32_t>(cyc));        \
    EXPECT_EQ((o).locate_cycles, static_cast<uint32_t>(loc)); \
    EXPECT_EQ((o).node_accesses, static_cast<uint32_t>(na));  \
    EXPECT_EQ((o).block_accesses, static_cast<uint32_t>(ba)); \
  } while (0)
