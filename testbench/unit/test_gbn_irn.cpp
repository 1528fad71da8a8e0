// Unit tests of the go-back-N, IRN and static-bitmap ordering cores
// (model/ordering/gbn.h, irn.h, static_bitmap.h).
//
// Hand cases pin the cost model and the feedback exactly; every expected number is derived
// in a comment from the headers' tables:
//   GBN: 0 cycles, 0 accesses, blocks_held 0 for every call.
//   IRN / static: psn < ePSN or beyond the window 0 cycles | locate 1 (word read) |
//   duplicate in the window +0 | out of order: set-bit write +1 | in order: "set" write +1,
//   +1 cycle per further word the head scan reads (a change of word index, word_bits per
//   word; none when the window is one word) | block_accesses = word reads + writes
//   (1 + 1, and 1 + 1 per further word) | node_accesses 0 | blocks_held ceil(W / block).
//
// Property tests replay thousands of seeded arrival orders (window shuffle with OOO
// distance D, as in test_ornic_bitmap.cpp; with and without loss and later retransmission,
// with network duplicates) against an independent reference (per-PSN received flags), and
// drive the receivers with sender models: go-back-N on kNak for GBN, selective repeat from
// SACK holes for IRN. check_invariants runs after every call.
#include <gtest/gtest.h>

#include "testbench/common/arrival_orders.h"
#include "testbench/common/ordering_checks.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/ordering/gbn.h"
#include "model/ordering/irn.h"
#include "model/ordering/static_bitmap.h"

namespace {

using oonic::ordering::Feedback;
using oonic::ordering::Gbn;
using oonic::ordering::Irn;
using oonic::ordering::OrderingUnit;
using oonic::ordering::Outcome;
using oonic::ordering::StaticBitmap;
using oonic::ordering::Verdict;
using oonic::wire::psn_add;
using oonic::wire::psn_diff;

using oonic::test::Invariants;  // testbench/common/ordering_checks.h

Gbn::Params GbnParams(uint32_t qps) {
  Gbn::Params p;
  p.max_qps = qps;
  return p;
}

Irn::Params IrnParams(uint32_t w, uint32_t wb, uint32_t block, uint32_t qps) {
  Irn::Params p;
  p.bitmap_bits = w;
  p.word_bits = wb;
  p.block_bits = block;
  p.max_qps = qps;
  return p;
}

StaticBitmap::Params StaticParams(uint32_t w, uint32_t wb, uint32_t block, uint32_t qps) {
  StaticBitmap::Params p;
  p.window_bits = w;
  p.word_bits = wb;
  p.block_bits = block;
  p.max_qps = qps;
  return p;
}

// Receive PSNs expected to be accepted (in order or out of order).
void Feed(OrderingUnit& u, uint32_t qp, std::initializer_list<uint32_t> psns) {
  for (uint32_t p : psns) {
    Outcome o = u.receive(qp, p);
    ASSERT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder)
        << "psn " << p << " verdict " << to_string(o.verdict);
    ASSERT_TRUE(Invariants(u));
  }
}
void FeedRange(OrderingUnit& u, uint32_t qp, uint32_t from, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t p = psn_add(from, i);
    Outcome o = u.receive(qp, p);
    ASSERT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder)
        << "psn " << p << " verdict " << to_string(o.verdict);
    ASSERT_TRUE(Invariants(u));
  }
}

// =======================================================================================
// GBN hand cases
// =======================================================================================

TEST(GbnBasic, InOrderAcksAtZeroCost) {
  Gbn g(GbnParams(4));
  EXPECT_STREQ(g.name(), "gbn");
  g.open(0, 100, 64);
  ASSERT_TRUE(Invariants(g));
  // psn 100 == ePSN: accepted, ePSN 101, cumulative ACK; no bitmap: 0 cycles, 0 accesses.
  Outcome o = g.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_FALSE(o.nak);
  EXPECT_EQ(g.epsn(0), 101u);
  EXPECT_EQ(g.blocks_held(0), 0u);
  ASSERT_TRUE(Invariants(g));
}

TEST(GbnBasic, GapNaksOncePerEpsn) {
  Gbn g(GbnParams(4));
  g.open(0, 100, 64);
  Feed(g, 0, {100});
  // psn 103 > ePSN 101: dropped (untrackable), NAK carrying ePSN 101.
  Outcome o = g.receive(0, 103);
  EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_FALSE(o.nak);  // ORNIC's bitmap NAK flag is not used
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_TRUE(g.nak_outstanding(0));
  // Further gap packets while ePSN stays 101: dropped silently.
  o = g.receive(0, 104);
  EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  o = g.receive(0, 102);
  EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  // A duplicate is re-ACKed and does not re-arm the NAK.
  o = g.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_TRUE(g.nak_outstanding(0));
  EXPECT_EQ(g.receive(0, 105).feedback, Feedback::kNone);
  // The expected PSN arrives: ACK, ePSN 102, NAK re-armed.
  o = g.receive(0, 101);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_EQ(o.epsn, 102u);
  EXPECT_FALSE(g.nak_outstanding(0));
  // New ePSN, new gap: one more NAK (carrying 102), then silence.
  o = g.receive(0, 104);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  EXPECT_EQ(o.epsn, 102u);
  EXPECT_EQ(g.receive(0, 103).feedback, Feedback::kNone);
  // Go back N: 102, 103, 104 in order.
  Feed(g, 0, {102, 103, 104});
  EXPECT_EQ(g.epsn(0), 105u);
  ASSERT_TRUE(Invariants(g));
}

TEST(GbnBasic, QpsAreIndependent) {
  Gbn g(GbnParams(3));
  g.open(0, 10, 0);
  g.open(2, 20, 0);
  EXPECT_EQ(g.receive(0, 12).feedback, Feedback::kNak);
  EXPECT_FALSE(g.nak_outstanding(2));
  EXPECT_EQ(g.receive(2, 22).feedback, Feedback::kNak);  // qp 2's own NAK
  Feed(g, 2, {20});
  EXPECT_EQ(g.epsn(0), 10u);
  EXPECT_EQ(g.epsn(2), 21u);
  EXPECT_TRUE(g.nak_outstanding(0));
  EXPECT_FALSE(g.is_open(1));
  ASSERT_TRUE(Invariants(g));
}

TEST(GbnWrap, PsnWrapAt2To24) {
  Gbn g(GbnParams(1));
  g.open(0, 0xFFFFF0, 64);
  FeedRange(g, 0, 0xFFFFF0, 16);  // 0xFFFFF0 .. 0xFFFFFF
  EXPECT_EQ(g.epsn(0), 0u);       // wrapped
  // 0xFFFFFF is one behind ePSN 0: duplicate.
  Outcome o = g.receive(0, 0xFFFFFF);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  // 5 is ahead: gap, NAK carrying 0.
  o = g.receive(0, 5);
  EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  EXPECT_EQ(o.epsn, 0u);
  Feed(g, 0, {0, 1});
  EXPECT_EQ(g.epsn(0), 2u);
  // Start right at the top: ePSN 0xFFFFFF, the next is 0.
  g.open(0, 0xFFFFFF, 0);
  Feed(g, 0, {0xFFFFFF, 0});
  EXPECT_EQ(g.epsn(0), 1u);
  // open() masks the start to 24 bits.
  g.open(0, 0x1000005, 0);
  EXPECT_EQ(g.epsn(0), 5u);
  ASSERT_TRUE(Invariants(g));
}

