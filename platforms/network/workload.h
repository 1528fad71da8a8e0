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
// Flow file (ns-3 HPCC's flow.txt): the number of flows, then one flow a line:
// "src dst priority dport bytes start_s" (hosts by index among the hosts).
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

struct Flow {
  uint32_t src = 0, dst = 0;  // host indexes
  uint64_t bytes = 0;
  uint64_t start_ps = 0;
  uint32_t priority = 3;  // as in ns-3 HPCC's flow file
  uint32_t dport = 100;
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

// Throws oonic::Error (msg::kConfig) naming the file and line: a bad count, a
// host out of range, a flow to itself, a zero size, times that go back.
std::vector<Flow> read_hpcc_flows(const std::string& path, uint32_t hosts);
// The same format back (start in seconds, 9 decimals).
std::string hpcc_flows_text(const std::vector<Flow>& flows);

struct WorkloadParams {
  std::string pattern = "random";   // random | permutation | incast | mix
  std::string arrival = "poisson";  // poisson | once (one flow per sender at time 0)
  double inter_fraction = 0.5;      // mix: share of flows to the other half
  double load = 0.5;                // of the host link rate, in (0, 1)
  double host_gbps = 100;
  double duration_s = 0.001;
  uint64_t seed = 1;
};

// Throws oonic::Error (msg::kConfig) naming the flows.* key: load outside (0,
// 1), fewer than 2 hosts, an unknown pattern or arrival.
std::vector<Flow> generate_flows(const WorkloadParams& p, const SizeCdf& cdf, uint32_t hosts);

}  // namespace oonic::network
