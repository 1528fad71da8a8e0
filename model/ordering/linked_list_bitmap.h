// The linked-list bitmap shared by MELO, MELO+, LEFT and LEFT+ (docs/DESIGN.md M3, M4) as a
// plain C++ core. Structure (MELO, APNet'17):
//
//   bits pool       pool_bits bits split into pool_blocks = pool_bits / block_bits equal
//                   blocks; next_ptr[b] per block (a parallel array, same index).
//   free-slot array free_slots[0..pool_blocks) used as a stack: avail_ptr = blocks in use;
//                   pop = free_slots[avail_ptr++], push = free_slots[--avail_ptr] = b.
//                   Initially free_slots[i] = i, so block 0 is allocated first and a
//                   returned block is the next one allocated (LIFO).
//   per connection  start_ptr, end_ptr, list length, base (PSN of bit 0 of the start block),
//                   RCV.NXT (ePSN, the front bit), RCV.HIGH (highest PSN received + 1, the
//                   end), the 3 tracked holes, the go-back-N NAK flag. All of it is QP
//                   context (registers): reading or writing it costs no cycle.
//
// Bit i of the k-th block of a list (k = 0 at start_ptr) stands for PSN base + k*M + i
// (M = block_bits), 1 = received. Choices where the spec is open:
//
//  * The list exists only while something is outstanding: it is empty exactly when
//    RCV.NXT == RCV.HIGH. An in-order packet on an empty list needs no bitmap (both
//    pointers just move on, 0 cycles). The first out-of-order packet creates the list with
//    base = RCV.NXT (the front bit is bit 0 of the start block; the block grid restarts at
//    RCV.NXT each time a list is created). The list always covers [base, RCV.HIGH)
//    contiguously: a packet beyond the end block appends every block up to its own, the
//    blocks in between (holes) zeroed.
//  * A full block at the front is returned as RCV.NXT passes it. When RCV.NXT reaches
//    RCV.HIGH (every tracked PSN received) the last block is returned even if partial, so
//    an idle connection holds no bits. Bits below RCV.NXT inside the start block stay set
//    (received); every block wholly below RCV.NXT has been returned. Middle blocks that
//    become full are kept (only the front is ever released): the list stays contiguous.
//  * Window: a packet whose block index (from base, or from RCV.NXT on an empty list)
//    would be >= max_blocks_per_qp (default: the whole pool) is dropped as kBeyondWindow.
//    The pool size caps pool_bits below 2^22 so a list never spans half the PSN space.
//  * Feedback. Duplicates (below RCV.NXT, or their bit already set) -> kAck. Accepted
//    packets -> kAck, except a packet beyond RCV.HIGH that leaves PSNs unreceived (a new
//    hole [RCV.HIGH, psn)) -> kHoleNack at once. Drops for lack of bits (kPoolExhausted) or
//    window (kBeyondWindow) fall back to go-back-N: kNak carrying ePSN, at most one per
//    RCV.NXT value (RoCE's NAK-once rule; the sender's timeout covers the rest). MELO's
//    middle drop (kUntrackable) -> kNone: the sender's timeout resends it. Outcome::nak
//    (ORNIC's bitmap-NAK flag) and sack_psn stay unused; Outcome::epsn is RCV.NXT.
//  * Holes. Per connection up to 3 holes {start PSN, length 1..255}, most recent (highest)
//    first, kept exact: every tracked PSN is unreceived and in [RCV.NXT, RCV.HIGH). A new
//    hole [RCV.HIGH, psn) longer than 255 PSNs is split into pieces of 255 from its top
//    (the piece ending at psn first); the new pieces go in front of the old holes and only
//    3 entries are kept, so a hole longer than 765 PSNs loses its lowest part (as do older
//    holes pushed out): the timeout recovers those. A packet that fills a PSN of a tracked
//    hole trims it (at an edge) or splits it into two (inside), the upper part first; if
//    that makes 4 entries the lowest is dropped. A kHoleNack carries the tracked holes
//    after this packet's update. Hole bookkeeping is register work: 0 cycles.
//
// Cost model of receive() (ORNIC §4.3: one cycle per block reached through a pointer, one
// per array access). node_accesses count next_ptr reads/writes, block_accesses count
// bits-pool reads/writes and free-slot stack pops/pushes (as ordering_unit.h defines).
//
//   reach a block       1 cycle  through start_ptr, end_ptr or LEFT's cache_ptr, and each
//                                next_ptr hop to a further block: the block's bits and its
//                                next_ptr are read in the same cycle (+1 block, +1 node)
//   set the bit         1 cycle  write of the reached block's bits (+1 block)
//   append j blocks     j cycles pops (+j block); the packet's block is the j-th popped
//                      +j cycles one write per new block: zeroed bits (the last one with
//                                the packet's bit: that is its set) and its next_ptr
//                                (+1 block, +1 node each)
//                      +1 cycle  link: next_ptr[old end] = first new block (+1 node),
//                                only when the list was not empty
//   front advance       after a set at RCV.NXT the next zero inside the start block is
//                                known from the write (0 cycles); each block released:
//                                push 1 cycle (+1 block); each next block examined after a
//                                release: 1 cycle (a reach through next_ptr, +1 block,
//                                +1 node)
//   locate_cycles       the reaches up to the packet's block (start_ptr / end_ptr /
//                                cache_ptr 1, + 1 per hop), or the j pops for an append
//                                (the packet's block id comes out of the free-slot array
//                                only after the j-1 blocks before it; j = 1 gives 1, as
//                                ORNIC's locate of an unallocated node)
//   0 cycles            psn < RCV.NXT (duplicate); in-order on an empty list; every drop
//                                (window, pool: the free count is pool_blocks - avail_ptr,
//                                a register; MELO's middle: decided from base, RCV.HIGH
//                                and the list length)
//
// Which block a packet needs, with k its index in the list and L the list length:
//   k == 0              front: reached through start_ptr (1 cycle)
//   k == L-1            end: reached through end_ptr (1 cycle); also new data landing in
//                                the end block at or after RCV.HIGH
//   k >= L              new blocks appended after the end
//   0 < k < L-1         middle: the scheme decides (locate_middle): MELO drops it, MELO+
//                                walks from the head, LEFT/LEFT+ use their cache pointer
//
// close() returns the list walking it from start_ptr to end_ptr (the end block ends on top
// of the stack). No allocation in receive(). All PSN arithmetic is modulo 2^24.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/ordering/ordering_unit.h"
#include "model/wire/roce.h"

