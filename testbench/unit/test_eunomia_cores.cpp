// Unit tests of Eunomia's memory controller and HD bitmap module
// (model/eunomia/memory_controller_core.h, model/eunomia/hd_bitmap_core.h).
//
// Hand cases pin the cost model exactly; every expected number is derived in a comment
// from the headers' tables:
//   controller: index entry access 1 | master_array block read or write 1 (a 4-byte field
//   = 2 blocks; Head BM ID+Index one block, the two sizes one block) | search ceil(bits
//   examined / W) | mark or free: 1 per aligned W-bit allocation-bitmap word touched.
//   module: locate = index 1 + header 6 (Head 2, Tail 2, Head BM 1, sizes 1) + row address
//   (row 0: 1; other rows: relative entry + row 0's entry = 2); creation: locate 0, header
//   written whole (8) + address entry 0 (1) + row 0's blocks.
// Property tests replay thousands of seeded arrival orders (windowed shuffle, many
// connections sharing one controller, with and without loss + retransmission) against an
// independent logical reference (per-PSN received flags, Head/Tail/row counts), checking
// verdicts, feedback, locate costs, merges, garbage collection and the invariants after
// every call.
#include <gtest/gtest.h>

#include "testbench/common/arrival_orders.h"
#include "testbench/common/ordering_checks.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/eunomia/hd_bitmap_core.h"
#include "model/eunomia/memory_controller_core.h"
#include "model/wire/roce.h"

