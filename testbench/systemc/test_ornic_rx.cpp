// Exact cycle counts of ORNIC's receive path for small sequences, derived by
// hand from the documented default latencies (docs/model/timing.md):
//   clock 250 MHz (4000 ps), datapath 64 B, rx.parser.latency 4,
//   rx.req_processor.ii_cycles 4 / check_cycles 1, SRAM read latency 1
//   (hdr buffers 1R1W x 512 bit, qp.context 2RW x 512 bit, acked_psn_mem 1R1W x 64 bit),
//   dma.setup_cycles 2, PCIe Gen3 x16 = 126.03 Gbit/s (63.4765625 ps/B), 24 B per TLP,
//   control.req_manager.schedule_cycles 1, tx.hdr_generator.ack_cycles 4, MAC 100 Gbit/s.
// Frame sizes: WRITE First 64 B payload = 14+20+8+12+16+64+4 = 138 B (3 beats, header
// 70 B = 2 words); WRITE Middle/Last 64 B = 122 B (2 beats, header 54 B = 1 word);
// OOO FSpot 256 B = 330 B (6 beats, header 70 B); ACK 62 B -> 86 B on the wire = 6880 ps
// = 2 cycles of MAC; OOO NAK (4-bit block) 74 B -> 98 B = 7840 ps = 2 cycles.
#include <gtest/gtest.h>

#include <cstring>

#include "testbench/common/nic_bench.h"

namespace oonic::test {
namespace {

std::vector<const SentFrame*> frames_with(const FramePort& p, uint8_t opcode) {
  std::vector<const SentFrame*> v;
  for (const auto& f : p.sent)
    if (f->v.bth.opcode == opcode) v.push_back(f.get());
  return v;
}

// Three in-order standard WRITE packets (First/Middle/Last, 64 B each) at cycles
// 100, 103, 105.
//   pkt1: parser 100..102, ready 100+3+4 = 107; slot 107; hdr read 2 words -> 109;
//         ctx read -> 110; check -> 111; ctx write -> 112 (processed); DMA slot 112,
//         +2 setup -> PCIe at 114: 88 B = 5586 ps -> 456000+5586 ps = cycle 116.
//   pkt2: parser 103..104, ready 109; slot max(109, 107+4) = 111; hdr -> 112; ctx -> 113;
//         check 114; write -> 115; DMA 115 -> PCIe at 117 -> 473586 ps = cycle 119.
//   pkt3: parser 105..106, ready 111; slot 115; hdr -> 116; ctx -> 117; 118; write 119;
//         DMA 119 -> 121 -> 489586 ps = cycle 123.
// ACKs (registered at 112, 115, 119): the scheduler pops at 112, reads the ACKed-PSN
// slot at 113 (data 114), the Hdr Generator builds 114..117, the MAC sends at 118;
// next pop at 118 (read 119 -> 120, build 120..123, send 124); next at 124 (read 125
// -> 126, build -> 130, send 130).
void build_inorder(NicBench& b) {
  b.nic.add_qp(NicBench::qp(0, 4096, 64));
  b.inject(100, request(wire::kWriteFirst, 0, 64, 0x10000, 192));
  b.inject(103, request(wire::kWriteMiddle, 1, 64));
  b.inject(105, request(wire::kWriteLast, 2, 64));
}

TEST(OrnicRx, InOrderPacketsAndTheirAcks) {
  ornic::OrnicParams p;
  NicBench b(p);
  build_inorder(b);
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 3u);
  const Cycle parsed[] = {107, 109, 111}, processed[] = {112, 115, 119}, dma[] = {116, 119, 123};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_STREQ(to_string(b.records[i].verdict), "accepted");
    EXPECT_EQ(b.records[i].parsed, parsed[i]);
    EXPECT_EQ(b.records[i].processed, processed[i]);
    EXPECT_EQ(b.records[i].dma_done, dma[i]);
  }
  auto acks = frames_with(b.port, wire::kAcknowledge);
  ASSERT_EQ(acks.size(), 3u);
  const Cycle ack_cycle[] = {118, 124, 130};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(acks[i]->cycle, ack_cycle[i]) << "ACK " << i;
    EXPECT_EQ(acks[i]->v.bth.psn, static_cast<uint32_t>(i));
    EXPECT_EQ(acks[i]->v.bth.dest_qp, 0x22u);
  }
  EXPECT_EQ(acks[2]->v.aeth.msn, 1u);  // one complete WRITE
  // Host memory holds the 192 bytes at the RETH address.
  std::vector<uint8_t> got(193);
  b.memory.memory().read(0x10000, got.data(), got.size());
  for (int i = 0; i < 192; ++i) ASSERT_EQ(got[i], 0xA5) << i;
  EXPECT_EQ(got[192], 0);
}

