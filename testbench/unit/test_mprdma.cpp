// Unit tests of the MP-RDMA receiver core (model/ordering/mprdma.h).
//
// Hand cases pin the cost model of receive() exactly; every expected number is derived
// in a comment from the header's table:
//   locate 1 (slot read) | slot write 1 | HoL scan ceil(S / W), S = slots examined from
//   the head up to and including the first Empty slot (L if none) | block accesses:
//   locate read 1 + write 1 + 1 per scan cycle + 1 masked clear when the head moves |
//   below rcv_nxt, beyond the window, closed QP: 0 cycles | duplicate in window: 1 cycle.
// and the header's documented choices: per-message head (default) vs per-packet head,
// kInOrder = the packet filled the lowest missing PSN, NACK names the first Empty slot.
//
// Property tests replay thousands of seeded arrival orders (windowed shuffles, messages of
// 1..8 packets, losses, drops beyond L and a sender that resends them) against an
// independent reference (per-PSN received flags and message boundaries), checking every
// outcome field, the completion counters and the invariants after every call.
#include <gtest/gtest.h>

#include "testbench/common/arrival_orders.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/ordering/mprdma.h"

namespace {

using oonic::ordering::Feedback;
using oonic::ordering::MpRdma;
using oonic::ordering::Outcome;
using oonic::ordering::PacketMeta;
using oonic::ordering::Verdict;
using oonic::wire::psn_add;
using oonic::wire::psn_diff;
using Slot = MpRdma::Slot;
using HeadAdvance = MpRdma::HeadAdvance;

MpRdma::Params MakeParams(uint32_t l = 64, uint32_t qps = 4, uint32_t w = 1,
                          HeadAdvance mode = HeadAdvance::kPerMessage) {
  MpRdma::Params p;
  p.slots = l;
  p.max_qps = qps;
  p.scan_slots_per_cycle = w;
  p.head_advance = mode;
  return p;
}

PacketMeta Meta(bool last, bool completion = false) {
  PacketMeta m;
  m.last = last;
  m.completion = completion;
  return m;
}
const PacketMeta kMid = Meta(false);         // Received
const PacketMeta kTail = Meta(true);         // Tail
const PacketMeta kTailC = Meta(true, true);  // Tail-with-completion

::testing::AssertionResult Invariants(const MpRdma& mp) {
  std::string why;
  if (mp.check_invariants(&why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "invariant violated: " << why;
}

// cycles, locate_cycles, block_accesses (node_accesses is always 0 for MP-RDMA).
#define EXPECT_COST(o, cyc, loc, ba)                          \
  do {                                                        \
    EXPECT_EQ((o).cycles, static_cast<uint32_t>(cyc));        \
    EXPECT_EQ((o).locate_cycles, static_cast<uint32_t>(loc)); \
    EXPECT_EQ((o).block_accesses, static_cast<uint32_t>(ba)); \
    EXPECT_EQ((o).node_accesses, 0u);                         \
  } while (0)

#define EXPECT_SACK(o, psn, aack)                        \
  do {                                                   \
    EXPECT_EQ((o).feedback, Feedback::kSack);            \
    EXPECT_EQ((o).sack_psn, static_cast<uint32_t>(psn)); \
    EXPECT_EQ((o).epsn, static_cast<uint32_t>(aack));    \
  } while (0)

// ---------------------------------------------------------------------------------------
// Hand cases: costs (per-message head, the default)
// ---------------------------------------------------------------------------------------

TEST(MpRdmaCost, ThreePacketMessageArriving201) {
  MpRdma mp(MakeParams());
  mp.open(0, 100, 0);
  ASSERT_TRUE(Invariants(mp));
  // Message 100, 101, 102 (Tail). psn 102 first: d = 2, first_empty 0 -> out of order.
  //   locate 1 + write 1 + scan: slot 0 Empty (S = 1) 1 = 3 cycles;
  //   block accesses: read + write + 1 scan read = 3.
  Outcome o = mp.receive(0, 102, kTail);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 3);
  EXPECT_SACK(o, 102, 100);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_EQ(o.blocks_held, 8u);  // 2 * 64 bits / 16
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_EQ(mp.slot(0, 2), Slot::kTail);
  EXPECT_EQ(mp.lowest_missing(0), 100u);
  ASSERT_TRUE(Invariants(mp));
  // psn 100: d = 0 = first_empty -> in order (lowest missing PSN), but no Tail reached.
  //   locate 1 + write 1 + scan: slot 0 Received, slot 1 Empty (S = 2) 2 = 4 cycles;
  //   block accesses: 2 + 2 = 4. rcv_nxt stays 100 (per-message head).
  o = mp.receive(0, 100, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 4);
  EXPECT_SACK(o, 100, 100);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_EQ(mp.lowest_missing(0), 101u);
  EXPECT_EQ(mp.messages_completed(0), 0u);
  ASSERT_TRUE(Invariants(mp));
  // psn 101: d = 1 = first_empty -> in order; completes the message.
  //   locate 1 + write 1 + scan: R, R, Tail, Empty (S = 4) 4 = 6 cycles;
  //   block accesses: 2 + 4 scan reads + 1 masked clear = 7. rcv_nxt 103, head slot 3.
  o = mp.receive(0, 101, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 6, 1, 7);
  EXPECT_SACK(o, 101, 103);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(mp.epsn(0), 103u);
  EXPECT_EQ(mp.head_ptr(0), 3u);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  EXPECT_EQ(mp.cqes(0), 0u);
  EXPECT_EQ(mp.lowest_missing(0), 103u);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(mp.slot(0, i), Slot::kEmpty) << i;
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCost, InOrderMessage) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  // psn 0: 1 + 1 + scan R,E (2) = 4 cycles, 4 block accesses; in order, no head move.
  Outcome o = mp.receive(0, 0, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 4);
  EXPECT_EQ(o.epsn, 0u);
  // psn 1: 1 + 1 + scan R,R,E (3) = 5 cycles, 5 block accesses; still in order.
  o = mp.receive(0, 1, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 5, 1, 5);
  EXPECT_EQ(o.epsn, 0u);
  // psn 2 (Tail): 1 + 1 + scan R,R,T,E (4) = 6 cycles; 2 + 4 + 1 clear = 7 accesses.
  o = mp.receive(0, 2, kTail);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 6, 1, 7);
  EXPECT_EQ(o.epsn, 3u);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCost, SeveralMessagesCompleteInOneScan) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  // Messages [0] Tail, [1, 2] Tail-with-completion, [3] Tail-with-completion, arriving
  // 3, 2, 1 (each: 1 + 1 + scan head Empty (1) = 3 cycles), then 0.
  for (uint32_t p : {3u, 2u, 1u}) {
    const Outcome o = mp.receive(0, p, p == 1 ? kMid : kTailC);
    EXPECT_EQ(o.verdict, Verdict::kOutOfOrder) << p;
    EXPECT_COST(o, 3, 1, 3);
    EXPECT_EQ(o.epsn, 0u);
  }
  EXPECT_EQ(mp.slot(0, 1), Slot::kReceived);
  EXPECT_EQ(mp.slot(0, 2), Slot::kTailCompletion);
  // psn 0: 1 + 1 + scan T, R, TC, TC, E (S = 5) 5 = 7 cycles; 2 + 5 + 1 clear = 8 accesses.
  // Three messages complete, two of them with a CQE; rcv_nxt 4.
  const Outcome o = mp.receive(0, 0, kTail);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 7, 1, 8);
  EXPECT_SACK(o, 0, 4);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(mp.messages_completed(0), 3u);
  EXPECT_EQ(mp.cqes(0), 2u);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCost, PartialMessageStaysBehindCompletedOnes) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  // [0] Tail, [1, 2, 3] Tail at 3. Receive 1, 2 (3 missing) then 0.
  mp.receive(0, 1, kMid);
  mp.receive(0, 2, kMid);
  // psn 0: scan T, R, R, E (S = 4): 1 + 1 + 4 = 6 cycles; head moves past message [0]
  // only (1 slot), the partial message stays: rcv_nxt 1, first_empty 2 -> lowest missing 3.
  const Outcome o = mp.receive(0, 0, kTail);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 6, 1, 7);
  EXPECT_EQ(o.epsn, 1u);
  EXPECT_EQ(mp.lowest_missing(0), 3u);
  EXPECT_EQ(mp.slot(0, 0), Slot::kReceived);
  EXPECT_EQ(mp.slot(0, 1), Slot::kReceived);
  EXPECT_EQ(mp.slot(0, 2), Slot::kEmpty);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  ASSERT_TRUE(Invariants(mp));
  // psn 5 (d = 4 from rcv_nxt 1): out of order; scan from the head re-reads the partial
  // message: R, R, E (S = 3): 1 + 1 + 3 = 5 cycles, 5 accesses, no head move.
  Outcome o2 = mp.receive(0, 5, kTail);
  EXPECT_EQ(o2.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o2, 5, 1, 5);
  EXPECT_FALSE(o2.head_advanced);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCost, Duplicates) {
  MpRdma mp(MakeParams());
  mp.open(0, 100, 0);
  mp.receive(0, 105, kMid);
  // In the window, slot already Received: the locate read alone -> 1 cycle, 1 access.
  // The duplicate's metadata is ignored (slot stays Received); it is SACKed again.
  Outcome o = mp.receive(0, 105, kTailC);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 1, 1, 1);
  EXPECT_SACK(o, 105, 100);
  EXPECT_EQ(mp.slot(0, 5), Slot::kReceived);
  // Below rcv_nxt: decided from the register, 0 cycles, still SACKed with AACK.
  mp.receive(0, 100, kTail);  // rcv_nxt 101
  o = mp.receive(0, 100, kTail);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0);
  EXPECT_SACK(o, 100, 101);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_EQ(o.blocks_held, 8u);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCost, ScanWidth) {
  // W = 4: the 2, 0, 1 case scans 1, 2 and 4 slots -> 1 cycle each.
  {
    MpRdma mp(MakeParams(64, 1, 4));
    mp.open(0, 0, 0);
    Outcome o = mp.receive(0, 2, kTail);
    EXPECT_COST(o, 3, 1, 3);  // 1 + 1 + ceil(1/4)
    o = mp.receive(0, 0, kMid);
    EXPECT_COST(o, 3, 1, 3);  // 1 + 1 + ceil(2/4)
    o = mp.receive(0, 1, kMid);
    EXPECT_COST(o, 3, 1, 4);  // 1 + 1 + ceil(4/4); + 1 clear
    EXPECT_EQ(o.epsn, 3u);
  }
  // W = 3: S = 4 -> 2 scan cycles.
  {
    MpRdma mp(MakeParams(64, 1, 3));
    mp.open(0, 0, 0);
    mp.receive(0, 2, kTail);
    mp.receive(0, 0, kMid);
    const Outcome o = mp.receive(0, 1, kMid);
    EXPECT_COST(o, 4, 1, 5);  // 1 + 1 + ceil(4/3); 2 + 2 + 1 clear
  }
  // A full window: slots 1..63 as one-packet messages, then 0. S = L = 64 (no Empty slot):
  // W = 1 -> 1 + 1 + 64 = 66 cycles; W = 64 -> 1 + 1 + 1 = 3 cycles. 64 messages complete.
  for (uint32_t w : {1u, 64u, 100u}) {
    MpRdma mp(MakeParams(64, 1, w));
    mp.open(0, 0, 0);
    for (uint32_t p = 63; p >= 1; --p)
      ASSERT_EQ(mp.receive(0, p, kTail).verdict, Verdict::kOutOfOrder);
    EXPECT_EQ(mp.lowest_missing(0), 0u);
    const Outcome o = mp.receive(0, 0, kTail);
    const uint32_t scan = w == 1 ? 64 : 1;
    EXPECT_COST(o, 2 + scan, 1, 2 + scan + 1);
    EXPECT_EQ(o.epsn, 64u);
    EXPECT_EQ(mp.head_ptr(0), 0u);  // moved a whole turn
    EXPECT_EQ(mp.messages_completed(0), 64u);
    ASSERT_TRUE(Invariants(mp));
  }
}

