// UET's RUD/ROD receiver core (model/uet/rud_receiver_core.h), without the kernel:
// ACKs, SACK bitmaps and NACKs derived by hand, and every PSN placed exactly once over
// random arrival orders with duplicates and trimmed packets.
#include "model/ordering/uet_rud.h"
#include "model/uet/rud_receiver_core.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace oonic::uet {
namespace {

namespace w = wire::uet;

RxVerdict rx(RudReceiverCore& r, uint32_t psn, bool ar = false) {
  RxPacket p;
  p.psn = psn;
  p.ar = ar;
  return r.receive(p);
}

// In order from PSN 100, an ACK every 4 placed packets: the first packet is ACKed at
// once (CACK 100), then the 4th after it (104); 105-107 wait.
TEST(UetReceiver, InOrderAcksCoalesce) {
  RudReceiverCore r({256, 4, false}, 100, 1, 2);
  std::vector<uint32_t> acked;
  for (uint32_t psn = 100; psn < 108; ++psn) {
    const RxVerdict v = rx(r, psn);
    EXPECT_TRUE(v.place);
    if (v.reply) {
      EXPECT_EQ(v.reply->type, w::PdsType::kAckCc);
      EXPECT_EQ(v.reply->spdcid, 1);
      EXPECT_EQ(v.reply->dpdcid, 2);
      acked.push_back(v.reply->psn);
    }
  }
  EXPECT_EQ(acked, (std::vector<uint32_t>{100, 104}));
  EXPECT_EQ(r.cack_psn(), 107u);
  EXPECT_EQ(r.peak_tracked(), 0u);
  EXPECT_EQ(r.max_ood(), 0u);
}

// 0, 2, 3, then 5 with AR: CACK 0; SACK base max(5 - 63, 1) = 1 (offset 1), bits for
// 2, 3 and 5 = 0b10110; three PSNs held past CACK; OOD 4. Then 1 and 4 complete it; a
// resend of 2 is a duplicate, ACKed at once with CACK 5 and an empty SACK.
TEST(UetReceiver, SackBitmapAndDuplicates) {
  RudReceiverCore r({256, 4, false}, 0, 1, 2);
  EXPECT_TRUE(rx(r, 0).reply);  // the first packet
  EXPECT_FALSE(rx(r, 2).reply);
  EXPECT_FALSE(rx(r, 3).reply);
  const RxVerdict v = rx(r, 5, true);
  ASSERT_TRUE(v.reply);
  EXPECT_EQ(v.reply->psn, 0u);
  EXPECT_EQ(v.reply->sack_psn_offset, 1);
  EXPECT_EQ(v.reply->sack_bitmap, 0x16u);
  EXPECT_EQ(v.reply->ooo_count, 3);
  EXPECT_EQ(r.peak_tracked(), 3u);
  EXPECT_EQ(r.max_ood(), 4u);
  rx(r, 1);
  EXPECT_EQ(r.cack_psn(), 3u);
  rx(r, 4);
  EXPECT_EQ(r.cack_psn(), 5u);
  const RxVerdict d = rx(r, 2);
  EXPECT_FALSE(d.place);
  EXPECT_TRUE(d.duplicate);
  ASSERT_TRUE(d.reply);
  EXPECT_EQ(d.reply->psn, 5u);
  EXPECT_EQ(d.reply->sack_bitmap, 0u);
  EXPECT_EQ(r.placed(), 6u);
  EXPECT_EQ(r.duplicates(), 1u);
}

// A trimmed packet is NACKed (TRIMMED, or TRIMMED_LASTHOP) with payload = highest + 1,
// and is placed when it comes again; beyond the window (8): PSN_OOR_WINDOW.
TEST(UetReceiver, TrimmedAndOutOfWindowAreNacked) {
  RudReceiverCore r({8, 4, false}, 0, 1, 2);
  rx(r, 0);
  rx(r, 3);
  RxPacket t;
  t.psn = 1;
  t.trimmed = true;
  RxVerdict v = r.receive(t);
  EXPECT_FALSE(v.place);
  ASSERT_TRUE(v.reply);
  EXPECT_EQ(v.reply->type, w::PdsType::kNack);
  EXPECT_EQ(v.reply->nack_code, w::kNackTrimmed);
  EXPECT_EQ(v.reply->psn, 1u);
  EXPECT_EQ(v.reply->payload, 4u);
  t.last_hop = true;
  EXPECT_EQ(r.receive(t).reply->nack_code, w::kNackTrimmedLastHop);
  EXPECT_TRUE(rx(r, 1).place);
  // CACK 1: PSNs 2..9 are in the window, 10 is not.
  v = rx(r, 10);
  EXPECT_FALSE(v.place);
  EXPECT_EQ(v.reply->nack_code, w::kNackPsnOutOfWindow);
  EXPECT_TRUE(rx(r, 9).place);
  EXPECT_EQ(r.nacks(), 3u);
}

// ROD takes only the next PSN: 2 before 1 is NACKed ROD_OOO and not placed.
TEST(UetReceiver, OrderedDeliveryTakesOnlyTheNextPsn) {
  RudReceiverCore r({256, 1, true}, 0, 1, 2);
  EXPECT_TRUE(rx(r, 0).place);
  const RxVerdict v = rx(r, 2);
  EXPECT_FALSE(v.place);
  EXPECT_EQ(v.reply->nack_code, w::kNackRodOoo);
  EXPECT_TRUE(rx(r, 1).place);
  EXPECT_TRUE(rx(r, 2).place);
  EXPECT_EQ(r.cack_psn(), 2u);
  EXPECT_EQ(r.peak_tracked(), 0u);
}

// PSNs wrap at 2^32.
TEST(UetReceiver, PsnsWrap) {
  RudReceiverCore r({16, 4, false}, 0xFFFFFFFEu, 1, 2);
  EXPECT_TRUE(rx(r, 1).place);
  EXPECT_TRUE(rx(r, 0xFFFFFFFFu).place);
  EXPECT_TRUE(rx(r, 0).place);
  EXPECT_EQ(r.cack_psn(), 0xFFFFFFFDu);
  EXPECT_TRUE(rx(r, 0xFFFFFFFEu).place);
  EXPECT_EQ(r.cack_psn(), 1u);
}

// Random arrival orders within the window, with resends of placed packets and trimmed
// packets sent again later: every PSN is placed exactly once, CACK reaches the last,
// nothing stays tracked, and every SACK bit names a placed PSN past CACK.
TEST(UetReceiver, EveryPsnPlacedOnceOverRandomOrders) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 g(seed);
    const uint32_t n = 3000, window = 64, start = static_cast<uint32_t>(g());
    RudReceiverCore r({window, 1 + static_cast<uint32_t>(g() % 8), false}, start, 1, 2);
    std::vector<uint32_t> order(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = start + i;
    for (uint32_t b = 0; b < n; b += window / 2)  // shuffled in half-windows: never beyond
      std::shuffle(order.begin() + b, order.begin() + std::min(n, b + window / 2), g);
    std::set<uint32_t> placed;
    std::vector<uint32_t> again;  // trimmed: comes back after a few packets
    auto take = [&](uint32_t psn, bool trim) {
      RxPacket p;
      p.psn = psn;
      p.trimmed = trim;
      p.ar = g() % 10 == 0;
      const RxVerdict v = r.receive(p);
      if (trim) {
        ASSERT_FALSE(v.place);
        again.push_back(psn);
      }
      if (v.place) {
        ASSERT_TRUE(placed.insert(psn).second) << psn;
      }
      if (v.reply && v.reply->type == w::PdsType::kAckCc) {
        const uint32_t base = v.reply->psn + static_cast<uint32_t>(v.reply->sack_psn_offset);
        for (uint32_t i = 0; i < 64; ++i)
          if (v.reply->sack_bitmap >> i & 1) {
            ASSERT_TRUE(placed.count(base + i)) << base + i;
          }
      }
    };
    for (uint32_t i = 0; i < n; ++i) {
      take(order[i], g() % 50 == 0);
      if (!again.empty() && g() % 4 == 0) {
        const uint32_t psn = again.front();
        again.erase(again.begin());
        take(psn, false);
      }
      if (!placed.empty() && g() % 20 == 0) take(*placed.begin(), false);  // a resend
    }
    while (!again.empty()) {
      const uint32_t psn = again.front();
      again.erase(again.begin());
      take(psn, false);
    }
    EXPECT_EQ(placed.size(), n) << seed;
    EXPECT_EQ(r.cack_psn(), start + n - 1) << seed;
    EXPECT_EQ(r.placed(), n);
    EXPECT_LE(r.peak_tracked(), window);
  }
}

}  // namespace
}  // namespace oonic::uet

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
