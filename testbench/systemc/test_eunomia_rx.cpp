// Exact cycle counts of Eunomia's receiver agent (nic.ordering: eunomia) inside the
// NIC, derived by hand from the documented defaults (docs/model/timing.md and the
// access sequence in model/eunomia/hd_bitmap_core.cpp):
//   clock 250 MHz, datapath 64 B, rx.parser.latency 4, Req Processor ii 4 / check 1,
//   SRAM read latency 1; Eunomia geometry from the QP window: rows of bitmap.block_bits
//   = 16 bits, cap nodes_per_qp x 16 = 320 bits (20 rows), metadata 8 + 20 = 28 blocks;
//   eunomia.master_array_blocks 1024, alloc_bits_per_cycle W = 64, 2048 QPs / 256 per
//   module = 8 modules (QP 0 is module 0's connection 0).
// An OOO WRITE FSpot with 256 B payload and Eunomia's 8-byte metadata is 338 B (6 beats,
// header 78 B = 2 words), so as for ORNIC (test_ornic_rx.cpp) a packet injected at c is
// parsed at c + 10, takes its slot, reads its header (2) and context (1), checks (1):
// the receiver agent is booked at c + 14. Then:
//   packet driver: conn_to_module_map read, 1 cycle;
//   memory controller bank: the module's cost c_m (one cycle per index access, per
//   master_array block read or written, per allocation-search cycle ceil(bits / W),
//   per allocation word marked);
//   context write-back: 1 (the packet is "processed").
// bitmap_cycles in a packet's record is 1 + c_m.
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "testbench/common/nic_bench.h"

