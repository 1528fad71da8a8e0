// Network core tests (no SystemC kernel): serialization/propagation arithmetic,
// in-order delivery at OOO distance 0, the displacement bound of the OOO emulator
// over 10,000 random frames (checked by an independent count), arrival-order
// delivery through the output port, seeded random loss, ACK/NAK exemptions,
// network.drop_psns (listed PSNs dropped once, in their direction only) and its
// syntax errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/core/params.h"
#include "model/wire/roce.h"
#include "platforms/network/link_core.h"
#include "platforms/network/network_params.h"

namespace {

namespace w = oonic::wire;
using oonic::Error;
using oonic::network::DropReason;
using oonic::network::LinkCore;
using oonic::network::NetworkParams;

template <typename F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kConfig);
    return e.what();
  }
  ADD_FAILURE() << "expected an oonic::Error";
  return "";
}

std::vector<uint8_t> roce_frame(uint8_t opcode, uint32_t psn, uint32_t payload_len,
                                uint32_t qp = 0x11) {
  static const std::vector<uint8_t> payload(8192, 0x5A);
  w::FrameSpec s;
  s.bth.opcode = opcode;
  s.bth.dest_qp = qp;
  s.bth.psn = psn & w::kPsnMask;
  s.aeth.syndrome = opcode == w::kOooNak ? w::kAethNakPsnSeqErr : w::kAethAckNoCredit;
  s.bitmap.nbits = 16;  // used by the OOO NAK only
  s.bitmap.set(3);
  s.payload = payload.data();
  s.payload_len = payload_len;
  return w::build(s);
}

// A frame the sender puts on the wire, and what the core decided.
struct Sent {
  uint64_t start;
  std::vector<uint8_t> bytes;
  LinkCore::Decision d;
};

// n WRITE Middle frames of random payload (0..1024 B), back to back at line rate
// (PSN = index), through the core.
std::vector<Sent> send_line_rate(LinkCore& core, size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<Sent> v;
  v.reserve(n);
  uint64_t t = 1000;
  for (size_t i = 0; i < n; ++i) {
    Sent s;
    s.bytes = roce_frame(w::kWriteMiddle, static_cast<uint32_t>(i), g() % 1025);
    s.start = t;
    s.d = core.on_frame(t, s.bytes.data(), s.bytes.size(), i);
    t += core.serialization_ps(s.bytes.size());
    v.push_back(std::move(s));
  }
  return v;
}

std::vector<LinkCore::Delivery> drain(LinkCore& core) {
  std::vector<LinkCore::Delivery> out;
  while (core.pending()) {
    uint64_t t = core.next_delivery_ps();
    out.push_back(core.deliver());
    EXPECT_EQ(out.back().delivered_ps, t);
  }
  return out;
}

// Independent displacement: for each delivered frame, the frames with a higher
// sequence number delivered before it (Fenwick tree over sequence numbers).
std::vector<uint32_t> displacements(const std::vector<LinkCore::Delivery>& order, size_t n) {
  std::vector<uint32_t> fen(n + 2, 0), out;
  auto add = [&](size_t i) {
    for (; i < fen.size(); i += i & (~i + 1)) ++fen[i];
  };
  auto sum = [&](size_t i) {
    uint32_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += fen[i];
    return s;
  };
  for (size_t k = 0; k < order.size(); ++k) {
    size_t seq = order[k].seq;
    out.push_back(static_cast<uint32_t>(k - sum(seq)));
    add(seq);
  }
  return out;
}

// ---- parameters ----

