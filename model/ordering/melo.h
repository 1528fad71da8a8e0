// MELO and MELO+ (docs/DESIGN.md M3) as plain C++ cores on the shared linked-list bitmap
// (linked_list_bitmap.h holds the structure, the cost model and every documented choice).
//
//   Melo ("melo")       only the front (the block at start_ptr: retransmissions filling the
//                       head hole) and the end (the block at end_ptr, or new blocks appended
//                       after it) are accessed, 1 cycle each. A packet that needs a block in
//                       the middle of the list is dropped as kUntrackable at 0 cycles (the
//                       choice is made from base, RCV.HIGH and the list length, all QP
//                       registers) with Feedback kNone: the sender's timeout resends it.
//                       This holds for a middle packet whose bit is already set too (MELO
//                       cannot look): it is untrackable, not a duplicate.
//   MeloPlus ("melo+")  as ORNIC §4.3 defines it: a middle block k (0 < k < L-1) is reached
//                       by walking the list from the head: start_ptr 1 cycle + k next_ptr
//                       hops = 1 + k locate cycles. Front and end stay 1 cycle.
//
// Both: a new hole -> kHoleNack with the 3 most recent holes; no free block -> kPoolExhausted
// (go-back-N: kNak once per RCV.NXT value); in order -> kInOrder, kAck. Plain C++: no SystemC.
#pragma once

#include <cstdint>

#include "model/ordering/linked_list_bitmap.h"

namespace oonic::ordering {

class Melo : public LinkedListBitmap {
 public:
  using Params = LinkedListBitmap::Params;  // pool_bits 1024, block_bits 8 (MELO's paper)
  explicit Melo(const Params& p) : LinkedListBitmap(p) {}
  const char* name() const override { return "melo"; }

 protected:
  uint32_t locate_middle(uint32_t qp, uint32_t k, Outcome& out) override;
};

class MeloPlus : public LinkedListBitmap {
 public:
  using Params = LinkedListBitmap::Params;
  explicit MeloPlus(const Params& p) : LinkedListBitmap(p) {}
  const char* name() const override { return "melo+"; }

 protected:
  uint32_t locate_middle(uint32_t qp, uint32_t k, Outcome& out) override;
};

}  // namespace oonic::ordering
