#include "model/eunomia/memory_controller.h"

#include <string>

namespace oonic::eunomia {

MemoryController::MemoryController(sc_core::sc_module_name name, const BlockEnv& env,
                                   eunomia::PacketDriverCore& core)
    : sc_module(name),
      core_(core),
      ports_(core.modules()),
      seen_(core.modules()),
      metadata_allocs_(env.stats.counter(std::string(this->name()) + ".metadata_allocations",
                                         "event",
                                         "connection metadata runs allocated (first OOO packet)")),
      alloc_bits_scanned_(env.stats.counter(std::string(this->name()) + ".alloc_bits_scanned",
                                            "bit", "block_alloc_bitmap bits examined by searches")),
      alloc_scan_cycles_(env.stats.counter(std::string(this->name()) + ".alloc_scan_cycles",
                                           "cycle",
                                           "cycles of allocation searches (ceil(bits / W) each)")),
      alloc_update_cycles_(env.stats.counter(
          std::string(this->name()) + ".alloc_update_cycles", "cycle",
          "block_alloc_bitmap words rewritten when runs are marked used or free")),
      busy_cycles_(env.stats.counter(std::string(this->name()) + ".busy_cycles", "cycle",
                                     "cycles the banks were busy (sum over banks)")) {
  const auto& mp = core.bank(0).params();
  const uint32_t banks = core.modules();
  const uint32_t w = mp.alloc_bits_per_cycle;
  auto make = [&](const std::string& n, uint32_t width, uint64_t depth) {
    return std::make_unique<Sram>(n, SramParams{width, static_cast<uint32_t>(depth), "1RW", 0},
                                  env.stats, env.sram_stat(n));
  };
  index_ = make("eunomia.metadata_start_index", 24, uint64_t{banks} * mp.max_connections);
  master_ = make("eunomia.master_array", 16, uint64_t{banks} * mp.blocks);
  alloc_ = make("eunomia.block_alloc_bitmap", w, uint64_t{banks} * ((mp.blocks + w - 1) / w));
  const std::string n = this->name();
  env.stats.derived(n + ".port_stall_cycles", "cycle",
                    "cycles operations waited for their bank's port",
                    [this] { return static_cast<double>(port_stall_cycles()); });
  p_used_blocks_.bind(env.vcd, n + ".used_blocks", 24);
}

uint64_t MemoryController::port_stall_cycles() const {
  uint64_t s = 0;
  for (const Resource& r : ports_) s += r.stall_cycles();
  return s;
}

Cycle MemoryController::serve(Cycle t, uint32_t b, const eunomia::Cost& c) {
  const Cycle n = c.cycles();
  if (!n) return t;
  const Cycle g = ports_[b].acquire(t, n);
  busy_cycles_.inc(n);
  // The bank's port times the accesses; the instances count them. Index entries are
  // read or written (the core does not split them): counted as reads.
  index_->count(true, c.index_accesses);
  master_->count(true, c.meta_reads + c.bitmap_reads);
  master_->count(false, c.meta_writes + c.bitmap_writes);
  alloc_->count(true, c.alloc_scan_cycles);
  alloc_->count(false, c.alloc_update_cycles);
  alloc_bits_scanned_.inc(c.alloc_bits_scanned);
  alloc_scan_cycles_.inc(c.alloc_scan_cycles);
  alloc_update_cycles_.inc(c.alloc_update_cycles);
  return g;
}

void MemoryController::sync(Cycle t, uint32_t b) {
  const eunomia::MemoryControllerCore& bank = core_.bank(b);
  Seen now{bank.used_blocks(), bank.index_entries_used()};
  Seen& s = seen_[b];
  if (now.entries > s.entries) metadata_allocs_.inc(now.entries - s.entries);
  const int64_t db = int64_t{now.blocks} - s.blocks, de = int64_t{now.entries} - s.entries;
  if (db) {
    master_->occupy(t, db * 16);
    alloc_->occupy(t, db);
  }
  if (de) index_->occupy(t, de * 24);
  s = now;
  if (db && p_used_blocks_.on()) {
    uint64_t all = 0;
    for (const Seen& x : seen_) all += x.blocks;
    p_used_blocks_.set(t, all);
  }
}

}  // namespace oonic::eunomia
