// The built-in switch hooks PFC, port faults, wire loss, INT stamping and UET trimming
// (platforms/network/hooks/), without
// the kernel: each hook is made from its registry row over a FakePipe that holds a
// real SwitchCore and records what the hook asks of the switch (frames sent ahead of
// the queues, timers booked, ports woken, PFC events). Times derived by hand.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/core/stats.h"
#include "model/wire/pfc.h"
#include "model/wire/roce.h"
#include "model/wire/uet_frame.h"
#include "platforms/network/frame_desc.h"
#include "platforms/network/hooks/builtin.h"
#include "platforms/network/hooks/int_stamp.h"
#include "platforms/network/hooks/red_ecn.h"
#include "platforms/network/hooks/trim.h"
#include "platforms/network/switch_core.h"
#include "platforms/network/switch_hook.h"
#include "platforms/network/topology.h"

namespace oonic::network {
namespace {

namespace w = oonic::wire;

struct Sent {
  uint32_t port;
  std::vector<uint8_t> bytes;
  uint64_t now;
};
struct Booked {
  uint64_t t;
  uint32_t arg;
};
struct PfcEvent {
  uint64_t ps;
  uint32_t port;
  uint8_t prio;
  uint32_t quanta;
  bool sent;
};

class FakePipe : public SwitchPipe {
 public:
  explicit FakePipe(const SwitchParams& p) : core_(p, {100, 100}, "sw") {}
  const char* pipe_name() const override { return "sw"; }
  SwitchCore& buffer() override { return core_; }
  uint32_t node() const override { return 0; }
  const std::array<uint8_t, 6>& mac() const override { return mac_; }
  std::vector<uint8_t>& bytes(uint32_t slot) override { return slots_.at(slot); }
  const FrameDesc& desc(uint32_t slot) override {
    desc_ = describe(slots_.at(slot));
    return desc_;
  }
  void release(uint32_t slot) override { released.push_back(slot); }
  uint64_t send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now) override {
    sent.push_back({port, std::vector<uint8_t>(f, f + len), now});
    return core_.send_control(port, len, now).first;
  }
  void book(SwitchHook*, uint64_t t, uint32_t arg) override { booked.push_back({t, arg}); }
  void enqueue(PipeFrame&, uint64_t) override {}
  void wake_port(uint32_t port, uint64_t) override { woken.push_back(port); }
  std::optional<uint32_t> host_of(uint8_t, const uint8_t*) const override { return std::nullopt; }
  std::optional<uint32_t> port_to_host(const FlowKey&, uint32_t, uint64_t) override {
    return std::nullopt;
  }
  void pfc_seen(uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool s) override {
    pfc.push_back({ps, port, prio, quanta, s});
  }
  uint32_t put(std::vector<uint8_t> b) {
    slots_.push_back(std::move(b));
    return static_cast<uint32_t>(slots_.size() - 1);
  }

  std::vector<Sent> sent;
  std::vector<Booked> booked;
  std::vector<uint32_t> woken, released;
  std::vector<PfcEvent> pfc;

