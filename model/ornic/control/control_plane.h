// ORNIC's Control plane (Figure 1): the Req Manager (ACK / NAK / READ-response
// register-schedulers), the CQE Manager and the Rsp Manager (requester responses,
// recovery through the sender policy, the timeout).
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/control/cqe_manager.h"
#include "model/ornic/control/req_manager.h"
#include "model/ornic/control/rsp_manager.h"

namespace oonic::ornic {

class ControlPlane : public sc_core::sc_module {
 public:
  ControlPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps,
               const RegisterFile& regs, DmaPort& dma, Agenda& agenda,
               sender::LossRecovery& recovery, sender::RateControl& rate)
      : sc_module(n),
        req_manager("req_manager", env, qps, dma),
        cqe_manager("cqe_manager", env, qps, dma),
        rsp_manager("rsp_manager", env, qps, regs, agenda,
                    RspManagerCore::Links{cqe_manager.core, recovery, rate}) {}
  ReqManager req_manager;
  CqeManager cqe_manager;
  RspManager rsp_manager;
};

}  // namespace oonic::ornic
