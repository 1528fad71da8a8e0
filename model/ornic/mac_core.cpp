#include "model/ornic/mac_core.h"

#include <cmath>

#include "model/wire/roce.h"

namespace oonic::ornic {

MacCore::MacCore(const CoreEnv& env, FrameOut& out)
    : rate_gbps_(env.p.mac.rate_gbps),
      clk_(env.p.nic.clock_mhz),
      out_(out),
      frames_in_(env.stats.counter("frames_in", "frame", "frames received from the network")),
      frames_out_(env.stats.counter("frames_out", "frame", "frames sent to the network")),
      pfc_in_(env.stats.counter("pfc_frames_in", "frame",
                                "PFC (PAUSE) frames received; the MAC's own, not the RX plane's")) {
  env.stats.derived("data_paused_cycles", "cycle",
                    "cycles data frames (PFC class 1) were paused by the link partner",
                    [this] { return static_cast<double>(paused_cycles_[1]); });
  env.stats.derived("control_paused_cycles", "cycle",
                    "cycles ACK, NAK and CNP frames (PFC class 0) were paused by the link partner",
                    [this] { return static_cast<double>(paused_cycles_[0]); });
}

bool MacCore::pause(Cycle now, const wire::Pfc& pf) {
  pfc_in_.inc();
  bool earlier = false;
  const double quantum_ps = 512.0 * 1000.0 / rate_gbps_;
  for (uint8_t c = 0; c < 8; ++c) {
    if (!(pf.enable >> c & 1)) continue;
    const Cycle until =
        now + static_cast<Cycle>(std::ceil(pf.quanta[c] * quantum_ps / clk_.period_ps()));
    Cycle& u = paused_until_[c];
    // Count each paused cycle once: extend, shorten, or start a pause.
    if (u > now) {
      if (until >= u) {
        paused_cycles_[c] += until - u;
      } else {
        paused_cycles_[c] -= u - until;
        earlier = true;
      }
    } else {
      paused_cycles_[c] += until - now;
    }
    u = until;
  }
  return earlier;
}

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