namespace {

using oonic::eunomia::Cost;
using oonic::eunomia::HdBitmapCore;
using oonic::eunomia::MemoryControllerCore;
using oonic::ordering::Feedback;
using oonic::ordering::Outcome;
using oonic::ordering::PacketMeta;
using oonic::ordering::Verdict;
using oonic::wire::psn_add;
using oonic::wire::psn_diff;
using Mc = MemoryControllerCore;

Mc::Params McParams(uint32_t blocks, uint32_t conns, uint32_t meta, uint32_t w) {
  Mc::Params p;
  p.blocks = blocks;
  p.max_connections = conns;
  p.metadata_blocks = meta;
  p.alloc_bits_per_cycle = w;
  return p;
}

HdBitmapCore::Params HdParams(uint32_t b = 16, uint32_t cap = 256, uint32_t blocks = 1024,
                              uint32_t conns = 8, uint32_t meta = 24, uint32_t w = 64) {
  HdBitmapCore::Params p;
  p.block_bits = b;
  p.max_bitmap_bits = cap;
  p.memory = McParams(blocks, conns, meta, w);
  return p;
}

::testing::AssertionResult McOk(const Mc& mc) {
  std::string why;
  if (mc.check_invariants(&why)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "controller invariant violated: " << why;
}

using oonic::test::Invariants;  // testbench/common/ordering_checks.h

PacketMeta Last() {
  PacketMeta m;
  m.last = true;
  return m;
}

PacketMeta WithHead(uint32_t head, bool last = false) {
  PacketMeta m;
  m.has_head = true;
  m.head = head;
  m.last = last;
  return m;
}

void Feed(HdBitmapCore& bm, uint32_t qp, std::initializer_list<uint32_t> psns) {
  for (uint32_t p : psns) {
    Outcome o = bm.receive(qp, p);
    ASSERT_TRUE(o.verdict == Verdict::kInOrder || o.verdict == Verdict::kOutOfOrder)
        << "psn " << p << " verdict " << to_string(o.verdict);
    ASSERT_TRUE(Invariants(bm));
  }
}

// ---------------------------------------------------------------------------------------
// Memory controller
// ---------------------------------------------------------------------------------------

TEST(EunomiaMcAlloc, MetadataFromTheTailBitmapFromTheHead) {
  Mc mc(McParams(64, 4, 10, 8));
  EXPECT_TRUE(mc.alloc_bitmap_empty());
  Cost c;
  uint32_t dba = 0;
  // Backward from block 63: 63..54 free -> run of 10 reached at 54; 10 bits examined ->
  // ceil(10/8) = 2 cycles; mark 54..63 touches words 6 (48..55) and 7 -> 2; index write 1.
  ASSERT_TRUE(mc.alloc_metadata(0, &dba, &c));
  EXPECT_EQ(dba, 54u);
  EXPECT_EQ(c.alloc_bits_scanned, 10u);
  EXPECT_EQ(c.alloc_scan_cycles, 2u);
  EXPECT_EQ(c.alloc_update_cycles, 2u);
  EXPECT_EQ(c.index_accesses, 1u);
  EXPECT_EQ(c.cycles(), 5u);
  EXPECT_EQ(mc.read_dba(0, nullptr), 54u);
  EXPECT_EQ(mc.read_dba(1, nullptr), Mc::kNullDba);
  // Reading the index costs 1.
  Cost r;
  EXPECT_EQ(mc.read_dba(0, &r), 54u);
  EXPECT_EQ(r.cycles(), 1u);
  // A second metadata for the same connection is refused.
  EXPECT_FALSE(mc.alloc_metadata(0, &dba, nullptr));

  // Bitmap block: first fit from block 0; 1 bit examined -> 1 cycle; mark word 0 -> 1.
  Cost b;
  uint32_t blk = 99;
  ASSERT_TRUE(mc.alloc_bitmap(0, 1, &blk, &b));
  EXPECT_EQ(blk, 0u);
  EXPECT_EQ(b.alloc_bits_scanned, 1u);
  EXPECT_EQ(b.cycles(), 2u);

  // Second connection: 63..54 used (10 examined) then 53..44 free: run of 10 at 44 ->
  // 20 bits examined, ceil(20/8) = 3; mark 44..53: words 5 and 6 -> 2; index 1.
  Cost c1;
  ASSERT_TRUE(mc.alloc_metadata(1, &dba, &c1));
  EXPECT_EQ(dba, 44u);
  EXPECT_EQ(c1.alloc_bits_scanned, 20u);
  EXPECT_EQ(c1.cycles(), 3u + 2u + 1u);

  // Occupancy: bitmap 1 block, metadata 20 blocks, 3 B per index entry.
  EXPECT_EQ(mc.bitmap_blocks_used(), 1u);
  EXPECT_EQ(mc.metadata_blocks_used(), 20u);
  EXPECT_EQ(mc.used_bytes(), 42u);
  EXPECT_EQ(mc.bitmap_bytes_used(), 2u);
  EXPECT_EQ(mc.metadata_bytes_used(), 40u);
  EXPECT_EQ(mc.index_entries_used(), 2u);
  EXPECT_EQ(mc.index_bytes_used(), 6u);
  EXPECT_EQ(mc.master_array_bytes(), 128u);
  EXPECT_EQ(mc.alloc_bitmap_bytes(), 8u);
  EXPECT_EQ(mc.index_table_bytes(), 12u);
  ASSERT_TRUE(McOk(mc));

  // Free conn 0's bitmap block (word 0: 1) and metadata: words 6 and 7 -> 2, index write
  // 1. The run nearest the tail (54..63) is found again: 10 bits examined.
  Cost f;
  mc.free_bitmap(0, 1, &f);
  EXPECT_EQ(f.cycles(), 1u);
  f = Cost{};
  mc.free_metadata(0, &f);
  EXPECT_EQ(f.cycles(), 3u);
  EXPECT_EQ(mc.read_dba(0, nullptr), Mc::kNullDba);
  Cost c2;
  ASSERT_TRUE(mc.alloc_metadata(2, &dba, &c2));
  EXPECT_EQ(dba, 54u);
  EXPECT_EQ(c2.alloc_bits_scanned, 10u);
  EXPECT_EQ(mc.peak_metadata_blocks(), 20u);
  EXPECT_EQ(mc.peak_bitmap_blocks(), 1u);
  EXPECT_EQ(mc.peak_used_blocks(), 21u);
  ASSERT_TRUE(McOk(mc));
}

TEST(EunomiaMcAlloc, BackwardSearchSkipsShortHoles) {
  Mc mc(McParams(32, 4, 8, 8));
  uint32_t dba = 0, blk = 0;
  ASSERT_TRUE(mc.alloc_metadata(0, &dba, nullptr));  // 24..31
  EXPECT_EQ(dba, 24u);
  for (uint32_t i = 0; i < 24; ++i) {
    Cost c;
    ASSERT_TRUE(mc.alloc_bitmap(0, 1, &blk, &c));
    EXPECT_EQ(blk, i);
    // First fit: i+1 bits examined.
    EXPECT_EQ(c.alloc_scan_cycles, (i + 1 + 7) / 8);
  }
  EXPECT_EQ(mc.free_blocks(), 0u);
  for (uint32_t b = 20; b < 24; ++b) mc.free_bitmap(b, 1, nullptr);  // hole of 4 at 20..23
  for (uint32_t b = 2; b < 10; ++b) mc.free_bitmap(b, 1, nullptr);   // hole of 8 at 2..9
  ASSERT_TRUE(McOk(mc));
  // Backward from 31: 31..24 used (8), 23..20 free (run 4, too short), 19..10 used (10),
  // 9..2 free: run of 8 reached at 2 -> 30 bits examined, ceil(30/8) = 4 cycles; mark
  // 2..9: words 0 and 1 -> 2; index 1.
  Cost c;
  ASSERT_TRUE(mc.alloc_metadata(1, &dba, &c));
  EXPECT_EQ(dba, 2u);
  EXPECT_EQ(c.alloc_bits_scanned, 30u);
  EXPECT_EQ(c.cycles(), 4u + 2u + 1u);
  // No run of 8 left: the failed search examined all 32 bits (4 cycles), nothing changed.
  Cost fail;
  EXPECT_FALSE(mc.alloc_metadata(2, &dba, &fail));
  EXPECT_EQ(fail.alloc_bits_scanned, 32u);
  EXPECT_EQ(fail.cycles(), 4u);
  EXPECT_EQ(mc.read_dba(2, nullptr), Mc::kNullDba);
  // First fit of a bitmap block finds the short hole: 21 bits examined -> 3 cycles.
  Cost b;
  ASSERT_TRUE(mc.alloc_bitmap(0, 1, &blk, &b));
  EXPECT_EQ(blk, 20u);
  EXPECT_EQ(b.alloc_scan_cycles, 3u);
  // Two consecutive blocks: 21..23 free -> first fit at 21 (0..22: 23 bits examined).
  Cost b2;
  ASSERT_TRUE(mc.alloc_bitmap(0, 2, &blk, &b2));
  EXPECT_EQ(blk, 21u);
  EXPECT_EQ(b2.alloc_bits_scanned, 23u);
  ASSERT_TRUE(McOk(mc));
  EXPECT_FALSE(mc.alloc_bitmap(0, 2, &blk, nullptr));  // only block 23 left
}

TEST(EunomiaMcLayout, FieldsAreBytesInMasterArray) {
  Mc mc(McParams(64, 4, 24, 64));
  uint32_t dba = 0;
  ASSERT_TRUE(mc.alloc_metadata(3, &dba, nullptr));
  EXPECT_EQ(dba, 40u);
  Cost w;
  mc.write_head(dba, 0x00ABCDEFu, &w);           // 2 blocks
  mc.write_tail(dba, 0x00ABCDFEu, &w);           // 2
  mc.write_last_seq(dba, Mc::kLastUnknown, &w);  // 2
  mc.write_head_bm(dba, 3, 9, &w);               // 1 (one block: ID low byte, Index high byte)
  mc.write_sizes(dba, 2, 5, &w);                 // 1
  mc.write_row_addr(dba, 0, 17, &w);             // 1
  mc.write_row_addr(dba, 6, 0xFFFE, &w);         // 1 (relative: -2 mod 2^16)
  EXPECT_EQ(w.meta_writes, 10u);
  EXPECT_EQ(w.cycles(), 10u);
  // Little-endian fields at Figure 7 offsets.
  EXPECT_EQ(mc.read_block(dba + 0, true, nullptr), 0xCDEFu);
  EXPECT_EQ(mc.read_block(dba + 1, true, nullptr), 0x00ABu);
  EXPECT_EQ(mc.read_block(dba + 2, true, nullptr), 0xCDFEu);
  EXPECT_EQ(mc.read_block(dba + 4, true, nullptr), 0xFFFFu);
  EXPECT_EQ(mc.read_block(dba + 6, true, nullptr), 0x0903u);
  EXPECT_EQ(mc.read_block(dba + 7, true, nullptr), 0x0502u);
  EXPECT_EQ(mc.read_block(dba + 8, true, nullptr), 17u);
  EXPECT_EQ(mc.read_block(dba + 14, true, nullptr), 0xFFFEu);
  Cost r;
  EXPECT_EQ(mc.read_head(dba, &r), 0x00ABCDEFu);
  EXPECT_EQ(mc.read_tail(dba, &r), 0x00ABCDFEu);
  EXPECT_EQ(mc.read_last_seq(dba, &r), Mc::kLastUnknown);
  uint8_t a = 0, b = 0;
  mc.read_head_bm(dba, &a, &b, &r);
  EXPECT_EQ(a, 3u);
  EXPECT_EQ(b, 9u);
  mc.read_sizes(dba, &a, &b, &r);
  EXPECT_EQ(a, 2u);
  EXPECT_EQ(b, 5u);
  EXPECT_EQ(mc.read_row_addr(dba, 6, &r), 0xFFFEu);
  EXPECT_EQ(r.meta_reads, 9u);
  EXPECT_EQ(r.cycles(), 9u);
  // Past the run: an error, not a silent write into the neighbour.
  EXPECT_THROW(mc.write_row_addr(dba, 16, 0, nullptr), std::out_of_range);
  // Reset on completion: blocks free, data kept.
  mc.free_metadata(3, nullptr);
  EXPECT_TRUE(mc.alloc_bitmap_empty());
  EXPECT_EQ(mc.used_blocks(), 0u);
  EXPECT_EQ(mc.read_block(dba, true, nullptr), 0xCDEFu);
  ASSERT_TRUE(McOk(mc));
}

TEST(EunomiaMcAlloc, RejectsBadParams) {
  auto make = [](uint32_t blocks, uint32_t conns, uint32_t meta, uint32_t w) {
    Mc mc(McParams(blocks, conns, meta, w));
    return mc.free_blocks();
  };
  EXPECT_THROW(make(0, 4, 8, 64), std::invalid_argument);
  EXPECT_THROW(make(65536, 4, 8, 64), std::invalid_argument);
  EXPECT_THROW(make(64, 0, 8, 64), std::invalid_argument);
  EXPECT_THROW(make(64, 257, 8, 64), std::invalid_argument);
  EXPECT_THROW(make(64, 4, 7, 64), std::invalid_argument);
  EXPECT_THROW(make(64, 4, 65, 64), std::invalid_argument);
  EXPECT_THROW(make(64, 4, 8, 0), std::invalid_argument);
  EXPECT_EQ(make(65535, 256, 24, 64), 65535u);
  auto hd = [](const HdBitmapCore::Params& p) {
    HdBitmapCore bm(p);
    return bm.max_rows();
  };
  EXPECT_THROW(hd(HdParams(8)), std::invalid_argument);        // B < 16
  EXPECT_THROW(hd(HdParams(24)), std::invalid_argument);       // not 16k
  EXPECT_THROW(hd(HdParams(16, 250)), std::invalid_argument);  // cap % B
  EXPECT_THROW(hd(HdParams(16, 512)), std::invalid_argument);  // 8 + 32 > 24
  EXPECT_EQ(hd(HdParams(16, 512, 1024, 8, 40)), 32u);
  EXPECT_THROW(hd(HdParams(16, 256 * 16, 8192, 8, 300)), std::invalid_argument);  // R > 255
}

// ---------------------------------------------------------------------------------------
// HD bitmap: hand cases with exact costs
// ---------------------------------------------------------------------------------------

TEST(EunomiaHdCost, InOrderWithoutBitmapIsFree) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 100, 0);
  Outcome o = bm.receive(0, 100);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(o.epsn, 101u);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(o.blocks_held, 0u);
  // Below ePSN: duplicate, re-ACK, 0 cycles.
  o = bm.receive(0, 99);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm.controller().used_blocks(), 0u);
  EXPECT_STREQ(bm.name(), "eunomia");
}