 private:
  SwitchCore core_;
  std::array<uint8_t, 6> mac_{0x02, 0, 0, 0, 0, 0x07};
  FrameDesc desc_;
  std::vector<std::vector<uint8_t>> slots_;
};

// Lossless, XOFF at 1000 B of an ingress port, never XON (0), 100 quanta an XOFF.
SwitchParams lossless() {
  SwitchParams p;
  p.hooks.find<RedParams>("red_ecn")->ecn = false;
  p.pfc = true;
  p.xoff_bytes = 1000;
  p.xon_bytes = 0;
  p.headroom_bytes = 100000;
  p.pause_quanta = 100;
  return p;
}

std::unique_ptr<SwitchHook> make(const SwitchHookRow& row, SwitchPipe& pipe, Stats& stats) {
  SwitchBuild b;
  b.name = "sw";
  b.stats = &stats;
  return row.make(pipe, b);
}

std::vector<uint8_t> pfc_frame(uint8_t enable, uint8_t prio, uint16_t quanta) {
  w::Pfc pf;
  pf.enable = enable;
  pf.quanta[prio] = quanta;
  std::vector<uint8_t> f(w::kPfcFrameBytes);
  w::build_pfc(pf, {0x02, 0, 0, 0, 0, 0x09}, f.data());
  return f;
}

std::vector<uint8_t> roce_frame(uint32_t psn) {
  static const std::vector<uint8_t> payload(256, 0x5A);
  w::FrameSpec s;
  s.bth.opcode = w::kWriteMiddle;
  s.bth.dest_qp = 0x11;
  s.bth.psn = psn;
  s.payload = payload.data();
  s.payload_len = static_cast<uint32_t>(payload.size());
  return w::build(s);
}

// A PAUSE of 10 quanta for priority 1 arriving on port 1 at 1 us: the hook takes the
// frame (released, not routed), port 1's priority 1 is paused for 10 x 512 bit times
// at 100 Gbit/s = 51.2 ns, the port is woken and the event seen as received.
TEST(SwitchHooks, PfcPauseArrivingPausesTheEgressPriority) {
  Stats stats;
  FakePipe pipe(lossless());
  auto hook = make(hooks::pfc_row(), pipe, stats);
  ASSERT_TRUE(hook);
  EXPECT_EQ(hook->stages() & SwitchHook::kIngress, SwitchHook::kIngress);
  const uint32_t slot = pipe.put(pfc_frame(1u << 1, 1, 10));
  EXPECT_TRUE(hook->ingress(1, slot, 1000000));
  EXPECT_EQ(pipe.released, std::vector<uint32_t>{slot});
  EXPECT_EQ(pipe.buffer().paused_until_ps(1, 1), 1000000u + 51200u);
  EXPECT_EQ(pipe.buffer().paused_until_ps(1, 0), 0u);  // not enabled in the frame
  EXPECT_EQ(pipe.woken, std::vector<uint32_t>{1});
  ASSERT_EQ(pipe.pfc.size(), 1u);
  EXPECT_EQ(pipe.pfc[0].port, 1u);
  EXPECT_EQ(pipe.pfc[0].prio, 1);
  EXPECT_EQ(pipe.pfc[0].quanta, 10u);
  EXPECT_FALSE(pipe.pfc[0].sent);
  EXPECT_EQ(pipe.buffer().counters().pauses_received, 1u);
}

// Any other frame goes on through the pipeline untouched.
TEST(SwitchHooks, PfcLeavesOtherFramesAlone) {
  Stats stats;
  FakePipe pipe(lossless());
  auto hook = make(hooks::pfc_row(), pipe, stats);
  const uint32_t slot = pipe.put(roce_frame(5));
  EXPECT_FALSE(hook->ingress(0, slot, 0));
  EXPECT_TRUE(pipe.released.empty());
  EXPECT_TRUE(pipe.woken.empty());
  EXPECT_TRUE(pipe.pfc.empty());
}

// The buffer's XOFF (ingress port 0, priority 1, 100 quanta) goes out of port 0 as an
// 802.1Qbb frame from the switch's MAC, and is refreshed every half pause time while
// it holds: 100 quanta x 512 bit times / 2 at 100 Gbit/s = 256 ns after it was sent.
// A timer superseded by a later XOFF's chain does nothing.
TEST(SwitchHooks, PfcSendsTheBuffersXoffAndRefreshesIt) {
  Stats stats;
  FakePipe pipe(lossless());
  auto hook = make(hooks::pfc_row(), pipe, stats);
  SwitchCore& core = pipe.buffer();
  core.pause(1, 1, 65535, 0);  // egress 1 stopped: nothing drains
  PipeFrame f;
  f.fr = {0, 1000, 1, false, 0};
  f.out_port = 1;
  const SwitchCore::Admit a = core.enqueue(1000, 1, f.fr);
  ASSERT_TRUE(a.pause);
  hook->buffered(f, a, 1000);
  ASSERT_EQ(pipe.sent.size(), 1u);
  EXPECT_EQ(pipe.sent[0].port, 0u);
  w::Pfc pf;
  ASSERT_TRUE(w::parse_pfc(pipe.sent[0].bytes.data(), pipe.sent[0].bytes.size(), pf));
  EXPECT_EQ(pf.enable, 1u << 1);
  EXPECT_EQ(pf.quanta[1], 100u);
  EXPECT_EQ(pf.quanta[0], 0u);
  EXPECT_EQ(pipe.sent[0].bytes[6], 0x02);  // source MAC: the switch's
  EXPECT_EQ(pipe.sent[0].bytes[11], 0x07);
  ASSERT_EQ(pipe.pfc.size(), 1u);
  EXPECT_TRUE(pipe.pfc[0].sent);
  ASSERT_EQ(pipe.booked.size(), 1u);
  EXPECT_EQ(pipe.booked[0].t, 1000u + 256000u);
  EXPECT_EQ(pipe.booked[0].arg, 0u * 8 + 1);

  hook->timer(1, 999, 999);  // not the live chain's time: ignored
  EXPECT_EQ(pipe.sent.size(), 1u);
  hook->timer(1, 257000, 257000);
  ASSERT_EQ(pipe.sent.size(), 2u);  // the XOFF again
  ASSERT_TRUE(w::parse_pfc(pipe.sent[1].bytes.data(), pipe.sent[1].bytes.size(), pf));
  EXPECT_EQ(pf.quanta[1], 100u);
  ASSERT_EQ(pipe.booked.size(), 2u);
  EXPECT_EQ(pipe.booked[1].t, 257000u + 256000u);
  EXPECT_EQ(core.counters().xoff_sent, 2u);
}

// An XON (quanta 0) a departure releases is sent once and books no refresh.
TEST(SwitchHooks, PfcSendsAnXonWithoutARefresh) {
  Stats stats;
  FakePipe pipe(lossless());
  auto hook = make(hooks::pfc_row(), pipe, stats);
  SwitchCore::Departure d;
  d.pause = SwitchCore::Pause{2, 3, 0};
  PipeFrame f;
  hook->dequeued(f, d, 5000);
  ASSERT_EQ(pipe.sent.size(), 1u);
  EXPECT_EQ(pipe.sent[0].port, 2u);
  w::Pfc pf;
  ASSERT_TRUE(w::parse_pfc(pipe.sent[0].bytes.data(), pipe.sent[0].bytes.size(), pf));
  EXPECT_EQ(pf.enable, 1u << 3);
  EXPECT_EQ(pf.quanta[3], 0u);
  EXPECT_TRUE(pipe.booked.empty());
}

// A port down loses every frame leaving it, the switch's own too, until up; a PSN
// rule (PSN mod 4 == 1) loses data frames only, never control frames; each loss is
// counted as <switch>.fault_lost. Other fault kinds are not this hook's.
TEST(SwitchHooks, PortFaultsDownUpAndPsnRules) {
  Stats stats;
  FakePipe pipe(lossless());
  auto hook = make(hooks::port_faults_row(), pipe, stats);
  const uint32_t s5 = pipe.put(roce_frame(5)), s6 = pipe.put(roce_frame(6));
  EXPECT_FALSE(hook->egress(1, s5, 1, false, 0));

  PortFault down;
  down.kind = PortFault::Kind::kDown;
  down.port = 1;
  EXPECT_TRUE(hook->fault(down));
  EXPECT_TRUE(hook->egress(1, s5, 1, false, 0));
  EXPECT_TRUE(hook->egress(1, s6, 0, true, 0));    // control frames too
  EXPECT_FALSE(hook->egress(0, s5, 1, false, 0));  // another port
  PortFault up = down;
  up.kind = PortFault::Kind::kUp;
  EXPECT_TRUE(hook->fault(up));
  EXPECT_FALSE(hook->egress(1, s5, 1, false, 0));

  PortFault rule;
  rule.kind = PortFault::Kind::kPsnRule;
  rule.port = 0;
  rule.a = 4, rule.b = 1;
  EXPECT_TRUE(hook->fault(rule));
  EXPECT_TRUE(hook->egress(0, s5, 1, false, 0));   // 5 mod 4 == 1
  EXPECT_FALSE(hook->egress(0, s6, 1, false, 0));  // 6 mod 4 == 2
  EXPECT_FALSE(hook->egress(0, s5, 1, true, 0));   // a control frame: rules skip it
  EXPECT_EQ(stats.counter_value("sw.fault_lost"), 3u);

  PortFault rate;
  rate.kind = PortFault::Kind::kRate;
  EXPECT_FALSE(hook->fault(rate));
}

// Trimming (switch.trim): the buffer (static limit 2500 B) refuses a third 1000-B frame;
// when it is a UET data frame its headers go out of the same egress port ahead of the
// queues, payload cut, DSCP trimmed (16, ECN kept), counted as sw.trimmed. A frame
// already trimmed goes ahead as it is; a RoCEv2 request's headers go with a fresh ICRC.
// A refused RoCE ACK and an accepted UET frame are left alone. Off (the default), the
// row makes no hook.
// The trimming tests' switch: no RED, a static limit of 2500 B a queue.
SwitchParams trim_switch() {
  SwitchParams p;
  p.hooks.find<RedParams>("red_ecn")->ecn = false;
  p.admission = "static";
  p.static_limit_bytes = 2500;
  return p;
}

TEST(SwitchHooks, TrimSendsARefusedDataFramesHeaders) {
  Stats stats;
  SwitchParams p = trim_switch();
  SwitchBuild b;
  b.name = "sw";
  b.stats = &stats;
  b.sp = &p;
  {
    FakePipe pipe(p);
    EXPECT_EQ(hooks::trim_row().make(pipe, b), nullptr);  // switch.trim false
  }
  p.hooks.find<TrimParams>("trim")->trim = true;
  FakePipe pipe(p);
  auto hook = hooks::trim_row().make(pipe, b);
  ASSERT_TRUE(hook);

  std::vector<uint8_t> payload(900, 0x5A);
  w::uet::UetFrameSpec u;
  u.outer.tos = 8 << 2 | 2;
  u.pds.type = w::uet::PdsType::kRudReq;
  u.pds.next_hdr = static_cast<uint8_t>(w::uet::NextHdr::kRequestStd);
  u.pds.psn = 42;
  u.payload = payload.data();
  u.payload_len = 900;
  const std::vector<uint8_t> uet = w::uet::build_frame(u);
  w::FrameSpec ack;
  ack.bth.opcode = w::kAcknowledge;
  const uint32_t su = pipe.put(uet), sr = pipe.put(roce_frame(1)), sa = pipe.put(w::build(ack));
  SwitchCore& core = pipe.buffer();
  PipeFrame f;
  f.out_port = 1;
  f.fr = {0, 1000, 1, false, 0};
  f.slot = su;
  const SwitchCore::Admit ok = core.enqueue(0, 1, f.fr);
  hook->buffered(f, ok, 0);  // accepted: nothing to do
  ASSERT_TRUE(core.enqueue(0, 1, {1, 1000, 1, false, 0}).accepted);
  const SwitchCore::Admit refused = core.enqueue(0, 1, {2, 1000, 1, false, 0});
  ASSERT_FALSE(refused.accepted);
  f.slot = sa;
  hook->buffered(f, refused, 100);  // a RoCE ACK (a response, no payload): the drop stands
  EXPECT_TRUE(pipe.sent.empty());
  f.slot = su;
  hook->buffered(f, refused, 100);
  ASSERT_EQ(pipe.sent.size(), 1u);
  EXPECT_EQ(pipe.sent[0].port, 1u);
  w::uet::UetView v;
  const std::vector<uint8_t> h = pipe.sent[0].bytes;  // a copy: sent grows below
  ASSERT_EQ(w::uet::parse_frame(h.data(), h.size(), v), w::uet::UetStatus::kOk);
  EXPECT_EQ(h.size(), uet.size() - 900);
  EXPECT_TRUE(v.trimmed);
  EXPECT_FALSE(v.trimmed_last_hop);  // no topology: port 1 does not lead to a host
  EXPECT_EQ(v.outer.tos, 16 << 2 | 2);
  EXPECT_EQ(v.pds.psn, 42u);
  EXPECT_EQ(stats.counter_value("sw.trimmed"), 1u);
  const uint32_t st = pipe.put(h);  // a trimmed frame refused again goes ahead as it is
  f.slot = st;
  hook->buffered(f, refused, 200);
  ASSERT_EQ(pipe.sent.size(), 2u);
  EXPECT_EQ(pipe.sent[1].bytes, h);
  // RoCEv2 request data (WRITE Middle, 256 B): its headers and a fresh ICRC, DSCP trimmed.
  f.slot = sr;
  hook->buffered(f, refused, 300);
  ASSERT_EQ(pipe.sent.size(), 3u);
  const std::vector<uint8_t> r = pipe.sent[2].bytes;
  w::PacketView rv;
  ASSERT_EQ(w::parse(r.data(), r.size(), rv, /*check_icrc=*/true), w::ParseStatus::kOk);
  EXPECT_EQ(r.size(), roce_frame(1).size() - 256);
  EXPECT_EQ(rv.payload_len, 0u);
  EXPECT_EQ(rv.bth.psn, 1u);
  EXPECT_TRUE(w::is_trimmed(rv, 16, 18));
  EXPECT_EQ(stats.counter_value("sw.trimmed"), 3u);
}

// htsim's victim (switch.trim_newest_p): at p = 1 a data frame the buffer (static limit
// 2500 B) would refuse takes the place of the newest frame of its queue; that frame's
// headers go ahead, its slot is released, and the arriving frame is then admitted. A
// newest frame shorter than the arriving one is no victim (the arriving one is trimmed at
// the buffered stage as before); control frames and admitted frames never trigger it.
// The buffer counts the victim neither as sent nor as dropped; with PFC on the key is
// refused.
TEST(SwitchHooks, TrimNewestTakesTheQueuedFramesPlace) {
  Stats stats;
  SwitchParams p = trim_switch();
  TrimParams& tp = *p.hooks.find<TrimParams>("trim");
  tp.trim = true;
  SwitchBuild b;
  b.name = "sw";
  b.stats = &stats;
  b.sp = &p;
  {
    Stats s0;
    b.stats = &s0;
    FakePipe pipe(p);
    EXPECT_EQ(hooks::trim_row().make(pipe, b)->stages(),
              SwitchHook::kAdmission | SwitchHook::kBuffered);
    tp.newest_p = 1;
    p.pfc = true;
    Stats s1;
    b.stats = &s1;
    EXPECT_THROW(hooks::trim_row().make(pipe, b), Error);
    p.pfc = false;
    b.stats = &stats;
  }
  FakePipe pipe(p);
  auto hook = hooks::trim_row().make(pipe, b);
  ASSERT_TRUE(hook);
  EXPECT_EQ(hook->stages(), SwitchHook::kAdmission | SwitchHook::kBuffered);
  SwitchCore& core = pipe.buffer();
  const uint32_t s1 = pipe.put(roce_frame(1)), s2 = pipe.put(roce_frame(2)),
                 s3 = pipe.put(roce_frame(3));
  const uint32_t len = static_cast<uint32_t>(roce_frame(1).size());
  ASSERT_TRUE(core.enqueue(0, 1, {s1, 1000, 1, false, 0}).accepted);
  PipeFrame f;
  f.out_port = 1;
  f.fr = {s2, 1000, 1, false, 0};
  f.slot = s2;
  EXPECT_FALSE(hook->admission(f, 10));  // admitted as it is: no victim
  ASSERT_TRUE(core.enqueue(10, 1, f.fr).accepted);
  EXPECT_TRUE(pipe.sent.empty());
  PipeFrame c = f;  // a control frame
  c.fr = {s3, 1000, 0, false, 0};
  EXPECT_FALSE(hook->admission(c, 15));
  EXPECT_TRUE(pipe.sent.empty());
  f.fr = {s3, 1000, 1, false, 0};
  f.slot = s3;
  ASSERT_EQ(core.admission(1, f.fr), SwitchDrop::kThreshold);
  EXPECT_FALSE(hook->admission(f, 20));  // the frame goes on; s2, the newest, is trimmed
  ASSERT_EQ(pipe.sent.size(), 1u);
  w::PacketView rv;
  ASSERT_EQ(w::parse(pipe.sent[0].bytes.data(), pipe.sent[0].bytes.size(), rv, true),
            w::ParseStatus::kOk);
  EXPECT_EQ(rv.bth.psn, 2u);
  EXPECT_EQ(rv.payload_len, 0u);
  EXPECT_EQ(pipe.sent[0].bytes.size(), len - 256);
  EXPECT_EQ(pipe.released, std::vector<uint32_t>{s2});
  EXPECT_EQ(core.queue_bytes(1, 1), 1000u);
  EXPECT_EQ(core.used_bytes(), 1000u);
  const SwitchCore::Admit a = core.enqueue(20, 1, f.fr);
  EXPECT_TRUE(a.accepted);
  EXPECT_EQ(core.newest(1, 1)->tag, s3);
  EXPECT_EQ(stats.counter_value("sw.trimmed"), 1u);
  EXPECT_EQ(stats.counter_value("sw.trimmed_newest"), 1u);
  // A header trimmed upstream arriving at the full queue takes no victim's place: it goes
  // to the control priority (htsim's high-priority queue), nothing is trimmed.
  const std::vector<uint8_t> whole = roce_frame(9);
  std::vector<uint8_t> hdr = whole;
  hdr.resize(w::trim_frame(hdr.data(), hdr.size(), 16));
  const uint32_t sh = pipe.put(hdr);
  PipeFrame th = f;
  th.slot = sh;
  th.fr = {sh, static_cast<uint32_t>(hdr.size()), 1, false, 0};
  EXPECT_FALSE(hook->admission(th, 25));
  EXPECT_EQ(th.fr.prio, 0);
  EXPECT_EQ(pipe.sent.size(), 1u);
  EXPECT_EQ(core.queue_bytes(1, 1), 2000u);
  // A longer arriving frame finds no victim: the newest (1000 B) stays queued.
  PipeFrame big = f;
  big.fr.len = 1200;
  EXPECT_FALSE(hook->admission(big, 30));
  EXPECT_EQ(pipe.sent.size(), 1u);
  EXPECT_EQ(core.queue_bytes(1, 1), 2000u);
  EXPECT_EQ(core.counters().frames_out, 0u);
  EXPECT_EQ(core.counters().drops[static_cast<size_t>(SwitchDrop::kThreshold)], 0u);
}

TEST(SwitchHooks, TrimDscpsMustDiffer) {
  TrimParams t;
  t.dscp_last_hop = t.dscp_trimmed;
  EXPECT_THROW(t.validate(), Error);
}

// A switch (node 0) with two ports towards hosts h1 and h2; link i's error rate err[i].
Topology two_port_switch(double err0, double err1) {
  Topology t;
  t.add_node(Topology::Kind::kSwitch, "sw");
  t.add_node(Topology::Kind::kHost, "h1");
  t.add_node(Topology::Kind::kHost, "h2");
  t.add_link(0, 1, 100, 1000, err0);
  t.add_link(0, 2, 100, 1000, err1);
  return t;
}

SwitchBuild build_on(const Topology& t, const SwitchParams& sp, Stats& stats, uint64_t seed = 1) {
  SwitchBuild b;
  b.name = "sw";
  b.sp = &sp, b.topology = &t, b.node = 0, b.seed = seed, b.stats = &stats;
  return b;
}

// Wire loss: switch.loss_rate 0 and error-free links lose nothing; at loss 1 every data
// frame is lost, the switch's own control frames never; .lost_data counts priority 1.
TEST(SwitchHooks, WireLossLosesDataNeverControl) {
  Stats stats;
  SwitchParams sp;
  FakePipe pipe(sp);
  const Topology clean = two_port_switch(0, 0);
  auto none = hooks::wire_loss_row().make(pipe, build_on(clean, sp, stats));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->stages(), SwitchHook::kEgress | SwitchHook::kFault);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(none->egress(i & 1, 0, 1, false, 0));
  EXPECT_EQ(stats.counter_value("sw.lost"), 0u);