namespace oonic::test {
namespace {

constexpr uint32_t kPmtu = 256;

ornic::OrnicParams eunomia_params() {
  ornic::OrnicParams p;
  p.nic.ordering = "eunomia";
  return p;
}

// An OOO WRITE FSpot (LastFSpot when last) of PSN psn of a WQE starting at PSN 0, with
// Eunomia's metadata: Head 0 and the last bit.
// Payload bytes distinct per PSN and offset, so a placement test sees a packet written
// to the wrong place.
uint8_t psn_byte(uint32_t psn, size_t i) {
  return static_cast<uint8_t>(psn * 53 + i * 7 + 1 + (i >> 8));
}
const uint8_t* psn_payload(uint32_t psn) {
  static std::map<uint32_t, std::vector<uint8_t>> bufs;
  std::vector<uint8_t>& b = bufs[psn];
  if (b.empty())
    for (size_t i = 0; i < 8192; ++i) b.push_back(psn_byte(psn, i));
  return b.data();
}

wire::FrameSpec eunomia_packet(uint32_t psn, uint32_t npsn, bool last = false) {
  wire::FrameSpec s = request(last ? wire::kOooWriteLastFSpot : wire::kOooWriteFSpot, psn, kPmtu,
                              0x10000 + uint64_t{psn} * kPmtu, npsn * kPmtu);
  s.payload = psn_payload(psn);
  s.bth.resv7 |= wire::kBthEunomiaMetaBit;
  s.eunomia.head = 0;
  s.eunomia.last = last;
  return s;
}

eunomia::HdBitmapCore& module0(NicBench& b) {
  return b.nic.rx().bitmap_manager.receiver_agent()->core().module(0);
}

uint64_t stat(NicBench& b, const std::string& s) {
  return b.stats.counter_value("nic0.rx.bitmap_manager.receiver_agent." + s);
}

// First OOO packet of a connection (PSN 5, ePSN 0) at cycle 100: the bitmap is created.
//   booked at 114; map read 114 -> module known at 115; bank 115..129 (c_m = 15):
//     metadata run of 28 blocks searched backward from the tail: found at 996, 28 bits
//     examined = 1 search cycle; marked: blocks 996..1023 lie in one 64-bit word = 1;
//     metadata_start_index write = 1;
//     row 0 first fit from the head: block 0, 1 bit examined = 1; marked = 1;
//     row 0's address entry written = 1; row 0's one block written (bit 5 set) = 1;
//     header written: Head 2 + Tail 2 + Last Seq 2 + Head BM 1 + sizes 1 = 8.
//   done at 130, processed (context written) at 131. DMA 131 + 2 -> PCIe at 133:
//   280 B = 17774 ps -> 549774 ps = cycle 138.
TEST(EunomiaRx, FirstOooPacketAllocatesMetadata) {
  NicBench b(eunomia_params());
  b.nic.add_qp(NicBench::qp(0, kPmtu, 64));
  b.inject(100, eunomia_packet(5, 64));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 1u);
  const auto& r = b.records[0];
  EXPECT_STREQ(to_string(r.verdict), "ooo");
  EXPECT_EQ(r.parsed, 110u);
  EXPECT_EQ(r.bitmap_cycles, 16u);
  EXPECT_EQ(r.locate_cycles, 0u);  // creation: no bitmap to locate
  EXPECT_EQ(r.processed, 131u);
  EXPECT_EQ(r.dma_done, 138u);
  EXPECT_EQ(r.blocks_held, 29u);  // 28 metadata + 1 row
  EXPECT_EQ(stat(b, "hd_bitmap.creations"), 1u);
  EXPECT_EQ(stat(b, "hd_bitmap.sacks"), 1u);
  EXPECT_EQ(stat(b, "memory_controller.metadata_allocations"), 1u);
  EXPECT_EQ(stat(b, "memory_controller.alloc_bits_scanned"), 29u);
  EXPECT_EQ(stat(b, "memory_controller.alloc_scan_cycles"), 2u);
  EXPECT_EQ(stat(b, "memory_controller.alloc_update_cycles"), 2u);
  EXPECT_EQ(stat(b, "memory_controller.busy_cycles"), 15u);
  // The metadata sits at the tail, row 0 at the head, Figure 7 fields as derived.
  const auto v = module0(b).view(0);
  ASSERT_TRUE(v.has_bitmap);
  EXPECT_EQ(v.dba, 996u);
  EXPECT_EQ(v.head, 0u);
  EXPECT_EQ(v.tail, 15u);
  EXPECT_EQ(v.circ_rows, 1u);
  EXPECT_EQ(v.dyn_rows, 0u);
  ASSERT_EQ(v.row_blocks.size(), 1u);
  EXPECT_EQ(v.row_blocks[0], 0u);
  // SRAM occupancy from the cycle the call is done.
  auto& mc = b.nic.rx().bitmap_manager.receiver_agent()->memory_controller;
  auto& pd = b.nic.rx().bitmap_manager.receiver_agent()->packet_driver;
  for (auto* occ : {&mc.master_array().occupancy(), &mc.block_alloc_bitmap().occupancy(),
                    &mc.metadata_start_index().occupancy(), &pd.conn_to_module_map().occupancy()})
    occ->finalize(1000);
  using P = std::pair<Cycle, int64_t>;
  EXPECT_EQ(mc.master_array().occupancy().points().at(0), (P{130, 29 * 16}));
  EXPECT_EQ(mc.block_alloc_bitmap().occupancy().points().at(0), (P{130, 29}));
  EXPECT_EQ(mc.metadata_start_index().occupancy().points().at(0), (P{130, 24}));
  EXPECT_EQ(pd.entry_bits(), 4u);  // 3 module bits + valid
  EXPECT_EQ(pd.conn_to_module_map().occupancy().points().at(0), (P{130, 4}));
  // The receiver SACKs the packet (Scheme Feedback, type SACK, PSN 5).
  int sacks = 0;
  for (const auto& f : b.port.sent)
    if (f->v.bth.opcode == wire::kSchemeFeedback &&
        f->v.feedback.type == wire::SchemeFeedback::kSack && f->v.feedback.psn[0] == 5)
      ++sacks;
  EXPECT_EQ(sacks, 1);
}

// Growth by a linear row: PSN 5 at 100 (as above), then PSN 20 (past Tail 15) at 200.
//   booked at 214; map 214 -> 215; bank 215..227 (c_m = 13):
//     locate 8: index 1, Head 2, Tail 2, Head BM 1, sizes 1, row 0's address 1 (the new
//     row's entry is relative to it);
//     row 1 first fit from the head: block 0 is used, block 1 free: 2 bits examined = 1;
//     marked = 1; its relative address entry written = 1; its block written (bit 4 set:
//     PSN 20 = Tail + 1 + 4) = 1; sizes written back (Dynamic Size 1) = 1.
//   done 228, processed 229.
TEST(EunomiaRx, GrowthByALinearRow) {
  NicBench b(eunomia_params());
  b.nic.add_qp(NicBench::qp(0, kPmtu, 64));
  b.inject(100, eunomia_packet(5, 64));
  b.inject(200, eunomia_packet(20, 64));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 2u);
  const auto& r = b.records[1];
  EXPECT_STREQ(to_string(r.verdict), "ooo");
  EXPECT_EQ(r.bitmap_cycles, 14u);
  EXPECT_EQ(r.locate_cycles, 8u);
  EXPECT_EQ(r.processed, 229u);
  EXPECT_EQ(r.blocks_held, 30u);
  EXPECT_EQ(stat(b, "hd_bitmap.linear_rows_added"), 1u);
  const auto v = module0(b).view(0);
  EXPECT_EQ(v.circ_rows, 1u);
  EXPECT_EQ(v.dyn_rows, 1u);
  EXPECT_EQ(v.tail, 15u);  // frozen while a linear part exists
  ASSERT_EQ(v.row_blocks.size(), 2u);
  EXPECT_EQ(v.row_blocks[1], 1u);
  EXPECT_EQ(module0(b).pending_psns(0), (std::vector<uint32_t>{5, 20}));
}

