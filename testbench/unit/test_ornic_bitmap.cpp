// Unit tests of the ORNIC bitmap core (model/ordering/ornic_bitmap.h).
//
// Hand cases pin the cost model of receive() exactly; every expected number is derived
// in a comment from the header's table:
//   locate 1 (node read) | allocate 1 (pop + node write) | set bit 1 (block RMW: read +
//   write) | free 1 (push + node write) | head advance: 1 per node examined after the
//   header node (+1 node write to clear an all_1 node, no extra cycle), +1 cycle / +1
//   block read for a partial node | NAK: +1 header node read, +1 header block read if held.
// and the .cpp's documented choices: psn < ePSN and beyond-window cost 0 cycles; pool
// exhaustion costs the locate only.
//
// Property tests replay thousands of seeded arrival orders against an independent
// reference model (per-PSN received flags), checking verdicts, costs, NAKs and the
// invariants after every call.
#include <gtest/gtest.h>

#include "testbench/common/arrival_orders.h"
#include "testbench/common/ordering_checks.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/ordering/ornic_bitmap.h"

namespace {

using oonic::ordering::OrnicBitmap;
using oonic::ordering::Outcome;
using oonic::ordering::Verdict;
using oonic::wire::psn_add;
using oonic::wire::psn_diff;

OrnicBitmap::Params MakeParams(uint32_t m, uint32_t n, uint32_t pool, uint32_t qps) {
  OrnicBitmap::Params p;
  p.block_bits = m;
  p.nodes_per_qp = n;
  p.pool_blocks = pool;
  p.max_qps = qps;
  return p;
}

using oonic::test::Invariants;  // testbench/common/ordering_checks.h

// Receive a list of PSNs, expecting each to be accepted (in order or out of order).
void Feed(OrnicBitmap& bm, uint32_t qp, std::initializer_list<uint32_t> psns) {
  for (uint32_t p : psns) {
    Outcome o = bm.receive(qp, p);
    ASSERT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder)
        << "psn " << p << " verdict " << to_string(o.verdict);
    ASSERT_TRUE(Invariants(bm));
  }
}

// ---------------------------------------------------------------------------------------
// Hand cases: costs
// ---------------------------------------------------------------------------------------

