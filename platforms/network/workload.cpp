#include "platforms/network/workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <numeric>
#include <sstream>

#include "model/core/error.h"
#include "model/core/rng.h"
#include "platforms/network/text_input.h"

namespace oonic::network {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Error(msg::kConfig, where + ": " + what);
}

// Uniform in [0, 1) from one 64-bit draw (53 bits).
double unit(Rng& r) {
  return static_cast<double>(r() >> 11) * 0x1.0p-53;
}

}  // namespace

SizeCdf SizeCdf::from_points(std::vector<std::pair<double, double>> pts, const std::string& what) {
  if (pts.size() < 2) fail(what, "a size CDF needs at least two points");
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto [x, p] = pts[i];
    if (!(x >= 0) || !(p >= 0) || !(p <= 100))
      fail(what, "point " + std::to_string(i + 1) + ": size >= 0 and percent in [0, 100]");
    if (i && (x < pts[i - 1].first || p < pts[i - 1].second))
      fail(what, "point " + std::to_string(i + 1) + ": sizes and percents must not decrease");
  }
  if (pts.back().second != 100) fail(what, "the last percent must be 100");
  SizeCdf c;
  c.pts_ = std::move(pts);
  return c;
}

SizeCdf SizeCdf::read(const std::string& path) {
  TextInput in(path, "flows.cdf", true);
  std::vector<std::pair<double, double>> pts;
  uint32_t last_line = 0;
  while (in.next()) {
    last_line = in.line();
    in.expect_fields(2, 2, "bytes cumulative-percent");
    const double x = in.real_at(0, "bytes", 0, static_cast<double>(kMaxFlowBytes));
    const double p = in.real_at(1, "percent", 0, 100);
    if (!pts.empty() && (x < pts.back().first || p < pts.back().second))
      in.fail("sizes and percents must not decrease");
    pts.push_back({x, p});
  }
  if (pts.size() < 2) in.fail("a size CDF needs at least two points");
  if (pts.back().second != 100)
    throw Error(msg::kConfig,
                path + ":" + std::to_string(last_line) + ": the last percent must be 100");
  return from_points(std::move(pts), path);
}

uint64_t SizeCdf::sample(double u) const {
  const double p = 100.0 * u;
  for (size_t i = 1; i < pts_.size(); ++i) {
    const auto [x0, p0] = pts_[i - 1];
    const auto [x1, p1] = pts_[i];
    if (p1 <= p0 || p >= p1) continue;
    if (p < p0) return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(x0)));
    const double x = x0 + (x1 - x0) * (p - p0) / (p1 - p0);
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(x)));
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(pts_.back().first)));
}

double SizeCdf::mean() const {
  double m = 0;
  for (size_t i = 1; i < pts_.size(); ++i)
    m += (pts_[i - 1].first + pts_[i].first) / 2 * (pts_[i].second - pts_[i - 1].second) / 100;
  return m;
}

std::vector<Flow> read_hpcc_flows(const std::string& path, const std::vector<int32_t>& host_of_node,
                                  uint64_t max_flows, FlowFileInfo* info) {
  TextInput in(path, "flows.file", false);
  if (!in.next()) in.fail("empty: expected the number of flows");
  if (in.fields() != 1)
    in.fail("expected the number of flows alone on the first line, found " +
            std::to_string(in.fields()) + " fields (a flow file starts with its count)");
  const uint64_t count = in.uint_at(0, "the number of flows", 0, max_flows);
  const uint32_t count_line = in.line();
  const uint64_t nodes = host_of_node.size();
  std::vector<Flow> flows;
  double last_start = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (!in.next())
      in.fail("expected " + std::to_string(count) + " flows (the count on line " +
              std::to_string(count_line) + "), found " + std::to_string(i));
    in.expect_fields(6, 6, "src dst priority dport bytes start_s");
    Flow fl;
    uint32_t host[2];
    for (size_t k = 0; k < 2; ++k) {
      const uint64_t node = in.uint_at(k, k ? "dst node" : "src node", 0, nodes - 1);
      if (host_of_node[node] < 0)
        in.fail(std::string(k ? "dst" : "src") + " node " + std::to_string(node) +
                " is a switch (flows name hosts by node id, as ns-3 HPCC does)");
      host[k] = static_cast<uint32_t>(host_of_node[node]);
    }
    if (host[0] == host[1]) in.fail("a flow from node " + in.field(0) + " to itself");
    fl.src = host[0], fl.dst = host[1];
    fl.priority = static_cast<uint32_t>(in.uint_at(2, "priority", 0, 7));
    fl.dport = static_cast<uint32_t>(in.uint_at(3, "dport", 0, 65535));
    fl.bytes = in.uint_at(4, "bytes", 1, kMaxFlowBytes);
    const double start = in.real_at(5, "start_s", 0, kMaxStartS);
    if (start < last_start)
      in.fail("start " + in.field(5) + " s is before the previous flow's; starts must not go back");
    last_start = start;
    fl.start_ps = static_cast<uint64_t>(std::llround(start * 1e12));
    fl.line = in.line();
    flows.push_back(fl);
  }
  // ns-3 HPCC reads the count's flows and no further (its own mix/flow.txt has more
  // flow lines and a description after them): the rest is ignored, and said.
  if (info) {
    info->count_line = count_line;
    info->ignored_from = in.rest_line();
  }
  return flows;
}

