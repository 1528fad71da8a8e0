// What every block of an ORNIC NIC is built with.
//  BlockEnv  (shells): the NIC's parameters on top of oonic::BlockEnv (model/core/
//            block_env.h: its stats registry, the VCD or nullptr, and the NIC's name,
//            which prefixes SRAM stats: "nic0.sram.rx.req_pkt_buffer").
//  CoreEnv   (cores): the parameters, the block's own stats group (named after the
//            shell: "nic0.control.rsp_manager") and the VCD; plain C++, so a core can
//            be built in a unit test with a bare Stats registry.
#pragma once

#include <string>
#include <utility>

#include "model/core/block_env.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/ornic_params.h"

namespace oonic::ornic {

struct BlockEnv : oonic::BlockEnv {
  const OrnicParams& p;
  BlockEnv(const OrnicParams& params, Stats& s, Vcd* v, std::string nic_name)
      : oonic::BlockEnv{s, v, std::move(nic_name)}, p(params) {}
};

struct CoreEnv {
  const OrnicParams& p;
  StatGroup stats;
  Vcd* vcd = nullptr;
  const std::string& path() const { return stats.path(); }
  // A probe of this block: "<path>.<signal>".
  void probe(Probe& pr, const std::string& signal, int width) const {
    pr.bind(vcd, path() + "." + signal, width);
  }
};

// The core environment of a shell named `path` (its sc_module name).
inline CoreEnv core_env(const BlockEnv& env, const std::string& path) {
  return CoreEnv{env.p, StatGroup(env.stats, path), env.vcd};
}

}  // namespace oonic::ornic