TEST(OrnicBitmapCost, InOrderIntoFreshQp) {
  OrnicBitmap bm(MakeParams(16, 20, 64, 4));
  bm.open(0, 100, 64);
  ASSERT_TRUE(Invariants(bm));
  // psn 100 == ePSN, header node empty:
  //   locate 1 (node read) + allocate 1 (pop block 0, node write) + set 1 (RMW) = 3 cycles.
  //   Head advance: the header block is still partial, its next zero (bit 1) is known from
  //   the RMW -> no extra cycle. node accesses: read + alloc write = 2; block accesses:
  //   pop + read + write = 3.
  Outcome o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 3, 1, 2, 3);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_FALSE(o.nak);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_EQ(o.blocks_held, 1u);
  EXPECT_EQ(o.blocks_delta, 1);
  EXPECT_EQ(bm.node(0, 0).block_id, 0u);  // allocation order starts at block 0
  EXPECT_TRUE(bm.node(0, 0).valid);
  EXPECT_FALSE(bm.node(0, 0).all_1);
  EXPECT_EQ(bm.pool_used(), 1u);
  ASSERT_TRUE(Invariants(bm));

  // psn 101: locate 1 + set 1 (block valid: RMW) = 2 cycles; 1 node read; read + write.
  o = bm.receive(0, 101);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.epsn, 102u);
  EXPECT_EQ(o.blocks_delta, 0);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, OutOfOrderInNode2) {
  OrnicBitmap bm(MakeParams(16, 20, 64, 4));
  bm.open(0, 100, 64);
  // psn 137 = base 100 + 2*16 + 5 -> node 2, bit 5; d = 37 <= OTD 64: no NAK.
  //   locate 1 + allocate 1 + set 1 = 3 cycles, no head movement.
  Outcome o = bm.receive(0, 137);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 2, 3);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_FALSE(o.nak);
  EXPECT_EQ(o.epsn, 100u);
  EXPECT_EQ(o.blocks_held, 1u);
  EXPECT_FALSE(bm.node(0, 0).valid);
  EXPECT_FALSE(bm.node(0, 1).valid);
  EXPECT_TRUE(bm.node(0, 2).valid);
  EXPECT_EQ(bm.node(0, 2).block_id, 0u);
  // psn 138 in the same node: locate 1 + set 1 = 2 cycles.
  o = bm.receive(0, 138);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  // psn 116 -> node 1: a new block (block 1).
  o = bm.receive(0, 116);
  EXPECT_COST(o, 3, 1, 2, 3);
  EXPECT_EQ(bm.node(0, 1).block_id, 1u);
  EXPECT_EQ(o.blocks_held, 2u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, Duplicates) {
  OrnicBitmap bm(MakeParams(16, 20, 64, 4));
  bm.open(0, 100, 64);
  Feed(bm, 0, {137});
  // Bit already set: locate 1 + block read 1 = 2 cycles (1 node read, 1 block read).
  Outcome o = bm.receive(0, 137);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 2, 1, 1, 1);
  EXPECT_EQ(o.blocks_delta, 0);
  // Below ePSN: recognised from QP state, 0 cycles, no access.
  Feed(bm, 0, {100});
  o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.epsn, 101u);
  // Duplicate in an all_1 node: node 1 (116..131) filled and freed; the locate alone
  // shows all_1 -> 1 cycle, no block access.
  for (uint32_t p = 116; p < 132; ++p) ASSERT_NE(bm.receive(0, p).verdict, Verdict::kDuplicate);
  EXPECT_TRUE(bm.node(0, 1).all_1);
  o = bm.receive(0, 120);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 1, 1, 1, 0);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, BlockFillsAndIsFreedAtOnce) {
  OrnicBitmap bm(MakeParams(4, 8, 16, 2));
  bm.open(0, 0, 100);
  Feed(bm, 0, {5, 6, 7});
  EXPECT_EQ(bm.blocks_held(0), 1u);
  // psn 4 completes node 1 (4..7), out of order:
  //   locate 1 + set 1 (RMW) + free 1 (push, node write valid=1 all_1=1) = 3 cycles.
  //   node: read + write = 2; block: read + write + push = 3.
  Outcome o = bm.receive(0, 4);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 2, 3);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, -1);
  EXPECT_EQ(bm.pool_free(), 16u);
  EXPECT_TRUE(bm.node(0, 1).valid);
  EXPECT_TRUE(bm.node(0, 1).all_1);
  ASSERT_TRUE(Invariants(bm));

  Feed(bm, 0, {1, 2, 3});
  // psn 0 == ePSN completes the header node:
  //   locate 1 + set 1 + free 1 (the free's node write clears the header node)
  //   + node 1 examined (all_1: read 1 cycle, cleared: +1 node write)
  //   + node 2 examined (invalid: read 1 cycle, stop, ePSN = 8) = 5 cycles.
  //   node accesses: locate 1 + free write 1 + 2 reads + 1 clear = 5;
  //   block accesses: read + write + push = 3.
  o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 5, 1, 5, 3);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(o.epsn, 8u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, -1);
  EXPECT_EQ(bm.header_ptr(0), 2u);
  EXPECT_EQ(bm.base_psn(0), 8u);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_FALSE(bm.node(0, i).valid) << i;
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, HeadAdvancesAcrossSeveralAll1Nodes) {
  OrnicBitmap bm(MakeParams(4, 8, 16, 2));
  bm.open(0, 0, 100);
  for (uint32_t p = 4; p < 16; ++p) Feed(bm, 0, {p});  // nodes 1..3 all_1
  Feed(bm, 0, {16, 18, 1, 2, 3});                      // node 4 partial, node 0 = 1..3
  for (uint32_t i = 1; i <= 3; ++i) EXPECT_TRUE(bm.node(0, i).all_1) << i;
  EXPECT_EQ(bm.blocks_held(0), 2u);
  // psn 0: locate 1 + set 1 + free 1 (header node cleared)
  //   + nodes 1, 2, 3 all_1: 1 cycle each, each cleared        = 3
  //   + node 4 partial: 1 (node read) + 1 (block read, first zero = bit 1 -> ePSN 17) = 2
  //   = 8 cycles. node accesses: 1 + 1 + 4 reads + 3 clears = 9;
  //   block accesses: RMW 2 + push 1 + node 4 block read 1 = 4.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 8, 1, 9, 4);
  EXPECT_EQ(o.epsn, 17u);
  EXPECT_EQ(o.blocks_held, 1u);
  EXPECT_EQ(o.blocks_delta, -1);
  EXPECT_EQ(bm.header_ptr(0), 4u);
  EXPECT_EQ(bm.base_psn(0), 16u);
  EXPECT_TRUE(bm.node(0, 0).valid);
  EXPECT_FALSE(bm.node(0, 0).all_1);
  for (uint32_t i = 1; i < 8; ++i) EXPECT_FALSE(bm.node(0, i).valid) << i;  // behind: cleared
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, HeadScanWrapsTheWholeArray) {
  OrnicBitmap bm(MakeParams(4, 4, 8, 1));
  bm.open(0, 0, 100);
  for (uint32_t p = 4; p < 16; ++p) Feed(bm, 0, {p});  // nodes 1..3 all_1 (whole window)
  Feed(bm, 0, {1, 2, 3});
  // psn 0: locate 1 + set 1 + free 1 + nodes 1..3 (1 each) + node 0 again (the cleared
  // old header node, now the last node of the window: invalid, 1) = 7 cycles; ePSN 16.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 7, 1, 1 + 1 + 4 + 3, 3);
  EXPECT_EQ(o.epsn, 16u);
  EXPECT_EQ(bm.header_ptr(0), 0u);
  EXPECT_EQ(bm.base_psn(0), 16u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapCost, SingleBitBlocks) {
  // M = 1: every set fills its block at once.
  OrnicBitmap bm(MakeParams(1, 4, 4, 1));
  bm.open(0, 10, 100);
  // psn 12 (node 2): locate 1 + alloc 1 + set 1 + free 1 = 4; held stays 0.
  Outcome o = bm.receive(0, 12);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 4, 1, 3, 4);
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_TRUE(bm.node(0, 2).all_1);
  // psn 10: locate 1 + alloc 1 + set 1 + free 1 + node 1 (invalid) 1 = 5; ePSN 11.
  o = bm.receive(0, 10);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 5, 1, 4, 4);
  EXPECT_EQ(o.epsn, 11u);
  // psn 11: ... + node for 12 (all_1: 1) + node for 13 (invalid: 1) = 6; ePSN 13.
  o = bm.receive(0, 11);
  EXPECT_COST(o, 6, 1, 6, 4);
  EXPECT_EQ(o.epsn, 13u);
  ASSERT_TRUE(Invariants(bm));
}

// ---------------------------------------------------------------------------------------
// Hand cases: OTD / NAK
// ---------------------------------------------------------------------------------------

