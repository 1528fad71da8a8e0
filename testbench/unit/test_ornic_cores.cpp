// Kernel-free unit tests of ORNIC's block cores (model/ornic/**/*_core.h) and the PCIe
// link's core (tlm/pcie_link_core.h): no SystemC kernel, no sc_module; the cores are
// wired to each other through their interfaces (block_interfaces.h) and to small fakes
// (host memory behind a fixed-latency DMA port, a frame recorder behind the MAC).
//
// Every expected cycle is derived in a comment from the defaults in
// model/ornic/ornic_params.h: clock 250 MHz (4000 ps), MAC 100 Gbit/s (80 ps per byte),
// wire bytes = max(frame, 60) + FCS 4 + preamble/IFG 20, Hdr Generator 4 cycles per
// frame, DMA setup 2 cycles + one per 64-byte beat, SRAM read latency 1.
#include <gtest/gtest.h>

#include <queue>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/control/cqe_manager_core.h"
#include "model/ornic/control/req_manager_core.h"
#include "model/ornic/control/rsp_manager_core.h"
#include "model/ornic/dma_engine_core.h"
#include "model/ornic/mac_core.h"
#include "model/ornic/ornic_params.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_map.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/ornic/rx/req_processor_core.h"
#include "model/ornic/tx/hdr_generator_core.h"
#include "model/ornic/tx/qp_manager_core.h"
#include "model/ornic/tx/tx_arbiter_core.h"
#include "model/ornic/wqe.h"
#include "model/schemes/receive_schemes.h"
#include "model/sender/rate_control.h"
#include "model/sender/standard_recovery.h"
#include "model/sram/sram.h"
#include "model/wire/roce.h"
#include "tlm/pcie_link_core.h"

namespace {

using namespace oonic;         // NOLINT: a test file, not a header
using namespace oonic::ornic;  // NOLINT

// ---------------------------------------------------------------- fakes

// Host memory (sparse) behind the DMA port: every transfer is done `latency` cycles
// after it is issued; writes are recorded in issue order.
class FakeDma final : public DmaPort {
 public:
  struct Write {
    Cycle t;
    uint64_t addr;
    uint32_t len;
  };
  explicit FakeDma(Cycle latency = 10) : latency_(latency) {}
  Cycle write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len, PktBuffer*) override {
    for (uint32_t i = 0; i < len; ++i) mem[addr + i] = src[i];
    writes.push_back({t, addr, len});
    return t + latency_;
  }
  Cycle read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len) override {
    reads.push_back({t, addr, len});
    for (uint32_t i = 0; i < len; ++i) {
      auto it = mem.find(addr + i);
      dst[i] = it == mem.end() ? 0 : it->second;
    }
    return t + latency_;
  }
  void put(uint64_t addr, const uint8_t* src, size_t len) {
    for (size_t i = 0; i < len; ++i) mem[addr + i] = src[i];
  }
  Cycle write_free_at() const override { return busy_until; }
  void poke(uint64_t addr, const uint8_t* src, uint32_t len) override {
    put(addr, src, len);
    pokes.push_back({0, addr, len});
  }
  Cycle busy_until = 0;  // what write_free_at() says (the tests set it)
  std::vector<struct Write> pokes;
  void get(uint64_t addr, uint8_t* dst, size_t len) const {
    for (size_t i = 0; i < len; ++i) {
      auto it = mem.find(addr + i);
      dst[i] = it == mem.end() ? 0 : it->second;
    }
  }
  std::map<uint64_t, uint8_t> mem;
  std::vector<Write> writes;
  std::vector<Write> reads;

 private:
  Cycle latency_;
};

// The frames the MAC sends, parsed back (ICRC checked).
class FrameRecorder final : public FrameOut {
 public:
  struct Frame {
    Cycle start;
    std::vector<uint8_t> bytes;
    wire::PacketView v;
  };
  void frame_out(Cycle start, const uint8_t* frame, size_t len) override {
    frames.push_back(Frame{start, std::vector<uint8_t>(frame, frame + len), {}});
    Frame& f = frames.back();
    ASSERT_EQ(wire::parse(f.bytes.data(), f.bytes.size(), f.v), wire::ParseStatus::kOk)
        << "frame " << frames.size() << " does not parse";
  }
  std::vector<Frame> frames;
};

class WakeRecorder final : public WakeUp {
 public:
  void wake(Cycle t) override { at.push_back(t); }
  std::vector<Cycle> at;
};

OrnicParams small_params() {
  OrnicParams p;
  p.nic.max_qps = 4;
  return p;
}

// ---------------------------------------------------------------- MAC

TEST(MacCore, WireTimeIsFramePlusFcsPreambleAndIfgRoundedUpToCycles) {
  Stats stats;
  OrnicParams p;
  FrameRecorder out;
  MacCore mac(CoreEnv{p, StatGroup(stats, "nic0.mac")}, out);
  // 1024 B: (1024 + 4 + 20) x 80 ps = 83,840 ps = 20.96 cycles -> 21.
  EXPECT_EQ(mac.wire_cycles(1024), 21u);
  // 40 B is padded to 60: (60 + 24) x 80 = 6,720 ps = 1.68 -> 2. So is 60 B.
  EXPECT_EQ(mac.wire_cycles(40), 2u);
  EXPECT_EQ(mac.wire_cycles(60), 2u);
  // 1500 B: 1524 x 80 = 121,920 ps = 30.48 -> 31.
  EXPECT_EQ(mac.wire_cycles(1500), 31u);
  // Back to back: the second frame starts when the first has left.
  EXPECT_EQ(mac.reserve(100, 1024), 100u);
  EXPECT_EQ(mac.reserve(100, 40), 121u);
  EXPECT_EQ(mac.free_at(), 123u);
  EXPECT_EQ(mac.busy_cycles(), 23u);
}

// One quantum at 100 Gbit/s is 5.12 ns; 250 MHz cycles are 4 ns. 100 quanta = 512 ns =
// 128 cycles; 3 quanta = 15.36 ns -> 4 cycles (rounded up).
TEST(MacCore, PauseHoldsAClassForItsQuantaCountedOnce) {
  Stats stats;
  OrnicParams p;
  ASSERT_EQ(p.nic.clock_mhz, 250);
  ASSERT_EQ(p.mac.rate_gbps, 100);
  FrameRecorder out;
  MacCore mac(CoreEnv{p, StatGroup(stats, "nic0.mac")}, out);
  wire::Pfc pf;
  pf.enable = 0x02;
  pf.quanta[1] = 100;
  pf.quanta[0] = 7;  // not enabled: ignored
  EXPECT_FALSE(mac.pause(10, pf));
  EXPECT_EQ(mac.paused_until(1), 138u);
  EXPECT_EQ(mac.paused_until(0), 0u);
  pf.quanta[1] = 3;  // at 50: until 54, earlier than 138 -> the arbiter must look
  EXPECT_TRUE(mac.pause(50, pf));
  EXPECT_EQ(mac.paused_until(1), 54u);
  pf.quanta[1] = 0;  // XON at 200, after the pause ended: nothing changes
  EXPECT_FALSE(mac.pause(200, pf));
  EXPECT_EQ(mac.paused_until(1), 200u);
  EXPECT_EQ(mac.paused_cycles(1), 44u);  // [10, 54)
  EXPECT_EQ(stats.counter_value("nic0.mac.pfc_frames_in"), 3u);
  EXPECT_EQ(stats.to_json(0)["nic0.mac.data_paused_cycles"]["value"], 44.0);
}

// ---------------------------------------------------------------- Hdr Generator

struct TxPath {
  Stats stats;
  OrnicParams p = small_params();
  FrameRecorder out;
  MacCore mac{CoreEnv{p, StatGroup(stats, "nic0.mac")}, out};
  HdrGeneratorCore hdr{CoreEnv{p, StatGroup(stats, "nic0.tx.hdr_generator")}, mac};
  QpContext qp;
  TxPath() { qp.peer_qpn = 0x22; }
};

TEST(HdrGeneratorCore, BackToBackAcksQueueOnTheGeneratorThenOnTheMac) {
  TxPath x;
  // ACK frame: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 = 62 B -> (62 + 24) x
  // 80 = 6,880 ps = 1.72 -> 2 MAC cycles.
  // ACK 1 at 100: generator 100..104, MAC 104..106 -> starts 104.
  // ACK 2 at 100: generator free at 104 -> 104..108, MAC free at 106 -> starts 108.
  EXPECT_EQ(x.hdr.send_ack(100, x.qp, 7, 3, wire::kAethAckNoCredit, false), 104u);
  EXPECT_EQ(x.hdr.send_ack(100, x.qp, 9, 4, wire::kAethAckNoCredit, true), 108u);
  ASSERT_EQ(x.out.frames.size(), 2u);
  EXPECT_EQ(x.out.frames[0].bytes.size(), 62u);
  EXPECT_EQ(x.out.frames[0].start, 104u);
  EXPECT_EQ(x.out.frames[1].start, 108u);
  const wire::PacketView& a = x.out.frames[0].v;
  EXPECT_EQ(a.bth.opcode, wire::kAcknowledge);
  EXPECT_EQ(a.bth.dest_qp, 0x22u);  // the QP's peer
  EXPECT_EQ(a.bth.psn, 7u);
  EXPECT_EQ(a.aeth.msn, 3u);
  EXPECT_EQ(a.bth.resv7 & wire::kBthStartAddrCachedBit, 0);
  EXPECT_NE(x.out.frames[1].v.bth.resv7 & wire::kBthStartAddrCachedBit, 0);  // "cached" flag
  EXPECT_EQ(x.stats.counter_value("nic0.tx.hdr_generator.acks"), 2u);
  EXPECT_EQ(x.stats.counter_value("nic0.mac.frames_out"), 2u);
}