TEST(NetworkParams, DescribeRegistersEveryKey) {
  NetworkParams p;
  oonic::ParamTable t;
  p.describe(t);
  for (const char* k : {"network.rate_gbps", "network.propagation_ns", "network.ooo_distance",
                        "network.ooo_max_delay_ns", "network.loss_rate", "network.drop_psns",
                        "network.reorder_acks", "network.loss_acks"}) {
    const oonic::ParamTable::Entry* e = t.find(k);
    ASSERT_NE(e, nullptr) << k;
    EXPECT_FALSE(e->unit.empty()) << k;
    EXPECT_FALSE(e->desc.empty()) << k;
  }
  EXPECT_EQ(t.find("network.rate_gbps")->default_text, "100");
  EXPECT_EQ(t.find("network.propagation_ns")->default_text, "1000");
  EXPECT_EQ(t.find("network.ooo_distance")->default_text, "0");
  t.set("network.ooo_distance", "8", "--set");
  t.set("network.drop_psns", "ab:3,ba:4-6", "--set");
  t.set("network.reorder_acks", "false", "--set");
  EXPECT_EQ(p.ooo_distance, 8u);
  EXPECT_EQ(p.drop_psns, "ab:3,ba:4-6");
  EXPECT_FALSE(p.reorder_acks);
  p.validate();
  config_error([&] { t.set("network.loss_rate", "1.5", "--set"); });
}

TEST(NetworkParams, DropRuleSyntax) {
  EXPECT_TRUE(oonic::network::parse_drop_psns("").empty());
  EXPECT_TRUE(oonic::network::parse_drop_psns("   ").empty());
  auto r = oonic::network::parse_drop_psns(" ab:5 , ba : 10-12,ab:16777215");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].dir, "ab");
  EXPECT_EQ(r[0].first, 5u);
  EXPECT_EQ(r[0].last, 5u);
  EXPECT_EQ(r[1].dir, "ba");
  EXPECT_EQ(r[1].first, 10u);
  EXPECT_EQ(r[1].last, 12u);
  EXPECT_EQ(r[2].first, 0xFFFFFFu);
  EXPECT_EQ(r[0].times, 1u);
  auto k = oonic::network::parse_drop_psns("ab:20*2, ba:3-4 * 3 @0x11");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].first, 20u);
  EXPECT_EQ(k[0].times, 2u);
  EXPECT_EQ(k[1].last, 4u);
  EXPECT_EQ(k[1].times, 3u);
  EXPECT_EQ(k[1].qpn, 0x11);
}

