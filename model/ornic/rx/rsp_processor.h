// ORNIC RX plane: the Rsp Processor block (shell). Its logic and timing are in
// rsp_processor_core.h; the shell gives it its place in the NIC (`nic0.rx.rsp_processor`).
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/rx/rsp_processor_core.h"

namespace oonic::ornic {

class RspProcessor : public sc_core::sc_module {
 public:
  RspProcessor(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
               RspProcessorCore::Links links)
      : sc_module(name), core(core_env(env, this->name()), qps, links) {}
  RspProcessorCore core;
};

}  // namespace oonic::ornic
