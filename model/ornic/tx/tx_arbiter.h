// TX plane: the TX arbiter block (shell). It is the one process of the NIC that wakes
// on its own: when work booked on the NIC's agenda falls due, when a packet's payload
// has arrived, or when the MAC frees up; each wake runs one turn of the core
// (tx_arbiter_core.h). Nothing wakes while the NIC has no work.
#pragma once

#include <systemc>

#include "model/core/clock.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/tx/tx_arbiter_core.h"
#include "model/ornic/wake.h"

namespace oonic::ornic {

class TxArbiter : public sc_core::sc_module, public WakeUp {
 public:
  TxArbiter(sc_core::sc_module_name name, const BlockEnv& env, Agenda& agenda,
            ControlSource& control, TxSource& data, const HdrGeneratorPort& hdr);
  // Wake the process at cycle t (or now, if t has passed). While the process runs it
  // looks at all booked work before it sleeps, and while it sleeps a wake already armed
  // for t or earlier suffices: no kernel call then.
  void wake(Cycle t) override {
    if (running_ || t >= armed_) return;
    armed_ = t;
    wake_.notify(clk_.until(t));
  }
  TxArbiterCore core;

 private:
  SC_HAS_PROCESS(TxArbiter);
  void run();
  ClockDomain clk_;
  sc_core::sc_event wake_;
  bool running_ = false;
  Cycle armed_ = kNever;  // cycle of the pending wake-up
  Counter& wakes_;
};

}  // namespace oonic::ornic
