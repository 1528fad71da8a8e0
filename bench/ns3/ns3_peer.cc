// The benchmark's peer: ns-3's packet-level model of the traffic `scripts/bench`
// replays into oonic. N UDP datagrams (RoCEv2 is UDP) of --payload bytes go from
// one node to another over one point-to-point link (--gbps, 1 us), back to back
// at line rate, through ns-3's IPv4/UDP stacks and queues. Prints the packets
// received and the simulation's wall time; scripts/bench times the whole process.
//
// usage: ns3-peer [--packets=N] [--payload=B] [--gbps=R]   (ns-3 CommandLine)
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

int main(int argc, char** argv) {
  uint32_t packets = 102400;
  uint32_t payload = 4096;
  double gbps = 100;
  ns3::CommandLine cmd(__FILE__);
  cmd.AddValue("packets", "datagrams to send", packets);
  cmd.AddValue("payload", "UDP payload bytes per datagram", payload);
  cmd.AddValue("gbps", "link rate in Gbit/s", gbps);
  cmd.Parse(argc, argv);

  ns3::NodeContainer nodes;
  nodes.Create(2);
  ns3::PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(gbps * 1e9)));
  p2p.SetDeviceAttribute("Mtu", ns3::UintegerValue(9000));  // a 4 KB payload in one frame
  p2p.SetChannelAttribute("Delay", ns3::TimeValue(ns3::MicroSeconds(1)));
  ns3::NetDeviceContainer devs = p2p.Install(nodes);
  ns3::InternetStackHelper stack;
  stack.Install(nodes);
  ns3::Ipv4AddressHelper addr("10.0.0.0", "255.255.255.0");
  ns3::Ipv4InterfaceContainer ifs = addr.Assign(devs);

  const uint16_t port = 4791;  // RoCEv2
  ns3::UdpServerHelper server(port);
  ns3::ApplicationContainer srv = server.Install(nodes.Get(1));
  // One datagram per wire time (payload + UDP/IP + PPP header), so the link is
  // the bottleneck and the sender's queue stays short.
  const double wire_bits = (payload + 8 + 20 + 2) * 8.0;
  ns3::UdpClientHelper client(ifs.GetAddress(1), port);
  client.SetAttribute("MaxPackets", ns3::UintegerValue(packets));
  client.SetAttribute(
      "Interval",
      ns3::TimeValue(ns3::PicoSeconds(static_cast<uint64_t>(wire_bits * 1000.0 / gbps))));
  client.SetAttribute("PacketSize", ns3::UintegerValue(payload));
  ns3::ApplicationContainer cli = client.Install(nodes.Get(0));
  srv.Start(ns3::Seconds(0));
  cli.Start(ns3::Seconds(0));

  auto t0 = std::chrono::steady_clock::now();
  ns3::Simulator::Run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t got = ns3::DynamicCast<ns3::UdpServer>(srv.Get(0))->GetReceived();
  ns3::Simulator::Destroy();
  std::printf("ns3-peer: %llu of %u packets received, simulated in %.3f s wall\n",
              static_cast<unsigned long long>(got), packets, wall);
  return got == packets ? 0 : 1;
}