TEST(EunomiaHdCost, FirstOutOfOrderPacketCreatesTheBitmap) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 100, 0);
  bm.open(1, 0, 0);
  bm.open(2, 0, 0);
  // psn 105, ePSN 100: creation.
  //   metadata, backward from block 1023: run of 24 at 1000 -> 24 bits examined,
  //     ceil(24/64) = 1 cycle; mark 1000..1023 (word 15) 1; index write 1      = 3
  //   row 0, forward: block 0, 1 bit examined -> 1; mark word 0 -> 1            = 2
  //   address entry 0 (absolute 0): 1 metadata write                             = 1
  //   row 0: one bitmap write (bit 5 set; fresh row, no read)                    = 1
  //   header: Head 2 + Tail 2 + Last Seq 2 + Head BM 1 + sizes 1                 = 8
  //   = 15 cycles; locate 0; node accesses = 1 index + 9 metadata writes; 1 block access.
  Outcome o = bm.receive(0, 105);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_EQ(o.sack_psn, 105u);
  EXPECT_EQ(o.epsn, 100u);
  EXPECT_FALSE(o.head_advanced);
  EXPECT_COST(o, 15, 0, 10, 1);
  const auto& d = bm.last_detail();
  EXPECT_TRUE(d.created);
  EXPECT_EQ(d.cost.alloc_bits_scanned, 25u);
  EXPECT_EQ(d.cost.alloc_scan_cycles, 2u);
  EXPECT_EQ(d.cost.alloc_update_cycles, 2u);
  EXPECT_EQ(d.cost.meta_writes, 9u);
  EXPECT_EQ(o.blocks_held, 25u);  // 1 row + 24 metadata blocks
  EXPECT_EQ(o.blocks_delta, 25);
  EXPECT_EQ(bm.bitmap_blocks_held(0), 1u);
  EXPECT_EQ(bm.metadata_blocks_held(0), 24u);
  auto v = bm.view(0);
  EXPECT_TRUE(v.has_bitmap);
  EXPECT_EQ(v.dba, 1000u);
  EXPECT_EQ(v.head, 100u);
  EXPECT_EQ(v.tail, 115u);
  EXPECT_EQ(v.last_seq, Mc::kLastUnknown);
  EXPECT_EQ(v.circ_rows, 1u);
  EXPECT_EQ(v.dyn_rows, 0u);
  EXPECT_EQ(v.head_bm_id, 0u);
  EXPECT_EQ(v.head_bm_index, 0u);
  ASSERT_EQ(v.row_blocks.size(), 1u);
  EXPECT_EQ(v.row_blocks[0], 0u);
  EXPECT_EQ(bm.controller().read_block(0, false, nullptr), 1u << 5);
  EXPECT_EQ(bm.pending_psns(0), std::vector<uint32_t>{105});
  ASSERT_TRUE(Invariants(bm));

  // Connection 1: metadata run at 976 (48 bits examined: still 1 cycle); row at block 1
  // (2 bits examined: 1). Same 15 cycles.
  o = bm.receive(1, 3);
  EXPECT_COST(o, 15, 0, 10, 1);
  EXPECT_EQ(bm.view(1).dba, 976u);
  EXPECT_EQ(bm.view(1).row_blocks[0], 1u);
  // Connection 2: run at 952 -> 72 bits examined, ceil(72/64) = 2 cycles; mark 952..975
  // touches words 14 and 15 -> 2. 17 cycles.
  o = bm.receive(2, 3);
  EXPECT_COST(o, 17, 0, 10, 1);
  EXPECT_EQ(bm.view(2).dba, 952u);
  EXPECT_EQ(bm.last_detail().cost.alloc_bits_scanned, 72u + 3u);
  EXPECT_EQ(bm.controller().metadata_blocks_used(), 72u);
  EXPECT_EQ(bm.controller().bitmap_blocks_used(), 3u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, OutOfOrderInTheCircularRowAndDuplicates) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 100, 0);
  Feed(bm, 0, {105});
  // psn 107: locate = index 1 + header 6 + row 0's address 1 = 8; read the block 1, write
  // it 1 = 10 cycles. node accesses 8 (index + 7 metadata reads), block accesses 2.
  Outcome o = bm.receive(0, 107);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_COST(o, 10, 8, 8, 2);
  EXPECT_EQ(o.blocks_delta, 0);
  // Duplicate of a tracked packet: locate 8 + block read 1 = 9; SACKed again.
  o = bm.receive(0, 107);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_COST(o, 9, 8, 8, 1);
  // Last bit on a tracked packet: + Last Seq read 2 + write 2 (unknown before) = 14.
  o = bm.receive(0, 109, Last());
  EXPECT_COST(o, 14, 8, 12, 2);
  EXPECT_EQ(bm.view(0).last_seq, 109u);
  // An earlier last (lower PSN) does not replace it: read 2, no write -> 12.
  o = bm.receive(0, 108, Last());
  EXPECT_COST(o, 12, 8, 10, 2);
  EXPECT_EQ(bm.view(0).last_seq, 109u);
  EXPECT_EQ(bm.pending_psns(0), (std::vector<uint32_t>{105, 107, 108, 109}));
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, GrowthByLinearRows) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 100, 0);
  Feed(bm, 0, {105});  // Head 100, Tail 115, row 0 = block 0
  // psn 120 > Tail: linear position 120 - 116 = 4 -> linear row 0 (address entry 1) does
  // not exist yet. locate = index 1 + header 6 + row 0's entry 1 (new entries are relative
  // to it) = 8; new row: first fit block 1 (2 bits examined: 1) + mark 1 = 2; entry 1 =
  // 1 - 0 written 1; the row written with bit 4 1; sizes written back 1 = 13 cycles.
  Outcome o = bm.receive(0, 120);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.feedback, Feedback::kSack);
  EXPECT_COST(o, 13, 8, 10, 1);
  EXPECT_EQ(bm.last_detail().rows_added, 1u);
  EXPECT_EQ(o.blocks_delta, 1);
  auto v = bm.view(0);
  EXPECT_EQ(v.circ_rows, 1u);
  EXPECT_EQ(v.dyn_rows, 1u);
  EXPECT_EQ(v.tail, 115u);  // frozen while a linear part exists
  EXPECT_EQ(bm.controller().read_row_addr(v.dba, 1, nullptr), 1u);
  // psn 125: existing linear row (entry 1): locate 7 + entry 1 + entry 0 = 9; read +
  // write = 11 cycles.
  o = bm.receive(0, 125);
  EXPECT_COST(o, 11, 9, 9, 2);
  EXPECT_EQ(bm.last_detail().rows_added, 0u);
  // psn 155: linear position 39 -> linear row 2: rows 1 and 2 added in one call.
  //   locate 8; block 2 (3 bits examined) 1 + mark 1; block 3 (4 bits) 1 + mark 1;
  //   entries 2 and 3 written 2; row blocks written 2 (zeros / bit 7); sizes 1 = 17.
  o = bm.receive(0, 155);
  EXPECT_COST(o, 17, 8, 11, 2);
  EXPECT_EQ(bm.last_detail().rows_added, 2u);
  EXPECT_EQ(bm.view(0).dyn_rows, 3u);
  EXPECT_EQ(o.blocks_held, 24u + 4u);
  EXPECT_EQ(bm.pending_psns(0), (std::vector<uint32_t>{105, 120, 125, 155}));
  ASSERT_TRUE(Invariants(bm));

  // The cap: R = 16 rows; with C = 1 the linear part may have 15 rows: PSNs up to
  // 116 + 15*16 - 1 = 355. psn 356 -> row 17 -> dropped and NACKed after index + header
  // (7 cycles, no address read).
  o = bm.receive(0, 356);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_COST(o, 7, 7, 7, 0);
  EXPECT_EQ(o.blocks_delta, 0);
  // psn 355: linear row 14 -> rows 3..14 added (12 rows, blocks 4..15: 5..16 bits examined,
  // 1 cycle each + 1 mark each = 24); locate 8; 12 entries + 12 row blocks; sizes 1
  // = 8 + 24 + 12 + 12 + 1 = 57.
  o = bm.receive(0, 355);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_COST(o, 57, 8, 8 + 13, 12);
  EXPECT_EQ(bm.view(0).dyn_rows, 15u);
  EXPECT_EQ(bm.blocks_held(0), 24u + 16u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, InOrderAdvanceWithinTheRing) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {1, 2, 5});
  // psn 0 == Head: locate 8 (Head's row 0); scan: block 0 read 1 (bits 1, 2 cleared, 3
  // missing), written back 1; Last Seq read 2 (unknown: no GC); write back Head 2, Tail 2
  // (ring slides: Tail = 3 + 15 = 18), Head BM 1 = 17 cycles.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.feedback, Feedback::kAck);
  EXPECT_TRUE(o.head_advanced);
  EXPECT_EQ(o.epsn, 3u);
  EXPECT_COST(o, 17, 8, 8 + 2 + 5, 2);
  auto v = bm.view(0);
  EXPECT_EQ(v.head, 3u);
  EXPECT_EQ(v.tail, 18u);
  EXPECT_EQ(v.head_bm_index, 3u);
  // psn 3: bit 3 (own), bit 4 missing: block read 1, nothing cleared -> no write.
  //   8 + 1 + 2 + 5 = 16 cycles.
  o = bm.receive(0, 3);
  EXPECT_COST(o, 16, 8, 15, 1);
  EXPECT_EQ(o.epsn, 4u);
  // psn 17 maps to ring position 1 (wraps: Head 4 at position 4, 17 - 4 = 13 -> 17 % 16).
  Feed(bm, 0, {17, 18});
  EXPECT_EQ(bm.receive(0, 20).verdict, Verdict::kOutOfOrder);  // beyond Tail 19: grows
  EXPECT_EQ(bm.view(0).dyn_rows, 1u);
  EXPECT_EQ(bm.view(0).tail, 19u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, MergeWhenTheCircularPartIsFlushed) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {3, 20});  // create (Head 0, Tail 15), then linear row for 20 (bit 4)
  Feed(bm, 0, {1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_EQ(bm.merges(), 0u);
  // psn 0: locate 8 (row 0); scan: row 0's block read 1 (bits 1..15 cleared); PSN 16 is
  // linear row 0 (entry 1): relative entry read 1; row 0's block written back 1 (changed);
  // entry 1's block read 1 (bit 0 clear: stop; unchanged, no write) -> scan 4.
  // Head 16 > Tail 15 with a linear part: merge -> C = 2, L = 0, Head BM = position
  // 16 + 0 = row 1 bit 0, Tail = 16 + 32 - 1 = 47. Last Seq read 2 (unknown).
  // Write back: Head 2, Tail 2, Head BM 1, sizes 1 = 6. Total 8 + 4 + 2 + 6 = 20.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.epsn, 16u);
  EXPECT_COST(o, 20, 8, 1 + 10 + 6, 3);
  EXPECT_TRUE(bm.last_detail().merged);
  EXPECT_EQ(bm.merges(), 1u);
  EXPECT_EQ(bm.merge_violations(), 0u);
  auto v = bm.view(0);
  EXPECT_EQ(v.circ_rows, 2u);
  EXPECT_EQ(v.dyn_rows, 0u);
  EXPECT_EQ(v.head, 16u);
  EXPECT_EQ(v.tail, 47u);
  EXPECT_EQ(v.head_bm_id, 1u);
  EXPECT_EQ(v.head_bm_index, 0u);
  EXPECT_EQ(o.blocks_delta, 0);  // rows are kept: merged, not freed
  EXPECT_EQ(bm.pending_psns(0), std::vector<uint32_t>{20});
  // The old circular row is reused for 32..47: psn 47 -> ring position (16 + 31) % 32 = 15
  // -> row 0 bit 15. No growth.
  o = bm.receive(0, 47);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(bm.last_detail().rows_added, 0u);
  EXPECT_EQ(bm.controller().read_block(v.row_blocks[0], false, nullptr), 1u << 15);
  // psn 48 is past Tail: a new linear row (entry 2).
  o = bm.receive(0, 48);
  EXPECT_EQ(bm.last_detail().rows_added, 1u);
  EXPECT_EQ(bm.view(0).dyn_rows, 1u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, MergeAfterHeadRunsThroughTheWholeLinearPart) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {1});
  for (uint32_t p = 2; p < 48; ++p) Feed(bm, 0, {p});  // rows: ring 0..15, linear 16..47
  EXPECT_EQ(bm.view(0).dyn_rows, 2u);
  // psn 0: Head runs to 48 = Tail + 2*16 + 1: past the linear part (stops without a read).
  // Merge: C = 3, position (16 + 32) % 48 = 0 -> Head BM row 0 bit 0, Tail = 48 + 47.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.epsn, 48u);
  EXPECT_TRUE(bm.last_detail().merged);
  auto v = bm.view(0);
  EXPECT_EQ(v.circ_rows, 3u);
  EXPECT_EQ(v.head_bm_id, 0u);
  EXPECT_EQ(v.head_bm_index, 0u);
  EXPECT_EQ(v.tail, 95u);
  EXPECT_TRUE(bm.pending_psns(0).empty());
  EXPECT_EQ(bm.merge_violations(), 0u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, GarbageCollectionAtLastSeq) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {2, 1});
  Outcome o = bm.receive(0, 3, Last());  // Last Seq = 3
  EXPECT_EQ(bm.view(0).last_seq, 3u);
  // psn 0: locate 8; scan: block read 1, bits 1..3 cleared, bit 4 missing -> write 1;
  // Last Seq read 2: Head 4 > 3 -> emptiness check: row 0 (address known) block read 1 ->
  // empty -> GC: free row 0 (word 0) 1, free metadata (word 15) 1 + index write 1.
  // No header write-back. 8 + 2 + 2 + 1 + 3 = 16 cycles.
  o = bm.receive(0, 0);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.epsn, 4u);
  EXPECT_COST(o, 16, 8, 1 + 9 + 1, 3);
  EXPECT_TRUE(bm.last_detail().gc);
  EXPECT_EQ(bm.garbage_collections(), 1u);
  EXPECT_EQ(o.blocks_held, 0u);
  EXPECT_EQ(o.blocks_delta, -25);
  EXPECT_FALSE(bm.view(0).has_bitmap);
  const Mc& mc = bm.controller();
  EXPECT_EQ(mc.used_blocks(), 0u);
  EXPECT_TRUE(mc.alloc_bitmap_empty());
  EXPECT_EQ(mc.index_entries_used(), 0u);
  EXPECT_EQ(mc.read_dba(0, nullptr), Mc::kNullDba);
  // Data is not erased: the old Last Seq is still in master_array.
  EXPECT_EQ(mc.read_last_seq(1000, nullptr), 3u);
  ASSERT_TRUE(Invariants(bm));
  // Back on the fast path.
  o = bm.receive(0, 4);
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_COST(o, 0, 0, 0, 0);
  // A new bitmap reuses the same blocks; its row is written fresh (stale bits gone).
  o = bm.receive(0, 9);
  EXPECT_TRUE(bm.last_detail().created);
  EXPECT_EQ(bm.view(0).dba, 1000u);
  EXPECT_EQ(bm.view(0).head, 5u);
  EXPECT_EQ(bm.pending_psns(0), std::vector<uint32_t>{9});
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, GarbageCollectionWaitsForLaterMessages) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {1, 5});
  ASSERT_EQ(bm.receive(0, 2, Last()).verdict, Verdict::kOutOfOrder);  // message 1: 0..2
  // psn 0: Head -> 3, past Last Seq 2, but 5 (message 2) is pending: not freed; Last Seq
  // becomes unknown: locate 8 + block read 1 + write 1 + Last read 2 + emptiness (row 0
  // block read 1: non-zero) + write back Head 2, Tail 2, Head BM 1, Last Seq 2 = 20.
  Outcome o = bm.receive(0, 0);
  EXPECT_EQ(o.epsn, 3u);
  EXPECT_FALSE(bm.last_detail().gc);
  EXPECT_COST(o, 20, 8, 1 + 9 + 7, 3);
  EXPECT_EQ(bm.view(0).last_seq, Mc::kLastUnknown);
  ASSERT_EQ(bm.receive(0, 7, Last()).verdict, Verdict::kOutOfOrder);  // message 2: 3..7
  Feed(bm, 0, {3, 4, 6});
  EXPECT_EQ(bm.epsn(0), 8u);
  EXPECT_TRUE(bm.last_detail().gc);
  EXPECT_EQ(bm.controller().used_blocks(), 0u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, InOrderLastPacketTriggersGc) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  Feed(bm, 0, {1});
  // psn 0 carries the last bit itself (a one-packet "message" 0 ends here): Last Seq = 0
  // (written), Head -> 2 > 0 -> emptiness: empty -> GC.
  Outcome o = bm.receive(0, 0, Last());
  EXPECT_EQ(o.epsn, 2u);
  EXPECT_TRUE(bm.last_detail().gc);
  EXPECT_FALSE(bm.view(0).has_bitmap);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, FirstPacketHeadMetadata) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);  // transport does not know the start: the Head metadata tells
  Outcome o = bm.receive(0, 505, WithHead(500));
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.epsn, 500u);
  EXPECT_EQ(bm.view(0).head, 500u);
  EXPECT_EQ(bm.view(0).tail, 515u);
  // Later Head metadata is not used to move ePSN.
  o = bm.receive(0, 506, WithHead(0));
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(o.epsn, 500u);
  // The very first packet in order with its Head: no bitmap.
  bm.open(1, 0, 0);
  o = bm.receive(1, 700, WithHead(700));
  EXPECT_EQ(o.verdict, Verdict::kInOrder);
  EXPECT_EQ(o.epsn, 701u);
  EXPECT_FALSE(bm.view(1).has_bitmap);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdDrop, BeyondTheCapAtCreation) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0, 0);
  // 256 PSNs ahead of ePSN: would need a 17th row -> NACK, nothing created, 0 cycles.
  Outcome o = bm.receive(0, 256);
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_COST(o, 0, 0, 0, 0);
  EXPECT_EQ(bm.controller().used_blocks(), 0u);
  // 255: created with row 0 and 15 linear rows at once (the whole cap).
  o = bm.receive(0, 255);
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_TRUE(bm.last_detail().created);
  EXPECT_EQ(bm.last_detail().rows_added, 15u);
  EXPECT_EQ(o.blocks_held, 24u + 16u);
  EXPECT_EQ(bm.pending_psns(0), std::vector<uint32_t>{255});
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdDrop, FrozenTailShrinksTheReach) {
  // The ring is not reused behind Head while a linear part exists: with Head 15 = Tail and
  // one linear row, R = 2 rows cap the reach at Tail + 16 = 31.
  HdBitmapCore bm(HdParams(16, 32, 64, 2, 10));
  bm.open(0, 0, 0);
  Feed(bm, 0, {17});  // Head 0, Tail 15, linear row 16..31
  for (uint32_t p = 1; p < 15; ++p) Feed(bm, 0, {p});
  Feed(bm, 0, {0});
  EXPECT_EQ(bm.epsn(0), 15u);
  Outcome o = bm.receive(0, 32);  // 17 ahead of Head, but past the 2nd row
  EXPECT_EQ(o.verdict, Verdict::kBeyondWindow);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  Feed(bm, 0, {15});  // Head 16 > Tail: merge, ring of 2 rows, Tail 47
  EXPECT_EQ(bm.view(0).tail, 47u);
  EXPECT_EQ(bm.receive(0, 32).verdict, Verdict::kOutOfOrder);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdDrop, MasterArrayExhaustion) {
  // 30 blocks: one connection's metadata (24) + 6 rows.
  HdBitmapCore bm(HdParams(16, 256, 30, 4, 24, 64));
  bm.open(0, 0, 0);
  bm.open(1, 0, 0);
  Feed(bm, 0, {5});  // metadata 6..29, row 0 = block 0
  // Connection 1: no run of 24 left: 30 bits examined (1 cycle), NACK.
  Outcome o = bm.receive(1, 5);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_COST(o, 1, 0, 0, 0);
  EXPECT_FALSE(bm.view(1).has_bitmap);
  EXPECT_EQ(bm.receive(1, 0).verdict, Verdict::kInOrder);  // in order needs nothing
  // Connection 0 may grow by 5 rows (blocks 1..5). psn 96 (linear row 5) needs 6 -> the
  // five allocated in this call are freed again, NACK.
  o = bm.receive(0, 96);
  EXPECT_EQ(o.verdict, Verdict::kPoolExhausted);
  EXPECT_EQ(o.feedback, Feedback::kNack);
  EXPECT_EQ(o.blocks_delta, 0);
  EXPECT_EQ(bm.view(0).dyn_rows, 0u);
  EXPECT_EQ(bm.controller().used_blocks(), 25u);
  o = bm.receive(0, 95);  // linear row 4: 5 rows, fits exactly
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(bm.controller().free_blocks(), 0u);
  ASSERT_TRUE(Invariants(bm));
  bm.close(0);
  EXPECT_EQ(bm.controller().used_blocks(), 0u);
  EXPECT_EQ(bm.receive(0, 0).verdict, Verdict::kQpClosed);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdCost, WideRows) {
  // B = 32: a row is two master_array blocks; R = 8 rows; metadata 8 + 8 = 16 blocks.
  HdBitmapCore bm(HdParams(32, 256, 256, 4, 16, 64));
  bm.open(0, 0, 0);
  // psn 20: creation: metadata (16 bits examined) 1 + mark 1 + index 1; row of 2 blocks
  // (2 bits examined) 1 + mark 1; entry 0 1; row blocks 2 (zero, bit 4 of the second);
  // header 8 = 16.
  Outcome o = bm.receive(0, 20);
  EXPECT_COST(o, 16, 0, 10, 2);
  EXPECT_EQ(o.blocks_held, 16u + 2u);
  EXPECT_EQ(bm.controller().read_block(1, false, nullptr), 1u << 4);
  // psn 3 (OOO): locate 8; only the block holding bit 3 is read and written -> 10.
  o = bm.receive(0, 3);
  EXPECT_COST(o, 10, 8, 8, 2);
  // psn 40: Tail 31 -> linear row 0 (bits 8) -> grows one 2-block row.
  o = bm.receive(0, 40);
  EXPECT_EQ(bm.last_detail().rows_added, 1u);
  EXPECT_EQ(o.blocks_held, 16u + 4u);
  for (uint32_t p : {0u, 1u, 2u}) Feed(bm, 0, {p});
  EXPECT_EQ(bm.epsn(0), 4u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdWrap, PsnWrapsAround) {
  HdBitmapCore bm(HdParams());
  bm.open(0, 0xFFFFF8, 0);
  Outcome o = bm.receive(0, 0x000003);  // 11 ahead
  EXPECT_EQ(o.verdict, Verdict::kOutOfOrder);
  EXPECT_EQ(bm.view(0).tail, 0x000007u);
  o = bm.receive(0, 0x000010);  // past Tail: linear row
  EXPECT_EQ(bm.last_detail().rows_added, 1u);
  for (uint32_t p = 0xFFFFF9; p <= 0xFFFFFF; ++p) Feed(bm, 0, {p});
  Feed(bm, 0, {0, 1, 2, 4, 5, 6, 7});
  o = bm.receive(0, 0xFFFFF8);  // runs through 0x000007, merge, stops at 8
  EXPECT_EQ(o.epsn, 8u);
  EXPECT_TRUE(bm.last_detail().merged);
  EXPECT_EQ(bm.pending_psns(0), std::vector<uint32_t>{0x10});
  o = bm.receive(0, 0xFFFFFF);
  EXPECT_EQ(o.verdict, Verdict::kDuplicate);
  EXPECT_COST(o, 0, 0, 0, 0);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdDrop, ClosedAndReopened) {
  HdBitmapCore bm(HdParams());
  EXPECT_EQ(bm.receive(0, 0).verdict, Verdict::kQpClosed);
  EXPECT_EQ(bm.receive(99, 0).verdict, Verdict::kQpClosed);
  EXPECT_THROW(bm.open(8, 0, 0), std::out_of_range);
  bm.open(0, 0, 0);
  Feed(bm, 0, {3});
  EXPECT_EQ(bm.controller().used_blocks(), 25u);
  bm.open(0, 50, 0);  // reopening closes: the bitmap is freed
  EXPECT_EQ(bm.controller().used_blocks(), 0u);
  EXPECT_EQ(bm.epsn(0), 50u);
  ASSERT_TRUE(Invariants(bm));
}

TEST(EunomiaHdShared, TwoModulesOneController) {
  Mc mc(McParams(1024, 8, 24, 64));
  HdBitmapCore a(HdParams(), mc), b(HdParams(), mc);
  a.open(0, 0, 0);
  b.open(1, 0, 0);
  Feed(a, 0, {4});
  Feed(b, 1, {4});
  EXPECT_EQ(mc.index_entries_used(), 2u);
  EXPECT_EQ(b.view(1).dba, 976u);  // second metadata run from the tail
  EXPECT_EQ(b.view(1).row_blocks[0], 1u);
  Feed(a, 0, {1, 2});
  ASSERT_EQ(a.receive(0, 0, Last()).verdict, Verdict::kInOrder);
  EXPECT_EQ(a.epsn(0), 3u);  // 4 pending: Last Seq 0 passed, bitmap kept
  EXPECT_TRUE(a.view(0).has_bitmap);
  EXPECT_EQ(a.view(0).last_seq, Mc::kLastUnknown);
  EXPECT_TRUE(Invariants(a));
  EXPECT_TRUE(Invariants(b));
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

using oonic::test::WindowShuffle;  // testbench/common/arrival_orders.h

// Logical reference of one connection (offsets from its start PSN): received flags, and
// the HD bitmap's shape (Head, Tail, C, L, Head's ring position, Last Seq) from the rules
// in docs/DESIGN.md M2, without master_array.
struct RefConn {
  uint32_t qp = 0, start = 0, count = 0, b = 16, r = 16;
  std::vector<uint8_t> got, is_last;
  std::vector<uint32_t> accepted;
  uint32_t e = 0, received = 0;  // ePSN offset; received PSNs in total
  bool has_bm = false;
  uint32_t head = 0, tail = 0, circ = 0, dyn = 0, hpos = 0;
  int64_t last = -1;
  uint64_t merges = 0, creations = 0, gcs = 0, nacks = 0;

  void init(uint32_t qp_, uint32_t start_, uint32_t count_, uint32_t b_, uint32_t r_) {
    qp = qp_, start = start_, count = count_, b = b_, r = r_;
    got.assign(count, 0);
    is_last.assign(count, 0);
    accepted.assign(count, 0);
  }
  uint32_t pending() const { return received - e; }  // received PSNs past ePSN
};

struct Expect {
  Verdict verdict = Verdict::kDuplicate;
  Feedback feedback = Feedback::kAck;
  bool needs_alloc = false;  // creation or growth: may fail with kPoolExhausted
  int64_t locate = -1;       // expected locate_cycles (-1: not predicted)
  int64_t cycles = -1;       // expected cycles (-1: not predicted)
  bool create = false, merge = false, gc = false;
};

// Predicts the outcome of receiving offset x (last bit: lastbit).
Expect Predict(const RefConn& c, uint32_t x, bool lastbit) {
  Expect ex;
  const uint32_t cap_bits = c.r * c.b;
  if (x < c.e) {
    ex.cycles = ex.locate = 0;
    return ex;  // duplicate, ACK
  }
  if (!c.has_bm) {
    if (x == c.e) {
      ex.verdict = Verdict::kInOrder;
      ex.cycles = ex.locate = 0;
      return ex;
    }
    if (x - c.e >= cap_bits) {
      ex.verdict = Verdict::kBeyondWindow;
      ex.feedback = Feedback::kNack;
      ex.cycles = ex.locate = 0;
      return ex;
    }
    ex.verdict = Verdict::kOutOfOrder;
    ex.feedback = Feedback::kSack;
    ex.needs_alloc = ex.create = true;
    ex.locate = 0;
    return ex;
  }
  const uint32_t lastcost = lastbit ? 2 + ((c.last < 0 || x > c.last) ? 2 : 0) : 0;
  if (x == c.head) {
    ex.verdict = Verdict::kInOrder;
    ex.feedback = Feedback::kAck;
    ex.locate = 7 + (c.hpos / c.b == 0 ? 1 : 2);
    return ex;  // merge / gc filled in by Apply
  }
  if (x <= c.tail) {
    const uint32_t row = ((c.hpos + (x - c.head)) % (c.circ * c.b)) / c.b;
    ex.locate = 7 + (row == 0 ? 1 : 2);
    if (c.got[x]) {
      ex.feedback = Feedback::kSack;
      ex.cycles = ex.locate + 1;
      return ex;
    }
    ex.verdict = Verdict::kOutOfOrder;
    ex.feedback = Feedback::kSack;
    ex.cycles = ex.locate + 2 + lastcost;
    return ex;
  }
  const uint32_t lrow = (x - c.tail - 1) / c.b;
  if (lrow < c.dyn) {
    ex.locate = 9;
    if (c.got[x]) {
      ex.feedback = Feedback::kSack;
      ex.cycles = 10;
      return ex;
    }
    ex.verdict = Verdict::kOutOfOrder;
    ex.feedback = Feedback::kSack;
    ex.cycles = 11 + lastcost;
    return ex;
  }
  if (c.circ + lrow + 1 > c.r) {
    ex.verdict = Verdict::kBeyondWindow;
    ex.feedback = Feedback::kNack;
    ex.locate = ex.cycles = 7;
    return ex;
  }
  ex.verdict = Verdict::kOutOfOrder;
  ex.feedback = Feedback::kSack;
  ex.needs_alloc = true;
  ex.locate = 8;
  return ex;
}

// Applies a tracked/in-order outcome of offset x to the reference; fills merge/gc.
void Apply(RefConn& c, uint32_t x, bool lastbit, Expect* ex) {
  if (ex->verdict != Verdict::kInOrder && ex->verdict != Verdict::kOutOfOrder) return;
  c.got[x] = 1;
  c.accepted[x] += 1;
  c.received += 1;
  if (!c.has_bm && ex->verdict == Verdict::kInOrder) {
    c.e += 1;
    return;
  }
  if (ex->create) {
    c.has_bm = true;
    c.head = c.e;
    c.tail = c.e + c.b - 1;
    c.circ = 1;
    c.dyn = 0;
    c.hpos = 0;
    c.last = -1;
    c.creations += 1;
  }
  if (ex->verdict == Verdict::kOutOfOrder) {
    if (x > c.tail) c.dyn = std::max(c.dyn, (x - c.tail - 1) / c.b + 1);
    if (lastbit && (c.last < 0 || x > c.last)) c.last = x;
    return;
  }
  // In order with a bitmap: Head to the first missing PSN.
  uint32_t h = x + 1;
  while (h < c.count && c.got[h]) ++h;
  const uint32_t adv = h - c.head;
  if (c.dyn > 0 && h > c.tail) {
    const uint32_t j = h - c.tail - 1;
    const uint32_t circ2 = c.circ + c.dyn;
    c.hpos = (c.circ * c.b + j) % (circ2 * c.b);
    c.circ = circ2;
    c.dyn = 0;
    c.merges += 1;
    ex->merge = true;
  } else {
    c.hpos = (c.hpos + adv) % (c.circ * c.b);
  }
  c.head = h;
  if (c.dyn == 0) c.tail = h + c.circ * c.b - 1;
  c.e = h;
  if (lastbit && (c.last < 0 || x > c.last)) c.last = x;
  if (c.last >= 0 && h > c.last) {
    if (c.pending() == 0) {
      c.has_bm = false;
      c.gcs += 1;
      ex->gc = true;
    } else {
      c.last = -1;
    }
  }
}

enum class Loss { kNone, kSelectiveRepeat, kGoBackN };

// The sender side of one connection: one delivery queue (first transmissions in their
// shuffled arrival order, lost ones removed). A NACKed packet is put back into the queue
// a random distance (1..D+2) ahead, but never before the packet at ePSN (the sender
// resends it after what the receiver is waiting for, so the connection always makes
// progress); if the ePSN packet is not queued (lost), the NACK, which carries ePSN, has it
// resent first at that distance and the NACKed packet right after it. When the queue
// runs dry before everything arrived, the sender's timeout resends from ePSN: selective
// repeat skips SACKed PSNs, go-back-N resends them all (duplicates).
struct Flow {
  RefConn ref;
  std::vector<uint32_t> queue;
  size_t pos = 0;
  std::vector<uint8_t> sacked;
  Loss loss = Loss::kNone;
  uint32_t dist = 0;
  bool use_head_meta = false;
  uint64_t deliveries = 0;
};

struct Stats {
  uint64_t calls = 0, nacks = 0, beyond = 0, exhausted = 0, dups = 0, merges = 0, gcs = 0,
           creations = 0, grown = 0;
};

uint32_t HeldBlocks(const RefConn& c, uint32_t words_per_row, uint32_t meta_blocks) {
  return c.has_bm ? (c.circ + c.dyn) * words_per_row + meta_blocks : 0;
}

// Delivers one packet of flow fi. False when the flow has nothing left to send.
bool Step(HdBitmapCore& bm, std::vector<Flow>& flows, size_t fi, std::mt19937_64& rng, Stats& st) {
  Flow& f = flows[fi];
  RefConn& r = f.ref;
  if (f.pos == f.queue.size()) {
    if (r.e >= r.count) return false;
    // Timeout.
    for (uint32_t y = r.e; y < r.count; ++y)
      if (y == r.e || f.loss == Loss::kGoBackN || !f.sacked[y]) f.queue.push_back(y);
  }
  const uint32_t x = f.queue[f.pos++];
  if (++f.deliveries > 200ull * r.count + 5000) {
    ADD_FAILURE() << "flow " << fi << " does not terminate";
    return false;
  }
  const bool lastbit = r.is_last[x] != 0;
  PacketMeta meta;
  meta.last = lastbit;
  if (f.use_head_meta) {
    meta.has_head = true;
    meta.head = r.start;
  }
  const uint32_t e_before = r.e;
  Expect ex = Predict(r, x, lastbit);
  const Outcome o = bm.receive(r.qp, psn_add(r.start, x), meta);
  ++st.calls;
  const auto ctx = [&] {
    return ::testing::Message() << "qp " << r.qp << " start " << r.start << " offset " << x
                                << " ePSN offset " << e_before << " last " << lastbit;
  };
  if (o.verdict == Verdict::kPoolExhausted) {
    EXPECT_TRUE(ex.needs_alloc) << ctx() << " exhausted without needing memory";
    ex.verdict = Verdict::kPoolExhausted;
    ex.feedback = Feedback::kNack;
    ex.create = false;
    ++st.exhausted;
  }
  Apply(r, x, lastbit, &ex);
  EXPECT_EQ(o.verdict, ex.verdict) << ctx() << " got " << to_string(o.verdict);
  EXPECT_EQ(o.feedback, ex.feedback) << ctx() << " got " << to_string(o.feedback);
  if (o.feedback == Feedback::kSack) {
    EXPECT_EQ(o.sack_psn, psn_add(r.start, x)) << ctx();
  }
  if (ex.locate >= 0 && o.verdict != Verdict::kPoolExhausted) {
    EXPECT_EQ(o.locate_cycles, static_cast<uint32_t>(ex.locate)) << ctx();
  }
  if (ex.cycles >= 0) {
    EXPECT_EQ(o.cycles, static_cast<uint32_t>(ex.cycles)) << ctx();
  }
  const auto& d = bm.last_detail();
  EXPECT_EQ(o.cycles, d.cost.cycles()) << ctx();
  EXPECT_GE(o.cycles, o.locate_cycles) << ctx();
  EXPECT_EQ(d.created, ex.create) << ctx();
  EXPECT_EQ(d.merged, ex.merge) << ctx();
  EXPECT_EQ(d.gc, ex.gc) << ctx();
  EXPECT_EQ(o.epsn, psn_add(r.start, r.e)) << ctx();
  EXPECT_EQ(bm.epsn(r.qp), o.epsn);
  EXPECT_EQ(o.head_advanced, o.verdict == Verdict::kInOrder) << ctx();
  const HdBitmapCore::Params& p = bm.params();
  const uint32_t wpr = p.block_bits / 16;
  const uint32_t mb = bm.controller().params().metadata_blocks;
  EXPECT_EQ(o.blocks_held, HeldBlocks(r, wpr, mb)) << ctx();
  EXPECT_EQ(bm.bitmap_blocks_held(r.qp), r.has_bm ? (r.circ + r.dyn) * wpr : 0u) << ctx();
  // The stored state matches the reference's shape, and the bits are exactly the PSNs
  // received past Head.
  const auto v = bm.view(r.qp);
  EXPECT_EQ(v.has_bitmap, r.has_bm) << ctx();
  if (r.has_bm && v.has_bitmap) {
    EXPECT_EQ(v.head, psn_add(r.start, r.head)) << ctx();
    EXPECT_EQ(v.tail, psn_add(r.start, r.tail)) << ctx();
    EXPECT_EQ(v.circ_rows, r.circ) << ctx();
    EXPECT_EQ(v.dyn_rows, r.dyn) << ctx();
    EXPECT_EQ(static_cast<uint32_t>(v.head_bm_id) * p.block_bits + v.head_bm_index, r.hpos)
        << ctx();
    EXPECT_EQ(v.last_seq,
              r.last < 0 ? Mc::kLastUnknown : psn_add(r.start, static_cast<uint32_t>(r.last)))
        << ctx();
    std::vector<uint32_t> want;
    for (uint32_t y = r.e + 1; y < r.count && want.size() < r.pending(); ++y)
      if (r.got[y]) want.push_back(psn_add(r.start, y));
    EXPECT_EQ(bm.pending_psns(r.qp), want) << ctx();
  }
  // Feedback drives the sender: SACKs are remembered, NACKed packets are resent later.
  if (o.feedback == Feedback::kSack) f.sacked[x] = 1;
  if (o.feedback == Feedback::kNack) {
    ++st.nacks;
    ++r.nacks;
    size_t at = f.pos + 1 + static_cast<size_t>(rng() % (f.dist + 2));
    size_t epsn_at = f.queue.size();
    for (size_t i = f.pos; i < f.queue.size(); ++i)
      if (f.queue[i] == r.e) {
        epsn_at = i;
        break;
      }
    if (epsn_at == f.queue.size()) {
      // The packet at ePSN was lost: the NACK (which carries ePSN) makes the sender
      // resend it first.
      epsn_at = std::min(at, f.queue.size());
      f.queue.insert(f.queue.begin() + static_cast<std::ptrdiff_t>(epsn_at), r.e);
    }
    at = std::min(std::max(at, epsn_at + 1), f.queue.size());
    f.queue.insert(f.queue.begin() + static_cast<std::ptrdiff_t>(at), x);
  }
  if (o.verdict == Verdict::kBeyondWindow) ++st.beyond;
  if (o.verdict == Verdict::kDuplicate) ++st.dups;
  if (d.rows_added > 0) ++st.grown;
  std::string why;
  EXPECT_TRUE(bm.check_invariants(r.qp, &why)) << ctx() << ": " << why;
  return true;
}

void RunFlows(HdBitmapCore& bm, std::vector<Flow>& flows, std::mt19937_64& rng, Stats& st) {
  uint64_t now = 0;
  std::vector<size_t> active;
  for (size_t i = 0; i < flows.size(); ++i) active.push_back(i);
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng() % active.size());
    if (!Step(bm, flows, active[ai], rng, st)) {
      active[ai] = active.back();
      active.pop_back();
    }
    if (::testing::Test::HasFailure()) return;
    if ((++now & 255) == 0) {
      std::string why;
      ASSERT_TRUE(bm.check_invariants(&why)) << why;
    }
  }
}

