// Fuzz harness: a fabric's faults.file (read_faults) on a small leaf-spine (h0..h3,
// leaf0-1, spine0-1). Errors name the file and line; faults that load are in time
// order within the run's reach, between linked nodes, with values in range.
#include <string>
#include <vector>

#include "platforms/fabric/fabric.h"
#include "platforms/network/faults.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using oonic::network::Topology;
  static const Topology kTopo = Topology::leaf_spine(2, 2, 2, 100, 100, 1000);
  const oonic::network::FaultLimits lim = {oonic::fabric::TopologyParams::kLinkGbpsMin,
                                           oonic::fabric::TopologyParams::kLinkGbpsMax, 1e12, 1e6};
  oonic::fuzz::TempFile f(data, size, ".faults.txt");
  std::vector<oonic::network::Fault> faults;
  try {
    faults = oonic::network::read_faults(f.path(), kTopo, lim);
  } catch (const oonic::Error& e) {
    if (std::string(e.what()).rfind(f.path() + ":", 0) != 0) {  // file:line, or file: why
      std::fprintf(stderr, "error does not start with the file: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  double last = 0;
  for (const auto& x : faults) {
    if (!(x.at_us >= last && x.at_us <= lim.max_us) || x.a >= kTopo.nodes.size() ||
        x.b >= kTopo.nodes.size() || x.line == 0)
      std::abort();
    last = x.at_us;
    bool linked = false;
    for (const auto& p : kTopo.ports[x.a]) linked = linked || p.peer == x.b;
    if (!linked) std::abort();
    if (x.what == "rate" && !(x.value >= lim.gbps_min && x.value <= lim.gbps_max)) std::abort();
    if (x.what == "loss" && !(x.value >= 0 && x.value <= 1)) std::abort();
    if (x.what == "ecn" && !(x.n <= x.r && x.r <= 1e12)) std::abort();
    if ((x.what == "drop_psn_mod" || x.what == "drop_ipid_mod") &&
        !(x.n >= 1 && x.r < x.n && x.n <= (1u << 24)))
      std::abort();
  }
  return 0;
}
