// What every SystemC block of a NIC is built with, whatever its parameters: the
// stats registry, the VCD (or nullptr) and the NIC's name, which prefixes SRAM stats
// ("nic0.sram.rx.req_pkt_buffer"). A scheme's blocks (model/eunomia) take this; the
// NIC's own blocks take ornic::BlockEnv (model/ornic/block_env.h), which adds the NIC's
// parameters.
#pragma once

#include <string>
#include <utility>

#include "model/core/stats.h"
#include "model/core/vcd.h"

namespace oonic {

struct BlockEnv {
  Stats& stats;
  Vcd* vcd;
  std::string nic;
  std::string sram_stat(const std::string& instance) const { return nic + ".sram." + instance; }
};

}  // namespace oonic
