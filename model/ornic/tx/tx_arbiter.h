// TX plane: the TX arbiter in front of the Hdr Generator and the MAC. It is
// the one process of the NIC that wakes on its own: when work booked on the
// NIC's agenda falls due (registrations, fetched WQEs, ACK effects, timers),
// when a packet's payload has arrived, or when the MAC frees up. Each turn it
// grants one frame, by priority:
//   1. NAK, then ACK           (Req Manager register-schedulers, Figure 8)
//   2. requester data          (QP Manager: selective retransmissions first,
//                               go-back-N and new packets, round-robin over QPs)
//      and READ responses      (Req Manager), alternating when both are ready.
// A frame is granted when the Hdr Generator is free and the MAC frees within
// lookahead_cycles, so frames never queue up behind the MAC and a late ACK
// still goes next. Nothing wakes while the NIC has no work.
#pragma once

#include <systemc>

#include "model/core/clock.h"
#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/control/req_manager.h"
#include "model/ornic/tx/hdr_generator.h"
#include "model/ornic/tx/qp_manager.h"

namespace oonic::ornic {

class TxArbiter : public sc_core::sc_module {
 public:
  TxArbiter(sc_core::sc_module_name name, const BlockEnv& env, Agenda& agenda, ReqManager& rm,
            QpManager& qpm, HdrGenerator& hdr);
  // Wake the process at cycle t (or now, if t has passed). While the process
  // runs it looks at all booked work before it sleeps, and while it sleeps a
  // wake already armed for t or earlier suffices: no kernel call then.
  void kick(Cycle t) {
    if (running_ || t >= armed_) return;
    armed_ = t;
    wake_.notify(clk_.until(t));
  }

 private:
  SC_HAS_PROCESS(TxArbiter);
  void run();
  const OrnicParams& p_;
  ClockDomain clk_;
  Agenda& agenda_;
  ReqManager& rm_;
  QpManager& qpm_;
  HdrGenerator& hdr_;
  sc_core::sc_event wake_;
  bool data_turn_ = true;
  bool running_ = false;
  Cycle armed_ = kNever;  // cycle of the pending wake-up
  Counter& wakes_;
  Counter& data_grants_;
  Counter& read_grants_;
  Counter& control_grants_;
};

}  // namespace oonic::ornic
