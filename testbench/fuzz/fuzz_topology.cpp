// Fuzz harness: ns-3 HPCC's topology.txt as the fabric reads it (Topology::read_hpcc)
// and routes it (Routes). Errors name the file and line; a topology that loads has
// at least two hosts, each on exactly one link, every rate and delay in its range,
// and written back (hpcc_text) reads again to the same network.
#include <string>

#include "platforms/fabric/fabric.h"
#include "platforms/network/topology.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using oonic::network::Topology;
  oonic::fuzz::TempFile f(data, size, ".topology.txt");
  const Topology::Limits lim = oonic::fabric::TopologyParams::limits();
  Topology t;
  try {
    t = Topology::read_hpcc(f.path(), lim);
    oonic::network::Routes routes(t);
  } catch (const oonic::Error& e) {
    if (std::string(e.what()).find(f.path()) == std::string::npos) {
      std::fprintf(stderr, "error does not name the file: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  if (t.hosts().size() < 2) std::abort();
  for (uint32_t h : t.hosts())
    if (t.ports[h].size() != 1) std::abort();
  for (const auto& l : t.links) {
    const bool host = t.is_host(l.a) || t.is_host(l.b);
    const double lo = host ? lim.host_gbps_min : lim.switch_gbps_min;
    const double hi = host ? lim.host_gbps_max : lim.switch_gbps_max;
    if (!(l.gbps >= lo && l.gbps <= hi) || !(l.delay_ns >= 0 && l.delay_ns <= lim.delay_ns_max) ||
        !(l.error_rate >= 0 && l.error_rate <= 1) || l.line == 0)
      std::abort();
  }
  const std::string text = t.hpcc_text();
  oonic::fuzz::TempFile again(reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                              ".again.txt");
  const Topology u = Topology::read_hpcc(again.path(), lim);
  if (u.nodes.size() != t.nodes.size() || u.links.size() != t.links.size()) std::abort();
  for (size_t i = 0; i < t.links.size(); ++i)
    if (u.links[i].a != t.links[i].a || u.links[i].b != t.links[i].b) std::abort();
  return 0;
}