TEST(HdrGeneratorCore, DataFramesWaitForTheMacNotTheGenerator) {
  TxPath x;
  std::vector<uint8_t> payload(1024, 0x5A);
  // WRITE Only with 1024 B: 14 + 20 + 8 + 12 + RETH 16 + 1024 + 4 = 1098 B ->
  // (1098 + 24) x 80 = 89,760 ps = 22.44 -> 23 MAC cycles.
  // Frame 1 at 0: generator 0..4, MAC 4..27. Frame 2 at 0: generator 4..8, MAC free at 27.
  wire::FrameSpec s;
  s.bth.opcode = wire::kWriteOnly;
  s.reth.va = 0x1000, s.reth.rkey = 1, s.reth.dma_len = 1024;
  s.payload = payload.data(), s.payload_len = 1024;
  EXPECT_EQ(x.hdr.send_data(0, x.qp, s, false), 4u);
  s.bth.psn = 1;
  EXPECT_EQ(x.hdr.send_data(0, x.qp, s, false), 27u);
  ASSERT_EQ(x.out.frames.size(), 2u);
  EXPECT_EQ(x.out.frames[1].bytes.size(), 1098u);
  EXPECT_EQ(x.out.frames[1].v.payload_len, 1024u);
  EXPECT_EQ(x.out.frames[1].v.bth.psn, 1u);
  EXPECT_EQ(x.mac.busy_cycles(), 46u);
}

// ---------------------------------------------------------------- DMA Engine

class FakeBus final : public HostBus {
 public:
  Cycle transfer(Cycle start, bool write, uint64_t addr, uint8_t*, uint32_t len,
                 bool* ok) override {
    issued.push_back(start);
    *ok = addr < 0x100000;  // above 1 MiB: an error response
    return start + (write ? 50 : 200) + len / 64;
  }
  std::vector<Cycle> issued;
};

TEST(DmaEngineCore, ChannelsHoldSetupPlusOneCyclePerBeat) {
  Stats stats;
  OrnicParams p;
  FakeBus bus;
  DmaEngineCore dma(CoreEnv{p, StatGroup(stats, "nic0.dma")}, bus);
  std::vector<uint8_t> buf(4096);
  // Write 4096 B at 100: 64 beats; channel held 2 + 64 = 66 from 100, transfer issued at
  // 102 (after setup), done 102 + 50 + 64 = 216. A second write at 100 waits for the
  // channel (free at 166): issued 168, done 282.
  EXPECT_EQ(dma.write(100, 0x1000, buf.data(), 4096, nullptr), 216u);
  EXPECT_EQ(dma.write(100, 0x2000, buf.data(), 4096, nullptr), 282u);
  // Reads hold their own channel for setup + 1 = 3: issued at 102 and 105.
  EXPECT_EQ(dma.read(100, 0x1000, buf.data(), 64), 303u);
  EXPECT_EQ(dma.read(100, 0x1000, buf.data(), 64), 306u);
  EXPECT_EQ(bus.issued, (std::vector<Cycle>{102, 168, 102, 105}));
  EXPECT_EQ(stats.counter_value("nic0.dma.write_bytes"), 8192u);
  EXPECT_EQ(stats.counter_value("nic0.dma.reads"), 2u);
  // An error response is counted, not thrown.
  dma.write(0, 0x200000, buf.data(), 64, nullptr);
  EXPECT_EQ(dma.errors(), 1u);
}

// ---------------------------------------------------------------- PCIe link

// The read tags as a ring give what a min-heap of the tags' free times gives: the
// completions leave in booking order, so the times come back rising.
TEST(PcieLinkCore, ReadTagsFreeInTheOrderAHeapWouldGive) {
  PcieParams pp;
  pp.read_tags = 5, pp.read_latency_ns = 700;
  Stats stats;
  PcieLinkCore link(pp, StatGroup(stats, "t"));
  // The reference: the same arithmetic with a heap of tag free times.
  PsResource up, down;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> tags;
  for (uint32_t i = 0; i < pp.read_tags; ++i) tags.push(0);
  uint64_t wait = 0;
  auto ref = [&](uint64_t t, uint64_t a, uint64_t len) {
    uint64_t done = t;
    const uint64_t req = link.wire_ps(pp.tlp_overhead_bytes);
    do {
      const uint64_t n = std::min<uint64_t>(len, pp.mrrs_bytes - a % pp.mrrs_bytes);
      const uint64_t issue = std::max(t, tags.top());
      tags.pop();
      wait += issue - t;
      const uint64_t sent = up.acquire(issue, req) + req;
      const uint64_t c =
          link.wire_ps(n + PcieLinkCore::chunks(a, n, pp.mps_bytes) * pp.tlp_overhead_bytes);
      const uint64_t arrived = down.acquire(sent + 700'000, c) + c;
      tags.push(arrived);
      done = std::max(done, arrived);
      a += n, len -= n;
    } while (len);
    return done;
  };
  uint64_t s = 12345, t = 0;
  for (int i = 0; i < 2000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    t += (s >> 33) % 3000;  // bursts and gaps
    const uint64_t a = (s >> 20) % 100000, len = 1 + (s >> 40) % 5000;
    ASSERT_EQ(link.book_read(t, a, len), ref(t, a, len)) << "read " << i;
  }
  EXPECT_EQ(stats.counter_value("t.tag_wait_ps"), wait);
  EXPECT_GT(wait, 0u);
}

TEST(PcieLinkCore, TransfersSplitAtAlignedMpsAndMrrsBoundaries) {
  EXPECT_EQ(PcieLinkCore::chunks(0, 4096, 256), 16u);
  EXPECT_EQ(PcieLinkCore::chunks(0, 256, 256), 1u);
  EXPECT_EQ(PcieLinkCore::chunks(200, 100, 256), 2u);  // 200..255 | 256..299
  EXPECT_EQ(PcieLinkCore::chunks(255, 258, 256), 3u);  // 255 | 256..511 | 512
  EXPECT_EQ(PcieLinkCore::chunks(4000, 0, 256), 1u);   // a zero-length read is one TLP
}

TEST(PcieLinkCore, WriteAndReadTimesByHand) {
  // Gen1 x1: 2.5 GT/s x 8b/10b = 2 Gbit/s = 4,000 ps per byte.
  PcieParams pp;
  pp.generation = 1, pp.lanes = 1, pp.mps_bytes = 128, pp.mrrs_bytes = 256;
  pp.tlp_overhead_bytes = 24, pp.read_latency_ns = 1000, pp.read_tags = 1;
  Stats stats;
  {
    PcieLinkCore link(pp, StatGroup(stats, "w"));
    // Write 256 B at address 64: MPS-aligned pieces 64..127 | 128..255 | 256..319: 3 TLPs,
    // 256 + 3 x 24 = 328 B = 1,312,000 ps. A second write waits for the first.
    EXPECT_EQ(link.book_write(0, 64, 256), 1'312'000u);
    EXPECT_EQ(link.book_write(0, 0, 128), 1'312'000u + 152 * 4000u);
    EXPECT_EQ(stats.counter_value("w.tlps_up"), 4u);
  }
  {
    PcieLinkCore link(pp, StatGroup(stats, "r"));
    // Read 512 B at 0 with MRRS 256 and one tag: two requests, one after the other.
    // Request 1: header TLP 24 B = 96,000 ps -> sent 96,000; completions 2 x (128 + 24) =
    //   304 B = 1,216,000 ps from 96,000 + 1,000,000 -> arrived 2,312,000 (tag free).
    // Request 2: issued 2,312,000 -> sent 2,408,000 -> arrived 3,408,000 + 1,216,000.
    EXPECT_EQ(link.book_read(0, 0, 512), 4'624'000u);
    EXPECT_EQ(stats.counter_value("r.read_requests"), 2u);
    EXPECT_EQ(stats.counter_value("r.tlps_down"), 4u);
    EXPECT_EQ(stats.counter_value("r.tag_wait_ps"), 2'312'000u);
  }
}

// ---------------------------------------------------------------- TX arbiter

class FakeControl final : public ControlSource {
 public:
  explicit FakeControl(std::vector<std::string>& log) : log_(log) {}
  void apply_due(Cycle) override {}
  Cycle next_pending() const override { return kNever; }
  bool has_control() const override { return !control.empty(); }
  void send_control(Cycle now) override {
    log_.push_back(control.front() + "@" + std::to_string(now));
    control.erase(control.begin());
  }
  Cycle read_ready(Cycle) override { return reads ? read_at : kNever; }
  void send_read(Cycle now) override {
    --reads;
    log_.push_back("READ@" + std::to_string(now));
  }
  std::vector<std::string> control;
  int reads = 0;
  Cycle read_at = 0;

 private:
  std::vector<std::string>& log_;
};

class FakeData final : public TxSource {
 public:
  explicit FakeData(std::vector<std::string>& log) : log_(log) {}
  Cycle head_ready(Cycle) override { return packets ? ready_at : kNever; }
  bool send_head(Cycle now) override {
    --packets;
    log_.push_back("DATA@" + std::to_string(now));
    return true;
  }
  int packets = 0;
  Cycle ready_at = 0;

 private:
  std::vector<std::string>& log_;
};

class FakeHdr final : public HdrGeneratorPort {
 public:
  Cycle send_ack(Cycle t, const QpContext&, uint32_t, uint32_t, uint8_t, bool) override {
    return t;
  }
  Cycle send_bitmap_nak(Cycle t, const QpContext&, uint32_t, uint32_t,
                        const wire::BitmapBlock&) override {
    return t;
  }
  Cycle send_feedback(Cycle t, const QpContext&, uint32_t, uint32_t,
                      const wire::SchemeFeedback&) override {
    return t;
  }
  Cycle send_read_response(Cycle t, const QpContext&, uint8_t, uint32_t, uint32_t, const uint8_t*,
                           uint32_t) override {
    return t;
  }
  Cycle send_data(Cycle t, const QpContext&, wire::FrameSpec&, bool) override { return t; }
  Cycle free_at() const override { return gen_free; }
  Cycle mac_free_at() const override { return mac_free; }
  Cycle mac_paused_until(uint8_t c) const override { return paused[c]; }
  Cycle gen_free = 0, mac_free = 0;
  Cycle paused[2] = {0, 0};
};

struct ArbiterRig {
  Stats stats;
  OrnicParams p;
  std::vector<std::string> log;
  WakeRecorder wake;
  Agenda agenda;
  FakeControl control{log};
  FakeData data{log};
  FakeHdr hdr;
  TxArbiterCore arb{CoreEnv{p, StatGroup(stats, "nic0.tx.arbiter")}, agenda, control, data, hdr};
  ArbiterRig() { agenda.wake_port.bind(wake); }
};

TEST(TxArbiterCore, ControlFirstThenDataAndReadResponsesAlternate) {
  ArbiterRig r;
  r.control.control = {"NAK", "ACK"};
  r.data.packets = 3;
  r.control.reads = 3;
  // The fakes never make the generator busy: everything goes at cycle 0, control first,
  // then data and READ responses taking turns (data first).
  EXPECT_EQ(r.arb.turn(0), kNever);
  EXPECT_EQ(r.log, (std::vector<std::string>{"NAK@0", "ACK@0", "DATA@0", "READ@0", "DATA@0",
                                             "READ@0", "DATA@0", "READ@0"}));
  EXPECT_EQ(r.stats.counter_value("nic0.tx.arbiter.control_grants"), 2u);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.arbiter.data_grants"), 3u);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.arbiter.read_response_grants"), 3u);
}

