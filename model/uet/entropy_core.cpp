// UET entropy value choice (see entropy_core.h).
#include "model/uet/entropy_core.h"

#include <algorithm>

namespace oonic::uet {

EntropyCore::EntropyCore(const EntropyParams& p, Rng rng)
    : mode_(p.mode),
      mask_(std::max<uint32_t>(p.paths, 1) - 1),
      penalty_(std::max<uint32_t>(p.paths, 1), 0),
      rng_(std::move(rng)) {
  upper_ = static_cast<uint16_t>(rng_() & ~static_cast<uint64_t>(mask_) & 0xFFFF);
}

void EntropyCore::add(uint16_t ev, uint8_t p) {
  uint8_t& x = penalty_[index(ev)];
  x = static_cast<uint8_t>(std::min<uint32_t>(kMaxPenalty, x + p));
}

uint16_t EntropyCore::next() {
  const uint32_t n = mask_ + 1;
  if (mode_ == EvMode::kOblivious) return ev_of(static_cast<uint32_t>(rng_() & mask_));
  if (mode_ == EvMode::kRoundRobin) return ev_of(next_++ & mask_);
  if (mode_ == EvMode::kMixed && !recycled_.empty()) {
    const uint16_t ev = recycled_.front();
    recycled_.pop_front();
    ++reused_;
    return ev;
  }
  bool first = true;
  for (uint32_t tries = 0; tries < n; ++tries) {
    const uint32_t i = next_++ & mask_;
    if (!penalty_[i]) return ev_of(i);
    ++skipped_;
    if (first) --penalty_[i], first = false;
  }
  return ev_of(next_++ & mask_);  // every EV penalized: take the next anyway
}

}  // namespace oonic::uet
