// ORNIC's Bitmap Manager (Figure 1): the QP-depth bitmap shared by the Req
// Processor (WRITE data at the responder) and the Rsp Processor (READ responses
// at the requester). A shell over the plain core ordering::OrnicBitmap: it owns
// the SRAMs `bitmap.node_array` (one node word {block_id, valid, all_1} per
// node) and `bitmap.block_pool` (one M-bit word per block), and turns each
// call's cost into cycles. Both processors reach it through one request port,
// so concurrent calls queue (port contention, counted as stall cycles).
// Timing: a call booked at cycle t is granted at g >= t and holds the port for
// the core's cycle count c; its result is available at g + c.
#pragma once

#include <systemc>

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ordering/ornic_bitmap.h"
#include "model/ornic/block_env.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class BitmapManager : public sc_core::sc_module {
 public:
  BitmapManager(sc_core::sc_module_name name, const BlockEnv& env);

  struct Result {
    ordering::Outcome out;
    Cycle grant = 0, done = 0;
  };
  void open(Cycle t, uint32_t qp, uint32_t start_psn, uint32_t otd);
  void close(Cycle t, uint32_t qp);
  Result access(Cycle t, uint32_t qp, uint32_t psn);
  // VCD only: which QP's node array the node<i> signals show (default 0). Call
  // before that QP's first open/access; the signals keep their names.
  void watch_qp(uint32_t qp);
  const ordering::OrnicBitmap& core() const { return core_; }
  Sram& node_array() { return node_array_; }
  uint64_t port_stall_cycles() const { return port_.stall_cycles(); }
  Sram& block_pool() { return block_pool_; }

 private:
  ordering::OrnicBitmap core_;
  uint32_t node_bits_;
  Sram node_array_;
  Sram block_pool_;
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
};

}  // namespace oonic::ornic