  Stats s2;
  sp.loss_rate = 1;
  auto all = hooks::wire_loss_row().make(pipe, build_on(clean, sp, s2));
  EXPECT_TRUE(all->egress(0, 0, 1, false, 0));  // data
  EXPECT_TRUE(all->egress(1, 0, 0, false, 0));  // ACK class
  EXPECT_FALSE(all->egress(0, 0, 1, true, 0));  // PFC, CNP: the switch's own
  EXPECT_EQ(s2.counter_value("sw.lost"), 2u);
  EXPECT_EQ(s2.counter_value("sw.lost_data"), 1u);
}

// The loss of a port is 1 - (1 - switch.loss_rate)(1 - the link's error rate): 0.5 and
// 0.5 give 0.75 on port 0, 0.5 alone on port 1. Over 20,000 frames a port (seeded) the
// fractions are within 0.02 of those.
TEST(SwitchHooks, WireLossCombinesSwitchAndLinkRates) {
  Stats stats;
  SwitchParams sp;
  sp.loss_rate = 0.5;
  FakePipe pipe(sp);
  const Topology t = two_port_switch(0.5, 0);
  auto hook = hooks::wire_loss_row().make(pipe, build_on(t, sp, stats, 7));
  const int n = 20000;
  int lost[2] = {0, 0};
  for (int i = 0; i < n; ++i)
    for (uint32_t port = 0; port < 2; ++port) lost[port] += hook->egress(port, 0, 1, false, 0);
  EXPECT_NEAR(lost[0] / double(n), 0.75, 0.02);
  EXPECT_NEAR(lost[1] / double(n), 0.5, 0.02);
  EXPECT_EQ(stats.counter_value("sw.lost"), uint64_t(lost[0] + lost[1]));
}

