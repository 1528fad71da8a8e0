// The one random generator behind every arrival order oonic draws (the trace tools'
// shuffles and drops, bitmap-compare's arrival models, the property tests' orders):
// CPython 3's random.Random(seed) (MT19937 seeded by init_by_array), so a Python script
// (scripts/gen-trace) reproduces any order from the same seed with random.Random(seed).
// randrange(n) is the one bounded draw: getrandbits(bit length of n) with rejection, as
// CPython's _randbelow, so it is unbiased and identical to Python's. Plain C++.
#pragma once

#include <cstdint>

namespace oonic {

class PyRandom {
 public:
  explicit PyRandom(uint64_t seed);
  uint32_t genrand();
  uint64_t getrandbits(int k);     // 1 <= k <= 64
  uint64_t randrange(uint64_t n);  // n >= 1: uniform in [0, n)
  double random();                 // [0, 1), 53 bits

 private:
  uint32_t mt_[624];
  int mti_ = 625;
};

}  // namespace oonic
