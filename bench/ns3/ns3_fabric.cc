// The fabric benchmark's peer: ns-3's packet-level model of the network and
// traffic of an oonic fabric run. It reads the run's own topology.txt and
// flows.txt (ns-3 HPCC's formats: oonic writes both into its results), builds
// every node (hosts and switches alike) as an ns-3 IPv4 node joined by
// point-to-point links of the listed rate and delay, routes by global routing
// with equal-cost paths taken at random per packet, and sends each flow as UDP
// datagrams of --payload bytes at its host link's rate from its start time.
// No transport: no ACKs, no retransmission, no congestion control; queues are
// ns-3's defaults (drop-tail). What it measures is ns-3's cost per packet-hop:
// it prints the frames received by every device (packet-hops), the datagrams
// delivered, and the simulation's wall time; scripts/bench times the process.
//
// usage: ns3-fabric-peer --topology=FILE --flows=FILE [--payload=B]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

namespace {

uint64_t g_hops = 0;

void on_rx(ns3::Ptr<const ns3::Packet>) {
  ++g_hops;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "ns3-fabric-peer: %s\n", what.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string topo_path, flows_path;
  uint32_t payload = 1024;
  ns3::CommandLine cmd(__FILE__);
  cmd.AddValue("topology", "ns-3 HPCC topology.txt (oonic's results have one)", topo_path);
  cmd.AddValue("flows", "ns-3 HPCC flow file (oonic's flows.txt)", flows_path);
  cmd.AddValue("payload", "UDP payload bytes per datagram (oonic's nic.pmtu_bytes)", payload);
  cmd.Parse(argc, argv);
  if (topo_path.empty() || flows_path.empty()) die("--topology and --flows are required");

  std::ifstream tf(topo_path);
  if (!tf) die("cannot read " + topo_path);
  uint32_t n_nodes = 0, n_switches = 0, n_links = 0;
  tf >> n_nodes >> n_switches >> n_links;
  std::vector<bool> is_switch(n_nodes, false);
  for (uint32_t i = 0; i < n_switches; ++i) {
    uint32_t s;
    tf >> s;
    if (s >= n_nodes) die(topo_path + ": switch id out of range");
    is_switch[s] = true;
  }
  ns3::Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", ns3::BooleanValue(true));
  ns3::NodeContainer nodes;
  nodes.Create(n_nodes);
  ns3::InternetStackHelper stack;
  stack.Install(nodes);
  ns3::Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
  std::vector<ns3::Ipv4Address> host_ip(n_nodes);
  std::vector<double> host_gbps(n_nodes, 0);
  for (uint32_t i = 0; i < n_links; ++i) {
    uint32_t a, b;
    std::string rate, delay;
    double err;
    if (!(tf >> a >> b >> rate >> delay >> err) || a >= n_nodes || b >= n_nodes)
      die(topo_path + ": bad link line " + std::to_string(i + 1));
    ns3::PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", ns3::StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", ns3::StringValue(delay));
    ns3::NetDeviceContainer d = p2p.Install(nodes.Get(a), nodes.Get(b));
    ns3::Ipv4InterfaceContainer ifs = addr.Assign(d);
    addr.NewNetwork();
    const double gbps = ns3::DataRate(rate).GetBitRate() / 1e9;
    if (!is_switch[a]) host_ip[a] = ifs.GetAddress(0), host_gbps[a] = gbps;
    if (!is_switch[b]) host_ip[b] = ifs.GetAddress(1), host_gbps[b] = gbps;
  }
  ns3::Ipv4GlobalRoutingHelper::PopulateRoutingTables();
  ns3::Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/MacRx",
                                     ns3::MakeCallback(&on_rx));

  std::ifstream ff(flows_path);
  if (!ff) die("cannot read " + flows_path);
  uint32_t n_flows = 0;
  ff >> n_flows;
  const uint16_t port = 4791;  // RoCEv2
  std::map<uint32_t, ns3::Ptr<ns3::UdpServer>> servers;
  uint64_t sent = 0;
  for (uint32_t i = 0; i < n_flows; ++i) {
    uint32_t src, dst, prio, dport;
    uint64_t bytes;
    double start_s;
    if (!(ff >> src >> dst >> prio >> dport >> bytes >> start_s) || src >= n_nodes ||
        dst >= n_nodes || is_switch[src] || is_switch[dst])
      die(flows_path + ": bad flow line " + std::to_string(i + 2));
    if (!servers.count(dst)) {
      ns3::UdpServerHelper server(port);
      ns3::ApplicationContainer a = server.Install(nodes.Get(dst));
      a.Start(ns3::Seconds(0));
      servers[dst] = ns3::DynamicCast<ns3::UdpServer>(a.Get(0));
    }
    const uint32_t packets =
        static_cast<uint32_t>(std::max<uint64_t>(1, (bytes + payload - 1) / payload));
    sent += packets;
    // One datagram per wire time at the host's link rate (payload + UDP/IP + PPP).
    const double wire_bits = (payload + 8 + 20 + 2) * 8.0;
    ns3::UdpClientHelper client(host_ip[dst], port);
    client.SetAttribute("MaxPackets", ns3::UintegerValue(packets));
    client.SetAttribute("Interval", ns3::TimeValue(ns3::PicoSeconds(static_cast<uint64_t>(
                                        wire_bits * 1000.0 / host_gbps[src]))));
    client.SetAttribute("PacketSize", ns3::UintegerValue(payload));
    ns3::ApplicationContainer c = client.Install(nodes.Get(src));
    c.Start(ns3::Seconds(start_s));
  }

  auto t0 = std::chrono::steady_clock::now();
  ns3::Simulator::Run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t got = 0;
  for (const auto& [_, s] : servers) got += s->GetReceived();
  const double sim_s = ns3::Simulator::Now().GetSeconds();
  ns3::Simulator::Destroy();
  std::printf(
      "ns3-fabric-peer: %u nodes, %u flows; %llu of %llu datagrams delivered; "
      "%llu packet-hops; %.6f s simulated in %.3f s wall\n",
      n_nodes, n_flows, static_cast<unsigned long long>(got), static_cast<unsigned long long>(sent),
      static_cast<unsigned long long>(g_hops), sim_s, wall);
  return 0;
}
