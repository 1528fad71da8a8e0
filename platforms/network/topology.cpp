#include "platforms/network/topology.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "model/core/error.h"
#include "model/core/number.h"
#include "platforms/network/text_input.h"

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
  const std::vector<uint32_t> ss = switches();
  std::ostringstream os;
  os << nodes.size() << " " << ss.size() << " " << links.size() << "\n";
  if (!ss.empty()) {
    for (uint32_t i = 0; i < ss.size(); ++i) os << (i ? " " : "") << ss[i];
    os << "\n";
  }
  os.precision(12);
  for (const Link& l : links)
    os << l.a << " " << l.b << " " << l.gbps << "Gbps " << l.delay_ns << "ns " << l.error_rate
       << "\n";
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

// "100Gbps" -> 100, "400Mbps" -> 0.4 (units G/M/K/bps as ns-3 HPCC writes them).
double rate_gbps(const TextInput& in, size_t i, double lo, double hi, const std::string& which) {
  const std::string& s = in.field(i);
  static const std::pair<const char*, double> kUnits[] = {
      {"Gbps", 1}, {"Mbps", 1e-3}, {"Kbps", 1e-6}, {"bps", 1e-9}};
  for (const auto& [unit, scale] : kUnits) {
    const size_t u = std::strlen(unit);
    if (s.size() <= u || s.compare(s.size() - u, u, unit) != 0) continue;
    const std::string num = s.substr(0, s.size() - u);
    if (num.back() == 'G' || num.back() == 'M' || num.back() == 'K') continue;  // "1Gbps" vs "bps"
    const std::optional<double> v = parse_real(num);
    if (v && *v * scale >= lo && *v * scale <= hi) return *v * scale;
    break;
  }
  in.fail(which + " rate '" + s + "': expected <number>Gbps (or Mbps, Kbps, bps) in " +
          range_text(lo, hi) + " Gbit/s");
}

// "1000ns" / "1us" / "0.001ms" / "0s" -> ns.
double delay_ns(const TextInput& in, size_t i, double hi) {
  const std::string& s = in.field(i);
  static const std::pair<const char*, double> kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const auto& [unit, scale] : kUnits) {
    const size_t u = std::strlen(unit);
    if (s.size() <= u || s.compare(s.size() - u, u, unit) != 0) continue;
    const std::string num = s.substr(0, s.size() - u);
    if (u == 1 && (num.back() == 'n' || num.back() == 'u' || num.back() == 'm')) continue;
    const std::optional<double> v = parse_real(num);
    if (v && *v * scale >= 0 && *v * scale <= hi) return *v * scale;
    break;
  }
  in.fail("delay '" + s + "': expected <number>ns (or us, ms, s) in " + range_text(0, hi) + " ns");
}

}  // namespace