// ---------------------------------------------------------------------------------------
// Hand cases: drops and NACKs
// ---------------------------------------------------------------------------------------

TEST(MpRdmaDrop, ExactlyAtRcvNxtPlusL) {
  MpRdma mp(MakeParams());
  mp.open(0, 1000, 0);
  // psn 1063 = rcv_nxt + L - 1: accepted (1 + 1 + scan head Empty 1 = 3 cycles).
  Outcome o = mp.receive(0, 1063, kTail);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 3);
  EXPECT_SACK(o, 1063, 1000);
  EXPECT_EQ(mp.slot(0, 63), Slot::kTail);
  // psn 1064 = rcv_nxt + L: dropped by the address arithmetic, 0 cycles, NACK naming the
  // lost PSN = rcv_nxt + first_empty = 1000.
  o = mp.receive(0, 1064, kTail);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_COST(o, 0, 0, 0);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_EQ(o.sack_psn, 1000u);
  EXPECT_EQ(o.epsn, 1000u);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_EQ(o.blocks_held, 8u);
  EXPECT_EQ(o.blocks_delta, 0);
  // Every beyond-window packet is NACKed (no rate limiting).
  o = mp.receive(0, 2000, kMid);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_EQ(o.sack_psn, 1000u);
  ASSERT_TRUE(Invariants(mp));
  // Once the head moved by one, 1064 is rcv_nxt + L - 1 and fits.
  o = mp.receive(0, 1000, kTail);  // scan T, E: 1 + 1 + 2 = 4 cycles, + 1 clear
  EXPECT_COST(o, 4, 1, 5);
  EXPECT_EQ(o.epsn, 1001u);
  o = mp.receive(0, 1064, kTail);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(mp.receive(0, 1065, kTail).verdict, Verdict::kBeyondWindow);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaDrop, NackNamesTheFirstEmptySlot) {
  // Per-message head: message 0..3 (Tail 3); 0 and 1 arrive, 2 is lost.
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  mp.receive(0, 0, kMid);
  mp.receive(0, 1, kMid);
  EXPECT_EQ(mp.epsn(0), 0u);
  EXPECT_EQ(mp.lowest_missing(0), 2u);
  EXPECT_EQ(mp.receive(0, 63, kTail).verdict, Verdict::kOutOfOrder);  // d = 63
  // psn 64 (d = L from rcv_nxt 0): dropped; NACK names PSN 2 (the hole), AACK 0.
  Outcome o = mp.receive(0, 64, kTail);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_EQ(o.sack_psn, 2u);
  EXPECT_EQ(o.epsn, 0u);
  ASSERT_TRUE(Invariants(mp));

  // Per-packet head: the same arrivals move rcv_nxt to 2, so the window is 2..65.
  MpRdma pp(MakeParams(64, 1, 1, HeadAdvance::kPerPacket));
  pp.open(0, 0, 0);
  pp.receive(0, 0, kMid);
  pp.receive(0, 1, kMid);
  EXPECT_EQ(pp.epsn(0), 2u);
  EXPECT_EQ(pp.receive(0, 65, kTail).verdict, Verdict::kOutOfOrder);  // d = 63
  o = pp.receive(0, 66, kTail);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.sack_psn, 2u);
  EXPECT_EQ(o.epsn, 2u);
  ASSERT_TRUE(Invariants(pp));
}

