// ORNIC's Bitmap Manager (Figure 1): the QP-depth bitmap shared by the Req
// Processor (WRITE data at the responder) and the Rsp Processor (READ responses
// at the requester). A shell over the receive-order core `nic.ordering` selects
// (model/schemes/receive_schemes.h; ornic by default): it owns the scheme's SRAMs
// (ordering::sram_layout; ORNIC: `bitmap.node_array`, one node word {block_id,
// valid, all_1} per node, and `bitmap.block_pool`, one M-bit word per block;
// pooled schemes add `free_list`, lists `next_ptr`; static bitmaps `qp_bitmaps`; MP-RDMA
// `slots`), keeps their occupancy, and turns each call's cost into cycles. With
// `nic.ordering: eunomia` it holds Eunomia's receiver agent instead
// (`receiver_agent`: packet driver, HD bitmap modules, memory controller; SRAMs
// `eunomia.*`), which times its own calls (model/eunomia/receiver_agent.h). Both processors reach
// it through one request port, so concurrent calls queue (port contention, counted as stall
// cycles). Timing: a call booked at cycle t is granted at g >= t and holds the port for the core's
// cycle count c; its result is available at g + c.
#pragma once

#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/eunomia/receiver_agent.h"
#include "model/ordering/ornic_bitmap.h"
#include "model/ordering/rtl_bitmap.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/schemes/receive_schemes.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class BitmapManager : public sc_core::sc_module, public BitmapPort {
 public:
  BitmapManager(sc_core::sc_module_name name, const BlockEnv& env);

  // BitmapPort
  void open(Cycle t, uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  void close(Cycle t, uint32_t qp) override;
  Result access(Cycle t, uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta) override;
  bool is_open(uint32_t qp) const override { return unit_->is_open(qp); }
  uint32_t epsn(uint32_t qp) const override { return unit_->epsn(qp); }
  bool has_pending(uint32_t qp) const override;
  const ordering::SchemeTraits& traits() const override { return scheme_info_.traits; }
  // VCD only: which QP's node array the node<i> signals show (default 0). Call
  // before that QP's first open/access; the signals keep their names.
  void watch_qp(uint32_t qp);
  const ordering::OrderingUnit& unit() const { return *unit_; }
  // Eunomia's receiver agent (nullptr unless nic.ordering is eunomia).
  eunomia::ReceiverAgent* receiver_agent() { return agent_.get(); }
  // ORNIC's core (node view for tests and VCD); throws unless nic.ordering is ornic.
  const ordering::OrnicBitmap& core() const;
  const std::string& scheme() const { return scheme_; }
  // The scheme's SRAM instances (ordering::sram_layout).
  std::vector<Sram*> srams();
  // Where the scheme's bits live (ORNIC: bitmap.block_pool); throws if it has none (gbn).
  Sram& block_pool();
  uint64_t port_stall_cycles() const { return port_.stall_cycles(); }
  // bitmap.impl rtl: the RTL behind the seam (nullptr with the C++ core).
  const ordering::RtlOrnicBitmap* rtl() const { return rtl_; }
  // The first call where the RTL and the lockstep core differed, with its packet and cycle.
  struct RtlMismatch {
    uint64_t call = 0;
    uint32_t record = 0, qp = 0, psn = 0;
    Cycle cycle = 0;  // the call's grant
    std::string what;
  };
  const RtlMismatch* rtl_first_mismatch() const {
    return rtl_mismatch_.call ? &rtl_mismatch_ : nullptr;
  }

 private:
  std::string scheme_;
  const ordering::Scheme& scheme_info_;
  std::unique_ptr<ordering::OrderingUnit> owned_;
  std::unique_ptr<eunomia::ReceiverAgent> agent_;  // eunomia: owns the unit
  ordering::OrderingUnit* unit_ = nullptr;
  ordering::RtlOrnicBitmap* rtl_ = nullptr;  // bitmap.impl rtl
  RtlMismatch rtl_mismatch_;
  // The unit when the scheme is ornic (VCD node view); with bitmap.impl rtl, the lockstep core.
  const ordering::OrnicBitmap* ornic_ = nullptr;
  uint32_t block_bits_;
  uint64_t qp_state_bits_;
  std::vector<uint32_t> high_;
  int64_t pool_used_ =
      0;  // blocks held by all QPs (VCD)  // per QP: highest accepted PSN + 1 (has_pending)
  std::vector<std::unique_ptr<Sram>> srams_;
  Sram* state_ = nullptr;  // per-QP state (ORNIC: node array)
  Sram* store_ = nullptr;  // the bits (pool blocks / static bitmaps / slots)
  Sram* next_ = nullptr;   // lists: next pointers
  Sram* free_ = nullptr;   // pooled schemes: free-slot stack
  uint32_t id_bits_;
  uint32_t store_unit_;  // bits a held block occupies in the store
  Resource port_;
  Counter& calls_;
  Counter& naks_;
  Histogram& locate_;
  Probe p_qp_, p_psn_, p_epsn_, p_header_ptr_, p_blocks_held_, p_pool_used_, p_nak_;

  // Node probes of the watched QP: empty with VCD off, so nothing below runs.
  struct NodeProbes {
    Probe valid, all_1, block_id, bits;
  };
  struct NodeState {
    bool valid = false, all_1 = false;
    uint32_t block_id = 0;
    uint64_t bits = 0;
  };
  std::vector<NodeProbes> p_nodes_;
  std::vector<NodeState> node_seen_;  // last values recorded, per physical node
  std::vector<uint64_t> watch_bits_;  // low 64 bits of each node's block, rebuilt from calls
  uint32_t watch_qp_ = 0;
  Cycle watch_last_ = 0;  // latest cycle node changes were recorded at
  void record_nodes(Cycle t, uint32_t qp);
  void blocks(Cycle t, int64_t delta);
};

}  // namespace oonic::ornic