TEST(GbnWrap, HalfSpaceBoundary) {
  Gbn g(GbnParams(1));
  g.open(0, 1, 0);
  // psn_diff maps a distance of 2^23 to -2^23: behind -> duplicate.
  Outcome o = g.receive(0, 1 + 0x800000);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  // 2^23 - 1 ahead: a gap.
  o = g.receive(0, 0x800000);
  EXPECT_EQ(o.verdict, Verdict::kUntrackable);
  EXPECT_EQ(o.feedback, Feedback::kNak);
  // 2^23 - 1 behind (psn 2 - 2^23 mod 2^24 = 0x800002): duplicate.
  EXPECT_EQ(g.receive(0, 0x800002).verdict, Verdict::kDuplicate);
  // PSNs wider than 24 bits are masked: 0x1000001 is psn 1.
  EXPECT_EQ(g.receive(0, 0x1000001).verdict, Verdict::kInOrder);
  EXPECT_EQ(g.epsn(0), 2u);
}

TEST(GbnBasic, ClosedReopenAndBadParams) {
  Gbn g(GbnParams(4));
  Outcome o = g.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kQpClosed);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(g.receive(99, 0).verdict, Verdict::kQpClosed);  // out-of-range qp
  EXPECT_THROW(g.open(4, 0, 0), std::out_of_range);
  g.open(1, 50, 0);
  EXPECT_EQ(g.receive(1, 52).feedback, Feedback::kNak);
  // Reopening resets ePSN and re-arms the NAK.
  g.open(1, 50, 0);
  EXPECT_FALSE(g.nak_outstanding(1));
  EXPECT_EQ(g.receive(1, 52).feedback, Feedback::kNak);
  g.close(1);
  EXPECT_FALSE(g.is_open(1));
  EXPECT_FALSE(g.nak_outstanding(1));
  EXPECT_EQ(g.epsn(1), 0u);
  EXPECT_EQ(g.receive(1, 50).verdict, Verdict::kQpClosed);
  g.close(77);  // out of range: ignored
  ASSERT_TRUE(Invariants(g));
  EXPECT_THROW(Gbn(GbnParams(0)), std::invalid_argument);
  Gbn d{Gbn::Params{}};
  EXPECT_EQ(d.params().max_qps, 2048u);
  d.open(2047, 0, 0);
  EXPECT_TRUE(d.is_open(2047));
}

// =======================================================================================
// IRN hand cases
// =======================================================================================

TEST(IrnDefaults, ParamsAndBlocksHeld) {
  Irn irn{Irn::Params{}};
  EXPECT_STREQ(irn.name(), "irn");
  EXPECT_EQ(irn.params().bitmap_bits, 256u);
  EXPECT_EQ(irn.params().word_bits, 64u);
  EXPECT_EQ(irn.params().block_bits, 16u);
  EXPECT_EQ(irn.params().max_qps, 2048u);
  EXPECT_EQ(irn.blocks_held(0), 0u);  // closed
  irn.open(0, 0, 64);
  // 256 bits / 16-bit blocks = 16 blocks, held from open on, reordering or not.
  EXPECT_EQ(irn.blocks_held(0), 16u);
  Outcome o = irn.receive(0, 0);
  EXPECT_EQ(o.blocks_held, 16u);
  EXPECT_EQ(o.blocks_delta, 0);
  o = irn.receive(0, 7);
  EXPECT_EQ(o.blocks_held, 16u);
  EXPECT_EQ(o.blocks_delta, 0);
  irn.close(0);
  EXPECT_EQ(irn.blocks_held(0), 0u);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnCost, InOrderOutOfOrderAndDuplicates) {
  // W = 16 bits, 4-bit words (slots 0-3, 4-7, 8-11, 12-15), 4-bit blocks.
  Irn irn(IrnParams(16, 4, 4, 2));
  irn.open(0, 100, 0);
  EXPECT_EQ(irn.blocks_held(0), 4u);  // 16 / 4
  // psn 100 == ePSN (slot 0): locate 1 (read word 0) + set 1 (write word 0); the next
  // zero (slot 1) is in the word already read -> 2 cycles, 1 read + 1 write.
  Outcome o = irn.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_EQ(o.blocks_held, 4u);
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_EQ(irn.head(0), 1u);
  // psn 103 (d = 2, slot 3): locate 1 + set 1 = 2 cycles; SACK of 103, cumulative 101.
  o = irn.receive(0, 103);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_EQ(o.sack_psn, 103u);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_TRUE(irn.received(0, 103));
  EXPECT_FALSE(irn.received(0, 102));
  EXPECT_TRUE(irn.received(0, 100));  // below ePSN
  // 103 again: the locate's read shows the bit -> duplicate, 1 cycle, re-ACK (no SACK).
  o = irn.receive(0, 103);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 1, 1, 0, 1);
  // 100 < ePSN: ePSN register compare, 0 cycles, re-ACK.
  o = irn.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.epsn, 101u);
  // 101 (slot 1): next slot 2 (102) missing, same word -> 2 cycles, ePSN 102.
  o = irn.receive(0, 101);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 102u);
  // 102 (slot 2): slot 3 (103) set, then slot 4 starts word 1: one more word read
  // (104 missing) -> locate 1 + set 1 + 1 = 3 cycles; reads 2 + writes 2 = 4 accesses.
  o = irn.receive(0, 102);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 3, 1, 0, 4);
  EXPECT_EQ(o.epsn, 104u);
  EXPECT_EQ(irn.head(0), 4u);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnCost, HeadScanWordByWord) {
  Irn irn(IrnParams(16, 4, 4, 1));
  irn.open(0, 0, 0);
  for (uint32_t p = 1; p <= 8; ++p) {
    Outcome o = irn.receive(0, p);
    EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
    EXPECT_COST(o, 2, 1, 0, 2);
    EXPECT_EQ(o.sack_psn, p);
  }
  // psn 0: slots 0..8 set; the scan stops on slot 9. Word changes at slots 4 and 8
  // -> k = 2: locate 1 + set 1 + 2 = 4 cycles; accesses 2 + 2*2 = 6.
  Outcome o = irn.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 0, 6);
  EXPECT_EQ(o.epsn, 9u);
  EXPECT_EQ(irn.head(0), 9u);
  // The passed slots were cleared: PSNs 16..24 (slots 0..8) are free again.
  for (uint32_t p = 16; p <= 24; ++p) EXPECT_FALSE(irn.received(0, p)) << p;
  o = irn.receive(0, 24);  // d = 15: last PSN of the window, slot 8
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  o = irn.receive(0, 25);  // d = 16: beyond
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnCost, FullTurnScan) {
  Irn irn(IrnParams(16, 4, 4, 1));
  irn.open(0, 0, 0);
  FeedRange(irn, 0, 1, 15);  // slots 1..15: the whole window but ePSN
  // psn 0: the scan goes once round (ePSN 16, head back to slot 0); word changes at
  // slots 4, 8, 12 and 0 (re-reading word 0) -> k = 4: 2 + 4 = 6 cycles, 2 + 8 accesses.
  Outcome o = irn.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 6, 1, 0, 10);
  EXPECT_EQ(o.epsn, 16u);
  EXPECT_EQ(irn.head(0), 0u);
  for (uint32_t p = 16; p < 32; ++p) EXPECT_FALSE(irn.received(0, p)) << p;
  EXPECT_EQ(irn.receive(0, 31).verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(irn.receive(0, 32).verdict, Verdict::kBeyondWindow);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnCost, OneWordWindowNeverScansFurther) {
  // W = 16 <= word 64: the whole window is one word, k = 0 even for a full turn.
  Irn irn(IrnParams(16, 64, 16, 1));
  irn.open(0, 0, 0);
  EXPECT_EQ(irn.blocks_held(0), 1u);
  FeedRange(irn, 0, 1, 15);
  Outcome o = irn.receive(0, 0);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 16u);
}

