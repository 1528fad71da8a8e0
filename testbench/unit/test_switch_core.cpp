// The switch core (platforms/network/switch_core.h), without the kernel: times
// and admissions derived by hand from the model's rules.
#include "platforms/network/hooks/red_ecn.h"
#include "platforms/network/switch_core.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "model/core/error.h"

namespace oonic::network {
namespace {

// A 1000-byte frame is 1024 bytes on the wire (FCS 4, preamble + IFG 20): at
// 100 Gbit/s 1024 x 8 / 100 ns = 81.92 ns.
constexpr uint64_t kSer1000 = 81920;

SwitchParams lossy() {
  SwitchParams p;
  p.hooks.find<RedParams>("red_ecn")->ecn = false;
  return p;
}

// Lossless: PFC on with these thresholds (bytes) and 100 quanta an XOFF.
SwitchParams lossless(uint64_t xoff, uint64_t xon, uint64_t headroom) {
  SwitchParams p = lossy();
  p.pfc = true;
  p.xoff_bytes = xoff;
  p.xon_bytes = xon;
  p.headroom_bytes = headroom;
  p.pause_quanta = 100;
  return p;
}

// Starts frames on `port` whenever it can, until nothing is left; returns them.
std::vector<SwitchCore::Departure> drain(SwitchCore& s, uint32_t port) {
  std::vector<SwitchCore::Departure> out;
  for (uint64_t t; (t = s.next_start_ps(port)) != UINT64_MAX;) {
    auto d = s.start_next(port, t);
    EXPECT_TRUE(d.has_value()) << "next_start_ps said " << t;
    if (!d) break;
    out.push_back(*d);
  }
  return out;
}

TEST(SwitchCore, FramesQueueBehindEachOtherAtTheLinkRate) {
  SwitchParams p = lossy();
  p.latency_ns = 500;
  SwitchCore s(p, {100, 100}, "sw");
  EXPECT_EQ(s.serialization_ps(0, 1000), kSer1000);
  for (uint64_t k = 0; k < 5; ++k) ASSERT_TRUE(s.enqueue(0, 1, {k, 1000, 1, false, 0}).accepted);
  EXPECT_EQ(s.queue_bytes(1, 1), 5000u);
  auto d = drain(s, 1);
  ASSERT_EQ(d.size(), 5u);
  // The first leaves after the port-to-port latency; each next one when the last byte
  // of the previous has gone: frame k ends at 500 ns + (k + 1) x 81.92 ns.
  for (uint64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(d[k].frame.tag, k);
    EXPECT_EQ(d[k].start_ps, 500000 + k * kSer1000);
    EXPECT_EQ(d[k].end_ps, 500000 + (k + 1) * kSer1000);
  }
  EXPECT_EQ(s.used_bytes(), 0u);
}

TEST(SwitchCore, ControlFramesGoFirstButNeverPreempt) {
  SwitchCore s(lossy(), {100, 100, 100}, "sw");
  for (uint64_t k = 0; k < 3; ++k) s.enqueue(0, 2, {k, 1000, 1, false, 0});
  auto first = s.start_next(2, 0);  // data frame 0 is on the wire
  ASSERT_TRUE(first);
  s.enqueue(10, 2, {99, 60, 0, false, 1});     // an ACK arrives meanwhile
  EXPECT_EQ(s.port_bytes(2), 2 * 1000u + 60);  // data 1 and 2 and the ACK (data 0 left)
  auto d = drain(s, 2);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].frame.tag, 99u);  // ahead of data 1 and 2, after data 0
  EXPECT_EQ(d[0].start_ps, kSer1000);
  EXPECT_EQ(d[1].frame.tag, 1u);
  EXPECT_EQ(d[1].start_ps, d[0].end_ps);
}