TEST(OrnicBitmapNak, OtdViolationOneNakPerEpsn) {
  OrnicBitmap bm(MakeParams(4, 8, 16, 1));
  bm.open(0, 0, 6);
  Feed(bm, 0, {0, 2});  // ePSN 1, header node bits {0, 2}
  // psn 7: d = 6, not > OTD.
  Outcome o = bm.receive(0, 7);
  EXPECT_FALSE(o.nak);
  // psn 8: d = 7 > 6 -> NAK carrying the header node's block (base 0, bits 0b0101).
  //   locate 1 + alloc 1 + set 1 + NAK: header node read 1 + header block read 1 = 5.
  //   node: locate + alloc write + NAK read = 3; block: pop + RMW 2 + NAK read = 4.
  o = bm.receive(0, 8);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(o.nak);
  EXPECT_COST(o, 5, 1, 3, 4);
  EXPECT_EQ(o.nak_block.base_psn, 0u);
  EXPECT_EQ(o.nak_block.nbits, 4u);
  EXPECT_EQ(o.nak_block.words[0], 0b0101u);
  EXPECT_FALSE(o.nak_block.test(1));  // the missing ePSN
  // No second NAK while ePSN stays 1, also not from far (still in-window) packets.
  o = bm.receive(0, 9);
  EXPECT_FALSE(o.nak);
  EXPECT_COST(o, 2, 1, 1, 2);
  o = bm.receive(0, 25);  // node 6
  EXPECT_FALSE(o.nak);
  o = bm.receive(0, 8);  // duplicate, d > OTD: still no NAK
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_FALSE(o.nak);
  // psn 1 fills the hole -> ePSN 3.
  o = bm.receive(0, 1);
  EXPECT_EQ(o.epsn, 3u);
  EXPECT_FALSE(o.nak);
  // psn 10: d = 7 > 6, new ePSN -> NAK again: base 0, bits 0b0111.
  //   locate 1 + set 1 (node 2 valid) + NAK 2 = 4 cycles.
  o = bm.receive(0, 10);
  ASSERT_TRUE(o.nak);
  EXPECT_COST(o, 4, 1, 2, 3);
  EXPECT_EQ(o.nak_block.base_psn, 0u);
  EXPECT_EQ(o.nak_block.words[0], 0b0111u);
  o = bm.receive(0, 11);
  EXPECT_FALSE(o.nak);
  ASSERT_TRUE(Invariants(bm));
}

// bitmap.renak_psns: a hole that persists (its NAK or its retransmission lost) is declared
// again once a packet lands more than renak_psns past the one that triggered the last NAK.
TEST(OrnicBitmapNak, PersistingHoleIsRedeclaredAfterRenakPsns) {
  OrnicBitmap::Params p = MakeParams(4, 8, 16, 1);
  p.renak_psns = 5;
  OrnicBitmap bm(p);
  bm.open(0, 0, 6);
  Feed(bm, 0, {0, 2});           // ePSN 1
  Outcome o = bm.receive(0, 8);  // d = 7 > OTD 6: the first NAK, triggered by 8
  ASSERT_TRUE(o.nak);
  // 9..13 are at most 5 past 8: no NAK (the retransmission may be on its way).
  for (uint32_t q = 9; q <= 13; ++q) {
    o = bm.receive(0, q);
    EXPECT_FALSE(o.nak) << "psn " << q;
  }
  // 14 is 6 past 8, ePSN still 1: declared again, the header block as before
  // (base 0, bits 0b0101), the trigger is now 14.
  o = bm.receive(0, 14);
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.nak_block.base_psn, 0u);
  EXPECT_EQ(o.nak_block.words[0], 0b0101u);
  o = bm.receive(0, 20);  // 6 past 14 -> again
  EXPECT_TRUE(o.nak);
  o = bm.receive(0, 12);  // below the trigger (a late packet): no NAK
  EXPECT_FALSE(o.nak);
  // With renak_psns 0 the same arrivals give one NAK only.
  OrnicBitmap once(MakeParams(4, 8, 16, 1));
  once.open(0, 0, 6);
  Feed(once, 0, {0, 2});
  int naks = 0;
  for (uint32_t q : {8u, 9u, 10u, 11u, 12u, 13u, 14u, 20u}) naks += once.receive(0, q).nak;
  EXPECT_EQ(naks, 1);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapNak, UnallocatedHeaderNodeGivesZeros) {
  OrnicBitmap bm(MakeParams(4, 8, 16, 1));
  bm.open(0, 0, 6);
  Feed(bm, 0, {0, 1, 2, 3});  // ePSN 4, header node (4..7) not allocated
  EXPECT_FALSE(bm.node(0, 0).valid);
  // psn 12 (d = 8): locate 1 + alloc 1 + set 1 + NAK header node read 1 (no block) = 4.
  Outcome o = bm.receive(0, 12);
  ASSERT_TRUE(o.nak);
  EXPECT_COST(o, 4, 1, 3, 3);
  EXPECT_EQ(o.nak_block.base_psn, 4u);
  EXPECT_EQ(o.nak_block.nbits, 4u);
  EXPECT_EQ(o.nak_block.words[0], 0u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapNak, NakBlockIncludesThePacketInTheHeaderNode) {
  // OTD smaller than a block: a packet in the header node itself can violate it; the NAK
  // block is read after the packet's own update.
  OrnicBitmap bm(MakeParams(16, 4, 8, 1));
  bm.open(0, 0, 2);
  Outcome o = bm.receive(0, 5);
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  // locate 1 + alloc 1 + set 1 + NAK 2 = 5.
  EXPECT_COST(o, 5, 1, 3, 4);
  EXPECT_EQ(o.nak_block.words[0], 1u << 5);
  EXPECT_EQ(o.nak_block.nbits, 16u);
}

TEST(OrnicBitmapNak, WideBlockNak) {
  // M = 40 spans two 32-bit words.
  OrnicBitmap bm(MakeParams(40, 4, 8, 1));
  bm.open(0, 0, 50);
  Feed(bm, 0, {0, 33, 39});
  Outcome o = bm.receive(0, 60);  // d = 59 > 50
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.nak_block.nbits, 40u);
  EXPECT_EQ(o.nak_block.words[0], 1u);
  EXPECT_EQ(o.nak_block.words[1], (1u << 1) | (1u << 7));
  // Fill the rest of block 0: ePSN jumps to 40, then 60's bit leaves 41.. missing.
  for (uint32_t p = 1; p < 40; ++p) {
    if (p == 33 || p == 39) continue;
    ASSERT_TRUE(bm.receive(0, p).verdict == Verdict::kInOrder) << p;
  }
  EXPECT_EQ(bm.epsn(0), 40u);
  EXPECT_EQ(bm.blocks_held(0), 1u);
  ASSERT_TRUE(Invariants(bm));
}