namespace oonic::ordering {

class LinkedListBitmap : public OrderingUnit {
 public:
  struct Params {
    uint32_t pool_bits = 1024;  // bits in the shared pool (MELO: 1 Kbit); multiple of block_bits
    uint32_t block_bits = 8;    // M, bits per block (MELO: 1 byte; ORNIC §4.3 compares at 16),
                                // 1..wire::kMaxBitmapBlockBits
    uint32_t max_qps = 2048;    // QP slots (qp index 0..max_qps-1)
    uint32_t max_blocks_per_qp = 0;  // blocks one list may span (the per-connection
                                     // re-order buffer, in blocks); 0 = the whole pool
  };
  explicit LinkedListBitmap(const Params& p);
  ~LinkedListBitmap() override = default;

  // Start tracking a QP at start_psn (otd is ignored). Reopening an open QP closes it first.
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  // Stop tracking; the list returns to the pool (start to end).
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;

  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override;

  uint32_t epsn(uint32_t qp) const override;  // RCV.NXT
  uint32_t blocks_held(uint32_t qp) const override;
  uint32_t rcv_high(uint32_t qp) const;  // RCV.HIGH: highest PSN received + 1
  uint32_t base_psn(uint32_t qp) const;  // PSN of bit 0 of the start block (valid if held > 0)
  uint32_t start_ptr(uint32_t qp) const;
  uint32_t end_ptr(uint32_t qp) const;
  // The QP's list, start to end (tests, VCD; allocates).
  std::vector<uint32_t> list_blocks(uint32_t qp) const;
  // Tracked holes, most recent first; returns how many (0..3).
  uint32_t holes(uint32_t qp, std::array<Hole, 3>* out) const;
  uint32_t pool_blocks() const { return pool_blocks_; }
  uint32_t avail_ptr() const { return avail_ptr_; }  // blocks in use (stack top index)
  uint32_t pool_free() const { return pool_blocks_ - avail_ptr_; }
  uint32_t pool_used() const { return avail_ptr_; }
  const Params& params() const { return p_; }