Topology Topology::read_hpcc(const std::string& path, const Limits& lim) {
  TextInput in(path, "topology.file", false);
  const std::string header = "<nodes> <switches> <links>";
  if (!in.next()) in.fail("empty: expected '" + header + "'");
  in.expect_fields(3, 3, header);
  const uint64_t n = in.uint_at(0, "nodes", 2, kMaxNodes);
  const uint64_t sw = in.uint_at(1, "switches", 0, n);
  if (n - sw < 2)
    in.fail(std::to_string(sw) + " switches of " + std::to_string(n) +
            " nodes: a fabric needs at least two hosts");
  // Every node sits on a link, so the links bound the nodes (and what is allocated
  // before they are read).
  const uint64_t nl = in.uint_at(2, "links", (n + 1) / 2, kMaxNodes * 64);
  const uint32_t header_line = in.line();
  Topology t;
  t.source = path;
  std::vector<bool> is_sw(n, false);
  // The switch ids: ns-3 HPCC reads them as tokens, so they may span lines.
  for (uint64_t got = 0; got < sw;) {
    if (!in.next())
      in.fail("expected " + std::to_string(sw) + " switch ids (the header's count), found " +
              std::to_string(got));
    for (size_t i = 0; i < in.fields(); ++i, ++got) {
      if (got == sw)
        in.fail("more switch ids than the header's " + std::to_string(sw) + " ('" + in.field(i) +
                "')");
      const uint64_t id = in.uint_at(i, "switch id", 0, n - 1);
      if (is_sw[id]) in.fail("switch id " + std::to_string(id) + " listed twice");
      is_sw[id] = true;
    }
  }
  for (uint64_t i = 0; i < n; ++i)
    t.add_node(is_sw[i] ? Kind::kSwitch : Kind::kHost, "n" + std::to_string(i));
  std::vector<uint32_t> host_link_line(n, 0);
  const std::string form = "src dst <rate>Gbps <delay>ns [<error rate>]";
  for (uint64_t i = 0; i < nl; ++i) {
    if (!in.next())
      in.fail("expected " + std::to_string(nl) + " links (the header's count, line " +
              std::to_string(header_line) + "), found " + std::to_string(i));
    in.expect_fields(4, 5, form);
    const uint64_t a = in.uint_at(0, "src", 0, n - 1), b = in.uint_at(1, "dst", 0, n - 1);
    if (a == b) in.fail("a link from node " + std::to_string(a) + " to itself");
    const bool host_link = !is_sw[a] || !is_sw[b];  // two hosts joined directly: a pair
    for (const uint64_t h : {a, b})
      if (!is_sw[h] && host_link_line[h])
        in.fail("host " + std::to_string(h) + " already has a link (line " +
                std::to_string(host_link_line[h]) + "); a host has one NIC port");
    const double g = host_link ? rate_gbps(in, 2, lim.host_gbps_min, lim.host_gbps_max,
                                           "host link (the NIC's mac.rate_gbps)")
                               : rate_gbps(in, 2, lim.switch_gbps_min, lim.switch_gbps_max,
                                           "switch-to-switch link");
    const double d = delay_ns(in, 3, lim.delay_ns_max);
    const double err = in.fields() == 5 ? in.real_at(4, "error rate", 0, 1) : 0;
    for (const uint64_t h : {a, b})
      if (!is_sw[h]) host_link_line[h] = in.line();
    const uint32_t l = t.add_link(static_cast<uint32_t>(a), static_cast<uint32_t>(b), g, d, err);
    t.links[l].line = in.line();
  }
  if (in.next())
    in.fail("more lines than the header's " + std::to_string(nl) + " links (line " +
            std::to_string(header_line) + ")");
  for (uint64_t i = 0; i < n; ++i)
    if (t.ports[i].empty())
      throw Error(msg::kConfig, path + ":" + std::to_string(header_line) + ": node " +
                                    std::to_string(i) + " is on no link");
  return t;
}

Routes::Routes(const Topology& t) {
  const auto hosts = t.hosts();
  // dist_ and next_ hold a row per host over every node: bound them before allocating.
  if (static_cast<uint64_t>(hosts.size()) * t.nodes.size() > kMaxRouteEntries)
    throw Error(msg::kConfig, (t.source.empty() ? std::string("topology") : t.source) + ": " +
                                  std::to_string(hosts.size()) + " hosts x " +
                                  std::to_string(t.nodes.size()) +
                                  " nodes: the routing tables hold at most " +
                                  std::to_string(kMaxRouteEntries) + " (host, node) entries");
  host_index_.assign(t.nodes.size(), kFar);
  for (uint32_t i = 0; i < hosts.size(); ++i) host_index_[hosts[i]] = i;
  dist_.assign(hosts.size(), std::vector<uint32_t>(t.nodes.size(), kFar));
  hosts_ = hosts.size();
  next_.assign(t.nodes.size() * hosts.size(), 0);
  sets_.emplace_back();  // id 0: no port
  std::map<std::vector<uint32_t>, uint32_t> set_ids{{{}, 0}};
  std::vector<uint32_t> ports;
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
      if (d[h] == kFar) {
        // A file names the unreachable host's link line; a generated fabric its kind.
        std::string where = "topology";
        if (!t.source.empty()) {
          where = t.source;
          if (!t.ports[h].empty()) where += ":" + std::to_string(t.links[t.ports[h][0].link].line);
        }
        throw Error(msg::kConfig, where + ": host " + t.nodes[h].name + " cannot reach host " +
                                      t.nodes[hosts[i]].name + " (no path through switches)");
      }
    for (uint32_t n = 0; n < t.nodes.size(); ++n) {
      if (n == hosts[i] || d[n] == kFar) continue;
      ports.clear();
      for (uint32_t k = 0; k < t.ports[n].size(); ++k) {
        const uint32_t peer = t.ports[n][k].peer;
        if (d[peer] + 1 == d[n] && (peer == hosts[i] || !t.is_host(peer))) ports.push_back(k);
      }
      auto [it, fresh] = set_ids.emplace(ports, static_cast<uint32_t>(sets_.size()));
      if (fresh) sets_.push_back(ports);
      next_[size_t{n} * hosts_ + i] = it->second;
    }
  }
}

const std::vector<uint32_t>& Routes::next_ports(uint32_t node, uint32_t dst_host) const {
  return sets_[next_.at(size_t{node} * hosts_ + host_index_.at(dst_host))];
}

uint32_t Routes::hops(uint32_t node, uint32_t dst_host) const {
  return dist_[host_index_.at(dst_host)][node];
}

}  // namespace oonic::network
