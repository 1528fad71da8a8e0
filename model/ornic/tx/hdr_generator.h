// TX plane: the Hdr Generator block (shell); its logic and timing are in
// hdr_generator_core.h.
#pragma once

#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/tx/hdr_generator_core.h"

namespace oonic::ornic {

class HdrGenerator : public sc_core::sc_module {
 public:
  HdrGenerator(sc_core::sc_module_name name, const BlockEnv& env, MacPort& mac)
      : sc_module(name), core(core_env(env, this->name()), mac) {}
  HdrGeneratorCore core;
};

}  // namespace oonic::ornic