TEST(MpRdmaDrop, ClosedQp) {
  MpRdma mp(MakeParams(64, 2));
  EXPECT_FALSE(mp.is_open(0));
  Outcome o = mp.receive(0, 0, kTail);
  EXPECT_EQ(o.verdict, Verdict::kQpClosed);
  EXPECT_EQ(o.feedback, Feedback::kNone);
  EXPECT_COST(o, 0, 0, 0);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(mp.receive(99, 0).verdict, Verdict::kQpClosed);  // out-of-range qp
  EXPECT_EQ(mp.blocks_held(0), 0u);
  EXPECT_EQ(mp.blocks_held(99), 0u);
  EXPECT_THROW(mp.open(2, 0, 0), std::out_of_range);
  ASSERT_TRUE(Invariants(mp));
}

// ---------------------------------------------------------------------------------------
// Hand cases: completions, metadata, head modes
// ---------------------------------------------------------------------------------------

TEST(MpRdmaCompletion, TailWithCompletionCountsCqe) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  // psn 0, Tail-with-completion: 1 + 1 + scan TC, E (2) = 4 cycles; 1 message, 1 CQE.
  Outcome o = mp.receive(0, 0, kTailC);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 5);
  EXPECT_EQ(o.epsn, 1u);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  EXPECT_EQ(mp.cqes(0), 1u);
  // psn 1, Tail: 1 message, no CQE.
  mp.receive(0, 1, kTail);
  EXPECT_EQ(mp.messages_completed(0), 2u);
  EXPECT_EQ(mp.cqes(0), 1u);
  // Message [2, 3]: completion on a non-last packet is ignored (Received); the Tail's
  // completion counts once when the message completes.
  mp.receive(0, 3, kTailC);
  const Outcome o2 = mp.receive(0, 2, Meta(false, true));
  EXPECT_EQ(o2.epsn, 4u);
  EXPECT_EQ(mp.messages_completed(0), 3u);
  EXPECT_EQ(mp.cqes(0), 2u);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCompletion, SlotStatesFromMetadata) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  mp.receive(0, 1, kMid);
  mp.receive(0, 2, kTail);
  mp.receive(0, 3, kTailC);
  mp.receive(0, 4, Meta(false, true));  // completion without last: Received
  EXPECT_EQ(mp.slot(0, 0), Slot::kEmpty);
  EXPECT_EQ(mp.slot(0, 1), Slot::kReceived);
  EXPECT_EQ(mp.slot(0, 2), Slot::kTail);
  EXPECT_EQ(mp.slot(0, 3), Slot::kTailCompletion);
  EXPECT_EQ(mp.slot(0, 4), Slot::kReceived);
  EXPECT_EQ(mp.slot(0, 64), Slot::kEmpty);  // out of range
  EXPECT_STREQ(to_string(Slot::kTailCompletion), "tail_completion");
  // psn 0 (Received) completes [0..2] and [3]; 4 stays as the partial HoL message.
  const Outcome o = mp.receive(0, 0, kMid);
  EXPECT_EQ(o.epsn, 4u);
  EXPECT_EQ(mp.messages_completed(0), 2u);
  EXPECT_EQ(mp.cqes(0), 1u);
  EXPECT_EQ(mp.slot(0, 0), Slot::kReceived);
  EXPECT_EQ(mp.lowest_missing(0), 5u);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaCompletion, PlainReceiveIsAOnePacketMessage) {
  MpRdma mp(MakeParams());
  mp.open(0, 0, 0);
  EXPECT_EQ(mp.receive(0, 1).verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(mp.slot(0, 1), Slot::kTail);
  const Outcome o = mp.receive(0, 0);
  EXPECT_EQ(o.epsn, 2u);
  EXPECT_EQ(mp.messages_completed(0), 2u);
  EXPECT_EQ(mp.cqes(0), 0u);
}

TEST(MpRdmaCompletion, LongMessageStallsPerMessageHeadOnly) {
  // L = 8 and one message of 9 packets (Tail at 8).
  MpRdma mp(MakeParams(8, 1));
  mp.open(0, 0, 0);
  for (uint32_t p = 0; p < 7; ++p) ASSERT_EQ(mp.receive(0, p, kMid).verdict, Verdict::kInOrder);
  // psn 7 fills the whole window: scan S = L = 8 (no Empty): 1 + 1 + 8 = 10 cycles, no move.
  Outcome o = mp.receive(0, 7, kMid);
  EXPECT_COST(o, 10, 1, 10);
  EXPECT_EQ(o.epsn, 0u);
  EXPECT_EQ(mp.lowest_missing(0), 8u);  // rcv_nxt + L
  ASSERT_TRUE(Invariants(mp));
  // The Tail can never enter: dropped and NACKed with rcv_nxt + L.
  o = mp.receive(0, 8, kTail);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.sack_psn, 8u);
  EXPECT_EQ(mp.messages_completed(0), 0u);

  // Per-packet head: the head follows the packets and the message completes.
  MpRdma pp(MakeParams(8, 1, 1, HeadAdvance::kPerPacket));
  pp.open(0, 0, 0);
  for (uint32_t p = 0; p < 8; ++p) ASSERT_EQ(pp.receive(0, p, kMid).verdict, Verdict::kInOrder);
  EXPECT_EQ(pp.epsn(0), 8u);
  o = pp.receive(0, 8, kTail);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.epsn, 9u);
  EXPECT_EQ(pp.messages_completed(0), 1u);
  ASSERT_TRUE(Invariants(pp));
}