// A loss fault replaces a port's rate (switch.loss_rate and the link's); other faults
// are not the hook's.
TEST(SwitchHooks, WireLossFaultSetsOnePortsRate) {
  Stats stats;
  SwitchParams sp;
  FakePipe pipe(sp);
  const Topology t = two_port_switch(0, 0);
  auto hook = hooks::wire_loss_row().make(pipe, build_on(t, sp, stats));
  PortFault down;
  down.kind = PortFault::Kind::kDown;
  EXPECT_FALSE(hook->fault(down));
  PortFault loss;
  loss.kind = PortFault::Kind::kLoss, loss.port = 1, loss.value = 1;
  EXPECT_TRUE(hook->fault(loss));
  EXPECT_FALSE(hook->egress(0, 0, 1, false, 0));
  EXPECT_TRUE(hook->egress(1, 0, 1, false, 0));
  loss.value = 0;  // repaired
  EXPECT_TRUE(hook->fault(loss));
  EXPECT_FALSE(hook->egress(1, 0, 1, false, 0));
}

// INT stamping's row: auto is on only when the NICs' rate core sends INT stacks; on and
// off are what they say.
TEST(SwitchHooks, IntStampRowFollowsTheSetting) {
  SwitchParams sp;
  FakePipe pipe(sp);
  const Topology t = two_port_switch(0, 0);
  IntParams* ip = sp.hooks.find<IntParams>("int_stamp");
  ASSERT_TRUE(ip);
  auto made = [&](bool senders_int) {
    Stats stats;  // each hook registers its counters
    SwitchBuild b = build_on(t, sp, stats);
    b.senders_int = senders_int;
    return hooks::int_stamp_row().make(pipe, b) != nullptr;
  };
  EXPECT_FALSE(made(false));  // auto
  EXPECT_TRUE(made(true));
  ip->stamp = "off";
  EXPECT_FALSE(made(true));
  ip->stamp = "on";
  EXPECT_TRUE(made(false));
}