TEST(SwitchCore, DynamicThresholdAdmitsWhileTheQueueFitsAlphaTimesTheFreeBuffer) {
  SwitchParams p = lossy();
  p.buffer_bytes = 10000;
  p.alpha = 1;
  SwitchCore s(p, {100, 100}, "sw");
  // q + 1000 <= 1 x (10000 - q): q = 0..4000 admitted, at q = 5000: 6000 > 5000.
  for (uint64_t k = 0; k < 5; ++k) EXPECT_TRUE(s.enqueue(0, 1, {k, 1000, 1, false, 0}).accepted);
  auto a = s.enqueue(0, 1, {5, 1000, 1, false, 0});
  EXPECT_FALSE(a.accepted);
  EXPECT_EQ(a.drop, SwitchDrop::kThreshold);
  // Another queue (port 0) takes alpha x what is left: 1000 <= 5000, 2000 <= 4000,
  // 3000 <= 3000, then 4000 > 2000.
  EXPECT_TRUE(s.enqueue(0, 0, {6, 1000, 1, false, 1}).accepted);
  EXPECT_TRUE(s.enqueue(0, 0, {7, 1000, 1, false, 1}).accepted);
  EXPECT_TRUE(s.enqueue(0, 0, {8, 1000, 1, false, 1}).accepted);
  EXPECT_FALSE(s.enqueue(0, 0, {9, 1000, 1, false, 1}).accepted);
  // Control frames only need room in the buffer.
  EXPECT_TRUE(s.enqueue(0, 1, {10, 1000, 0, false, 0}).accepted);  // 8000 + 1000 <= 10000
  EXPECT_EQ(s.enqueue(0, 1, {11, 1001, 0, false, 0}).drop, SwitchDrop::kBufferFull);
  EXPECT_EQ(s.counters().drops[static_cast<size_t>(SwitchDrop::kThreshold)], 2u);
}

TEST(SwitchCore, StaticLimitAndFullBuffer) {
  SwitchParams p = lossy();
  p.admission = "static";
  p.static_limit_bytes = 2500;
  p.buffer_bytes = 3000;
  SwitchCore s(p, {100, 100}, "sw");
  EXPECT_TRUE(s.enqueue(0, 1, {0, 1000, 1, false, 0}).accepted);
  EXPECT_TRUE(s.enqueue(0, 1, {1, 1000, 1, false, 0}).accepted);
  EXPECT_EQ(s.enqueue(0, 1, {2, 1000, 1, false, 0}).drop, SwitchDrop::kThreshold);  // 3000 > 2500
  EXPECT_TRUE(s.enqueue(0, 0, {3, 1000, 1, false, 1}).accepted);
  EXPECT_EQ(s.enqueue(0, 0, {4, 1000, 0, false, 1}).drop, SwitchDrop::kBufferFull);
}

TEST(RedEcn, MarkingProbabilityBetweenKminAndKmax) {
  RedParams p;
  p.kmin_bytes = 10000;
  p.kmax_bytes = 50000;
  p.pmax = 0.2;
  p.mark_at = "enqueue";
  RedEcn red(p, 2, 7, "sw");
  EXPECT_TRUE(red.at_enqueue());
  EXPECT_FALSE(red.at_dequeue());
  EXPECT_EQ(red.probability(1, 10000), 0.0);
  EXPECT_DOUBLE_EQ(red.probability(1, 30000), 0.1);  // 0.2 x 20000 / 40000
  EXPECT_EQ(red.probability(1, 50000), 1.0);
  // A port's own thresholds (the ecn fault): port 0 only.
  RedEcn own(p, 2, 7, "sw");
  own.set_thresholds(0, 20000, 60000);
  EXPECT_EQ(own.probability(0, 20000), 0.0);
  EXPECT_DOUBLE_EQ(own.probability(0, 40000), 0.1);  // 0.2 x 20000 / 40000
  EXPECT_DOUBLE_EQ(own.probability(1, 30000), 0.1);  // switch.* still
  // Hold the queue at 30,000 B and offer N frames: each finds q = 30,000 (the core
  // reports it), then the head leaves. The marked fraction is 0.1 within 4 standard
  // deviations.
  SwitchCore s(SwitchParams{}, {100, 100}, "sw");
  for (uint64_t k = 0; k < 30; ++k) s.enqueue(0, 1, {k, 1000, 1, false, 0});
  const int n = 20000;
  int marked = 0;
  uint64_t t = 0;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(s.queue_bytes(1, 1), 30000u);
    auto a = s.enqueue(t, 1, {0, 1000, 1, true, 0});
    ASSERT_TRUE(a.accepted);
    ASSERT_EQ(a.queue_bytes, 30000u);
    marked += red.decide(1, a.queue_bytes);
    ASSERT_TRUE(s.start_next(1, t));
    t += kSer1000;
  }
  const double sd = std::sqrt(n * 0.1 * 0.9);
  EXPECT_NEAR(marked, n * 0.1, 4 * sd);
  EXPECT_EQ(red.marked(), static_cast<uint64_t>(marked));
  // At or below kmin nothing is marked.
  RedEcn e(p, 2, 7, "sw");
  for (uint64_t q = 0; q <= 10000; q += 1000) EXPECT_FALSE(e.decide(0, q));
  // ECN off: neither point marks.
  p.ecn = false;
  RedEcn off(p, 2, 7, "sw");
  EXPECT_FALSE(off.at_enqueue() || off.at_dequeue());
}