TEST(MpRdmaPerPacket, ThreePacketMessageArriving201) {
  MpRdma mp(MakeParams(64, 1, 1, HeadAdvance::kPerPacket));
  mp.open(0, 0, 0);
  // psn 2 (Tail): d = 2 != 0 -> the head slot is Empty, no scan: 1 + 1 = 2 cycles.
  Outcome o = mp.receive(0, 2, kTail);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 2, 1, 2);
  EXPECT_SACK(o, 2, 0);
  // psn 0: 1 + 1 + scan R, E (2) = 4 cycles; head moves 1 (2 + 2 + 1 clear = 5 accesses).
  o = mp.receive(0, 0, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 5);
  EXPECT_SACK(o, 0, 1);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(mp.messages_completed(0), 0u);
  // psn 1: d = 0: 1 + 1 + scan R, T, E (3) = 5 cycles; 2 + 3 + 1 = 6 accesses; rcv_nxt 3.
  o = mp.receive(0, 1, kMid);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 5, 1, 6);
  EXPECT_SACK(o, 1, 3);
  EXPECT_EQ(mp.messages_completed(0), 1u);
  EXPECT_EQ(mp.head_ptr(0), 3u);
  ASSERT_TRUE(Invariants(mp));
}

// ---------------------------------------------------------------------------------------
// Hand cases: PSN wrap
// ---------------------------------------------------------------------------------------

TEST(MpRdmaWrap, MessageAcrossTheWrap) {
  MpRdma mp(MakeParams());
  mp.open(0, 0xFFFFFE, 0);
  // Message 0xFFFFFE, 0xFFFFFF, 0x000000 (Tail) arriving 0x000000 first (d = 2): 3 cycles.
  Outcome o = mp.receive(0, 0x000000, kTailC);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 3, 1, 3);
  EXPECT_SACK(o, 0x000000, 0xFFFFFE);
  o = mp.receive(0, 0xFFFFFE, kMid);  // scan R, E: 4 cycles
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 4, 1, 4);
  o = mp.receive(0, 0xFFFFFF, kMid);  // scan R, R, TC, E: 6 cycles; rcv_nxt wraps to 1
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 6, 1, 7);
  EXPECT_SACK(o, 0xFFFFFF, 1);
  EXPECT_EQ(mp.cqes(0), 1u);
  // Below rcv_nxt across the wrap: duplicate at 0 cycles.
  o = mp.receive(0, 0xFFFFFF, kMid);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0);
  // Window 1..64.
  EXPECT_EQ(mp.receive(0, 65, kTail).verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(mp.receive(0, 64, kTail).verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaWrap, WindowEdgeAcrossTheWrap) {
  MpRdma mp(MakeParams());
  mp.open(0, 0xFFFFF0, 0);
  // rcv_nxt + L = 0xFFFFF0 + 64 = 0x000030 (mod 2^24): dropped; 0x00002F accepted.
  Outcome o = mp.receive(0, 0x000030, kTail);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.sack_psn, 0xFFFFF0u);
  EXPECT_EQ(o.epsn, 0xFFFFF0u);
  o = mp.receive(0, 0x00002F, kTail);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(mp.slot(0, 63), Slot::kTail);
  // Far below (psn_diff < 0): duplicate.
  EXPECT_EQ(mp.receive(0, 0xF00000, kTail).verdict, Verdict::kDuplicate);
  // Fill 0xFFFFF0..0x00002E as one-packet messages in order: rcv_nxt 0x000030.
  for (uint32_t i = 0; i < 63; ++i)
    ASSERT_EQ(mp.receive(0, psn_add(0xFFFFF0, i), kTail).verdict, Verdict::kInOrder) << i;
  EXPECT_EQ(mp.epsn(0), 0x000030u);
  EXPECT_EQ(mp.messages_completed(0), 64u);
  ASSERT_TRUE(Invariants(mp));
}