TEST(IrnCost, WindowNotAMultipleOfTheWord) {
  // W = 10, 4-bit words: slots 0-3 | 4-7 | 8-9; blocks of 4: ceil(10/4) = 3.
  Irn irn(IrnParams(10, 4, 4, 1));
  irn.open(0, 0, 0);
  EXPECT_EQ(irn.blocks_held(0), 3u);
  FeedRange(irn, 0, 1, 9);
  // psn 0: full turn, word changes at slots 4, 8 and 0 -> k = 3: 5 cycles; ePSN 10.
  Outcome o = irn.receive(0, 0);
  EXPECT_COST(o, 5, 1, 0, 8);
  EXPECT_EQ(o.epsn, 10u);
  EXPECT_EQ(irn.head(0), 0u);
  FeedRange(irn, 0, 10, 8);  // in order: ePSN 18, head slot 8 (word 2)
  EXPECT_EQ(irn.head(0), 8u);
  Feed(irn, 0, {19, 20, 21});  // slots 9, 0, 1
  // psn 18 (slot 8): slots 9, 0, 1 set, slot 2 clear. Word change 9 -> 0 only
  // (0 -> 1 -> 2 stay in word 0) -> k = 1: 3 cycles; ePSN 22.
  o = irn.receive(0, 18);
  EXPECT_COST(o, 3, 1, 0, 4);
  EXPECT_EQ(o.epsn, 22u);
  EXPECT_EQ(irn.head(0), 2u);
  EXPECT_EQ(irn.receive(0, 31).verdict, Verdict::kOutOfOrder);  // d = 9
  EXPECT_EQ(irn.receive(0, 32).verdict, Verdict::kBeyondWindow);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnCost, DefaultGeometryScan) {
  Irn irn{Irn::Params{}};  // 256 bits, 64-bit words
  irn.open(5, 0, 64);
  FeedRange(irn, 5, 1, 130);  // PSNs 1..130 out of order
  // psn 0: slots 0..130 set, scan stops on 131. Word changes at 64, 128 -> k = 2:
  // 2 + 2 = 4 cycles; ePSN 131.
  Outcome o = irn.receive(5, 0);
  EXPECT_COST(o, 4, 1, 0, 6);
  EXPECT_EQ(o.epsn, 131u);
  // 131 + 255 = 386 is the last PSN of the window.
  EXPECT_EQ(irn.receive(5, 386).verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(irn.receive(5, 387).verdict, Verdict::kBeyondWindow);
}

TEST(IrnDrop, BeyondWindowNacks) {
  Irn irn(IrnParams(16, 4, 4, 1));
  irn.open(0, 100, 0);
  Outcome o = irn.receive(0, 115);  // d = 15: last in-window PSN
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  // d = 16: dropped by address arithmetic, 0 cycles, no access; NACK (not tracked).
  o = irn.receive(0, 116);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_EQ(o.sack_psn, 0u);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.epsn, 100u);
  EXPECT_EQ(o.blocks_held, 4u);
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_FALSE(irn.received(0, 116));
  Feed(irn, 0, {100});
  o = irn.receive(0, 116);  // the window moved on by one
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnWrap, PsnWrapAt2To24) {
  Irn irn(IrnParams(16, 4, 4, 1));
  irn.open(0, 0xFFFFF8, 0);  // slots: 0xFFFFF8..0xFFFFFF -> 0..7, 0 -> 8, 1 -> 9, 2 -> 10
  Outcome o = irn.receive(0, 0x000002);  // d = 10
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_EQ(o.sack_psn, 2u);
  EXPECT_EQ(o.epsn, 0xFFFFF8u);
  EXPECT_EQ(irn.receive(0, 0x000007).verdict, Verdict::kOutOfOrder);    // d = 15
  EXPECT_EQ(irn.receive(0, 0x000008).verdict, Verdict::kBeyondWindow);  // d = 16
  FeedRange(irn, 0, 0xFFFFF8, 9);                                       // .. 0x000000
  EXPECT_EQ(irn.epsn(0), 1u);
  // psn 1 (slot 9): slot 10 (psn 2) set, slot 11 clear, both in word 2 -> 2 cycles; ePSN 3.
  o = irn.receive(0, 1);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 3u);
  // Behind ePSN across the wrap: duplicate at 0 cycles.
  o = irn.receive(0, 0xFFFFFA);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(irn.receive(0, 19).verdict, Verdict::kBeyondWindow);  // 3 + 16
  EXPECT_EQ(irn.receive(0, 18).verdict, Verdict::kOutOfOrder);
  EXPECT_TRUE(irn.received(0, 7));
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnBasic, ClosedReopenAndQpIsolation) {
  Irn irn(IrnParams(16, 4, 4, 3));
  Outcome o = irn.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kQpClosed);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(irn.receive(3, 0).verdict, Verdict::kQpClosed);
  EXPECT_THROW(irn.open(3, 0, 0), std::out_of_range);
  irn.open(0, 10, 0);
  irn.open(2, 0xFFFFFF, 0);
  Feed(irn, 0, {12, 13});
  Feed(irn, 2, {0, 2});
  EXPECT_FALSE(irn.received(2, 0xFFFFFF));
  EXPECT_TRUE(irn.received(2, 0));
  EXPECT_TRUE(irn.received(0, 12));
  EXPECT_EQ(irn.epsn(0), 10u);
  EXPECT_EQ(irn.epsn(2), 0xFFFFFFu);
  // Close qp 0: its bits are cleared; reopen starts clean.
  irn.close(0);
  EXPECT_FALSE(irn.is_open(0));
  EXPECT_EQ(irn.blocks_held(0), 0u);
  EXPECT_FALSE(irn.received(0, 12));
  ASSERT_TRUE(Invariants(irn));
  irn.open(0, 10, 0);
  EXPECT_FALSE(irn.received(0, 12));
  // Reopening an open QP resets it.
  Feed(irn, 2, {0xFFFFFF});
  EXPECT_EQ(irn.epsn(2), 1u);
  irn.open(2, 500, 0);
  EXPECT_EQ(irn.epsn(2), 500u);
  EXPECT_EQ(irn.head(2), 0u);
  EXPECT_FALSE(irn.received(2, 502));
  EXPECT_EQ(irn.blocks_held(2), 4u);
  ASSERT_TRUE(Invariants(irn));
}

