// The switch shell (platforms/network/switch.h) in a SystemC kernel: a kpaths
// fabric of 2 ToRs and 2 spines, frames injected at tor0's host port and
// collected at tor1's. Arrival times derived by hand, spraying's per-path
// counts, RED marks that keep the frame valid (ICRC from the model's parser,
// IPv4 checksum recomputed here).
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/clock.h"
#include "model/core/error.h"
#include "model/core/stats.h"
#include "model/wire/pfc.h"
#include "model/wire/roce.h"
#include "platforms/network/hooks/red_ecn.h"
#include "platforms/network/switch.h"
#include "testbench/common/frame_write.h"

namespace oonic::test {
namespace {

namespace w = wire;
using network::AddressMap;

// The RED/ECN row's own parameters in a switch's (switch.ecn, kmin_bytes, ...).
network::RedParams& red(network::SwitchParams& sp) {
  return *sp.hooks.find<network::RedParams>("red_ecn");
}
using network::Routes;
using network::RoutingParams;
using network::Switch;
using network::SwitchParams;
using network::Topology;

uint64_t ps_now() {
  return ClockDomain::ps_of(sc_core::sc_time_stamp());
}

// Hands frames to a switch port at given times (the last byte has arrived).
class Injector : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Injector> out;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> script;
  explicit Injector(sc_core::sc_module_name n) : sc_module(n), out("out") { SC_THREAD(run); }

 private:
  SC_HAS_PROCESS(Injector);
  void run() {
    std::vector<uint8_t> buf(16384);
    for (const auto& [at, bytes] : script) {
      if (at > ps_now()) sc_core::wait(ClockDomain::from_ps(at - ps_now()));
      std::memcpy(buf.data(), bytes.data(), bytes.size());
      EXPECT_EQ(write_frame(out, buf.data(), bytes.size()), tlm::TLM_OK_RESPONSE);
      std::memset(buf.data(), 0xEE, buf.size());  // the switch must have copied it
    }
  }
};

class Sink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Sink> in;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> got;
  explicit Sink(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_b_transport(this, &Sink::receive);
  }

