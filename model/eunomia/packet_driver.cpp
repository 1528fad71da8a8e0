#include "model/eunomia/packet_driver.h"

namespace oonic::eunomia {

namespace {
uint32_t bits_for(uint32_t n) {  // bits to number n values (0 for one)
  uint32_t b = 0;
  while ((1ull << b) < n) ++b;
  return b;
}
}  // namespace

PacketDriver::PacketDriver(sc_core::sc_module_name name, const BlockEnv& env,
                           eunomia::PacketDriverCore& core)
    : sc_module(name),
      core_(core),
      entry_bits_(bits_for(core.modules()) + 1),
      valid_(core.params().max_qps, 0) {
  const std::string n = "eunomia.conn_to_module_map";
  map_ = std::make_unique<Sram>(n, SramParams{entry_bits_, core.params().max_qps, "1R1W", 1},
                                env.stats, env.sram_stat(n));
}

Cycle PacketDriver::lookup(Cycle t, uint32_t qp, Cycle* grant) {
  (void)qp;  // one entry: only the port's timing matters
  return map_->read_at(t, entry_bits_, grant);
}

void PacketDriver::update_valid(Cycle t, uint32_t qp, bool valid) {
  if (qp >= valid_.size() || valid_[qp] == valid) return;
  valid_[qp] = valid;
  map_->write(t, entry_bits_);
  map_->occupy(t, valid ? int64_t{entry_bits_} : -int64_t{entry_bits_});
}

}  // namespace oonic::eunomia