  // List integrity, blocks_held = list length, pool accounting (free + held by all QPs =
  // pool blocks, each block once), RCV.NXT/RCV.HIGH/bit consistency, exact holes, and the
  // scheme's own state (check_scheme_invariants).
  bool check_invariants(std::string* why) const override;

  static constexpr uint32_t kNoBlock = 0xFFFFFFFFu;

 protected:
  // Locate the middle block k (0 < k < L-1) of qp's list. Charge the reaches with
  // reach(out, true) and return the block, or return kNoBlock (charging nothing) when the
  // scheme cannot access the middle: the packet is dropped as kUntrackable.
  virtual uint32_t locate_middle(uint32_t qp, uint32_t k, Outcome& out) = 0;
  // A block of qp's list goes back to the pool (front release, list emptied, close).
  virtual void on_release(uint32_t qp, uint32_t block) {
    (void)qp;
    (void)block;
  }
  // The QP is (re)opened.
  virtual void on_open(uint32_t qp) { (void)qp; }
  // The scheme's own consistency (called by check_invariants for an open QP with its list).
  virtual bool check_scheme_invariants(uint32_t qp, const std::vector<uint32_t>& list,
                                       std::string* why) const {
    (void)qp;
    (void)list;
    (void)why;
    return true;
  }

  // For schemes: one reach (1 cycle, +1 block, +1 node; +1 locate cycle if locate).
  static void reach(Outcome& out, bool locate) {
    out.cycles += 1;
    out.block_accesses += 1;
    out.node_accesses += 1;
    if (locate) out.locate_cycles += 1;
  }
  uint32_t start_block(uint32_t qp) const { return qps_[qp].start_ptr; }
  uint32_t next_block(uint32_t block) const { return next_ptr_[block]; }
  uint32_t list_length(uint32_t qp) const { return qps_[qp].length; }
  uint32_t block_bits() const { return p_.block_bits; }

 private:
  struct Qp {
    bool open = false;
    uint32_t start_ptr = kNoBlock;
    uint32_t end_ptr = kNoBlock;
    uint32_t length = 0;  // blocks in the list
    uint32_t base = 0;    // PSN of bit 0 of the start block
    uint32_t nxt = 0;     // RCV.NXT
    uint32_t high = 0;    // RCV.HIGH
    std::array<Hole, 3> holes{};
    uint8_t nholes = 0;
    bool nak_sent = false;  // a go-back-N NAK was sent while RCV.NXT == nak_epsn
    uint32_t nak_epsn = 0;
  };

  Params p_;
  uint32_t pool_blocks_ = 0;
  uint32_t words_per_block_ = 1;
  uint32_t max_blocks_ = 0;
  std::vector<Qp> qps_;
  std::vector<uint32_t> bits_;        // pool_blocks * words_per_block
  std::vector<uint32_t> next_ptr_;    // per block
  std::vector<uint32_t> free_slots_;  // stack: [avail_ptr, pool_blocks) are free
  uint32_t avail_ptr_ = 0;
  std::vector<int32_t> owner_;  // block -> qp (-1 free): model bookkeeping for invariants

  uint32_t* words(uint32_t block) { return &bits_[static_cast<size_t>(block) * words_per_block_]; }
  const uint32_t* words(uint32_t block) const {
    return &bits_[static_cast<size_t>(block) * words_per_block_];
  }
  bool test(uint32_t block, uint32_t bit) const {
    return (words(block)[bit / 32] >> (bit % 32)) & 1u;
  }
  void set(uint32_t block, uint32_t bit) { words(block)[bit / 32] |= 1u << (bit % 32); }
  uint32_t first_zero(uint32_t block, uint32_t from) const;  // in [from, M), M if none
  uint32_t pop(uint32_t qp);
  void push(uint32_t qp, uint32_t block);
  void append(uint32_t qp, Qp& q, uint32_t k, uint32_t psn, Outcome& out);
  void advance_front(uint32_t qp, Qp& q, Outcome& out);
  void gbn_nak(Qp& q, Outcome& out);
  static void add_hole(Qp& q, uint32_t from, uint32_t to);  // [from, to): a new hole
  static void fill_hole(Qp& q, uint32_t psn);
  static void copy_holes(const Qp& q, Outcome& out);
};

}  // namespace oonic::ordering
