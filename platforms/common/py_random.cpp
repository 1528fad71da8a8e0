#include "platforms/common/py_random.h"

#include <algorithm>

namespace oonic {

PyRandom::PyRandom(uint64_t seed) {
  // init_genrand(19650218), then init_by_array(key) with key = the seed's
  // 32-bit words, least significant first ([0] for seed 0).
  constexpr int N = 624;
  mt_[0] = 19650218u;
  for (int i = 1; i < N; ++i)
    mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  int klen = (seed >> 32) ? 2 : 1;
  int i = 1, j = 0;
  for (int k = std::max(N, klen); k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] +
             static_cast<uint32_t>(j);
    ++i, ++j;
    if (i >= N) mt_[0] = mt_[N - 1], i = 1;
    if (j >= klen) j = 0;
  }
  for (int k = N - 1; k; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= N) mt_[0] = mt_[N - 1], i = 1;
  }
  mt_[0] = 0x80000000u;
  mti_ = N;
}

uint32_t PyRandom::genrand() {
  constexpr int N = 624, M = 397;
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kA = 0x9908b0dfu;
  if (mti_ >= N) {
    int kk = 0;
    for (; kk < N - M; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + M] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    }
    for (; kk < N - 1; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + (M - N)] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    }
    uint32_t y = (mt_[N - 1] & kUpper) | (mt_[0] & kLower);
    mt_[N - 1] = mt_[M - 1] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    mti_ = 0;
  }
  uint32_t y = mt_[mti_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

uint64_t PyRandom::getrandbits(int k) {
  if (k <= 32) return genrand() >> (32 - k);
  uint64_t lo = genrand();  // CPython fills 32-bit words least significant first
  uint64_t hi = genrand() >> (64 - k);
  return lo | (hi << 32);
}

uint64_t PyRandom::randrange(uint64_t n) {
  int k = 0;
  while (k < 64 && (n >> k)) ++k;  // n.bit_length()
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

double PyRandom::random() {
  uint32_t a = genrand() >> 5, b = genrand() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

}  // namespace oonic
