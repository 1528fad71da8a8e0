// Topologies, shortest-path next hops and the equal-cost choice
// (platforms/network/topology.h, path_select.h), without the kernel.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/core/rng.h"
#include "platforms/network/path_select.h"
#include "platforms/network/topology.h"

namespace oonic::network {
namespace {

TEST(Topology, KpathsHasKEqualCostPathsBetweenTors) {
  Topology t = Topology::kpaths(4, 5, 40, 40, 1000);
  EXPECT_EQ(t.hosts().size(), 10u);
  EXPECT_EQ(t.switches().size(), 6u);  // 2 ToRs, 4 spines
  EXPECT_EQ(t.links.size(), 10u + 8u);
  Routes r(t);
  const uint32_t tor0 = 10, h0 = 0, h4 = 4, h5 = 5;
  EXPECT_EQ(t.nodes[tor0].name, "tor0");
  EXPECT_EQ(r.hops(h0, h5), 4u);  // host, ToR, spine, ToR, host
  EXPECT_EQ(r.hops(h0, h4), 2u);
  // From tor0: to a local host one port, to a remote host the 4 spine ports.
  EXPECT_EQ(r.next_ports(tor0, h4), (std::vector<uint32_t>{4}));
  EXPECT_EQ(r.next_ports(tor0, h5), (std::vector<uint32_t>{5, 6, 7, 8}));
  // A host has one way out; a spine one way down.
  EXPECT_EQ(r.next_ports(h0, h5), (std::vector<uint32_t>{0}));
  EXPECT_EQ(r.next_ports(12, h5).size(), 1u);
}

TEST(Topology, LeafSpineOfMeloAndMpRdma) {
  Topology t = Topology::leaf_spine(4, 32, 10, 40, 100, 1000);
  EXPECT_EQ(t.hosts().size(), 320u);
  EXPECT_EQ(t.switches().size(), 36u);
  Routes r(t);
  const uint32_t leaf0 = 320;
  EXPECT_EQ(r.next_ports(leaf0, 319).size(), 4u);
  EXPECT_EQ(r.next_ports(leaf0, 9).size(), 1u);
  EXPECT_EQ(r.hops(0, 319), 4u);
}

TEST(Topology, FatTreeOfK4) {
  Topology t = Topology::fat_tree(4, 100, 100, 1000);
  EXPECT_EQ(t.hosts().size(), 16u);              // k^3 / 4
  EXPECT_EQ(t.switches().size(), 8u + 8u + 4u);  // edge, aggregation, core
  EXPECT_EQ(t.links.size(), 16u + 16u + 16u);
  Routes r(t);
  const uint32_t edge0 = 16;
  EXPECT_EQ(r.hops(0, 1), 2u);                    // same edge switch
  EXPECT_EQ(r.hops(0, 2), 4u);                    // same pod: edge, aggregation, edge
  EXPECT_EQ(r.hops(0, 15), 6u);                   // other pod: through a core
  EXPECT_EQ(r.next_ports(edge0, 15).size(), 2u);  // both aggregation switches
  const uint32_t agg0 = 24;
  EXPECT_EQ(r.next_ports(agg0, 15).size(), 2u);  // its two cores
  EXPECT_EQ(r.next_ports(agg0, 2).size(), 1u);   // down to edge1
}

TEST(Topology, TwoDcJoinsTwoLeafSpinesByOneLongLink) {
  Topology t = Topology::two_dc(2, 2, 4, 100, 100, 1000, 400, 100000);
  EXPECT_EQ(t.hosts().size(), 16u);
  EXPECT_EQ(t.switches().size(), 2u * (2 + 2) + 2);
  const Topology::Link& dci = t.links.back();
  EXPECT_EQ(t.nodes[dci.a].name, "dc0_dci");
  EXPECT_EQ(t.nodes[dci.b].name, "dc1_dci");
  EXPECT_EQ(dci.gbps, 400);
  EXPECT_EQ(dci.delay_ns, 100000);
  Routes r(t);
  EXPECT_EQ(r.hops(0, 7), 4u);                // same DC, other leaf
  EXPECT_EQ(r.hops(0, 8), 7u);                // host, leaf, spine, dci, dci, spine, leaf, host
  EXPECT_EQ(r.next_ports(16, 8).size(), 2u);  // dc0_leaf0 -> either spine
}

TEST(Topology, PairIsOneLink) {
  Topology t = Topology::pair(100, 1000);
  Routes r(t);
  EXPECT_EQ(r.hops(0, 1), 1u);
  EXPECT_EQ(r.next_ports(0, 1), (std::vector<uint32_t>{0}));
}

// The fabric's ranges (TopologyParams::limits): host links as mac.rate_gbps.
constexpr Topology::Limits kLimits = {1, 1600, 0.001, 1e4, 1e10};

class TopologyFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    char tmpl[] = "/tmp/oonic-topo-XXXXXX";
    int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = tmpl;
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string error(const std::string& text) {
    try {
      Topology::read_hpcc(write(text), kLimits);
    } catch (const Error& e) {
      EXPECT_EQ(e.id(), msg::kConfig);
      return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }
  std::string path_;
};

TEST_F(TopologyFile, ReadsNs3HpccTopologyTxt) {
  // Two hosts under switch 2, two under switch 3, the switches joined by two links.
  Topology t = Topology::read_hpcc(
      write("6 2 6\n2 3\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 0.001ms 0\n4 3 100Gbps 1us 0\n"
            "5 3 25Gbps 1000ns 0.01\n2 3 400Gbps 1000ns 0\n2 3 400Gbps 1000ns 0\n"),
      kLimits);
  EXPECT_EQ(t.hosts(), (std::vector<uint32_t>{0, 1, 4, 5}));
  EXPECT_EQ(t.switches(), (std::vector<uint32_t>{2, 3}));
  EXPECT_DOUBLE_EQ(t.links[1].delay_ns, 1000);
  EXPECT_DOUBLE_EQ(t.links[3].gbps, 25);
  EXPECT_DOUBLE_EQ(t.links[3].error_rate, 0.01);
  Routes r(t);
  EXPECT_EQ(r.next_ports(2, 5).size(), 2u);  // the two parallel links
  EXPECT_EQ(r.hops(0, 5), 3u);
}

TEST_F(TopologyFile, ErrorsNameFileAndLine) {
  // Each: file text, the line and words the error must carry.
  const std::pair<const char*, const char*> cases[] = {
      {"3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Xbps 1000ns 0\n",
       ":4: host link (the NIC's "
       "mac.rate_gbps) rate '100Xbps'"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns 0\n", ":4: expected 2 links (the header's count, line 1)"},
      {"3 1 1\n7\n", ":1: links '1'"},  // 3 nodes need 2 links
      {"3 1 2\n7\n", ":2: switch id '7'"},
      {"3 1 2\n2\n0 0 100Gbps 1000ns 0\n", ":3: a link from node 0 to itself"},
      {"3 1 2\n2\n0 2 100Gbps 10parsecs 0\n", ":3: delay '10parsecs'"},
      // Every node a switch: no host to run a flow on (once a SIGSEGV).
      {"3 3 2\n0 1 2\n0 1 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n",
       ":1: 3 switches of 3 nodes: a fabric needs at least two hosts"},
      // Huge node counts are bounded by the links before anything is allocated.
      {"200000 1 65\n", ":1: links '65'"},
      {"3000000000 1 65\n", ":1: nodes '3000000000'"},
      {"3 1 2 9\n", ":1: expected '<nodes> <switches> <links>', found 4"},
      {"4 1 3\n2 2\n", ":2: more switch ids than the header's 1 ('2')"},
      {"5 2 3\n3\n", ":3: expected 2 switch ids (the header's count), found 1"},
      {"4 2 3\n2 2\n", ":2: switch id 2 listed twice"},
      {"3 1 2\n2\n0 2 1601Gbps 1000ns 0\n",
       ":3: host link (the NIC's mac.rate_gbps) rate '1601Gbps'"},
      {"3 1 2\n2\n0 2 1bps 1000ns 0\n", ":3: host link"},
      {"3 1 2\n2\n0 2 infGbps 1000ns 0\n", ":3: host link"},
      {"3 1 2\n2\n0 2 1e99Gbps 1000ns 0\n", ":3: host link"},
      {"3 1 2\n2\n0 2 1e-300Gbps 1000ns 0\n", ":3: host link"},
      {"3 1 2\n2\n0 2 100Gbps 1e99ns 0\n", ":3: delay '1e99ns'"},
      {"3 1 2\n2\n0 2 100Gbps infns 0\n", ":3: delay 'infns'"},
      {"3 1 2\n2\n0 2 100Gbps 18446744073709551616ns 0\n", ":3: delay"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns nan\n", ":3: error rate 'nan'"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns inf\n", ":3: error rate 'inf'"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns abc\n", ":3: error rate 'abc'"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns 0x\n", ":3: error rate '0x'"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns 0 junk\n", ":3: expected 'src dst"},
      {"3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n0 2 1Gbps 1ns 0\n",
       ":5: more lines than the header's 2 links"},
      {"4 1 2\n3\n0 3 100Gbps 1000ns 0\n0 3 100Gbps 1000ns 0\n", ":4: host 0 already has a link"},
      {"4 1 2\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n", ":1: node 2 is on no link"},
      {"5 2 3\n3 4\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 4 1e-300Gbps 1000ns 0\n",
       ":5: host link"},
  };
  for (const auto& [text, want] : cases) {
    const std::string e = error(text);
    EXPECT_NE(e.find(path_ + want), std::string::npos) << text << "\n" << e;
  }
  // A host that cannot reach another names the file and its link's line.
  write(
      "6 2 4\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n"
      "3 5 100Gbps 1000ns 0\n");
  Topology t = Topology::read_hpcc(path_, kLimits);
  try {
    Routes r(t);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ":5: host n2 cannot reach host n0"),
              std::string::npos)
        << e.what();
  }
  // Two hosts joined directly (what a pair run writes) read back; switch ids may span
  // lines, as ns-3 HPCC reads them as tokens.
  write("2 0 1\n0 1 100Gbps 1000ns 0\n");
  EXPECT_EQ(Topology::read_hpcc(path_, kLimits).hosts().size(), 2u);
  write(
      "5 2 4\n3\n4\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 4 100Gbps 1000ns 0\n"
      "3 4 100Gbps 1000ns 0\n");
  EXPECT_EQ(Topology::read_hpcc(path_, kLimits).switches(), (std::vector<uint32_t>{3, 4}));
  // A slow switch-to-switch link is fine; a directory is not a topology.
  write("4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 1Mbps 1000ns\n");
  EXPECT_DOUBLE_EQ(Topology::read_hpcc(path_, kLimits).links[2].gbps, 0.001);
  EXPECT_THROW(Topology::read_hpcc("/tmp", kLimits), Error);
}

// The documented hash, computed here from its definition.
uint64_t flow_hash(uint64_t seed, const FlowKey& f, uint64_t x = 0) {
  const uint64_t ports = (uint64_t{f.sport} << 16 | f.dport) ^ (uint64_t{f.proto} << 32);
  return splitmix64(seed ^ splitmix64(f.src_ip ^ splitmix64(f.dst_ip ^ splitmix64(ports)) ^ x));
}

TEST(PathSelect, EcmpSendsEachFlowToThePortItsHashNames) {
  RoutingParams p;
  PathSelect s(p, 1, "tor0");
  const uint64_t seed = make_rng(1, "tor0.routing")();
  const std::vector<uint32_t> ports{5, 6, 7, 8};
  FlowKey a{0x0a000001, 0x0a000006, 49152}, b{0x0a000001, 0x0a000006, 49153};
  EXPECT_EQ(s.hash(a), flow_hash(seed, a));
  const uint32_t pa = ports[flow_hash(seed, a) % 4], pb = ports[flow_hash(seed, b) % 4];
  for (int i = 0; i < 10; ++i) {  // every packet of a flow takes its port
    EXPECT_EQ(s.choose(a, 5, ports, i * 1000), pa);
    EXPECT_EQ(s.choose(b, 5, ports, i * 1000), pb);
  }
  // Another switch (seed) may split them differently; over many source ports the
  // four ports share the flows.
  std::map<uint32_t, int> n;
  for (uint16_t sp = 0; sp < 4000; ++sp) ++n[s.choose({1, 2, sp}, 5, ports, 0)];
  for (uint32_t port : ports) EXPECT_NEAR(n[port], 1000, 4 * std::sqrt(4000 * 0.25 * 0.75));
}

TEST(PathSelect, SprayRoundRobinCountsAreEqualAndRandomAreBinomial) {
  RoutingParams p;
  p.mode = "spray";
  p.spray_mode = "rr";
  PathSelect rr(p, 1, "tor0");
  const std::vector<uint32_t> ports{5, 6, 7, 8};
  std::map<uint32_t, int> n;
  for (int i = 0; i < 1000; ++i) ++n[rr.choose({1, 2, 49152}, 5, ports, 0)];
  for (uint32_t port : ports) EXPECT_EQ(n[port], 250);
  EXPECT_EQ(rr.choose({1, 2, 49152}, 5, ports, 0), 5u);  // the next in turn
  p.spray_mode = "random";
  PathSelect rnd(p, 1, "tor0");
  n.clear();
  const int total = 8000;
  for (int i = 0; i < total; ++i) ++n[rnd.choose({1, 2, 49152}, 5, ports, 0)];
  for (uint32_t port : ports) EXPECT_NEAR(n[port], total / 4, 4 * std::sqrt(total * 0.1875));
}

TEST(PathSelect, FlowletKeepsItsPortUntilAnIdleGap) {
  RoutingParams p;
  p.mode = "flowlet";
  p.flowlet_gap_ns = 10;  // 10,000 ps
  PathSelect s(p, 3, "tor0");
  const uint64_t seed = make_rng(3, "tor0.routing")();
  const std::vector<uint32_t> ports{5, 6, 7, 8};
  FlowKey f{1, 2, 49152};
  const uint32_t first = ports[flow_hash(seed, f) % 4];
  EXPECT_EQ(s.choose(f, 5, ports, 0), first);
  EXPECT_EQ(s.choose(f, 5, ports, 10000), first);  // a gap of exactly 10 ns: same flowlet
  EXPECT_EQ(s.choose(f, 5, ports, 20001), ports[flow_hash(seed, f, 1) % 4]);  // > 10 ns
  EXPECT_EQ(s.choose(f, 5, ports, 40002), ports[flow_hash(seed, f, 2) % 4]);
}

TEST(PathSelect, AdaptiveTakesTheLeastLoadedPort) {
  RoutingParams p;
  p.mode = "adaptive";
  PathSelect s(p, 1, "tor0");
  const std::vector<uint32_t> ports{5, 6, 7, 8};
  std::map<uint32_t, uint64_t> q{{5, 3000}, {6, 1000}, {7, 2000}, {8, 1000}};
  auto load = [&](uint32_t port) { return q[port]; };
  for (uint16_t sp = 0; sp < 50; ++sp) {
    uint32_t c = s.choose({1, 2, sp}, 5, ports, 0, load);
    EXPECT_TRUE(c == 6 || c == 8) << c;  // the two with 1000 B
  }
  q[8] = 0;
  EXPECT_EQ(s.choose({1, 2, 7}, 5, ports, 0, load), 8u);
}

TEST(PathSelect, UnknownModeNamesTheKey) {
  RoutingParams p;
  p.mode = "teleport";
  try {
    PathSelect s(p, 1, "x");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("routing.mode 'teleport'"), std::string::npos);
  }
}

}  // namespace
}  // namespace oonic::network
