// Arrival orders for property tests of the ordering cores.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace oonic::test {

// Window shuffle with OOO distance D: at every step the next packet is picked uniformly
// among the not-yet-sent positions in [lo, lo + D], lo = lowest not yet sent. Hence every
// element moves by at most D positions (|new - old| <= D) and a packet is never more than
// D past the lowest missing one (with no loss: psn - ePSN <= D). The same definition as
// scripts/gen-trace and `oonic trace perturb`.
inline std::vector<uint32_t> WindowShuffle(uint32_t count, uint32_t d, std::mt19937_64& rng) {
  std::vector<uint32_t> out;
  out.reserve(count);
  std::vector<uint32_t> win;
  std::vector<uint8_t> sent(count, 0);
  uint32_t next = 0, lo = 0;
  while (out.size() < count) {
    while (next < count && next <= lo + d) win.push_back(next++);
    const size_t i = static_cast<size_t>(rng() % win.size());
    const uint32_t y = win[i];
    win[i] = win.back();
    win.pop_back();
    out.push_back(y);
    sent[y] = 1;
    while (lo < count && sent[lo]) ++lo;
  }
  return out;
}

}  // namespace oonic::test