// The hook stamps a departing data frame in the pipe's slot with the port's queued bytes
// and rate from the buffer, counts .int.stamped, and .int.full once the stack (one hop
// here) has no room.
TEST(SwitchHooks, IntStampWritesTheDeparturePortsState) {
  Stats stats;
  SwitchParams sp;
  sp.hooks.find<IntParams>("int_stamp")->stamp = "on";
  FakePipe pipe(sp);
  const Topology t = two_port_switch(0, 0);
  auto hook = hooks::int_stamp_row().make(pipe, build_on(t, sp, stats));
  ASSERT_TRUE(hook);
  EXPECT_EQ(hook->stages(), SwitchHook::kDequeued);
  w::IntStack empty;
  empty.max_hops = 1;
  std::vector<uint8_t> payload(100, 1);
  w::FrameSpec d;
  d.bth.opcode = w::kWriteMiddle;
  d.bth.resv7 = w::kBthIntBit;
  d.int_stack = &empty;
  d.payload = payload.data(), d.payload_len = 100;
  PipeFrame f;
  f.slot = pipe.put(w::build(d));
  SwitchCore::Departure dep;
  dep.port = 1;
  hook->dequeued(f, dep, 3000000);  // 3 us
  w::PacketView v;
  const std::vector<uint8_t>& bytes = pipe.bytes(f.slot);
  ASSERT_EQ(w::parse(bytes.data(), bytes.size(), v), w::ParseStatus::kOk);  // ICRC rewritten
  ASSERT_EQ(v.int_stack.nhop, 1);
  EXPECT_EQ(v.int_stack.hop(0).time_ns(), 3000u);
  EXPECT_DOUBLE_EQ(v.int_stack.hop(0).gbps(), 100);  // FakePipe's ports run at 100
  EXPECT_EQ(v.int_stack.hop(0).qlen_bytes(1), 0u);   // nothing queued in the buffer
  EXPECT_EQ(stats.counter_value("sw.int.stamped"), 1u);
  hook->dequeued(f, dep, 4000000);  // the same frame again: its one-hop stack is full
  EXPECT_EQ(stats.counter_value("sw.int.full"), 1u);
  EXPECT_EQ(stats.counter_value("sw.int.stamped"), 1u);
}

