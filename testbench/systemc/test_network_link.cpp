// NetworkLink (one direction of the network between two NICs) in a SystemC
// kernel: a sender pushes frames into rx_socket with various start delays and
// reuses its buffer at once; a receiver records the time and bytes of each
// delivery. Exact delivery times derived by hand, in-order delivery at OOO
// distance 0, byte equality, the distance bound, drops and the hooks.
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/clock.h"
#include "model/core/stats.h"
#include "model/wire/roce.h"
#include "platforms/network/network_link.h"
#include "tlm/net_packet.h"

namespace oonic::test {
namespace {

namespace w = wire;
using network::NetworkLink;
using network::NetworkParams;

uint64_t ps_now() {
  return ClockDomain::ps_of(sc_core::sc_time_stamp());
}

// Calls rx_socket at call_ps with delay (start_ps - call_ps); one buffer for all
// frames, overwritten right after each call (the link must have copied it).
class Sender : public sc_core::sc_module {
 public:
  struct Item {
    uint64_t call_ps, start_ps;
    std::vector<uint8_t> bytes;
  };
  tlm_utils::simple_initiator_socket<Sender> out;
  std::vector<Item> script;

  explicit Sender(sc_core::sc_module_name n) : sc_module(n), out("out") { SC_THREAD(run); }

 private:
  SC_HAS_PROCESS(Sender);
  void run() {
    std::vector<uint8_t> buf(16384);
    for (const Item& it : script) {
      uint64_t now = ps_now();
      if (it.call_ps > now)
        sc_core::wait(sc_core::sc_time(static_cast<double>(it.call_ps - now), sc_core::SC_PS));
      std::memcpy(buf.data(), it.bytes.data(), it.bytes.size());
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_data_ptr(buf.data());
      gp.set_data_length(static_cast<unsigned>(it.bytes.size()));
      gp.set_streaming_width(static_cast<unsigned>(it.bytes.size()));
      sc_core::sc_time d(static_cast<double>(it.start_ps - it.call_ps), sc_core::SC_PS);
      out->b_transport(gp, d);
      EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
      std::memset(buf.data(), 0xEE, buf.size());
    }
  }
};

class Receiver : public sc_core::sc_module {
 public:
  struct Got {
    uint64_t ps;
    std::vector<uint8_t> bytes;
    uint32_t record;
    uint64_t capture_ps;
  };
  tlm_utils::simple_target_socket<Receiver> in;
  std::vector<Got> got;

  explicit Receiver(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_b_transport(this, &Receiver::receive);
  }

