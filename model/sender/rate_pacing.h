// What the window-less rate cores (DCQCN, HPCC) share: a packet's time on the wire
// at the QP's rate (its pacing gap) and one access to the QP's word in the rate
// state memory (cc.context). One copy, so the two cores pace identically.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/core/cycles.h"
#include "model/sram/sram.h"

namespace oonic::sender {

// bytes (+ the per-packet overhead) at gbps, in cycles of a mhz clock, rounded up.
inline Cycle pacing_cycles(double gbps, uint32_t bytes, uint32_t overhead_bytes, double mhz) {
  const double ns = (bytes + overhead_bytes) * 8.0 / gbps;
  return static_cast<Cycle>(std::ceil(ns * mhz / 1000.0));
}

// The next packet's booked start when the rate changes under a packet already
// booked: moved by the difference of its gaps (ns-3 HPCC's ChangeRate), not before 0.
inline Cycle rebook(Cycle next_avail, Cycle old_gap, Cycle new_gap) {
  return next_avail + new_gap >= old_gap ? next_avail + new_gap - old_gap : 0;
}

// One access to a QP's word in the rate state memory (none when it is not modelled).
inline void touch_state(Sram* mem, Cycle t, bool write) {
  if (!mem) return;
  const uint32_t w = mem->params().width_bits;
  if (write)
    mem->write(t, w);
  else
    mem->read(t, w);
}

}  // namespace oonic::sender