 private:
  void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    EXPECT_EQ(d, sc_core::SC_ZERO_TIME);
    got.push_back({ps_now(), {gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length()}});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// kpaths(2, 1): h0 (0), h1 (1), tor0 (2), tor1 (3), spine0 (4), spine1 (5); every
// link 100 Gbit/s, 1 us. Port 0 of each ToR is its host.
struct Fabric {
  Stats stats;
  Topology t = Topology::kpaths(2, 1, 100, 100, 1000);
  Routes routes{t};
  AddressMap hosts;
  std::vector<std::unique_ptr<Switch>> sw;
  Injector inject{"inject"}, idle{"idle"};
  Sink at_h1{"at_h1"}, at_h0{"at_h0"};
  Fabric(const SwitchParams& sp, const RoutingParams& rp) {
    hosts[{4, {10, 0, 0, 1}}] = 0;
    hosts[{4, {10, 0, 0, 2}}] = 1;
    for (uint32_t n : t.switches())
      sw.push_back(
          std::make_unique<Switch>(t.nodes[n].name.c_str(), sp, rp, t, routes, n, hosts, 1, stats));
    auto of = [&](uint32_t node) -> Switch& { return *sw[node - 2]; };
    // Switch-to-switch links, both ways.
    for (const auto& l : t.links) {
      if (t.is_host(l.a) || t.is_host(l.b)) continue;
      uint32_t pa = 0, pb = 0;
      for (uint32_t k = 0; k < t.ports[l.a].size(); ++k)
        if (t.ports[l.a][k].peer == l.b) pa = k;
      for (uint32_t k = 0; k < t.ports[l.b].size(); ++k)
        if (t.ports[l.b][k].peer == l.a) pb = k;
      of(l.a).tx_socket[pa]->bind(*of(l.b).rx_socket[pb]);
      of(l.b).tx_socket[pb]->bind(*of(l.a).rx_socket[pa]);
    }
    inject.out.bind(*of(2).rx_socket[0]);
    of(2).tx_socket[0]->bind(at_h0.in);
    idle.out.bind(*of(3).rx_socket[0]);
    of(3).tx_socket[0]->bind(at_h1.in);
  }
  const Switch& spine(int i) const { return *sw[2 + i]; }
};

std::vector<uint8_t> frame(uint32_t psn, uint16_t sport, uint32_t payload, uint8_t tos = 0) {
  std::vector<uint8_t> p(payload, 0x5a);
  w::FrameSpec s;  // 10.0.0.1 -> 10.0.0.2
  s.bth.opcode = w::kWriteMiddle;
  s.bth.dest_qp = 0x11;
  s.bth.psn = psn;
  s.udp_sport = sport;
  s.tos = tos;
  s.payload = p.data();
  s.payload_len = payload;
  return w::build(s);
}

// A 942-byte payload makes a 1002-byte frame (2 pad bytes): 1026 B on the wire
// with FCS, preamble and IFG, 82.08 ns at 100 Gbit/s.
TEST(Switch, ThreeHopsAndFramesPipelinedBehindEachOther) {
  SwitchParams sp;
  red(sp).ecn = false;
  Fabric f(sp, RoutingParams{});
  ASSERT_EQ(frame(0, 49152, 942).size(), 1002u);
  constexpr uint64_t kSer = 82080;
  for (uint32_t k = 0; k < 3; ++k) f.inject.script.push_back({5000, frame(k, 49152, 942)});
  sc_core::sc_start();
  ASSERT_EQ(f.at_h1.got.size(), 3u);
  // Each of 3 hops: 82.08 ns on the wire + 1 us; frame k waits k frames at tor0.
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(f.at_h1.got[k].first, 5000 + 3 * (kSer + 1000000) + k * kSer) << k;
    w::PacketView v;
    EXPECT_EQ(w::parse(f.at_h1.got[k].second.data(), f.at_h1.got[k].second.size(), v, true),
              w::ParseStatus::kOk);
    EXPECT_EQ(v.bth.psn, k);  // one flow, one path: in order
  }
  EXPECT_TRUE(f.at_h0.got.empty());
  // One flow (ECMP): one spine carried all three.
  EXPECT_EQ(f.spine(0).core().counters().frames_out + f.spine(1).core().counters().frames_out, 3u);
  EXPECT_TRUE(f.spine(0).core().counters().frames_out == 3 ||
              f.spine(1).core().counters().frames_out == 3);
}

TEST(Switch, RoundRobinSprayUsesBothSpinesEqually) {
  SwitchParams sp;
  red(sp).ecn = false;
  RoutingParams rp;
  rp.mode = "spray";
  rp.spray_mode = "rr";
  Fabric f(sp, rp);
  for (uint32_t k = 0; k < 8; ++k) f.inject.script.push_back({1000 * k, frame(k, 49152, 942)});
  sc_core::sc_start();
  EXPECT_EQ(f.at_h1.got.size(), 8u);
  EXPECT_EQ(f.spine(0).core().counters().frames_out, 4u);
  EXPECT_EQ(f.spine(1).core().counters().frames_out, 4u);
}

bool ipv4_checksum_ok(const std::vector<uint8_t>& fr) {
  uint32_t sum = 0;
  for (size_t i = 14; i < 34; i += 2) sum += uint32_t(fr[i] << 8 | fr[i + 1]);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return sum == 0xFFFF;
}