// ab:5*2: the first two frames carrying PSN 5 (a packet and its first resend) are lost,
// the third passes.
TEST(NetworkCore, DropPsnsTimesLosesTheFirstKFrames) {
  NetworkParams p;
  p.drop_psns = "ab:5*2";
  LinkCore core(p, "ab", 1);
  uint64_t t = 0;
  std::vector<bool> dropped;
  for (int i = 0; i < 4; ++i) {
    auto f = roce_frame(w::kWriteMiddle, 5, 64);
    dropped.push_back(core.on_frame(t += 100000, f.data(), f.size()).drop);
  }
  EXPECT_EQ(dropped, (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(core.counters().dropped_listed, 2u);
}

TEST(NetworkParams, BadDropRulesThrowNamingKeyAndRule) {
  const std::vector<std::pair<std::string, std::string>> bad = {{"xy:5", "xy:5"},
                                                                {"ab", "ab"},
                                                                {"ab:", "ab:"},
                                                                {"ab:5-", "ab:5-"},
                                                                {"ab:-5", "ab:-5"},
                                                                {"ab:7-3", "ab:7-3"},
                                                                {"ab:16777216", "16777216"},
                                                                {"ab:x", "ab:x"},
                                                                {"ab:5 6", "ab:5 6"},
                                                                {"ab:1,ba:0x10", "ba:0x10"},
                                                                {"ab:5,,ba:3", "ab:5,,ba:3"},
                                                                {"ab:5,", "ab:5,"},
                                                                {"AB:5", "AB:5"},
                                                                {"ab:1-2-3", "ab:1-2-3"},
                                                                {"ab:5*0", "ab:5*0"},
                                                                {"ab:5*", "ab:5*"},
                                                                {"ab:5*x", "ab:5*x"}};
  for (const auto& [text, named] : bad) {
    SCOPED_TRACE(text);
    NetworkParams p;
    p.drop_psns = text;
    std::string m = config_error([&] { p.validate(); });
    EXPECT_NE(m.find("network.drop_psns"), std::string::npos) << m;
    EXPECT_NE(m.find(named), std::string::npos) << m;
    // The core refuses the same parameters.
    config_error([&] { LinkCore c(p, "ab", 1); });
  }
}

TEST(NetworkParams, CrossChecks) {
  NetworkParams p;
  p.ooo_max_delay_ns = 500;
  std::string m = config_error([&] { p.validate(); });
  EXPECT_NE(m.find("network.ooo_max_delay_ns"), std::string::npos) << m;
  EXPECT_NE(m.find("network.ooo_distance"), std::string::npos) << m;
  p.ooo_distance = 1;
  p.validate();
  p.loss_rate = -0.1;
  config_error([&] { p.validate(); });
  NetworkParams q;
  config_error([&] { LinkCore c(q, "", 1); });  // a link needs a direction name
  LinkCore fabric_link(q, "h3.uplink", 1);      // a fabric link's: no drop rule names it
  q.drop_psns = "ab:1";
  LinkCore named(q, "h3.uplink", 1);
  auto f = roce_frame(0x0A, 1, 64);
  EXPECT_FALSE(named.on_frame(0, f.data(), f.size()).drop);
}

// ---- timing ----

// 1000-byte frame at 100 Gbit/s: 1000 + 4 FCS + 20 preamble/IFG = 1024 B = 8192 bit
// = 81.92 ns; + 1000 ns propagation. Started at 5000 ps: last byte at
// 5000 + 81920 + 1000000 = 1086920 ps. A 40-byte frame is padded to 60 B:
// 84 B = 6720 ps.
TEST(NetworkCore, SerializationAndPropagationExact) {
  NetworkParams p;
  LinkCore core(p, "ab", 1);
  EXPECT_EQ(core.serialization_ps(1000), 81920u);
  EXPECT_EQ(core.serialization_ps(40), 6720u);
  EXPECT_EQ(core.propagation_ps(), 1000000u);
  EXPECT_EQ(core.max_jitter_ps(), 0u);
  std::vector<uint8_t> f(1000, 0);
  LinkCore::Decision d = core.on_frame(5000, f.data(), f.size());
  EXPECT_FALSE(d.drop);
  EXPECT_FALSE(d.roce);
  EXPECT_EQ(d.seq, 1u);
  EXPECT_EQ(d.ser_ps, 81920u);
  EXPECT_EQ(d.extra_ps, 0u);
  EXPECT_EQ(d.arrival_ps, 1086920u);
  ASSERT_TRUE(core.pending());
  EXPECT_EQ(core.next_delivery_ps(), 1086920u);
  LinkCore::Delivery r = core.deliver();
  EXPECT_EQ(r.delivered_ps, 1086920u);
  EXPECT_EQ(r.start_ps, 5000u);
  EXPECT_EQ(r.len, 1000u);
  EXPECT_FALSE(core.pending());

  // A real RoCE frame of exactly 1002 B (WRITE Middle, 944 B payload) at 25 Gbit/s,
  // 250 ns: 1026 B x 320 ps = 328320 ps.
  NetworkParams q;
  q.rate_gbps = 25;
  q.propagation_ns = 250;
  LinkCore c2(q, "ba", 1);
  auto rf = roce_frame(w::kWriteMiddle, 77, 944);
  ASSERT_EQ(rf.size(), 1002u);
  d = c2.on_frame(0, rf.data(), rf.size());
  EXPECT_TRUE(d.roce);
  EXPECT_EQ(d.psn, 77u);
  EXPECT_EQ(d.arrival_ps, 328320u + 250000u);
}

// D derived from the distance: d x ser(4158 B frame) = d x 4182 x 80 ps at 100 Gbit/s.
TEST(NetworkCore, DerivedMaxDelay) {
  NetworkParams p;
  p.ooo_distance = 4;
  EXPECT_EQ(p.max_jitter_ps(), 4u * 334560u);
  p.ooo_max_delay_ns = 123.456;
  EXPECT_EQ(p.max_jitter_ps(), 123456u);
  p.ooo_distance = 0;
  p.ooo_max_delay_ns = 0;
  EXPECT_EQ(p.max_jitter_ps(), 0u);
}

TEST(NetworkCore, NoReorderingAtDistanceZero) {
  NetworkParams p;
  LinkCore core(p, "ab", 7);
  auto sent = send_line_rate(core, 10000, 3);
  auto out = drain(core);
  ASSERT_EQ(out.size(), sent.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i].seq, i + 1);
    const Sent& s = sent[i];
    uint64_t expect = s.start + core.serialization_ps(s.bytes.size()) + 1000000;
    ASSERT_EQ(s.d.arrival_ps, expect) << i;
    ASSERT_EQ(out[i].delivered_ps, expect) << i;
    ASSERT_EQ(out[i].displacement, 0u);
  }
  EXPECT_EQ(core.counters().reordered, 0u);
  EXPECT_EQ(core.counters().max_displacement, 0u);
  EXPECT_EQ(core.counters().jittered, 0u);
  EXPECT_EQ(core.counters().output_waits, 0u);
  EXPECT_EQ(core.counters().sender_overlap, 0u);
  EXPECT_EQ(core.counters().frames_delivered, 10000u);
}

