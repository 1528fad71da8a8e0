#include "model/ornic/tx/tx_arbiter.h"

#include <algorithm>

namespace oonic::ornic {

TxArbiter::TxArbiter(sc_core::sc_module_name name, const BlockEnv& env, Agenda& agenda,
                     ControlSource& control, TxSource& data, const HdrGeneratorPort& hdr)
    : sc_module(name),
      core(core_env(env, this->name()), agenda, control, data, hdr),
      clk_(env.p.nic.clock_mhz),
      wakes_(StatGroup(env.stats, this->name())
                 .counter("wakes", "wake",
                          "times the arbiter process woke (simulator cost, not hardware)")) {
  // A method, not a thread: a turn never waits, so no coroutine stack or switch.
  SC_METHOD(run);
  sensitive << wake_;
}

void TxArbiter::run() {
  wakes_.inc();
  running_ = true;
  armed_ = kNever;
  const Cycle now = clk_.now();
  const Cycle next = core.turn(now);
  if (next != kNever) {
    armed_ = std::max(next, now + 1);
    wake_.notify(clk_.until(armed_));
  }
  running_ = false;
}

}  // namespace oonic::ornic
