#include "model/sram/sram.h"

#include "model/core/error.h"

namespace oonic {

void SramParams::describe(ParamTable& t, const std::string& prefix, const char* what) {
  t.add(prefix + ".width_bits", &width_bits, "bit", (std::string("word width of ") + what).c_str(),
        1, 4096);
  t.add(prefix + ".depth", &depth, "word", (std::string("words in ") + what).c_str(), 1, 1u << 30);
  t.add(prefix + ".ports", &ports,
        (std::string("port configuration of ") + what +
         ": one shared read/write port, one read + one write port, or two read/write ports")
            .c_str(),
        {"1RW", "1R1W", "2RW"});
  t.add(prefix + ".read_latency", &read_latency, "cycle",
        (std::string("cycles from a read's last address beat to its data, ") + what).c_str(), 0,
        64);
}

Sram::Sram(std::string name, const SramParams& p, Stats& stats, const std::string& stat_prefix)
    : name_(std::move(name)),
      p_(p),
      kind_(p.ports == "1RW"    ? Ports::k1RW
            : p.ports == "1R1W" ? Ports::k1R1W  // once
                                : Ports::k2RW),
      ports_(kind_ == Ports::k1RW ? 1 : 2),
      occupancy_(stats.gauge(stat_prefix + ".used_bits", "bit",
                             "bits allocated to a live purpose (peak, time-weighted mean, final)")),
      reads_(&stats.counter(stat_prefix + ".reads", "access", "read accesses")),
      writes_(&stats.counter(stat_prefix + ".writes", "access", "write accesses")) {
  if (p.ports != "1RW" && p.ports != "1R1W" && p.ports != "2RW")  // once
    throw Error(msg::kConfig, "SRAM " + name_ + ": ports must be 1RW, 1R1W or 2RW");
  occupancy_.track_histogram(static_cast<int64_t>(capacity_bits()), kOccupancyBuckets);
  stats.derived(stat_prefix + ".capacity_bits", "bit", "width_bits x depth",
                [this] { return static_cast<double>(capacity_bits()); });
  stats.derived(stat_prefix + ".stall_cycles", "cycle", "cycles accesses waited for a busy port",
                [this] { return static_cast<double>(stall_cycles()); });
  stats.derived(stat_prefix + ".peak_utilization", "ratio", "peak used bits / capacity", [this] {
    return capacity_bits() ? static_cast<double>(occupancy_.peak()) / capacity_bits() : 0.0;
  });
}

Resource& Sram::port_for(bool is_read, Cycle t) {
  // Per access: the port kind is an enum, read from sram.*.ports at construction.
  if (kind_ == Ports::k1RW) return ports_[0];
  if (kind_ == Ports::k1R1W) return ports_[is_read ? 0 : 1];
  // 2RW: the port that can start earliest (port 0 on a tie).
  Cycle a = std::max(t, ports_[0].free_at()), b = std::max(t, ports_[1].free_at());
  return b < a ? ports_[1] : ports_[0];
}

Cycle Sram::read_at(Cycle t, uint64_t bits, Cycle* grant) {
  uint64_t k = beats(bits);
  Cycle g = port_for(true, t).acquire(t, k);
  if (grant) *grant = g;
  reads_->inc();
  return g + k - 1 + p_.read_latency;
}

Cycle Sram::write_at(Cycle t, uint64_t bits, Cycle* grant) {
  uint64_t k = beats(bits);
  Cycle g = port_for(false, t).acquire(t, k);
  if (grant) *grant = g;
  writes_->inc();
  return g + k;
}

Cycle Sram::read(Cycle t, uint64_t bits) {
  return read_at(t, bits, nullptr);
}
Cycle Sram::write(Cycle t, uint64_t bits) {
  return write_at(t, bits, nullptr);
}

uint64_t Sram::stall_cycles() const {
  uint64_t s = 0;
  for (const auto& p : ports_) s += p.stall_cycles();
  return s;
}

BlockPool::BlockPool(Sram* sram, uint32_t blocks, uint32_t block_bits)
    : sram_(sram), blocks_(blocks), block_bits_(block_bits), in_use_(blocks, 0) {
  free_.reserve(blocks);
  for (uint32_t i = blocks; i-- > 0;) free_.push_back(i);  // block 0 on top
}

bool BlockPool::alloc(Cycle t, uint32_t* id) {
  if (free_.empty()) return false;
  *id = free_.back();
  free_.pop_back();
  in_use_[*id] = 1;
  ++used_;
  if (used_ > peak_) peak_ = used_;
  if (sram_) sram_->occupy(t, block_bits_);
  return true;
}

void BlockPool::release(Cycle t, uint32_t id) {
  if (id >= blocks_ || !in_use_[id])
    throw Error(msg::kModel,
                "block pool: release of block " + std::to_string(id) + " that is not in use");
  in_use_[id] = 0;
  free_.push_back(id);
  --used_;
  if (sram_) sram_->occupy(t, -static_cast<int64_t>(block_bits_));
}

}  // namespace oonic
