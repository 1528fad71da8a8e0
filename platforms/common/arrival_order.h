// Arrival orders shared by the experiments and the trace tools.
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

namespace oonic::arrival {

// below(m) returns a uniform integer in [0, m) (m >= 1) from the caller's generator.
template <class Below>
std::vector<uint32_t> aligned_groups(uint32_t n, uint32_t g, Below&& below) {
  std::vector<uint32_t> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = i;
  if (g < 2) return out;
  for (uint64_t a = 0; a < n; a += g) {
    const uint32_t size = static_cast<uint32_t>(std::min<uint64_t>(g, n - a));
    for (uint32_t i = size - 1; i >= 1; --i) {
      const uint32_t j = static_cast<uint32_t>(below(uint64_t{i} + 1));
      std::swap(out[a + i], out[a + j]);
    }
  }
  return out;
}

}  // namespace oonic::arrival