// ---------------------------------------------------------------------------------------
// Hand cases: API, parameters
// ---------------------------------------------------------------------------------------

TEST(MpRdmaApi, OpenCloseReopen) {
  MpRdma mp(MakeParams(64, 2));
  EXPECT_STREQ(mp.name(), "mprdma");
  mp.open(1, 0x1234567, 99);  // masked to 24 bits; otd ignored
  EXPECT_TRUE(mp.is_open(1));
  EXPECT_EQ(mp.epsn(1), 0x234567u);
  EXPECT_EQ(mp.blocks_held(1), 8u);
  EXPECT_EQ(mp.blocks_held(0), 0u);
  mp.receive(1, 0x234569, kTail);
  mp.receive(1, 0x234567, kTailC);
  EXPECT_EQ(mp.messages_completed(1), 1u);
  EXPECT_EQ(mp.slot(1, 1), Slot::kTail);
  mp.close(1);
  EXPECT_FALSE(mp.is_open(1));
  EXPECT_EQ(mp.blocks_held(1), 0u);
  EXPECT_EQ(mp.messages_completed(1), 1u);  // counters stay readable
  EXPECT_EQ(mp.cqes(1), 1u);
  EXPECT_EQ(mp.slot(1, 1), Slot::kEmpty);
  EXPECT_EQ(mp.receive(1, 0x234568, kTail).verdict, Verdict::kQpClosed);
  ASSERT_TRUE(Invariants(mp));
  // Reopening resets everything, also when the QP is still open.
  mp.open(1, 10, 0);
  mp.receive(1, 12, kTail);
  mp.open(1, 500, 0);
  EXPECT_EQ(mp.epsn(1), 500u);
  EXPECT_EQ(mp.messages_completed(1), 0u);
  EXPECT_EQ(mp.head_ptr(1), 0u);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(mp.slot(1, i), Slot::kEmpty);
  ASSERT_TRUE(Invariants(mp));
}

