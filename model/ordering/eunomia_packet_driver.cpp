#include "model/ordering/eunomia_packet_driver.h"

#include "model/core/error.h"

namespace oonic::ordering {

EunomiaPacketDriver::EunomiaPacketDriver(const Params& p) : p_(p) {
  if (p.connections_per_module == 0 || p.connections_per_module > 256)
    throw Error(msg::kConfig, "eunomia: connections_per_module must be 1..256");
  const uint32_t n = (p.max_qps + p.connections_per_module - 1) / p.connections_per_module;
  EunomiaHdBitmap::Params mp = p.module;
  mp.memory.max_connections = p.connections_per_module;
  for (uint32_t i = 0; i < n; ++i) {
    banks_.push_back(std::make_unique<EunomiaMemoryController>(mp.memory));
    mods_.push_back(std::make_unique<EunomiaHdBitmap>(mp, *banks_.back()));
  }
}

void EunomiaPacketDriver::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  mod(qp).open(local(qp), start_psn, otd);
}
void EunomiaPacketDriver::close(uint32_t qp) {
  mod(qp).close(local(qp));
}
bool EunomiaPacketDriver::is_open(uint32_t qp) const {
  return qp < p_.max_qps && mod(qp).is_open(local(qp));
}
Outcome EunomiaPacketDriver::receive(uint32_t qp, uint32_t psn) {
  return receive(qp, psn, PacketMeta{});
}
Outcome EunomiaPacketDriver::receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) {
  if (qp >= p_.max_qps) return Outcome{};
  Outcome o = mod(qp).receive(local(qp), psn, meta);
  // conn_to_module_map read.
  o.cycles += 1;
  o.node_accesses += 1;
  return o;
}
uint32_t EunomiaPacketDriver::epsn(uint32_t qp) const {
  return mod(qp).epsn(local(qp));
}
uint32_t EunomiaPacketDriver::blocks_held(uint32_t qp) const {
  return mod(qp).blocks_held(local(qp));
}
bool EunomiaPacketDriver::check_invariants(std::string* why) const {
  for (const auto& m : mods_)
    if (!m->check_invariants(why)) return false;
  return true;
}

}  // namespace oonic::ordering