// ---------------------------------------------------------------------------------------
// Hand cases: drops, pool, close, wrap
// ---------------------------------------------------------------------------------------

TEST(OrnicBitmapDrop, BeyondWindow) {
  OrnicBitmap bm(MakeParams(4, 4, 8, 1));  // window 16 PSNs
  bm.open(0, 0, 1000);
  Outcome o = bm.receive(0, 15);  // node 3: last in-window PSN
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  // psn 16: node index 4 >= N -> dropped, 0 cycles (no array access).
  o = bm.receive(0, 16);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.epsn, 0u);
  EXPECT_EQ(o.blocks_delta, 0);
  // Once the head moved one node on, 16 lies in node 3.
  Feed(bm, 0, {0, 1, 2, 3});
  EXPECT_EQ(bm.base_psn(0), 4u);
  o = bm.receive(0, 16);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(Invariants(bm));

  // With a small OTD, a beyond-window packet still declares the loss: the NAK costs the
  // header node read (1 cycle; the header node 4..7 holds no block), locate_cycles 0.
  bm.set_otd(0, 6);
  o = bm.receive(0, 40);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.nak_block.base_psn, 4u);
  EXPECT_EQ(o.nak_block.words[0], 0u);  // header node 4..7 not allocated
  EXPECT_COST(o, 1, 0, 1, 0);
}

TEST(OrnicBitmapDrop, PoolExhaustion) {
  OrnicBitmap bm(MakeParams(4, 8, 2, 2));
  bm.open(0, 0, 1000);
  bm.open(1, 500, 2);
  Feed(bm, 0, {1, 5});
  EXPECT_EQ(bm.node(0, 0).block_id, 0u);  // allocation order 0, 1
  EXPECT_EQ(bm.node(0, 1).block_id, 1u);
  EXPECT_EQ(bm.pool_free(), 0u);
  // qp 1, psn 500: node empty, pool empty -> dropped after the locate (1 cycle).
  Outcome o = bm.receive(1, 500);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_COST(o, 1, 1, 1, 0);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_EQ(o.epsn, 500u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, 0);
  // The NAK decision stands even though the packet is dropped: d = 4 > OTD 2.
  o = bm.receive(1, 504);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.nak_block.base_psn, 500u);
  EXPECT_EQ(o.nak_block.words[0], 0u);
  EXPECT_COST(o, 2, 1, 2, 0);
  // qp 0 needing a third block is dropped too.
  EXPECT_EQ(bm.receive(0, 9).verdict, Verdict::kPoolExhausted);
  ASSERT_TRUE(Invariants(bm));
  // qp 0 completes block 0 -> freed; qp 1 gets it (top of the free stack).
  Feed(bm, 0, {0, 2, 3});
  EXPECT_EQ(bm.pool_free(), 1u);
  EXPECT_EQ(bm.epsn(0), 4u);
  o = bm.receive(1, 500);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(bm.node(1, 0).block_id, 0u);
  EXPECT_EQ(bm.pool_used(), 2u);
  ASSERT_TRUE(Invariants(bm));
  bm.close(0);
  EXPECT_EQ(bm.pool_free(), 1u);
  EXPECT_EQ(bm.receive(0, 4).verdict, Verdict::kQpClosed);
  bm.close(1);
  EXPECT_EQ(bm.pool_free(), 2u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapDrop, ClosedQp) {
  OrnicBitmap bm(MakeParams(16, 4, 8, 2));
  EXPECT_FALSE(bm.is_open(0));
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kQpClosed);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm.receive(99, 0).verdict, Verdict::kQpClosed);  // out-of-range qp
  bm.open(0, 7, 64);
  EXPECT_TRUE(bm.is_open(0));
  EXPECT_EQ(bm.epsn(0), 7u);
  EXPECT_THROW(bm.open(5, 0, 1), std::out_of_range);
  EXPECT_STREQ(to_string(Verdict::kPoolExhausted), "pool_exhausted");
}

TEST(OrnicBitmapPool, CloseReturnsBlocksDeterministically) {
  OrnicBitmap bm(MakeParams(4, 8, 8, 2));
  bm.open(0, 0, 100);
  Feed(bm, 0, {9, 1, 5});  // node 2 -> block 0, node 0 -> block 1, node 1 -> block 2
  EXPECT_EQ(bm.pool_used(), 3u);
  bm.close(0);
  EXPECT_EQ(bm.pool_used(), 0u);
  EXPECT_FALSE(bm.is_open(0));
  ASSERT_TRUE(Invariants(bm));
  // Returned from the last node back to the header node: header's block 1 on top, then
  // block 2 (node 1), then block 0 (node 2).
  bm.open(0, 0, 100);
  Feed(bm, 0, {1, 5, 9, 13});
  EXPECT_EQ(bm.node(0, 0).block_id, 1u);
  EXPECT_EQ(bm.node(0, 1).block_id, 2u);
  EXPECT_EQ(bm.node(0, 2).block_id, 0u);
  EXPECT_EQ(bm.node(0, 3).block_id, 3u);
  // Reopening an open QP closes it first.
  bm.open(0, 1000, 100);
  EXPECT_EQ(bm.pool_used(), 0u);
  EXPECT_EQ(bm.epsn(0), 1000u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapPool, RejectsBadParams) {
  auto make = [](uint32_t m, uint32_t n, uint32_t pool, uint32_t qps) {
    OrnicBitmap bm(MakeParams(m, n, pool, qps));
    return bm.pool_free();
  };
  EXPECT_THROW(make(0, 4, 4, 1), std::invalid_argument);
  EXPECT_THROW(make(513, 4, 4, 1), std::invalid_argument);
  EXPECT_THROW(make(16, 0, 4, 1), std::invalid_argument);
  EXPECT_THROW(make(16, 4, 4, 0), std::invalid_argument);
  OrnicBitmap big(MakeParams(512, 20, 4, 1));  // widest block is fine
  EXPECT_TRUE(Invariants(big));
}

TEST(OrnicBitmapWrap, AlignedBlocksAcrossWrap) {
  OrnicBitmap bm(MakeParams(16, 4, 8, 1));
  bm.open(0, 0xFFFFF0, 64);
  // 0x000003 is 19 PSNs after the start: node 1, bit 3.
  Outcome o = bm.receive(0, 0x000003);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 2, 3);
  EXPECT_TRUE(bm.node(0, 1).valid);
  for (uint32_t p = 0xFFFFF0; p < 0xFFFFFF; ++p) Feed(bm, 0, {p});
  // 0xFFFFFF fills node 0: locate 1 + set 1 + free 1 + node 1 partial (1 + 1) = 5 cycles;
  // ePSN wraps to 0x000000.
  o = bm.receive(0, 0xFFFFFF);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 5, 1, 1 + 1 + 1, 2 + 1 + 1);
  EXPECT_EQ(o.epsn, 0u);
  EXPECT_EQ(bm.base_psn(0), 0u);
  EXPECT_EQ(bm.header_ptr(0), 1u);
  Feed(bm, 0, {0, 1, 2});
  EXPECT_EQ(bm.epsn(0), 4u);  // bit 3 was already there
  // Below ePSN across the wrap: duplicate, 0 cycles.
  o = bm.receive(0, 0xFFFFF5);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm.receive(0, 0x40).verdict, Verdict::kBeyondWindow);  // base 0 + 4*16
  EXPECT_EQ(bm.receive(0, 0x3F).verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(Invariants(bm));
}

