#include "platforms/system/system.h"

namespace oonic::system {

Host::Host(sc_core::sc_module_name n, const HostSpec& spec, const PcieParams& pcie_params,
           const HostMemoryParams& memory_params, uint64_t seed, Stats& stats, Vcd* vcd)
    : sc_module(n),
      HostNode({}, spec.nic, pcie_params, memory_params, stats, vcd),
      driver(spec.driver ? std::make_unique<host::HostDriver>(
                               "driver", memory, pcie, spec.queue_depth, stats, spec.driver_stats)
                         : nullptr),
      uplink(spec.uplink_name.c_str(), spec.uplink,
             spec.uplink_dir.empty() ? std::string(this->name()) + "." + spec.uplink_name
                                     : spec.uplink_dir,
             seed, stats,
             spec.uplink_stats.empty() ? std::string(this->name()) + "." + spec.uplink_name
                                       : spec.uplink_stats) {
  if (driver) driver->reg_initiator_socket.bind(nic.reg_socket);
  nic.mac_tx_socket.bind(uplink.rx_socket);
  if (spec.flow_check) {
    memory.back(host::kSourceBase, host::kDestEnd - host::kSourceBase, &check);
    memory.memory().set_huge_pages(false);  // rings and CQs only: a few KB a host
  }
}

void build(System& s, const std::vector<HostSpec>& specs, const PcieParams& pcie,
           const HostMemoryParams& memory, const MakeSwitch& make_switch, uint64_t seed,
           Stats& stats, Vcd* vcd) {
  const network::Topology& t = s.topo;
  for (size_t h = 0; h < s.host_nodes.size(); ++h)
    s.hosts.push_back(std::make_unique<Host>(t.nodes[s.host_nodes[h]].name.c_str(), specs[h], pcie,
                                             memory, seed, stats, vcd));
  s.switch_of_node.assign(t.nodes.size(), -1);
  for (uint32_t n : t.switches()) {
    s.switch_of_node[n] = static_cast<int32_t>(s.switches.size());
    s.switches.push_back(make_switch(n));
  }
  // A host's uplink delivers to the far end's receiving socket; a switch port sends
  // to the far end's.
  auto rx_of = [&](uint32_t node, uint32_t port) -> tlm::tlm_target_socket<>& {
    if (s.host_of_node[node] >= 0) return s.hosts[s.host_of_node[node]]->nic.mac_rx_socket;
    return s.switches[s.switch_of_node[node]]->rx(port);
  };
  auto port_to = [&](uint32_t node, uint32_t link) {
    for (uint32_t k = 0; k < t.ports[node].size(); ++k)
      if (t.ports[node][k].link == link) return k;
    return 0u;
  };
  for (size_t h = 0; h < s.hosts.size(); ++h) {
    const auto& p = t.ports[s.host_nodes[h]][0];
    s.hosts[h]->uplink.tx_socket.bind(rx_of(p.peer, port_to(p.peer, p.link)));
    // A switch reads the frame's descriptor instead of its bytes.
    s.hosts[h]->uplink.set_describe(!t.is_host(p.peer));
  }
  for (uint32_t n : t.switches()) {
    network::SwitchNode& sw = *s.switches[s.switch_of_node[n]];
    for (uint32_t k = 0; k < t.ports[n].size(); ++k) {
      const auto& p = t.ports[n][k];
      sw.tx(k).bind(rx_of(p.peer, port_to(p.peer, p.link)));
    }
  }
}

}  // namespace oonic::system
