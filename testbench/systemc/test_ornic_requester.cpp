// Exact cycles of ORNIC's requester side (TX plane and Control plane), derived
// by hand from the documented defaults (docs/model/timing.md): 250 MHz (4000
// ps), reg.access_cycles 2, dma.setup_cycles 2 (a DMA read holds the read
// channel 3 cycles, starts PCIe 2 cycles after its grant), PCIe Gen3 x16 at
// 63.4765625 ps/B with 24 B per TLP (a read request TLP = 1524 ps, completions
// of n bytes = ceil((n+24) x 63.4765625) ps), read latency 600 ns, MRRS 512,
// MPS 256, tx.qp_manager.fetch_cycles 2, WQE cache 1R1W 256 bit (read: +1,
// write: +1), tx.arbiter.schedule_cycles 1 / lookahead 8,
// tx.hdr_generator.data_cycles 4, MAC 100 Gbit/s, control.cqe_manager 1.
// The peer is a scripted port: it records what the NIC sends and injects the
// responses (an ACK of 62 B is 1 beat: its QP context is written back at
// arrival + 9, when its effect on the requester takes place).
#include <gtest/gtest.h>

#include <cstring>

#include "model/ornic/wqe.h"
#include "testbench/common/nic_bench.h"

namespace oonic::test {
namespace {

constexpr uint64_t kSq = 0x100000, kCq = 0x200000, kSrc = 0x300000;

// Writes one register through the NIC's reg_socket at a chosen cycle.
class RegDriver : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<RegDriver> reg_initiator_socket;
  std::vector<std::tuple<Cycle, uint32_t, uint32_t>> script;
  RegDriver(sc_core::sc_module_name n, const ClockDomain& clk)
      : sc_module(n), reg_initiator_socket("reg_initiator_socket"), clk_(clk) {
    SC_THREAD(run);
  }

