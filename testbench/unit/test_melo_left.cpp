// Unit tests of the linked-list bitmap schemes MELO, MELO+, LEFT and LEFT+
// (model/ordering/melo.h, left.h, linked_list_bitmap.h).
//
// Hand cases pin the cost model of receive() exactly; every expected number is derived in a
// comment from linked_list_bitmap.h's table:
//   reach a block 1 (through start_ptr / end_ptr / cache_ptr, or a next_ptr hop: bits +
//   next_ptr read: +1 block, +1 node) | set the bit 1 (+1 block write) | append j blocks:
//   j pops (+j block; the locate) + j new-block writes (+j block, +j node) + 1 link
//   (+1 node, only onto a non-empty list) | front advance: per released block push 1 (+1
//   block), per next block examined 1 (a reach) | 0 cycles: psn < RCV.NXT, in order on an
//   empty list, every drop.
// locate_cycles = the reaches up to the packet's block (or the j pops of an append).
//
// Property tests replay thousands of seeded arrival orders (windowed shuffle, OOO distance
// D <= 64, with and without loss + later retransmission, several QPs on one pool) against
// an independent reference (per-PSN received flags, RCV.NXT/RCV.HIGH/base/length offsets
// and LEFT's cache index), checking verdicts, feedback, costs and the invariants after
// every call.
#include <gtest/gtest.h>

#include "testbench/common/arrival_orders.h"
#include "testbench/common/ordering_checks.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/ordering/left.h"
#include "model/ordering/linked_list_bitmap.h"
#include "model/ordering/melo.h"

namespace {

using oonic::ordering::Feedback;
using oonic::ordering::Hole;
using oonic::ordering::Left;
using oonic::ordering::LeftPlus;
using oonic::ordering::LinkedListBitmap;
using oonic::ordering::Melo;
using oonic::ordering::MeloPlus;
using oonic::ordering::Outcome;
using oonic::ordering::Verdict;
using oonic::wire::psn_add;
using oonic::wire::psn_diff;

enum class Scheme { kMelo, kMeloPlus, kLeft, kLeftPlus };

const char* SchemeName(Scheme s) {
  switch (s) {
    case Scheme::kMelo:
      return "melo";
    case Scheme::kMeloPlus:
      return "melo+";
    case Scheme::kLeft:
      return "left";
    case Scheme::kLeftPlus:
      return "left+";
  }
  return "?";
}

Left::Params MakeParams(uint32_t m, uint32_t pool_blocks, uint32_t qps, uint32_t max_blocks = 0,
                        uint32_t threshold = 2) {
  Left::Params p;
  p.block_bits = m;
  p.pool_bits = m * pool_blocks;
  p.max_qps = qps;
  p.max_blocks_per_qp = max_blocks;
  p.cache_threshold = threshold;
  return p;
}

std::unique_ptr<LinkedListBitmap> Make(Scheme s, const Left::Params& p) {
  switch (s) {
    case Scheme::kMelo:
      return std::make_unique<Melo>(p);
    case Scheme::kMeloPlus:
      return std::make_unique<MeloPlus>(p);
    case Scheme::kLeft:
      return std::make_unique<Left>(p);
    case Scheme::kLeftPlus:
      return std::make_unique<LeftPlus>(p);
  }
  return nullptr;
}

using oonic::test::Invariants;  // testbench/common/ordering_checks.h

void ExpectHoles(const LinkedListBitmap& bm, uint32_t qp,
                 std::vector<std::pair<uint32_t, uint32_t>> want) {
  std::array<Hole, 3> h{};
  const uint32_t n = bm.holes(qp, &h);
  ASSERT_EQ(n, want.size());
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_EQ(h[i].start_psn, want[i].first) << "hole " << i;
    EXPECT_EQ(h[i].length, want[i].second) << "hole " << i;
  }
}

void ExpectNackHoles(const Outcome& o, std::vector<std::pair<uint32_t, uint32_t>> want) {
  EXPECT_EQ(o.feedback, Feedback::kHoleNack);
  ASSERT_EQ(o.nholes, want.size());
  for (uint32_t i = 0; i < o.nholes; ++i) {
    EXPECT_EQ(o.holes[i].start_psn, want[i].first) << "hole " << i;
    EXPECT_EQ(o.holes[i].length, want[i].second) << "hole " << i;
  }
}

void Feed(LinkedListBitmap& bm, uint32_t qp, std::initializer_list<uint32_t> psns) {
  for (uint32_t p : psns) {
    Outcome o = bm.receive(qp, p);
    ASSERT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder)
        << "psn " << p << " verdict " << to_string(o.verdict);
    ASSERT_TRUE(Invariants(bm));
  }
}

// ---------------------------------------------------------------------------------------
// Hand cases: the shared list (run on MELO; the other schemes share the code)
// ---------------------------------------------------------------------------------------

