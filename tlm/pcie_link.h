// PCIe link between the NIC's DMA initiator and host memory (shell; the TLP timing is
// tlm/pcie_link_core.h). The initiator passes the time it issues the request as the
// b_transport delay (loosely-timed, booked in issue order); the returned delay is when
// it is done. The payload is carried to host memory through host_initiator_socket.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>

#include "model/core/signal.h"
#include "model/core/stats.h"
#include "tlm/pcie_link_core.h"

namespace oonic {

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> nic_target_socket;
  tlm_utils::simple_initiator_socket<PcieLink> host_initiator_socket;

  PcieLink(sc_core::sc_module_name name, const PcieParams& p, Stats& stats);

  PcieLinkCore core;  // the timing (tlm/pcie_link_core.h)
  const PcieParams& params() const { return core.params(); }
  // Observer of every NIC write into host memory, called when the write is
  // booked with the time its last TLP reaches the host (e.g. the host driver
  // watching its completion queues). Each call adds an observer.
  using WriteObserver = std::function<void(uint64_t done_ps, uint64_t addr, uint64_t len)>;
  void on_write(WriteObserver f) { write_observer_.connect(std::move(f)); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  Signal<uint64_t, uint64_t, uint64_t> write_observer_;
};

}  // namespace oonic