TEST(MpRdmaApi, ParamsAndBlocks) {
  auto blocks = [](uint32_t l, uint32_t bb) {
    MpRdma::Params p = MakeParams(l, 1);
    p.block_bits = bb;
    MpRdma mp(p);
    mp.open(0, 0, 0);
    return mp.blocks_held(0);
  };
  EXPECT_EQ(blocks(64, 16), 8u);  // 128 / 16
  EXPECT_EQ(blocks(65, 16), 9u);  // ceil(130 / 16)
  EXPECT_EQ(blocks(64, 32), 4u);
  EXPECT_EQ(blocks(1, 16), 1u);
  EXPECT_EQ(blocks(100, 1), 200u);
  MpRdma::Params p;  // documented defaults
  EXPECT_EQ(p.slots, 64u);
  EXPECT_EQ(p.scan_slots_per_cycle, 1u);
  EXPECT_EQ(p.block_bits, 16u);
  EXPECT_EQ(p.head_advance, HeadAdvance::kPerMessage);
  auto make = [](MpRdma::Params q) { return MpRdma(q).bitmap_blocks(); };
  MpRdma::Params bad = MakeParams();
  bad.slots = 0;
  EXPECT_THROW(make(bad), std::invalid_argument);
  bad.slots = (1u << 22) + 1;
  EXPECT_THROW(make(bad), std::invalid_argument);
  bad = MakeParams();
  bad.max_qps = 0;
  EXPECT_THROW(make(bad), std::invalid_argument);
  bad = MakeParams();
  bad.scan_slots_per_cycle = 0;
  EXPECT_THROW(make(bad), std::invalid_argument);
  bad = MakeParams();
  bad.block_bits = 0;
  EXPECT_THROW(make(bad), std::invalid_argument);
  // L = 1 and a non-multiple of 32: still consistent.
  for (uint32_t l : {1u, 33u}) {
    MpRdma mp(MakeParams(l, 2));
    mp.open(0, 7, 0);
    EXPECT_EQ(mp.receive(0, psn_add(7, l), kTail).verdict, Verdict::kBeyondWindow);
    EXPECT_EQ(mp.receive(0, psn_add(7, l - 1), kTail).verdict,
              l == 1 ? Verdict::kInOrder : Verdict::kOutOfOrder);
    ASSERT_TRUE(Invariants(mp));
  }
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

using oonic::test::WindowShuffle;  // testbench/common/arrival_orders.h

TEST(MpRdmaProperty, WindowShuffleRespectsDistance) {
  std::mt19937_64 rng(3);
  for (uint32_t d : {0u, 1u, 7u, 63u, 150u}) {
    const auto v = WindowShuffle(400, d, rng);
    std::vector<uint8_t> seen(400, 0);
    uint32_t lo = 0;
    for (uint32_t x : v) {
      ASSERT_LE(x, lo + d);
      ASSERT_FALSE(seen[x]);
      seen[x] = 1;
      while (lo < 400 && seen[lo]) ++lo;
    }
    if (d == 0) {
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    }
  }
}

enum class LossMode { kNone, kResendAtEnd, kNackDriven };

struct Cfg {
  uint32_t l = 64, w = 1, count = 0, dist = 0, start = 0, losses = 0;
  HeadAdvance mode = HeadAdvance::kPerMessage;
  LossMode loss = LossMode::kNone;
};

// One QP: the messages, an independent reference receiver and a sender.
struct Flow {
  uint32_t qp = 0, start = 0, count = 0, l = 0, w = 1;
  bool per_message = true;
  // Messages.
  std::vector<uint8_t> last, comp;  // per offset
  std::vector<uint32_t> tail;       // per message: offset of its Tail
  uint64_t ncomp = 0;               // messages with completion
  // Reference receiver (offsets from start).
  std::vector<uint8_t> got;
  std::vector<uint32_t> accepted;  // kInOrder / kOutOfOrder verdicts per offset
  uint32_t head = 0;               // rcv_nxt
  uint32_t lm = 0;                 // lowest missing
  uint64_t msgs = 0, cqes = 0;
  // Sender.
  std::vector<uint32_t> order;  // first transmissions as delivered (losses removed)
  size_t pos = 0;
  std::vector<std::pair<uint64_t, uint32_t>> pending;  // (due step, offset)
  std::vector<uint8_t> in_pending, sacked;
  uint32_t dist = 0;
  uint64_t deliveries = 0;
  uint32_t last_aack = 0;  // last AACK seen (PSN)
};

struct Stats {
  uint64_t calls = 0, beyond = 0, dups = 0, nacks = 0, in_order = 0, ooo = 0, cqes = 0;
};

Flow MakeFlow(uint32_t qp, const Cfg& c, std::mt19937_64& rng) {
  Flow f;
  f.qp = qp, f.start = c.start, f.count = c.count, f.l = c.l, f.w = c.w;
  f.per_message = c.mode == HeadAdvance::kPerMessage;
  f.last.assign(c.count, 0);
  f.comp.assign(c.count, 0);
  for (uint32_t x = 0; x < c.count;) {
    const uint32_t len = std::min<uint32_t>(1 + static_cast<uint32_t>(rng() % 8), c.count - x);
    x += len;
    f.last[x - 1] = 1;
    f.comp[x - 1] = static_cast<uint8_t>(rng() % 2);
    f.tail.push_back(x - 1);
    f.ncomp += f.comp[x - 1];
  }
  f.got.assign(c.count, 0);
  f.accepted.assign(c.count, 0);
  f.in_pending.assign(c.count, 0);
  f.sacked.assign(c.count, 0);
  f.dist = c.dist;
  f.last_aack = c.start;
  std::vector<uint32_t> order = WindowShuffle(c.count, c.dist, rng);
  if (c.loss != LossMode::kNone) {
    std::vector<uint8_t> lost(c.count, 0);
    for (uint32_t i = 0; i < c.losses; ++i) lost[rng() % c.count] = 1;
    std::vector<uint32_t> kept, dropped;
    for (uint32_t x : order) (lost[x] ? dropped : kept).push_back(x);
    if (c.loss == LossMode::kResendAtEnd) kept.insert(kept.end(), dropped.begin(), dropped.end());
    order = std::move(kept);
  }
  f.order = std::move(order);
  return f;
}

struct Expect {
  Verdict verdict = Verdict::kDuplicate;
  Feedback feedback = Feedback::kSack;
  uint32_t cycles = 0, locate = 0, accesses = 0, sack_off = 0;
  bool head = false;
};

// Predicts receiving offset x from per-offset flags and message boundaries, and applies it.
Expect RefReceive(Flow& f, uint32_t x) {
  Expect ex;
  ex.sack_off = x;
  if (x < f.head) return ex;  // below rcv_nxt: 0 cycles
  if (x >= f.head + f.l) {
    ex.verdict = Verdict::kBeyondWindow;
    ex.feedback = Feedback::kNack;
    ex.sack_off = f.lm;  // first Empty slot (lm <= head + L always)
    return ex;
  }
  ex.locate = 1;
  ex.cycles = 1;
  ex.accesses = 1;
  if (f.got[x]) return ex;  // duplicate in the window: the locate read
  ex.cycles += 1;           // slot write
  ex.accesses += 1;
  ex.verdict = x == f.lm ? Verdict::kInOrder : Verdict::kOutOfOrder;
  f.got[x] = 1;
  f.accepted[x] += 1;
  while (f.lm < f.count && f.got[f.lm]) ++f.lm;
  if (f.per_message || x == f.head) {
    const uint32_t examined = std::min(f.lm - f.head + 1, f.l);
    const uint32_t scan = (examined + f.w - 1) / f.w;
    ex.cycles += scan;
    ex.accesses += scan;
    uint32_t new_head = f.head;
    if (!f.per_message) {
      new_head = f.lm;
    } else {
      for (uint64_t k = f.msgs; k < f.tail.size() && f.tail[k] < f.lm; ++k)
        new_head = f.tail[k] + 1;
    }
    while (f.msgs < f.tail.size() && f.tail[f.msgs] < new_head) f.cqes += f.comp[f.tail[f.msgs++]];
    if (new_head != f.head) {
      ex.accesses += 1;  // masked clear
      ex.head = true;
      f.head = new_head;
    }
  }
  return ex;
}

// Delivers one packet of flow fi (if any). Returns false when the flow has nothing left.
bool Step(MpRdma& mp, std::vector<Flow>& flows, size_t fi, uint64_t now, std::mt19937_64& rng,
          Stats& st) {
  Flow& f = flows[fi];
  uint32_t x = 0;
  // 1) a due retransmission, 2) the next first transmission, 3) the earliest pending,
  // 4) timeout: resend every PSN not SACKed at or after AACK.
  size_t best = f.pending.size();
  for (size_t i = 0; i < f.pending.size(); ++i)
    if (best == f.pending.size() || f.pending[i].first < f.pending[best].first) best = i;
  if (best < f.pending.size() && f.pending[best].first <= now) {
    x = f.pending[best].second;
  } else if (f.pos < f.order.size()) {
    x = f.order[f.pos++];
    best = f.pending.size();
  } else if (best < f.pending.size()) {
    x = f.pending[best].second;
  } else if (f.head < f.count) {
    const uint32_t aack = static_cast<uint32_t>(psn_diff(f.last_aack, f.start));
    bool first = true;
    for (uint32_t y = aack; y < f.count; ++y) {
      if (f.sacked[y]) continue;
      if (first) {
        x = y, first = false;
      } else {
        f.pending.push_back({0, y});
        f.in_pending[y] = 1;
      }
    }
    if (first) {
      ADD_FAILURE() << "flow " << fi << " stalled with everything SACKed";
      return false;
    }
  } else {
    return false;
  }
  if (best < f.pending.size()) {
    f.in_pending[x] = 0;
    f.pending.erase(f.pending.begin() + static_cast<std::ptrdiff_t>(best));
  }
  if (++f.deliveries > 50ull * f.count + 1000) {
    ADD_FAILURE() << "flow " << fi << " does not terminate";
    return false;
  }

  const uint32_t head_before = f.head, lm_before = f.lm;
  const uint64_t msgs_before = f.msgs;
  const uint32_t psn = psn_add(f.start, x);
  const Expect ex = RefReceive(f, x);
  PacketMeta meta;
  meta.last = f.last[x];
  meta.completion = f.comp[x];
  const Outcome o = mp.receive(f.qp, psn, meta);
  ++st.calls;
  const auto ctx = [&] {
    return ::testing::Message() << "qp " << f.qp << " start " << f.start << " offset " << x
                                << " head " << head_before << " lowest missing " << lm_before;
  };
  EXPECT_EQ(o.verdict, ex.verdict) << ctx() << " got " << to_string(o.verdict);
  EXPECT_EQ(o.feedback, ex.feedback) << ctx() << " got " << to_string(o.feedback);
  EXPECT_EQ(o.sack_psn, psn_add(f.start, ex.sack_off)) << ctx();
  EXPECT_EQ(o.cycles, ex.cycles) << ctx();
  EXPECT_EQ(o.locate_cycles, ex.locate) << ctx();
  EXPECT_EQ(o.block_accesses, ex.accesses) << ctx();
  EXPECT_EQ(o.node_accesses, 0u) << ctx();
  EXPECT_EQ(o.head_advanced, ex.head) << ctx();
  EXPECT_EQ(o.epsn, psn_add(f.start, f.head)) << ctx();
  EXPECT_EQ(o.blocks_held, mp.bitmap_blocks()) << ctx();
  EXPECT_EQ(o.blocks_delta, 0) << ctx();
  EXPECT_FALSE(o.nak);
  EXPECT_EQ(mp.epsn(f.qp), o.epsn);
  EXPECT_EQ(mp.lowest_missing(f.qp), psn_add(f.start, f.lm)) << ctx();
  // AACK never decreases.
  EXPECT_GE(psn_diff(o.epsn, f.last_aack), 0) << ctx();
  f.last_aack = o.epsn;
  // Completions: exactly the in-order prefix of fully received messages, counted once.
  EXPECT_EQ(mp.messages_completed(f.qp), f.msgs) << ctx();
  EXPECT_EQ(mp.cqes(f.qp), f.cqes) << ctx();
  EXPECT_GE(f.msgs, msgs_before);
  if (f.msgs > 0) {
    EXPECT_GT(f.lm, f.tail[f.msgs - 1]) << ctx();
  }
  if (f.msgs < f.tail.size()) {
    EXPECT_LE(f.lm, f.tail[f.msgs]) << ctx() << " a complete message was not counted";
  }
  if (f.per_message) {
    EXPECT_EQ(f.head, f.msgs == 0 ? 0u : f.tail[f.msgs - 1] + 1) << ctx();
  } else {
    EXPECT_EQ(f.head, f.lm) << ctx();
  }

  switch (o.verdict) {
    case Verdict::kBeyondWindow:
      ++st.beyond;
      break;
    case Verdict::kDuplicate:
      ++st.dups;
      break;
    case Verdict::kInOrder:
      ++st.in_order;
      break;
    case Verdict::kOutOfOrder:
      ++st.ooo;
      break;
    default:
      break;
  }
  // Sender reaction.
  if (o.feedback == Feedback::kSack) {
    const int32_t so = psn_diff(o.sack_psn, f.start);
    if (so >= 0 && static_cast<uint32_t>(so) < f.count) f.sacked[static_cast<uint32_t>(so)] = 1;
  } else if (o.feedback == Feedback::kNack) {
    ++st.nacks;
    // Resend the NACKed (lost) PSN and the dropped packet after a network delay.
    const int32_t lost = psn_diff(o.sack_psn, f.start);
    for (int64_t y : {static_cast<int64_t>(lost), static_cast<int64_t>(x)}) {
      if (y < 0 || y >= f.count) continue;
      const uint32_t u = static_cast<uint32_t>(y);
      if (f.sacked[u] || f.in_pending[u]) continue;
      f.in_pending[u] = 1;
      f.pending.push_back({now + 1 + rng() % (f.dist + 2), u});
    }
  }

  std::string why;
  EXPECT_TRUE(mp.check_invariants(&why)) << ctx() << ": " << why;
  return true;
}

void RunFlows(MpRdma& mp, std::vector<Flow>& flows, std::mt19937_64& rng, Stats& st) {
  uint64_t now = 0;
  std::vector<size_t> active;
  for (size_t i = 0; i < flows.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng() % active.size());
    if (!Step(mp, flows, active[ai], now, rng, st)) {
      active[ai] = active.back();
      active.pop_back();
    }
    if (::testing::Test::HasFailure()) return;
    ++now;
  }
}

