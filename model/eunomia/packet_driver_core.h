// Eunomia's receiver-side packet driver (docs/DESIGN.md M2) as an OrderingUnit
// ("eunomia"), for `nic.ordering: eunomia`: it maps each connection to one of
// `modules` HD bitmap modules (conn_to_module_map: connection c goes to module
// c / connections_per_module, local id c % connections_per_module). Each module is
// stateless logic over its own bank of the memory controller (master_array,
// block_alloc_bitmap, metadata_start_index of up to 256 connections: the 1-byte
// connection id); the reference build has one module and one bank (<= 256 QPs).
// The mapping costs one cycle per packet (a table read), added to the module's
// cost. Plain C++; its shells (packet_driver.h, receiver_agent.h) sit beside it.
#pragma once

#include <memory>
#include <vector>

#include "model/eunomia/hd_bitmap_core.h"

namespace oonic::eunomia {

class PacketDriverCore : public ordering::OrderingUnit {
 public:
  struct Params {
    uint32_t max_qps = 2048;
    uint32_t connections_per_module = 256;  // <= 256 (1-byte metadata_start_index ids)
    HdBitmapCore::Params module;            // each module's bitmap and controller
  };
  explicit PacketDriverCore(const Params& p);
  const char* name() const override { return "eunomia"; }
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;
  ordering::Outcome receive(uint32_t qp, uint32_t psn) override;
  ordering::Outcome receive(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta) override;
  uint32_t epsn(uint32_t qp) const override;
  uint32_t blocks_held(uint32_t qp) const override;
  bool check_invariants(std::string* why) const override;
  uint32_t modules() const { return static_cast<uint32_t>(mods_.size()); }
  const HdBitmapCore& module(uint32_t i) const { return *mods_[i]; }
  HdBitmapCore& module(uint32_t i) { return *mods_[i]; }
  const MemoryControllerCore& bank(uint32_t i) const { return *banks_[i]; }
  MemoryControllerCore& bank(uint32_t i) { return *banks_[i]; }
  // conn_to_module_map: the module (and bank) serving qp, and qp's id in it.
  uint32_t module_of(uint32_t qp) const { return qp / p_.connections_per_module; }
  uint32_t local(uint32_t qp) const { return qp % p_.connections_per_module; }
  const Params& params() const { return p_; }

 private:
  HdBitmapCore& mod(uint32_t qp) const { return *mods_[module_of(qp)]; }
  Params p_;
  std::vector<std::unique_ptr<MemoryControllerCore>> banks_;
  std::vector<std::unique_ptr<HdBitmapCore>> mods_;
};

}  // namespace oonic::eunomia