 private:
  SC_HAS_PROCESS(RegDriver);
  void run() {
    for (auto& [c, addr, v] : script) {
      clk_.wait_until(c);
      uint32_t val = v;
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(addr);
      gp.set_data_ptr(reinterpret_cast<unsigned char*>(&val));
      gp.set_data_length(4);
      gp.set_streaming_width(4);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      reg_initiator_socket->b_transport(gp, d);
      ASSERT_TRUE(gp.is_response_ok());
    }
  }
  ClockDomain clk_;
};

struct Requester {
  NicBench b;
  RegDriver drv;
  std::vector<std::pair<uint64_t, uint64_t>> cq_writes;  // (done ps, addr)
  explicit Requester(const ornic::OrnicParams& p) : b(p), drv("drv", b.nic.clock()) {
    drv.reg_initiator_socket.bind(b.nic.reg_socket);
    b.pcie.on_write([this](uint64_t ps, uint64_t a, uint64_t) {
      if (a >= kCq && a < kCq + 0x1000) cq_writes.push_back({ps, a});
    });
  }
  static uint32_t reg(ornic::QpReg r) { return ornic::RegisterFile::address(0, r); }
  // QP 0x11 (peer 0x22) with the given PMTU, its SQ at kSq (16 entries), CQ at kCq.
  void setup(uint32_t pmtu, uint32_t timeout_cycles = 0) {
    b.nic.add_qp(NicBench::qp(0, pmtu, 64));
    auto& rf = b.nic.register_manager().registers();
    rf.poke(reg(ornic::QpReg::kSqBaseLo), static_cast<uint32_t>(kSq));
    rf.poke(reg(ornic::QpReg::kSqSize), 16);
    rf.poke(reg(ornic::QpReg::kCqBaseLo), static_cast<uint32_t>(kCq));
    rf.poke(reg(ornic::QpReg::kCqSize), 16);
    rf.poke(reg(ornic::QpReg::kTimeoutCycles), timeout_cycles);
  }
  // WQE k of the SQ; the source bytes at kSrc are a pattern.
  void post(uint32_t k, ornic::WqeOp op, bool ooo, uint32_t len) {
    ornic::Wqe w;
    w.wr_id = 0x77 + k;
    w.op = op;
    w.ooo = ooo;
    w.length = len;
    w.local_addr = kSrc;
    w.remote_addr = 0x10000;
    w.rkey = 0x1234;
    uint8_t buf[ornic::kWqeBytes];
    w.encode(buf);
    b.memory.memory().write(kSq + k * ornic::kWqeBytes, buf, sizeof buf);
    std::vector<uint8_t> src(len);
    for (uint32_t i = 0; i < len; ++i) src[i] = static_cast<uint8_t>(i * 7 + 3);
    b.memory.memory().write(kSrc, src.data(), len);
  }
  void doorbell(Cycle c, uint32_t pi) {
    drv.script.push_back({c, reg(ornic::QpReg::kSqDoorbell), pi});
  }
  wire::FrameSpec ack(uint32_t psn, bool cached) {
    wire::FrameSpec s = request(wire::kAcknowledge, psn, 0);
    s.aeth.syndrome = wire::kAethAckNoCredit;
    s.aeth.msn = 1;
    if (cached) s.bth.resv7 = wire::kBthStartAddrCachedBit;
    return s;
  }
};

std::vector<const SentFrame*> data_frames(const FramePort& p) {
  std::vector<const SentFrame*> v;
  for (const auto& f : p.sent) v.push_back(f.get());
  return v;
}

// Doorbell written at cycle 10, effective at 12 (reg.access_cycles 2). WQE fetch:
// DMA read granted 12, PCIe at 14 (56000 ps): request sent 57524, 64 B + 24 B
// completion = 5586 ps from 657524 -> 663110 ps = cycle 166; parsed 166+2 = 168,
// cache write -> 169. Activated at 169; payload (64 B) read granted 169, PCIe at
// 171 (684000 ps): sent 685524, completion 1285524 -> 1291110 ps = cycle 323. Arbiter
// grant 323, WQE cache read 324 -> 325, Hdr Generator 325..328, MAC at 329 (WRITE
// Only, 138 B). The ACK (PSN 0) injected at 400 is written back at 409: CQE Manager
// slot 409, cache read 410 -> 411, DMA write granted 411, PCIe at 413 (1652000 ps):
// 32 B + 24 B = 3555 ps -> CQE in host memory at 1655555 ps (cycle 414).
TEST(OrnicRequester, SinglePacketWriteFromDoorbellToCqe) {
  ornic::OrnicParams p;
  Requester r(p);
  r.setup(4096);
  r.post(0, ornic::WqeOp::kWrite, false, 64);
  r.doorbell(10, 1);
  r.b.inject(400, r.ack(0, false));
  sc_core::sc_start(sc_core::sc_time(2000 * 4, sc_core::SC_NS));
  auto f = data_frames(r.b.port);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->cycle, 329u);
  EXPECT_EQ(f[0]->v.bth.opcode, wire::kWriteOnly);
  EXPECT_EQ(f[0]->v.bth.psn, 0u);
  EXPECT_EQ(f[0]->v.bth.dest_qp, 0x22u);
  EXPECT_EQ(f[0]->v.reth.va, 0x10000u);
  EXPECT_EQ(f[0]->v.reth.dma_len, 64u);
  ASSERT_EQ(f[0]->v.payload_len, 64u);
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(f[0]->v.payload[i], static_cast<uint8_t>(i * 7 + 3));
  ASSERT_EQ(r.cq_writes.size(), 1u);
  EXPECT_EQ(r.cq_writes[0].first, 1655555u);
  EXPECT_EQ(r.cq_writes[0].second, kCq);
  uint8_t cqe[ornic::kCqeBytes];
  r.b.memory.memory().read(kCq, cqe, sizeof cqe);
  ornic::Cqe e;
  e.decode(cqe);
  EXPECT_EQ(e.wr_id, 0x77u);
  EXPECT_EQ(e.status, 0);
  EXPECT_EQ(e.owner, 1);
  EXPECT_EQ(e.byte_len, 64u);
  EXPECT_EQ(e.qpn, 0x11u);
  EXPECT_EQ(r.b.stats.counter_value("nic0.control.cqe_manager.cqes"), 1u);
}

