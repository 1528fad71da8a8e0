// Control plane: the Rsp Manager block (shell); its logic and timing are in
// rsp_manager_core.h.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/control/rsp_manager_core.h"

namespace oonic::ornic {

class RspManager : public sc_core::sc_module {
 public:
  RspManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
             const RegisterFile& regs, Agenda& agenda, RspManagerCore::Links links)
      : sc_module(name), core(core_env(env, this->name()), qps, regs, agenda, links) {}
  RspManagerCore core;
};

}  // namespace oonic::ornic
