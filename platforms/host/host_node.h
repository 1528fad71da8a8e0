// One host's side of the NIC: an ORNIC NIC, its PCIe link and the host memory behind
// it, bound nic.dma_initiator_socket -> pcie.nic_target_socket, pcie.host_initiator_socket
// -> memory.target_socket. Replay (platforms/replay), the two-NIC run (platforms/b2b),
// the fabric (platforms/fabric) and the testbench's NIC bench build their hosts from it:
// a platform's host module derives from HostNode (after sc_module, so the three are its
// children) and adds what is its own (a driver, an uplink, a trace source). The names
// are the platform's, so its stats keep their names (replay: nic0, pcie0, host0).
#pragma once

#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/ornic_nic.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace oonic::host {

// The three modules' names (relative to the module being built).
struct HostNodeNames {
  const char* nic = "nic";
  const char* pcie = "pcie";
  const char* memory = "memory";
};

struct HostNode {
  ornic::OrnicNic nic;
  PcieLink pcie;
  HostMemory memory;
  HostNode(const HostNodeNames& names, const ornic::OrnicParams& nic_params,
           const PcieParams& pcie_params, const HostMemoryParams& memory_params, Stats& stats,
           Vcd* vcd);
};

}  // namespace oonic::host