// OOO WRITE of 4 x 256 B (PMTU 256). Fetch as above (WQE active at 169); the four
// payload reads are granted 169, 172, 175, 178 (PCIe at 684000, 696000, 708000,
// 720000 ps; requests sent +1524; 280 B completions of 17774 ps queue on the
// host->NIC direction): ready 326, 331, 335, 340. FSpot frames are 330 B (8 MAC
// cycles), Spot 314 B (7 cycles). Grants and MAC starts:
//   PSN 0: grant 326, cache read 327 -> 328, Hdr Gen 328..331, MAC 332 (FSpot)
//   PSN 1: ready 331, gate max(Hdr free 332, MAC free 340 - 8) = 332 -> MAC 340 (FSpot)
//   PSN 2: ready 335, gate max(338, 348 - 8) = 340 -> MAC 348
//   PSN 3: ready 340, gate max(346, MAC free - 8) -> see below
// The ACK with "Start_Addr cached" injected at 331 takes effect at 340, before the
// arbiter grants PSN 2 at 340: PSN 2 goes as Spot (MAC free 355), so PSN 3's gate is
// max(346, 355 - 8) = 347: grant 347, read 348 -> 349, Hdr Gen 349..352, MAC 355 (Last).
TEST(OrnicRequester, FSpotSwitchesToSpotAfterTheFlaggedAck) {
  ornic::OrnicParams p;
  Requester r(p);
  r.setup(256);
  r.post(0, ornic::WqeOp::kWrite, true, 1024);
  r.doorbell(10, 1);
  r.b.inject(331, r.ack(0, true));
  sc_core::sc_start(sc_core::sc_time(1000 * 4, sc_core::SC_NS));
  auto f = data_frames(r.b.port);
  ASSERT_EQ(f.size(), 4u);
  const uint8_t op[] = {wire::kOooWriteFSpot, wire::kOooWriteFSpot, wire::kOooWriteSpot,
                        wire::kOooWriteLast};
  const Cycle at[] = {332, 340, 348, 355};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(f[i]->v.bth.opcode, op[i]);
    EXPECT_EQ(f[i]->v.bth.psn, static_cast<uint32_t>(i));
    EXPECT_EQ(f[i]->cycle, at[i]);
    EXPECT_EQ(f[i]->v.payload_len, 256u);
  }
  EXPECT_EQ(f[1]->v.reth.va, 0x10000u + 256);  // FSpot carries Write_Addr (Eq. 2 at the peer)
  EXPECT_EQ(f[1]->v.reth.dma_len, 1024u);
}