TEST(IrnBasic, RejectsBadParams) {
  EXPECT_THROW(Irn(IrnParams(0, 64, 16, 1)), std::invalid_argument);
  EXPECT_THROW(Irn(IrnParams(1u << 22, 64, 16, 1)), std::invalid_argument);
  EXPECT_THROW(Irn(IrnParams(256, 0, 16, 1)), std::invalid_argument);
  EXPECT_THROW(Irn(IrnParams(256, 64, 0, 1)), std::invalid_argument);
  EXPECT_THROW(Irn(IrnParams(256, 64, 16, 0)), std::invalid_argument);
  Irn one(IrnParams(1, 1, 1, 1));  // a one-PSN window: in-order only
  one.open(0, 0, 0);
  EXPECT_EQ(one.receive(0, 1).verdict, Verdict::kBeyondWindow);
  Outcome o = one.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_TRUE(Invariants(one));
}

// =======================================================================================
// StaticBitmap hand cases
// =======================================================================================

TEST(StaticBitmapDefaults, ParamsAndBlocksHeld) {
  StaticBitmap sb{StaticBitmap::Params{}};
  EXPECT_STREQ(sb.name(), "static");
  EXPECT_EQ(sb.params().window_bits, 320u);
  EXPECT_EQ(sb.params().word_bits, 64u);
  EXPECT_EQ(sb.params().block_bits, 16u);
  EXPECT_EQ(sb.params().max_qps, 2048u);
  sb.open(0, 0, 64);
  // ORNIC §4.3: 320-bit QP bitmap, 16-bit blocks -> 20 blocks, all the time.
  EXPECT_EQ(sb.blocks_held(0), 20u);
  // OOO distance up to 319 is tracked; 320 is not.
  EXPECT_EQ(sb.receive(0, 319).verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(sb.receive(0, 320).verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(sb.receive(0, 0).blocks_held, 20u);
  EXPECT_TRUE(Invariants(sb));
}

TEST(StaticBitmapCost, CostAndFeedback) {
  StaticBitmap sb(StaticParams(8, 4, 16, 1));  // slots 0-3 | 4-7; ceil(8/16) = 1 block
  sb.open(0, 50, 0);
  EXPECT_EQ(sb.blocks_held(0), 1u);
  // 52 (d = 2): locate 1 + set 1 = 2 cycles; no feedback (no loss signal).
  Outcome o = sb.receive(0, 52);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.sack_psn, 0u);
  // 50 in order: slot 1 (51) missing -> 2 cycles, ACK.
  o = sb.receive(0, 50);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 51u);
  // 51: slot 2 (52) set, slot 3 (53) clear, word 0 -> 2 cycles; ePSN 53.
  o = sb.receive(0, 51);
  EXPECT_COST(o, 2, 1, 0, 2);
  EXPECT_EQ(o.epsn, 53u);
  // Duplicates: below ePSN 0 cycles; in the window 1 cycle; both re-ACKed.
  o = sb.receive(0, 52);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 0, 0, 0, 0);
  Feed(sb, 0, {57});  // d = 4, slot 7
  o = sb.receive(0, 57);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 1, 1, 0, 1);
  // 61 (d = 8): beyond the window, dropped silently, 0 cycles.
  o = sb.receive(0, 61);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  EXPECT_COST(o, 0, 0, 0, 0);
  Feed(sb, 0, {58, 59, 60});  // slots 0, 1, 2
  // 53..56 (slots 3..6), then 57..60 already there: 56's scan reads slot 7 (word 1),
  // then word change to slot 0, slots 0..2 set, slot 3 (61) clear -> k = 1: 3 cycles.
  Feed(sb, 0, {53, 54, 55});
  o = sb.receive(0, 56);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 3, 1, 0, 4);
  EXPECT_EQ(o.epsn, 61u);
  o = sb.receive(0, 61);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  ASSERT_TRUE(Invariants(sb));
}

