// `oonic replay`: one ORNIC NIC, its PCIe link and host memory, and the trace
// source on its network port; runs the trace and writes the results directory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/ornic/ornic_params.h"
#include "tlm/host_memory_params.h"
#include "tlm/pcie_link_core.h"

namespace oonic::replay {

// Parameters of the replay platform itself (net.*, out.*).
struct PlatformParams {
  double link_gbps = 100;
  bool packets_csv = true;
  bool sram_csv = true;
  void describe(ParamTable& t);
};

struct ReplayOptions {
  std::string trace;
  std::string config;             // YAML, optional
  std::vector<std::string> sets;  // "a.b=v"
  std::string qps;                // sidecar; default TRACE-stem.qps.yaml if it exists
  std::string out;                // results directory; default results/<trace stem>
  std::string timing = "captured";
  std::string dut;
  bool vcd = false;
  std::string vcd_groups;                        // comma-separated signal groups (all when empty)
  uint64_t vcd_from = 0, vcd_to = ~uint64_t{0};  // cycle window of waves.vcd
  uint64_t seed = 1;
  bool quiet = false;  // no summary on stdout
};

// All parameters of a replay, bound to their structs.
struct AllParams {
  ornic::OrnicParams nic;
  PcieParams pcie;        // pcie.*
  HostMemoryParams host;  // host.memory.*
  PlatformParams platform;
  void describe(ParamTable& t) {
    nic.describe(t);
    pcie.describe(t);
    host.describe(t);
    platform.describe(t);
  }
};

// Runs the replay. Returns the process exit status (0 ok). Throws oonic::Error.
int run_replay(const ReplayOptions& o);

// Names, kinds, units and descriptions of every stat a replay registers
// (builds the system without running it). Format: Markdown table or text.
std::string stats_listing(bool markdown, const std::vector<std::string>& sets = {});

}  // namespace oonic::replay