TEST(MeloCost, InOrderNeedsNoBitmap) {
  Melo bm(MakeParams(8, 8, 2));
  EXPECT_STREQ(bm.name(), "melo");
  bm.open(0, 100, 64);
  ASSERT_TRUE(Invariants(bm));
  // psn 100 == RCV.NXT == RCV.HIGH: nothing outstanding, no block: 0 cycles.
  Outcome o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_EQ(bm.rcv_high(0), 101u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(bm.pool_used(), 0u);
  // Below RCV.NXT: duplicate from the registers, 0 cycles, ACKed again.
  o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  ASSERT_TRUE(Invariants(bm));
}

// Steps 1-5 of the scenario below: list 0:100-107, 1:108-115, 2:116-123, 3:124-131 holding
// 103, 104, 110, 125, 130; RCV.NXT 100, RCV.HIGH 131.
void BuildFourBlocks(LinkedListBitmap& bm) {
  bm.open(0, 100, 0);
  // 1) psn 103, empty list: base = RCV.NXT = 100, block index 0, j = 1:
  //    pop 1 + new-block write 1 = 2 cycles; locate 1 (the pop); block: pop + write = 2;
  //    node: the new block's next_ptr = 1. New hole [100, 103).
  Outcome o = bm.receive(0, 103);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  ExpectNackHoles(o, {{100, 3}});
  EXPECT_EQ(o.blocks_held, 1u);
  EXPECT_EQ(o.blocks_delta, 1);
  EXPECT_EQ(o.epsn, 100u);
  EXPECT_EQ(bm.base_psn(0), 100u);
  EXPECT_EQ(bm.rcv_high(0), 104u);
  // 2) psn 104 == RCV.HIGH, in the end block: end_ptr reach 1 + set 1 = 2 cycles; locate 1;
  //    node 1 (next_ptr read with the reach); block: read + write = 2. No new hole: ACK.
  o = bm.receive(0, 104);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_EQ(o.nholes, 0u);
  // 3) psn 110: block index 1 >= L = 1: append j = 1: pop 1 + write 1 + link 1 = 3 cycles;
  //    locate 1; block 2; node: new next_ptr + link = 2. New hole [105, 110).
  o = bm.receive(0, 110);
  EXPECT_COST(o, 3, 1, 2, 2);
  ExpectNackHoles(o, {{105, 5}, {100, 3}});
  // 4) psn 125: index 3, L = 2: j = 2: pops 2 + writes 2 + link 1 = 5 cycles; locate 2
  //    (the packet's block is the 2nd popped); block 4; node 3. New hole [111, 125).
  o = bm.receive(0, 125);
  EXPECT_COST(o, 5, 2, 3, 4);
  ExpectNackHoles(o, {{111, 14}, {105, 5}, {100, 3}});
  EXPECT_EQ(o.blocks_held, 4u);
  EXPECT_EQ(o.blocks_delta, 2);
  // 5) psn 130: end block (124-131): 2 cycles; new hole [126, 130): the oldest hole
  //    (100, 3) leaves the 3 tracked.
  o = bm.receive(0, 130);
  EXPECT_COST(o, 2, 1, 1, 2);
  ExpectNackHoles(o, {{126, 4}, {111, 14}, {105, 5}});
  EXPECT_EQ(bm.list_blocks(0), (std::vector<uint32_t>{0, 1, 2, 3}));  // block 0 first
  EXPECT_EQ(bm.start_ptr(0), 0u);
  EXPECT_EQ(bm.end_ptr(0), 3u);
  EXPECT_EQ(bm.rcv_high(0), 131u);
  EXPECT_EQ(bm.avail_ptr(), 4u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloCost, FrontEndAndMiddleDrop) {
  Melo bm(MakeParams(8, 8, 2));
  BuildFourBlocks(bm);
  ASSERT_FALSE(HasFailure());
  // 6) psn 112 (block 1) and 120 (block 2) need a middle block: dropped at 0 cycles,
  //    no feedback (the timeout resends them), state unchanged.
  for (uint32_t p : {112u, 120u, 109u, 123u}) {
    Outcome o = bm.receive(0, p);
    EXPECT_EQ(o.verdict, Verdict::kUntrackable) << p;
    EXPECT_COST(o, 0, 0, 0, 0);
    EXPECT_EQ(o.feedback, Feedback::kNone);
    EXPECT_EQ(o.blocks_delta, 0);
    EXPECT_EQ(o.epsn, 100u);
  }
  // A middle PSN already received (110) is untrackable too: MELO cannot look.
  EXPECT_EQ(bm.receive(0, 110).verdict, Verdict::kUntrackable);
  // 7) psn 101 (front): start_ptr 1 + set 1 = 2 cycles. (100, 3) is no longer tracked.
  Outcome o = bm.receive(0, 101);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  ExpectHoles(bm, 0, {{126, 4}, {111, 14}, {105, 5}});
  // 8) psn 128 (end block, below RCV.HIGH): end_ptr 1 + set 1 = 2 cycles; hole (126, 4)
  //    splits into (129, 1) and (126, 2); (105, 5) drops out of the three.
  o = bm.receive(0, 128);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  ExpectHoles(bm, 0, {{129, 1}, {126, 2}, {111, 14}});
  // Duplicate found in a block: the locate only (1 cycle, 1 block read, 1 node read).
  o = bm.receive(0, 128);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 1, 1, 1, 1);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  // 9) psn 100 == RCV.NXT: 2 cycles; 100, 101 set, 102 clear: RCV.NXT 102 (known from the
  //    write, no extra cycle).
  o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.epsn, 102u);
  // 10) 102 -> 100..104 set: RCV.NXT 105; 11) 105, 106 -> 106, 107.
  o = bm.receive(0, 102);
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.epsn, 105u);
  Feed(bm, 0, {105, 106});
  EXPECT_EQ(bm.epsn(0), 107u);
  // 12) psn 107 fills block 0: start_ptr 1 + set 1 + push block 0 1 + reach block 1 through
  //     next_ptr 1 (108 clear: RCV.NXT 108) = 4 cycles; locate 1; block: read, write, push,
  //     read = 4; node: 2 reads.
  o = bm.receive(0, 107);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 2, 4);
  EXPECT_EQ(o.epsn, 108u);
  EXPECT_EQ(o.blocks_held, 3u);
  EXPECT_EQ(o.blocks_delta, -1);
  EXPECT_EQ(bm.base_psn(0), 108u);
  EXPECT_EQ(bm.list_blocks(0), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(bm.pool_free(), 5u);
  // 112 is now in the front block: accepted (2 cycles).
  o = bm.receive(0, 112);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 1, 2);
  ExpectHoles(bm, 0, {{129, 1}, {126, 2}, {113, 12}});
  // 13) The stack is LIFO: block 0 was returned last, so it is the next one allocated.
  bm.open(1, 5000, 0);
  Feed(bm, 1, {5001});
  EXPECT_EQ(bm.list_blocks(1), (std::vector<uint32_t>{0}));
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloCost, CatchingUpReturnsTheLastBlock) {
  Melo bm(MakeParams(8, 8, 1));
  bm.open(0, 0, 0);
  Feed(bm, 0, {2});  // list {0}: 0-7, RCV.HIGH 3
  Feed(bm, 0, {0});
  EXPECT_EQ(bm.epsn(0), 1u);
  // psn 1: start_ptr 1 + set 1; 0..2 set = everything below RCV.HIGH: the (partial) block is
  // returned, push 1 = 3 cycles; block: read + write + push = 3.
  Outcome o = bm.receive(0, 1);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 3, 1, 1, 3);
  EXPECT_EQ(o.epsn, 3u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, -1);
  EXPECT_EQ(bm.pool_free(), 8u);
  // Catching up across several full blocks: 8..23 and 25 (list 8-15, 16-23, 24-31).
  bm.open(0, 8, 0);
  for (uint32_t p = 9; p < 24; ++p) Feed(bm, 0, {p});
  Feed(bm, 0, {25});
  EXPECT_EQ(bm.blocks_held(0), 3u);
  // psn 24 (end block, not RCV.NXT): 2 cycles.
  Feed(bm, 0, {24});
  // psn 8: start_ptr 1 + set 1 + push 1 + reach 16-23 1 + push 1 + reach 24-31 1 (24, 25
  // set, 26 = RCV.HIGH: caught up) + push 1 = 7 cycles; node: 3 reads; block: read + write
  // + 3 pushes + 2 reads = 7.
  o = bm.receive(0, 8);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 7, 1, 3, 7);
  EXPECT_EQ(o.epsn, 26u);
  EXPECT_EQ(o.blocks_delta, -3);
  EXPECT_EQ(bm.pool_free(), 8u);
  // Caught up exactly at a block end: 0-7 full with RCV.HIGH 8.
  bm.open(0, 0, 0);
  for (uint32_t p = 1; p < 8; ++p) Feed(bm, 0, {p});
  o = bm.receive(0, 0);  // 1 + 1 + push 1 = 3
  EXPECT_COST(o, 3, 1, 1, 3);
  EXPECT_EQ(o.epsn, 8u);
  // psn 8 then on an empty list: 0 cycles.
  o = bm.receive(0, 8);
  EXPECT_COST(o, 0, 0, 0, 0);
  // New data right after a full end block needs a new block without leaving a hole:
  // psn 10 creates the list at base = RCV.NXT = 9 (block 9-16, hole 9); 11..16 fill its end;
  // 17 == RCV.HIGH lies in a new block: pop + write + link = 3 cycles, ACK (no new hole).
  Feed(bm, 0, {10, 11, 12, 13, 14, 15, 16});
  EXPECT_EQ(bm.base_psn(0), 9u);
  o = bm.receive(0, 17);
  EXPECT_COST(o, 3, 1, 2, 2);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloPlusCost, MiddleWalksFromTheHead) {
  MeloPlus bm(MakeParams(8, 8, 2));
  EXPECT_STREQ(bm.name(), "melo+");
  BuildFourBlocks(bm);
  ASSERT_FALSE(HasFailure());
  // psn 112 (block 1 of 4): start_ptr 1 + 1 hop = locate 2, + set 1 = 3 cycles; node 2, block
  // 2 reads + 1 write = 3. Hole (111, 14) splits into (113, 12), (111, 1).
  Outcome o = bm.receive(0, 112);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 2, 2, 3);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  ExpectHoles(bm, 0, {{126, 4}, {113, 12}, {111, 1}});
  // psn 120 (block 2): locate 1 + 2 hops = 3, + set = 4 cycles.
  o = bm.receive(0, 120);
  EXPECT_COST(o, 4, 3, 3, 4);
  // Duplicate in the middle (110): the walk only, locate 2 = 2 cycles.
  o = bm.receive(0, 110);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 2, 2, 2, 2);
  // Front and end stay 1 cycle to locate.
  EXPECT_EQ(bm.receive(0, 101).locate_cycles, 1u);
  EXPECT_EQ(bm.receive(0, 127).locate_cycles, 1u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloDrop, PoolExhaustionFallsBackToGoBackN) {
  Melo bm(MakeParams(8, 4, 2));  // 32 bits: 4 blocks
  bm.open(0, 0, 0);
  bm.open(1, 1000, 0);
  Feed(bm, 0, {20});  // j = 3: blocks 0, 1, 2
  EXPECT_EQ(bm.pool_free(), 1u);
  // qp 1, psn 1009: index 1 -> j = 2 > 1 free: dropped at 0 cycles, go-back-N NAK.
  Outcome o = bm.receive(1, 1009);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  EXPECT_EQ(o.epsn, 1000u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, 0);
  // One NAK per RCV.NXT value.
  o = bm.receive(1, 1010);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  // In-order data needs no block: the go-back-N resend gets through an empty pool.
  o = bm.receive(1, 1000);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 0, 0, 0, 0);
  o = bm.receive(1, 1009);  // RCV.NXT moved on: a new NAK
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  EXPECT_EQ(o.epsn, 1001u);
  // psn 1003 needs one block: the last one (block 3).
  o = bm.receive(1, 1003);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  ExpectNackHoles(o, {{1001, 2}});
  EXPECT_EQ(bm.list_blocks(1), (std::vector<uint32_t>{3}));
  EXPECT_EQ(bm.pool_free(), 0u);
  // qp 0: the end block needs no new block; index 3 does.
  EXPECT_EQ(bm.receive(0, 21).verdict, Verdict::kOutOfOrder);
  o = bm.receive(0, 24);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  ASSERT_TRUE(Invariants(bm));
  // qp 0 fills block 0 (0..7): it is returned; qp 1 gets it (top of the stack).
  Feed(bm, 0, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(bm.pool_free(), 1u);
  o = bm.receive(1, 1009);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(bm.list_blocks(1), (std::vector<uint32_t>{3, 0}));
  ASSERT_TRUE(Invariants(bm));
  bm.close(0);
  bm.close(1);
  EXPECT_EQ(bm.pool_free(), 4u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloDrop, BeyondWindow) {
  Melo bm(MakeParams(4, 8, 1, /*max_blocks=*/2));
  bm.open(0, 0, 0);
  // psn 8 needs block index 2 >= 2: dropped at 0 cycles, NAK.
  Outcome o = bm.receive(0, 8);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  Feed(bm, 0, {7});  // index 1: j = 2
  o = bm.receive(0, 8);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNone);  // already NAKed at RCV.NXT 0
  // Once the front moves one block on, 8 fits.
  Feed(bm, 0, {0, 1, 2, 3});
  EXPECT_EQ(bm.base_psn(0), 4u);
  EXPECT_EQ(bm.receive(0, 8).verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloHoles, LongHolesSplitAndTheThreeMostRecentAreKept) {
  Melo bm(MakeParams(8, 256, 2));  // 2048 bits
  bm.open(0, 0, 0);
  // Hole [0, 600): pieces of 255 from its top: (345, 255), (90, 255), (0, 90).
  Outcome o = bm.receive(0, 600);
  ExpectNackHoles(o, {{345, 255}, {90, 255}, {0, 90}});
  // Hole [601, 1000) = 399: (745, 255), (601, 144), then the most recent old one.
  o = bm.receive(0, 1000);
  ExpectNackHoles(o, {{745, 255}, {601, 144}, {345, 255}});
  // A hole longer than 765 keeps only its top 765 PSNs.
  bm.open(1, 0xFFFF00, 0);
  o = bm.receive(1, psn_add(0xFFFF00, 800));
  ExpectNackHoles(
      o,
      {{psn_add(0xFFFF00, 545), 255}, {psn_add(0xFFFF00, 290), 255}, {psn_add(0xFFFF00, 35), 255}});
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloHoles, FillsTrimAndSplitTrackedHoles) {
  Melo bm(MakeParams(8, 8, 1));
  bm.open(0, 0, 0);
  Outcome o = bm.receive(0, 10);  // list 0-7, 8-15; hole (0, 10)
  ExpectNackHoles(o, {{0, 10}});
  Feed(bm, 0, {3});  // split: (4, 6), (0, 3)
  ExpectHoles(bm, 0, {{4, 6}, {0, 3}});
  Feed(bm, 0, {0});  // trim at the start: (1, 2); RCV.NXT 1
  ExpectHoles(bm, 0, {{4, 6}, {1, 2}});
  Feed(bm, 0, {9});  // end block; trim at the end of (4, 6): (4, 5)
  ExpectHoles(bm, 0, {{4, 5}, {1, 2}});
  Feed(bm, 0, {1, 2});  // (1, 2) -> (2, 1) -> gone; RCV.NXT 4
  ExpectHoles(bm, 0, {{4, 5}});
  EXPECT_EQ(bm.epsn(0), 4u);
  // A new hole in front of it, then a split with three tracked: the lowest part drops.
  o = bm.receive(0, 13);  // hole (11, 2)
  ExpectNackHoles(o, {{11, 2}, {4, 5}});
  o = bm.receive(0, 20);  // hole (14, 6)
  ExpectNackHoles(o, {{14, 6}, {11, 2}, {4, 5}});
  Feed(bm, 0, {6});  // splits (4, 5) into (7, 2), (4, 2): the latter falls off
  ExpectHoles(bm, 0, {{14, 6}, {11, 2}, {7, 2}});
  Feed(bm, 0, {17});  // (14, 6) -> (18, 2), (14, 3); (7, 2) falls off
  ExpectHoles(bm, 0, {{18, 2}, {14, 3}, {11, 2}});
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloLifecycle, CloseReturnsTheListStartToEnd) {
  Melo bm(MakeParams(4, 8, 2));
  bm.open(0, 0, 0);
  Feed(bm, 0, {9});  // j = 3: blocks 0, 1, 2
  EXPECT_EQ(bm.list_blocks(0), (std::vector<uint32_t>{0, 1, 2}));
  bm.close(0);
  EXPECT_FALSE(bm.is_open(0));
  EXPECT_EQ(bm.pool_free(), 8u);
  EXPECT_EQ(bm.receive(0, 9).verdict, Verdict::kQpClosed);
  ASSERT_TRUE(Invariants(bm));
  // Pushed 0, 1, 2: block 2 is on top.
  bm.open(0, 0, 0);
  Feed(bm, 0, {1, 5});
  EXPECT_EQ(bm.list_blocks(0), (std::vector<uint32_t>{2, 1}));
  // Reopening an open QP closes it first.
  bm.open(0, 77, 0);
  EXPECT_EQ(bm.pool_used(), 0u);
  EXPECT_EQ(bm.epsn(0), 77u);
  EXPECT_EQ(bm.blocks_held(0), 0u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(MeloLifecycle, ClosedQpAndBadParams) {
  Melo bm(MakeParams(8, 4, 2));
  EXPECT_FALSE(bm.is_open(0));
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kQpClosed);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm.receive(99, 0).verdict, Verdict::kQpClosed);
  EXPECT_THROW(bm.open(2, 0, 0), std::out_of_range);
  auto make = [](uint32_t m, uint32_t bits, uint32_t qps, uint32_t maxb) {
    Melo::Params p;
    p.block_bits = m;
    p.pool_bits = bits;
    p.max_qps = qps;
    p.max_blocks_per_qp = maxb;
    Melo b(p);
    return b.pool_blocks();
  };
  EXPECT_THROW(make(0, 64, 1, 0), std::invalid_argument);
  EXPECT_THROW(make(513, 1026, 1, 0), std::invalid_argument);
  EXPECT_THROW(make(8, 60, 1, 0), std::invalid_argument);  // not a multiple
  EXPECT_THROW(make(8, 0, 1, 0), std::invalid_argument);   // empty pool
  EXPECT_THROW(make(8, 64, 0, 0), std::invalid_argument);  // no QP
  EXPECT_THROW(make(8, 64, 1, 9), std::invalid_argument);  // window > pool
  EXPECT_THROW(make(8, 1u << 22, 1, 0), std::invalid_argument);
  EXPECT_EQ(make(8, 1024, 1, 0), 128u);  // MELO's defaults: 1 Kbit of 1-byte blocks
  Melo::Params d;
  EXPECT_EQ(d.pool_bits, 1024u);
  EXPECT_EQ(d.block_bits, 8u);
  Left::Params l;
  EXPECT_EQ(l.cache_threshold, 2u);
}

// ---------------------------------------------------------------------------------------
// Hand cases: LEFT / LEFT+ cache pointer
// ---------------------------------------------------------------------------------------

// List of 6 blocks of 4 bits: 0:0-3, 1:4-7, 2:8-11, 3:12-15, 4:16-19, 5:20-23; only 23 held.
void BuildSixBlocks(LinkedListBitmap& bm) {
  bm.open(0, 0, 0);
  // psn 23: index 5, j = 6: 6 pops + 6 writes = 12 cycles, locate 6; node 6, block 12.
  Outcome o = bm.receive(0, 23);
  EXPECT_COST(o, 12, 6, 6, 12);
  EXPECT_EQ(bm.list_blocks(0), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(LeftCache, MissWalksFromTheHeadAndCachesAtTheThreshold) {
  Left bm(MakeParams(4, 16, 1, 0, /*threshold=*/2));
  EXPECT_STREQ(bm.name(), "left");
  BuildSixBlocks(bm);
  EXPECT_EQ(bm.cache_index(0), -1);
  // psn 4 (k = 1): miss, from the head: start_ptr 1 + 1 hop = locate 2, + set = 3 cycles;
  // node 2, block 2 reads + 1 write. 1 hop = threshold - 1: no update.
  Outcome o = bm.receive(0, 4);
  EXPECT_COST(o, 3, 2, 2, 3);
  EXPECT_EQ(bm.cache_index(0), -1);
  // psn 8 (k = 2): 2 hops = threshold: locate 3, 4 cycles; the cache moves to block 2.
  o = bm.receive(0, 8);
  EXPECT_COST(o, 4, 3, 3, 4);
  EXPECT_EQ(bm.cache_index(0), 2);
  EXPECT_EQ(bm.cache_block(0), 2u);
  // psn 9 (k = 2): hit: cache_ptr 1 + set 1 = 2 cycles.
  o = bm.receive(0, 9);
  EXPECT_COST(o, 2, 1, 1, 2);
  // A hit on a duplicate: 1 cycle.
  o = bm.receive(0, 9);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 1, 1, 1, 1);
  // psn 13 (k = 3): miss; LEFT walks from the head (not from the cache): locate 4, 5 cycles;
  // 3 hops >= threshold: the cache moves to block 3.
  o = bm.receive(0, 13);
  EXPECT_COST(o, 5, 4, 4, 5);
  EXPECT_EQ(bm.cache_index(0), 3);
  // psn 10 (k = 2): miss again, locate 3, cache back to block 2.
  o = bm.receive(0, 10);
  EXPECT_EQ(o.locate_cycles, 3u);
  EXPECT_EQ(bm.cache_index(0), 2);
  // psn 5 (k = 1): locate 2, 1 hop: the cache stays on block 2.
  o = bm.receive(0, 5);
  EXPECT_EQ(o.locate_cycles, 2u);
  EXPECT_EQ(bm.cache_index(0), 2);
  // Front and end: 1 cycle, the cache untouched.
  EXPECT_EQ(bm.receive(0, 21).locate_cycles, 1u);
  EXPECT_EQ(bm.receive(0, 1).locate_cycles, 1u);
  EXPECT_EQ(bm.cache_index(0), 2);
  ASSERT_TRUE(Invariants(bm));

  // The cached block keeps its identity as the front moves, and is dropped when released.
  Feed(bm, 0, {0, 2});
  // psn 3 fills block 0: 1 + 1 + push 1 + reach block 1 1 (4, 5 set, 6 clear) = 4 cycles.
  o = bm.receive(0, 3);
  EXPECT_COST(o, 4, 1, 2, 4);
  EXPECT_EQ(o.epsn, 6u);
  EXPECT_EQ(bm.cache_index(0), 1);
  EXPECT_EQ(bm.cache_block(0), 2u);
  Feed(bm, 0, {6, 7});  // releases block 1; 8, 9, 10 set, 11 clear
  EXPECT_EQ(bm.epsn(0), 11u);
  EXPECT_EQ(bm.cache_index(0), 0);  // the cached block is now the front block
  ASSERT_TRUE(Invariants(bm));
  Feed(bm, 0, {11});  // releases block 2: the cache goes
  EXPECT_EQ(bm.epsn(0), 12u);
  EXPECT_EQ(bm.cache_index(0), -1);
  EXPECT_EQ(bm.cache_block(0), LinkedListBitmap::kNoBlock);
  // List 12-15, 16-19, 20-23: psn 16 (k = 1) walks 1 hop from the head.
  o = bm.receive(0, 16);
  EXPECT_EQ(o.locate_cycles, 2u);
  ASSERT_TRUE(Invariants(bm));
  // Closing releases everything; reopening starts without a cache.
  bm.close(0);
  EXPECT_EQ(bm.cache_index(0), -1);
  EXPECT_EQ(bm.pool_free(), 16u);
}

TEST(LeftCache, ThresholdIsAParameter) {
  {
    Left bm(MakeParams(4, 16, 1, 0, /*threshold=*/3));
    BuildSixBlocks(bm);
    EXPECT_EQ(bm.cache_threshold(), 3u);
    EXPECT_EQ(bm.receive(0, 8).locate_cycles, 3u);  // 2 hops = threshold - 1: no update
    EXPECT_EQ(bm.cache_index(0), -1);
    EXPECT_EQ(bm.receive(0, 12).locate_cycles, 4u);  // 3 hops = threshold: update
    EXPECT_EQ(bm.cache_index(0), 3);
    EXPECT_EQ(bm.receive(0, 13).locate_cycles, 1u);  // hit
    EXPECT_EQ(bm.receive(0, 16).locate_cycles, 5u);  // 4 hops > threshold: update
    EXPECT_EQ(bm.cache_index(0), 4);
    ASSERT_TRUE(Invariants(bm));
  }
  {
    Left bm(MakeParams(4, 16, 1, 0, /*threshold=*/0));  // every walk moves the cache
    BuildSixBlocks(bm);
    EXPECT_EQ(bm.receive(0, 4).locate_cycles, 2u);
    EXPECT_EQ(bm.cache_index(0), 1);
    EXPECT_EQ(bm.receive(0, 5).locate_cycles, 1u);
    ASSERT_TRUE(Invariants(bm));
  }
}

TEST(LeftPlusCache, WalksFromTheCachePointerWhenTheTargetLiesAfterIt) {
  LeftPlus bm(MakeParams(4, 16, 1, 0, /*threshold=*/2));
  EXPECT_STREQ(bm.name(), "left+");
  BuildSixBlocks(bm);
  // psn 8 (k = 2), no cache: from the head, 2 hops: locate 3; cache -> block 2.
  Outcome o = bm.receive(0, 8);
  EXPECT_COST(o, 4, 3, 3, 4);
  EXPECT_EQ(bm.cache_index(0), 2);
  // psn 13 (k = 3 > 2): from the cache pointer: cache_ptr 1 + 1 hop = locate 2 (LEFT: 4),
  // 3 cycles; node 2, block 3. 1 hop = threshold - 1: the cache stays on block 2.
  o = bm.receive(0, 13);
  EXPECT_COST(o, 3, 2, 2, 3);
  EXPECT_EQ(bm.cache_index(0), 2);
  // psn 17 (k = 4): from the cache, 2 hops = threshold: locate 3; the cache -> block 4.
  o = bm.receive(0, 17);
  EXPECT_COST(o, 4, 3, 3, 4);
  EXPECT_EQ(bm.cache_index(0), 4);
  EXPECT_EQ(bm.cache_block(0), 4u);
  // psn 10 (k = 2 < 4): target before the cache: from the head, 2 hops: locate 3; cache 2.
  o = bm.receive(0, 10);
  EXPECT_EQ(o.locate_cycles, 3u);
  EXPECT_EQ(bm.cache_index(0), 2);
  // psn 5 (k = 1 < 2): from the head, 1 hop: locate 2; the cache stays.
  o = bm.receive(0, 5);
  EXPECT_EQ(o.locate_cycles, 2u);
  EXPECT_EQ(bm.cache_index(0), 2);
  // psn 9: hit, 1.
  EXPECT_EQ(bm.receive(0, 9).locate_cycles, 1u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(LeftPlusCache, ThresholdCountsHopsFromTheCachePointer) {
  LeftPlus bm(MakeParams(4, 16, 1, 0, /*threshold=*/1));
  BuildSixBlocks(bm);
  EXPECT_EQ(bm.receive(0, 4).locate_cycles, 2u);  // head, 1 hop: cache -> 1
  EXPECT_EQ(bm.cache_index(0), 1);
  EXPECT_EQ(bm.receive(0, 12).locate_cycles, 3u);  // cache 1 -> k 3: 2 hops: cache -> 3
  EXPECT_EQ(bm.cache_index(0), 3);
  EXPECT_EQ(bm.receive(0, 16).locate_cycles, 2u);  // cache 3 -> k 4: 1 hop: cache -> 4
  EXPECT_EQ(bm.cache_index(0), 4);
  ASSERT_TRUE(Invariants(bm));
}

// ---------------------------------------------------------------------------------------
// Hand cases: PSN wrap at 2^24, all four schemes
// ---------------------------------------------------------------------------------------

void WrapCase(Scheme s) {
  auto bm = Make(s, MakeParams(4, 8, 2, 0, 2));
  Left* left = dynamic_cast<Left*>(bm.get());
  const bool melo = s == Scheme::kMelo;
  bm->open(0, 0xFFFFFA, 0);
  // Blocks from base 0xFFFFFA: FA-FD, FE FF 00 01, 02-05.
  // psn 3: distance 9, index 2: j = 3: 3 pops + 3 writes = 6 cycles, locate 3; hole (FA, 9).
  Outcome o = bm->receive(0, 0x000003);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 6, 3, 3, 6);
  ExpectNackHoles(o, {{0xFFFFFA, 9}});
  EXPECT_EQ(bm->base_psn(0), 0xFFFFFAu);
  EXPECT_EQ(bm->rcv_high(0), 4u);
  // psn 1 (index 1, middle of 3): MELO drops it; the others walk 1 hop (locate 2, 3 cycles)
  // and split the hole into (2, 1) and (FA, 7).
  o = bm->receive(0, 0x000001);
  if (melo) {
    EXPECT_EQ(o.verdict, Verdict::kUntrackable);
    EXPECT_COST(o, 0, 0, 0, 0);
    ExpectHoles(*bm, 0, {{0xFFFFFA, 9}});
  } else {
    EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
    EXPECT_COST(o, 3, 2, 2, 3);
    ExpectHoles(*bm, 0, {{0x000002, 1}, {0xFFFFFA, 7}});
  }
  Feed(*bm, 0, {0xFFFFFA, 0xFFFFFB, 0xFFFFFC});
  // psn FD fills block 0: 1 + 1 + push 1 + reach FE-01 1 = 4 cycles; RCV.NXT FE.
  o = bm->receive(0, 0xFFFFFD);
  EXPECT_COST(o, 4, 1, 2, 4);
  EXPECT_EQ(o.epsn, 0xFFFFFEu);
  EXPECT_EQ(o.blocks_delta, -1);
  Feed(*bm, 0, {0xFFFFFE});
  o = bm->receive(0, 0xFFFFFF);  // RCV.NXT wraps to 0
  EXPECT_COST(o, 2, 1, 1, 2);
  EXPECT_EQ(o.epsn, 0u);
  o = bm->receive(0, 0x000000);
  if (melo) {
    // 1 was dropped: RCV.NXT 1 (2 cycles); then 1 is a front access: 4 cycles.
    EXPECT_COST(o, 2, 1, 1, 2);
    EXPECT_EQ(o.epsn, 1u);
    o = bm->receive(0, 0x000001);
  }
  // Block FE-01 full: 1 + 1 + push 1 + reach 02-05 1 = 4 cycles; RCV.NXT 2.
  EXPECT_COST(o, 4, 1, 2, 4);
  EXPECT_EQ(o.epsn, 2u);
  // psn 2: 02, 03 set up to RCV.HIGH 4: caught up: 1 + 1 + push 1 = 3 cycles.
  o = bm->receive(0, 0x000002);
  EXPECT_COST(o, 3, 1, 1, 3);
  EXPECT_EQ(o.epsn, 4u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(bm->pool_free(), 8u);
  ExpectHoles(*bm, 0, {});
  // Below RCV.NXT across the wrap: duplicate, 0 cycles.
  o = bm->receive(0, 0xFFFFFB);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm->receive(0, 4).verdict, Verdict::kInOrder);
  ASSERT_TRUE(Invariants(*bm));

  // A middle walk across the wrap: base F8: F8-FB, FC-FF, 00-03, 04-07.
  bm->open(1, 0xFFFFF8, 0);
  o = bm->receive(1, 0x000007);  // j = 4
  EXPECT_COST(o, 8, 4, 4, 8);
  ExpectNackHoles(o, {{0xFFFFF8, 15}});
  o = bm->receive(1, 0x000000);  // index 2: 2 hops from the head
  if (melo) {
    EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  } else {
    EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
    EXPECT_EQ(o.locate_cycles, 3u);
    ExpectHoles(*bm, 1, {{0x000001, 6}, {0xFFFFF8, 8}});
  }
  if (left) {
    EXPECT_EQ(left->cache_index(1), 2);  // 2 hops = threshold
    EXPECT_EQ(bm->receive(1, 0x000001).locate_cycles, 1u);
  }
  o = bm->receive(1, 0xFFFFFE);  // index 1: 1 hop (LEFT+: before the cache: from the head)
  if (!melo) {
    EXPECT_EQ(o.locate_cycles, 2u);
  }
  ASSERT_TRUE(Invariants(*bm));
  bm->close(1);
  EXPECT_EQ(bm->pool_free(), 8u);
  ASSERT_TRUE(Invariants(*bm));
}

TEST(MeloWrap, AcrossPsnWrap) {
  WrapCase(Scheme::kMelo);
}
TEST(MeloPlusWrap, AcrossPsnWrap) {
  WrapCase(Scheme::kMeloPlus);
}
TEST(LeftWrap, AcrossPsnWrap) {
  WrapCase(Scheme::kLeft);
}
TEST(LeftPlusWrap, AcrossPsnWrap) {
  WrapCase(Scheme::kLeftPlus);
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

using oonic::test::WindowShuffle;  // testbench/common/arrival_orders.h

// Independent reference of one QP, in offsets from the start PSN (no wrap inside): received
// flags, RCV.NXT (e), RCV.HIGH (high), the list's base offset and length, LEFT's cache.
struct RefQp {
  Scheme scheme = Scheme::kMelo;
  uint32_t qp = 0, start = 0, count = 0, m = 0, maxb = 0, threshold = 0;
  std::vector<uint8_t> got;
  std::vector<uint32_t> accepted;
  uint32_t e = 0, high = 0, base = 0, len = 0;
  bool cache_valid = false;
  uint32_t cache_off = 0;  // first offset of the cached block
  bool nak_sent = false;
  uint32_t nak_e = 0;

  void init(Scheme s, uint32_t qp_, uint32_t start_, uint32_t count_, uint32_t m_, uint32_t maxb_,
            uint32_t thr) {
    scheme = s, qp = qp_, start = start_, count = count_, m = m_, maxb = maxb_, threshold = thr;
    got.assign(count, 0);
    accepted.assign(count, 0);
  }
  uint32_t lowest_missing() const {
    uint32_t x = 0;
    while (x < count && got[x]) ++x;
    return x;
  }
  int32_t cache_index() const {
    return cache_valid ? static_cast<int32_t>((cache_off - base) / m) : -1;
  }
};

struct Expect {
  Verdict verdict = Verdict::kQpClosed;
  uint32_t locate = 0, cycles = 0;
  int32_t delta = 0;
  bool head = false;
  Feedback fb = Feedback::kNone;
  bool middle = false;  // the packet needed a middle block
};

Expect RefReceive(RefQp& r, uint32_t x, uint32_t pool_free) {
  Expect ex;
  const uint32_t len0 = r.len;
  auto gbn = [&] {
    if (!(r.nak_sent && r.nak_e == r.e)) {
      r.nak_sent = true;
      r.nak_e = r.e;
      ex.fb = Feedback::kNak;
    }
  };
  auto accept = [&] {
    r.got[x] = 1;
    r.accepted[x] += 1;
  };
  auto new_data = [&] {  // x >= high, accepted
    accept();
    ex.fb = x > r.high ? Feedback::kHoleNack : Feedback::kAck;
    r.high = x + 1;
    ex.verdict = Verdict::kOutOfOrder;
  };
  auto append = [&](uint32_t k) {
    if (k >= r.maxb) {
      ex.verdict = Verdict::kBeyondWindow;
      gbn();
      return;
    }
    const uint32_t j = k - r.len + 1;
    if (j > pool_free) {
      ex.verdict = Verdict::kPoolExhausted;
      gbn();
      return;
    }
    ex.locate = j;
    ex.cycles = 2 * j + (r.len > 0 ? 1 : 0);
    if (r.len == 0) r.base = r.e;
    r.len += j;
    new_data();
  };

  if (x < r.e) {
    ex.verdict = Verdict::kDuplicate;
    ex.fb = Feedback::kAck;
  } else if (r.len == 0) {
    if (x == r.e) {
      accept();
      r.e = r.high = x + 1;
      ex.verdict = Verdict::kInOrder;
      ex.head = true;
      ex.fb = Feedback::kAck;
    } else {
      append((x - r.e) / r.m);
    }
  } else {
    const uint32_t k = (x - r.base) / r.m;
    if (x >= r.high) {
      if (k < r.len) {
        ex.locate = 1;
        ex.cycles = 2;
        new_data();
      } else {
        append(k);
      }
    } else {
      if (k == 0 || k + 1 == r.len) {
        ex.locate = 1;
      } else {
        ex.middle = true;
        switch (r.scheme) {
          case Scheme::kMelo:
            ex.verdict = Verdict::kUntrackable;
            return ex;
          case Scheme::kMeloPlus:
            ex.locate = 1 + k;
            break;
          case Scheme::kLeft:
          case Scheme::kLeftPlus: {
            const int32_t ck = r.cache_index();
            if (ck == static_cast<int32_t>(k)) {
              ex.locate = 1;
            } else {
              uint32_t hops = k;
              if (r.scheme == Scheme::kLeftPlus && ck >= 0 && static_cast<uint32_t>(ck) < k)
                hops = k - static_cast<uint32_t>(ck);
              ex.locate = 1 + hops;
              if (hops >= r.threshold) {
                r.cache_valid = true;
                r.cache_off = r.base + k * r.m;
              }
            }
            break;
          }
        }
      }
      ex.cycles = ex.locate;
      if (r.got[x]) {
        ex.verdict = Verdict::kDuplicate;
        ex.fb = Feedback::kAck;
      } else {
        accept();
        ex.cycles += 1;
        ex.fb = Feedback::kAck;
        if (x == r.e) {
          ex.verdict = Verdict::kInOrder;
          ex.head = true;
          uint32_t e2 = r.e;
          while (e2 < r.count && r.got[e2]) ++e2;
          if (e2 == r.high) {  // caught up: every block returned
            ex.cycles += r.len + (r.len - 1);
            r.len = 0;
            r.cache_valid = false;
          } else {
            const uint32_t nb = r.base + r.m * ((e2 - r.base) / r.m);
            const uint32_t rel = (nb - r.base) / r.m;
            ex.cycles += 2 * rel;  // per released block: push + reach the next one
            r.len -= rel;
            r.base = nb;
            if (r.cache_valid && r.cache_off < nb) r.cache_valid = false;
          }
          r.e = e2;
          if (r.len == 0) r.high = e2;
        } else {
          ex.verdict = Verdict::kOutOfOrder;
        }
      }
    }
  }
  ex.delta = static_cast<int32_t>(r.len) - static_cast<int32_t>(len0);
  return ex;
}

enum class LossMode { kNone, kResendAtEnd, kHoleDriven };

struct Flow {
  RefQp ref;
  std::vector<uint32_t> order;  // first transmissions as delivered (losses removed)
  size_t pos = 0;
  std::vector<std::pair<uint64_t, uint32_t>> pending;  // (due step, offset) retransmits
  std::vector<uint8_t> in_pending;
  bool hole_driven = false;
  uint32_t dist = 0;
  uint64_t deliveries = 0;
};

struct Stats {
  uint64_t calls = 0, untrackable = 0, middle = 0, exhausted = 0, beyond = 0, dups = 0,
           hole_nacks = 0, ooo = 0, ooo_locate = 0;
  uint32_t max_held = 0;
};

void AddPending(Flow& f, uint64_t due, uint32_t x) {
  if (x >= f.ref.count || f.in_pending[x]) return;
  f.in_pending[x] = 1;
  f.pending.push_back({due, x});
}

// Delivers one packet of flow fi (if any). Returns false when the flow has nothing left.
bool Step(LinkedListBitmap& bm, std::vector<Flow>& flows, size_t fi, uint64_t now,
          std::mt19937_64& rng, Stats& st) {
  Flow& f = flows[fi];
  RefQp& r = f.ref;
  uint32_t x = 0;
  bool have = false;
  // 1) a due retransmission, 2) the next first transmission, 3) the earliest pending,
  // 4) the sender's timeout: go-back-N from RCV.NXT (resends whatever was dropped).
  size_t best = f.pending.size();
  for (size_t i = 0; i < f.pending.size(); ++i)
    if (best == f.pending.size() || f.pending[i].first < f.pending[best].first) best = i;
  auto take = [&](size_t i) {
    x = f.pending[i].second;
    f.in_pending[x] = 0;
    f.pending.erase(f.pending.begin() + static_cast<std::ptrdiff_t>(i));
    have = true;
  };
  if (best < f.pending.size() && f.pending[best].first <= now) {
    take(best);
  } else if (f.pos < f.order.size()) {
    x = f.order[f.pos++];
    have = true;
  } else if (best < f.pending.size()) {
    take(best);
  } else if (r.e < r.count) {
    for (uint32_t y = r.e + 1; y < r.count; ++y) AddPending(f, 0, y);
    x = r.e;
    have = true;
  }
  if (!have) return false;
  if (++f.deliveries > 50ull * r.count + 1000) {
    ADD_FAILURE() << "flow " << fi << " does not terminate";
    return false;
  }

  uint32_t ref_used = 0;
  for (const Flow& g : flows) ref_used += g.ref.len;
  EXPECT_EQ(bm.pool_used(), ref_used);
  const uint32_t pool_free = bm.pool_free();

  const uint32_t e_before = r.e;
  const uint32_t psn = psn_add(r.start, x);
  const Expect ex = RefReceive(r, x, pool_free);
  const Outcome o = bm.receive(r.qp, psn);
  ++st.calls;
  const auto ctx = [&] {
    return ::testing::Message() << SchemeName(r.scheme) << " qp " << r.qp << " start " << r.start
                                << " m " << r.m << " offset " << x << " RCV.NXT offset before "
                                << e_before;
  };
  EXPECT_EQ(o.verdict, ex.verdict) << ctx() << " got " << to_string(o.verdict);
  EXPECT_EQ(o.locate_cycles, ex.locate) << ctx();
  EXPECT_EQ(o.cycles, ex.cycles) << ctx();
  EXPECT_EQ(o.head_advanced, ex.head) << ctx();
  EXPECT_EQ(o.blocks_delta, ex.delta) << ctx();
  EXPECT_EQ(o.blocks_held, r.len) << ctx();
  EXPECT_EQ(o.feedback, ex.fb) << ctx() << " got " << to_string(o.feedback);
  EXPECT_EQ(o.epsn, psn_add(r.start, r.e)) << ctx();
  EXPECT_EQ(r.e, r.lowest_missing()) << ctx();  // RCV.NXT = first PSN not yet received
  EXPECT_EQ(bm.rcv_high(r.qp), psn_add(r.start, r.high)) << ctx();
  if (r.len > 0) {
    EXPECT_EQ(bm.base_psn(r.qp), psn_add(r.start, r.base)) << ctx();
  }
  if (const Left* left = dynamic_cast<const Left*>(&bm)) {
    EXPECT_EQ(left->cache_index(r.qp), r.cache_index()) << ctx();
  }
  // MELO drops exactly the middle accesses; the others never drop one.
  if (ex.middle) ++st.middle;
  EXPECT_EQ(o.verdict == Verdict::kUntrackable, ex.middle && r.scheme == Scheme::kMelo) << ctx();

  if (o.feedback == Feedback::kHoleNack) {
    ++st.hole_nacks;
    EXPECT_GE(o.nholes, 1u) << ctx();
    EXPECT_LE(o.nholes, 3u) << ctx();
    // The newest hole ends at this packet; every reported PSN is unreceived and lies in
    // [RCV.NXT, RCV.HIGH).
    EXPECT_EQ(psn_add(o.holes[0].start_psn, o.holes[0].length), psn) << ctx();
    for (uint32_t i = 0; i < o.nholes && i < 3; ++i) {
      const uint32_t h0 = static_cast<uint32_t>(psn_diff(o.holes[i].start_psn, r.start));
      EXPECT_GE(o.holes[i].length, 1u) << ctx();
      for (uint32_t y = h0; y < h0 + o.holes[i].length; ++y) {
        if (y >= r.count) {
          ADD_FAILURE() << ctx() << " hole beyond the flow";
          break;
        }
        EXPECT_FALSE(r.got[y]) << ctx() << " hole PSN offset " << y << " was received";
        EXPECT_TRUE(y >= r.e && y < r.high) << ctx();
        // The sender retransmits the holes selectively after a network delay.
        if (f.hole_driven) AddPending(f, now + 1 + rng() % (f.dist + 2), y);
      }
    }
  } else {
    EXPECT_EQ(o.nholes, 0u) << ctx();
  }
  switch (o.verdict) {
    case Verdict::kUntrackable:
      ++st.untrackable;
      break;
    case Verdict::kPoolExhausted:
      ++st.exhausted;
      break;
    case Verdict::kBeyondWindow:
      ++st.beyond;
      break;
    case Verdict::kDuplicate:
      ++st.dups;
      break;
    case Verdict::kOutOfOrder:
      ++st.ooo;
      st.ooo_locate += o.locate_cycles;
      break;
    default:
      break;
  }
  st.max_held = std::max(st.max_held, o.blocks_held);

  std::string why;
  EXPECT_TRUE(bm.check_invariants(&why)) << ctx() << ": " << why;
  return true;
}

void RunFlows(LinkedListBitmap& bm, std::vector<Flow>& flows, std::mt19937_64& rng, Stats& st) {
  uint64_t now = 0;
  std::vector<size_t> active;
  for (size_t i = 0; i < flows.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng() % active.size());
    if (!Step(bm, flows, active[ai], now, rng, st)) {
      active[ai] = active.back();
      active.pop_back();
    }
    if (::testing::Test::HasFailure()) return;
    ++now;
  }
}

// Once every (re)transmission is in: RCV.NXT = start + count, nothing held, each PSN
// accepted exactly once.
void ExpectComplete(const LinkedListBitmap& bm, const Flow& f) {
  const RefQp& r = f.ref;
  EXPECT_EQ(bm.epsn(r.qp), psn_add(r.start, r.count));
  EXPECT_EQ(bm.rcv_high(r.qp), psn_add(r.start, r.count));
  EXPECT_EQ(bm.blocks_held(r.qp), 0u);
  for (uint32_t x = 0; x < r.count; ++x)
    ASSERT_EQ(r.accepted[x], 1u) << "offset " << x << " accepted " << r.accepted[x] << " times";
}

struct FlowCfg {
  uint32_t m, count, dist, start, losses, threshold;
  LossMode loss;
};

FlowCfg RandomCfg(std::mt19937_64& rng, LossMode loss) {
  static const uint32_t kM[] = {8, 8, 8, 16, 16, 4, 1, 5, 32, 33};
  FlowCfg c{};
  c.m = kM[rng() % (sizeof(kM) / sizeof(kM[0]))];
  c.dist = static_cast<uint32_t>(rng() % 65);  // OOO distance D <= 64
  c.count = 150 + static_cast<uint32_t>(rng() % 200);
  if (rng() % 4 != 0) c.count = (c.count / c.m + 1) * c.m;
  c.start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 400)  // wraps
                             : static_cast<uint32_t>(rng() & 0xFFFFFF);
  c.losses = 1 + static_cast<uint32_t>(rng() % 3);
  c.threshold = static_cast<uint32_t>(rng() % 5);
  c.loss = loss;
  return c;
}

Flow MakeFlow(Scheme s, uint32_t qp, const FlowCfg& c, uint32_t maxb, std::mt19937_64& rng) {
  Flow f;
  f.ref.init(s, qp, c.start, c.count, c.m, maxb, c.threshold);
  f.dist = c.dist;
  f.in_pending.assign(c.count, 0);
  std::vector<uint32_t> order = WindowShuffle(c.count, c.dist, rng);
  if (c.loss != LossMode::kNone) {
    std::vector<uint8_t> lost(c.count, 0);
    lost[rng() % std::min(c.m, c.count)] = 1;  // one loss in the first block (ORNIC §4.3)
    for (uint32_t i = 1; i < c.losses; ++i) lost[rng() % c.count] = 1;
    std::vector<uint32_t> kept, dropped;
    for (uint32_t y : order) (lost[y] ? dropped : kept).push_back(y);
    if (c.loss == LossMode::kResendAtEnd) kept.insert(kept.end(), dropped.begin(), dropped.end());
    order = std::move(kept);
    f.hole_driven = c.loss == LossMode::kHoleDriven;
  }
  f.order = std::move(order);
  return f;
}

// One QP, pool large enough for the whole flow (a list spans at most ceil(count/m) blocks).
void SingleQpProperty(Scheme s, LossMode mode, uint64_t seed0, uint64_t seeds, Stats& st) {
  for (uint64_t seed = seed0; seed < seed0 + seeds; ++seed) {
    std::mt19937_64 rng(seed);
    const FlowCfg c = RandomCfg(rng, mode);
    const uint32_t pool = c.count / c.m + 2;
    auto bm = Make(s, MakeParams(c.m, pool, 2, 0, c.threshold));
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(s, 1, c, pool, rng));
    bm->open(1, c.start, 0);
    const uint64_t drops_before = st.untrackable + st.exhausted + st.beyond;
    const uint64_t dups_before = st.dups;
    RunFlows(*bm, flows, rng, st);
    ASSERT_FALSE(::testing::Test::HasFailure()) << SchemeName(s) << " seed " << seed;
    ExpectComplete(*bm, flows[0]);
    if (s != Scheme::kMelo) {
      // MELO+/LEFT/LEFT+ never drop a packet when the pool suffices.
      EXPECT_EQ(st.untrackable + st.exhausted + st.beyond, drops_before) << "seed " << seed;
      if (mode == LossMode::kNone) {
        EXPECT_EQ(flows[0].deliveries, c.count) << "seed " << seed;  // nothing resent
        EXPECT_EQ(st.dups, dups_before) << "seed " << seed;
      }
    }
    bm->close(1);
    EXPECT_EQ(bm->pool_free(), pool);
    EXPECT_TRUE(Invariants(*bm));
    ASSERT_FALSE(::testing::Test::HasFailure()) << SchemeName(s) << " seed " << seed;
  }
}

// Four QPs on one pool; tight = a pool (and sometimes a window) far too small, so
// exhaustion and window drops happen (predicted exactly); every flow still completes
// because the front never needs a new block.
void MultiQpProperty(Scheme s, bool tight, uint64_t seed0, uint64_t seeds, Stats& st) {
  static const uint32_t kQps[] = {1, 3, 4, 7};
  for (uint64_t seed = seed0; seed < seed0 + seeds; ++seed) {
    std::mt19937_64 rng(seed);
    const LossMode mode = static_cast<LossMode>(seed % 3);
    const FlowCfg c0 = RandomCfg(rng, mode);
    std::vector<FlowCfg> cfgs;
    uint32_t need = 0;
    for (size_t i = 0; i < 4; ++i) {
      FlowCfg c = RandomCfg(rng, mode);
      c.m = c0.m;  // one pool geometry
      c.threshold = c0.threshold;
      cfgs.push_back(c);
      need += c.count / c.m + 2;
    }
    uint32_t pool = need, maxb = 0;
    if (tight) {
      pool = 1 + static_cast<uint32_t>(rng() % 8);
      if (rng() % 2) maxb = 1 + static_cast<uint32_t>(rng() % pool);
    }
    auto bm = Make(s, MakeParams(c0.m, pool, 8, maxb, c0.threshold));
    std::vector<Flow> flows;
    for (size_t i = 0; i < 4; ++i) {
      flows.push_back(MakeFlow(s, kQps[i], cfgs[i], maxb == 0 ? pool : maxb, rng));
      bm->open(kQps[i], cfgs[i].start, 0);
    }
    const uint64_t drops_before = st.untrackable + st.exhausted + st.beyond;
    RunFlows(*bm, flows, rng, st);
    ASSERT_FALSE(::testing::Test::HasFailure()) << SchemeName(s) << " seed " << seed;
    for (const Flow& f : flows) ExpectComplete(*bm, f);
    if (!tight && s != Scheme::kMelo) {
      EXPECT_EQ(st.untrackable + st.exhausted + st.beyond, drops_before) << "seed " << seed;
    }
    for (uint32_t qp : kQps) bm->close(qp);
    EXPECT_EQ(bm->pool_free(), pool);
    EXPECT_TRUE(Invariants(*bm));
    ASSERT_FALSE(::testing::Test::HasFailure()) << SchemeName(s) << " seed " << seed;
  }
}

TEST(MeloProperty, WindowShuffleRespectsDistance) {
  std::mt19937_64 rng(7);
  for (uint32_t d : {0u, 1u, 5u, 64u}) {
    auto v = WindowShuffle(500, d, rng);
    std::vector<uint8_t> seen(500, 0);
    uint32_t lo = 0;
    for (size_t pos = 0; pos < v.size(); ++pos) {
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

// Per scheme: no loss, loss resent at the end, loss recovered from hole NACKs (single QP,
// ample pool); four QPs on an ample pool and on a starved one.
#define SCHEME_PROPERTY_TESTS(Suite, S, SEED)                           \
  TEST(Suite, SingleQpNoLoss) {                                         \
    Stats st;                                                           \
    SingleQpProperty(S, LossMode::kNone, SEED + 1, 300, st);            \
    EXPECT_GT(st.hole_nacks, 0u);                                       \
    if (S == Scheme::kMelo) {                                           \
      EXPECT_GT(st.untrackable, 0u);                                    \
    }                                                                   \
  }                                                                     \
  TEST(Suite, SingleQpLossResentAtEnd) {                                \
    Stats st;                                                           \
    SingleQpProperty(S, LossMode::kResendAtEnd, SEED + 10001, 200, st); \
    EXPECT_GT(st.middle, 0u);                                           \
  }                                                                     \
  TEST(Suite, SingleQpLossRecoveredFromHoleNacks) {                     \
    Stats st;                                                           \
    SingleQpProperty(S, LossMode::kHoleDriven, SEED + 20001, 250, st);  \
    EXPECT_GT(st.dups, 0u);                                             \
  }                                                                     \
  TEST(Suite, MultiQpSharedPool) {                                      \
    Stats st;                                                           \
    MultiQpProperty(S, false, SEED + 30001, 50, st);                    \
  }                                                                     \
  TEST(Suite, MultiQpStarvedPool) {                                     \
    Stats st;                                                           \
    MultiQpProperty(S, true, SEED + 40001, 50, st);                     \
    EXPECT_GT(st.exhausted, 0u);                                        \
    EXPECT_GT(st.beyond, 0u);                                           \
  }

SCHEME_PROPERTY_TESTS(MeloProperty, Scheme::kMelo, 0)
SCHEME_PROPERTY_TESTS(MeloPlusProperty, Scheme::kMeloPlus, 100000)
SCHEME_PROPERTY_TESTS(LeftProperty, Scheme::kLeft, 200000)
SCHEME_PROPERTY_TESTS(LeftPlusProperty, Scheme::kLeftPlus, 300000)

// The bitmap comparison of ORNIC §4.3 (docs/DESIGN.md M1): one QP, 16-bit blocks, a 320-bit
// pool, packets shuffled with OOO distance <= 64; no loss, or one random packet of the
// first block lost and retransmitted ~1-3 windows later. MELO+, LEFT and LEFT+ see the same
// arrivals and build the same lists (none of them drops a middle access), so their verdicts
// agree packet by packet, and LEFT / LEFT+ never need more locate cycles than MELO+ (a hit
// costs 1, a LEFT miss is MELO+'s walk, a LEFT+ walk from the cache is shorter). Prints the
// figures the comparison reports.
TEST(LeftComparison, Section43ScenarioAgainstMeloPlus) {
  for (int loss = 0; loss < 2; ++loss) {
    uint64_t ooo = 0, sum[3] = {0, 0, 0};
    uint32_t max_held = 0;
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(loss));
      const uint32_t count = 1024;
      const uint32_t start = loss ? 0xFFFF00u : static_cast<uint32_t>(rng() & 0xFFFFFF);
      std::vector<uint32_t> order = WindowShuffle(count, static_cast<uint32_t>(rng() % 65), rng);
      if (loss) {
        const uint32_t lost = static_cast<uint32_t>(rng() % 16);
        const auto it = std::find(order.begin(), order.end(), lost);
        const size_t pos = static_cast<size_t>(it - order.begin());
        order.erase(it);
        const size_t back = std::min(order.size(), pos + 64 + static_cast<size_t>(rng() % 128));
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(back), lost);
      }
      const Left::Params p = MakeParams(16, 20, 1, 0, 2);
      MeloPlus mp(p);
      Left lf(p);
      LeftPlus lp(p);
      LinkedListBitmap* all[3] = {&mp, &lf, &lp};
      for (LinkedListBitmap* b : all) b->open(0, start, 0);
      auto deliver = [&](uint32_t x) {
        Outcome o[3];
        for (int i = 0; i < 3; ++i) o[i] = all[i]->receive(0, psn_add(start, x));
        for (int i = 1; i < 3; ++i) {
          EXPECT_EQ(o[i].verdict, o[0].verdict) << "seed " << seed << " offset " << x;
          EXPECT_EQ(o[i].epsn, o[0].epsn);
          EXPECT_EQ(o[i].blocks_held, o[0].blocks_held);
          EXPECT_LE(o[i].locate_cycles, o[0].locate_cycles) << "seed " << seed << " x " << x;
        }
        if (o[0].verdict == Verdict::kOutOfOrder) {
          ++ooo;
          for (int i = 0; i < 3; ++i) sum[i] += o[i].locate_cycles;
        }
        max_held = std::max(max_held, o[0].blocks_held);
      };
      for (uint32_t x : order) deliver(x);
      // Whatever the 20-block pool could not take comes back by the sender's timeout.
      while (psn_diff(mp.epsn(0), start) < static_cast<int32_t>(count)) {
        const uint32_t e = static_cast<uint32_t>(psn_diff(mp.epsn(0), start));
        for (uint32_t x = e; x < count; ++x) deliver(x);
      }
      for (LinkedListBitmap* b : all) {
        EXPECT_EQ(b->epsn(0), psn_add(start, count));
        EXPECT_EQ(b->blocks_held(0), 0u);
        EXPECT_TRUE(Invariants(*b));
      }
      ASSERT_FALSE(HasFailure()) << "seed " << seed;
    }
    ASSERT_GT(ooo, 0u);
    std::printf(
        "[ ORNIC §4.3 ] %s: avg locate cycles per OOO packet: melo+ %.2f, left %.2f, "
        "left+ %.2f; max blocks held %u\n",
        loss ? "one loss in block 0" : "no loss", double(sum[0]) / double(ooo),
        double(sum[1]) / double(ooo), double(sum[2]) / double(ooo), max_held);
    EXPECT_LE(sum[1], sum[0]);
    EXPECT_LE(sum[2], sum[0]);
  }
}

}  // namespace