// The OOO emulator over 10,000 frames: no frame is overtaken by d or more frames
// sent after it; for d >= 2 reordering happens; frames leave in (arrival, seq)
// order and the output port spaces them by their serialization.
TEST(NetworkCore, DistanceBoundHolds) {
  for (uint32_t dist : {1u, 2u, 3u, 8u, 64u}) {
    for (uint64_t seed : {1u, 2u}) {
      SCOPED_TRACE("distance " + std::to_string(dist) + " seed " + std::to_string(seed));
      NetworkParams p;
      p.ooo_distance = dist;
      LinkCore core(p, "ab", seed);
      auto sent = send_line_rate(core, 10000, seed + 100);
      auto out = drain(core);
      ASSERT_EQ(out.size(), sent.size());
      auto disp = displacements(out, sent.size());
      uint32_t max_disp = 0;
      uint64_t reordered = 0, prev_delivered = 0;
      std::set<uint64_t> in_flight;
      for (size_t i = 1; i <= sent.size(); ++i) in_flight.insert(i);
      for (size_t k = 0; k < out.size(); ++k) {
        const LinkCore::Delivery& r = out[k];
        const Sent& s = sent[r.seq - 1];
        ASSERT_EQ(r.arrival_ps, s.d.arrival_ps);
        ASSERT_GE(s.d.arrival_ps, s.start + s.d.ser_ps + 1000000);
        // Random part of the extra delay is within [0, D]; the bound may add more.
        if (k > 0) {
          const LinkCore::Delivery& q = out[k - 1];
          ASSERT_TRUE(q.arrival_ps < r.arrival_ps ||
                      (q.arrival_ps == r.arrival_ps && q.seq < r.seq))
              << "not in arrival order at " << k;
        }
        ASSERT_EQ(r.delivered_ps, std::max(r.arrival_ps, prev_delivered + s.d.ser_ps));
        prev_delivered = r.delivered_ps;
        ASSERT_EQ(r.displacement, disp[k]) << k;
        max_disp = std::max(max_disp, disp[k]);
        reordered += *in_flight.begin() < r.seq;
        ASSERT_EQ(r.reordered, *in_flight.begin() < r.seq);
        in_flight.erase(r.seq);
      }
      EXPECT_LT(max_disp, dist);
      EXPECT_EQ(core.counters().max_displacement, max_disp);
      EXPECT_EQ(core.counters().reordered, reordered);
      EXPECT_GT(core.counters().jittered, 9000u);
      if (dist >= 2) {
        EXPECT_GT(reordered, 100u);
        EXPECT_EQ(max_disp, dist - 1) << "the bound is reached with 10,000 frames";
      } else {
        EXPECT_EQ(reordered, 0u);
        EXPECT_GT(core.counters().bound_pushed, 0u);
      }
    }
  }
}

