// A hardware resource held for whole cycles (an SRAM port, a processor, a
// channel, the MAC). Requests are granted first come, first served in the order
// they are booked: a block books its whole per-packet schedule when it starts
// the packet, so booking order is the order the blocks reached the resource.
// Waits are counted as stall cycles. Plain C++.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/core/cycles.h"

namespace oonic {

class Resource {
 public:
  // Book `hold` cycles at or after cycle t; returns the granted cycle.
  Cycle acquire(Cycle t, Cycle hold) {
    Cycle g = std::max(t, free_at_);
    stall_cycles_ += g - t;
    busy_cycles_ += hold;
    free_at_ = g + hold;
    ++grants_;
    return g;
  }
  Cycle free_at() const { return free_at_; }
  uint64_t stall_cycles() const { return stall_cycles_; }
  uint64_t busy_cycles() const { return busy_cycles_; }
  uint64_t grants() const { return grants_; }

 private:
  Cycle free_at_ = 0;
  uint64_t stall_cycles_ = 0;
  uint64_t busy_cycles_ = 0;
  uint64_t grants_ = 0;
};

// Same, for resources timed in picoseconds (PCIe link directions, network links).
class PsResource {
 public:
  uint64_t acquire(uint64_t t_ps, uint64_t hold_ps) {
    uint64_t g = std::max(t_ps, free_at_);
    stall_ps_ += g - t_ps;
    busy_ps_ += hold_ps;
    free_at_ = g + hold_ps;
    ++grants_;
    return g;
  }
  uint64_t free_at() const { return free_at_; }
  uint64_t stall_ps() const { return stall_ps_; }
  uint64_t busy_ps() const { return busy_ps_; }
  uint64_t grants() const { return grants_; }

 private:
  uint64_t free_at_ = 0, stall_ps_ = 0, busy_ps_ = 0, grants_ = 0;
};

}  // namespace oonic