TEST(TxArbiterCore, APausedClassWaitsAndTheOtherGoesOn) {
  ArbiterRig r;
  r.control.control = {"ACK"};
  r.data.packets = 2;
  r.hdr.paused[1] = 40;  // data and READ responses paused until cycle 40
  EXPECT_EQ(r.arb.turn(0), 40u);
  EXPECT_EQ(r.log, (std::vector<std::string>{"ACK@0"}));
  EXPECT_EQ(r.arb.turn(40), kNever);
  EXPECT_EQ(r.log, (std::vector<std::string>{"ACK@0", "DATA@40", "DATA@40"}));
  r.hdr.paused[0] = 90;  // now ACKs are paused: data still goes
  r.control.control = {"NAK"};
  r.data.packets = 1;
  EXPECT_EQ(r.arb.turn(50), 90u);
  EXPECT_EQ(r.log.back(), "DATA@50");
  EXPECT_EQ(r.arb.turn(90), kNever);
  EXPECT_EQ(r.log.back(), "NAK@90");
}

TEST(TxArbiterCore, WaitsForTheGeneratorAndTheMacLookahead) {
  ArbiterRig r;
  r.data.packets = 1;
  // The MAC frees at 20; lookahead 8 lets a frame be granted from 12 on.
  r.hdr.mac_free = 20;
  EXPECT_EQ(r.arb.turn(0), 12u);
  EXPECT_TRUE(r.log.empty());
  // An ACK that turns up meanwhile still goes before the waiting data.
  r.control.control = {"ACK"};
  r.hdr.gen_free = 15;
  EXPECT_EQ(r.arb.turn(12), 15u);
  EXPECT_EQ(r.arb.turn(15), kNever);
  EXPECT_EQ(r.log, (std::vector<std::string>{"ACK@15", "DATA@15"}));
  // Data not ready yet: the next turn is when it is.
  r.data.packets = 1, r.data.ready_at = 40;
  EXPECT_EQ(r.arb.turn(16), 40u);
  // Agenda entries are due work too: the turn returns the earliest.
  r.agenda.at(30, [](Cycle) {});
  EXPECT_EQ(r.arb.turn(17), 30u);
}

// ---------------------------------------------------------------- Req Manager

class RecordingHdr final : public HdrGeneratorPort {
 public:
  struct Sent {
    std::string kind;
    Cycle t;
    uint32_t psn;
    uint8_t syndrome;
    bool cached;
    wire::SchemeFeedback fb{};
  };
  Cycle send_ack(Cycle t, const QpContext&, uint32_t psn, uint32_t, uint8_t syndrome,
                 bool cached) override {
    sent.push_back({(syndrome & 0xE0) == 0x60 ? "NAK" : "ACK", t, psn, syndrome, cached});
    return t;
  }
  Cycle send_bitmap_nak(Cycle t, const QpContext&, uint32_t epsn, uint32_t,
                        const wire::BitmapBlock&) override {
    sent.push_back({"BITMAP_NAK", t, epsn, 0, false});
    return t;
  }
  Cycle send_feedback(Cycle t, const QpContext&, uint32_t epsn, uint32_t,
                      const wire::SchemeFeedback& fb) override {
    sent.push_back({"FEEDBACK", t, epsn, 0, false, fb});
    return t;
  }
  Cycle send_read_response(Cycle t, const QpContext&, uint8_t op, uint32_t psn, uint32_t,
                           const uint8_t*, uint32_t len) override {
    sent.push_back({"READ_RSP" + std::to_string(op) + "/" + std::to_string(len), t, psn, 0, false});
    return t;
  }
  Cycle send_data(Cycle t, const QpContext&, wire::FrameSpec&, bool) override { return t; }
  Cycle free_at() const override { return 0; }
  Cycle mac_free_at() const override { return 0; }
  std::vector<Sent> sent;
};

struct ReqManagerRig {
  Stats stats;
  OrnicParams p = small_params();
  Sram ctx_sram{"qp.context", p.sram.qp_context, stats, "nic0.sram.qp.context"};
  QpContextTable qps{&ctx_sram, p.nic.max_qps};
  Sram acked{"control.acked_psn_mem", p.sram.acked_psn_mem, stats, "nic0.sram.acked"};
  // The UET NACK register's entries: 40 bits each, 3 a QP.
  Sram nacks{"control.uet_nack_register", SramParams{40, 3 * p.nic.max_qps, "1R1W", 1}, stats,
             "nic0.sram.uet_nacks"};
  FakeDma dma;
  WakeRecorder wake;
  RecordingHdr hdr;
  ReqManagerCore rm{CoreEnv{p, StatGroup(stats, "nic0.control.req_manager")}, qps, acked, dma,
                    &nacks};
  ReqManagerRig() {
    rm.wake_port.bind(wake);
    rm.hdr_generator_port.bind(hdr);
    QpContext c;
    c.qpn = 0x11, c.pmtu = 256;
    qps.add(0, c);
    c.qpn = 0x12;
    qps.add(0, c);
  }
};

TEST(ReqManagerCore, NakGoesBeforeAckAndAcksOfAQpCollapse) {
  ReqManagerRig r;
  // Three ACK registrations of QP 0 and one of QP 1 at cycle 10, then a NAK of QP 1.
  r.rm.register_ack(10, 0, 5, 1, false);
  r.rm.register_ack(10, 0, 6, 2, true);
  r.rm.register_ack(10, 0, 7, 3, false);
  r.rm.register_ack(10, 1, 40, 1, false);
  r.rm.register_nak(10, 1, wire::kAethNakPsnSeqErr, 41, 1);
  EXPECT_EQ(r.wake.at, (std::vector<Cycle>{10, 10, 10, 10, 10}));
  EXPECT_EQ(r.rm.next_pending(), 10u);
  r.rm.apply_due(9);
  EXPECT_FALSE(r.rm.has_control());  // not before their cycle
  r.rm.apply_due(10);
  int n = 0;
  while (r.rm.has_control()) r.rm.send_control(20 + n++);
  // NAK first; then one ACK per QP, carrying the latest PSN and the sticky "cached" flag.
  ASSERT_EQ(r.hdr.sent.size(), 3u);
  EXPECT_EQ(r.hdr.sent[0].kind, "NAK");
  EXPECT_EQ(r.hdr.sent[0].psn, 41u);
  EXPECT_EQ(r.hdr.sent[1].kind, "ACK");
  EXPECT_EQ(r.hdr.sent[1].psn, 7u);
  EXPECT_TRUE(r.hdr.sent[1].cached);
  EXPECT_EQ(r.hdr.sent[2].psn, 40u);
  EXPECT_FALSE(r.hdr.sent[2].cached);
  // Each slot read: schedule 1 + SRAM read latency 1 after the scheduler's turn.
  EXPECT_EQ(r.hdr.sent[0].t, 22u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.ack_registrations"), 4u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.acks_scheduled"), 2u);
}

// One feedback register a QP: a later frame replaces one not yet sent, except that a UET
// NACK (kUetNackFlag) is never lost so. Registered in one cycle on QP 0: a UET NACK of PSN
// 7, a UET ACK (held: dropped, counted), a UET NACK of PSN 9 (merged: entries 7, 9). One
// frame goes: the NACK naming both. On QP 1 a plain NACK (Eunomia's) is replaced by the
// SACK after it, as before.
TEST(ReqManagerCore, UetNacksAreNotOverwrittenAndMerge) {
  using F = wire::SchemeFeedback;
  ReqManagerRig r;
  F nack7, ack, nack9, plain, sack;
  nack7.type = nack9.type = F::kNack;
  nack7.info = nack9.info = wire::kUetNackFlag | 1;
  nack7.psn[0] = 7, nack9.psn[0] = 9;
  ack.type = F::kUetAck, ack.psn[0] = 12;
  plain.type = F::kNack, plain.psn[0] = 30;
  sack.type = F::kSack, sack.psn[0] = 33;
  r.rm.register_feedback(10, 0, 5, 1, nack7);
  r.rm.register_feedback(10, 0, 5, 1, ack);
  r.rm.register_feedback(10, 0, 5, 1, nack9);
  r.rm.register_feedback(10, 1, 28, 1, plain);
  r.rm.register_feedback(10, 1, 28, 1, sack);
  r.rm.apply_due(10);
  int n = 0;
  while (r.rm.has_control()) r.rm.send_control(20 + n++);
  ASSERT_EQ(r.hdr.sent.size(), 2u);
  EXPECT_EQ(r.hdr.sent[0].fb.type, F::kNack);
  EXPECT_EQ(wire::nack_entries(r.hdr.sent[0].fb), 2u);
  EXPECT_EQ(r.hdr.sent[0].fb.psn[0], 7u);
  EXPECT_EQ(r.hdr.sent[0].fb.psn[1], 9u);
  EXPECT_EQ(r.hdr.sent[1].fb.type, F::kSack);
  EXPECT_EQ(r.hdr.sent[1].fb.psn[0], 33u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_acks_held"), 1u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_merged"), 1u);
  EXPECT_FALSE(wire::uet_nack_last_hop(r.hdr.sent[0].fb, 0));
  EXPECT_FALSE(wire::uet_nack_last_hop(r.hdr.sent[0].fb, 1));
}