// A merge: PSN 1 (creates the bitmap), PSN 16 (linear row 1, bit 0), PSNs 2..15, then
// PSN 0 (Head) at 3000 flushes the circular part. Its call (booked at 3014, map -> 3015,
// bank 3015..3035, c_m = 21):
//   locate 8 (index, header 6, row 0's address);
//   scan: row 0's block read 1 (PSNs 1..15 set), cleared and written back 1 when the
//   scan leaves it; PSN 16 lies in linear row 1: its relative entry read 1, its block
//   read 1, bit 0 cleared, PSN 17 missing: written back 1 -> scan 5;
//   Head 17 > Tail 15 with a linear part: merge (Circular BM Size 2, Dynamic Size 0,
//   Head BM ID 1 / Index 1, Tail = 17 + 2 x 16 - 1 = 48);
//   Last Seq read 2 (unknown: no garbage collection);
//   write-back: Head 2, Tail 2, Head BM 1, sizes 1 = 6.
//   done 3036, processed 3037.
TEST(EunomiaRx, MergeWhenTheCircularPartIsFlushed) {
  NicBench b(eunomia_params());
  b.nic.add_qp(NicBench::qp(0, kPmtu, 64));
  b.inject(100, eunomia_packet(1, 64));
  b.inject(200, eunomia_packet(16, 64));
  for (uint32_t p = 2; p <= 15; ++p) b.inject(200 + 100 * p, eunomia_packet(p, 64));
  b.inject(3000, eunomia_packet(0, 64));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 17u);
  const auto& r = b.records.back();
  EXPECT_STREQ(to_string(r.verdict), "accepted");
  EXPECT_EQ(r.bitmap_cycles, 22u);
  EXPECT_EQ(r.locate_cycles, 8u);
  EXPECT_EQ(r.processed, 3037u);
  EXPECT_EQ(stat(b, "hd_bitmap.merges"), 1u);
  EXPECT_EQ(module0(b).merge_violations(), 0u);
  const auto v = module0(b).view(0);
  EXPECT_EQ(v.head, 17u);
  EXPECT_EQ(v.tail, 48u);
  EXPECT_EQ(v.circ_rows, 2u);
  EXPECT_EQ(v.dyn_rows, 0u);
  EXPECT_EQ(v.head_bm_id, 1u);
  EXPECT_EQ(v.head_bm_index, 1u);
  EXPECT_TRUE(module0(b).pending_psns(0).empty());
}

// Garbage collection: a 4-packet WQE arrives 1, 3 (last), 2, 0. PSN 0 at 1000 (booked
// 1014, map -> 1015, bank 1015..1030, c_m = 16):
//   locate 8; scan: row 0's block read 1 (PSNs 1..3 set), PSN 4 missing, written back 1;
//   Last Seq read 2 (= 3); Head 4 is past it: emptiness check reads row 0's block 1
//   (zero) -> free row 0 (1 allocation word) + free the metadata run (1 word) + NULL
//   the metadata_start_index entry 1; nothing written back.
//   done 1031, processed 1032. master_array, block_alloc_bitmap, metadata_start_index and
//   conn_to_module_map return to empty at 1031.
TEST(EunomiaRx, GarbageCollectionAtLastSeq) {
  NicBench b(eunomia_params());
  b.nic.add_qp(NicBench::qp(0, kPmtu, 64));
  b.inject(100, eunomia_packet(1, 4));
  b.inject(200, eunomia_packet(3, 4, /*last=*/true));
  b.inject(300, eunomia_packet(2, 4));
  b.inject(1000, eunomia_packet(0, 4));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 4u);
  const auto& r = b.records.back();
  EXPECT_EQ(r.bitmap_cycles, 17u);
  EXPECT_EQ(r.locate_cycles, 8u);
  EXPECT_EQ(r.processed, 1032u);
  EXPECT_EQ(r.blocks_held, 0u);
  EXPECT_EQ(stat(b, "hd_bitmap.garbage_collections"), 1u);
  EXPECT_FALSE(module0(b).view(0).has_bitmap);
  const auto& bank = b.nic.rx().bitmap_manager.receiver_agent()->core().bank(0);
  EXPECT_TRUE(bank.alloc_bitmap_empty());
  EXPECT_EQ(bank.used_blocks(), 0u);
  auto& mc = b.nic.rx().bitmap_manager.receiver_agent()->memory_controller;
  auto& pd = b.nic.rx().bitmap_manager.receiver_agent()->packet_driver;
  for (Sram* s : {&mc.master_array(), &mc.block_alloc_bitmap(), &mc.metadata_start_index(),
                  &pd.conn_to_module_map()}) {
    SCOPED_TRACE(s->name());
    s->occupancy().finalize(2000);
    ASSERT_FALSE(s->occupancy().points().empty());
    EXPECT_EQ(s->occupancy().points().back(), (std::pair<Cycle, int64_t>{1031, 0}));
  }
  // Host memory holds the whole WQE: 4 x 256 B at 0x10000, each packet at its PSN's place.
  std::vector<uint8_t> got(4 * kPmtu);
  b.memory.memory().read(0x10000, got.data(), got.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], psn_byte(i / kPmtu, i % kPmtu)) << i;
}

