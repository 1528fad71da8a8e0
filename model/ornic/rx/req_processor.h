// ORNIC RX plane: the Req Processor block (shell). Its logic and timing are in
// req_processor_core.h; the shell gives it its place in the NIC (`nic0.rx.req_processor`).
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/rx/req_processor_core.h"

namespace oonic::ornic {

class ReqProcessor : public sc_core::sc_module {
 public:
  ReqProcessor(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
               ReqProcessorCore::Links links)
      : sc_module(name), core(core_env(env, this->name()), qps, links) {}
  ReqProcessorCore core;
};

}  // namespace oonic::ornic