// With an explicit D far above the distance, the bound does the work; with small
// frames it pushes most of them, and still no frame is overtaken by d frames.
TEST(NetworkCore, DistanceBoundWithLargeExplicitDelay) {
  NetworkParams p;
  p.ooo_distance = 5;
  p.ooo_max_delay_ns = 20000;
  LinkCore core(p, "ba", 9);
  auto sent = send_line_rate(core, 10000, 11);
  auto out = drain(core);
  auto disp = displacements(out, sent.size());
  EXPECT_EQ(*std::max_element(disp.begin(), disp.end()), 4u);
  EXPECT_EQ(core.counters().max_displacement, 4u);
  EXPECT_GT(core.counters().bound_pushed, 1000u);
  EXPECT_GT(core.counters().output_waits, 0u);
}

TEST(NetworkCore, LossRateAboutOnePercentAndSeeded) {
  auto dropped = [](uint64_t seed, const std::string& dir) {
    NetworkParams p;
    p.loss_rate = 0.01;
    LinkCore core(p, dir, seed);
    std::vector<uint64_t> seqs;
    auto f = roce_frame(w::kWriteMiddle, 0, 64);
    for (uint64_t i = 0; i < 50000; ++i) {
      auto d = core.on_frame(i * 100000, f.data(), f.size());
      if (d.drop) {
        EXPECT_EQ(d.reason, DropReason::kRandom);
        seqs.push_back(d.seq);
      }
    }
    EXPECT_EQ(core.counters().dropped_random, seqs.size());
    EXPECT_EQ(core.in_flight(), 50000 - seqs.size());
    return seqs;
  };
  auto a = dropped(42, "ab");
  // Binomial(50000, 0.01): mean 500, sigma 22.2; +-5 sigma.
  EXPECT_GT(a.size(), 389u);
  EXPECT_LT(a.size(), 611u);
  EXPECT_EQ(dropped(42, "ab"), a);
  auto b = dropped(43, "ab");
  EXPECT_NE(b, a);
  EXPECT_GT(b.size(), 389u);
  EXPECT_LT(b.size(), 611u);
  EXPECT_NE(dropped(42, "ba"), a);
}

// reorder_acks = false: ACK/NAK frames get only propagation; loss_acks = false:
// they are never lost to loss_rate.
TEST(NetworkCore, AckExemptions) {
  NetworkParams p;
  p.ooo_distance = 8;
  p.reorder_acks = false;
  p.loss_acks = false;
  p.loss_rate = 0.5;
  LinkCore core(p, "ab", 5);
  uint64_t t = 0, data_lost = 0, data_jittered = 0, acks = 0;
  for (uint32_t i = 0; i < 4000; ++i) {
    bool ack = i % 2;
    auto f = ack ? roce_frame(i % 4 == 1 ? w::kAcknowledge : w::kOooNak, i, 0)
                 : roce_frame(w::kWriteMiddle, i, 256);
    auto d = core.on_frame(t, f.data(), f.size());
    EXPECT_EQ(d.ack, ack);
    if (ack) {
      ++acks;
      EXPECT_FALSE(d.drop) << i;
      EXPECT_EQ(d.arrival_ps, t + d.ser_ps + 1000000) << i;
    } else {
      data_lost += d.drop;
      data_jittered += !d.drop && d.extra_ps > 0;
    }
    t += d.ser_ps;
  }
  EXPECT_EQ(core.counters().acks, acks);
  EXPECT_GT(data_lost, 800u);
  EXPECT_LT(data_lost, 1200u);
  EXPECT_GT(data_jittered, 500u);
  // Default: ACKs are jittered and lost like every other frame.
  NetworkParams q;
  q.ooo_distance = 8;
  q.loss_rate = 0.5;
  LinkCore c2(q, "ab", 5);
  uint64_t ack_lost = 0, ack_jittered = 0;
  auto f = roce_frame(w::kAcknowledge, 1, 0);
  for (uint32_t i = 0; i < 2000; ++i) {
    auto d = c2.on_frame(i * 10000ull, f.data(), f.size());
    ack_lost += d.drop;
    ack_jittered += !d.drop && d.extra_ps > 0;
  }
  EXPECT_GT(ack_lost, 800u);
  EXPECT_GT(ack_jittered, 500u);
}

