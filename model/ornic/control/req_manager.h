// Control plane: the Req Manager block (shell). It owns the ACKed-PSN memory
// (`control.acked_psn_mem`); the register-schedulers are in req_manager_core.h.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/control/req_manager_core.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class ReqManager : public sc_core::sc_module {
 public:
  ReqManager(sc_core::sc_module_name name, const BlockEnv& env, const QpContextTable& qps,
             DmaPort& dma)
      : sc_module(name),
        acked_psn_mem("control.acked_psn_mem", env.p.sram.acked_psn_mem, env.stats,
                      env.sram_stat("control.acked_psn_mem")),
        core(core_env(env, this->name()), qps, acked_psn_mem, dma) {}
  Sram acked_psn_mem;
  ReqManagerCore core;
};

}  // namespace oonic::ornic
