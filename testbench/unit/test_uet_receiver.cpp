// UET's receivers as the NIC runs them behind the receive seam (model/ordering/uet_rud.h:
// nic.ordering uet-rud and uet-rod), without the kernel: ACKs, SACK bitmaps, OOO counts and
// cycles derived by hand, and every PSN placed once over random arrival orders with
// repeats against a reference set. The Req Processor's NACK of a trimmed request is in
// test_ornic_cores.cpp (ReqProcessorCore.UetTrimmedRequestIsNackedWithItsLastHop).
#include "model/ordering/uet_rud.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

// uet-rud on a 64-bit window: its first packet is ACKed, 1..3 coalesce, 4 is the 4th
// placed since: ACKed; 6 out of order, then 7, 8 coalesce and 9 is the 4th: an ACK (UET's:
// Feedback kSack) naming PSN 9, the OOO count 4 (6..9 past ePSN 5), the 4 packets it
// covers, and the SACK bitmap below 9 (bit i = PSN 8 - i: 8, 7, 6 in, 5 not, 4 and below
// under ePSN); a duplicate is ACKed at once (covering none); PSN 5 + 64 beyond the window
// is NACKed; 5 fills the hole, drains the OOO count and is ACKed at once. Cycles as IRN's
// (an OOO packet 2, in order 2 + k): one 64-bit word holds the whole window, so the SACK
// bitmap reads nothing more.
TEST(UetRud, CoalescedAcksOnIrnsBitmap) {
  namespace o = oonic::ordering;
  oonic::ordering::UetRud::Params p;
  p.window_bits = 64;
  p.max_qps = 2;
  oonic::ordering::UetRud u(p);
  u.open(0, 0, 0);
  auto fb = [&](uint32_t psn) { return u.receive(0, psn).feedback; };
  const uint64_t all = (uint64_t{1} << 48) - 1;
  const o::Outcome first = u.receive(0, 0);
  EXPECT_EQ(first.feedback, o::Feedback::kSack);
  EXPECT_EQ(first.coalesced, 1u);
  EXPECT_EQ(first.sack_bits, all);
  EXPECT_EQ(first.cycles, 2u);
  EXPECT_EQ(fb(1), o::Feedback::kNone);
  EXPECT_EQ(fb(2), o::Feedback::kNone);
  EXPECT_EQ(fb(3), o::Feedback::kNone);
  EXPECT_EQ(u.receive(0, 4).coalesced, 4u);
  const o::Outcome ooo = u.receive(0, 6);
  EXPECT_EQ(ooo.verdict, o::Verdict::kOutOfOrder);
  EXPECT_EQ(ooo.feedback, o::Feedback::kNone);
  EXPECT_EQ(ooo.cycles, 2u);
  EXPECT_EQ(fb(7), o::Feedback::kNone);
  EXPECT_EQ(fb(8), o::Feedback::kNone);
  const o::Outcome ack = u.receive(0, 9);
  EXPECT_EQ(ack.feedback, o::Feedback::kSack);
  EXPECT_EQ(ack.sack_psn, 9u);
  EXPECT_EQ(ack.ooo_count, 4u);
  EXPECT_EQ(ack.coalesced, 4u);
  EXPECT_EQ(ack.sack_bits, all & ~(uint64_t{1} << 3));
  EXPECT_EQ(ack.cycles, 2u);
  const o::Outcome dup = u.receive(0, 7);
  EXPECT_EQ(dup.feedback, o::Feedback::kSack);
  EXPECT_EQ(dup.coalesced, 0u);
  EXPECT_EQ(dup.ooo_count, 4u);
  EXPECT_EQ(u.receive(0, 5 + 64).feedback, o::Feedback::kNack);  // ePSN 5: beyond 5 + 64
  const o::Outcome fill = u.receive(0, 5);                       // fills the hole: ePSN moves to 10
  EXPECT_EQ(fill.verdict, o::Verdict::kInOrder);
  EXPECT_EQ(fill.feedback, o::Feedback::kSack);  // the OOO count drained: ACKed at once
  EXPECT_EQ(fill.ooo_count, 0u);
  EXPECT_EQ(fill.coalesced, 1u);
  EXPECT_EQ(fill.sack_bits, all);
  EXPECT_EQ(u.epsn(0), 10u);
  std::string why;
  EXPECT_TRUE(u.check_invariants(&why)) << why;
  u.open(0, 100, 0);  // reopened: its first packet is ACKed again
  EXPECT_EQ(fb(100), o::Feedback::kSack);
}

