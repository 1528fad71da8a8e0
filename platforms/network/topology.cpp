#include "platforms/network/topology.h"

#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <limits>
#include <sstream>

#include "model/core/error.h"

namespace oonic::network {

namespace {
constexpr uint32_t kFar = std::numeric_limits<uint32_t>::max();
}  // namespace

uint32_t Topology::add_node(Kind k, std::string name) {
  nodes.push_back({k, std::move(name)});
  ports.emplace_back();
  return static_cast<uint32_t>(nodes.size() - 1);
}

uint32_t Topology::add_link(uint32_t a, uint32_t b, double gbps, double delay_ns,
                            double error_rate) {
  const uint32_t l = static_cast<uint32_t>(links.size());
  links.push_back({a, b, gbps, delay_ns, error_rate});
  ports[a].push_back({l, b});
  ports[b].push_back({l, a});
  return l;
}

std::vector<uint32_t> Topology::hosts() const {
  std::vector<uint32_t> v;
  for (uint32_t n = 0; n < nodes.size(); ++n)
    if (is_host(n)) v.push_back(n);
  return v;
}

std::string Topology::hpcc_text() const {
  std::vector<uint32_t> id(nodes.size());
  const std::vector<uint32_t> hs = hosts(), ss = switches();
  for (uint32_t i = 0; i < hs.size(); ++i) id[hs[i]] = i;
  for (uint32_t i = 0; i < ss.size(); ++i) id[ss[i]] = static_cast<uint32_t>(hs.size()) + i;
  std::ostringstream os;
  os << nodes.size() << " " << ss.size() << " " << links.size() << "\n";
  for (uint32_t i = 0; i < ss.size(); ++i) os << (i ? " " : "") << id[ss[i]];
  os << "\n";
  os.precision(12);
  for (const Link& l : links)
    os << id[l.a] << " " << id[l.b] << " " << l.gbps << "Gbps " << l.delay_ns << "ns "
       << l.error_rate << "\n";
  return os.str();
}

std::vector<uint32_t> Topology::switches() const {
  std::vector<uint32_t> v;
  for (uint32_t n = 0; n < nodes.size(); ++n)
    if (!is_host(n)) v.push_back(n);
  return v;
}

Topology Topology::pair(double gbps, double delay_ns) {
  Topology t;
  t.add_node(Kind::kHost, "h0");
  t.add_node(Kind::kHost, "h1");
  t.add_link(0, 1, gbps, delay_ns);
  return t;
}

Topology Topology::kpaths(uint32_t k, uint32_t hosts_per_tor, double host_gbps, double fabric_gbps,
                          double delay_ns) {
  Topology t;
  std::vector<uint32_t> h;
  for (uint32_t i = 0; i < 2 * hosts_per_tor; ++i)
    h.push_back(t.add_node(Kind::kHost, "h" + std::to_string(i)));
  const uint32_t tor[2] = {t.add_node(Kind::kSwitch, "tor0"), t.add_node(Kind::kSwitch, "tor1")};
  for (uint32_t i = 0; i < h.size(); ++i)
    t.add_link(h[i], tor[i / hosts_per_tor], host_gbps, delay_ns);
  for (uint32_t p = 0; p < k; ++p) {
    const uint32_t s = t.add_node(Kind::kSwitch, "spine" + std::to_string(p));
    t.add_link(tor[0], s, fabric_gbps, delay_ns);
    t.add_link(tor[1], s, fabric_gbps, delay_ns);
  }
  return t;
}

Topology Topology::leaf_spine(uint32_t spines, uint32_t leaves, uint32_t hosts_per_leaf,
                              double host_gbps, double fabric_gbps, double delay_ns) {
  Topology t;
  std::vector<uint32_t> h, leaf, spine;
  for (uint32_t i = 0; i < leaves * hosts_per_leaf; ++i)
    h.push_back(t.add_node(Kind::kHost, "h" + std::to_string(i)));
  for (uint32_t i = 0; i < leaves; ++i)
    leaf.push_back(t.add_node(Kind::kSwitch, "leaf" + std::to_string(i)));
  for (uint32_t i = 0; i < spines; ++i)
    spine.push_back(t.add_node(Kind::kSwitch, "spine" + std::to_string(i)));
  for (uint32_t i = 0; i < h.size(); ++i)
    t.add_link(h[i], leaf[i / hosts_per_leaf], host_gbps, delay_ns);
  for (uint32_t l : leaf)
    for (uint32_t s : spine) t.add_link(l, s, fabric_gbps, delay_ns);
  return t;
}

Topology Topology::fat_tree(uint32_t k, double host_gbps, double fabric_gbps, double delay_ns) {
  Topology t;
  const uint32_t half = k / 2;
  std::vector<uint32_t> h, edge, agg, core;
  for (uint32_t i = 0; i < k * half * half; ++i)
    h.push_back(t.add_node(Kind::kHost, "h" + std::to_string(i)));
  for (uint32_t i = 0; i < k * half; ++i)
    edge.push_back(t.add_node(Kind::kSwitch, "edge" + std::to_string(i)));
  for (uint32_t i = 0; i < k * half; ++i)
    agg.push_back(t.add_node(Kind::kSwitch, "agg" + std::to_string(i)));
  for (uint32_t i = 0; i < half * half; ++i)
    core.push_back(t.add_node(Kind::kSwitch, "core" + std::to_string(i)));
  for (uint32_t i = 0; i < h.size(); ++i) t.add_link(h[i], edge[i / half], host_gbps, delay_ns);
  for (uint32_t pod = 0; pod < k; ++pod)
    for (uint32_t e = 0; e < half; ++e)
      for (uint32_t a = 0; a < half; ++a)
        t.add_link(edge[pod * half + e], agg[pod * half + a], fabric_gbps, delay_ns);
  // Aggregation switch a of every pod reaches cores a*half .. a*half + half - 1.
  for (uint32_t pod = 0; pod < k; ++pod)
    for (uint32_t a = 0; a < half; ++a)
      for (uint32_t c = 0; c < half; ++c)
        t.add_link(agg[pod * half + a], core[a * half + c], fabric_gbps, delay_ns);
  return t;
}

Topology Topology::two_dc(uint32_t spines, uint32_t leaves, uint32_t hosts_per_leaf,
                          double host_gbps, double fabric_gbps, double delay_ns, double dci_gbps,
                          double dci_delay_ns) {
  Topology t;
  std::vector<uint32_t> h, leaf, spine;
  const uint32_t per_dc = leaves * hosts_per_leaf;
  for (uint32_t i = 0; i < 2 * per_dc; ++i)
    h.push_back(t.add_node(Kind::kHost, "h" + std::to_string(i)));
  for (uint32_t d = 0; d < 2; ++d)
    for (uint32_t i = 0; i < leaves; ++i)
      leaf.push_back(
          t.add_node(Kind::kSwitch, "dc" + std::to_string(d) + "_leaf" + std::to_string(i)));
  for (uint32_t d = 0; d < 2; ++d)
    for (uint32_t i = 0; i < spines; ++i)
      spine.push_back(
          t.add_node(Kind::kSwitch, "dc" + std::to_string(d) + "_spine" + std::to_string(i)));
  const uint32_t dci[2] = {t.add_node(Kind::kSwitch, "dc0_dci"),
                           t.add_node(Kind::kSwitch, "dc1_dci")};
  for (uint32_t i = 0; i < h.size(); ++i)
    t.add_link(h[i], leaf[i / hosts_per_leaf], host_gbps, delay_ns);
  for (uint32_t d = 0; d < 2; ++d) {
    for (uint32_t l = 0; l < leaves; ++l)
      for (uint32_t s = 0; s < spines; ++s)
        t.add_link(leaf[d * leaves + l], spine[d * spines + s], fabric_gbps, delay_ns);
    for (uint32_t s = 0; s < spines; ++s)
      t.add_link(spine[d * spines + s], dci[d], fabric_gbps, delay_ns);
  }
  t.add_link(dci[0], dci[1], dci_gbps, dci_delay_ns);
  return t;
}

namespace {

// "100Gbps" -> 100; "400Mbps" -> 0.4. Returns NaN when not a rate.
double parse_rate_gbps(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit = end ? end : "";
  if (end == s.c_str() || !(v > 0)) return NAN;
  if (unit == "Gbps") return v;
  if (unit == "Mbps") return v / 1e3;
  if (unit == "Kbps") return v / 1e6;
  if (unit == "bps") return v / 1e9;
  return NAN;
}

// "1000ns" / "1us" / "0.001ms" / "0s" -> ns. NaN when not a delay.
double parse_delay_ns(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  const std::string unit = end ? end : "";
  if (end == s.c_str() || !(v >= 0)) return NAN;
  if (unit == "ns") return v;
  if (unit == "us") return v * 1e3;
  if (unit == "ms") return v * 1e6;
  if (unit == "s") return v * 1e9;
  return NAN;
}

}  // namespace

Topology Topology::read_hpcc(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error(msg::kConfig, path + ": cannot open topology");
  std::string line;
  uint32_t lineno = 0;
  auto fail = [&](const std::string& what) {
    throw Error(msg::kConfig, path + ":" + std::to_string(lineno) + ": " + what);
  };
  auto next_line = [&](bool required) {
    while (std::getline(f, line)) {
      ++lineno;
      if (line.find_first_not_of(" \t\r") != std::string::npos) return true;
    }
    if (required) ++lineno, fail("unexpected end of file");
    return false;
  };
  next_line(true);
  long long n = -1, sw = -1, nl = -1;
  {
    std::istringstream is(line);
    if (!(is >> n >> sw >> nl) || n <= 0 || sw < 0 || sw > n || nl < 0)
      fail("expected '<nodes> <switches> <links>'");
  }
  Topology t;
  std::vector<bool> is_sw(static_cast<size_t>(n), false);
  if (sw > 0) {
    next_line(true);
    std::istringstream is(line);
    for (long long i = 0; i < sw; ++i) {
      long long id;
      if (!(is >> id)) fail("expected " + std::to_string(sw) + " switch ids");
      if (id < 0 || id >= n) fail("switch id " + std::to_string(id) + " is not a node");
      is_sw[static_cast<size_t>(id)] = true;
    }
  }
  for (long long i = 0; i < n; ++i)
    t.add_node(is_sw[static_cast<size_t>(i)] ? Kind::kSwitch : Kind::kHost,
               "n" + std::to_string(i));
  for (long long i = 0; i < nl; ++i) {
    next_line(true);
    std::istringstream is(line);
    long long a, b;
    std::string rate, delay;
    double err = 0;
    if (!(is >> a >> b >> rate >> delay))
      fail("expected 'src dst <rate>Gbps <delay>ns <error rate>'");
    is >> err;
    if (a < 0 || a >= n || b < 0 || b >= n || a == b)
      fail("link " + std::to_string(a) + " - " + std::to_string(b) + ": not two distinct nodes");
    const double g = parse_rate_gbps(rate);
    if (std::isnan(g)) fail("rate '" + rate + "': expected e.g. 100Gbps");
    const double d = parse_delay_ns(delay);
    if (std::isnan(d)) fail("delay '" + delay + "': expected e.g. 1000ns or 0.001ms");
    if (!(err >= 0 && err <= 1)) fail("error rate must be in [0, 1]");
    t.add_link(static_cast<uint32_t>(a), static_cast<uint32_t>(b), g, d, err);
  }
  return t;
}

Routes::Routes(const Topology& t) {
  const auto hosts = t.hosts();
  host_index_.assign(t.nodes.size(), kFar);
  for (uint32_t i = 0; i < hosts.size(); ++i) host_index_[hosts[i]] = i;
  dist_.assign(hosts.size(), std::vector<uint32_t>(t.nodes.size(), kFar));
  next_.assign(t.nodes.size(), std::vector<std::vector<uint32_t>>(hosts.size()));
  for (uint32_t i = 0; i < hosts.size(); ++i) {
    // Breadth first from the host; paths never cross another host.
    auto& d = dist_[i];
    std::deque<uint32_t> q{hosts[i]};
    d[hosts[i]] = 0;
    while (!q.empty()) {
      const uint32_t u = q.front();
      q.pop_front();
      if (u != hosts[i] && t.is_host(u)) continue;
      for (const auto& p : t.ports[u])
        if (d[p.peer] == kFar) d[p.peer] = d[u] + 1, q.push_back(p.peer);
    }
    for (uint32_t h : hosts)
      if (d[h] == kFar)
        throw Error(msg::kConfig, "topology: host " + t.nodes[h].name + " cannot reach host " +
                                      t.nodes[hosts[i]].name);
    for (uint32_t n = 0; n < t.nodes.size(); ++n) {
      if (n == hosts[i] || d[n] == kFar) continue;
      for (uint32_t k = 0; k < t.ports[n].size(); ++k) {
        const uint32_t peer = t.ports[n][k].peer;
        if (d[peer] + 1 == d[n] && (peer == hosts[i] || !t.is_host(peer))) next_[n][i].push_back(k);
      }
    }
  }
}

const std::vector<uint32_t>& Routes::next_ports(uint32_t node, uint32_t dst_host) const {
  return next_[node][host_index_.at(dst_host)];
}

uint32_t Routes::hops(uint32_t node, uint32_t dst_host) const {
  return dist_[host_index_.at(dst_host)][node];
}

}  // namespace oonic::network