// OOO WRITE of 8 x 256 B, all sent as FSpot (no ACK). A bitmap NAK injected at 600
// says ePSN 1 and block [0, 16) holds PSNs 0, 2, 3, 5, 6, 7: PSNs 1 and 4 are missing.
// The NAK (74 B, 2 beats) is written back at 611; both retransmissions are picked
// at 611: reads granted 611 and 614 (PCIe at 2452000 and 2464000 ps) arrive at
// 3071298 ps (cycle 768) and 3089072 ps (cycle 773). PSN 1: grant 768, read 769 ->
// 770, Hdr Gen 770..773, MAC 774; PSN 4: gate max(774, 782 - 8) = 774, read 775 ->
// 776, Hdr Gen 776..779, MAC 782. Nothing else is sent.
TEST(OrnicRequester, BitmapNakRetransmitsExactlyTheMissingPsns) {
  ornic::OrnicParams p;
  Requester r(p);
  r.setup(256);
  r.post(0, ornic::WqeOp::kWrite, true, 2048);
  r.doorbell(10, 1);
  wire::FrameSpec nak = request(wire::kOooNak, 1, 0);
  nak.aeth.syndrome = wire::kAethNakPsnSeqErr;
  nak.bitmap.base_psn = 0;
  nak.bitmap.nbits = 16;
  for (uint32_t i : {0, 2, 3, 5, 6, 7}) nak.bitmap.set(i);
  r.b.inject(600, nak);
  sc_core::sc_start(sc_core::sc_time(2000 * 4, sc_core::SC_NS));
  auto f = data_frames(r.b.port);
  ASSERT_EQ(f.size(), 10u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(f[i]->v.bth.psn, static_cast<uint32_t>(i));
  EXPECT_EQ(f[8]->v.bth.psn, 1u);
  EXPECT_EQ(f[8]->cycle, 774u);
  EXPECT_EQ(f[9]->v.bth.psn, 4u);
  EXPECT_EQ(f[9]->cycle, 782u);
  for (int i : {8, 9}) {
    EXPECT_EQ(f[i]->v.bth.opcode, wire::kOooWriteFSpot);
    uint32_t off = f[i]->v.bth.psn * 256;
    EXPECT_EQ(f[i]->v.reth.va, 0x10000u + off);
    for (uint32_t k = 0; k < 256; ++k)
      ASSERT_EQ(f[i]->v.payload[k], static_cast<uint8_t>((off + k) * 7 + 3)) << i << " " << k;
  }
  EXPECT_EQ(r.b.stats.counter_value("nic0.control.rsp_manager.selective_psns"), 2u);
  EXPECT_EQ(r.b.stats.counter_value("nic0.tx.qp_manager.retransmitted"), 2u);
}

// The single-packet WRITE of the first test with no ACK and TIMEOUT_CYCLES 1000:
// sent at 329, so the timer fires at 1329 and goes back to PSN 0: payload read
// granted 1329, PCIe at 1331 (5324000 ps), completion 5925524 -> 5931110 ps = cycle
// 1483; grant 1483, cache read 1484 -> 1485, Hdr Gen 1485..1488, MAC 1489.
TEST(OrnicRequester, TimeoutFiresAtItsCycle) {
  ornic::OrnicParams p;
  Requester r(p);
  r.setup(4096, 1000);
  r.post(0, ornic::WqeOp::kWrite, false, 64);
  r.doorbell(10, 1);
  sc_core::sc_start(sc_core::sc_time(1328 * 4, sc_core::SC_NS));
  EXPECT_EQ(r.b.stats.counter_value("nic0.control.rsp_manager.timeouts"), 0u);
  // sc_start(T) stops before the events at T: run through cycle 1329.
  sc_core::sc_start(sc_core::sc_time(2 * 4, sc_core::SC_NS));
  EXPECT_EQ(r.b.stats.counter_value("nic0.control.rsp_manager.timeouts"), 1u);
  // The NIC hands a frame to its MAC port when it is granted (1483), so until then
  // only the first transmission is out.
  sc_core::sc_start(sc_core::sc_time(152 * 4, sc_core::SC_NS));  // to cycle 1482
  EXPECT_EQ(r.b.port.sent.size(), 1u);
  sc_core::sc_start(sc_core::sc_time(600 * 4, sc_core::SC_NS));
  auto f = data_frames(r.b.port);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]->cycle, 329u);
  EXPECT_EQ(f[1]->cycle, 1489u);
  EXPECT_EQ(f[1]->v.bth.psn, 0u);
  EXPECT_EQ(f[1]->v.bth.opcode, wire::kWriteOnly);
  EXPECT_EQ(r.b.stats.counter_value("nic0.control.rsp_manager.timeouts"), 1u);
  EXPECT_EQ(r.b.stats.counter_value("nic0.tx.qp_manager.retransmitted"), 1u);
}

}  // namespace
}  // namespace oonic::test
