// Eunomia's memory controller (docs/DESIGN.md M2) as a SystemC
// block: the SRAMs that hold every connection's ordering state, over the plain C++
// banks of eunomia::MemoryControllerCore (one bank per HD bitmap module; the
// reference build has one).
//
// SRAM instances (every bank's slice in one instance, so occupancy and accesses sum):
//   eunomia.master_array          16 bit x master_array_blocks per bank (bitmap rows and
//                                 connection metadata, Figure 7); occupancy 16 bits per
//                                 block in use.
//   eunomia.block_alloc_bitmap    alloc_bits_per_cycle (W) bits x ceil(blocks / W) per
//                                 bank; occupancy 1 bit per block in use.
//   eunomia.metadata_start_index  24 bit x connections_per_module per bank: the
//                                 per-connection DBA (1 B connection id + 2 B start
//                                 index); occupancy 24 bits per non-NULL entry.
// Timing: each bank is single-ported; an operation whose cost is c cycles (the core's
// Cost: one cycle per index access and per master_array block, plus allocation
// search cycles ceil(bits scanned / W) and allocation-word updates) holds its bank for
// c cycles from the grant. The instances count the accesses (Sram::count) and keep no
// port timing of their own, so their stall_cycles stay 0: the waits for a bank are
// `memory_controller.port_stall_cycles`.
#pragma once

#include <memory>
#include <systemc>
#include <vector>

#include "model/core/block_env.h"
#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/eunomia/packet_driver_core.h"
#include "model/sram/sram.h"

namespace oonic::eunomia {

class MemoryController : public sc_core::sc_module {
 public:
  MemoryController(sc_core::sc_module_name name, const BlockEnv& env,
                   eunomia::PacketDriverCore& core);

  // Books cost on bank b at or after t; returns the grant (the bank is busy for
  // cost.cycles() from it). A zero cost books nothing and returns t.
  Cycle serve(Cycle t, uint32_t b, const eunomia::Cost& cost);
  // Brings the SRAMs' occupancy at cycle t in line with bank b's blocks and entries.
  void sync(Cycle t, uint32_t b);

  Sram& master_array() { return *master_; }
  Sram& block_alloc_bitmap() { return *alloc_; }
  Sram& metadata_start_index() { return *index_; }
  std::vector<Sram*> srams() { return {index_.get(), master_.get(), alloc_.get()}; }
  uint64_t port_stall_cycles() const;

 private:
  struct Seen {
    uint32_t blocks = 0, entries = 0;
  };
  eunomia::PacketDriverCore& core_;
  std::vector<Resource> ports_;  // one per bank
  std::vector<Seen> seen_;       // occupancy last recorded, per bank
  std::unique_ptr<Sram> index_, master_, alloc_;
  Counter& metadata_allocs_;
  Counter& alloc_bits_scanned_;
  Counter& alloc_scan_cycles_;
  Counter& alloc_update_cycles_;
  Counter& busy_cycles_;
  Probe p_used_blocks_;
};

}  // namespace oonic::eunomia