TEST(StaticBitmapWrap, PsnWrapAt2To24) {
  StaticBitmap sb(StaticParams(32, 64, 16, 2));
  sb.open(1, 0xFFFFF0, 0);
  EXPECT_EQ(sb.blocks_held(1), 2u);
  EXPECT_EQ(sb.receive(1, 0x00000F).verdict, Verdict::kOutOfOrder);    // d = 31
  EXPECT_EQ(sb.receive(1, 0x000010).verdict, Verdict::kBeyondWindow);  // d = 32
  FeedRange(sb, 1, 0xFFFFF0, 16);
  EXPECT_EQ(sb.epsn(1), 0u);
  EXPECT_EQ(sb.receive(1, 0xFFFFFF).verdict, Verdict::kDuplicate);
  FeedRange(sb, 1, 0, 15);  // 0..14; 15 was there -> ePSN 16
  EXPECT_EQ(sb.epsn(1), 16u);
  EXPECT_EQ(sb.receive(1, 47).verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(sb.receive(1, 48).verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(sb.receive(0, 0).verdict, Verdict::kQpClosed);
  ASSERT_TRUE(Invariants(sb));
  EXPECT_THROW(StaticBitmap(StaticParams(0, 64, 16, 1)), std::invalid_argument);
  EXPECT_THROW(sb.open(2, 0, 0), std::out_of_range);
}

// =======================================================================================
// Property tests
// =======================================================================================

using oonic::test::WindowShuffle;  // testbench/common/arrival_orders.h

TEST(IrnProperty, WindowShuffleIsAPermutationWithinDistance) {
  std::mt19937_64 rng(3);
  for (uint32_t d : {0u, 1u, 7u, 63u}) {
    auto v = WindowShuffle(300, d, rng);
    std::vector<uint8_t> seen(300, 0);
    uint32_t lo = 0;
    for (uint32_t x : v) {
      ASSERT_LE(x, lo + d);
      ASSERT_FALSE(seen[x]);
      seen[x] = 1;
      while (lo < 300 && seen[lo]) ++lo;
    }
    EXPECT_EQ(lo, 300u);
  }
}

// ---- bitmap reference (IRN and static) -------------------------------------------------

// One QP of a bitmap core, by offset x = psn - start: received flags and the ePSN offset.
// Slot of offset y is y % W (the QP opens with head 0 at offset 0).
struct BmRef {
  uint32_t qp = 0, start = 0, count = 0, w = 0, wb = 0, blocks = 0;
  bool irn = true;                 // feedback flavour: IRN (SACK/NACK) or static
  std::vector<uint8_t> got;        // per offset
  std::vector<uint32_t> accepted;  // kInOrder/kOutOfOrder verdicts per offset
  std::vector<uint32_t> ooo;       // kOutOfOrder verdicts per offset (reference)
  std::vector<uint32_t> sacked;    // kSack feedbacks per offset (from the unit)
  uint32_t e = 0;

  void init(uint32_t qp_, uint32_t start_, uint32_t count_, uint32_t w_, uint32_t wb_,
            uint32_t block_, bool irn_) {
    qp = qp_, start = start_, count = count_, w = w_, wb = wb_, irn = irn_;
    blocks = (w + block_ - 1) / block_;
    got.assign(count, 0);
    accepted.assign(count, 0);
    ooo.assign(count, 0);
    sacked.assign(count, 0);
    e = 0;
  }
};

struct BmStats {
  uint64_t calls = 0, ooo = 0, dups = 0, beyond = 0, scans = 0, retx = 0, timeouts = 0;
};

// Predicts receive(offset x), applies it to the reference, calls the unit and compares.
// Returns the unit's Outcome (failures are EXPECTs; the caller checks HasFailure()).
template <class U>
Outcome BitmapStep(U& u, BmRef& r, uint32_t x, std::mt19937_64& rng, BmStats& st) {
  Verdict v = Verdict::kDuplicate;
  uint32_t cycles = 0, locate = 0, acc = 0;
  bool head = false;
  const uint32_t e0 = r.e;
  if (x < r.e) {
    v = Verdict::kDuplicate;
  } else if (x - r.e >= r.w) {
    v = Verdict::kBeyondWindow;
  } else {
    locate = cycles = acc = 1;
    if (x > r.e) {
      if (r.got[x]) {
        v = Verdict::kDuplicate;
      } else {
        v = Verdict::kOutOfOrder;
        r.got[x] = 1;
        cycles = acc = 2;
      }
    } else {
      v = Verdict::kInOrder;
      head = true;
      r.got[x] = 1;
      uint32_t e2 = r.e;
      while (e2 < r.count && r.got[e2]) ++e2;
      uint32_t k = 0;  // word starts passed (slot y % W on a word boundary)
      if (r.w > r.wb)
        for (uint32_t y = r.e + 1; y <= e2; ++y) k += ((y % r.w) % r.wb == 0) ? 1 : 0;
      cycles = 2 + k;
      acc = 2 + 2 * k;
      if (k > 0) ++st.scans;
      r.e = e2;
    }
  }
  if (v == Verdict::kInOrder || v == Verdict::kOutOfOrder) ++r.accepted[x];
  if (v == Verdict::kOutOfOrder) ++r.ooo[x], ++st.ooo;
  if (v == Verdict::kDuplicate) ++st.dups;
  if (v == Verdict::kBeyondWindow) ++st.beyond;
  ++st.calls;

  const uint32_t psn = psn_add(r.start, x);
  const Outcome o = u.receive(r.qp, psn);
  const auto ctx = [&] {
    return ::testing::Message() << u.name() << " qp " << r.qp << " start " << r.start << " offset "
                                << x << " ePSN offset before " << e0;
  };
  EXPECT_EQ(o.verdict, v) << ctx() << " got " << to_string(o.verdict);
  EXPECT_EQ(o.cycles, cycles) << ctx();
  EXPECT_EQ(o.locate_cycles, locate) << ctx();
  EXPECT_EQ(o.block_accesses, acc) << ctx();
  EXPECT_EQ(o.node_accesses, 0u) << ctx();
  EXPECT_EQ(o.head_advanced, head) << ctx();
  EXPECT_EQ(o.epsn, psn_add(r.start, r.e)) << ctx();
  EXPECT_EQ(u.epsn(r.qp), o.epsn) << ctx();
  EXPECT_EQ(o.blocks_held, r.blocks) << ctx();
  EXPECT_EQ(o.blocks_delta, 0) << ctx();
  EXPECT_FALSE(o.nak) << ctx();
  // Within the window nothing is ever dropped.
  if (x - std::min(x, e0) < r.w) {
    EXPECT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder ||
                o.verdict == Verdict::kDuplicate)
        << ctx() << " dropped inside the window: " << to_string(o.verdict);
  }
  Feedback fb = Feedback::kNone;
  switch (v) {
    case Verdict::kInOrder:
    case Verdict::kDuplicate:
      fb = Feedback::kAck;
      break;
    case Verdict::kOutOfOrder:
      fb = r.irn ? Feedback::kSack : Feedback::kNone;
      break;
    case Verdict::kBeyondWindow:
      fb = r.irn ? Feedback::kNack : Feedback::kNone;
      break;
    default:
      break;
  }
  EXPECT_EQ(o.feedback, fb) << ctx() << " got " << to_string(o.feedback);
  if (o.feedback == Feedback::kSack) {
    EXPECT_EQ(o.sack_psn, psn) << ctx();
    const uint32_t s = static_cast<uint32_t>(psn_diff(o.sack_psn, r.start));
    if (s < r.count) ++r.sacked[s];
  } else {
    EXPECT_EQ(o.sack_psn, 0u) << ctx();
  }
  // ePSN is a missing PSN right after a received one (the reference's scan makes it the
  // lowest missing; ExpectBitmapComplete checks every PSN at the end).
  EXPECT_TRUE(r.e == r.count || !r.got[r.e]) << ctx();
  EXPECT_TRUE(r.e == 0 || r.got[r.e - 1]) << ctx();
  std::string why;
  EXPECT_TRUE(u.check_invariants(&why)) << ctx() << ": " << why;
  // Spot-check the bitmap: two random PSNs of the window and one behind ePSN.
  for (int i = 0; i < 2; ++i) {
    const uint32_t y = r.e + static_cast<uint32_t>(rng() % r.w);
    const bool want = y < r.count && r.got[y];
    EXPECT_EQ(u.received(r.qp, psn_add(r.start, y)), want) << ctx() << " bit of offset " << y;
  }
  if (r.e > 0) {
    EXPECT_TRUE(u.received(r.qp, psn_add(r.start, rng() % r.e))) << ctx();
  }
  return o;
}

void ExpectBitmapComplete(const OrderingUnit& u, const BmRef& r) {
  EXPECT_EQ(r.e, r.count);
  EXPECT_EQ(u.epsn(r.qp), psn_add(r.start, r.count));
  EXPECT_EQ(u.blocks_held(r.qp), r.blocks);
  for (uint32_t x = 0; x < r.count; ++x) {
    ASSERT_EQ(r.accepted[x], 1u) << "offset " << x << " accepted " << r.accepted[x] << " times";
    ASSERT_LE(r.ooo[x], 1u);
    // IRN: the SACKed PSNs are exactly the out-of-order arrivals; static: no SACK at all.
    ASSERT_EQ(r.sacked[x], r.irn ? r.ooo[x] : 0u) << "offset " << x;
  }
}

// ---- static arrival orders ------------------------------------------------------------

struct Arrival {
  uint32_t x;
  bool copy;  // a network duplicate (never re-sent when dropped)
};

struct OrderFlow {
  BmRef ref;
  std::deque<Arrival> q;
  uint32_t dist = 0;
  uint64_t deliveries = 0, copies = 0, resent = 0;
};

struct BmCfg {
  uint32_t w = 0, wb = 0, block = 0, count = 0, dist = 0, start = 0, losses = 0;
};

BmCfg RandomBmCfg(std::mt19937_64& rng, uint32_t default_w, bool loss) {
  static const uint32_t kW[] = {0, 0, 0, 16, 33, 64, 100, 128};  // 0 = default width
  static const uint32_t kWb[] = {64, 64, 64, 32, 8, 1, 7, 100};
  static const uint32_t kBlock[] = {16, 16, 5, 64};
  BmCfg c;
  c.w = kW[rng() % 8];
  if (c.w == 0) c.w = default_w;
  c.wb = kWb[rng() % 8];
  c.block = kBlock[rng() % 4];
  c.dist = static_cast<uint32_t>(rng() % 64);  // OOO distance < 64
  c.count = 100 + static_cast<uint32_t>(rng() % 300);
  c.start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 400)  // wraps
                             : static_cast<uint32_t>(rng() & 0xFFFFFF);
  c.losses = loss ? 1 + static_cast<uint32_t>(rng() % 3) : 0;
  return c;
}

