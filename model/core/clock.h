// The SystemC side of a clock domain: converts cycles to sc_time and lets a
// process wait whole cycles. No clock signal toggles: processes wake only when
// they have work (docs/DESIGN.md "Timing model").
#pragma once

#include <systemc>

#include "model/core/cycles.h"

namespace oonic {

class ClockDomain : public CycleClock {
 public:
  explicit ClockDomain(double mhz = 250.0) : CycleClock(mhz) {}
  sc_core::sc_time period() const {
    return sc_core::sc_time(static_cast<double>(period_ps()), sc_core::SC_PS);
  }
  sc_core::sc_time at(Cycle c) const { return from_ps(to_ps(c)); }
  // Current cycle (time is always a whole number of cycles inside the NIC;
  // otherwise the cycle whose edge comes next).
  Cycle now() const { return ceil_cycles(ps_of(sc_core::sc_time_stamp())); }
  // sc_time <-> ps without floating point when the time resolution is 1 ps (the
  // default): these run several times per packet.
  static uint64_t ps_of(const sc_core::sc_time& t) {
    static const double unit = unit_ps();
    return unit == 1.0 ? t.value() : static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5);
  }
  static sc_core::sc_time from_ps(uint64_t ps) {
    static const double unit = unit_ps();
    return unit == 1.0 ? sc_core::sc_time::from_value(ps)
                       : sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
  }
  static double unit_ps() { return sc_core::sc_get_time_resolution().to_seconds() * 1e12; }
  // Delay from now until cycle c (zero if c is not in the future).
  sc_core::sc_time until(Cycle c) const {
    uint64_t now_ps = ps_of(sc_core::sc_time_stamp());
    uint64_t c_ps = to_ps(c);
    return c_ps > now_ps ? from_ps(c_ps - now_ps) : sc_core::SC_ZERO_TIME;
  }
  void wait_cycles(Cycle n) const { sc_core::wait(at(n)); }
  void wait_until(Cycle c) const {
    sc_core::sc_time d = until(c);
    if (d != sc_core::SC_ZERO_TIME) sc_core::wait(d);
  }
};

}  // namespace oonic