TEST(OrnicBitmapWrap, UnalignedBlockStraddlesWrap) {
  OrnicBitmap bm(MakeParams(4, 4, 8, 1));
  bm.open(0, 0xFFFFFE, 3);
  // Node 0 covers 0xFFFFFE, 0xFFFFFF, 0x000000, 0x000001.
  Feed(bm, 0, {0x000001, 0xFFFFFF});
  EXPECT_EQ(bm.blocks_held(0), 1u);
  Outcome o = bm.receive(0, 0xFFFFFE);
  EXPECT_EQ(o.epsn, 0x000000u);
  // psn 0 fills node 0: locate 1 + set 1 + free 1 + node 1 invalid 1 = 4; ePSN 2.
  o = bm.receive(0, 0x000000);
  EXPECT_COST(o, 4, 1, 3, 3);
  EXPECT_EQ(o.epsn, 2u);
  EXPECT_EQ(bm.base_psn(0), 2u);
  EXPECT_EQ(o.blocks_held, 0u);
  // NAK across the wrap: reopen at 0xFFFFF8, OTD 3.
  bm.open(0, 0xFFFFF8, 3);
  Feed(bm, 0, {0xFFFFF8});
  o = bm.receive(0, 0x000000);  // d = 7 > 3
  ASSERT_TRUE(o.nak);
  EXPECT_EQ(o.nak_block.base_psn, 0xFFFFF8u);
  EXPECT_EQ(o.nak_block.words[0], 1u);
  ASSERT_TRUE(Invariants(bm));
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

using oonic::test::WindowShuffle;  // testbench/common/arrival_orders.h

TEST(OrnicBitmapProperty, WindowShuffleRespectsDistance) {
  std::mt19937_64 rng(7);
  for (uint32_t d : {0u, 1u, 5u, 63u}) {
    auto v = WindowShuffle(500, d, rng);
    std::vector<uint8_t> seen(500, 0);
    uint32_t lo = 0;
    for (size_t pos = 0; pos < v.size(); ++pos) {
      const int64_t disp = static_cast<int64_t>(pos) - static_cast<int64_t>(v[pos]);
      ASSERT_LE(std::abs(disp), static_cast<int64_t>(d));
      ASSERT_LE(v[pos], lo + d);
      ASSERT_FALSE(seen[v[pos]]);
      seen[v[pos]] = 1;
      while (lo < 500 && seen[lo]) ++lo;
    }
    if (d == 0) {
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    }
  }
}

// Independent reference of one QP: per-offset received flags (offset = psn - start).
struct RefQp {
  uint32_t qp = 0, start = 0, count = 0, m = 0, n = 0, otd = 0;
  std::vector<uint8_t> got;        // per offset
  std::vector<uint32_t> cnt;       // received PSNs per block (offset / m)
  std::vector<uint32_t> accepted;  // kInOrder/kOutOfOrder verdicts per offset
  std::vector<uint8_t> nak_for;    // a NAK was seen while ePSN offset == index
  uint32_t e = 0;                  // ePSN offset
  uint32_t held = 0;
  bool nak_sent = false;
  uint32_t nak_e = 0;
  uint64_t naks = 0;

  void init(uint32_t qp_, uint32_t start_, uint32_t count_, uint32_t m_, uint32_t n_,
            uint32_t otd_) {
    qp = qp_, start = start_, count = count_, m = m_, n = n_, otd = otd_;
    got.assign(count, 0);
    cnt.assign(count / m + n + 2, 0);
    accepted.assign(count, 0);
    nak_for.assign(count + 1, 0);
    e = 0, held = 0, nak_sent = false, nak_e = 0, naks = 0;
  }
  bool bit(uint32_t off) const { return off < count && got[off]; }
  uint32_t lowest_missing() const {
    uint32_t lm = 0;
    while (lm < count && got[lm]) ++lm;
    return lm;
  }
};

struct Expect {
  Verdict verdict = Verdict::kDuplicate;
  uint32_t cycles = 0, locate = 0;
  bool nak = false, head = false;
  int32_t delta = 0;
};

// Predicts the outcome of receiving offset x and applies it to the reference.
Expect RefReceive(RefQp& r, uint32_t x, uint32_t pool_free) {
  Expect ex;
  if (x < r.e) return ex;  // below ePSN: duplicate, 0 cycles
  const uint32_t base_off = (r.e / r.m) * r.m;
  const uint32_t k = (x - base_off) / r.m;
  if (k < r.n) {
    ex.locate = 1;
    ex.cycles = 1;
    const uint32_t b = x / r.m;
    bool track = false;
    if (r.cnt[b] == r.m) {
      ex.verdict = Verdict::kDuplicate;
    } else if (r.cnt[b] == 0) {
      if (pool_free == 0) {
        ex.verdict = Verdict::kPoolExhausted;
      } else {
        ex.cycles += 2;  // allocate + set
        ex.delta += 1;
        track = true;
      }
    } else {
      ex.cycles += 1;  // block read (+ write)
      if (r.got[x])
        ex.verdict = Verdict::kDuplicate;
      else
        track = true;
    }
    if (track) {
      r.got[x] = 1;
      r.cnt[b] += 1;
      r.accepted[x] += 1;
      const bool full = r.cnt[b] == r.m;
      if (full) {
        ex.cycles += 1;  // free
        ex.delta -= 1;
      }
      if (x == r.e) {
        ex.verdict = Verdict::kInOrder;
        ex.head = true;
        if (!full) {
          uint32_t y = x + 1;
          while (r.bit(y)) ++y;
          r.e = y;
        } else {
          uint32_t bb = b + 1;
          for (;;) {
            ex.cycles += 1;
            if (r.cnt[bb] == r.m) {
              ++bb;
              continue;
            }
            if (r.cnt[bb] > 0) {
              ex.cycles += 1;
              uint32_t y = bb * r.m;
              while (r.bit(y)) ++y;
              r.e = y;
            } else {
              r.e = bb * r.m;
            }
            break;
          }
        }
      } else {
        ex.verdict = Verdict::kOutOfOrder;
      }
    }
  } else {
    ex.verdict = Verdict::kBeyondWindow;
  }
  r.held += ex.delta;
  // d > 0 only (an in-order packet moved ePSN past x; otherwise ePSN is unchanged).
  if (x > r.e && x - r.e > r.otd && !(r.nak_sent && r.nak_e == r.e)) {
    r.nak_sent = true;
    r.nak_e = r.e;
    ex.nak = true;
    ex.cycles += 1 + (r.cnt[r.e / r.m] > 0 ? 1 : 0);
  }
  return ex;
}

struct Flow {
  RefQp ref;
  std::vector<uint32_t> order;  // first transmissions as delivered (losses removed)
  size_t pos = 0;
  std::vector<std::pair<uint64_t, uint32_t>> pending;  // (due step, offset) retransmits
  bool resend_nak_zeros = false;
  bool timeout_resend = true;
  uint32_t dist = 0;
  uint64_t deliveries = 0;
  bool done = false;
};

struct Stats {
  uint64_t calls = 0, naks = 0, beyond = 0, exhausted = 0, dups = 0;
};

// Delivers one packet of flow f (if any). Returns false when the flow has nothing left.
bool Step(OrnicBitmap& bm, std::vector<Flow>& flows, size_t fi, uint64_t now, std::mt19937_64& rng,
          Stats& st) {
  Flow& f = flows[fi];
  RefQp& r = f.ref;
  uint32_t x = 0;
  bool have = false;
  // 1) a due retransmission, 2) the next first transmission, 3) the earliest pending,
  // 4) timeout: go-back-N from the first unacknowledged PSN.
  size_t best = f.pending.size();
  for (size_t i = 0; i < f.pending.size(); ++i)
    if (best == f.pending.size() || f.pending[i].first < f.pending[best].first) best = i;
  if (best < f.pending.size() && f.pending[best].first <= now) {
    x = f.pending[best].second;
    f.pending.erase(f.pending.begin() + static_cast<std::ptrdiff_t>(best));
    have = true;
  } else if (f.pos < f.order.size()) {
    x = f.order[f.pos++];
    have = true;
  } else if (best < f.pending.size()) {
    x = f.pending[best].second;
    f.pending.erase(f.pending.begin() + static_cast<std::ptrdiff_t>(best));
    have = true;
  } else if (f.timeout_resend && r.e < r.count) {
    for (uint32_t y = r.e + 1; y < r.count; ++y) f.pending.push_back({0, y});
    x = r.e;
    have = true;
  }
  if (!have) return false;
  if (++f.deliveries > 50ull * r.count + 1000) {
    ADD_FAILURE() << "flow " << fi << " does not terminate";
    return false;
  }

  // Cross-check the pool before predicting exhaustion from it.
  uint32_t ref_used = 0;
  for (const Flow& g : flows) ref_used += g.ref.held;
  EXPECT_EQ(bm.pool_used(), ref_used);
  const uint32_t pool_free = bm.pool_free();

  const uint32_t e_before = r.e;
  const uint32_t psn = psn_add(r.start, x);
  const Expect ex = RefReceive(r, x, pool_free);
  const Outcome o = bm.receive(r.qp, psn);
  ++st.calls;
  const auto ctx = [&] {
    return ::testing::Message() << "qp " << r.qp << " start " << r.start << " offset " << x
                                << " ePSN offset before " << e_before;
  };
  EXPECT_EQ(o.verdict, ex.verdict) << ctx() << " got " << to_string(o.verdict);
  EXPECT_EQ(o.cycles, ex.cycles) << ctx();
  EXPECT_EQ(o.locate_cycles, ex.locate) << ctx();
  EXPECT_EQ(o.head_advanced, ex.head) << ctx();
  EXPECT_EQ(o.blocks_delta, ex.delta) << ctx();
  EXPECT_EQ(o.blocks_held, r.held) << ctx();
  EXPECT_EQ(o.epsn, psn_add(r.start, r.e)) << ctx();
  EXPECT_EQ(bm.epsn(r.qp), o.epsn);
  // ePSN is the first PSN not yet received (independent of the reference's scan).
  EXPECT_EQ(r.e, r.lowest_missing()) << ctx();
  EXPECT_EQ(o.nak, ex.nak) << ctx();
  if (o.nak) {
    ++st.naks;
    ++r.naks;
    r.nak_for[r.e] = 1;
    const uint32_t base_off = (r.e / r.m) * r.m;
    EXPECT_EQ(o.nak_block.base_psn, psn_add(r.start, base_off)) << ctx();
    EXPECT_EQ(o.nak_block.nbits, r.m);
    for (uint32_t i = 0; i < r.m; ++i)
      EXPECT_EQ(o.nak_block.test(i), r.bit(base_off + i)) << ctx() << " bit " << i;
    EXPECT_FALSE(o.nak_block.test(r.e - base_off)) << ctx() << " ePSN bit set in NAK";
    if (f.resend_nak_zeros) {
      // The sender resends exactly the zeros of the NAK block, after a network delay.
      for (uint32_t i = 0; i < r.m; ++i) {
        if (o.nak_block.test(i)) continue;
        const uint32_t off =
            static_cast<uint32_t>(psn_diff(psn_add(o.nak_block.base_psn, i), r.start));
        if (off < r.count) f.pending.push_back({now + 1 + rng() % (f.dist + 2), off});
      }
    }
  }
  // A packet more than OTD past the (missing) ePSN means a NAK for that ePSN was sent.
  if (x >= e_before && x - e_before > r.otd) {
    EXPECT_TRUE(r.nak_for[e_before]) << ctx() << " no NAK for a loss OTD can see";
  }
  if (o.verdict == Verdict::kBeyondWindow) ++st.beyond;
  if (o.verdict == Verdict::kPoolExhausted) ++st.exhausted;
  if (o.verdict == Verdict::kDuplicate) ++st.dups;

  // Structural invariants.
  std::string why;
  EXPECT_TRUE(bm.check_invariants(&why)) << ctx() << ": " << why;
  uint32_t partial = 0;
  for (uint32_t i = 0; i < r.n; ++i) {
    const auto nv = bm.node(r.qp, i);
    if (nv.valid && !nv.all_1) ++partial;
  }
  EXPECT_EQ(partial, bm.blocks_held(r.qp)) << ctx();
  EXPECT_EQ(bm.base_psn(r.qp), psn_add(r.start, (r.e / r.m) * r.m)) << ctx();
  return true;
}

// Runs the flows to the end, interleaving them at random (stops at the first failure).
void RunFlows(OrnicBitmap& bm, std::vector<Flow>& flows, std::mt19937_64& rng, Stats& st,
              bool close_when_done) {
  uint64_t now = 0;
  std::vector<size_t> active;
  for (size_t i = 0; i < flows.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng() % active.size());
    const size_t fi = active[ai];
    if (!Step(bm, flows, fi, now, rng, st)) {
      flows[fi].done = true;
      if (close_when_done) {
        bm.close(flows[fi].ref.qp);
        flows[fi].ref.held = 0;
      }
      active[ai] = active.back();
      active.pop_back();
    }
    if (::testing::Test::HasFailure()) return;
    ++now;
  }
}

