// Clocked on-chip SRAM: width (bits), depth (words), ports (1RW, 1R1W, 2RW),
// read latency (cycles). An access of B bits occupies its port for
// ceil(B / width) cycles (beats); a port that is busy makes the access wait
// and the wait is counted as stall cycles. Occupancy ("used bits") is what the
// owner declares allocated to a live purpose, recorded as exact change points.
// Plain C++: the shells pass the cycle at which they access.
//
// Timing of one access of k beats granted at cycle g:
//   read:  port busy g .. g+k-1, data of the last beat at g + k - 1 + read_latency
//   write: port busy g .. g+k-1, written (visible) at g + k
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/core/resource.h"
#include "model/core/stats.h"

namespace oonic {

struct SramParams {
  uint32_t width_bits = 512;
  uint32_t depth = 1024;
  std::string ports = "1R1W";
  uint32_t read_latency = 1;
  // Registers prefix.width_bits, .depth, .ports, .read_latency.
  void describe(ParamTable& t, const std::string& prefix, const char* what);
};

// Buckets of the time-weighted occupancy histogram reported per SRAM.
inline constexpr int kOccupancyBuckets = 16;

class Sram {
 public:
  Sram(std::string name, const SramParams& p, Stats& stats, const std::string& stat_prefix);

  Cycle read(Cycle t, uint64_t bits);
  Cycle write(Cycle t, uint64_t bits);
  // Like read/write but also returns the grant cycle.
  Cycle read_at(Cycle t, uint64_t bits, Cycle* grant);
  // Counts n accesses without booking a port: for an instance that holds several
  // banks whose ports the owning block times itself (Eunomia's memory controller).
  void count(bool is_read, uint64_t n) { (is_read ? reads_ : writes_)->inc(n); }
  Cycle write_at(Cycle t, uint64_t bits, Cycle* grant);

  void occupy(Cycle t, int64_t delta_bits) {
    if (delta_bits) occupancy_.change(t, delta_bits);
  }
  uint64_t capacity_bits() const { return uint64_t{p_.width_bits} * p_.depth; }
  const std::string& name() const { return name_; }
  const SramParams& params() const { return p_; }
  TimeWeighted& occupancy() { return occupancy_; }
  uint64_t reads() const { return reads_->value; }
  uint64_t writes() const { return writes_->value; }
  uint64_t stall_cycles() const;
  uint64_t beats(uint64_t bits) const {
    return bits == 0 ? 1 : (bits + p_.width_bits - 1) / p_.width_bits;
  }

 private:
  Resource& port_for(bool is_read, Cycle t);
  std::string name_;
  SramParams p_;
  enum class Ports : uint8_t { k1RW, k1R1W, k2RW } kind_;  // sram.*.ports, read once
  std::vector<Resource> ports_;
  TimeWeighted& occupancy_;
  Counter* reads_;
  Counter* writes_;
};

// Fixed-size blocks carved out of an SRAM, handed out from a free-list stack
// (block 0 first). Occupancy of the SRAM follows the blocks held.
class BlockPool {
 public:
  BlockPool(Sram* sram, uint32_t blocks, uint32_t block_bits);
  // Returns false when the pool is empty.
  bool alloc(Cycle t, uint32_t* id);
  void release(Cycle t, uint32_t id);
  uint32_t used() const { return used_; }
  uint32_t free_blocks() const { return static_cast<uint32_t>(free_.size()); }
  uint32_t blocks() const { return blocks_; }
  uint32_t peak_used() const { return peak_; }
  bool in_use(uint32_t id) const { return id < in_use_.size() && in_use_[id]; }

 private:
  Sram* sram_;
  uint32_t blocks_, block_bits_;
  std::vector<uint32_t> free_;
  std::vector<char> in_use_;
  uint32_t used_ = 0, peak_ = 0;
};

}  // namespace oonic
