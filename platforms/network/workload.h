// Flow workloads for the fabric (issue 15), plain C++: flow size CDFs, ns-3
// HPCC's flow file, and flows generated with Poisson arrivals at a load.
//
// Size CDF file (the format ns-3 HPCC's users have; data/cdf/ ships WebSearch
// and FB Hadoop): one "bytes cumulative-percent" pair a line, '#' comments and
// blank lines allowed. Sizes and percents never decrease, the first percent is
// 0 or more and the last is exactly 100. A draw u in [0, 1) gives p = 100 u and
// the size linearly interpolated on the segment whose percents enclose p (a
// zero-width segment is skipped). The mean is the integral of that piecewise
// linear inverse: sum over segments of (x0 + x1) / 2 x (p1 - p0) / 100.
//
// Flow file (ns-3 HPCC's flow.txt): the number of flows alone on the first line,
// then that many flows, one a line (what follows is not read, as in ns-3): "src dst priority dport
// bytes start_s". src and dst are node ids of the topology, as ns-3 HPCC's third.cc reads them
// (n.Get(src)): a topology whose switches are numbered first has no host 0. priority is ns-3's
// priority group 0..7 and dport its port 0..65535 (both recorded and written back to fct.txt; the
// NICs' own queues decide the wire); bytes an integer 1..2^31-1 (one WQE); start_s seconds,
// decimal, never going back.
//
// Generation (the method of ns-3 HPCC's traffic_gen): every host starts flows
// as a Poisson process whose mean gap is mean_size x 8 / (load x host rate),
// from 0 until the duration; each flow's size is a CDF draw (rounded up to a
// byte, at least 1) and its destination follows the pattern:
//   random       uniform among the other hosts, per flow
//   permutation  a fixed random derangement: host i always sends to perm(i)
//   incast       every host but the sink (host 0) sends to it
//   mix          hosts in two halves (two-dc: a DC each): with probability
//                inter_fraction to a uniform host of the other half, else to a
//                uniform other host of its own half
// With arrival "once" every sender starts exactly one flow, at time 0 (a
// permutation of long flows, a synchronized incast); load is not used.
// Draws come from make_rng(seed, "workload") in a fixed order (per flow: gap,
// size, destination), so a seed gives the same flows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace oonic::network {

inline constexpr uint64_t kMaxFlowBytes = 0x7FFFFFFF;     // one WQE's length field
inline constexpr uint64_t kMaxFlows = uint64_t{1} << 22;  // a workload's flows (memory)
inline constexpr double kMaxStartS = 1e4;                 // run.max_sim_ms's upper end

struct Flow {
  uint32_t src = 0, dst = 0;  // host indexes (among the topology's hosts, in node order)
  uint64_t bytes = 0;
  uint64_t start_ps = 0;
  uint32_t priority = 3;  // as in ns-3 HPCC's flow file
  uint32_t dport = 100;
  uint32_t line = 0;  // read_hpcc_flows: the file's line
};

class SizeCdf {
 public:
  // Throws oonic::Error (msg::kConfig) naming the file and line.
  static SizeCdf read(const std::string& path);
  static SizeCdf from_points(std::vector<std::pair<double, double>> pts, const std::string& what);
  uint64_t sample(double u) const;
  double mean() const;

 private:
  std::vector<std::pair<double, double>> pts_;  // (bytes, percent)
};

// Where a flow file's parts were (for notes and errors made after reading).
struct FlowFileInfo {
  uint32_t count_line = 0;    // the count's line
  uint32_t ignored_from = 0;  // the first line with text after the count's flows; 0: none
};
// host_of_node: per node id, its host index, or -1 for a switch. Strict
// (text_input.h); throws oonic::Error (msg::kConfig) naming the file and line. A
// count above max_flows is refused. Lines after the count's flows are not read, as
// in ns-3 HPCC (info->ignored_from names the first).
std::vector<Flow> read_hpcc_flows(const std::string& path, const std::vector<int32_t>& host_of_node,
                                  uint64_t max_flows = kMaxFlows, FlowFileInfo* info = nullptr);
// The same format back, hosts by node id (host_nodes: host index -> node id),
// start in seconds with 9 decimals.
std::string hpcc_flows_text(const std::vector<Flow>& flows,
                            const std::vector<uint32_t>& host_nodes);

struct WorkloadParams {
  std::string pattern = "random";   // random | permutation | incast | mix
  std::string arrival = "poisson";  // poisson | once (one flow per sender at time 0)
  double inter_fraction = 0.5;      // mix: share of flows to the other half
  double load = 0.5;                // of the host link rate, in (0, 1)
  double host_gbps = 100;
  double duration_s = 0.001;
  uint64_t seed = 1;
  uint64_t max_flows = kMaxFlows;  // more is refused (flows.duration_us), bounding memory
};

// Throws oonic::Error (msg::kConfig) naming the flows.* key: load outside (0,
// 1), fewer than 2 hosts, an unknown pattern or arrival.
std::vector<Flow> generate_flows(const WorkloadParams& p, const SizeCdf& cdf, uint32_t hosts);

}  // namespace oonic::network
