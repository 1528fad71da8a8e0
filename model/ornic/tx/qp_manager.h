// TX plane: the QP Manager block (shell). It owns the WQE cache (`tx.wqe_cache`); the
// send queues and their logic are in qp_manager_core.h.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/tx/qp_manager_core.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class QpManager : public sc_core::sc_module {
 public:
  QpManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
            const RegisterFile& regs, Agenda& agenda, QpManagerCore::Links links)
      : sc_module(name),
        wqe_cache("tx.wqe_cache", env.p.sram.wqe_cache, env.stats, env.sram_stat("tx.wqe_cache")),
        core(core_env(env, this->name()), qps, regs, agenda, wqe_cache, links) {}
  Sram wqe_cache;
  QpManagerCore core;
};

}  // namespace oonic::ornic