// The descriptor a switch reads instead of the bytes holds what parsing them gives: a
// RoCEv2 frame's addresses as flow keys, ports, opcode and TOS; a PAUSE is a MAC control
// frame and not IP; a UET frame is IP and not RoCE.
TEST(FrameDesc, DescribesWhatParsingGives) {
  w::FrameSpec s;
  s.bth.opcode = w::kAcknowledge;
  s.tos = 0x02 | 26 << 2;
  s.src_ip = {10, 0, 0, 1}, s.dst_ip = {10, 0, 0, 2};
  s.udp_sport = 49200;
  const std::vector<uint8_t> roce = w::build(s);
  const FrameDesc d = describe(roce);
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.ip_version, 4);
  EXPECT_TRUE(d.roce);
  EXPECT_FALSE(d.pfc);
  EXPECT_EQ(d.opcode, w::kAcknowledge);
  EXPECT_EQ(d.tos, 0x02 | 26 << 2);
  EXPECT_EQ(d.sport, 49200);
  EXPECT_EQ(d.dport, w::kRoceUdpPort);
  EXPECT_EQ(d.src_key, 0x0A000001u);
  EXPECT_EQ(d.dst_key, 0x0A000002u);
  EXPECT_EQ(d.dst_ip[3], 2);

  const FrameDesc p = describe(pfc_frame(1, 0, 5));
  EXPECT_TRUE(p.pfc);
  EXPECT_EQ(p.ip_version, 0);

  const FrameDesc u = describe(w::uet::build_frame(w::uet::UetFrameSpec{}));
  EXPECT_EQ(u.ip_version, 4);
  EXPECT_FALSE(u.roce);
  EXPECT_EQ(u.dport, w::uet::kUetUdpPort);

  std::vector<uint8_t> bad = roce;
  bad[12] = 0x12;  // no EtherType oonic knows: neither IP nor PFC
  const FrameDesc b = describe(bad);
  EXPECT_FALSE(b.pfc);
  EXPECT_EQ(b.ip_version, 0);
}

}  // namespace
}  // namespace oonic::network