// Same packets with tx.hdr_generator.ack_cycles = 8: the first ACK is built 114..121
// and sent at 122; registrations at 115 and 119 land in the QP's slot while it is busy
// and collapse into one ACK of PSN 2: popped at 122, slot read 123 -> 124, built
// 124..131, sent at 132 (ORNIC Figure 8).
TEST(OrnicRx, AckAggregation) {
  ornic::OrnicParams p;
  p.hdr_generator.ack_cycles = 8;
  NicBench b(p);
  build_inorder(b);
  sc_core::sc_start();
  auto acks = frames_with(b.port, wire::kAcknowledge);
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0]->cycle, 122u);
  EXPECT_EQ(acks[0]->v.bth.psn, 0u);
  EXPECT_EQ(acks[1]->cycle, 132u);
  EXPECT_EQ(acks[1]->v.bth.psn, 2u);
  EXPECT_EQ(acks[1]->v.aeth.msn, 1u);
  EXPECT_EQ(b.stats.counter_value("nic0.control.req_manager.ack_registrations"), 3u);
  EXPECT_EQ(b.stats.counter_value("nic0.control.req_manager.acks_scheduled"), 2u);
}

// One OOO WRITE FSpot, PSN 5 of a WQE starting at PSN 0 (PMTU 256), at cycle 100.
//   parser 100..105, ready 110; slot 110; hdr -> 112; ctx -> 113; check 114;
//   Bitmap Manager 114..116: locate 1 + allocate 1 + set bit 1 = 3 cycles -> 117;
//   ctx write -> 118 (processed). DMA 118 + 2 -> PCIe at 120: 256+24 B = 17774 ps,
//   480000+17774 ps = cycle 125. Eq. 2 caches Start_Addr = 0x10500 - 5 x 256 =
//   0x10000, so an ACK with "Start_Addr cached" (PSN ePSN-1 = 0xFFFFFF) is registered
//   at 118: slot read 119 -> 120, built 120..123, sent at 124.
TEST(OrnicRx, OutOfOrderPacket) {
  ornic::OrnicParams p;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(0, 256, 64));
  b.inject(100, request(wire::kOooWriteFSpot, 5, 256, 0x10500, 4096));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 1u);
  const auto& r = b.records[0];
  EXPECT_STREQ(to_string(r.verdict), "ooo");
  EXPECT_EQ(r.parsed, 110u);
  EXPECT_EQ(r.processed, 118u);
  EXPECT_EQ(r.dma_done, 125u);
  EXPECT_EQ(r.locate_cycles, 1u);
  EXPECT_EQ(r.bitmap_cycles, 3u);
  EXPECT_EQ(r.blocks_held, 1u);
  auto acks = frames_with(b.port, wire::kAcknowledge);
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0]->cycle, 124u);
  EXPECT_EQ(acks[0]->v.bth.psn, 0xFFFFFFu);
  EXPECT_TRUE(acks[0]->v.bth.resv7 & wire::kBthStartAddrCachedBit);
  uint8_t at[2];
  b.memory.memory().read(0x10500, &at[0], 1);
  b.memory.memory().read(0x104FF, &at[1], 1);
  EXPECT_EQ(at[0], 0xA5);
  EXPECT_EQ(at[1], 0);  // PSN 4's place is still empty
}

