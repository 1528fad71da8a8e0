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

// UET's RUD receiver behind the receive seam (model/ordering/uet_rud.h): IRN's bitmap and
// cycles, UET's coalesced ACKs. PSN 0 (the PDC's first) is ACKed; 1, 2, 3 coalesce; 4 is
// the 4th placed since: ACKed; 6 out of order, then 7, 8 coalesce and 9 is the 4th: an
// ACK carrying the SACK (kSack, PSN 9); a duplicate is ACKed at once; PSN 0 + W beyond the
// window is NACKed. Cycles as IRN's: an OOO packet 2, in order 2 + k.
TEST(UetRud, CoalescedAcksOnIrnsBitmap) {
  namespace o = oonic::ordering;
  oonic::ordering::UetRud::Params p;
  p.window_bits = 64;
  p.max_qps = 2;
  oonic::ordering::UetRud u(p);
  u.open(0, 0, 0);
  auto fb = [&](uint32_t psn) { return u.receive(0, psn).feedback; };
  EXPECT_EQ(fb(0), o::Feedback::kAck);
  EXPECT_EQ(fb(1), o::Feedback::kNone);
  EXPECT_EQ(fb(2), o::Feedback::kNone);
  EXPECT_EQ(fb(3), o::Feedback::kNone);
  EXPECT_EQ(fb(4), o::Feedback::kAck);
  const o::Outcome ooo = u.receive(0, 6);
  EXPECT_EQ(ooo.verdict, o::Verdict::kOutOfOrder);
  EXPECT_EQ(ooo.feedback, o::Feedback::kNone);
  EXPECT_EQ(ooo.cycles, 2u);
  EXPECT_EQ(fb(7), o::Feedback::kNone);
  EXPECT_EQ(fb(8), o::Feedback::kNone);
  const o::Outcome ack = u.receive(0, 9);
  EXPECT_EQ(ack.feedback, o::Feedback::kSack);
  EXPECT_EQ(ack.sack_psn, 9u);
  EXPECT_EQ(fb(7), o::Feedback::kAck);                           // a duplicate
  EXPECT_EQ(u.receive(0, 5 + 64).feedback, o::Feedback::kNack);  // ePSN 5: beyond 5 + 64
  const o::Outcome fill = u.receive(0, 5);                       // fills the hole: ePSN moves to 10
  EXPECT_EQ(fill.verdict, o::Verdict::kInOrder);
  EXPECT_EQ(u.epsn(0), 10u);
  std::string why;
  EXPECT_TRUE(u.check_invariants(&why)) << why;
  u.open(0, 100, 0);  // reopened: its first packet is ACKed again
  EXPECT_EQ(fb(100), o::Feedback::kAck);
}