// A UET NACK naming psn (info: kUetNackFlag, one entry, and `more` bits).
wire::SchemeFeedback uet_nack(uint32_t psn, uint8_t more = 0) {
  wire::SchemeFeedback f;
  f.type = wire::SchemeFeedback::kNack;
  f.info = static_cast<uint8_t>(wire::kUetNackFlag | 1 | more);
  f.psn[0] = psn;
  return f;
}

// A merged entry keeps whether its packet was trimmed at the last hop (UET's
// TRIMMED_LASTHOP): PSN 7 trimmed upstream, 9 at the last hop -> entry 1's bit alone.
TEST(ReqManagerCore, MergedUetNacksKeepTheirLastHopBit) {
  using F = wire::SchemeFeedback;
  ReqManagerRig r;
  r.rm.register_feedback(10, 0, 5, 1, uet_nack(7));
  r.rm.register_feedback(10, 0, 5, 1, uet_nack(9, wire::uet_nack_last_hop_bit(0)));
  r.rm.apply_due(10);
  while (r.rm.has_control()) r.rm.send_control(20);
  ASSERT_EQ(r.hdr.sent.size(), 1u);
  const F& f = r.hdr.sent[0].fb;
  EXPECT_EQ(wire::nack_entries(f), 2u);
  EXPECT_FALSE(wire::uet_nack_last_hop(f, 0));
  EXPECT_TRUE(wire::uet_nack_last_hop(f, 1));
}

// NACKs of two kinds do not merge into one frame (a frame's kind is its own): a trimmed
// PSN 7 and an out-of-window PSN 9 leave as two frames. A NAK of another kind (a PSN-
// sequence NAK, uet-rod's) that replaces waiting UET NACKs counts them as lost.
TEST(ReqManagerCore, UetNacksOfTwoKindsAndTheirReplacement) {
  ReqManagerRig r;
  r.rm.register_feedback(10, 0, 5, 1, uet_nack(7));
  r.rm.register_feedback(10, 0, 5, 1, uet_nack(9, wire::kUetNackOutOfWindow));
  r.rm.apply_due(10);
  while (r.rm.has_control()) r.rm.send_control(20);
  ASSERT_EQ(r.hdr.sent.size(), 2u);
  EXPECT_EQ(r.hdr.sent[0].fb.psn[0], 7u);
  EXPECT_EQ(wire::nack_entries(r.hdr.sent[0].fb), 1u);
  EXPECT_FALSE(r.hdr.sent[0].fb.info & wire::kUetNackOutOfWindow);
  EXPECT_EQ(r.hdr.sent[1].fb.psn[0], 9u);
  EXPECT_TRUE(r.hdr.sent[1].fb.info & wire::kUetNackOutOfWindow);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_lost"), 0u);
  // Two UET NACKs wait on QP 1; a PSN-sequence NAK replaces them: 2 lost, the NAK goes.
  r.rm.register_feedback(30, 1, 28, 1, uet_nack(30));
  r.rm.register_feedback(30, 1, 28, 1, uet_nack(31));
  r.rm.register_nak(30, 1, wire::kAethNakPsnSeqErr, 28, 1);
  r.rm.apply_due(30);
  while (r.rm.has_control()) r.rm.send_control(40);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_lost"), 2u);
  ASSERT_EQ(r.hdr.sent.size(), 3u);
  EXPECT_EQ(r.hdr.sent[2].kind, "NAK");
  EXPECT_EQ(r.hdr.sent[2].syndrome, wire::kAethNakPsnSeqErr);
  r.nacks.occupancy().finalize(100);
  EXPECT_EQ(r.nacks.occupancy().final_value(), 0);
}

// n UET NACKs registered on QP 0 in one cycle (PSNs 40.., entropy values 0xC000..), then
// every control frame sent.
void nacks_in_one_cycle(ReqManagerRig& r, uint32_t n) {
  for (uint32_t k = 0; k < n; ++k) {
    wire::SchemeFeedback f;
    f.type = wire::SchemeFeedback::kNack;
    f.info = wire::kUetNackFlag | 1;
    f.psn[0] = 40 + k;
    f.vp = static_cast<uint16_t>(0xC000 + k);
    r.rm.register_feedback(10, 0, 5, 1, f);
  }
  r.rm.apply_due(10);
  while (r.rm.has_control()) r.rm.send_control(20);
}

// The register names up to 3 PSNs, each with the entropy value it came on; a fourth UET
// NACK is lost (counted) rather than the three waiting.
TEST(ReqManagerCore, UetNackRegisterHoldsThreeAndLosesTheFourth) {
  using F = wire::SchemeFeedback;
  ReqManagerRig r;
  nacks_in_one_cycle(r, 4);
  ASSERT_EQ(r.hdr.sent.size(), 1u);
  const F& f = r.hdr.sent[0].fb;
  EXPECT_EQ(wire::nack_entries(f), 3u);
  EXPECT_EQ(f.psn[0], 40u);
  EXPECT_EQ(f.psn[2], 42u);
  EXPECT_EQ(f.vp, 0xC000);
  EXPECT_EQ(f.more_vp[0], 0xC001);
  EXPECT_EQ(f.more_vp[1], 0xC002);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_merged"), 2u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_lost"), 1u);
  // The register's SRAM held the 3 entries (3 x 40 bits) from cycle 10 until the frame
  // went (read at 20 + schedule + latency), then none: 3 written, 3 read.
  r.nacks.occupancy().finalize(100);
  EXPECT_EQ(r.nacks.occupancy().peak(), 120);
  EXPECT_EQ(r.nacks.occupancy().final_value(), 0);
  EXPECT_EQ(r.nacks.writes(), 3u);
  EXPECT_EQ(r.nacks.reads(), 3u);
  EXPECT_EQ(r.nacks.capacity_bits(), 40u * 3 * r.p.nic.max_qps);
}

// control.req_manager.uet_nack_depth 5: six UET NACKs in one cycle leave as two frames,
// PSNs 40..42 then 43..44 (each with its own entropy value), and the sixth is lost.
TEST(ReqManagerCore, DeeperUetNackRegisterSendsFurtherFrames) {
  using F = wire::SchemeFeedback;
  ReqManagerRig r;
  r.p.req_manager.uet_nack_depth = 5;
  nacks_in_one_cycle(r, 6);
  ASSERT_EQ(r.hdr.sent.size(), 2u);
  EXPECT_EQ(wire::nack_entries(r.hdr.sent[0].fb), 3u);
  EXPECT_EQ(r.hdr.sent[0].fb.psn[2], 42u);
  const F& b = r.hdr.sent[1].fb;
  EXPECT_EQ(wire::nack_entries(b), 2u);
  EXPECT_EQ(b.psn[0], 43u);
  EXPECT_EQ(b.psn[1], 44u);
  EXPECT_EQ(b.vp, 0xC003);
  EXPECT_EQ(b.more_vp[0], 0xC004);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_merged"), 4u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.req_manager.uet_nacks_lost"), 1u);
}

TEST(ReqManagerCore, ReadResponsesOfTwoJobsInterleaveWithTheirOpcodes) {
  ReqManagerRig r;
  // QP 0: READ of 600 B (3 responses of 256 / 256 / 88); QP 1: one 100-byte response.
  r.rm.register_read(0, 0, 0x4000, 600, 50, 1, false, false);
  r.rm.register_read(0, 1, 0x8000, 100, 90, 1, false, false);
  r.rm.apply_due(0);
  // Payload is fetched ahead (fake DMA: 10 cycles).
  EXPECT_EQ(r.rm.read_ready(0), 10u);
  for (Cycle t = 10, ready; (ready = r.rm.read_ready(t)) != kNever; ++t) {
    t = std::max(t, ready);
    r.rm.send_read(t);
  }
  std::vector<std::string> kinds;
  for (const auto& s : r.hdr.sent) kinds.push_back(s.kind + "#" + std::to_string(s.psn));
  EXPECT_EQ(kinds, (std::vector<std::string>{"READ_RSP13/256#50", "READ_RSP16/100#90",
                                             "READ_RSP14/256#51", "READ_RSP15/88#52"}));
}

// ---------------------------------------------------------------- Req Processor