struct FlowCfg {
  uint32_t count = 0, dist = 0, start = 0, messages = 1;
  Loss loss = Loss::kNone;
  uint32_t losses = 0;
  bool resend_at_end = false;
  bool head_meta = false;
};

FlowCfg RandomCfg(std::mt19937_64& rng, Loss loss, uint32_t max_dist) {
  FlowCfg c;
  c.count = 100 + static_cast<uint32_t>(rng() % 250);
  c.dist = static_cast<uint32_t>(rng() % (max_dist + 1));
  c.start = (rng() % 3 == 0) ? static_cast<uint32_t>(0xFFFFFF - rng() % 300)  // wraps
                             : static_cast<uint32_t>(rng() & 0xFFFFFF);
  c.messages = 1 + static_cast<uint32_t>(rng() % 4);
  c.loss = loss;
  c.losses = loss == Loss::kNone ? 0 : 1 + static_cast<uint32_t>(rng() % 4);
  c.resend_at_end = loss != Loss::kNone && rng() % 2 == 0;
  c.head_meta = rng() % 4 == 0;
  return c;
}

Flow MakeFlow(uint32_t qp, const FlowCfg& c, const HdBitmapCore::Params& p, std::mt19937_64& rng) {
  Flow f;
  f.ref.init(qp, c.start, c.count, p.block_bits, p.max_bitmap_bits / p.block_bits);
  f.dist = c.dist;
  f.loss = c.loss;
  f.use_head_meta = c.head_meta;
  f.sacked.assign(c.count, 0);
  // Message ends: messages-1 random cut points, and the last packet.
  f.ref.is_last[c.count - 1] = 1;
  for (uint32_t m = 1; m < c.messages; ++m) f.ref.is_last[rng() % c.count] = 1;
  std::vector<uint32_t> order = WindowShuffle(c.count, c.dist, rng);
  if (c.losses > 0) {
    std::vector<uint8_t> lost(c.count, 0);
    for (uint32_t i = 0; i < c.losses; ++i) lost[rng() % c.count] = 1;
    std::vector<uint32_t> kept, dropped;
    for (uint32_t x : order) (lost[x] ? dropped : kept).push_back(x);
    if (c.resend_at_end) kept.insert(kept.end(), dropped.begin(), dropped.end());
    order = std::move(kept);  // otherwise recovered by the sender's timeout
  }
  f.queue = std::move(order);
  return f;
}

