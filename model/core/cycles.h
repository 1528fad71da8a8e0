// Cycle arithmetic for one clock domain, in plain C++ (no SystemC). Time inside
// a NIC is an integer cycle count after reset; picoseconds are the exchange unit
// with the outside (traces, PCIe, links). The period is rounded to whole ps.
#pragma once

#include <cstdint>

namespace oonic {

using Cycle = uint64_t;
constexpr Cycle kNever = ~Cycle{0};

class CycleClock {
 public:
  explicit CycleClock(double mhz = 250.0) { set_mhz(mhz); }
  void set_mhz(double mhz) {
    mhz_ = mhz;
    period_ps_ = static_cast<uint64_t>(1e6 / mhz + 0.5);
  }
  double mhz() const { return mhz_; }
  uint64_t period_ps() const { return period_ps_; }
  uint64_t to_ps(Cycle c) const { return c * period_ps_; }
  // First cycle boundary at or after ps (an event at ps is seen on that edge).
  Cycle ceil_cycles(uint64_t ps) const { return (ps + period_ps_ - 1) / period_ps_; }
  Cycle floor_cycles(uint64_t ps) const { return ps / period_ps_; }

 private:
  double mhz_ = 250.0;
  uint64_t period_ps_ = 4000;
};

// Beats a transfer of `bytes` occupies on a datapath `width_bytes` wide.
inline uint64_t beats(uint64_t bytes, uint64_t width_bytes) {
  return bytes == 0 ? 1 : (bytes + width_bytes - 1) / width_bytes;
}

}  // namespace oonic