// Arrival order: window shuffle; lost first transmissions (one in the first 16 PSNs, as in
// ORNIC §4.3's loss scenario, the rest anywhere) are retransmitted after everything else.
OrderFlow MakeOrderFlow(uint32_t qp, const BmCfg& c, bool irn, std::mt19937_64& rng) {
  OrderFlow f;
  f.ref.init(qp, c.start, c.count, c.w, c.wb, c.block, irn);
  f.dist = c.dist;
  std::vector<uint32_t> order = WindowShuffle(c.count, c.dist, rng);
  std::vector<uint8_t> lost(c.count, 0);
  if (c.losses > 0) {
    lost[rng() % std::min<uint32_t>(16, c.count)] = 1;
    for (uint32_t i = 1; i < c.losses; ++i) lost[rng() % c.count] = 1;
  }
  for (uint32_t x : order)
    if (!lost[x]) f.q.push_back({x, false});
  for (uint32_t x : order)
    if (lost[x]) f.q.push_back({x, false});
  return f;
}

// Plays the flows' orders on one unit, interleaved at random. A first transmission dropped
// beyond the window is sent again after the rest of its queue (IRN: on the kNack; static:
// on the sender's timeout). With dup_permille, delivered first transmissions are
// duplicated by the network to a random later position.
template <class U>
void RunOrderFlows(U& u, std::vector<OrderFlow>& flows, uint32_t dup_permille, std::mt19937_64& rng,
                   BmStats& st) {
  std::vector<size_t> active;
  for (size_t i = 0; i < flows.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng() % active.size());
    OrderFlow& f = flows[active[ai]];
    if (f.q.empty()) {
      active[ai] = active.back();
      active.pop_back();
      continue;
    }
    const Arrival a = f.q.front();
    f.q.pop_front();
    if (++f.deliveries > 20ull * f.ref.count + 1000) {
      ADD_FAILURE() << "flow on qp " << f.ref.qp << " does not terminate";
      return;
    }
    const Verdict v = BitmapStep(u, f.ref, a.x, rng, st).verdict;
    if (::testing::Test::HasFailure()) return;
    if (v == Verdict::kBeyondWindow && !a.copy) {
      f.q.push_back({a.x, false});
      ++f.resent;
      ++st.retx;
    } else if (!a.copy && dup_permille > 0 && rng() % 1000 < dup_permille) {
      const size_t pos = static_cast<size_t>(rng() % (f.q.size() + 1));
      f.q.insert(f.q.begin() + static_cast<std::ptrdiff_t>(pos), Arrival{a.x, true});
      ++f.copies;
    }
  }
}

// Runs `seeds` seeds of 1..max_flows QPs on one unit of type U (W and word per seed).
template <class U, class MakeParamsFn>
void OrderProperty(uint64_t seed0, uint64_t seeds, bool loss, uint32_t dup_permille,
                   uint32_t max_flows, uint32_t default_w, bool irn, MakeParamsFn make,
                   BmStats& st) {
  for (uint64_t seed = seed0; seed < seed0 + seeds; ++seed) {
    std::mt19937_64 rng(seed);
    const BmCfg c0 = RandomBmCfg(rng, default_w, loss);
    const uint32_t nflows = 1 + static_cast<uint32_t>(rng() % max_flows);
    const uint32_t max_qps = nflows + 1;
    U u(make(c0.w, c0.wb, c0.block, max_qps));
    std::vector<OrderFlow> flows;
    for (uint32_t i = 0; i < nflows; ++i) {
      BmCfg c = RandomBmCfg(rng, default_w, loss);
      c.w = c0.w, c.wb = c0.wb, c.block = c0.block;                     // one geometry per unit
      const uint32_t qp = (i + static_cast<uint32_t>(seed)) % max_qps;  // one slot unused
      flows.push_back(MakeOrderFlow(qp, c, irn, rng));
      u.open(qp, c.start, 64);
    }
    RunOrderFlows(u, flows, dup_permille, rng, st);
    ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
    for (const OrderFlow& f : flows) {
      ExpectBitmapComplete(u, f.ref);
      EXPECT_EQ(f.deliveries, f.ref.count + f.copies + f.resent) << "seed " << seed;
      // No loss: psn - ePSN <= D, so with D < W nothing is ever beyond the window and
      // every packet is delivered exactly once (plus network copies).
      if (!loss && f.dist < f.ref.w) {
        EXPECT_EQ(f.resent, 0u) << "seed " << seed;
      }
    }
    for (const OrderFlow& f : flows) u.close(f.ref.qp);
    EXPECT_TRUE(Invariants(u));
    ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
  }
}

TEST(IrnProperty, WindowShuffleNoLoss) {
  BmStats st;
  OrderProperty<Irn>(1, 1200, false, 0, 2, 256, true, IrnParams, st);
  EXPECT_GT(st.ooo, 0u);
  EXPECT_GT(st.scans, 0u);
  EXPECT_EQ(st.dups, 0u);
}

TEST(IrnProperty, LossRetransmittedLaterWithDuplicates) {
  BmStats st;
  OrderProperty<Irn>(10001, 800, true, 30, 3, 256, true, IrnParams, st);
  EXPECT_GT(st.beyond, 0u);  // the head stuck on a loss pushes late packets out
  EXPECT_GT(st.retx, 0u);
  EXPECT_GT(st.dups, 0u);
}

