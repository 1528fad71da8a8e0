// The PCIe link's timing, the core (tlm/pcie_link.h is its TLM shell). Each direction
// is a resource held for the time its TLPs take on the wire:
//   bandwidth = lanes x GT/s x encoding (8b/10b for Gen1-2, 128b/130b for Gen3+)
//   write (posted, NIC->host): payload split at MPS-aligned boundaries, each TLP adds
//     tlp_overhead_bytes; done when the last TLP has left.
//   read (non-posted): requests split at MRRS-aligned boundaries, each needs a read tag
//     (read_tags outstanding) and a header-only TLP upstream; its data comes back
//     read_latency_ns after the request left, as completions split at MPS-aligned
//     boundaries, on the host->NIC direction. Done when the last completion arrived.
// Times in picoseconds. Plain C++.
#pragma once

#include <cstdint>
#include <memory>
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

class PcieLinkCore {
 public:
  PcieLinkCore(const PcieParams& p, const StatGroup& stats);
  // When a write / read of len bytes at addr, issued at t_ps, is done.
  uint64_t book_write(uint64_t t_ps, uint64_t addr, uint64_t len);
  uint64_t book_read(uint64_t t_ps, uint64_t addr, uint64_t len);
  // TLPs a transfer is split into at an aligned boundary (MPS or MRRS).
  static uint64_t chunks(uint64_t addr, uint64_t len, uint64_t boundary);
  uint64_t wire_ps(uint64_t bytes) const;
  const PcieParams& params() const { return p_; }
  void error() { errors_.inc(); }

 private:
  PcieParams p_;
  double ps_per_byte_;
  // Shared by every link of the same rate (64 KB each: most of an idle host).
  std::shared_ptr<const std::vector<uint64_t>> wire_ps_table_;
  PsResource up_, down_;
  // When each read tag is free again, oldest first. Completions leave the host->NIC
  // direction in booking order, so the times are pushed in rising order and a ring's
  // head is always the earliest free tag (a heap would give the same answers).
  std::vector<uint64_t> tags_;
  size_t tag_head_ = 0;
  Counter& write_bytes_;
  Counter& read_bytes_;
  Counter& tlps_up_;
  Counter& tlps_down_;
  Counter& read_requests_;
  Counter& errors_;
  Counter& tag_wait_ps_;
};

}  // namespace oonic