std::string hpcc_flows_text(const std::vector<Flow>& flows,
                            const std::vector<uint32_t>& host_nodes) {
  std::ostringstream os;
  os << flows.size() << "\n";
  for (const Flow& f : flows)
    os << host_nodes.at(f.src) << " " << host_nodes.at(f.dst) << " " << f.priority << " " << f.dport
       << " " << f.bytes << " " << std::fixed << std::setprecision(9)
       << static_cast<double>(f.start_ps) / 1e12 << "\n";
  return os.str();
}

std::vector<Flow> generate_flows(const WorkloadParams& p, const SizeCdf& cdf, uint32_t hosts) {
  const bool once = p.arrival == "once";
  if (!once && p.arrival != "poisson")
    fail("flows.arrival", "'" + p.arrival + "': expected poisson or once");
  if (!once && !(p.load > 0 && p.load < 1)) fail("flows.load", "must be in (0, 1)");
  if (hosts < 2) fail("flows", "needs at least 2 hosts");
  if (p.pattern != "random" && p.pattern != "permutation" && p.pattern != "incast" &&
      p.pattern != "mix")
    fail("flows.pattern", "'" + p.pattern + "': expected random, permutation, incast or mix");
  if (!once && !(cdf.mean() > 0))
    fail("flows.cdf", "the mean flow size is 0: Poisson arrivals would never space out");
  if (p.pattern == "mix" && (hosts % 2 || hosts < 4))
    fail("flows.pattern", "mix needs two equal halves of at least 2 hosts (two-dc)");
  if (!(p.inter_fraction >= 0 && p.inter_fraction <= 1))
    fail("flows.inter_fraction", "must be in [0, 1]");
  Rng rng = make_rng(p.seed, "workload");
  std::vector<uint32_t> perm(hosts);
  if (p.pattern == "permutation") {
    // A random derangement: shuffle until no host maps to itself (Fisher-Yates).
    std::iota(perm.begin(), perm.end(), 0u);
    for (bool ok = false; !ok;) {
      for (uint32_t i = hosts - 1; i > 0; --i) std::swap(perm[i], perm[rng() % (i + 1)]);
      ok = true;
      for (uint32_t i = 0; i < hosts; ++i) ok = ok && perm[i] != i;
    }
  }
  // Mean gap between a host's flow starts, ps.
  const double gap_ps = once ? 0 : cdf.mean() * 8 / (p.load * p.host_gbps) * 1000.0;
  const uint64_t end_ps = static_cast<uint64_t>(std::llround(p.duration_s * 1e12));
  const uint32_t half = hosts / 2;
  std::vector<Flow> flows;
  for (uint32_t src = 0; src < hosts; ++src) {
    if (p.pattern == "incast" && src == 0) continue;
    double t = 0;
    for (bool first = true;; first = false) {
      if (once) {
        if (!first) break;
      } else {
        t += -std::log(1.0 - unit(rng)) * gap_ps;
        if (t >= static_cast<double>(end_ps)) break;
      }
      Flow f;
      f.src = src;
      f.start_ps = static_cast<uint64_t>(t);
      f.bytes = cdf.sample(unit(rng));
      if (p.pattern == "random") {
        const uint32_t k = static_cast<uint32_t>(rng() % (hosts - 1));
        f.dst = k >= src ? k + 1 : k;
      } else if (p.pattern == "permutation") {
        f.dst = perm[src];
      } else if (p.pattern == "mix") {
        const uint32_t dc = src / half;
        if (unit(rng) < p.inter_fraction) {
          f.dst = (1 - dc) * half + static_cast<uint32_t>(rng() % half);
        } else {
          const uint32_t k = static_cast<uint32_t>(rng() % (half - 1));
          f.dst = dc * half + (k >= src % half ? k + 1 : k);
        }
      } else {
        f.dst = 0;
      }
      if (flows.size() == p.max_flows)  // before it grows: memory stays bounded
        fail("flows.duration_us", "the workload would hold more than " +
                                      std::to_string(p.max_flows) +
                                      " flows; shorten it or lower flows.load");
      flows.push_back(f);
    }
  }
  std::stable_sort(flows.begin(), flows.end(),
                   [](const Flow& a, const Flow& b) { return a.start_ps < b.start_ps; });
  return flows;
}

}  // namespace oonic::network
