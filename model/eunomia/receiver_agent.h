// Eunomia's receiver-side agent (docs/DESIGN.md M2) as a SystemC block: the ordering
// layer the RX plane reaches through the Bitmap Manager's seam when
// `nic.ordering: eunomia`. It contains
//   packet_driver      conn_to_module_map / conn_module_valid (model/eunomia/packet_driver.h)
//   hd_bitmap_<i>      the HD bitmap modules, one per bank (eunomia.connections_per_module
//                      connections each; the reference build has one)
//   memory_controller  master_array, block_alloc_bitmap, metadata_start_index
// over one plain C++ core (eunomia::PacketDriverCore, which owns the modules'
// logic and the banks' contents).
//
// Timing of a packet booked at cycle t: the driver's map read is granted at g >= t
// (its SRAM's read port) and gives the module at g + 1; the module's cost c (the
// core's Cost, all of it memory-controller work) is granted on its bank at
// g1 >= g + 1 and done at g1 + c. A packet that needs no module (in order, no
// bitmap) is done at g + 1. Feedback per packet: ACK (in order), SACK (tracked out
// of order), NACK (beyond the cap or master_array full: dropped).
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/block_env.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/eunomia/hd_bitmap.h"
#include "model/eunomia/memory_controller.h"
#include "model/eunomia/packet_driver.h"
#include "model/eunomia/packet_driver_core.h"

namespace oonic::eunomia {

class ReceiverAgent : public sc_core::sc_module {
 public:
  ReceiverAgent(sc_core::sc_module_name name, const BlockEnv& env,
                const eunomia::PacketDriverCore::Params& p);
  ~ReceiverAgent() override;

  struct Result {
    ordering::Outcome out;
    Cycle grant = 0, done = 0;
  };
  void open(Cycle t, uint32_t qp, uint32_t start_psn);
  void close(Cycle t, uint32_t qp);
  Result receive(Cycle t, uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta);

  eunomia::PacketDriverCore& core() { return *core_; }
  const eunomia::PacketDriverCore& core() const { return *core_; }
  std::vector<Sram*> srams();

 private:
  std::unique_ptr<eunomia::PacketDriverCore> core_;  // built first: the blocks use it

 public:
  PacketDriver packet_driver;
  MemoryController memory_controller;
  std::vector<std::unique_ptr<HdBitmap>> hd_bitmaps;

 private:
  Counter& packets_;
  Counter& bypassed_;
  HdBitmapStats hd_stats_;
  Probe p_verdict_;  // ordering::Verdict of each call, at done
};

}  // namespace oonic::eunomia