// The Bitmap Manager's port over the real ORNIC bitmap core, one cycle per call cycle.
class UnitBitmap final : public BitmapPort {
 public:
  explicit UnitBitmap(const char* scheme = "ornic")
      : scheme_(scheme), unit_(ordering::make_unit(scheme, ordering::SchemeGeometry{})) {}
  void open(Cycle, uint32_t qp, uint32_t start, uint32_t otd) override {
    unit_->open(qp, start, otd);
    high_[qp] = start;
  }
  void close(Cycle, uint32_t qp) override { unit_->close(qp); }
  Result access(Cycle t, uint32_t qp, uint32_t psn, const ordering::PacketMeta& m) override {
    Result r;
    r.out = unit_->receive(qp, psn, m);
    r.grant = t, r.done = t + r.out.cycles;
    if (wire::psn_diff(psn + 1, high_[qp]) > 0) high_[qp] = (psn + 1) & wire::kPsnMask;
    return r;
  }
  bool is_open(uint32_t qp) const override { return unit_->is_open(qp); }
  uint32_t epsn(uint32_t qp) const override { return unit_->epsn(qp); }
  bool has_pending(uint32_t qp) const override {
    return wire::psn_diff(high_.at(qp), unit_->epsn(qp)) > 0;
  }
  const ordering::SchemeTraits& traits() const override {
    return ordering::find_scheme(scheme_).traits;
  }

 private:
  const char* scheme_;
  std::unique_ptr<ordering::OrderingUnit> unit_;
  std::map<uint32_t, uint32_t> high_;
};

class WorkRecorder final : public ResponderWork {
 public:
  struct Ack {
    uint32_t psn, msn;
    bool cached;
  };
  void register_ack(Cycle, uint32_t, uint32_t psn, uint32_t msn, bool cached) override {
    acks.push_back({psn, msn, cached});
  }
  void register_nak(Cycle, uint32_t, uint8_t syndrome, uint32_t psn, uint32_t) override {
    naks.push_back({psn, syndrome});
  }
  void register_bitmap_nak(Cycle, uint32_t, uint32_t, uint32_t, const wire::BitmapBlock&) override {
    ++bitmap_naks;
  }
  void register_feedback(Cycle, uint32_t, uint32_t, uint32_t,
                         const wire::SchemeFeedback& fb) override {
    fbs.push_back(fb);
  }
  void register_read(Cycle, uint32_t, uint64_t, uint32_t, uint32_t, uint32_t, bool, bool) override {
  }
  std::vector<Ack> acks;
  std::vector<std::pair<uint32_t, uint8_t>> naks;
  std::vector<wire::SchemeFeedback> fbs;
  int bitmap_naks = 0;
};

struct ResponderRig {
  explicit ResponderRig(const char* scheme = "ornic") : bitmap(scheme) { init(); }
  Stats stats;
  OrnicParams p = small_params();
  Sram ctx_sram{"qp.context", p.sram.qp_context, stats, "nic0.sram.qp.context"};
  Sram hdr_sram{"rx.req_hdr_buffer", p.sram.req_hdr_buffer, stats, "nic0.sram.rx.req_hdr_buffer"};
  Sram pkt_sram{"rx.req_pkt_buffer", p.sram.req_pkt_buffer, stats, "nic0.sram.rx.req_pkt_buffer"};
  QpContextTable qps{&ctx_sram, p.nic.max_qps};
  PktBuffer hdr_buf{&hdr_sram}, pkt_buf{&pkt_sram};
  UnitBitmap bitmap;
  FakeDma dma;
  WorkRecorder work;
  WakeRecorder wake;
  Agenda agenda;
  ReqProcessorCore rp{CoreEnv{p, StatGroup(stats, "nic0.rx.req_processor")}, qps,
                      ReqProcessorCore::Links{bitmap, dma, work, hdr_buf, pkt_buf, agenda}};
  std::vector<uint8_t> frame;
  Cycle t = 0;
  void init() {
    agenda.wake_port.bind(wake);
    QpContext c;
    c.qpn = 0x33, c.pmtu = 256;
    c.regions.push_back(MemoryRegion{0x10000, 0x10000, 7});
    qps.add(0, c);
  }
  // One OOO WRITE packet of the 3-packet WQE to 0x10000 (payload: 256 bytes of psn+1).
  PacketRecord receive(uint8_t opcode, uint32_t psn) {
    std::vector<uint8_t> payload(256, static_cast<uint8_t>(psn + 1));
    wire::FrameSpec s;
    s.bth.opcode = opcode, s.bth.dest_qp = 0x33, s.bth.psn = psn;
    s.reth.va = 0x10000 + uint64_t{psn} * 256, s.reth.rkey = 7, s.reth.dma_len = 768;
    s.payload = payload.data(), s.payload_len = 256;
    frame.assign(wire::frame_size(s), 0);
    frame.resize(wire::build(s, frame.data(), frame.size()));
    wire::PacketView v;
    EXPECT_EQ(wire::parse(frame.data(), frame.size(), v), wire::ParseStatus::kOk);
    hdr_buf.write(t, v.header_len);
    pkt_buf.write(t, v.payload_len);
    PacketRecord rec;
    rp.process(t, v, rec);
    t += 20;
    return rec;
  }
};

TEST(ReqProcessorCore, FSpotCachesStartAddrByEq2ThenSpotsArePlacedByEq1) {
  ResponderRig r;
  // A Spot before any FSpot has no address to go to: dropped, nothing placed.
  EXPECT_EQ(r.receive(wire::kOooWriteSpot, 1).drop, Drop::kSpotBeforeStartAddr);
  EXPECT_TRUE(r.dma.writes.empty());
  // FSpot of PSN 2 (ePSN 0): Start_Addr = 0x10200 - (2 - 0) x 256 = 0x10000 (Eq. 2).
  PacketRecord a = r.receive(wire::kOooWriteFSpot, 2);
  EXPECT_EQ(a.drop, Drop::kNone);
  EXPECT_STREQ(to_string(a.verdict), "ooo");
  EXPECT_TRUE(r.qps.at(0).start_addr_cached);
  EXPECT_EQ(r.qps.at(0).start_addr, 0x10000u);
  // Spots of PSN 1 and 0 carry no address: Start_Addr + (PSN - Start_PSN) x PMTU (Eq. 1).
  r.receive(wire::kOooWriteSpot, 1);
  r.receive(wire::kOooWriteSpot, 0);
  ASSERT_EQ(r.dma.writes.size(), 3u);
  EXPECT_EQ(r.dma.writes[0].addr, 0x10200u);
  EXPECT_EQ(r.dma.writes[1].addr, 0x10100u);
  EXPECT_EQ(r.dma.writes[2].addr, 0x10000u);
  for (uint32_t psn = 0; psn < 3; ++psn) {
    uint8_t b[256];
    r.dma.get(0x10000 + psn * 256, b, 256);
    EXPECT_EQ(b[0], psn + 1);
    EXPECT_EQ(b[255], psn + 1);
  }
  EXPECT_EQ(r.qps.at(0).epsn, 3u);
  // The ACK that follows the FSpot tells the requester Start_Addr is cached (once).
  ASSERT_FALSE(r.work.acks.empty());
  int cached = 0;
  for (const auto& k : r.work.acks) cached += k.cached;
  EXPECT_EQ(cached, 1);
  EXPECT_EQ(r.work.acks.back().psn, 2u);
  EXPECT_EQ(r.stats.counter_value("nic0.rx.req_processor.start_addr_cached"), 1u);
}

// MELO's second pass (MECHANISMS.md §3) is pipelined and never ahead of placement: when
// the head moves past two packets parked in the re-order buffer, both reads are issued
// in the same cycle and the bytes are in place at once (untimed poke); each copy's timed
// write is booked, in order, at the first cycle at or after its read's data is back
// (FakeDma: 10 cycles) at which the write channel is idle.
TEST(ReqProcessorCore, MeloSecondPassIssuesEveryReadThenEachWriteWhenItsDataIsBack) {
  ResponderRig r("melo");
  r.receive(wire::kOooWriteFSpot, 2);  // ahead of ePSN 0: into the re-order buffer
  r.receive(wire::kOooWriteFSpot, 1);
  ASSERT_EQ(r.dma.writes.size(), 2u);
  const uint64_t rob = r.p.bitmap.melo_rob_base;
  EXPECT_EQ(r.dma.writes[0].addr, rob + 2 * 256);  // slot = PSN mod window, x PMTU
  EXPECT_EQ(r.dma.writes[1].addr, rob + 1 * 256);
  PacketRecord in = r.receive(wire::kOooWriteFSpot, 0);  // fills the head: ePSN 3
  EXPECT_EQ(r.qps.at(0).epsn, 3u);
  ASSERT_EQ(r.dma.writes.size(), 3u);  // PSN 0 placed directly; the copies' writes wait
  EXPECT_EQ(r.dma.writes[2].addr, 0x10000u);
  ASSERT_EQ(r.dma.pokes.size(), 2u);  // but their bytes are in place already
  EXPECT_EQ(r.dma.pokes[0].addr, 0x10200u);
  EXPECT_EQ(r.dma.pokes[1].addr, 0x10100u);
  ASSERT_EQ(r.dma.reads.size(), 2u);
  const Cycle t5 = in.processed;
  EXPECT_EQ(r.dma.reads[0].t, t5);  // both reads at once
  EXPECT_EQ(r.dma.reads[1].t, t5);
  EXPECT_EQ(r.dma.reads[0].addr, rob + 2 * 256);  // in the order they were parked
  EXPECT_EQ(r.dma.reads[1].addr, rob + 1 * 256);
  // Placements hold the write channel until t5 + 15: the first copy's data is back at
  // t5 + 10, its write goes at t5 + 15, the second's the cycle after.
  r.dma.busy_until = t5 + 15;
  r.agenda.run_due(t5 + 14);
  EXPECT_EQ(r.dma.writes.size(), 3u);
  r.agenda.run_due(t5 + 15);
  ASSERT_EQ(r.dma.writes.size(), 4u);
  EXPECT_EQ(r.dma.writes[3].t, t5 + 15);
  EXPECT_EQ(r.dma.writes[3].addr, 0x10200u);
  r.agenda.run_due(t5 + 16);
  ASSERT_EQ(r.dma.writes.size(), 5u);
  EXPECT_EQ(r.dma.writes[4].t, t5 + 16);
  EXPECT_EQ(r.dma.writes[4].addr, 0x10100u);
  for (uint32_t psn = 0; psn < 3; ++psn) {
    uint8_t b[256];
    r.dma.get(0x10000 + psn * 256, b, 256);
    EXPECT_EQ(b[0], psn + 1);
    EXPECT_EQ(b[255], psn + 1);
  }
  EXPECT_EQ(r.stats.counter_value("nic0.rx.req_processor.rob_copies"), 2u);
}

