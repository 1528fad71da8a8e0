// Arrival orders shared by the experiments, the trace tools and the property tests; the
// one implementation of each, drawing from oonic::PyRandom (platforms/common/py_random.h),
// so scripts/gen-trace reproduces them with Python's random.Random(seed).
//
// Windowed shuffle with OOO distance D (scripts/gen-trace's windowed_shuffle): positions
// 0 .. n-1 are emitted one at a time; the window holds the not-yet-emitted positions in
// [lo, lo + D], lo = the lowest not yet emitted, and the next is window[randrange(size)].
// So no element moves more than D places and, without loss, a packet is never more than
// D past the lowest missing one. D = 0 or n < 2: the identity, no draw.
//
// Aligned groups (ORNIC §4.3's arrival model): positions 0 .. n-1 are cut into
// consecutive groups of g (the last one may be shorter); each group arrives as a
// uniformly random permutation of itself (Fisher-Yates: for i = size-1 down to 1,
// swap element i with element below(i + 1)), and the groups arrive in order. With
// g = 64 and 16-bit blocks aligned to the first position, a group covers exactly four
// blocks, so a receiver never sees a packet more than g - 1 past the first missing one
// (OOD <= g - 1) and no packet moves more than g - 1 places: the paper's "OOO distance
// did not exceed 64".
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "platforms/common/py_random.h"

namespace oonic::arrival {

inline std::vector<uint32_t> windowed_shuffle(uint32_t n, uint32_t distance, PyRandom& rng) {
  std::vector<uint32_t> out;
  out.reserve(n);
  if (distance == 0 || n < 2) {
    for (uint32_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::vector<uint32_t> window;  // not-yet-emitted positions, ascending
  uint64_t nxt = 0;
  while (out.size() < n) {
    const uint64_t low = window.empty() ? nxt : window[0];
    while (nxt < n && nxt <= low + distance) window.push_back(static_cast<uint32_t>(nxt++));
    const size_t pick = static_cast<size_t>(rng.randrange(window.size()));
    out.push_back(window[pick]);
    window.erase(window.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return out;
}

inline std::vector<uint32_t> aligned_groups(uint32_t n, uint32_t g, PyRandom& rng) {
  std::vector<uint32_t> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = i;
  if (g < 2) return out;
  for (uint64_t a = 0; a < n; a += g) {
    const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(g, n - a));
    for (uint32_t i = size - 1; i >= 1; --i) {
      const uint32_t j = static_cast<uint32_t>(rng.randrange(uint64_t{i} + 1));
      std::swap(out[a + i], out[a + j]);
    }
  }
  return out;
}

}  // namespace oonic::arrival
