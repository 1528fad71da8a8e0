// The fabric's shape, as plain C++: hosts and switches joined by full-duplex
// links (rate, propagation delay), each node's ports in link order, generated
// by name (pair, kpaths, leaf-spine) or read from ns-3 HPCC's topology.txt, and
// the shortest-path next hops every switch routes by (issue 15).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace oonic::network {

struct Topology {
  enum class Kind : uint8_t { kHost, kSwitch };
  struct Node {
    Kind kind = Kind::kHost;
    std::string name;  // "h3", "tor1", "spine0", or "n<id>" for a file
  };
  struct Link {
    uint32_t a = 0, b = 0;  // node ids
    double gbps = 100;
    double delay_ns = 1000;
    double error_rate = 0;  // topology.txt's per-link loss rate
    uint32_t line = 0;      // read_hpcc: the file's line (0: generated)
  };
  struct Port {
    uint32_t link;  // index into links
    uint32_t peer;  // node at the other end
  };

  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<std::vector<Port>> ports;  // per node, in the order its links were added
  std::string source;                    // read_hpcc: the file (errors name it); else empty

  uint32_t add_node(Kind k, std::string name);
  uint32_t add_link(uint32_t a, uint32_t b, double gbps, double delay_ns, double error_rate = 0);
  std::vector<uint32_t> hosts() const;
  std::vector<uint32_t> switches() const;
  bool is_host(uint32_t n) const { return nodes[n].kind == Kind::kHost; }

  // Two hosts on one link (today's `oonic run`).
  static Topology pair(double gbps, double delay_ns);
  // Two ToRs joined by k spines (one path each), h hosts per ToR (MP-RDMA's
  // testbed: k 4, h 5, 40 Gbit/s).
  static Topology kpaths(uint32_t k, uint32_t hosts_per_tor, double host_gbps, double fabric_gbps,
                         double delay_ns);
  // s spines, l leaves (every leaf to every spine), h hosts per leaf.
  static Topology leaf_spine(uint32_t spines, uint32_t leaves, uint32_t hosts_per_leaf,
                             double host_gbps, double fabric_gbps, double delay_ns);
  // A k-ary fat-tree (k even): k pods of k/2 edge and k/2 aggregation switches,
  // (k/2)^2 cores, k/2 hosts per edge switch (k^3/4 hosts).
  static Topology fat_tree(uint32_t k, double host_gbps, double fabric_gbps, double delay_ns);
  // Two leaf-spine data centres (hosts 0 .. n-1 in dc0, n .. 2n-1 in dc1), each
  // with a DCI switch joined to every spine of its DC; the two DCI switches
  // share one long-haul link (THEMIS' setting).
  static Topology two_dc(uint32_t spines, uint32_t leaves, uint32_t hosts_per_leaf,
                         double host_gbps, double fabric_gbps, double delay_ns, double dci_gbps,
                         double dci_delay_ns);
  // What a link read from a file may carry: a host link feeds a NIC's
  // mac.rate_gbps, a switch-to-switch link a switch port (topology.fabric_gbps).
  struct Limits {
    double host_gbps_min, host_gbps_max;
    double switch_gbps_min, switch_gbps_max;
    double delay_ns_max;
  };
  static constexpr uint32_t kMaxNodes = 1u << 20;
  // ns-3 HPCC's topology.txt: "<nodes> <switches> <links>", the line of switch ids
  // (absent when there are none), then "src dst <rate>(G|M|K)bps <delay>(ns|us|ms|s)
  // [<error rate>]" a link. Node ids are kept. Strict (text_input.h): every node
  // on a link, a host on exactly one, at least two hosts, no field left over.
  // Throws oonic::Error (msg::kConfig) naming the file and line.
  static Topology read_hpcc(const std::string& path, const Limits& limits);
  // The same format written out, node ids kept; read_hpcc reads it back.
  std::string hpcc_text() const;
};

// Shortest paths (in hops) from every switch to every host: the egress ports
// on a shortest path, in port order (the equal-cost set routing chooses from).
class Routes {
 public:
  // A table entry per (host, node): 8 bytes (a distance and the id of its port set;
  // the sets are shared, a fabric has few), so at most 128 MB.
  static constexpr uint64_t kMaxRouteEntries = uint64_t{1} << 24;
  explicit Routes(const Topology& t);  // throws Error(kConfig) if a host cannot reach another
  const std::vector<uint32_t>& next_ports(uint32_t node, uint32_t dst_host) const;
  uint32_t hops(uint32_t node, uint32_t dst_host) const;

 private:
  std::vector<uint32_t> host_index_;         // node -> index among hosts
  std::vector<std::vector<uint32_t>> dist_;  // [host index][node]
  size_t hosts_ = 0;
  std::vector<uint32_t> next_;               // [node * hosts + host index] -> port set id
  std::vector<std::vector<uint32_t>> sets_;  // port sets (ascending ports), each once
};

}  // namespace oonic::network