// bitmap.block_bits = 4: PSNs 5, 6, 7, 4 (FSpot, 256 B) at 100, 106, 112, 118 fill
// block node 1 (PSNs 4..7) while PSN 0 is still missing.
//   pkt1 ready 110, slot 110, bitmap at 114: 3 cycles (locate, allocate, set) -> 117
//   pkt2 ready 116, slot 116, hdr -> 118, ctx -> 119, check 120, bitmap 2 (locate, set) -> 122
//   pkt3 ready 122, slot 122, hdr 124, ctx 125, check 126, bitmap 2 -> 128
//   pkt4 ready 128, slot 128, hdr 130, ctx 131, check 132, bitmap 3 (locate, set, free) -> 135
// The pool block (4 bits) is held from 117 to 135: freed at once when full.
TEST(OrnicRx, BlockFillsAndIsFreed) {
  ornic::OrnicParams p;
  p.bitmap.block_bits = 4;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(0, 256, 64));
  const uint32_t psns[] = {5, 6, 7, 4};
  for (int i = 0; i < 4; ++i)
    b.inject(100 + 6 * i,
             request(wire::kOooWriteFSpot, psns[i], 256, 0x10000 + psns[i] * 256, 4096));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 4u);
  const uint32_t cycles[] = {3, 2, 2, 3}, held[] = {1, 1, 1, 0};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(b.records[i].bitmap_cycles, cycles[i]);
    EXPECT_EQ(b.records[i].blocks_held, held[i]);
  }
  auto& occ = b.nic.rx().bitmap_manager.block_pool().occupancy();
  occ.finalize(200);
  ASSERT_EQ(occ.points().size(), 2u);
  EXPECT_EQ(occ.points()[0], (std::pair<Cycle, int64_t>{117, 4}));
  EXPECT_EQ(occ.points()[1], (std::pair<Cycle, int64_t>{135, 0}));
  EXPECT_EQ(b.nic.rx().bitmap_manager.core().node(0x0, 1).all_1, true);
}

// OTD = 4, block_bits = 4. PSN 5 arrives first (5 - ePSN 0 > OTD): a loss is declared.
//   ready 110, slot 110, hdr 112, ctx 113, check 114; bitmap 114..117: locate 1 +
//   allocate 1 + set 1 + read the header node for the NAK block 1 = 4 -> 118; ctx write
//   -> 119. The NAK (block of node 0: base PSN 0, 4 bits, none received) and the
//   Start_Addr-cached ACK are registered at 119; NAKs go first: slot read 120 -> 121,
//   built 121..124, sent 125; the ACK: read 126 -> 127, built 127..130, sent 131.
// PSN 6 (at 106) is past OTD too but ePSN has not moved: no second NAK.
TEST(OrnicRx, OtdViolationAndItsNak) {
  ornic::OrnicParams p;
  p.bitmap.block_bits = 4;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(0, 256, 4));
  b.inject(100, request(wire::kOooWriteFSpot, 5, 256, 0x10500, 4096));
  b.inject(106, request(wire::kOooWriteFSpot, 6, 256, 0x10600, 4096));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 2u);
  EXPECT_EQ(b.records[0].bitmap_cycles, 4u);
  EXPECT_EQ(b.records[0].processed, 119u);
  auto naks = frames_with(b.port, wire::kOooNak);
  ASSERT_EQ(naks.size(), 1u);
  EXPECT_EQ(naks[0]->cycle, 125u);
  EXPECT_EQ(naks[0]->v.bth.psn, 0u);
  EXPECT_EQ(naks[0]->v.bitmap.base_psn, 0u);
  EXPECT_EQ(naks[0]->v.bitmap.nbits, 4u);
  EXPECT_EQ(naks[0]->v.bitmap.words[0], 0u);
  EXPECT_EQ(naks[0]->v.aeth.syndrome, wire::kAethNakPsnSeqErr);
  auto acks = frames_with(b.port, wire::kAcknowledge);
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0]->cycle, 131u);
  EXPECT_EQ(b.port.sent.size(), 2u);
}

