// A ring of per-PSN bits, the SACK scoreboard a sender keeps (Eunomia's sender agent,
// MP-RDMA's SACK record): bit psn % size, size a power of two >= 64 so that 2^24 is a
// multiple of it and the mapping stays one-to-one over any size consecutive PSNs, across
// the wrap too. The words are allocated at the first mark: an idle QP costs nothing.
// Callers keep marks inside [first unacknowledged, + size) and clear what is acknowledged.
// Plain C++.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/wire/roce.h"

namespace oonic::sender {

class PsnRing {
 public:
  // The ring for at least `psns` PSNs (rounded up to a power of two, at least 64).
  explicit PsnRing(uint32_t psns = 64) : size_(round_up(psns)) {}
  static uint32_t round_up(uint32_t psns) {
    uint32_t n = 64;
    while (n < psns) n <<= 1;
    return n;
  }
  uint32_t size() const { return size_; }
  void mark(uint32_t psn) {
    if (w_.empty()) w_.assign(size_ / 64, 0);
    const uint32_t i = psn % size_;
    w_[i / 64] |= uint64_t{1} << (i % 64);
  }
  bool test(uint32_t psn) const {
    if (w_.empty()) return false;
    const uint32_t i = psn % size_;
    return (w_[i / 64] >> (i % 64)) & 1u;
  }
  // Clear the bits of PSNs [from, to) (all of them when the span reaches the size).
  void clear(uint32_t from, uint32_t to) {
    if (w_.empty()) return;
    const int32_t n = wire::psn_diff(to, from);
    if (n <= 0) return;
    if (static_cast<uint32_t>(n) >= size_) {
      std::fill(w_.begin(), w_.end(), 0);
      return;
    }
    for (int32_t k = 0; k < n; ++k) {
      const uint32_t i = wire::psn_add(from, static_cast<uint32_t>(k)) % size_;
      w_[i / 64] &= ~(uint64_t{1} << (i % 64));
    }
  }

 private:
  uint32_t size_;
  std::vector<uint64_t> w_;
};

}  // namespace oonic::sender