TEST(Switch, RedMarksLeaveAValidFrame) {
  SwitchParams sp;
  red(sp).kmin_bytes = 0;
  red(sp).kmax_bytes = 2000;  // at dequeue: >= 2000 B left behind -> marked
  Fabric f(sp, RoutingParams{});
  // Five ECT(0) frames at once: at tor0 frames 0..2 leave >= 2000 B behind.
  for (uint32_t k = 0; k < 5; ++k) f.inject.script.push_back({0, frame(k, 49152, 942, 0x02)});
  sc_core::sc_start();
  ASSERT_EQ(f.at_h1.got.size(), 5u);
  // At tor0 frame k leaves (4 - k) x 1002 B behind: k = 0..2 at or past kmax (marked),
  // k = 3 with p = 0.2 x 1002 / 2000, k = 4 with none. Later hops hold no queue.
  std::vector<bool> marked;
  for (const auto& [t, fr] : f.at_h1.got) {
    w::PacketView v;
    EXPECT_EQ(w::parse(fr.data(), fr.size(), v, true), w::ParseStatus::kOk);  // ICRC still good
    EXPECT_TRUE(ipv4_checksum_ok(fr));
    marked.push_back((v.tos & 3) == 3);
    if (!marked.back()) {
      EXPECT_EQ(v.tos & 3, 2);  // ECT(0) kept
    }
  }
  EXPECT_TRUE(marked[0] && marked[1] && marked[2]);
  EXPECT_FALSE(marked[4]);
}

std::vector<uint8_t> pfc(uint8_t prio, uint16_t quanta) {
  w::Pfc p;
  p.enable = static_cast<uint8_t>(1u << prio);
  p.quanta[prio] = quanta;
  std::vector<uint8_t> f(w::kPfcFrameBytes);
  w::build_pfc(p, {0x02, 0, 0, 0, 0, 9}, f.data());
  return f;
}

// h1 pauses tor1's port 0 (priority 1) for 1000 quanta = 5.12 us at t = 0, resumes it
// with an XON at 4 us, pauses it again at 10 us and lets that pause run out at 15.12 us.
TEST(Switch, PauseHoldsThePortForItsQuantaAndAnXonReleasesIt) {
  SwitchParams sp;
  red(sp).ecn = false;
  sp.pfc = true;
  Fabric f(sp, RoutingParams{});
  constexpr uint64_t kSer = 82080;  // the 1002-byte frame at 100 Gbit/s
  f.idle.script = {{0, pfc(1, 1000)}, {4000000, pfc(1, 0)}, {10000000, pfc(1, 1000)}};
  // At tor1 2 x (ser + 1 us) after injection: frame 0 at 2.16 us (held), frame 1 at 12.16 us.
  f.inject.script = {{0, frame(0, 49152, 942)}, {10000000, frame(1, 49152, 942)}};
  sc_core::sc_start();
  ASSERT_EQ(f.at_h1.got.size(), 2u);
  EXPECT_EQ(f.at_h1.got[0].first, 4000000 + kSer + 1000000);   // starts at the XON
  EXPECT_EQ(f.at_h1.got[1].first, 15120000 + kSer + 1000000);  // starts as the pause ends
  EXPECT_EQ(f.sw[1]->core().counters().pauses_received, 3u);
  EXPECT_TRUE(f.at_h0.got.empty());
}

// tor0 takes 4 frames from h0 at once with xoff = 3 frames, xon = 1: the third crosses
// xoff (an XOFF goes back to h0 at t = 0, ahead of nothing, 84 B on the wire); the
// third departure (at 2 ser) leaves 1 frame held <= xon (an XON at 2 ser).
TEST(Switch, XoffAndXonGoUpstreamAsPfcFramesAtTheirThresholds) {
  SwitchParams sp;
  red(sp).ecn = false;
  sp.pfc = true;
  sp.xoff_bytes = 3 * 1002;
  sp.xon_bytes = 1002;
  sp.headroom_bytes = 10000;
  Fabric f(sp, RoutingParams{});
  constexpr uint64_t kSer = 82080;
  constexpr uint64_t kPfcSer = 6720;  // 60 + 24 B at 100 Gbit/s
  for (uint32_t k = 0; k < 4; ++k) f.inject.script.push_back({0, frame(k, 49152, 942)});
  sc_core::sc_start();
  ASSERT_EQ(f.at_h0.got.size(), 2u);
  w::Pfc p;
  ASSERT_TRUE(w::parse_pfc(f.at_h0.got[0].second.data(), f.at_h0.got[0].second.size(), p));
  EXPECT_EQ(p.enable, 2);
  EXPECT_EQ(p.quanta[1], 65535);  // switch.pause_quanta
  EXPECT_EQ(f.at_h0.got[0].first, kPfcSer + 1000000);
  ASSERT_TRUE(w::parse_pfc(f.at_h0.got[1].second.data(), f.at_h0.got[1].second.size(), p));
  EXPECT_EQ(p.quanta[1], 0);
  EXPECT_EQ(f.at_h0.got[1].first, 2 * kSer + kPfcSer + 1000000);
  EXPECT_EQ(f.at_h1.got.size(), 4u);
  EXPECT_EQ(f.sw[0]->core().counters().xoff_sent, 1u);
  EXPECT_EQ(f.sw[0]->core().counters().xon_sent, 1u);
}