// A standard packet with a PSN gap gets a PSN-sequence NAK carrying ePSN; a
// duplicate is re-ACKed; neither is placed.
TEST(OrnicRx, StandardGapNakAndDuplicate) {
  ornic::OrnicParams p;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(10, 4096, 64));
  b.inject(100, request(wire::kWriteOnly, 12, 64, 0x20000, 64));  // gap: ePSN 10
  b.inject(200, request(wire::kWriteOnly, 10, 64, 0x20000, 64));  // in order
  b.inject(300, request(wire::kWriteOnly, 10, 64, 0x20000, 64));  // duplicate
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 3u);
  EXPECT_EQ(b.records[0].drop, ornic::Drop::kPsnSequenceError);
  EXPECT_STREQ(to_string(b.records[1].verdict), "accepted");
  EXPECT_EQ(b.records[2].drop, ornic::Drop::kDuplicate);
  ASSERT_EQ(b.port.sent.size(), 3u);
  EXPECT_EQ(b.port.sent[0]->v.aeth.syndrome, wire::kAethNakPsnSeqErr);
  EXPECT_EQ(b.port.sent[0]->v.bth.psn, 10u);
  EXPECT_EQ(b.port.sent[1]->v.bth.psn, 10u);  // ACK
  EXPECT_EQ(b.port.sent[2]->v.bth.psn, 10u);  // re-ACK of the duplicate
  EXPECT_EQ(b.stats.counter_value("nic0.rx.req_processor.accepted_bytes"), 64u);
}

// A READ request is answered with READ responses of PMTU bytes from host memory.
TEST(OrnicRx, ReadRequestAnsweredFromHostMemory) {
  ornic::OrnicParams p;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(0, 1024, 64));
  std::vector<uint8_t> mem(3000);
  for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(i * 7);
  b.memory.memory().write(0x30000, mem.data(), mem.size());
  wire::FrameSpec rq = request(wire::kReadRequest, 0, 0, 0x30000, 3000);
  b.inject(100, rq);
  sc_core::sc_start();
  ASSERT_EQ(b.port.sent.size(), 3u);
  const uint8_t ops[] = {wire::kReadResponseFirst, wire::kReadResponseMiddle,
                         wire::kReadResponseLast};
  size_t off = 0;
  for (int i = 0; i < 3; ++i) {
    const auto& f = *b.port.sent[i];
    EXPECT_EQ(f.v.bth.opcode, ops[i]);
    EXPECT_EQ(f.v.bth.psn, static_cast<uint32_t>(i));
    ASSERT_EQ(f.v.payload_len, i < 2 ? 1024u : 952u);
    EXPECT_EQ(0, std::memcmp(f.v.payload, mem.data() + off, f.v.payload_len));
    off += f.v.payload_len;
    if (i) {
      EXPECT_GT(f.cycle, b.port.sent[i - 1]->cycle);
    }
  }
}

