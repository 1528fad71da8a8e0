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
  std::ifstream f(path);
  if (!f) fail(path, "cannot open size CDF");
  std::vector<std::pair<double, double>> pts;
  std::string line;
  for (uint32_t n = 1; std::getline(f, line); ++n) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream is(line);
    double x, p;
    std::string rest;
    if (!(is >> x)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      fail(path + ":" + std::to_string(n), "expected 'bytes cumulative-percent'");
    }
    if (!(is >> p) || (is >> rest))
      fail(path + ":" + std::to_string(n), "expected 'bytes cumulative-percent'");
    const std::string where = path + ":" + std::to_string(n);
    if (!pts.empty() && (x < pts.back().first || p < pts.back().second))
      fail(where, "sizes and percents must not decrease");
    pts.push_back({x, p});
  }
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

std::vector<Flow> read_hpcc_flows(const std::string& path, uint32_t hosts) {
  std::ifstream f(path);
  if (!f) fail(path, "cannot open flow file");
  std::string line;
  uint32_t n = 0;
  auto next = [&]() {
    while (std::getline(f, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") != std::string::npos) return true;
    }
    return false;
  };
  if (!next()) fail(path + ":1", "expected the number of flows");
  long long count = -1;
  {
    std::istringstream is(line);
    if (!(is >> count) || count < 0)
      fail(path + ":" + std::to_string(n), "expected the number of flows");
  }
  std::vector<Flow> flows;
  double last_start = 0;
  for (long long i = 0; i < count; ++i) {
    if (!next())
      fail(path + ":" + std::to_string(n + 1),
           "expected " + std::to_string(count) + " flows, found " + std::to_string(i));
    const std::string where = path + ":" + std::to_string(n);
    std::istringstream is(line);
    long long src, dst, prio, dport;
    double bytes, start;
    if (!(is >> src >> dst >> prio >> dport >> bytes >> start))
      fail(where, "expected 'src dst priority dport bytes start_s'");
    if (src < 0 || src >= hosts || dst < 0 || dst >= hosts)
      fail(where, "host out of range (" + std::to_string(hosts) + " hosts)");
    if (src == dst) fail(where, "a flow from host " + std::to_string(src) + " to itself");
    if (!(bytes >= 1)) fail(where, "a flow of no bytes");
    if (!(start >= 0) || start < last_start) fail(where, "start times must not go back");
    last_start = start;
    Flow fl;
    fl.src = static_cast<uint32_t>(src), fl.dst = static_cast<uint32_t>(dst);
    fl.priority = static_cast<uint32_t>(prio), fl.dport = static_cast<uint32_t>(dport);
    fl.bytes = static_cast<uint64_t>(bytes);
    fl.start_ps = static_cast<uint64_t>(std::llround(start * 1e12));
    flows.push_back(fl);
  }
  return flows;
}

std::string hpcc_flows_text(const std::vector<Flow>& flows) {
  std::ostringstream os;
  os << flows.size() << "\n";
  for (const Flow& f : flows)
    os << f.src << " " << f.dst << " " << f.priority << " " << f.dport << " " << f.bytes << " "
       << std::fixed << std::setprecision(9) << static_cast<double>(f.start_ps) / 1e12 << "\n";
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
      flows.push_back(f);
    }
  }
  std::stable_sort(flows.begin(), flows.end(),
                   [](const Flow& a, const Flow& b) { return a.start_ps < b.start_ps; });
  return flows;
}

}  // namespace oonic::network
