// The b2b system: two ORNIC NICs, each behind its own PCIe link and host
// memory, across a network that delays, reorders and drops (ORNIC's testbed).
//   a.host (HostDriver) --reg_initiator_socket--> a.nic.reg_socket
//   a.nic.dma_initiator_socket --> a.pcie --> a.memory        (same on b)
//   a.nic.mac_tx_socket --> network.ab --> b.nic.mac_rx_socket
//   b.nic.mac_tx_socket --> network.ba --> a.nic.mac_rx_socket
// Host A posts the workload (platforms/host/workload.h) on QPs connected to
// QPs of B; after the run the scoreboard checks every WQE. `oonic run`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/ornic/ornic_params.h"
#include "platforms/host/workload.h"
#include "platforms/network/network_params.h"
#include "tlm/host_memory_params.h"
#include "tlm/pcie_link_core.h"

namespace oonic::b2b {

struct RunParams {  // run.*
  double max_sim_ms = 1000;
  bool wqes_csv = true;
  bool sram_csv = true;
  bool pcap = true;
  void describe(ParamTable& t);
};

struct AllParams {
  ornic::OrnicParams nic;
  PcieParams pcie;        // pcie.*
  HostMemoryParams host;  // host.memory.*
  network::NetworkParams network;
  host::WorkloadParams workload;
  RunParams run;
  void describe(ParamTable& t) {
    nic.describe(t);
    pcie.describe(t);
    host.describe(t);
    network.describe(t);
    workload.describe(t);
    run.describe(t);
  }
};

struct RunOptions {
  std::string config;             // YAML
  std::vector<std::string> sets;  // "a.b=v"
  std::string out;                // results dir; default results/<config stem>
  bool vcd = false;
  std::string vcd_groups;
  uint64_t vcd_from = 0, vcd_to = ~uint64_t{0};
  uint64_t seed = 1;
  bool quiet = false;
};

// Returns the exit status: 0 when every WQE completed and the scoreboard is clean.
int run_b2b(const RunOptions& o);
// Every stat a b2b run registers (for `oonic stats --run` and docs/STATS.md).
std::string stats_listing(bool markdown, const std::vector<std::string>& sets = {});

}  // namespace oonic::b2b