TEST(SwitchCore, DepartureReportsTheQueueLeftBehind) {
  SwitchParams p;
  SwitchCore s(p, {100, 100}, "sw");
  for (uint64_t k = 0; k < 3; ++k)
    EXPECT_EQ(s.enqueue(0, 1, {k, 1000, 1, true, 0}).queue_bytes, k * 1000);
  auto d = drain(s, 1);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].queue_bytes, 2000u);  // what RED at dequeue reads
  EXPECT_EQ(d[1].queue_bytes, 1000u);
  EXPECT_EQ(d[2].queue_bytes, 0u);
}

TEST(SwitchCore, PfcSendsXoffAtXoffUsesHeadroomAndSendsXonAtXon) {
  SwitchParams p = lossless(3000, 1000, 2000);
  SwitchCore s(p, {100, 100}, "sw");
  std::vector<SwitchCore::Admit> a;
  for (uint64_t k = 0; k < 6; ++k) a.push_back(s.enqueue(0, 1, {k, 1000, 1, false, 0}));
  EXPECT_FALSE(a[0].pause);
  EXPECT_FALSE(a[1].pause);
  ASSERT_TRUE(a[2].pause);  // 3000 >= xoff: XOFF to ingress port 0's upstream
  EXPECT_EQ(a[2].pause->port, 0u);
  EXPECT_EQ(a[2].pause->prio, 1);
  EXPECT_EQ(a[2].pause->quanta, 100u);
  EXPECT_TRUE(a[3].accepted && !a[3].pause);  // headroom: 4000, then 5000 <= 3000 + 2000
  EXPECT_TRUE(a[4].accepted);
  EXPECT_EQ(a[5].drop, SwitchDrop::kHeadroom);  // 6000 > 5000
  auto d = drain(s, 1);
  ASSERT_EQ(d.size(), 5u);
  // 5000 held: the 4th departure leaves 1000 <= xon and releases the pause.
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(d[k].pause.has_value(), k == 3) << k;
  EXPECT_EQ(d[3].pause->quanta, 0u);
  EXPECT_EQ(s.counters().xoff_sent, 1u);
  EXPECT_EQ(s.counters().xon_sent, 1u);
}