// The SACK bitmap's reads: W = 128 bits in 16-bit words. After PSN 0, ePSN 1 sits in slot
// 1, so PSN n sits in slot n. PSN 40 asks for an ACK (AckReq): its span, PSNs 39 down to
// 1, lies in slots 39..1, words 2 (its own, read by the locate), 1 and 0: two more reads,
// so 2 + 2 = 4 cycles. A CE-marked packet is ACKed at once too; a plain one coalesces.
TEST(UetRud, SackBitmapReadsTheWordsItSpans) {
  namespace o = oonic::ordering;
  oonic::ordering::UetRud::Params p;
  p.window_bits = 128;
  p.word_bits = 16;
  p.max_qps = 1;
  oonic::ordering::UetRud u(p);
  u.open(0, 0, 0);
  u.receive(0, 0);
  o::PacketMeta ar;
  ar.ack_req = true;
  const o::Outcome a = u.receive(0, 40, ar);
  EXPECT_EQ(a.verdict, o::Verdict::kOutOfOrder);
  EXPECT_EQ(a.feedback, o::Feedback::kSack);
  EXPECT_EQ(a.cycles, 4u);
  EXPECT_EQ(a.block_accesses, 4u);
  EXPECT_EQ(a.sack_bits, (uint64_t{1} << 48) - (uint64_t{1} << 39));  // PSNs 0 and below
  EXPECT_EQ(u.receive(0, 41).feedback, o::Feedback::kNone);
  o::PacketMeta ce;
  ce.ecn = true;
  const o::Outcome e = u.receive(0, 42, ce);
  EXPECT_EQ(e.feedback, o::Feedback::kSack);
  EXPECT_EQ(e.ooo_count, 3u);
  EXPECT_EQ(e.coalesced, 2u);
}

// uet-rud over 20 random arrival orders of 300 PSNs from 1000 (a window of 64 near the
// PSN wrap, each PSN repeated with probability 0.2, arrivals within 40 of their turn):
// every PSN is placed exactly once, the OOO count every ACK carries equals the PSNs a
// reference set holds past ePSN, each SACK bitmap bit matches the reference, and the
// coalesced counts of the ACKs add up to the packets placed (the last ACK included).
TEST(UetRud, AcksMatchAReferenceOverRandomOrders) {
  namespace o = oonic::ordering;
  const uint32_t start = 0xFFFFFF - 150, n = 300;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    o::UetRud::Params p;
    p.window_bits = 64;
    p.max_qps = 1;
    o::UetRud u(p);
    u.open(0, start, 0);
    std::mt19937 rng(seed);
    // Arrival order: each PSN's turn jittered by up to 40, with repeats.
    std::vector<std::pair<double, uint32_t>> ev;
    for (uint32_t i = 0; i < n; ++i) {
      ev.push_back({i + std::uniform_real_distribution<double>(0, 40)(rng), i});
      if (std::bernoulli_distribution(0.2)(rng))
        ev.push_back({i + std::uniform_real_distribution<double>(0, 80)(rng), i});
    }
    std::sort(ev.begin(), ev.end());
    std::set<uint32_t> have;  // offsets received
    uint32_t epsn = 0, placed = 0, covered = 0, last_since = 0;
    std::vector<uint32_t> pending;  // arrivals beyond the window: tried again at the end
    auto deliver = [&](uint32_t i) {
      const uint32_t psn = (start + i) & 0xFFFFFF;
      const o::Outcome r = u.receive(0, psn);
      if (r.verdict == o::Verdict::kBeyondWindow) {
        EXPECT_EQ(r.feedback, o::Feedback::kNack);
        pending.push_back(i);
        return;
      }
      const bool fresh = r.verdict == o::Verdict::kInOrder || r.verdict == o::Verdict::kOutOfOrder;
      EXPECT_EQ(fresh, !have.count(i)) << i;
      if (fresh) have.insert(i), ++placed, ++last_since;
      while (have.count(epsn)) ++epsn;
      EXPECT_EQ(u.epsn(0), (start + epsn) & 0xFFFFFF);
      uint32_t held = 0;
      for (uint32_t h : have) held += h > epsn;
      if (r.feedback != o::Feedback::kSack) return;
      EXPECT_EQ(r.ooo_count, held);
      for (uint32_t b = 0; b < oonic::wire::kUetSackBits; ++b) {
        const int64_t q = int64_t(i) - 1 - b;
        const bool in = q < 0 || q < int64_t(epsn) || have.count(uint32_t(q));
        EXPECT_EQ((r.sack_bits >> b) & 1, in ? 1u : 0u) << i << " bit " << b;
      }
      if (fresh) covered += r.coalesced, last_since = 0;
    };
    for (auto& e : ev) deliver(e.second);
    for (size_t k = 0; k < pending.size(); ++k) deliver(pending[k]);  // may re-queue
    EXPECT_EQ(placed, n);
    EXPECT_EQ(epsn, n);
    EXPECT_EQ(covered + last_since, placed);
    std::string why;
    EXPECT_TRUE(u.check_invariants(&why)) << why;
  }
}

