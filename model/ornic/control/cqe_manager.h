// Control plane: the CQE Manager block (shell); its logic and timing are in
// cqe_manager_core.h.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/control/cqe_manager_core.h"

namespace oonic::ornic {

class CqeManager : public sc_core::sc_module {
 public:
  CqeManager(sc_core::sc_module_name name, const BlockEnv& env, const QpContextTable& qps,
             DmaPort& dma)
      : sc_module(name), core(core_env(env, this->name()), qps, dma) {}
  CqeManagerCore core;
};

}  // namespace oonic::ornic
