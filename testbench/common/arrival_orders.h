// Arrival orders for property tests of the ordering cores.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "platforms/common/arrival_order.h"

namespace oonic::test {

// Window shuffle with OOO distance D: at every step the next packet is picked uniformly
// among the not-yet-sent positions in [lo, lo + D], lo = lowest not yet sent. Hence every
// element moves by at most D positions (|new - old| <= D) and a packet is never more than
// D past the lowest missing one (with no loss: psn - ePSN <= D). The one implementation
// (platforms/common/arrival_order.h), seeded from the test's generator.
inline std::vector<uint32_t> WindowShuffle(uint32_t count, uint32_t d, std::mt19937_64& rng) {
  PyRandom r(rng());
  return arrival::windowed_shuffle(count, d, r);
}

}  // namespace oonic::test