void OpenFlows(HdBitmapCore& bm, std::vector<Flow>& flows) {
  for (Flow& f : flows) {
    // With Head metadata the transport is opened at a wrong PSN: the first packet fixes it.
    bm.open(f.ref.qp, f.use_head_meta ? psn_add(f.ref.start, 12345) : f.ref.start, 0);
  }
}

void ExpectComplete(const HdBitmapCore& bm, const Flow& f) {
  const RefConn& r = f.ref;
  // Head ends past Last Seq: everything arrived, the bitmap was garbage-collected.
  EXPECT_EQ(bm.epsn(r.qp), psn_add(r.start, r.count));
  EXPECT_FALSE(bm.view(r.qp).has_bitmap);
  EXPECT_EQ(bm.blocks_held(r.qp), 0u);
  for (uint32_t x = 0; x < r.count; ++x)
    ASSERT_EQ(r.accepted[x], 1u) << "offset " << x << " accepted " << r.accepted[x] << " times";
}

void ExpectEmpty(const HdBitmapCore& bm) {
  const Mc& mc = bm.controller();
  EXPECT_EQ(mc.used_blocks(), 0u);
  EXPECT_TRUE(mc.alloc_bitmap_empty());
  EXPECT_EQ(mc.index_entries_used(), 0u);
  EXPECT_TRUE(Invariants(bm));
}