TEST(StaticBitmapProperty, WindowShuffleNoLoss) {
  BmStats st;
  OrderProperty<StaticBitmap>(20001, 800, false, 0, 2, 320, false, StaticParams, st);
  EXPECT_GT(st.ooo, 0u);
  EXPECT_EQ(st.dups, 0u);
}

TEST(StaticBitmapProperty, LossRetransmittedLaterWithDuplicates) {
  BmStats st;
  OrderProperty<StaticBitmap>(30001, 600, true, 30, 3, 320, false, StaticParams, st);
  EXPECT_GT(st.beyond, 0u);
  EXPECT_GT(st.dups, 0u);
}

// ---- sender-driven runs -----------------------------------------------------------------

// One step a time: the sender may put one packet on the wire; the network delivers one of
// the first D+1 packets on the wire (the window shuffle applied to the sender's stream)
// once more than D are queued or the sender is idle, dropping it with probability
// loss_permille / 1000; the receiver's Outcome reaches the sender `lag` steps later. When
// everything is quiet and the sender has not finished, it times out.
struct Net {
  uint32_t dist = 0, loss_permille = 0, lag = 0;
};

// `deliver(x)` hands offset x to the receiver (and checks it) and returns its Outcome.
template <class Sender, class Deliver>
uint64_t RunSender(uint32_t count, Sender& s, const Net& net, std::mt19937_64& rng,
                   Deliver deliver) {
  struct Fb {
    uint64_t due;
    Outcome o;
    uint32_t x;
  };
  std::vector<uint32_t> wire;
  std::deque<Fb> fb;
  uint64_t deliveries = 0;
  const uint64_t limit = 400ull * count + 10000;
  for (uint64_t now = 0;; ++now) {
    while (!fb.empty() && fb.front().due <= now) {
      s.on_feedback(fb.front().o, fb.front().x);
      fb.pop_front();
    }
    uint32_t x = 0;
    const bool pushed = s.next(&x);
    if (pushed) wire.push_back(x);
    if (!wire.empty() && (wire.size() > net.dist || !pushed)) {
      const size_t n = std::min<size_t>(wire.size(), net.dist + 1);
      const size_t i = static_cast<size_t>(rng() % n);
      x = wire[i];
      wire.erase(wire.begin() + static_cast<std::ptrdiff_t>(i));
      if (net.loss_permille == 0 || rng() % 1000 >= net.loss_permille) {
        const Outcome o = deliver(x);
        if (::testing::Test::HasFailure()) return deliveries;
        fb.push_back({now + net.lag, o, x});
        if (++deliveries > limit) {
          ADD_FAILURE() << "the sender does not finish";
          return deliveries;
        }
      }
    } else if (!pushed && wire.empty() && fb.empty()) {
      if (s.complete()) return deliveries;
      s.on_timeout();
    }
  }
}

// Go-back-N sender: sends in order; on kNak (carrying ePSN) goes back to it; on timeout
// goes back to the cumulative ACK point.
struct GbnSender {
  uint32_t start = 0, count = 0, snd = 0, una = 0;
  uint64_t go_backs = 0, timeouts = 0;
  uint32_t off(uint32_t psn) const { return static_cast<uint32_t>(psn_diff(psn, start)); }
  bool next(uint32_t* x) {
    if (snd >= count) return false;
    *x = snd++;
    return true;
  }
  void on_feedback(const Outcome& o, uint32_t) {
    una = std::max(una, off(o.epsn));
    if (o.feedback == Feedback::kNak) {
      snd = off(o.epsn);
      ++go_backs;
    }
  }
  void on_timeout() {
    snd = una;
    ++timeouts;
  }
  bool complete() const { return una == count; }
};

// Selective-repeat sender (IRN): new packets only while snd < una + W when capped (IRN's
// BDP-FC); on kSack every hole between the cumulative ACK and the SACKed PSN not yet
// SACKed is retransmitted once; on kNack the dropped PSN is sent again; on timeout every
// unSACKed PSN from the cumulative ACK on is sent again.
struct SrSender {
  uint32_t start = 0, count = 0, w = 0;
  bool capped = true;
  uint32_t snd = 0, una = 0, scanned = 0;
  std::vector<uint8_t> sacked, retx_done;
  std::deque<uint32_t> retx;
  uint64_t retransmits = 0, timeouts = 0;
  void init(uint32_t start_, uint32_t count_, uint32_t w_, bool capped_) {
    start = start_, count = count_, w = w_, capped = capped_;
    sacked.assign(count, 0);
    retx_done.assign(count, 0);
  }
  uint32_t off(uint32_t psn) const { return static_cast<uint32_t>(psn_diff(psn, start)); }
  bool next(uint32_t* x) {
    while (!retx.empty()) {
      const uint32_t y = retx.front();
      retx.pop_front();
      if (y >= una && !sacked[y]) {
        *x = y;
        ++retransmits;
        return true;
      }
    }
    if (snd < count && (!capped || snd < una + w)) {
      *x = snd++;
      return true;
    }
    return false;
  }
  void on_feedback(const Outcome& o, uint32_t x) {
    una = std::max(una, off(o.epsn));
    if (o.feedback == Feedback::kSack) {
      const uint32_t s = off(o.sack_psn);
      sacked[s] = 1;
      for (uint32_t y = std::max(una, scanned); y < s; ++y) {
        if (!sacked[y] && !retx_done[y]) {
          retx_done[y] = 1;
          retx.push_back(y);
        }
      }
      scanned = std::max(scanned, s);
    } else if (o.feedback == Feedback::kNack) {
      retx.push_back(x);
    }
  }
  void on_timeout() {
    ++timeouts;
    for (uint32_t y = una; y < snd; ++y)
      if (!sacked[y]) retx.push_back(y);
  }
  bool complete() const { return una == count; }
};

Net RandomNet(std::mt19937_64& rng, bool loss) {
  Net n;
  static const uint32_t kD[] = {0, 1, 2, 3, 4, 8, 16, 63};
  n.dist = kD[rng() % 8];
  if (rng() % 4 == 0) n.dist = static_cast<uint32_t>(rng() % 64);
  n.loss_permille = loss ? static_cast<uint32_t>(1 + rng() % 50) : 0;  // up to 5 %
  n.lag = static_cast<uint32_t>(rng() % 12);
  return n;
}

TEST(GbnProperty, InOrderStreamNeverNaks) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const uint32_t count = 50 + static_cast<uint32_t>(rng() % 300);
    const uint32_t start = static_cast<uint32_t>(0xFFFFFF - rng() % 400);
    Gbn g(GbnParams(1));
    g.open(0, start, 0);
    GbnSender s;
    s.start = start, s.count = count;
    Net net;  // D = 0, no loss
    net.lag = static_cast<uint32_t>(rng() % 12);
    uint64_t bad = 0;
    const uint64_t n = RunSender(count, s, net, rng, [&](uint32_t x) {
      const Outcome o = g.receive(0, psn_add(start, x));
      bad += o.verdict != Verdict::kInOrder || o.feedback != Feedback::kAck;
      return o;
    });
    EXPECT_EQ(n, count);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(s.go_backs, 0u);
    EXPECT_EQ(s.timeouts, 0u);
    EXPECT_EQ(g.epsn(0), psn_add(start, count));
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
}