// MP-RDMA's receiver (nic.ordering mprdma): every data packet gets an MP-RDMA ACK
// (AACK, SACK, the VP it came on, ECE = CE-marked, ReTx echo) and no standard ACK; a
// duplicate is SACKed again; a Sync message's packet before rcv_nxt reaches its iPSN is
// dropped (sync_early) and NACKed.
TEST(ReqProcessorCore, MpRdmaAcksEveryPacketEchoesVpEceReTxAndDropsAnEarlySync) {
  ResponderRig r("mprdma");
  auto mp = [&](uint32_t psn, uint16_t vp, bool ce, bool retx, bool sync, uint32_t ipsn) {
    std::vector<uint8_t> payload(256, static_cast<uint8_t>(psn + 1));
    wire::FrameSpec s;
    s.bth.opcode = wire::kOooWriteFSpot, s.bth.dest_qp = 0x33, s.bth.psn = psn;
    s.bth.resv7 = wire::kBthMpRdmaMetaBit;
    s.mprdma.retx = retx, s.mprdma.sync = sync, s.mprdma.ipsn = ipsn;
    s.udp_sport = vp;
    s.tos = ce ? 3 : 2;
    s.reth.va = 0x10000 + uint64_t{psn} * 256, s.reth.rkey = 7, s.reth.dma_len = 768 * 4;
    s.payload = payload.data(), s.payload_len = 256;
    r.frame.assign(wire::frame_size(s), 0);
    r.frame.resize(wire::build(s, r.frame.data(), r.frame.size()));
    wire::PacketView v;
    EXPECT_EQ(wire::parse(r.frame.data(), r.frame.size(), v), wire::ParseStatus::kOk);
    r.hdr_buf.write(r.t, v.header_len);
    r.pkt_buf.write(r.t, v.payload_len);
    PacketRecord rec;
    r.rp.process(r.t, v, rec);
    r.t += 20;
    return rec;
  };
  using F = wire::SchemeFeedback;
  // PSN 1 first (out of order), CE-marked, on VP 50001: ACK AACK 0, SACK 1, ECE.
  EXPECT_EQ(mp(1, 50001, true, false, false, 0).drop, Drop::kNone);
  ASSERT_EQ(r.work.fbs.size(), 1u);
  EXPECT_EQ(r.work.fbs[0].type, F::kMpAck);
  EXPECT_EQ(r.work.fbs[0].psn[0], 0u);
  EXPECT_EQ(r.work.fbs[0].psn[1], 1u);
  EXPECT_EQ(r.work.fbs[0].vp, 50001);
  EXPECT_EQ(r.work.fbs[0].info, 1);
  // PSN 0, a retransmission, on VP 50000: AACK 2, SACK 0, ReTx echo.
  EXPECT_EQ(mp(0, 50000, false, true, false, 0).drop, Drop::kNone);
  ASSERT_EQ(r.work.fbs.size(), 2u);
  EXPECT_EQ(r.work.fbs[1].psn[0], 2u);
  EXPECT_EQ(r.work.fbs[1].psn[1], 0u);
  EXPECT_EQ(r.work.fbs[1].info, 2);
  // A duplicate of PSN 1: dropped, SACKed again.
  EXPECT_EQ(mp(1, 50002, false, false, false, 0).drop, Drop::kDuplicate);
  ASSERT_EQ(r.work.fbs.size(), 3u);
  EXPECT_EQ(r.work.fbs[2].type, F::kMpAck);
  EXPECT_EQ(r.work.fbs[2].psn[1], 1u);
  // A Sync message whose first PSN is 3 while rcv_nxt is 2: PSN 4 is dropped, NACKed.
  EXPECT_EQ(mp(4, 50003, false, false, true, 3).drop, Drop::kSyncEarly);
  ASSERT_EQ(r.work.fbs.size(), 4u);
  EXPECT_EQ(r.work.fbs[3].type, F::kNack);
  EXPECT_EQ(r.work.fbs[3].psn[0], 4u);
  EXPECT_EQ(r.work.fbs[3].vp, 50003);
  // Once PSN 2 is in (rcv_nxt 3), the Sync message is taken.
  EXPECT_EQ(mp(2, 50000, false, false, false, 0).drop, Drop::kNone);
  EXPECT_EQ(mp(4, 50003, false, false, true, 3).drop, Drop::kNone);
  EXPECT_TRUE(r.work.acks.empty());  // no standard ACK under MP-RDMA
  EXPECT_EQ(r.dma.writes.size(), 4u);
}

// UET's receiver (uet-rud) and a trimmed request (wire::trim_frame, DSCP nic.trim_dscp 16
// or nic.trim_dscp_last_hop 18): dropped as trimmed, nothing placed, and NACKed at once
// on the entropy value it came on (its UDP source port): a UET NACK naming its PSN,
// TRIMMED_LASTHOP's bit for DSCP 18 alone. A whole frame carrying DSCP 18 (CS2 in a
// capture) is no trimmed one: it is placed.
TEST(ReqProcessorCore, UetTrimmedRequestIsNackedWithItsLastHop) {
  ResponderRig r("uet-rud");
  auto send = [&](uint32_t psn, uint16_t sport, int dscp, bool trim) {
    std::vector<uint8_t> payload(256, static_cast<uint8_t>(psn + 1));
    wire::FrameSpec s;
    s.bth.opcode = wire::kOooWriteFSpot, s.bth.dest_qp = 0x33, s.bth.psn = psn;
    s.reth.va = 0x10000 + uint64_t{psn} * 256, s.reth.rkey = 7, s.reth.dma_len = 768;
    s.payload = payload.data(), s.payload_len = 256;
    s.udp_sport = sport;
    s.tos = static_cast<uint8_t>(dscp << 2 | 2);
    r.frame.assign(wire::frame_size(s), 0);
    r.frame.resize(wire::build(s, r.frame.data(), r.frame.size()));
    if (trim)
      r.frame.resize(wire::trim_frame(r.frame.data(), r.frame.size(), static_cast<uint8_t>(dscp)));
    wire::PacketView v;
    EXPECT_EQ(wire::parse(r.frame.data(), r.frame.size(), v), wire::ParseStatus::kOk);
    r.hdr_buf.write(r.t, v.header_len);
    if (v.payload_len) r.pkt_buf.write(r.t, v.payload_len);
    PacketRecord rec;
    r.rp.process(r.t, v, rec);
    r.t += 20;
    return rec;
  };
  using F = wire::SchemeFeedback;
  EXPECT_EQ(send(1, 50001, 16, true).drop, Drop::kTrimmed);
  ASSERT_EQ(r.work.fbs.size(), 1u);
  EXPECT_EQ(r.work.fbs[0].type, F::kNack);
  EXPECT_EQ(r.work.fbs[0].psn[0], 1u);
  EXPECT_EQ(r.work.fbs[0].vp, 50001);
  EXPECT_EQ(wire::nack_entries(r.work.fbs[0]), 1u);
  EXPECT_TRUE(r.work.fbs[0].info & wire::kUetNackFlag);
  EXPECT_FALSE(wire::uet_nack_last_hop(r.work.fbs[0], 0));
  EXPECT_EQ(send(2, 50002, 18, true).drop, Drop::kTrimmed);
  ASSERT_EQ(r.work.fbs.size(), 2u);
  EXPECT_EQ(r.work.fbs[1].psn[0], 2u);
  EXPECT_EQ(r.work.fbs[1].vp, 50002);
  EXPECT_TRUE(wire::uet_nack_last_hop(r.work.fbs[1], 0));
  EXPECT_TRUE(r.dma.writes.empty());
  EXPECT_EQ(send(0, 50000, 18, false).drop, Drop::kNone);  // whole: placed
  EXPECT_EQ(r.dma.writes.size(), 1u);
}

TEST(ReqProcessorCore, FSpotOutsideTheRegionIsNakedAsRemoteAccess) {
  ResponderRig r;
  // PSN 2 claims Write_Addr 0x10200 but a WQE of 768 B from 0x10000 with R_Key 8 is not
  // registered: NAK remote access, nothing placed.
  wire::FrameSpec s;
  std::vector<uint8_t> payload(256, 1);
  s.bth.opcode = wire::kOooWriteFSpot, s.bth.dest_qp = 0x33, s.bth.psn = 2;
  s.reth.va = 0x10200, s.reth.rkey = 8, s.reth.dma_len = 768;
  s.payload = payload.data(), s.payload_len = 256;
  r.frame.assign(wire::frame_size(s), 0);
  r.frame.resize(wire::build(s, r.frame.data(), r.frame.size()));
  wire::PacketView v;
  ASSERT_EQ(wire::parse(r.frame.data(), r.frame.size(), v), wire::ParseStatus::kOk);
  r.hdr_buf.write(0, v.header_len);
  r.pkt_buf.write(0, v.payload_len);
  PacketRecord rec;
  r.rp.process(0, v, rec);
  EXPECT_EQ(rec.drop, Drop::kRemoteAccess);
  ASSERT_EQ(r.work.naks.size(), 1u);
  EXPECT_EQ(r.work.naks[0].second, wire::kAethNakRemoteAccess);
  EXPECT_TRUE(r.dma.writes.empty());
}

// ------------------------------------------- QP Manager + Rsp Manager + CQE Manager

