// The transmit seam, rate/pacing half (docs/DESIGN.md "Seams"): when a QP may send its
// next packet and on which UDP source port. Told every ACK, CNP and timeout; asked by
// the QP Manager before a packet is handed to the TX arbiter. `none` (line rate, the QP's
// own source port) is the only core today; congestion control (DCQCN, MP-RDMA's window)
// plugs in here. Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "model/core/cycles.h"

namespace oonic::sender {

class RateControl {
 public:
  virtual ~RateControl() = default;
  virtual const char* name() const = 0;
  // Earliest cycle the QP may put a packet of `bytes` on the wire, asked at `now`.
  virtual Cycle earliest(uint32_t qi, Cycle now, uint32_t bytes) { return now; }
  // The packet went at `start`.
  virtual void sent(uint32_t qi, Cycle start, uint32_t bytes) {}
  // UDP source port of the packet with this PSN; default_port is the QP's own.
  virtual uint16_t source_port(uint32_t qi, uint32_t psn, uint16_t default_port) {
    return default_port;
  }
  virtual void on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) {}
  virtual void on_cnp(uint32_t qi, Cycle t) {}
  virtual void on_timeout(uint32_t qi, Cycle t) {}
  // Data packets go out ECN-capable (ECT(0)) when the core reads ECN (CNPs).
  virtual bool ecn_capable() const { return false; }
  // Called at every change of a QP's sending rate, with the cycle it took effect
  // (a core that evaluates timers lazily reports their ticks' cycles, so calls
  // need not come in time order) and the new rate in Gbit/s.
  using RateFn = std::function<void(uint32_t qi, Cycle t, double gbps)>;
  void on_rate(RateFn f) { on_rate_ = std::move(f); }

 protected:
  RateFn on_rate_;
};

// Line rate, no pacing, the QP's source port: today's behaviour.
class NoRate final : public RateControl {
 public:
  const char* name() const override { return "none"; }
};

}  // namespace oonic::sender
