#include "model/ornic/mac_core.h"

#include <cmath>

#include "model/wire/roce.h"

namespace oonic::ornic {

MacCore::MacCore(const CoreEnv& env, FrameOut& out)
    : rate_gbps_(env.p.mac.rate_gbps),
      clk_(env.p.nic.clock_mhz),
      out_(out),
      frames_in_(env.stats.counter("frames_in", "frame", "frames received from the network")),
      frames_out_(env.stats.counter("frames_out", "frame", "frames sent to the network")) {}

Cycle MacCore::wire_cycles(size_t len) const {
  double ps = static_cast<double>(wire::wire_bytes(len)) * 8000.0 / rate_gbps_;
  Cycle hold = static_cast<Cycle>(std::ceil(ps / clk_.period_ps()));
  return hold ? hold : 1;
}

Cycle MacCore::reserve(Cycle ready, size_t len) {
  return tx_.acquire(ready, wire_cycles(len));
}

void MacCore::send(Cycle start, const uint8_t* frame, size_t len) {
  frames_out_.inc();
  out_.frame_out(start, frame, len);
}

}  // namespace oonic::ornic