// The requester's control and TX cores, wired as OrnicNic wires them, with the real Hdr
// Generator and MAC, and the arbiter core driving them (no kernel: run() steps turn()).
struct RequesterRig {
  Stats stats;
  OrnicParams p;
  FakeDma dma;
  FrameRecorder out;
  WakeRecorder wake;
  Agenda agenda;
  Sram ctx_sram;
  QpContextTable qps;
  RegisterFile regs;
  Sram wqe_cache;
  MacCore mac;
  HdrGeneratorCore hdr;
  sender::OrnicRecovery recovery;
  sender::NoRate rate;
  CqeManagerCore cqe;
  RspManagerCore rsp;
  QpManagerCore qpm;
  std::vector<std::string> unused_log;
  FakeControl no_control;
  TxArbiterCore arb;

  static OrnicParams params(uint32_t window, double holdoff_ns, uint32_t timeout_window) {
    OrnicParams p = small_params();
    p.qp_manager.max_inflight_psns = window;
    p.sender.resend_holdoff_ns = holdoff_ns;
    p.rsp_manager.timeout_window_psns = timeout_window;
    return p;
  }
  explicit RequesterRig(uint32_t window = 320, double holdoff_ns = 0, uint32_t timeout_window = 1)
      : p(params(window, holdoff_ns, timeout_window)),
        ctx_sram("qp.context", p.sram.qp_context, stats, "nic0.sram.qp.context"),
        qps(&ctx_sram, p.nic.max_qps),
        regs(p.nic.max_qps),
        wqe_cache("tx.wqe_cache", p.sram.wqe_cache, stats, "nic0.sram.tx.wqe_cache"),
        mac(CoreEnv{p, StatGroup(stats, "nic0.mac")}, out),
        hdr(CoreEnv{p, StatGroup(stats, "nic0.tx.hdr_generator")}, mac),
        cqe(CoreEnv{p, StatGroup(stats, "nic0.control.cqe_manager")}, qps, dma),
        rsp(CoreEnv{p, StatGroup(stats, "nic0.control.rsp_manager")}, qps, regs, agenda,
            RspManagerCore::Links{cqe, recovery, rate}),
        qpm(CoreEnv{p, StatGroup(stats, "nic0.tx.qp_manager")}, qps, regs, agenda, wqe_cache,
            QpManagerCore::Links{dma, hdr, cqe, rsp, recovery, rate}),
        no_control(unused_log),
        arb(CoreEnv{p, StatGroup(stats, "nic0.tx.arbiter")}, agenda, no_control, qpm, hdr) {
    agenda.wake_port.bind(wake);
    cqe.send_queues_port.bind(qpm);
    rsp.send_queues_port.bind(qpm);
    QpContext c;
    c.qpn = 0x11, c.peer_qpn = 0x22, c.pmtu = 256;
    qps.add(0, c);
    regs.poke(0, QpReg::kSqBaseLo, 0x1000);
    regs.poke(0, QpReg::kSqSize, 16);
    regs.poke(0, QpReg::kCqBaseLo, 0x2000);
    regs.poke(0, QpReg::kCqSize, 16);
    regs.poke(0, QpReg::kSqPsn, 100);
    regs.poke(0, QpReg::kTimeoutCycles, 1'000'000);  // no timeout inside these tests
  }
  // Post WQEs at the ring's next slots and ring the doorbell at cycle t.
  void post(Cycle t, const std::vector<Wqe>& ws) {
    for (const Wqe& w : ws) {
      uint8_t b[kWqeBytes];
      w.encode(b);
      dma.put(0x1000 + uint64_t{posted_} * kWqeBytes, b, kWqeBytes);
      std::vector<uint8_t> data(w.length);
      for (uint32_t i = 0; i < w.length; ++i) data[i] = static_cast<uint8_t>(w.wr_id + i);
      dma.put(w.local_addr, data.data(), data.size());
      ++posted_;
    }
    qpm.doorbell(t, 0, posted_);
  }
  // Step the arbiter's turns until `until` (the shell's process, without the kernel).
  void run(Cycle until) {
    Cycle now = now_;
    while (now <= until) {
      Cycle next = arb.turn(now);
      if (next == kNever || next > until) break;
      now = std::max(next, now + 1);
    }
    now_ = until + 1;
  }
  std::vector<Cqe> cqes() const {
    std::vector<Cqe> v;
    for (const auto& w : dma.writes)
      if (w.addr >= 0x2000 && w.addr < 0x2000 + 16 * kCqeBytes) {
        uint8_t b[kCqeBytes];
        dma.get(w.addr, b, kCqeBytes);
        Cqe e;
        e.decode(b);
        v.push_back(e);
      }
    return v;
  }
  std::vector<uint32_t> psns_sent(size_t from = 0) const {
    std::vector<uint32_t> v;
    for (size_t i = from; i < out.frames.size(); ++i) v.push_back(out.frames[i].v.bth.psn);
    return v;
  }
  uint32_t posted_ = 0;
  Cycle now_ = 0;
};

Wqe write_wqe(uint64_t wr_id, uint32_t len, uint64_t local, bool ooo = false) {
  Wqe w;
  w.wr_id = wr_id, w.op = WqeOp::kWrite, w.length = len, w.local_addr = local;
  w.remote_addr = 0x50000, w.rkey = 7, w.ooo = ooo;
  return w;
}

TEST(RequesterCores, OneAckCompletesTwoWqesWithCqesInSqOrder) {
  RequesterRig r;
  r.post(0, {write_wqe(0xA1, 256, 0x8000), write_wqe(0xA2, 200, 0x8100)});
  r.run(1000);
  ASSERT_EQ(r.out.frames.size(), 2u);
  EXPECT_EQ(r.psns_sent(), (std::vector<uint32_t>{100, 101}));
  // tx.hdr_generator.ip_id per_qp: the QP's frames are numbered 0, 1, ...
  EXPECT_EQ(r.out.frames[0].v.ip_id, 0);
  EXPECT_EQ(r.out.frames[1].v.ip_id, 1);
  EXPECT_EQ(r.out.frames[0].v.bth.opcode, wire::kWriteOnly);
  EXPECT_EQ(r.out.frames[0].v.bth.dest_qp, 0x22u);
  EXPECT_EQ(r.out.frames[1].v.payload_len, 200u);
  EXPECT_EQ(r.out.frames[1].v.reth.dma_len, 200u);
  EXPECT_EQ(r.out.frames[1].v.payload[0], 0xA2);  // the WQE's bytes, fetched by DMA
  EXPECT_TRUE(r.cqes().empty());                  // nothing acknowledged yet
  // One coalesced ACK of PSN 101 covers both WQEs.
  r.rsp.on_ack(1100, 0, 101, false);
  r.run(2000);
  std::vector<Cqe> c = r.cqes();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].wr_id, 0xA1u);
  EXPECT_EQ(c[1].wr_id, 0xA2u);
  EXPECT_EQ(c[0].qpn, 0x11u);
  EXPECT_EQ(c[0].start_psn, 100u);
  EXPECT_EQ(c[1].start_psn, 101u);
  EXPECT_EQ(c[1].byte_len, 200u);
  EXPECT_EQ(c[0].status, 0);
  EXPECT_EQ(c[0].owner, 1);
  EXPECT_EQ(r.dma.writes[0].addr, 0x2000u);  // CQ ring slots 0 and 1, in that order
  EXPECT_EQ(r.dma.writes[1].addr, 0x2020u);
  EXPECT_LT(r.dma.writes[0].t, r.dma.writes[1].t);
  EXPECT_EQ(r.stats.counter_value("nic0.control.rsp_manager.acks"), 1u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.cqe_manager.cqes"), 2u);
  EXPECT_TRUE(r.qpm.idle());
}

TEST(RequesterCores, BitmapNakResendsExactlyTheThreeMissingPsns) {
  RequesterRig r;
  r.post(0, {write_wqe(0xB1, 8 * 256, 0x8000)});  // PSNs 100..107
  r.run(2000);
  ASSERT_EQ(r.out.frames.size(), 8u);
  // The responder expects 102 and holds 103, 105, 107 of the block from 102: bits
  // 0 1 0 1 0 1 -> 102, 104, 106 missing.
  wire::BitmapBlock b;
  b.base_psn = 102, b.nbits = 6;
  b.set(1), b.set(3), b.set(5);
  r.rsp.on_bitmap_nak(2100, 0, 102, b);
  r.run(3000);
  EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{102, 104, 106}));
  EXPECT_EQ(r.out.frames[8].v.bth.opcode, wire::kWriteMiddle);
  EXPECT_EQ(r.out.frames[8].v.payload[0], static_cast<uint8_t>(0xB1 + 2 * 256));
  EXPECT_EQ(r.qpm.sq(0).una, 102u);  // the NAK's ePSN acknowledged 100 and 101
  EXPECT_EQ(r.stats.counter_value("nic0.control.rsp_manager.selective_psns"), 3u);
  EXPECT_EQ(r.stats.counter_value("nic0.tx.qp_manager.retransmitted"), 3u);
  EXPECT_TRUE(r.cqes().empty());
  r.rsp.on_ack(3100, 0, 107, false);
  r.run(4000);
  ASSERT_EQ(r.cqes().size(), 1u);
  EXPECT_EQ(r.cqes()[0].wr_id, 0xB1u);
}

TEST(RequesterCores, SequenceNakGoesBackN) {
  RequesterRig r;
  r.post(0, {write_wqe(0xC1, 4 * 256, 0x8000)});  // PSNs 100..103
  r.run(2000);
  r.rsp.on_nak(2100, 0, wire::kAethNakPsnSeqErr, 101);
  r.run(3000);
  EXPECT_EQ(r.psns_sent(4), (std::vector<uint32_t>{101, 102, 103}));
  EXPECT_EQ(r.out.frames[4].v.bth.opcode, wire::kWriteMiddle);
  EXPECT_EQ(r.stats.counter_value("nic0.control.rsp_manager.go_backs"), 1u);
}

