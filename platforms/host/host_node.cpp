#include "platforms/host/host_node.h"

namespace oonic::host {

HostNode::HostNode(const HostNodeNames& names, const ornic::OrnicParams& nic_params,
                   const PcieParams& pcie_params, const HostMemoryParams& memory_params,
                   Stats& stats, Vcd* vcd)
    : nic(names.nic, nic_params, stats, vcd),
      pcie(names.pcie, pcie_params, stats),
      memory(names.memory, memory_params, stats) {
  nic.dma_initiator_socket.bind(pcie.nic_target_socket);
  pcie.host_initiator_socket.bind(memory.target_socket);
}

}  // namespace oonic::host
