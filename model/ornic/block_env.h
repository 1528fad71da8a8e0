// What every block of an ORNIC NIC is built with: the NIC's parameters, its
// stats registry, the VCD (or nullptr) and the NIC's name, which prefixes SRAM
// stats ("nic0.sram.rx.req_pkt_buffer.used_bits").
#pragma once

#include <string>

#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/ornic_params.h"

namespace oonic::ornic {

struct BlockEnv {
  const OrnicParams& p;
  Stats& stats;
  Vcd* vcd;
  std::string nic;
  std::string sram_stat(const std::string& instance) const { return nic + ".sram." + instance; }
};

}  // namespace oonic::ornic