void ExpectComplete(const MpRdma& mp, const Flow& f, Stats& st) {
  EXPECT_EQ(mp.epsn(f.qp), psn_add(f.start, f.count));  // final rcv_nxt = start + count
  EXPECT_EQ(mp.messages_completed(f.qp), f.tail.size());
  EXPECT_EQ(mp.cqes(f.qp), f.ncomp);
  st.cqes += f.ncomp;
  for (uint32_t x = 0; x < f.count; ++x)
    ASSERT_EQ(f.accepted[x], 1u) << "offset " << x << " accepted " << f.accepted[x] << " times";
}

Cfg RandomCfg(std::mt19937_64& rng, LossMode loss, HeadAdvance mode) {
  static const uint32_t kL[] = {64, 64, 64, 64, 8, 13, 16, 100};
  static const uint32_t kW[] = {1, 1, 1, 2, 4, 64};
  Cfg c;
  c.l = kL[rng() % (sizeof(kL) / sizeof(kL[0]))];
  c.w = kW[rng() % (sizeof(kW) / sizeof(kW[0]))];
  c.mode = mode;
  c.dist = static_cast<uint32_t>(rng() % c.l);  // D < L
  c.count = 100 + static_cast<uint32_t>(rng() % 250);
  c.start = (rng() % 2 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 300)  // wraps
                             : static_cast<uint32_t>(rng() & 0xFFFFFF);
  c.loss = loss;
  c.losses = 1 + static_cast<uint32_t>(rng() % 3);
  return c;
}