// uet-rod: the go-back-N receiver with UET's ACKs, every call 0 cycles. 0 is the PDC's
// first (ACK, covers 1); 1, 2 coalesce; 4 out of order is dropped and NAKed (go back N),
// 5 dropped silently (one NAK per ePSN); 3 is the 3rd since; 4 again is the 4th: ACK
// covering 4; a duplicate is ACKed at once covering none; 5 with AckReq is ACKed at once.
TEST(UetRod, GoBackNWithCoalescedUetAcks) {
  namespace o = oonic::ordering;
  o::UetRod::Params p;
  p.max_qps = 1;
  o::UetRod u(p);
  u.open(0, 0, 0);
  auto rx = [&](uint32_t psn, bool ar = false) {
    o::PacketMeta m;
    m.ack_req = ar;
    return u.receive(0, psn, m);
  };
  const uint64_t all = (uint64_t{1} << 48) - 1;
  o::Outcome a = rx(0);
  EXPECT_EQ(a.feedback, o::Feedback::kSack);
  EXPECT_EQ(a.coalesced, 1u);
  EXPECT_EQ(a.sack_bits, all);
  EXPECT_EQ(a.cycles, 0u);
  EXPECT_EQ(rx(1).feedback, o::Feedback::kNone);
  EXPECT_EQ(rx(2).feedback, o::Feedback::kNone);
  const o::Outcome gap = rx(4);
  EXPECT_EQ(gap.verdict, o::Verdict::kUntrackable);
  EXPECT_EQ(gap.feedback, o::Feedback::kNak);
  EXPECT_EQ(gap.epsn, 3u);
  EXPECT_EQ(rx(5).feedback, o::Feedback::kNone);
  EXPECT_EQ(rx(3).feedback, o::Feedback::kNone);
  a = rx(4);
  EXPECT_EQ(a.feedback, o::Feedback::kSack);
  EXPECT_EQ(a.coalesced, 4u);
  EXPECT_EQ(a.ooo_count, 0u);
  a = rx(2);
  EXPECT_EQ(a.verdict, o::Verdict::kDuplicate);
  EXPECT_EQ(a.feedback, o::Feedback::kSack);
  EXPECT_EQ(a.coalesced, 0u);
  a = rx(5, true);
  EXPECT_EQ(a.feedback, o::Feedback::kSack);
  EXPECT_EQ(a.coalesced, 1u);
  EXPECT_EQ(u.epsn(0), 6u);
}
