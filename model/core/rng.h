// One seeded RNG per component, derived from the run seed and the component's
// hierarchical name, so adding a component never shifts another's stream.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

namespace oonic {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

using Rng = std::mt19937_64;

inline Rng make_rng(uint64_t run_seed, std::string_view component) {
  return Rng(splitmix64(run_seed ^ fnv1a(component)));
}

// The documented payload pattern of text traces (traces/README.md): the byte at
// address a is byte (a & 7) of splitmix64(a >> 3). Used to provision host memory
// for READ responders and by the generator.
inline uint8_t pattern_byte(uint64_t addr) {
  return static_cast<uint8_t>(splitmix64(addr >> 3) >> (8 * (addr & 7)));
}

}  // namespace oonic
