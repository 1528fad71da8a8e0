// The fabric system (issue 15): every host of a topology is a whole oonic host
// (an ORNIC NIC, its PCIe link, host memory and a HostDriver), joined by
// packet-level switches (platforms/network/switch.h) that queue, mark ECN,
// drop and route (ECMP, spraying, flowlets, adaptive). Flows (from an ns-3
// HPCC flow file, or generated from a size CDF at a load) become one QP and
// one WQE each, posted at the flow's start; the flow completes at its CQE.
//   h<i>.driver --reg_initiator_socket--> h<i>.nic.reg_socket
//   h<i>.nic.dma_initiator_socket --> h<i>.pcie --> h<i>.memory
//   h<i>.nic.mac_tx_socket --> h<i>.uplink (rate, propagation) --> <switch>.rx_socket_<k>
//   <switch>.tx_socket_<k> --> h<i>.nic.mac_rx_socket (or the next switch's rx_socket_<j>)
// Host memory does not hold the bytes moved: a flow's source reads as the
// address pattern and its destination is checked as each DMA write lands
// (FlowCheck), so memory follows QPs and flows, not bytes. `oonic run` builds
// it when the configuration has a topology section; docs/FABRIC.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/ornic/ornic_params.h"
#include "platforms/b2b/b2b.h"
#include "platforms/network/faults.h"
#include "platforms/network/path_select.h"
#include "platforms/network/switch_core.h"
#include "platforms/network/switch_hook.h"
#include "platforms/network/themis.h"
#include "platforms/network/topology.h"
#include "platforms/network/workload.h"
#include "platforms/system/run.h"
#include "tlm/host_memory_params.h"
#include "tlm/pcie_link_core.h"

namespace oonic::fabric {

struct TopologyParams {  // topology.*
  // Ranges of a switch-to-switch link's rate (Gbit/s) and any link's delay (ns),
  // generated or read from a file; a host link's rate is mac.rate_gbps's range.
  static constexpr double kLinkGbpsMin = 0.001, kLinkGbpsMax = 1e4, kDelayNsMax = 1e10;

  std::string kind = "kpaths";   // pair | kpaths | leaf-spine | fat-tree | two-dc | file
  std::string file;              // kind file: ns-3 HPCC topology.txt
  uint32_t paths = 4;            // kpaths: spines between the two ToRs
  uint32_t spines = 4;           // leaf-spine, two-dc (per DC)
  uint32_t leaves = 4;           // leaf-spine, two-dc (per DC)
  uint32_t hosts_per_leaf = 4;   // kpaths (per ToR), leaf-spine, two-dc
  uint32_t k = 4;                // fat-tree
  double host_gbps = 100;        // host links
  double fabric_gbps = 100;      // switch-to-switch links
  double link_delay_ns = 1000;   // every link but the DCI one
  double dci_gbps = 400;         // two-dc: the long-haul link
  double dci_delay_ns = 100000;  // two-dc: its one-way delay
  void describe(ParamTable& t);
  static network::Topology::Limits limits();
  // base_dir: where relative file names are looked up (the config's directory).
  network::Topology build(const std::string& base_dir,
                          const network::Topology::Limits& lim = limits()) const;
};

struct FlowParams {  // flows.*
  std::string file;  // ns-3 HPCC flow file; empty: generated
  std::string cdf;   // size CDF file; empty: every flow `bytes`
  uint64_t bytes = 1 << 20;
  std::string pattern = "random";   // random | permutation | incast | mix
  std::string arrival = "poisson";  // poisson | once
  double load = 0.5;
  double duration_us = 100;
  double inter_fraction = 0.5;
  std::string opcode = "write";  // write | send | read
  std::string mode = "ooo";      // ooo | standard (the WQE's OOO flag)
  void describe(ParamTable& t);
};

struct FaultParams {  // faults.*
  std::string file;   // events: time, what, where (docs/FABRIC.md "Faults")
  void describe(ParamTable& t);
};

struct FabricRunParams {  // run.*
  double max_sim_ms = 1000;
  double stall_ms = 20;
  bool sram_csv = false;
  bool queues_csv = false;
  std::string queues_switches;  // run.queues_switches: only these (comma list); empty: all
  double queues_sample_ns = 0;  // run.queues_sample_ns: one change per port per interval
  bool qps_csv = true;
  bool rates_csv = true;
  bool link_pcap = false;
  void describe(ParamTable& t);
};

struct AllParams {
  ornic::OrnicParams nic;
  PcieParams pcie;        // pcie.*
  HostMemoryParams host;  // host.memory.*
  TopologyParams topology;
  network::SwitchParams sw;
  network::RoutingParams routing;
  network::ThemisParams themis;
  FlowParams flows;
  FaultParams faults;
  FabricRunParams run;
  void describe(ParamTable& t) {
    nic.describe(t);
    pcie.describe(t);
    host.describe(t);
    topology.describe(t);
    sw.describe(t);
    routing.describe(t);
    themis.describe(t);
    flows.describe(t);
    faults.describe(t);
    run.describe(t);
    network::describe_switch_hooks(t);  // the parameters of hooks users added
  }
};

// Everything a fabric run reads, checked before anything is built.
struct Inputs {
  network::Topology topo;
  std::vector<uint32_t> host_nodes;   // host index -> node id
  std::vector<int32_t> host_of_node;  // node id -> host index, -1 for a switch
  std::vector<network::Flow> flows;
  std::vector<network::Fault> faults;
  uint64_t last_start_ps = 0;      // the latest flow start
  int64_t themis_link = -1;        // themis.mode on: the long-haul link
  std::vector<std::string> notes;  // said on stderr: what was read but not used
};
// The topology (generated, or topology.file), the flows (flows.file, or generated
// from flows.*), the faults (faults.file) and the keys that name parts of them
// (run.queues_switches, themis.mode). Throws Error(kConfig) naming file:line or
// the key. max_flows bounds what a workload may hold (memory).
Inputs read_inputs(const AllParams& all, const std::string& base_dir, uint64_t seed,
                   uint64_t max_flows = network::kMaxFlows);

// True when the configuration (file and --set overrides) asks for a fabric:
// it has a topology section. Throws Error(kConfig) on unreadable YAML.
bool wants_fabric(const std::string& config, const std::vector<std::string>& sets);

// The fabric's job for system::run (platforms/system/run.h); the run's exit status is
// 0 when every flow completed and the scoreboard is clean.
std::unique_ptr<system::Job> make_job(const b2b::RunOptions& o);
// Every stat a fabric run registers (for `oonic stats --fabric`).
std::string stats_listing(bool markdown, const std::vector<std::string>& sets = {});

}  // namespace oonic::fabric