 private:
  void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    Got g;
    g.ps = ClockDomain::ps_of(sc_core::sc_time_stamp() + d);
    EXPECT_EQ(d, sc_core::SC_ZERO_TIME);
    g.bytes.assign(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length());
    auto* meta = gp.get_extension<NetPacketMeta>();
    EXPECT_NE(meta, nullptr);
    g.record = meta ? meta->record : 0;
    g.capture_ps = meta ? meta->capture_ps : 0;
    got.push_back(std::move(g));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Bench {
  Stats stats;
  Sender sender{"sender"};
  NetworkLink link;
  Receiver receiver{"receiver"};
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> delivered_hook;
  Bench(const NetworkParams& p, uint64_t seed = 1) : link("link_ab", p, "ab", seed, stats) {
    sender.out.bind(link.rx_socket);
    link.tx_socket.bind(receiver.in);
    link.on_deliver([this](uint64_t ps, const uint8_t* f, size_t n) {
      EXPECT_EQ(ps, ps_now());
      delivered_hook.push_back({ps, std::vector<uint8_t>(f, f + n)});
    });
  }
};

std::vector<uint8_t> roce_frame(uint32_t psn, uint32_t payload_len, uint8_t fill) {
  std::vector<uint8_t> payload(payload_len);
  for (uint32_t i = 0; i < payload_len; ++i) payload[i] = static_cast<uint8_t>(fill + i * 7);
  w::FrameSpec s;
  s.bth.opcode = w::kWriteMiddle;
  s.bth.dest_qp = 0x11;
  s.bth.psn = psn;
  s.payload = payload.data();
  s.payload_len = payload_len;
  return w::build(s);
}

// Frame 1: 1000 B, call at 10 ns with delay 2 ns -> first byte at 12000 ps;
//   1024 B on the wire x 80 ps = 81920 ps; + 1000000 ps propagation
//   -> last byte at the receiver 12000 + 81920 + 1000000 = 1093920 ps.
// Frame 2: an ACK (62 B -> 86 B x 80 = 6880 ps), call at 20 ns with delay 200 ns
//   -> first byte at 220000 ps -> 220000 + 6880 + 1000000 = 1226880 ps.
TEST(NetworkLink, DeliversAtHandDerivedTime) {
  NetworkParams p;
  Bench b(p);
  std::vector<uint8_t> f1(1000);
  for (size_t i = 0; i < f1.size(); ++i) f1[i] = static_cast<uint8_t>(i * 13 + 1);
  w::FrameSpec ack;
  ack.bth.opcode = w::kAcknowledge;
  ack.bth.psn = 9;
  std::vector<uint8_t> f2 = w::build(ack);
  ASSERT_EQ(f2.size(), 62u);
  b.sender.script.push_back({10000, 12000, f1});
  b.sender.script.push_back({20000, 220000, f2});
  sc_core::sc_start();
  ASSERT_EQ(b.receiver.got.size(), 2u);
  EXPECT_EQ(b.receiver.got[0].ps, 1093920u);
  EXPECT_EQ(b.receiver.got[0].bytes, f1);
  EXPECT_EQ(b.receiver.got[0].record, 1u);
  EXPECT_EQ(b.receiver.got[0].capture_ps, 12000u);
  EXPECT_EQ(b.receiver.got[1].ps, 1226880u);
  EXPECT_EQ(b.receiver.got[1].bytes, f2);
  EXPECT_EQ(b.receiver.got[1].record, 2u);
  EXPECT_EQ(b.receiver.got[1].capture_ps, 220000u);
  EXPECT_EQ(b.link.last_delivery_ps(), 1226880u);
  EXPECT_EQ(b.link.wakes(), 2u);
  // Nothing woke after the last delivery.
  EXPECT_EQ(ps_now(), 1226880u);
  ASSERT_EQ(b.delivered_hook.size(), 2u);
  EXPECT_EQ(b.delivered_hook[0].first, 1093920u);
  EXPECT_EQ(b.delivered_hook[1].second, f2);
  EXPECT_EQ(b.stats.counter_value("network.ab.frames_in"), 2u);
  EXPECT_EQ(b.stats.counter_value("network.ab.frames_delivered"), 2u);
  EXPECT_EQ(b.stats.counter_value("network.ab.bytes"), 1062u);
  EXPECT_EQ(b.stats.counter_value("network.ab.acks"), 1u);
  EXPECT_EQ(b.link.in_flight(), 0u);
  nlohmann::json j = b.stats.to_json(0);
  EXPECT_EQ(j["network.ab.delay_ns"]["count"], 2);
  EXPECT_EQ(j["network.ab.max_displacement"]["value"], 0);
  for (const auto& info : b.stats.list()) {
    EXPECT_FALSE(info.unit.empty()) << info.name;
    EXPECT_FALSE(info.desc.empty()) << info.name;
  }
}

// 500 frames of 0..2048 B payload, bursts of 10 handed over at once with start
// delays (as a NIC that books its MAC ahead), random idle gaps between frames.
// Distance 0: delivered in sending order at start + ser + propagation, bytes equal.
TEST(NetworkLink, InOrderAtDistanceZeroWithByteEquality) {
  NetworkParams p;
  p.propagation_ns = 2500;
  p.rate_gbps = 40;  // 200 ps per byte
  Bench b(p);
  std::mt19937_64 g(5);
  uint64_t t = 3000, call = 0;
  std::vector<uint64_t> expect;
  for (uint32_t i = 0; i < 500; ++i) {
    auto f = roce_frame(i, static_cast<uint32_t>(g() % 2049), static_cast<uint8_t>(i));
    if (i % 10 == 0) call = t;  // the burst is handed over when its first frame starts
    uint64_t ser = w::wire_bytes(f.size()) * 200;
    expect.push_back(t + ser + 2500000);
    b.sender.script.push_back({call, t, f});
    t += ser + (g() % 4) * 1000;
  }
  sc_core::sc_start();
  ASSERT_EQ(b.receiver.got.size(), 500u);
  for (size_t i = 0; i < 500; ++i) {
    SCOPED_TRACE(i);
    const auto& got = b.receiver.got[i];
    ASSERT_EQ(got.record, i + 1);
    ASSERT_EQ(got.ps, expect[i]);
    ASSERT_EQ(got.bytes, b.sender.script[i].bytes);
    ASSERT_EQ(got.capture_ps, b.sender.script[i].start_ps);
  }
  EXPECT_EQ(b.link.last_delivery_ps(), expect.back());
  EXPECT_EQ(b.stats.counter_value("network.ab.reordered"), 0u);
  EXPECT_EQ(b.stats.counter_value("network.ab.sender_overlap"), 0u);
  EXPECT_EQ(b.link.wakes(), 500u);
}

// Distance 4 with loss and listed PSNs over 3000 frames: every frame is either
// delivered once with its bytes intact or reported dropped once; no frame is
// overtaken by 4 frames sent after it; deliveries never overlap on the
// receiving port; the hooks see what the receiver sees.
TEST(NetworkLink, ReorderBoundDropsAndHooks) {
  NetworkParams p;
  p.ooo_distance = 4;
  p.loss_rate = 0.02;
  p.drop_psns = "ab:100-102,ba:200";
  Bench b(p, 77);
  std::map<uint64_t, std::string> dropped;  // start_ps -> reason
  std::vector<uint32_t> dropped_psns_listed;
  b.link.on_drop([&](uint64_t start, const uint8_t* f, size_t n, const char* reason) {
    dropped[start] = reason;
    w::PacketView v;
    EXPECT_EQ(w::parse(f, n, v, true), w::ParseStatus::kOk);
    if (std::string(reason) == "listed") dropped_psns_listed.push_back(v.bth.psn);
  });
  std::mt19937_64 g(6);
  uint64_t t = 0;
  const uint32_t n = 3000;
  for (uint32_t i = 0; i < n; ++i) {
    auto f = roce_frame(i, static_cast<uint32_t>(g() % 1500), static_cast<uint8_t>(i * 3));
    b.sender.script.push_back({t, t, f});
    t += w::wire_bytes(f.size()) * 80;
  }
  sc_core::sc_start();
  const auto& got = b.receiver.got;
  EXPECT_EQ(got.size() + dropped.size(), n);
  EXPECT_EQ(dropped_psns_listed, (std::vector<uint32_t>{100, 101, 102}));
  EXPECT_GT(dropped.size(), 3u + 20u);
  std::set<uint32_t> seen;
  uint64_t prev = 0;
  uint32_t max_disp = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    const auto& r = got[k];
    ASSERT_GE(r.record, 1u);
    ASSERT_LE(r.record, n);
    ASSERT_TRUE(seen.insert(r.record).second);
    const auto& sent = b.sender.script[r.record - 1];
    ASSERT_EQ(r.bytes, sent.bytes);
    ASSERT_EQ(dropped.count(sent.start_ps), 0u);
    uint64_t ser = w::wire_bytes(r.bytes.size()) * 80;
    ASSERT_GE(r.ps, sent.start_ps + ser + 1000000);
    if (k > 0) {
      ASSERT_GE(r.ps, prev + ser) << k;
    }
    prev = r.ps;
    // Frames sent after this one and delivered before it.
    uint32_t disp = 0;
    for (size_t q = 0; q < k; ++q) disp += got[q].record > r.record;
    max_disp = std::max(max_disp, disp);
  }
  EXPECT_LT(max_disp, 4u);
  EXPECT_EQ(max_disp, 3u);
  EXPECT_EQ(b.stats.counter_value("network.ab.frames_in"), n);
  EXPECT_EQ(b.stats.counter_value("network.ab.frames_delivered"), got.size());
  EXPECT_EQ(b.stats.counter_value("network.ab.dropped_listed"), 3u);
  EXPECT_EQ(b.stats.counter_value("network.ab.dropped_random"), dropped.size() - 3);
  EXPECT_GT(b.stats.counter_value("network.ab.reordered"), 0u);
  nlohmann::json j = b.stats.to_json(0);
  EXPECT_EQ(j["network.ab.max_displacement"]["value"], 3);
  ASSERT_EQ(b.delivered_hook.size(), got.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(b.delivered_hook[k].first, got[k].ps);
    ASSERT_EQ(b.delivered_hook[k].second, got[k].bytes);
  }
  EXPECT_EQ(b.link.last_delivery_ps(), got.back().ps);
  EXPECT_EQ(ps_now(), got.back().ps);
  // One wake per delivered frame at most (frames due at once share a wake).
  EXPECT_LE(b.link.wakes(), got.size());
}

}  // namespace
}  // namespace oonic::test