TEST(GbnProperty, GoBackNSenderDeliversEverything) {
  uint64_t naks = 0, dups = 0, gaps = 0, deliveries = 0, sent = 0, timeouts = 0;
  for (uint64_t seed = 100001; seed <= 101200; ++seed) {
    std::mt19937_64 rng(seed);
    const bool loss = seed % 2 == 0;
    const Net net = RandomNet(rng, loss);
    const uint32_t count = 50 + static_cast<uint32_t>(rng() % 200);
    const uint32_t start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 300)
                                            : static_cast<uint32_t>(rng() & 0xFFFFFF);
    const uint32_t qp = static_cast<uint32_t>(rng() % 4);
    Gbn g(GbnParams(4));
    g.open(qp, start, 0);
    GbnSender s;
    s.start = start, s.count = count;
    // Reference: ePSN offset, NAK armed, acceptances per offset.
    uint32_t e = 0;
    bool nak_sent = false;
    std::vector<uint32_t> accepted(count, 0);
    uint64_t seed_naks = 0;
    const uint64_t n = RunSender(count, s, net, rng, [&](uint32_t x) {
      const Outcome o = g.receive(qp, psn_add(start, x));
      const auto ctx = [&] {
        return ::testing::Message() << "seed " << seed << " offset " << x << " ePSN offset " << e;
      };
      Verdict v;
      Feedback fb;
      if (x == e) {
        v = Verdict::kInOrder, fb = Feedback::kAck;
        ++accepted[x];
        ++e;
        nak_sent = false;
      } else if (x < e) {
        v = Verdict::kDuplicate, fb = Feedback::kAck;
        ++dups;
      } else {
        v = Verdict::kUntrackable, fb = nak_sent ? Feedback::kNone : Feedback::kNak;
        nak_sent = true;
        ++gaps;
      }
      EXPECT_EQ(o.verdict, v) << ctx() << " got " << to_string(o.verdict);
      EXPECT_EQ(o.feedback, fb) << ctx() << " got " << to_string(o.feedback);
      EXPECT_EQ(o.epsn, psn_add(start, e)) << ctx();  // a NAK carries the ePSN
      EXPECT_EQ(o.head_advanced, v == Verdict::kInOrder) << ctx();
      EXPECT_COST(o, 0, 0, 0, 0);
      EXPECT_EQ(o.blocks_held, 0u);
      EXPECT_EQ(g.nak_outstanding(qp), nak_sent) << ctx();
      if (o.feedback == Feedback::kNak) ++seed_naks;
      std::string why;
      EXPECT_TRUE(g.check_invariants(&why)) << ctx() << ": " << why;
      return o;
    });
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    // Every accepted packet was in order (checked per call); each PSN accepted once.
    EXPECT_EQ(e, count);
    EXPECT_EQ(g.epsn(qp), psn_add(start, count));
    for (uint32_t x = 0; x < count; ++x) ASSERT_EQ(accepted[x], 1u) << "offset " << x;
    if (net.dist == 0 && !loss) {
      EXPECT_EQ(seed_naks, 0u);
      EXPECT_EQ(n, count);
    }
    naks += seed_naks;
    deliveries += n;
    sent += count;
    timeouts += s.timeouts;
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  // Reordering and loss make the in-order NIC go back N: NAKs, dropped gaps, duplicates.
  EXPECT_GT(naks, 0u);
  EXPECT_GT(gaps, naks);
  EXPECT_GT(dups, 0u);
  EXPECT_GT(timeouts, 0u);  // a lost tail packet is recovered by the timeout only
  EXPECT_GT(deliveries, sent);
}

TEST(GbnProperty, ReorderingAloneCollapsesGoBackN) {
  // No loss, OOO distance 8: reordering events cost go-backs, so far more packets are
  // delivered than the flow holds (ORNIC's "in-order NIC collapses under reordering").
  uint64_t deliveries = 0, sent = 0, go_backs = 0;
  for (uint64_t seed = 200001; seed <= 200100; ++seed) {
    std::mt19937_64 rng(seed);
    Net net;
    net.dist = 8;
    net.lag = 4;
    const uint32_t count = 200;
    Gbn g(GbnParams(1));
    g.open(0, 0, 0);
    GbnSender s;
    s.count = count;
    deliveries += RunSender(count, s, net, rng, [&](uint32_t x) { return g.receive(0, x); });
    EXPECT_EQ(g.epsn(0), count);
    sent += count;
    go_backs += s.go_backs;
  }
  EXPECT_GT(go_backs, 100u * 10);
  EXPECT_GT(deliveries, 3 * sent);
}

TEST(IrnProperty, SelectiveRepeatSenderCompletes) {
  BmStats st;
  uint64_t retransmits = 0, timeouts = 0, beyond_uncapped = 0, dups_no_loss = 0;
  for (uint64_t seed = 300001; seed <= 301000; ++seed) {
    std::mt19937_64 rng(seed);
    const bool loss = seed % 3 != 0;
    const Net net = RandomNet(rng, loss);
    static const uint32_t kW[] = {256, 256, 64, 33, 16};
    static const uint32_t kWb[] = {64, 64, 8, 1, 100};
    const uint32_t w = kW[rng() % 5], wb = kWb[rng() % 5];
    const bool capped = rng() % 3 != 0;
    const uint32_t count = 100 + static_cast<uint32_t>(rng() % 400);
    const uint32_t start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 400)
                                            : static_cast<uint32_t>(rng() & 0xFFFFFF);
    Irn irn(IrnParams(w, wb, 16, 2));
    irn.open(1, start, 0);
    BmRef r;
    r.init(1, start, count, w, wb, 16, true);
    SrSender s;
    s.init(start, count, w, capped);
    const uint64_t beyond_before = st.beyond, dups_before = st.dups;
    RunSender(count, s, net, rng, [&](uint32_t x) { return BitmapStep(irn, r, x, rng, st); });
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectBitmapComplete(irn, r);
    // IRN's BDP-FC: a sender capped at the bitmap size never overruns the window.
    if (capped) {
      EXPECT_EQ(st.beyond, beyond_before) << "seed " << seed;
    } else {
      beyond_uncapped += st.beyond - beyond_before;
    }
    if (!loss && net.dist > 0) dups_no_loss += st.dups - dups_before;
    retransmits += s.retransmits;
    timeouts += s.timeouts;
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.ooo, 0u);
  EXPECT_GT(retransmits, 0u);
  EXPECT_GT(timeouts, 0u);
  EXPECT_GT(beyond_uncapped, 0u);  // recovered through kNack
  EXPECT_GT(dups_no_loss, 0u);     // every OOO packet is a loss signal: spurious resends
}

}  // namespace