// A packet past the cap (320 bits from Head) is dropped and NACKed: PSN 5 creates the
// bitmap, PSN 400 cannot be tracked (locate: index + header = 7, no address read).
TEST(EunomiaRx, PacketBeyondTheCapIsNacked) {
  NicBench b(eunomia_params());
  b.nic.add_qp(NicBench::qp(0, kPmtu, 64));
  b.inject(100, eunomia_packet(5, 512));
  b.inject(200, eunomia_packet(400, 512));
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 2u);
  EXPECT_STREQ(to_string(b.records[1].verdict), "dropped");
  EXPECT_EQ(b.records[1].bitmap_cycles, 8u);
  EXPECT_EQ(stat(b, "hd_bitmap.nacks"), 1u);
  int nacks = 0;
  for (const auto& f : b.port.sent)
    if (f->v.bth.opcode == wire::kSchemeFeedback &&
        f->v.feedback.type == wire::SchemeFeedback::kNack && f->v.feedback.psn[0] == 400)
      ++nacks;
  EXPECT_EQ(nacks, 1);
}

}  // namespace
}  // namespace oonic::test

namespace oonic::test {
namespace {

// Eunomia's out-of-order SEND: a 3-packet SEND (PSNs 0..2, Head 0) arrives 2 (last), 1,
// 0. Each packet goes straight to the receive buffer at (PSN - Head) x PMTU; the
// message's completion (MSN 1, carried by the ACK) waits until Head passes Last Seq,
// i.e. until PSN 0 is in.
TEST(EunomiaRx, SendCompletionHeldUntilLastSeq) {
  NicBench b(eunomia_params());
  ornic::QpContext c = NicBench::qp(0, kPmtu, 64);
  c.recv_base = 0x40000, c.recv_count = 2, c.recv_bytes = 4096;
  b.nic.add_qp(c);
  const uint8_t ops[] = {wire::kSendLast, wire::kSendMiddle, wire::kSendFirst};
  const uint32_t psns[] = {2, 1, 0};
  for (int i = 0; i < 3; ++i) {
    wire::FrameSpec s = request(ops[i], psns[i], kPmtu);
    s.payload = psn_payload(psns[i]);
    s.bth.resv7 |= wire::kBthEunomiaMetaBit;
    s.eunomia.head = 0;
    s.eunomia.last = psns[i] == 2;
    b.inject(100 + 100 * i, s);
  }
  sc_core::sc_start();
  ASSERT_EQ(b.records.size(), 3u);
  EXPECT_STREQ(to_string(b.records[0].verdict), "ooo");
  EXPECT_STREQ(to_string(b.records[1].verdict), "ooo");
  EXPECT_STREQ(to_string(b.records[2].verdict), "accepted");
  EXPECT_EQ(b.stats.counter_value("nic0.rx.req_processor.messages"), 1u);
  EXPECT_EQ(stat(b, "hd_bitmap.garbage_collections"), 1u);
  // No ACK says the message is complete before PSN 0 was processed; one does after.
  const Cycle head_in = b.records[2].processed;
  int complete_acks = 0;
  for (const auto& f : b.port.sent) {
    if (f->v.bth.opcode != wire::kAcknowledge) continue;
    if (f->cycle < head_in) {
      EXPECT_EQ(f->v.aeth.msn, 0u) << "ACK at " << f->cycle;
    }
    if (f->v.aeth.msn == 1) {
      ++complete_acks;
      EXPECT_EQ(f->v.bth.psn, 2u);
    }
  }
  EXPECT_EQ(complete_acks, 1);
  // The data sits in the first receive buffer, in PSN order (PSN p at p x PMTU although
  // PSN 2 arrived first and took the buffer); the second buffer is untouched.
  std::vector<uint8_t> got(3 * kPmtu + 1);
  b.memory.memory().read(0x40000, got.data(), got.size());
  for (size_t i = 0; i < 3 * kPmtu; ++i) ASSERT_EQ(got[i], psn_byte(i / kPmtu, i % kPmtu)) << i;
  EXPECT_EQ(got[3 * kPmtu], 0);
}

}  // namespace
}  // namespace oonic::test
