// HPCC's rate core (model/sender/hpcc.h) and the switches' INT stamping core
// (platforms/network/hooks/int_stamp.h), without the kernel. Every expected number is
// derived by hand from HPCC's Algorithm 1 in the comments: T = 10 us, line 100 Gbit/s,
// eta 0.95, W_AI 50 Mbit/s (0.05 Gbit/s), maxStage 5.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/core/stats.h"
#include "model/sender/hpcc.h"
#include "model/wire/roce.h"
#include "platforms/network/hooks/int_stamp.h"
#include "testbench/common/fake_send_state.h"

namespace {

using oonic::StatGroup;
using oonic::Stats;
namespace sender = oonic::sender;
namespace wire = oonic::wire;

// One QP: [una, high) sent.
using State = oonic::testing::FakeSendState;

// A one-hop stack: the hop at time t (ns), having sent `bytes` on a 100 G port with
// `qlen` queued (units of 128 / 80 B: the numbers below are multiples).
wire::IntStack stack(uint64_t t, uint64_t bytes, uint64_t qlen, uint32_t hops = 1) {
  wire::IntStack s;
  s.nhop = static_cast<uint8_t>(hops);
  s.max_hops = 5;
  s.multi = 1;
  for (uint32_t i = 0; i < hops; ++i)
    s.hop[i] = wire::IntHop::make(t, bytes, qlen, wire::int_rate_code(100), 1);
  return s;
}

struct Rig {
  Stats stats;
  sender::HpccParams p;
  State st;
  Rig() { p.base_rtt_us = 10; }
  sender::Hpcc make() { return sender::Hpcc(p, 1000, 100, 4, StatGroup(stats, "tx.rate")); }
};

TEST(Hpcc, FirstStackOnlyStoresTheReferencesThenAFullUpdateCutsToEtaOverU) {
  Rig r;
  sender::Hpcc h = r.make();
  r.st.high_ = 100;
  // The first ACK with a stack: references only, the rate stays at line rate.
  EXPECT_FALSE(h.on_int(0, 0, 9, stack(0, 0, 0), r.st));
  EXPECT_DOUBLE_EQ(h.rate_gbps(0), 100);
  // lastUpdateSeq = 100 (high then). An ACK of PSN 99 (next expected 100) is not past it:
  // a fast reaction. tau = 1000 ns, 11,904 B (93 units of 128) sent: txRate = 95.232
  // Gbit/s, U = 0.95232 (no queue); u = (1 x 9000 + 0.95232 x 1000) / 10000 (u starts at
  // 1); R = Rc / (u / eta) + W_AI with Rc = 100; Rc itself stays.
  r.st.high_ = 150;
  h.on_int(0, 1, 99, stack(1000, 11904, 0), r.st);
  const double u1 = (9000 + 0.95232 * 1000) / 10000;
  EXPECT_DOUBLE_EQ(h.utilization(0), u1);
  EXPECT_NEAR(h.rate_gbps(0), 100 / (u1 / 0.95) + 0.05, 1e-9);
  EXPECT_DOUBLE_EQ(h.reference_gbps(0), 100);
  EXPECT_EQ(r.stats.counter_value("tx.rate.fast_reacts"), 1u);
  // An ACK of PSN 100 is past it: the full update commits Rc (lastUpdateSeq = 150). The
  // same 95.232 Gbit/s; the queue, min(10,000 now, 0 before) = 0.
  h.on_int(0, 2, 100, stack(2000, 23808, 10000), r.st);
  const double u2 = (u1 * 9000 + 0.95232 * 1000) / 10000;
  EXPECT_DOUBLE_EQ(h.utilization(0), u2);
  const double r2 = 100 / (u2 / 0.95) + 0.05;
  EXPECT_NEAR(h.rate_gbps(0), r2, 1e-9);
  EXPECT_NEAR(h.reference_gbps(0), r2, 1e-9);
  EXPECT_EQ(h.stage(0), 0u);
  EXPECT_EQ(r.stats.counter_value("tx.rate.rate_updates"), 1u);
  EXPECT_EQ(r.stats.counter_value("tx.rate.multiplicative_steps"), 1u);
  // tau = 10,000 ns = T: u = U. 119,040 B (930 units) in it: 95.232 Gbit/s again; the
  // queue term min(20,000, 10,000) x 8 / (100 x 10,000) = 0.08: U = 1.03232.
  r.st.high_ = 300;
  h.on_int(0, 3, 160, stack(12000, 23808 + 119040, 20000), r.st);
  EXPECT_NEAR(h.utilization(0), 1.03232, 1e-12);
  EXPECT_NEAR(h.rate_gbps(0), r2 / (1.03232 / 0.95) + 0.05, 1e-9);
}

// Below the target, maxStage additive steps of W_AI, then a multiplicative one.
TEST(Hpcc, AdditiveStepsUpToMaxStageThenMultiplicative) {
  Rig r;
  r.p.max_stage = 2;
  sender::Hpcc h = r.make();
  r.st.high_ = 10;
  h.on_int(0, 0, 0, stack(0, 0, 131280), r.st);
  // A cut first: tau = T, 119,040 B (95.232 Gbit/s) and a queue of 131,280 B both times:
  // U = 0.95232 + 131280 x 8 / 10^6 = 2.00256 = u; R1 = 100 / (u / 0.95) + 0.05, stage 0.
  r.st.high_ = 30;
  h.on_int(0, 0, 20, stack(10000, 119040, 131280), r.st);
  const double r1 = 100 / (2.00256 / 0.95) + 0.05;
  EXPECT_NEAR(h.rate_gbps(0), r1, 1e-9);
  // Then half load, no queue: 62,464 B (488 units) per T: U = u = 0.499712, u / eta < 1.
  // Stage 0 -> 1 -> 2: Rc + W_AI each; at stage 2 (maxStage) Rc / (u / eta) + W_AI.
  const double c = 0.499712 / 0.95;
  const double expect[] = {r1 + 0.05, r1 + 0.1, (r1 + 0.1) / c + 0.05};
  uint64_t t = 10000, bytes = 119040;
  uint32_t psn = 30;
  for (double want : expect) {
    t += 10000, bytes += 62464, psn += 10;
    r.st.high_ = psn + 10;
    h.on_int(0, 0, psn, stack(t, bytes, 0), r.st);
    EXPECT_NEAR(h.rate_gbps(0), want, 1e-9);
  }
  EXPECT_EQ(h.stage(0), 0u);
  EXPECT_EQ(r.stats.counter_value("tx.rate.additive_steps"), 2u);
  EXPECT_EQ(r.stats.counter_value("tx.rate.multiplicative_steps"), 2u);
}

// The window scales with the rate (VAR_WIN): line x T / 8 = 125,000 B at 100 Gbit/s; the
// QP may not pick a packet while (send - una) x PMTU reaches it.
TEST(Hpcc, WindowIsTheBdpScaledByTheRate) {
  Rig r;
  sender::Hpcc h = r.make();
  EXPECT_DOUBLE_EQ(h.window_bytes(0), 125000);
  r.st.una_ = 0, r.st.send_ = 122;  // 122 x 1024 = 124,928 < 125,000
  EXPECT_EQ(h.send_at(0, 5, r.st, false), 5u);
  r.st.send_ = 123;  // 125,952
  EXPECT_EQ(h.send_at(0, 5, r.st, false), oonic::kNever);
  // After a cut to about 95.5 Gbit/s the window is 125,000 x R / 100.
  r.st.high_ = 100;
  h.on_int(0, 0, 9, stack(0, 0, 0), r.st);
  h.on_int(0, 1, 100, stack(1000, 11875, 0), r.st);
  EXPECT_NEAR(h.window_bytes(0), 125000 * h.rate_gbps(0) / 100, 1e-6);
  r.st.send_ = 117;  // 119,808 B: above 125,000 x 0.955
  EXPECT_EQ(h.send_at(0, 5, r.st, false), oonic::kNever);
}

// A stack over another path (another hop count) replaces the references; a hop whose
// record did not change (tau 0) is skipped; every data packet leaves with an empty stack
// of int_hops records.
TEST(Hpcc, PathChangeRefsOnlyAndTheEmptyStackOfEveryPacket) {
  Rig r;
  r.p.int_hops = 3;
  sender::Hpcc h = r.make();
  r.st.high_ = 10;
  h.on_int(0, 0, 0, stack(0, 0, 0, 2), r.st);
  h.on_int(0, 1, 20, stack(1000, 11875, 0, 3), r.st);  // 3 hops now: references only
  EXPECT_DOUBLE_EQ(h.rate_gbps(0), 100);
  h.on_int(0, 2, 30, stack(1000, 11875, 0, 3), r.st);  // tau 0 on every hop: nothing
  EXPECT_DOUBLE_EQ(h.rate_gbps(0), 100);
  EXPECT_EQ(r.stats.counter_value("tx.rate.rate_updates"), 0u);
  wire::FrameSpec f;
  f.bth.opcode = wire::kWriteMiddle;
  h.tag(0, f);
  EXPECT_TRUE(f.bth.resv7 & wire::kBthIntBit);
  ASSERT_NE(f.int_stack, nullptr);
  EXPECT_EQ(f.int_stack->max_hops, 3);
  EXPECT_EQ(f.int_stack->nhop, 0);
}

// The switch's core: it counts every frame's bytes per port and stamps only data frames
// with a stack: the bytes the port sent before the frame, the bytes left queued, the
// port's rate, the time in ns; the first stamp writes its units into the footer.
TEST(IntStamper, StampsDataFramesWithWhatThePortSentBeforeThem) {
  oonic::network::IntStamper s(2, 2);
  wire::IntStack empty;
  empty.max_hops = 2;
  std::vector<uint8_t> payload(100, 1);
  wire::FrameSpec d;
  d.bth.opcode = wire::kWriteMiddle;
  d.bth.resv7 = wire::kBthIntBit;
  d.int_stack = &empty;
  d.payload = payload.data(), d.payload_len = 100;
  std::vector<uint8_t> a = wire::build(d), b = wire::build(d);
  wire::FrameSpec plain = d;
  plain.bth.resv7 = 0;
  std::vector<uint8_t> p = wire::build(plain);
  bool approx = false;
  using R = oonic::network::IntStamper::Result;
  EXPECT_EQ(s.depart(p.data(), p.size(), 1, 5000000, 0, 40, &approx), R::kNone);  // no stack
  EXPECT_EQ(s.depart(a.data(), a.size(), 1, 7000000, 2560, 40, &approx), R::kStamped);
  EXPECT_FALSE(approx);
  wire::PacketView v;
  ASSERT_EQ(wire::parse(a.data(), a.size(), v), wire::ParseStatus::kOk);  // ICRC rewritten
  EXPECT_EQ(v.int_stack.nhop, 1);
  EXPECT_EQ(v.int_stack.multi, 2);
  const wire::IntHop h = v.int_stack.hop(0);
  EXPECT_EQ(h.time_ns(), 7000u);
  EXPECT_DOUBLE_EQ(h.gbps(), 40);
  EXPECT_EQ(h.qlen_bytes(2), 2560u);  // 16 units of 160 B
  // Bytes sent before it: the plain frame's, in units of 256 B (rounded down).
  EXPECT_EQ(h.bytes_delta(wire::IntHop::make(0, 0, 0, 0, 2), 2), p.size() / 256 * 256);
  EXPECT_EQ(s.tx_bytes(1), p.size() + a.size());
  // A rate without a code: the nearest (50 for 48 Gbit/s), flagged.
  EXPECT_EQ(s.depart(b.data(), b.size(), 0, 0, 0, 48, &approx), R::kStamped);
  EXPECT_TRUE(approx);
  // An ACK echoing a stack is not stamped; a full stack is passed.
  wire::FrameSpec ack;
  ack.bth.opcode = wire::kAcknowledge;
  ack.bth.resv7 = wire::kBthIntBit;
  ack.int_stack = &empty;
  std::vector<uint8_t> k = wire::build(ack);
  EXPECT_EQ(s.depart(k.data(), k.size(), 0, 0, 0, 40, &approx), R::kNone);
  ASSERT_EQ(s.depart(a.data(), a.size(), 1, 0, 0, 40, &approx), R::kStamped);
  EXPECT_EQ(s.depart(a.data(), a.size(), 1, 0, 0, 40, &approx), R::kFull);
}

}  // namespace