// A standard request may follow a completed OOO WQE even though the bitmap still
// holds the partly filled block at ePSN (PSNs 0..2 of a 16-bit block are in).
TEST(OrnicRx, StandardSendAfterOooWqe) {
  ornic::OrnicParams p;
  NicBench b(p);
  ornic::QpContext c = NicBench::qp(0, 256, 64);
  c.recv_base = 0x90000, c.recv_count = 1, c.recv_bytes = 4096;
  b.nic.add_qp(c);
  b.inject(100, request(wire::kOooWriteFSpot, 1, 256, 0x10100, 768));
  b.inject(200, request(wire::kOooWriteFSpot, 0, 256, 0x10000, 768));
  b.inject(300, request(wire::kOooWriteLast, 2, 256));
  b.inject(400, request(wire::kSendOnly, 3, 100));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 4u);
  for (const auto& r : b.records) EXPECT_EQ(r.drop, ornic::Drop::kNone) << r.index;
  uint8_t x = 0;
  b.memory.memory().read(0x90000 + 99, &x, 1);
  EXPECT_EQ(x, 0xA5);
  EXPECT_EQ(b.stats.counter_value("nic0.rx.req_processor.messages"), 2u);
}

}  // namespace
}  // namespace oonic::test

namespace oonic::test {
namespace {

// The register bus: a 32-bit read of ID, a write to a QP register, and error
// responses (unmapped, read-only, wrong size) that are counted, never fatal.
TEST(OrnicRegisters, TlmAccessesAndErrorResponses) {
  ornic::OrnicParams p;
  NicBench b(p);
  auto access = [&](tlm::tlm_command cmd, uint64_t addr, uint32_t* v, unsigned len = 4) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(v));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    b.nic.register_manager().reg_socket.get_base_interface().b_transport(gp, d);
    EXPECT_EQ(d, b.nic.clock().at(2));  // reg.access_cycles
    return gp.get_response_status();
  };
  uint32_t v = 0;
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x0, &v), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(v, 0x6F6F6E43u);
  v = 0x22;
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, ornic::RegisterFile::qp_reg(3, 0x08), &v),
            tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(b.nic.register_manager().registers().peek(ornic::RegisterFile::qp_reg(3, 0x08)), 0x22u);
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x0FF0, &v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, 0x10, &v), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, 0x0, &v, 2), tlm::TLM_BURST_ERROR_RESPONSE);
  EXPECT_EQ(b.stats.counter_value("nic0.register_manager.errors"), 3u);
}

}  // namespace
}  // namespace oonic::test

namespace oonic::test {
namespace {

// The Req and Rsp Processors share the Bitmap Manager's port. Both frames arrive at
// cycle 100:
//   A, an OOO WRITE FSpot to QP 0x11 (256 B, 6 beats): parser 100..105, ready 110,
//     slot 110, hdr 112, ctx read at 112 (port 0) -> 113, check -> 114; bitmap 114..116
//     (locate, allocate, set = 3 cycles).
//   B, an empty OOO READ Response to QP 0x12 (58 B, 1 beat): parser 106, ready 111,
//     slot 111, hdr 112, ctx read at 112 takes port 1 -> 113, check -> 114: its bitmap
//     request at 114 waits for A until 117 — 3 stall cycles.
TEST(OrnicRx, BitmapPortContentionBetweenProcessors) {
  ornic::OrnicParams p;
  NicBench b(p);
  b.nic.add_qp(NicBench::qp(0, 256, 64));
  ornic::QpContext c2 = NicBench::qp(0, 256, 64);
  c2.qpn = 0x12;
  b.nic.add_qp(c2);
  ornic::ReadWqe rw;
  rw.start_psn = 50, rw.length = 512, rw.local_addr = 0x80000, rw.ooo = true;
  b.nic.add_read_wqe(0x12, rw);
  b.inject(100, request(wire::kOooWriteFSpot, 5, 256, 0x10500, 4096));
  wire::FrameSpec resp = request(wire::kOooReadResponse, 50, 0);
  resp.bth.dest_qp = 0x12;
  b.inject(100, resp);
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 2u);
  EXPECT_EQ(b.records[0].processed, 118u);  // A: bitmap done 117, context written 118
  EXPECT_EQ(b.records[1].parsed, 111u);
  EXPECT_EQ(b.nic.rx().bitmap_manager.port_stall_cycles(), 3u);
}

}  // namespace
}  // namespace oonic::test