// Dynamic PFC (ns-3 HPCC's MMU): buffer 8000, two 100 Gbit/s ports with 1000 B headroom
// each set aside (pool 2000), shift 3: T = (8000 - 2000 - used) >> 3. 100 B frames from
// port 0 to port 1: after the k-th, in = used = 100k; XOFF when 100k >= (6000 - 100k) >> 3,
// k = 7 (700 >= 662; k = 6: 600 < 675). Resume 100 B: XON when in + 100 <= T: after one
// departure in = 600, T = 675 (700 > 675); after the second in = 500, T = 687 (600 <= 687).
TEST(SwitchCore, DynamicPfcThresholdIsTheFreeBufferShifted) {
  SwitchParams p = lossless(1, 0, 1000);
  p.buffer_bytes = 8000;
  p.pfc_threshold = "dynamic";
  p.pfc_shift = 3;
  p.pfc_resume_bytes = 100;
  SwitchCore s(p, {100, 100}, "sw");
  EXPECT_EQ(s.pfc_xoff(0), 750u);  // (8000 - 2000) >> 3
  std::vector<SwitchCore::Admit> a;
  for (uint64_t k = 0; k < 7; ++k) a.push_back(s.enqueue(0, 1, {k, 100, 1, false, 0}));
  for (size_t k = 0; k < 6; ++k) EXPECT_FALSE(a[k].pause) << k;
  ASSERT_TRUE(a[6].pause);
  EXPECT_EQ(s.pfc_xoff(0), 662u);
  auto d = drain(s, 1);
  ASSERT_EQ(d.size(), 7u);
  for (size_t k = 0; k < 7; ++k) EXPECT_EQ(d[k].pause.has_value(), k == 1) << k;
  // Faster ports get a larger share: 400 Gbit/s is two doublings above 100, shift 1;
  // 1600 Gbit/s is four, shift 0 (at least 0). "shared" sets no headroom aside.
  p.pfc_headroom_pool = "shared";
  SwitchCore f(p, {100, 400, 1600}, "sw");
  EXPECT_EQ(f.pfc_xoff(0), 1000u);  // 8000 >> 3
  EXPECT_EQ(f.pfc_xoff(1), 4000u);  // 8000 >> 1
  EXPECT_EQ(f.pfc_xoff(2), 8000u);  // 8000 >> 0
  // Reserved headroom larger than the buffer (a long haul's) leaves T = 0.
  p.pfc_headroom_pool = "reserved";
  SwitchCore g(p, {100, 100}, "sw");
  g.set_headroom(1, 100000);
  EXPECT_EQ(g.pfc_xoff(0), 0u);
  // Then every frame goes to the headroom and pauses, and the XON comes when the port's
  // bytes are gone (ns-3 HPCC: the shared part empty), not never.
  auto first = g.enqueue(0, 1, {0, 100, 1, false, 0});
  EXPECT_TRUE(first.accepted);
  EXPECT_TRUE(first.pause);
  auto dg = drain(g, 1);
  ASSERT_EQ(dg.size(), 1u);
  ASSERT_TRUE(dg[0].pause);
  EXPECT_EQ(dg[0].pause->quanta, 0u);
}

// Dynamic PFC's headroom is counted apart, as ns-3 HPCC's: a paused port keeps its
// headroom when T falls. Buffer 3000, shift 0 (T = the free buffer), no reserve,
// headroom 150; port 0 sends 100 B frames. The k+1-th frame goes to the headroom when
// 100k + 100 > 3000 - 100k (T before it counts): the 16th; it pauses when 100(k+1) >=
// 3000 - 100(k+1) (T after): the 15th. A 1000 B frame from port 2 then fits its own T
// (1000 <= 3000 - 1600) and leaves T = 400 for port 0. Port 0's next 100 B frame finds
// its headroom full (100 + 100 > 150) and its shared part past T (1500 + 100 > 400):
// dropped. A 40 B frame still fits the headroom (140 <= 150); a rule of T + headroom
// would have dropped it (1640 > 400 + 150).
TEST(SwitchCore, DynamicPfcKeepsTheHeadroomApartFromT) {
  SwitchParams p = lossless(1, 0, 150);
  p.buffer_bytes = 3000;
  p.pfc_threshold = "dynamic";
  p.pfc_shift = 0;
  p.pfc_headroom_pool = "shared";
  SwitchCore s(p, {100, 100, 100}, "sw");
  s.pause(1, 1, 65535, 0);  // nothing leaves port 1
  std::vector<SwitchCore::Admit> a;
  for (uint64_t k = 0; k < 16; ++k) a.push_back(s.enqueue(0, 1, {k, 100, 1, false, 0}));
  for (size_t k = 0; k < 16; ++k) EXPECT_TRUE(a[k].accepted) << k;
  for (size_t k = 0; k < 14; ++k) EXPECT_FALSE(a[k].pause) << k;
  EXPECT_TRUE(a[14].pause);
  EXPECT_TRUE(s.enqueue(0, 1, {20, 1000, 1, false, 2}).accepted);  // another ingress
  EXPECT_EQ(s.pfc_xoff(0), 400u);
  EXPECT_EQ(s.enqueue(0, 1, {16, 100, 1, false, 0}).drop, SwitchDrop::kHeadroom);
  EXPECT_TRUE(s.enqueue(0, 1, {17, 40, 1, false, 0}).accepted);
}

