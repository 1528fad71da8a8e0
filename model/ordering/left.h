// LEFT and LEFT+ (docs/DESIGN.md M4) as plain C++ cores on the shared linked-list bitmap
// (linked_list_bitmap.h holds the structure, the cost model and every documented choice).
//
// MELO's linked list plus, per QP, a cache pointer to the last-hit block (QP register:
// the block id and the first PSN it stands for, so its index in the list is known without
// an access). Front (k == 0, start_ptr) and end (k == L-1 or new blocks, end_ptr) are
// reached in 1 cycle as in MELO; a middle block k (0 < k < L-1):
//
//   hit                 k is the cached block: 1 cycle through cache_ptr
//   Left ("left")       miss: walk from the head, start_ptr 1 + k hops = 1 + k cycles
//   LeftPlus ("left+")  miss with the target after the cached block (k > c): walk from the
//                       cache pointer instead, cache_ptr 1 + (k - c) hops; target before the
//                       cached block, or no valid cache: walk from the head as LEFT
//
// Cache update (open in the spec; parameter cache_threshold, default 2). "Blocks traversed"
// is read as the blocks the walk reaches: hops + 1 (from the head, or from the cache pointer
// for LEFT+), and "exceed the threshold" as hops + 1 > cache_threshold, i.e. the cache
// pointer moves to the walk's target when
//     hops >= cache_threshold        (hops == threshold - 1: no update; >= threshold: update)
// A hit, and the front/end accesses, leave it alone. Why 2: a block 1 hop from the head
// costs 2 cycles to reach, so a hit there saves 1 cycle; the front and end are 1 cycle
// already. With 2 the single pointer only moves for walks whose hits save >= 2 cycles, and
// near-head accesses (retransmissions around the head hole) cannot steal it from the far
// middle blocks where late reordered packets land, which is the case the cache is for
// (ORNIC §4.3: packets shuffled within 64 PSNs behind RCV.HIGH while a loss holds the head).
// With 0 every walk moves it (pure last-walked), with 1 every walk but the 1-hop ones.
// The argument counts walks from the head; for LEFT+ a 2-hop walk from the pointer also
// moves it, past blocks still receiving packets, which then walk from the head: after a
// head loss that is most of LEFT+'s cost (docs/experiments/bitmap-compare.md).
//
// The cache is invalidated when its block is released (RCV.NXT passes it at the front, the
// list empties, or the QP closes/reopens). Cache bookkeeping costs no cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/ordering/linked_list_bitmap.h"

namespace oonic::ordering {

class Left : public LinkedListBitmap {
 public:
  struct Params : LinkedListBitmap::Params {
    uint32_t cache_threshold = 2;  // hops; a walk of >= this many next_ptr hops moves the cache
  };
  explicit Left(const Params& p) : Left(p, false) {}
  const char* name() const override { return "left"; }

  // Cache view (tests, VCD): -1 when no valid cache, else the cached block's list index.
  int32_t cache_index(uint32_t qp) const;
  uint32_t cache_block(uint32_t qp) const;  // kNoBlock when not valid
  uint32_t cache_threshold() const { return threshold_; }

 protected:
  Left(const Params& p, bool from_cache);
  uint32_t locate_middle(uint32_t qp, uint32_t k, Outcome& out) override;
  void on_release(uint32_t qp, uint32_t block) override;
  void on_open(uint32_t qp) override;
  bool check_scheme_invariants(uint32_t qp, const std::vector<uint32_t>& list,
                               std::string* why) const override;

 private:
  struct Cache {
    bool valid = false;
    uint32_t block = kNoBlock;
    uint32_t psn = 0;  // first PSN the cached block stands for
  };
  uint32_t threshold_;
  bool from_cache_;  // LEFT+
  std::vector<Cache> cache_;
};

class LeftPlus final : public Left {
 public:
  explicit LeftPlus(const Params& p) : Left(p, true) {}
  const char* name() const override { return "left+"; }
};

}  // namespace oonic::ordering