HeadAdvance ModeOf(uint64_t seed) {
  return seed % 2 ? HeadAdvance::kPerMessage : HeadAdvance::kPerPacket;
}

TEST(MpRdmaProperty, NoLossWithinWindowNeverDrops) {
  Stats st;
  for (uint64_t seed = 1; seed <= 2000; ++seed) {
    std::mt19937_64 rng(seed);
    Cfg c = RandomCfg(rng, LossMode::kNone, ModeOf(seed));
    // The per-message head lags the lowest missing PSN by < 8 (message length - 1), so
    // psn - rcv_nxt <= D + 7 there; per-packet: psn - rcv_nxt <= D.
    if (c.mode == HeadAdvance::kPerMessage) c.dist = static_cast<uint32_t>(rng() % (c.l - 7));
    MpRdma mp(MakeParams(c.l, 1, c.w, c.mode));
    mp.open(0, c.start, 0);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    const Stats before = st;
    RunFlows(mp, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    EXPECT_EQ(st.beyond, before.beyond) << "seed " << seed;
    EXPECT_EQ(st.dups, before.dups) << "seed " << seed;
    EXPECT_EQ(flows[0].deliveries, c.count) << "seed " << seed;  // nothing resent
    ExpectComplete(mp, flows[0], st);
    mp.close(0);
    EXPECT_TRUE(Invariants(mp));
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.ooo, 0u);
  EXPECT_GT(st.in_order, 0u);
  EXPECT_GT(st.cqes, 0u);
}

TEST(MpRdmaProperty, LossRetransmittedLater) {
  Stats st;
  for (uint64_t seed = 10001; seed <= 11500; ++seed) {
    std::mt19937_64 rng(seed);
    const Cfg c = RandomCfg(rng, LossMode::kResendAtEnd, ModeOf(seed));
    MpRdma mp(MakeParams(c.l, 1, c.w, c.mode));
    mp.open(0, c.start, 0);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    RunFlows(mp, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(mp, flows[0], st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.beyond, 0u);  // the head stuck on a loss pushes later packets out
  EXPECT_GT(st.nacks, 0u);
  EXPECT_GT(st.dups, 0u);
}

TEST(MpRdmaProperty, LossRecoveredByNack) {
  Stats st;
  for (uint64_t seed = 20001; seed <= 21500; ++seed) {
    std::mt19937_64 rng(seed);
    const Cfg c = RandomCfg(rng, LossMode::kNackDriven, ModeOf(seed));
    MpRdma mp(MakeParams(c.l, 1, c.w, c.mode));
    mp.open(0, c.start, 0);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    RunFlows(mp, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(mp, flows[0], st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.nacks, 0u);
}

TEST(MpRdmaProperty, ReorderingBeyondWindowDropsAndResends) {
  Stats st;
  for (uint64_t seed = 30001; seed <= 31000; ++seed) {
    std::mt19937_64 rng(seed);
    Cfg c = RandomCfg(rng, seed % 3 == 0 ? LossMode::kNackDriven : LossMode::kNone, ModeOf(seed));
    c.dist = c.l + static_cast<uint32_t>(rng() % (2 * c.l));  // D >= L
    MpRdma mp(MakeParams(c.l, 1, c.w, c.mode));
    mp.open(0, c.start, 0);
    std::vector<Flow> flows;
    flows.push_back(MakeFlow(0, c, rng));
    RunFlows(mp, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(mp, flows[0], st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.beyond, 0u);
  EXPECT_GT(st.nacks, 0u);
  EXPECT_GT(st.dups, 0u);
}

TEST(MpRdmaProperty, MultiQpInterleaved) {
  Stats st;
  for (uint64_t seed = 40001; seed <= 40300; ++seed) {
    std::mt19937_64 rng(seed);
    const HeadAdvance mode = ModeOf(seed);
    const Cfg c0 = RandomCfg(rng, LossMode::kNone, mode);
    std::vector<Flow> flows;
    const uint32_t kQps[] = {0, 2, 5, 7};
    for (uint32_t qp : kQps) {
      Cfg c = RandomCfg(rng, static_cast<LossMode>(rng() % 3), mode);
      c.l = c0.l;  // one geometry for the unit
      c.w = c0.w;
      c.dist = static_cast<uint32_t>(rng() % (2 * c.l));
      flows.push_back(MakeFlow(qp, c, rng));
    }
    MpRdma mp(MakeParams(c0.l, 8, c0.w, mode));
    for (const Flow& f : flows) mp.open(f.qp, f.start, 0);
    RunFlows(mp, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    for (const Flow& f : flows) ExpectComplete(mp, f, st);
    for (const Flow& f : flows) {
      EXPECT_EQ(mp.blocks_held(f.qp), mp.bitmap_blocks());
      mp.close(f.qp);
      EXPECT_EQ(mp.blocks_held(f.qp), 0u);
    }
    EXPECT_TRUE(Invariants(mp));
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
}

}  // namespace
