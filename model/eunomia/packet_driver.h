// Eunomia's packet driver (docs/DESIGN.md M2) as a SystemC block: the entry point of
// every data packet of an Eunomia connection. It reads the connection's
// conn_to_module_map entry (1 cycle) and hands the packet to that HD bitmap module,
// or, with conn_module_valid clear and the packet in order, takes it without one.
//
// conn_to_module_map is static here: connection q is served by module
// q / eunomia.connections_per_module (its bank holds up to 256 connections: the
// 1-byte connection id); the entry's valid bit (conn_module_valid) is set on the
// connection's first OOO packet and cleared at garbage collection. SRAM instance
// `eunomia.conn_to_module_map`: (module bits + 1 valid bit) x max_qps, 1R1W; the
// valid-bit write goes on the write port and costs the packet no cycle. Occupancy:
// one entry per connection with a bitmap.
#pragma once

#include <memory>
#include <systemc>
#include <vector>

#include "model/core/block_env.h"
#include "model/eunomia/packet_driver_core.h"
#include "model/sram/sram.h"

namespace oonic::eunomia {

class PacketDriver : public sc_core::sc_module {
 public:
  PacketDriver(sc_core::sc_module_name name, const BlockEnv& env, eunomia::PacketDriverCore& core);
  // Reads qp's map entry at or after t; returns the cycle the module is known and
  // sets *grant to the read's grant.
  Cycle lookup(Cycle t, uint32_t qp, Cycle* grant);
  // Records qp's conn_module_valid after a call that ended at t (write + occupancy).
  void update_valid(Cycle t, uint32_t qp, bool valid);
  Sram& conn_to_module_map() { return *map_; }
  // The core this shell times (its connection-to-module map is the SRAM above).
  const eunomia::PacketDriverCore& core() const { return core_; }
  uint32_t entry_bits() const { return entry_bits_; }

 private:
  eunomia::PacketDriverCore& core_;
  uint32_t entry_bits_;
  std::unique_ptr<Sram> map_;
  std::vector<uint8_t> valid_;  // conn_module_valid as last recorded
};

}  // namespace oonic::eunomia
