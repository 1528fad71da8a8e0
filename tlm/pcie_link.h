// PCIe link between the NIC's DMA initiator and host memory. Each direction is a
// resource held for the time its TLPs take on the wire:
//   bandwidth = lanes x GT/s x encoding (8b/10b for Gen1-2, 128b/130b for Gen3+)
//   write (posted, NIC->host): payload split at MPS-aligned boundaries, each TLP
//     adds tlp_overhead_bytes; the DMA sees it done when the last TLP has left.
//   read (non-posted): requests split at MRRS-aligned boundaries, each needs a
//     read tag (read_tags outstanding) and a header-only TLP upstream; its data
//     comes back read_latency_ns after the request left, as completions split at
//     MPS-aligned boundaries (a multiple of the 64 B read completion boundary),
//     on the host->NIC direction. The read is done when its last completion arrived.
// The initiator passes the time it issues the request as the b_transport delay
// (loosely-timed, booked in issue order); the returned delay is when it is done.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <queue>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/params.h"
#include "model/core/resource.h"
#include "model/core/stats.h"

namespace oonic {

struct PcieParams {
  uint32_t generation = 3;
  uint32_t lanes = 16;
  uint32_t mps_bytes = 256;
  uint32_t mrrs_bytes = 512;
  uint32_t tlp_overhead_bytes = 24;
  double read_latency_ns = 600;
  uint32_t read_tags = 64;
  void describe(ParamTable& t);
  double gbps() const;  // usable bit rate after encoding
};

class PcieLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<PcieLink> nic_target_socket;
  tlm_utils::simple_initiator_socket<PcieLink> host_initiator_socket;

  PcieLink(sc_core::sc_module_name name, const PcieParams& p, Stats& stats);

  // Timing only (no data): when a write/read issued at t_ps would be done.
  uint64_t book_write(uint64_t t_ps, uint64_t addr, uint64_t len);
  uint64_t book_read(uint64_t t_ps, uint64_t addr, uint64_t len);
  const PcieParams& params() const { return p_; }
  // Observer of every NIC write into host memory, called when the write is
  // booked with the time its last TLP reaches the host (e.g. the host driver
  // watching its completion queues). At most one.
  using WriteObserver = std::function<void(uint64_t done_ps, uint64_t addr, uint64_t len)>;
  void on_write(WriteObserver f) { write_observer_ = std::move(f); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  uint64_t wire_ps(uint64_t bytes) const;
  static uint64_t chunks(uint64_t addr, uint64_t len, uint64_t boundary);

  PcieParams p_;
  WriteObserver write_observer_;
  double ps_per_byte_;
  std::vector<uint64_t> wire_ps_table_;
  PsResource up_, down_;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> tags_;
  Counter& write_bytes_;
  Counter& read_bytes_;
  Counter& tlps_up_;
  Counter& tlps_down_;
  Counter& read_requests_;
  Counter& errors_;
  Counter& tag_wait_ps_;
};

}  // namespace oonic
