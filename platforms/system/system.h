// One system of oonic hosts joined by a network: what `oonic run` builds for every
// topology. The two-NIC run is the `pair` topology (hosts a and b joined by one
// link each way, network.* on both); a fabric is any other (docs/FABRIC.md).
//   <host>.driver --reg_initiator_socket--> <host>.nic.reg_socket     (if it has one)
//   <host>.nic.dma_initiator_socket --> <host>.pcie --> <host>.memory  (host::HostNode)
//   <host>.nic.mac_tx_socket --> <host>.<uplink> --> the far end's receiving socket
//   <switch>.tx(k) --> the far end's receiving socket (a host's nic.mac_rx_socket or
//                      the next switch's rx(j))
// A job (platforms/system/run.h) says how each host is built (HostSpec) and makes
// the switches through the factory (switch.model); build() makes the modules and binds
// every link end by name.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/ornic_params.h"
#include "platforms/host/flow_check.h"
#include "platforms/host/host_driver.h"
#include "platforms/host/host_node.h"
#include "platforms/network/network_link.h"
#include "platforms/network/network_params.h"
#include "platforms/network/switch_node.h"
#include "platforms/network/topology.h"
#include "tlm/host_memory_params.h"
#include "tlm/pcie_link_core.h"

namespace oonic::system {

// How one host is built.
struct HostSpec {
  ornic::OrnicParams nic;
  network::NetworkParams uplink;       // its link towards its peer
  std::string uplink_name = "uplink";  // the link's module (a child of the host)
  std::string uplink_dir;              // NetworkLink's dir (network.drop_psns names "ab"/"ba")
  std::string uplink_stats;            // the link's stat prefix
  bool driver = true;                  // a HostDriver posts WQEs on this host
  std::string driver_stats;            // its stat prefix; empty: <host>.driver
  uint32_t queue_depth = 1;            // WQEs a driver keeps posted per QP
  bool flow_check = true;  // data checked as it lands (FlowCheck); memory holds rings only
};

// One host: NIC, PCIe link, memory (HostNode), its driver and its uplink.
struct Host : sc_core::sc_module, host::HostNode {
  std::unique_ptr<host::HostDriver> driver;  // null when the spec has none
  network::NetworkLink uplink;
  host::FlowCheck check;
  Host(sc_core::sc_module_name n, const HostSpec& spec, const PcieParams& pcie_params,
       const HostMemoryParams& memory_params, uint64_t seed, Stats& stats, Vcd* vcd);
};

struct System {
  network::Topology topo;
  std::unique_ptr<network::Routes> routes;
  network::AddressMap addrs;
  std::vector<uint32_t> host_nodes;                            // host index -> node
  std::vector<int32_t> host_of_node;                           // node -> host index (-1: switch)
  std::vector<std::unique_ptr<Host>> hosts;                    // by host index
  std::vector<std::unique_ptr<network::SwitchNode>> switches;  // made by switch.model's row
  std::vector<int32_t> switch_of_node;
};

// Makes the switch at topology node n.
using MakeSwitch = std::function<std::unique_ptr<network::SwitchNode>(uint32_t node)>;

// Hosts (specs by host index; each named after its topology node) and switches, every
// link end bound by name. The caller has set topo, routes, host_nodes, host_of_node
// and addrs; build() sets the rest.
void build(System& s, const std::vector<HostSpec>& specs, const PcieParams& pcie,
           const HostMemoryParams& memory, const MakeSwitch& make_switch, uint64_t seed,
           Stats& stats, Vcd* vcd);

}  // namespace oonic::system
