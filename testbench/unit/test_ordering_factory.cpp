// nic.ordering: every scheme is built with the NIC's window and pool, and its
// feedback is turned into the OOO NAK block the requester resends from.
#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/eunomia/packet_driver_core.h"
#include "model/ornic/rx/feedback.h"
#include "model/schemes/receive_schemes.h"

namespace oonic {
namespace {

// Every scheme the factory builds tracks the NIC's QP window of 20 x 16 = 320 PSNs: with
// PSN 101 missing, the packets 102 .. 100 + 319 arrive in order of PSN (always at the end
// of what is held, so MELO's no-middle rule does not bite) and are tracked out of order
// (go-back-N, the in-order NIC, drops them); a packet one window past ePSN is not taken;
// the missing PSN then moves ePSN over everything held, and the QP holds what it held
// idle again at most (0 for the pooled schemes; the static bitmaps and MP-RDMA's slots keep their
// fixed size; Eunomia frees its bitmap at the message's last packet).
TEST(OrderingFactory, EverySchemeBuildsAndTracksTheWindow) {
  ordering::SchemeGeometry g;  // 20 x 16 = 320 PSNs per QP
  const uint32_t w = g.nodes_per_qp * g.block_bits;
  ASSERT_EQ(w, 320u);
  for (const auto& name : ordering::scheme_names()) {
    SCOPED_TRACE(name);
    auto u = ordering::make_unit(name, g);
    EXPECT_EQ(std::string(u->name()), name);
    const bool gbn = name == "gbn" || name == "uet-rod";  // in-order receivers
    u->open(3, 100, 64);
    EXPECT_TRUE(u->is_open(3));
    EXPECT_FALSE(u->is_open(4));
    EXPECT_EQ(u->epsn(3), 100u);
    auto in = u->receive(3, 100);
    EXPECT_EQ(in.verdict, ordering::Verdict::kInOrder);
    EXPECT_EQ(u->epsn(3), 101u);
    const uint32_t idle = u->blocks_held(3);
    ordering::PacketMeta meta;
    meta.has_head = true, meta.head = 100;  // Eunomia's metadata; the others ignore it
    for (uint32_t psn = 102; psn < 100 + w; ++psn) {
      meta.last = psn == 100 + w - 1;
      const auto o = u->receive(3, psn, meta);
      ASSERT_EQ(o.verdict, gbn ? ordering::Verdict::kUntrackable : ordering::Verdict::kOutOfOrder)
          << "PSN " << psn << ": " << ordering::to_string(o.verdict);
      ASSERT_EQ(u->epsn(3), 101u) << psn;
    }
    if (!gbn) {
      EXPECT_GE(u->blocks_held(3), idle);
      if (idle == 0) {
        EXPECT_GT(u->blocks_held(3), 0u);
      }
    }
    meta.last = false;
    // One window past ePSN 101 is beyond every scheme's reach.
    const auto far = u->receive(3, 101 + w, meta);
    EXPECT_NE(far.verdict, ordering::Verdict::kInOrder);
    EXPECT_NE(far.verdict, ordering::Verdict::kOutOfOrder);
    EXPECT_EQ(u->epsn(3), 101u);
    // The hole fills: ePSN jumps past the window's packets (go-back-N: one step).
    const auto fill = u->receive(3, 101, meta);
    EXPECT_EQ(fill.verdict, ordering::Verdict::kInOrder);
    EXPECT_EQ(u->epsn(3), gbn ? 102u : 100u + w);
    EXPECT_EQ(u->receive(3, 101, meta).verdict, ordering::Verdict::kDuplicate);
    // ePSN 420 sits on a block boundary: ORNIC's partly filled head block (idle 1) is gone.
    EXPECT_LE(u->blocks_held(3), idle);
    std::string why;
    EXPECT_TRUE(u->check_invariants(&why)) << why;
    EXPECT_GT(ordering::qp_state_bits(name, g), 0u);
  }
  EXPECT_THROW(ordering::make_unit("tcp", g), Error);
}

// Eunomia's packet driver spreads QPs over HD bitmap modules of 256 connections,
// each with its own master_array; a QP's bitmap lives in its module only.
TEST(OrderingFactory, PacketDriverCoreMapsQpsToModules) {
  ordering::SchemeGeometry g;
  auto u = ordering::make_unit("eunomia", g);
  auto& d = dynamic_cast<eunomia::PacketDriverCore&>(*u);
  EXPECT_EQ(d.modules(), 8u);  // 2048 / 256
  for (uint32_t qp : {0u, 255u, 256u, 2047u}) u->open(qp, 10, 64);
  ordering::PacketMeta m;
  for (uint32_t qp : {255u, 256u}) {
    auto o = u->receive(qp, 12, m);  // ahead of ePSN 10: the module creates a bitmap
    EXPECT_EQ(o.verdict, ordering::Verdict::kOutOfOrder) << qp;
    EXPECT_EQ(o.feedback, ordering::Feedback::kSack) << qp;
    EXPECT_GT(u->blocks_held(qp), 0u) << qp;
  }
  EXPECT_EQ(u->blocks_held(0), 0u);
  EXPECT_EQ(d.module(0).creations(), 1u);  // QP 255
  EXPECT_EQ(d.module(1).creations(), 1u);  // QP 256
  EXPECT_EQ(d.module(7).creations(), 0u);
  std::string why;
  EXPECT_TRUE(u->check_invariants(&why)) << why;
}

TEST(OrderingFactory, SelectiveFeedbackBlocks) {
  wire::BitmapBlock b;
  ordering::Outcome o;
  EXPECT_FALSE(ornic::selective_feedback(o, 5, &b));
  // SACK of an out-of-order packet: resend ePSN (the first hole) only.
  o.feedback = ordering::Feedback::kSack;
  o.verdict = ordering::Verdict::kOutOfOrder;
  o.epsn = 40;
  ASSERT_TRUE(ornic::selective_feedback(o, 45, &b));
  EXPECT_EQ(b.base_psn, 40u);
  EXPECT_EQ(b.nbits, 1);
  EXPECT_FALSE(b.test(0));
  o.verdict = ordering::Verdict::kInOrder;  // an in-order SACK asks for nothing
  EXPECT_FALSE(ornic::selective_feedback(o, 40, &b));
  // MELO's NACK: exactly its holes are 0.
  o = ordering::Outcome{};
  o.feedback = ordering::Feedback::kHoleNack;
  o.holes[0] = {20, 2};
  o.holes[1] = {10, 1};
  o.nholes = 2;
  ASSERT_TRUE(ornic::selective_feedback(o, 30, &b));
  EXPECT_EQ(b.base_psn, 10u);
  for (uint32_t i = 0; i < b.nbits; ++i) EXPECT_EQ(b.test(i), !(i == 0 || i == 10 || i == 11)) << i;
  // NACK (beyond the window): that PSN.
  o = ordering::Outcome{};
  o.feedback = ordering::Feedback::kNack;
  ASSERT_TRUE(ornic::selective_feedback(o, 0xFFFFFF, &b));
  EXPECT_EQ(b.base_psn, 0xFFFFFFu);
  EXPECT_EQ(b.nbits, 1);
  // ORNIC's own NAK block passes through.
  o = ordering::Outcome{};
  o.nak = true;
  o.nak_block.base_psn = 7;
  o.nak_block.nbits = 16;
  o.nak_block.set(3);
  ASSERT_TRUE(ornic::selective_feedback(o, 9, &b));
  EXPECT_EQ(b.base_psn, 7u);
  EXPECT_TRUE(b.test(3));
}

}  // namespace
}  // namespace oonic