void ExpectComplete(const OrnicBitmap& bm, const Flow& f) {
  const RefQp& r = f.ref;
  EXPECT_EQ(bm.epsn(r.qp), psn_add(r.start, r.count));
  EXPECT_EQ(bm.blocks_held(r.qp), r.count % r.m == 0 ? 0u : 1u);
  for (uint32_t x = 0; x < r.count; ++x)
    ASSERT_EQ(r.accepted[x], 1u) << "offset " << x << " accepted " << r.accepted[x] << " times";
}

enum class LossMode { kNone, kResendAtEnd, kNakDriven };

struct FlowCfg {
  uint32_t m, n, count, dist, otd, start;
  LossMode loss;
  uint32_t losses;
};

Flow MakeFlow(uint32_t qp, const FlowCfg& c, std::mt19937_64& rng) {
  Flow f;
  f.ref.init(qp, c.start, c.count, c.m, c.n, c.otd);
  f.dist = c.dist;
  std::vector<uint32_t> order = WindowShuffle(c.count, c.dist, rng);
  if (c.loss != LossMode::kNone) {
    std::vector<uint8_t> lost(c.count, 0);
    // One loss in the first block (ORNIC §4.3's loss scenario), the rest anywhere.
    lost[rng() % std::min(c.m, c.count)] = 1;
    for (uint32_t i = 1; i < c.losses; ++i) lost[rng() % c.count] = 1;
    std::vector<uint32_t> kept, dropped;
    for (uint32_t x : order) (lost[x] ? dropped : kept).push_back(x);
    if (c.loss == LossMode::kResendAtEnd) kept.insert(kept.end(), dropped.begin(), dropped.end());
    order = std::move(kept);
    f.resend_nak_zeros = c.loss == LossMode::kNakDriven;
  }
  f.order = std::move(order);
  return f;
}