// Hands one frame to each of two switch ports at the same instant, port 1's first.
class PairInjector : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<PairInjector> to_port1, to_port0;
  std::vector<uint8_t> first, second;
  explicit PairInjector(sc_core::sc_module_name n)
      : sc_module(n), to_port1("to_port1"), to_port0("to_port0") {
    SC_THREAD(run);
  }

 private:
  SC_HAS_PROCESS(PairInjector);
  void send(tlm_utils::simple_initiator_socket<PairInjector>& s, std::vector<uint8_t>& f) {
    EXPECT_EQ(write_frame(s, f.data(), f.size()), tlm::TLM_OK_RESPONSE);
  }
  void run() {
    sc_core::wait(sc_core::sc_time(1000, sc_core::SC_PS));
    send(to_port1, first);
    send(to_port0, second);
  }
};

// Frames arriving at one instant are admitted in port order, not in the order their
// senders ran: port 0's frame leaves first although port 1's was handed over first.
TEST(Switch, FramesOfOneInstantAreTakenInPortOrder) {
  Stats stats;
  Topology t = Topology::leaf_spine(1, 1, 3, 100, 100, 1000);  // h0-h2 on leaf0, spine0
  Routes routes{t};
  AddressMap hosts;
  hosts[{4, {10, 0, 0, 2}}] = 2;  // frame()'s destination: h2
  SwitchParams sp;
  red(sp).ecn = false;
  Switch leaf("leaf0", sp, RoutingParams{}, t, routes, 3, hosts, 1, stats);
  Switch spine("spine0", sp, RoutingParams{}, t, routes, 4, hosts, 1, stats);
  PairInjector pair("pair");
  Injector idle("idle");
  Sink h0("h0"), h1("h1"), h2("h2");
  pair.to_port1.bind(*leaf.rx_socket[1]);
  pair.to_port0.bind(*leaf.rx_socket[0]);
  idle.out.bind(*leaf.rx_socket[2]);
  leaf.tx_socket[0]->bind(h0.in);
  leaf.tx_socket[1]->bind(h1.in);
  leaf.tx_socket[2]->bind(h2.in);
  leaf.tx_socket[3]->bind(*spine.rx_socket[0]);
  spine.tx_socket[0]->bind(*leaf.rx_socket[3]);
  pair.first = frame(1, 49152, 942);   // into port 1
  pair.second = frame(0, 49153, 942);  // into port 0
  sc_core::sc_start();
  constexpr uint64_t kSer = 82080;
  ASSERT_EQ(h2.got.size(), 2u);
  w::PacketView v;
  ASSERT_EQ(w::parse(h2.got[0].second.data(), h2.got[0].second.size(), v, true),
            w::ParseStatus::kOk);
  EXPECT_EQ(v.bth.psn, 0u);  // port 0's
  EXPECT_EQ(h2.got[0].first, 1000 + kSer + 1000000);
  EXPECT_EQ(h2.got[1].first, 1000 + 2 * kSer + 1000000);
}

TEST(Switch, PfcNeedsAControlAndADataPriority) {
  SwitchParams sp;
  sp.pfc = true;
  sp.priorities = 1;
  EXPECT_THROW(Fabric f(sp, RoutingParams{}), oonic::Error);
}

}  // namespace
}  // namespace oonic::test