HdBitmapCore::Params RandomGeometry(std::mt19937_64& rng, uint32_t blocks, uint32_t conns) {
  static const uint32_t kB[] = {16, 16, 16, 32, 64};
  const uint32_t b = kB[rng() % (sizeof(kB) / sizeof(kB[0]))];
  static const uint32_t kCapRows[] = {2, 4, 8, 16};
  uint32_t rows = kCapRows[rng() % 4];
  if (b == 64 && rows > 4) rows = 4;
  return HdParams(b, rows * b, blocks, conns, 8 + rows, 64);
}

TEST(EunomiaHdProperty, WindowShuffleRespectsDistance) {
  std::mt19937_64 rng(7);
  for (uint32_t d : {0u, 1u, 5u, 63u, 300u}) {
    auto v = WindowShuffle(500, d, rng);
    std::vector<uint8_t> seen(500, 0);
    uint32_t lo = 0;
    for (size_t pos = 0; pos < v.size(); ++pos) {
      ASSERT_LE(std::abs(static_cast<int64_t>(pos) - static_cast<int64_t>(v[pos])),
                static_cast<int64_t>(d));
      ASSERT_LE(v[pos], lo + d);
      ASSERT_FALSE(seen[v[pos]]);
      seen[v[pos]] = 1;
      while (lo < 500 && seen[lo]) ++lo;
    }
    if (d == 0) {
      EXPECT_TRUE(std::is_sorted(v.begin(), v.end()));
    }
  }
}