FlowCfg RandomCfg(std::mt19937_64& rng, LossMode loss) {
  static const uint32_t kM[] = {16, 16, 16, 8, 4, 5, 32, 33, 1, 64};
  FlowCfg c{};
  c.m = kM[rng() % (sizeof(kM) / sizeof(kM[0]))];
  const uint32_t window = (rng() % 3 == 0) ? 128 : 320;  // bits per QP
  c.n = std::max<uint32_t>(2, window / c.m);
  c.dist = static_cast<uint32_t>(rng() % 64);  // OOO distance < 64
  c.otd = 64;
  if (rng() % 4 == 0) c.otd = c.dist + 1 + static_cast<uint32_t>(rng() % 16);
  c.count = 200 + static_cast<uint32_t>(rng() % 200);
  if (rng() % 4 != 0) c.count = (c.count / c.m + 1) * c.m;                    // mostly whole blocks
  c.start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 400)  // wraps
                             : static_cast<uint32_t>(rng() & 0xFFFFFF);
  c.loss = loss;
  c.losses = 1 + static_cast<uint32_t>(rng() % 3);
  return c;
}

TEST(OrnicBitmapProperty, NoLossNeverNaks) {
  Stats st;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    std::mt19937_64 rng(seed);
    FlowCfg c = RandomCfg(rng, LossMode::kNone);
    OrnicBitmap bm(MakeParams(c.m, c.n, c.n + 2, 1));
    bm.open(0, c.start, c.otd);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    const uint64_t beyond_before = st.beyond;
    RunFlows(bm, flows, rng, st, false);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    EXPECT_EQ(flows[0].ref.naks, 0u) << "seed " << seed;  // D < OTD, no loss
    // psn <= ePSN + D and base_psn > ePSN - M: in the window whenever N*M >= D + M.
    if (c.n * c.m >= c.dist + c.m) {
      EXPECT_EQ(st.beyond, beyond_before) << "seed " << seed;
    }
    ExpectComplete(bm, flows[0]);
    EXPECT_EQ(flows[0].deliveries, c.count) << "seed " << seed;  // nothing retransmitted
    bm.close(0);
    EXPECT_EQ(bm.pool_free(), c.n + 2);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_EQ(st.naks, 0u);
  EXPECT_EQ(st.dups, 0u);
}