// With a window of one PSN the requester sends a packet only after the previous one
// was ACKed, so the ACK's "Start_Addr cached" flag lands between packets of the WQE.
TEST(RequesterCores, OooWriteSwitchesFromFSpotToSpotOnceStartAddrIsCached) {
  for (bool cached : {false, true}) {
    SCOPED_TRACE(cached ? "ACK says cached" : "ACK without the flag");
    RequesterRig r(/*window=*/1);
    r.post(0, {write_wqe(0xD1, 3 * 256, 0x8000, /*ooo=*/true)});  // PSNs 100..102
    r.run(1000);
    ASSERT_EQ(r.out.frames.size(), 1u);
    EXPECT_EQ(r.out.frames[0].v.bth.opcode, wire::kOooWriteFSpot);
    EXPECT_EQ(r.out.frames[0].v.reth.va, 0x50000u);  // Write_Addr of PSN 100
    r.rsp.on_ack(1100, 0, 100, cached);
    r.run(2000);
    ASSERT_EQ(r.out.frames.size(), 2u);
    const wire::PacketView& second = r.out.frames[1].v;
    if (cached) {
      EXPECT_EQ(second.bth.opcode, wire::kOooWriteSpot);
      EXPECT_FALSE(second.flags & wire::kHasReth);  // no address: Eq. 1 at the responder
    } else {
      EXPECT_EQ(second.bth.opcode, wire::kOooWriteFSpot);
      EXPECT_EQ(second.reth.va, 0x50000u + 256);
    }
    r.rsp.on_ack(2100, 0, 101, false);
    r.run(3000);
    ASSERT_EQ(r.out.frames.size(), 3u);
    EXPECT_EQ(r.out.frames[2].v.bth.opcode,
              cached ? wire::kOooWriteLast : wire::kOooWriteLastFSpot);
  }
}

// The timeout measures silence since the last response (MECHANISMS.md §1): a send does
// not push it back. TIMEOUT_CYCLES 500; WQE A's packet leaves at s0, WQE B's at 400+:
// the timer still fires at s0 + 500 (re-armed by every send it would be at 900+). The
// timeout goes back N with the whole window (control.rsp_manager.timeout_window_psns 0).
TEST(RequesterCores, TimeoutCountsFromTheFirstUnansweredSendNotTheLast) {
  RequesterRig r(320, 0, /*timeout_window=*/0);
  r.regs.poke(0, QpReg::kTimeoutCycles, 500);
  r.post(0, {write_wqe(0xF1, 256, 0x8000)});  // PSN 100
  r.run(399);
  ASSERT_EQ(r.out.frames.size(), 1u);
  const Cycle s0 = r.out.frames[0].start;
  r.post(400, {write_wqe(0xF2, 256, 0x8100)});  // PSN 101
  r.run(899);
  ASSERT_GE(r.out.frames.size(), 3u);
  EXPECT_GE(r.out.frames[1].start, 400u);
  EXPECT_EQ(r.out.frames[2].v.bth.psn, 100u);  // the go-back after the timeout
  EXPECT_GE(r.out.frames[2].start, s0 + 500);
  EXPECT_LT(r.out.frames[2].start, 900u);
  EXPECT_EQ(r.qps.at(0).recovery.timeouts, 1u);
  // Progress moves it: an ACK of 100 at 950 arms it for 1450 (101 outstanding).
  const size_t n = r.out.frames.size();
  r.rsp.on_ack(950, 0, 100, false);
  r.run(1449);
  EXPECT_EQ(r.out.frames.size(), n);  // nothing until 1450
  r.run(1900);
  ASSERT_GT(r.out.frames.size(), n);
  EXPECT_EQ(r.out.frames[n].v.bth.psn, 101u);
  EXPECT_GE(r.out.frames[n].start, 1450u);
  EXPECT_EQ(r.qps.at(0).recovery.timeouts, 2u);
}

// A hole resent on a bitmap NAK is not resent again on a second NAK within the holdoff
// (1 us = 250 cycles at 250 MHz): that resend is in flight. The second NAK is kept: at
// the holdoff's end, the PSN still unacknowledged, it goes again (a lost retransmission
// recovered without the timeout).
TEST(RequesterCores, AResendInFlightIsHeldOffThenRetriedAtTheHoldoffsEnd) {
  RequesterRig r(320, /*holdoff_ns=*/1000);
  r.post(0, {write_wqe(0xB1, 8 * 256, 0x8000)});  // PSNs 100..107
  r.run(2000);
  ASSERT_EQ(r.out.frames.size(), 8u);
  wire::BitmapBlock b;  // ePSN 102, 102 missing, 103..105 held
  b.base_psn = 102, b.nbits = 4;
  b.set(1), b.set(2), b.set(3);
  r.rsp.on_bitmap_nak(2100, 0, 102, b);
  r.run(2200);
  EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{102}));
  r.rsp.on_bitmap_nak(2300, 0, 102, b);  // 200 cycles later: held off
  r.run(2349);
  EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{102}));
  EXPECT_EQ(r.stats.counter_value("nic0.control.rsp_manager.resends_held_off"), 1u);
  EXPECT_EQ(r.qps.at(0).recovery.held_off, 1u);
  r.run(2399);  // 2100 + 250: retried, still unacknowledged
  ASSERT_EQ(r.psns_sent(8), (std::vector<uint32_t>{102, 102}));
  EXPECT_GE(r.out.frames[9].start, 2350u);
  EXPECT_EQ(r.qps.at(0).recovery.retransmitted, 2u);
  // Once 102 is acknowledged, a retry due for it does nothing: a NAK at 2400 is held off
  // (resent at 2350), its retry due at 2600 finds 102 acknowledged at 2450.
  r.rsp.on_bitmap_nak(2400, 0, 102, b);
  r.rsp.on_ack(2450, 0, 107, false);
  r.run(5000);
  EXPECT_EQ(r.psns_sent(8).size(), 2u);
  EXPECT_EQ(r.stats.counter_value("nic0.control.rsp_manager.recoveries"), 1u);
}

// After a timeout the go-back starts with control.rsp_manager.timeout_window_psns PSNs
// past una (1, the default) and each PSN acknowledged lets one more go (TCP's loss
// window): a timeout after a lost tail ACK resends one PSN, not a window. With 0 the
// whole outstanding span goes at once (RoCE's go-back-N).
TEST(RequesterCores, ATimeoutResendsOnePsnThenOneMorePerPsnAcked) {
  for (uint32_t tw : {1u, 0u}) {
    SCOPED_TRACE(tw ? "loss window 1" : "whole window");
    RequesterRig r(320, 0, tw);
    r.regs.poke(0, QpReg::kTimeoutCycles, 500);
    r.post(0, {write_wqe(0xE1, 8 * 256, 0x8000)});  // PSNs 100..107
    r.run(499);
    ASSERT_EQ(r.out.frames.size(), 8u);
    const Cycle s0 = r.out.frames[0].start;
    r.run(s0 + 900);  // the timeout at s0 + 500; no response yet
    EXPECT_EQ(r.qps.at(0).recovery.timeouts, 1u);
    if (!tw) {
      EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{100, 101, 102, 103, 104, 105, 106, 107}));
      continue;
    }
    EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{100}));
    EXPECT_GE(r.out.frames[8].start, s0 + 500);
    // 100 acknowledged: una 101, two may be out past it.
    r.rsp.on_ack(s0 + 950, 0, 100, false);
    r.run(s0 + 1000);
    EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{100, 101, 102}));
    // 101 and 102 acknowledged: una 103, four past it.
    r.rsp.on_ack(s0 + 1050, 0, 102, false);
    r.run(s0 + 1100);
    EXPECT_EQ(r.psns_sent(8), (std::vector<uint32_t>{100, 101, 102, 103, 104, 105, 106}));
    // The whole WQE acknowledged: nothing more goes, the WQE completes.
    r.rsp.on_ack(s0 + 1150, 0, 107, false);
    r.run(s0 + 2000);
    EXPECT_EQ(r.psns_sent(8).size(), 7u);
    ASSERT_EQ(r.cqes().size(), 1u);
    EXPECT_EQ(r.qps.at(0).recovery.timeouts, 1u);
  }
}

TEST(RequesterCores, ReadCompletesAfterItsDataAndBeforeTheWriteBehindIt) {
  RequesterRig r;
  Wqe rd;
  rd.wr_id = 0xE1, rd.op = WqeOp::kRead, rd.length = 512, rd.local_addr = 0x9000;
  rd.remote_addr = 0x60000, rd.rkey = 7;
  r.post(0, {rd, write_wqe(0xE2, 256, 0x8000)});  // READ PSNs 100..101, WRITE 102
  r.run(1000);
  ASSERT_EQ(r.out.frames.size(), 2u);
  EXPECT_EQ(r.out.frames[0].v.bth.opcode, wire::kReadRequest);
  EXPECT_EQ(r.out.frames[0].v.reth.dma_len, 512u);
  EXPECT_EQ(r.out.frames[1].v.bth.psn, 102u);
  // The WRITE's ACK comes first: the WRITE is done but its CQE waits behind the READ's.
  r.rsp.on_ack(1100, 0, 102, false);
  r.run(1200);
  EXPECT_TRUE(r.cqes().empty());
  // The READ's last data is in host memory at 1500 (reported at 1300).
  r.rsp.on_read_data(1300, 0, 100, 1500, true);
  r.run(3000);
  std::vector<Cqe> c = r.cqes();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].wr_id, 0xE1u);
  EXPECT_EQ(c[0].op, WqeOp::kRead);
  EXPECT_EQ(c[1].wr_id, 0xE2u);
  EXPECT_GE(r.dma.writes[0].t, 1500u);  // the READ's CQE follows its data
  EXPECT_EQ(r.stats.counter_value("nic0.control.cqe_manager.read_cqes"), 1u);
}

}  // namespace