TEST(EunomiaHdProperty, SingleConnectionNoLoss) {
  Stats st;
  uint64_t merges = 0;
  for (uint64_t seed = 1; seed <= 800; ++seed) {
    std::mt19937_64 rng(seed);
    HdBitmapCore::Params p = RandomGeometry(rng, 256, 2);
    HdBitmapCore bm(p);
    std::vector<Flow> flows;
    // Distances up to past the cap: some packets are NACKed and resent.
    flows.push_back(MakeFlow(1, RandomCfg(rng, Loss::kNone, p.max_bitmap_bits + 40), p, rng));
    OpenFlows(bm, flows);
    RunFlows(bm, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    ExpectComplete(bm, flows[0]);
    ExpectEmpty(bm);
    EXPECT_EQ(bm.merges(), flows[0].ref.merges);
    EXPECT_EQ(bm.merge_violations(), 0u);
    EXPECT_EQ(bm.garbage_collections(), flows[0].ref.gcs);
    merges += bm.merges();
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(merges, 100u);
  EXPECT_GT(st.nacks, 0u);
  EXPECT_GT(st.beyond, 0u);
  EXPECT_GT(st.grown, 100u);
  EXPECT_EQ(st.exhausted, 0u);
}

TEST(EunomiaHdProperty, ManyConnectionsWithLossAndRetransmission) {
  Stats st;
  uint64_t merges = 0, gcs = 0, creations = 0;
  for (uint64_t seed = 5001; seed <= 5080; ++seed) {
    std::mt19937_64 rng(seed);
    const uint32_t nconn = 4 + static_cast<uint32_t>(rng() % 13);  // 4..16 share one controller
    HdBitmapCore::Params p = RandomGeometry(rng, 1024, 16);
    HdBitmapCore bm(p);
    std::vector<Flow> flows;
    for (uint32_t i = 0; i < nconn; ++i) {
      const Loss loss = static_cast<Loss>(rng() % 3);
      flows.push_back(MakeFlow(i, RandomCfg(rng, loss, p.max_bitmap_bits), p, rng));
    }
    OpenFlows(bm, flows);
    RunFlows(bm, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    uint64_t ref_merges = 0;
    for (const Flow& f : flows) {
      ExpectComplete(bm, f);
      ref_merges += f.ref.merges;
      creations += f.ref.creations;
    }
    ExpectEmpty(bm);
    EXPECT_EQ(bm.merges(), ref_merges);
    EXPECT_EQ(bm.merge_violations(), 0u);
    merges += bm.merges();
    gcs += bm.garbage_collections();
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(merges, 100u);
  EXPECT_GT(gcs, 100u);
  EXPECT_GT(creations, gcs / 2);
  EXPECT_GT(st.dups, 0u);  // go-back-N timeouts resend SACKed packets
  EXPECT_GT(st.nacks, 0u);
  EXPECT_EQ(st.exhausted, 0u);  // 16 x (16 + 24) blocks fit in 1024 without collisions
}

TEST(EunomiaHdProperty, TinyMasterArrayExhaustion) {
  // A master array too small for every connection: creations and growth fail with a NACK
  // (predicted to need memory), the sender resends, everything completes and the memory
  // returns to empty.
  Stats st;
  for (uint64_t seed = 9001; seed <= 9150; ++seed) {
    std::mt19937_64 rng(seed);
    HdBitmapCore::Params p = RandomGeometry(rng, 64, 8);
    const uint32_t meta = p.memory.metadata_blocks;
    const uint32_t wpr = p.block_bits / 16;
    p.memory.blocks = meta + wpr + static_cast<uint32_t>(rng() % (2 * meta + 8));
    HdBitmapCore bm(p);
    std::vector<Flow> flows;
    for (uint32_t i = 0; i < 4; ++i) {
      const Loss loss = static_cast<Loss>(rng() % 3);
      flows.push_back(MakeFlow(i, RandomCfg(rng, loss, p.max_bitmap_bits / 2), p, rng));
    }
    OpenFlows(bm, flows);
    RunFlows(bm, flows, rng, st);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
    for (const Flow& f : flows) ExpectComplete(bm, f);
    ExpectEmpty(bm);
    EXPECT_EQ(bm.merge_violations(), 0u);
    ASSERT_FALSE(HasFailure()) << "seed " << seed;
  }
  EXPECT_GT(st.exhausted, 100u);
}

}  // namespace
