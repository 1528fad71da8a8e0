// ORNIC RX plane: the RX Parser block (shell). Its logic and timing are in
// rx_parser_core.h; the shell gives it its place in the NIC (`nic0.rx.parser`).
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/rx/rx_parser_core.h"

namespace oonic::ornic {

class RxParser : public sc_core::sc_module {
 public:
  RxParser(sc_core::sc_module_name name, const BlockEnv& env, RxBuffers buffers)
      : sc_module(name), core(core_env(env, this->name()), buffers) {}
  RxParserCore core;
};

}  // namespace oonic::ornic