// ab:5, ab:10-12, ba:7: each PSN dropped the first time a RoCE frame carrying it
// passes in its direction (any QP); a non-RoCE frame is never dropped by PSN.
TEST(NetworkCore, DropPsnsListedOnceAndOnlyInTheirDirection) {
  NetworkParams p;
  p.drop_psns = "ab:5, ab:10-12 ,ba:7";
  for (const std::string dir : {"ab", "ba"}) {
    SCOPED_TRACE(dir);
    LinkCore core(p, dir, 1);
    std::vector<uint8_t> not_roce = roce_frame(w::kWriteMiddle, 5, 64);
    not_roce[14 + 20 + 2] = 0x13;  // UDP destination port 4791 (0x12B7) -> 0x13B7
    uint64_t t = 0;
    auto d0 = core.on_frame(t, not_roce.data(), not_roce.size());
    EXPECT_FALSE(d0.roce);
    EXPECT_FALSE(d0.drop);
    std::vector<std::pair<uint32_t, uint32_t>> drops;  // (pass, psn)
    for (uint32_t pass = 0; pass < 3; ++pass)
      for (uint32_t psn = 0; psn <= 20; ++psn) {
        auto f = roce_frame(w::kWriteMiddle, psn, 64, pass == 1 ? 0x99 : 0x11);
        auto d = core.on_frame(t += 100000, f.data(), f.size());
        if (d.drop) {
          EXPECT_EQ(d.reason, DropReason::kListed);
          drops.push_back({pass, psn});
        }
      }
    // An ACK carrying a listed PSN that was already dropped passes too.
    auto ack = roce_frame(w::kAcknowledge, dir == "ab" ? 5 : 7, 0);
    EXPECT_FALSE(core.on_frame(t += 100000, ack.data(), ack.size()).drop);
    std::vector<std::pair<uint32_t, uint32_t>> expect;
    if (dir == "ab")
      expect = {{0, 5}, {0, 10}, {0, 11}, {0, 12}};
    else
      expect = {{0, 7}};
    EXPECT_EQ(drops, expect);
    EXPECT_EQ(core.counters().dropped_listed, expect.size());
    EXPECT_EQ(core.counters().dropped_random, 0u);
  }
}

// A rule limited to a destination QP drops that QP's frames only, once per PSN.
TEST(NetworkCore, DropPsnsLimitedToOneQp) {
  NetworkParams p;
  p.drop_psns = "ab:3-4@0x99";
  p.validate();
  LinkCore core(p, "ab", 1);
  uint64_t t = 0;
  std::vector<std::pair<uint32_t, uint32_t>> drops;  // (qpn, psn)
  for (uint32_t pass = 0; pass < 2; ++pass)
    for (uint32_t qpn : {0x11u, 0x99u})
      for (uint32_t psn = 0; psn < 8; ++psn) {
        auto f = roce_frame(w::kWriteMiddle, psn, 64, qpn);
        if (core.on_frame(t += 100000, f.data(), f.size()).drop) drops.push_back({qpn, psn});
      }
  std::vector<std::pair<uint32_t, uint32_t>> expect = {{0x99, 3}, {0x99, 4}};
  EXPECT_EQ(drops, expect);
  p.drop_psns = "ab:3@qp9";
  EXPECT_THROW(p.validate(), Error);
}

// A sender that announces a start while its previous frame is still on its
// wire: the frame starts when the previous one ended (counted).
TEST(NetworkCore, SenderOverlapGuard) {
  NetworkParams p;
  LinkCore core(p, "ab", 1);
  std::vector<uint8_t> big(1000, 0), small(60, 0);
  auto a = core.on_frame(0, big.data(), big.size());
  auto b = core.on_frame(0, small.data(), small.size());
  EXPECT_EQ(a.arrival_ps, 81920u + 1000000u);
  EXPECT_EQ(b.start_ps, 81920u);
  EXPECT_EQ(b.arrival_ps, 81920u + 6720u + 1000000u);
  EXPECT_EQ(core.counters().sender_overlap, 1u);
  auto out = drain(core);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].seq, 1u);
  EXPECT_EQ(out[1].seq, 2u);
}

}  // namespace