TEST(OrnicBitmapProperty, LossRetransmittedAtEnd) {
  Stats st;
  for (uint64_t seed = 10001; seed <= 11000; ++seed) {
    std::mt19937_64 rng(seed);
    FlowCfg c = RandomCfg(rng, LossMode::kResendAtEnd);
    OrnicBitmap bm(MakeParams(c.m, c.n, c.n, 1));  // pool == N: never exhausted for 1 QP
    bm.open(0, c.start, c.otd);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    RunFlows(bm, flows, rng, st, false);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(bm, flows[0]);
    bm.close(0);
    EXPECT_EQ(bm.pool_free(), c.n);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.naks, 0u);
  EXPECT_EQ(st.exhausted, 0u);
}

TEST(OrnicBitmapProperty, LossRecoveredByNakBlocks) {
  Stats st;
  for (uint64_t seed = 20001; seed <= 22000; ++seed) {
    std::mt19937_64 rng(seed);
    FlowCfg c = RandomCfg(rng, LossMode::kNakDriven);
    OrnicBitmap bm(MakeParams(c.m, c.n, c.n, 1));
    bm.open(0, c.start, c.otd);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    RunFlows(bm, flows, rng, st, false);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(bm, flows[0]);
    bm.close(0);
    EXPECT_EQ(bm.pool_free(), c.n);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.naks, 0u);
  EXPECT_GT(st.beyond, 0u);  // the head stuck on a loss pushes late packets out
}

TEST(OrnicBitmapProperty, MultiQpSharedPool) {
  Stats st;
  for (uint64_t seed = 30001; seed <= 30300; ++seed) {
    std::mt19937_64 rng(seed);
    const uint32_t kQps[] = {1, 3, 4, 7};
    const LossMode mode = static_cast<LossMode>(seed % 3);
    FlowCfg c0 = RandomCfg(rng, mode);
    std::vector<Flow> flows;
    // Same M and N for all (one pool, one geometry); the rest varies per QP.
    for (uint32_t qp : kQps) {
      FlowCfg c = RandomCfg(rng, mode);
      c.m = c0.m;
      c.n = c0.n;
      if (c.count % c.m != 0 && rng() % 2) c.count = (c.count / c.m + 1) * c.m;
      flows.push_back(MakeFlow(qp, c, rng));
    }
    // K*N blocks: a QP whose header node is empty holds <= N-1, so a block is always free
    // for in-order progress and every flow completes.
    OrnicBitmap bm(MakeParams(c0.m, c0.n, 4 * c0.n, 8));
    for (Flow& f : flows) bm.open(f.ref.qp, f.ref.start, f.ref.otd);
    RunFlows(bm, flows, rng, st, false);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    for (const Flow& f : flows) ExpectComplete(bm, f);
    for (const Flow& f : flows) bm.close(f.ref.qp);
    EXPECT_EQ(bm.pool_free(), 4 * c0.n);
    EXPECT_TRUE(Invariants(bm));
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_EQ(st.exhausted, 0u);
}

TEST(OrnicBitmapProperty, MultiQpTinyPoolExhaustion) {
  // Pool smaller than one QP's array shared by four QPs: exhaustion drops happen and are
  // predicted exactly; the model stays consistent; closing returns everything.
  Stats st;
  for (uint64_t seed = 40001; seed <= 40300; ++seed) {
    std::mt19937_64 rng(seed);
    const LossMode mode = static_cast<LossMode>(seed % 3);
    FlowCfg c0 = RandomCfg(rng, mode);
    const uint32_t pool = 1 + static_cast<uint32_t>(rng() % std::max<uint32_t>(1, c0.n / 2));
    std::vector<Flow> flows;
    for (uint32_t qp = 0; qp < 4; ++qp) {
      FlowCfg c = RandomCfg(rng, mode);
      c.m = c0.m;
      c.n = c0.n;
      flows.push_back(MakeFlow(qp, c, rng));
      flows.back().timeout_resend = false;  // a starved pool may never let a QP finish
    }
    OrnicBitmap bm(MakeParams(c0.m, c0.n, pool, 4));
    for (Flow& f : flows) bm.open(f.ref.qp, f.ref.start, f.ref.otd);
    RunFlows(bm, flows, rng, st, true);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    EXPECT_EQ(bm.pool_free(), pool);
    EXPECT_TRUE(Invariants(bm));
    for (const Flow& f : flows)
      for (uint32_t x = 0; x < f.ref.count; ++x) ASSERT_LE(f.ref.accepted[x], 1u);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.exhausted, 0u);
}

}  // namespace