// Refresh at half the pause time: 100 quanta x 256 bit times at 100 Gbit/s = 256 ns.
TEST(SwitchCore, XoffIsRefreshedEveryHalfPauseUntilXon) {
  SwitchParams p = lossless(1000, 0, 100000);
  SwitchCore s(p, {100, 100}, "sw");
  EXPECT_EQ(s.refresh_ps(0), 256000u);
  s.pause(1, 1, 65535, 0);  // nothing drains
  EXPECT_TRUE(s.enqueue(1000, 1, {0, 1000, 1, false, 0}).pause);
  EXPECT_FALSE(s.enqueue(2000, 1, {1, 1000, 1, false, 0}).pause);  // once, until XON
  EXPECT_FALSE(s.refresh(0, 1, 256999));
  auto r = s.refresh(0, 1, 257000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->quanta, 100u);
  EXPECT_EQ(r->port, 0u);
  EXPECT_FALSE(s.refresh(0, 1, 257000 + 255999));
  EXPECT_TRUE(s.refresh(0, 1, 257000 + 256000));
  EXPECT_EQ(s.counters().xoff_sent, 3u);
  EXPECT_TRUE(s.xoff(0, 1));
  EXPECT_FALSE(s.refresh(1, 1, 1000000));  // no XOFF held there
}

// A port whose rate falls (a fault) refreshes later: 100 quanta x 256 bit times at 25
// Gbit/s = 1.024 us after the XOFF.
TEST(SwitchCore, ARefreshIsDueAtThePortsPresentRate) {
  SwitchParams p = lossless(1000, 0, 100000);
  SwitchCore s(p, {100, 100}, "sw");
  EXPECT_EQ(s.refresh_due_ps(0, 1), UINT64_MAX);  // no XOFF
  s.pause(1, 1, 65535, 0);
  ASSERT_TRUE(s.enqueue(0, 1, {0, 1000, 1, false, 0}).pause);
  EXPECT_EQ(s.refresh_due_ps(0, 1), 256000u);
  s.set_rate(0, 25);
  EXPECT_FALSE(s.refresh(0, 1, 256000));
  EXPECT_EQ(s.refresh_due_ps(0, 1), 1024000u);
  EXPECT_TRUE(s.refresh(0, 1, 1024000));
}

TEST(SwitchCore, AControlFrameGoesAtTheNextFrameBoundary) {
  SwitchCore s(lossy(), {100, 100}, "sw");
  s.enqueue(0, 1, {1, 1000, 1, false, 0});
  auto d = s.start_next(1, 0);
  ASSERT_TRUE(d);
  const auto [start, end] = s.send_control(1, 60, 100);
  EXPECT_EQ(start, d->end_ps);  // after the frame on the wire
  EXPECT_EQ(end, d->end_ps + 6720);
  s.enqueue(0, 1, {2, 1000, 1, false, 0});
  EXPECT_EQ(s.next_start_ps(1), end);  // and ahead of the queue
}

TEST(SwitchCore, PauseStopsAPriorityForItsQuantaAndXonRestartsIt) {
  SwitchCore s(lossy(), {100, 100}, "sw");
  // One quantum = 512 bit times = 5.12 ns at 100 Gbit/s.
  s.pause(1, 1, 10, 0);
  s.enqueue(0, 1, {1, 1000, 1, false, 0});
  EXPECT_EQ(s.next_start_ps(1), 51200u);
  EXPECT_FALSE(s.start_next(1, 51199));
  // Control frames are not paused by a pause of priority 1.
  s.enqueue(0, 1, {2, 60, 0, false, 0});
  auto c = s.start_next(1, 0);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->frame.tag, 2u);
  // XON (quanta 0) at 20 ns: the data frame starts when the port is free again.
  s.pause(1, 1, 0, 20000);
  EXPECT_EQ(s.next_start_ps(1), std::max<uint64_t>(20000, c->end_ps));
}

TEST(SwitchCore, BadParametersNameTheKey) {
  SwitchParams p;  // RED's keys are its row's, checked with the switch's
  RedParams& red = *p.hooks.find<RedParams>("red_ecn");
  red.kmin_bytes = 10, red.kmax_bytes = 5;
  try {
    SwitchCore s(p, {100}, "sw");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("switch.kmin_bytes"), std::string::npos);
  }
}

}  // namespace
}  // namespace oonic::network
