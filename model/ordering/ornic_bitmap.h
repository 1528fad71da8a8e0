// ORNIC's bitmap (docs/DESIGN.md M1, ORNIC Figure 7) as a plain C++ core:
// per QP a cyclic array of N bitmap block nodes {block_id, valid, all_1_flag},
// block contents in one shared pool of M-bit blocks, header_ptr at the node that
// holds the expected PSN (ePSN), OTD loss detection and the NAK block.
//
// Every call reports what it cost, counted as ORNIC §4.3 counts: one cycle per
// array access or block access through a pointer. The Bitmap Manager shell turns
// those counts into SRAM port reservations and cycles.
//
// Cost model of receive() (documented here, asserted in tests):
//   locate                 1 cycle  node array read at (header_ptr + (psn-base)/M) % N
//   allocate a block       1 cycle  pop from the pool's free list (node not valid)
//   set the bit            1 cycle  block read-modify-write (node valid, not all_1)
//   free a full block      1 cycle  push to the free list (block became all ones)
//   head advance, per node 1 cycle  each node examined after the header node while
//                                   moving ePSN to the first missing PSN (all_1 nodes are
//                                   cleared and skipped; a partial node costs 1 more
//                                   cycle to read its block and find the first zero)
// Duplicates cost the locate (+1 if the block had to be read). A PSN beyond
// the N*M-bit window, or one needing a block when the pool is empty, is
// dropped after the locate.
//
// NAK rule (ORNIC: "OTD = 2 blocks, a packet landing in node 3 triggers a NAK
// carrying node 1's block", generalised): a packet with psn - ePSN > OTD
// declares a loss; the NAK carries the block containing ePSN (the header node:
// base PSN and its M bits, 1 = received; an unallocated header node is all
// zeros). At most one NAK per ePSN value: no new NAK until ePSN advances. The
// packet itself is still tracked if it lies in the window.
//
// All PSN arithmetic is modulo 2^24. Plain C++: no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/qp_table.h"
#include "model/ordering/ordering_unit.h"
#include "model/wire/roce.h"

namespace oonic::ordering {

class OrnicBitmap : public OrderingUnit {
 public:
  struct Params {
    uint32_t block_bits = 16;     // M, bits per pool block (1..wire::kMaxBitmapBlockBits)
    uint32_t nodes_per_qp = 20;   // N, nodes in each QP's cyclic array
    uint32_t pool_blocks = 4096;  // blocks in the shared pool
    uint32_t max_qps = 2048;      // QP slots (qp index 0..max_qps-1)
    // Re-declaration of a persisting hole (MECHANISMS.md §1, open): with ePSN unchanged
    // since the last NAK, a packet more than renak_psns past the packet that triggered
    // that NAK declares the hole lost again (a lost NAK or a lost retransmission), so
    // recovery stays selective. 0: NAK once per ePSN (the timeout recovers the rest).
    uint32_t renak_psns = 0;
  };
  explicit OrnicBitmap(const Params& p);
  const char* name() const override { return "ornic"; }
  // Out of line: Qp is complete only in ornic_bitmap.cpp (std::vector<Qp> needs it to
  // destroy/move). Movable, not copyable.
  ~OrnicBitmap() override;
  OrnicBitmap(OrnicBitmap&&) noexcept;
  OrnicBitmap& operator=(OrnicBitmap&&) noexcept;

  // Start tracking a QP at start_psn with loss tolerance otd (PSNs). Reopening
  // an open QP first closes it.
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  // Stop tracking; its blocks return to the pool.
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;
  void set_otd(uint32_t qp, uint32_t otd);

  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override;

  uint32_t epsn(uint32_t qp) const override;
  uint32_t blocks_held(uint32_t qp) const override;
  // True when any PSN at or after ePSN is tracked (out-of-order data still
  // outstanding). A QP can leave OOO mode only when this is false.
  bool has_pending(uint32_t qp) const;
  uint32_t pool_free() const;
  uint32_t pool_used() const;
  const Params& params() const { return p_; }

  // Node view (for VCD and tests): node i of the QP's array, i counted from header_ptr.
  struct NodeView {
    uint32_t block_id;
    bool valid;
    bool all_1;
  };
  NodeView node(uint32_t qp, uint32_t i_from_header) const;
  uint32_t header_ptr(uint32_t qp) const;
  uint32_t base_psn(uint32_t qp) const;  // PSN of bit 0 of the header node

  // Full consistency check (tests): pool accounting, every held block owned by
  // exactly one valid non-all_1 node, header node holds ePSN, bits below ePSN set.
  bool check_invariants(std::string* why) const override;

 private:
  // implementation state (per-QP arrays, pool bits, free list) — see ornic_bitmap.cpp
  static constexpr uint32_t kNoNode = 0xFFFFFFFFu;  // a node holding no block
  struct Qp {
    struct Node {
      uint32_t block_id = kNoNode;
      bool valid = false;
      bool all_1 = false;
    };
    std::vector<Node> nodes;  // N entries, allocated once in the constructor
    uint32_t header_ptr = 0;
    uint32_t base_psn = 0;
    uint32_t start_psn = 0;
    uint32_t epsn = 0;
    uint32_t otd = 0;
    uint32_t blocks_held = 0;
    uint32_t last_nak_epsn = 0;
    uint32_t last_nak_psn = 0;  // the packet that triggered that NAK
    bool nak_sent = false;      // a NAK was sent while ePSN == last_nak_epsn
    bool open = false;
  };
  Params p_;
  QpTable<Qp> qps_;  // entries made as QPs are opened (model/core/qp_table.h)
  // The pool as a stack of free block ids, block 0 on top at the start. Blocks are
  // made as the stack first reaches them (an idle NIC's pool costs nothing): the
  // stack is free_list_ (blocks given back) above the never-used blocks made_ ..
  // pool_blocks-1, lowest on top, which is the same order.
  std::vector<uint32_t> pool_bits_;  // made_ * words_per_block
  std::vector<uint32_t> free_list_;  // blocks given back (top = back())
  std::vector<int32_t> owner_;       // block -> qp (-1 free), for invariants; made_ long
  uint32_t made_ = 0;
  bool pool_empty() const { return free_list_.empty() && made_ == p_.pool_blocks; }
  uint32_t pool_pop();
  uint32_t words_per_block_ = 1;

  uint32_t* block_words(uint32_t block);
  const uint32_t* block_words(uint32_t block) const;
  uint32_t last_word_mask() const;            // valid bits of a block's last word
  uint32_t first_zero(uint32_t block) const;  // first clear bit in [0, M), M if full
};

}  // namespace oonic::ordering
