// The two-NIC run (ORNIC's testbed) as a job of system::run: the pair topology,
// hosts a and b joined by network.* links that delay, reorder and drop
// (platforms/system/system.h builds it):
//   a.driver (stats "host") --reg_initiator_socket--> a.nic.reg_socket
//   a.nic.dma_initiator_socket --> a.pcie --> a.memory        (same on b)
//   a.nic.mac_tx_socket --> a.network_ab (stats network.ab) --> b.nic.mac_rx_socket
//   b.nic.mac_tx_socket --> b.network_ba (stats network.ba) --> a.nic.mac_rx_socket
// Host A posts the workload (platforms/host/workload.h) on QPs connected to
// QPs of B; after the run the scoreboard checks every WQE. `oonic run`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/ornic/ornic_params.h"
#include "platforms/host/workload.h"
#include "platforms/network/network_params.h"
#include "platforms/system/run.h"
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

using RunOptions = system::RunOptions;

// The two-NIC run's job for system::run (platforms/system/run.h); the run's exit
// status is 0 when every WQE completed and the scoreboard is clean.
std::unique_ptr<system::Job> make_job(const RunOptions& o);
// Every stat a b2b run registers (for `oonic stats --run` and docs/STATS.md).
std::string stats_listing(bool markdown, const std::vector<std::string>& sets = {});

}  // namespace oonic::b2b
