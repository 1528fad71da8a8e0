#include "model/eunomia/packet_driver_core.h"

#include "model/core/error.h"

namespace oonic::eunomia {

PacketDriverCore::PacketDriverCore(const Params& p) : p_(p) {
  if (p.connections_per_module == 0 || p.connections_per_module > 256)
    throw Error(msg::kConfig, "eunomia: connections_per_module must be 1..256");
  const uint32_t n = (p.max_qps + p.connections_per_module - 1) / p.connections_per_module;
  HdBitmapCore::Params mp = p.module;
  mp.memory.max_connections = p.connections_per_module;
  for (uint32_t i = 0; i < n; ++i) {
    banks_.push_back(std::make_unique<MemoryControllerCore>(mp.memory));
    mods_.push_back(std::make_unique<HdBitmapCore>(mp, *banks_.back()));
  }
}

void PacketDriverCore::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  mod(qp).open(local(qp), start_psn, otd);
}
void PacketDriverCore::close(uint32_t qp) {
  mod(qp).close(local(qp));
}
bool PacketDriverCore::is_open(uint32_t qp) const {
  return qp < p_.max_qps && mod(qp).is_open(local(qp));
}
ordering::Outcome PacketDriverCore::receive(uint32_t qp, uint32_t psn) {
  return receive(qp, psn, ordering::PacketMeta{});
}
ordering::Outcome PacketDriverCore::receive(uint32_t qp, uint32_t psn,
                                            const ordering::PacketMeta& meta) {
  if (qp >= p_.max_qps) return ordering::Outcome{};
  ordering::Outcome o = mod(qp).receive(local(qp), psn, meta);
  // conn_to_module_map read.
  o.cycles += 1;
  o.node_accesses += 1;
  return o;
}
uint32_t PacketDriverCore::epsn(uint32_t qp) const {
  return mod(qp).epsn(local(qp));
}
uint32_t PacketDriverCore::blocks_held(uint32_t qp) const {
  return mod(qp).blocks_held(local(qp));
}
bool PacketDriverCore::check_invariants(std::string* why) const {
  for (const auto& m : mods_)
    if (!m->check_invariants(why)) return false;
  return true;
}

}  // namespace oonic::eunomia
