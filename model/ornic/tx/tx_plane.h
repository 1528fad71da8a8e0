// ORNIC's TX plane (Figure 1): the Hdr Generator, the QP Manager and the TX arbiter in
// front of the MAC. The sender policy they consult (loss recovery and rate, the
// transmit seam) is the NIC's (OrnicNic), reported under `nic0.tx.<block>`.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/tx/hdr_generator.h"
#include "model/ornic/tx/qp_manager.h"
#include "model/ornic/tx/tx_arbiter.h"

namespace oonic::ornic {

class TxPlane : public sc_core::sc_module {
 public:
  TxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps,
          const RegisterFile& regs, DmaPort& dma, Agenda& agenda, MacPort& mac,
          CompletionWork& completions, SendTimer& timer, ControlSource& control,
          sender::LossRecovery& recovery, sender::RateControl& rate)
      : sc_module(n),
        hdr_generator("hdr_generator", env, mac),
        qp_manager(
            "qp_manager", env, qps, regs, agenda,
            QpManagerCore::Links{dma, hdr_generator.core, completions, timer, recovery, rate}),
        arbiter("arbiter", env, agenda, control, qp_manager.core, hdr_generator.core) {}
  HdrGenerator hdr_generator;
  QpManager qp_manager;
  TxArbiter arbiter;
};

}  // namespace oonic::ornic
