// SRAM model tests: access timing (beats, read latency, write visibility), port
// contention for 1RW / 1R1W / 2RW, stall counting, statistics and occupancy;
// BlockPool allocation order, exhaustion and release errors; SparseMemory
// (tlm/sparse_memory.h) across page boundaries.
#include "model/sram/sram.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/core/error.h"
#include "model/core/params.h"
#include "model/core/rng.h"
#include "model/core/stats.h"
#include "tlm/sparse_memory.h"

namespace {

using oonic::BlockPool;
using oonic::Cycle;
using oonic::Sram;
using oonic::SramParams;
using oonic::Stats;
using Points = std::vector<std::pair<Cycle, int64_t>>;

// 64-bit words, 16 deep (1024 bits), read latency 2.
SramParams params(const char* ports, uint32_t read_latency = 2) {
  SramParams p;
  p.width_bits = 64;
  p.depth = 16;
  p.ports = ports;
  p.read_latency = read_latency;
  return p;
}

TEST(SramTiming, BeatsOfAnAccess) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "nic0.buf");
  EXPECT_EQ(s.beats(0), 1u);  // an empty access still takes a beat
  EXPECT_EQ(s.beats(1), 1u);
  EXPECT_EQ(s.beats(64), 1u);
  EXPECT_EQ(s.beats(65), 2u);           // ceil(65 / 64)
  EXPECT_EQ(s.beats(192), 3u);          // 192 / 64
  EXPECT_EQ(s.capacity_bits(), 1024u);  // 64 x 16
  EXPECT_EQ(s.name(), "buf");
  EXPECT_EQ(s.params().ports, "1R1W");
}

TEST(SramTiming, ReadAndWriteOfSeveralBeats) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "nic0.buf");
  Cycle g = 0;
  // Read of 192 bits = 3 beats granted at 5, latency 2: data at 5 + 3 - 1 + 2 = 9.
  EXPECT_EQ(s.read_at(5, 192, &g), 9u);
  EXPECT_EQ(g, 5u);
  // Write of 130 bits = ceil(130/64) = 3 beats on the write port, idle, granted at 5:
  // port busy 5..7, visible at 5 + 3 = 8.
  EXPECT_EQ(s.write_at(5, 130, &g), 8u);
  EXPECT_EQ(g, 5u);
  EXPECT_EQ(s.stall_cycles(), 0u);
  // The read port was busy 5..7, so a read at 8 is not delayed: 1 beat, data at
  // 8 + 1 - 1 + 2 = 10.
  EXPECT_EQ(s.read(8, 0), 10u);
  // A 1-beat read at 7 waits: the read above holds the port at 8, so it is free at 9;
  // granted at 9, data at 9 + 1 - 1 + 2 = 11, stall 9 - 7 = 2.
  EXPECT_EQ(s.read_at(7, 64, &g), 11u);
  EXPECT_EQ(g, 9u);
  EXPECT_EQ(s.stall_cycles(), 2u);
  EXPECT_EQ(s.reads(), 3u);
  EXPECT_EQ(s.writes(), 1u);
}

TEST(SramTiming, ZeroReadLatency) {
  Stats st;
  Sram s("buf", params("1RW", 0), st, "b");
  // 1 beat at 3, latency 0: data at 3 + 1 - 1 + 0 = 3 (same cycle).
  EXPECT_EQ(s.read(3, 64), 3u);
  // 2 beats at 10: data of the last beat at 10 + 2 - 1 + 0 = 11.
  EXPECT_EQ(s.read(10, 128), 11u);
}

TEST(SramPorts, TwoReadsOn1R1WSerialize) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "b");
  Cycle g = 0;
  EXPECT_EQ(s.read_at(10, 64, &g), 12u);  // granted 10, data 10 + 0 + 2 = 12
  EXPECT_EQ(g, 10u);
  EXPECT_EQ(s.read_at(10, 64, &g), 13u);  // read port busy at 10: granted 11, data 13
  EXPECT_EQ(g, 11u);
  EXPECT_EQ(s.stall_cycles(), 1u);  // 11 - 10
  // Two writes at 10 also serialize on the write port: visible 11 and 12.
  EXPECT_EQ(s.write(10, 64), 11u);
  EXPECT_EQ(s.write(10, 64), 12u);
  EXPECT_EQ(s.stall_cycles(), 2u);  // + (11 - 10)
}

TEST(SramPorts, ReadAndWriteOn1R1WDoNotContend) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "b");
  Cycle gr = 0, gw = 0;
  // 2-beat read at 10: data at 10 + 2 - 1 + 2 = 13; 2-beat write at 10 on its own
  // port: granted 10, visible 12.
  EXPECT_EQ(s.read_at(10, 128, &gr), 13u);
  EXPECT_EQ(s.write_at(10, 128, &gw), 12u);
  EXPECT_EQ(gr, 10u);
  EXPECT_EQ(gw, 10u);
  EXPECT_EQ(s.stall_cycles(), 0u);
}

TEST(SramPorts, ReadAndWriteOn1RWContend) {
  Stats st;
  Sram s("buf", params("1RW"), st, "b");
  Cycle g = 0;
  // 2-beat read at 10: port busy 10..11, data at 10 + 2 - 1 + 2 = 13.
  EXPECT_EQ(s.read_at(10, 128, &g), 13u);
  // 1-beat write at 10 waits for the shared port: granted 12, visible 13, stall 2.
  EXPECT_EQ(s.write_at(10, 64, &g), 13u);
  EXPECT_EQ(g, 12u);
  EXPECT_EQ(s.stall_cycles(), 2u);
  // 1-beat read at 10: granted 13, data 13 + 0 + 2 = 15, stall + 3 = 5.
  EXPECT_EQ(s.read_at(10, 64, &g), 15u);
  EXPECT_EQ(g, 13u);
  EXPECT_EQ(s.stall_cycles(), 5u);
}

TEST(SramPorts, TwoRWServesTwoAtOnce) {
  Stats st;
  Sram s("buf", params("2RW"), st, "b");
  Cycle g = 0;
  // Read at 0: both ports idle, port 0 on a tie; data 0 + 0 + 2 = 2.
  EXPECT_EQ(s.read_at(0, 64, &g), 2u);
  EXPECT_EQ(g, 0u);
  // Write at 0: port 0 free at 1, port 1 free at 0 -> port 1, granted 0, visible 1.
  EXPECT_EQ(s.write_at(0, 64, &g), 1u);
  EXPECT_EQ(g, 0u);
  EXPECT_EQ(s.stall_cycles(), 0u);
  // A third access at 0 waits: both free at 1, port 0 -> granted 1, data 1 + 0 + 2 = 3.
  EXPECT_EQ(s.read_at(0, 64, &g), 3u);
  EXPECT_EQ(g, 1u);
  EXPECT_EQ(s.stall_cycles(), 1u);
  // 2-beat read at 1: port 0 free at 2, port 1 free at 1 -> port 1, granted 1,
  // data 1 + 2 - 1 + 2 = 4.
  EXPECT_EQ(s.read_at(1, 128, &g), 4u);
  EXPECT_EQ(g, 1u);
  // Write at 5: both idle (free at 2 and 3) -> granted 5, visible 6.
  EXPECT_EQ(s.write(5, 64), 6u);
  EXPECT_EQ(s.stall_cycles(), 1u);
  EXPECT_EQ(s.reads(), 3u);
  EXPECT_EQ(s.writes(), 2u);
}

TEST(SramPorts, TwoReadsOn2RWAtTheSameCycle) {
  Stats st;
  Sram s("buf", params("2RW"), st, "b");
  Cycle g1 = 9, g2 = 9;
  s.read_at(4, 64, &g1);
  s.read_at(4, 64, &g2);
  EXPECT_EQ(g1, 4u);  // port 0
  EXPECT_EQ(g2, 4u);  // port 1, same cycle
  EXPECT_EQ(s.stall_cycles(), 0u);
}

TEST(SramPorts, RejectsUnknownPortConfiguration) {
  Stats st;
  try {
    Sram s("bad", params("3RW"), st, "b");
    FAIL() << "expected an oonic::Error";
  } catch (const oonic::Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kConfig);
    EXPECT_EQ(std::string(e.what()), "SRAM bad: ports must be 1RW, 1R1W or 2RW");
  }
}

TEST(SramStats, RegisteredStatsAndOccupancy) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "nic0.buf");
  s.read(0, 64);
  s.read(0, 64);  // stall 1
  s.write(0, 64);
  s.occupy(5, -40);  // booked out of order
  s.occupy(2, 100);
  s.occupy(5, 0);  // zero delta: not recorded
  nlohmann::json j = st.to_json(10);
  EXPECT_EQ(j["nic0.buf.reads"]["value"], 2);
  EXPECT_EQ(j["nic0.buf.writes"]["value"], 1);
  EXPECT_EQ(j["nic0.buf.capacity_bits"]["value"], 1024.0);  // 64 x 16
  EXPECT_EQ(j["nic0.buf.stall_cycles"]["value"], 1.0);
  // Used bits: 100 from 2, 60 from 5. Area to 10: 100*3 + 60*5 = 600 -> mean 60.
  EXPECT_EQ(s.occupancy().points(), (Points{{2, 100}, {5, 60}}));
  EXPECT_EQ(j["nic0.buf.used_bits"]["peak"], 100);
  EXPECT_EQ(j["nic0.buf.used_bits"]["final"], 60);
  EXPECT_DOUBLE_EQ(j["nic0.buf.used_bits"]["mean"].get<double>(), 60.0);
  // Peak utilization 100 / 1024 = 0.09765625 (exact in binary).
  EXPECT_EQ(j["nic0.buf.peak_utilization"]["value"], 0.09765625);
  EXPECT_EQ(j.size(), 6u);
  EXPECT_EQ(st.find_gauge("nic0.buf.used_bits"), &s.occupancy());
}

TEST(SramParams, DescribeRegistersFourParameters) {
  SramParams p;
  oonic::ParamTable t;
  p.describe(t, "sram.req_pkt_buffer", "the request packet buffer");
  ASSERT_EQ(t.entries().size(), 4u);
  const auto* w = t.find("sram.req_pkt_buffer.width_bits");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->default_text, "512");
  EXPECT_EQ(w->min, 1);
  EXPECT_EQ(w->max, 4096);
  EXPECT_EQ(w->desc, "word width of the request packet buffer");
  EXPECT_EQ(t.find("sram.req_pkt_buffer.depth")->max, 1073741824.0);  // 2^30
  EXPECT_EQ(t.find("sram.req_pkt_buffer.ports")->choices,
            (std::vector<std::string>{"1RW", "1R1W", "2RW"}));
  EXPECT_EQ(t.find("sram.req_pkt_buffer.read_latency")->max, 64);
  t.set("sram.req_pkt_buffer.ports", "2RW", "s");
  t.set("sram.req_pkt_buffer.depth", "0x800", "s");  // 2048
  t.set("sram.req_pkt_buffer.read_latency", "0", "s");
  EXPECT_EQ(p.ports, "2RW");
  EXPECT_EQ(p.depth, 2048u);
  EXPECT_EQ(p.read_latency, 0u);
}

TEST(BlockPool, AllocatesBlockZeroFirstAndReportsExhaustion) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "b");
  BlockPool pool(&s, 4, 128);
  EXPECT_EQ(pool.blocks(), 4u);
  EXPECT_EQ(pool.free_blocks(), 4u);
  uint32_t id = 99;
  for (uint32_t want = 0; want < 4; ++want) {
    ASSERT_TRUE(pool.alloc(1, &id));
    EXPECT_EQ(id, want);  // 0, 1, 2, 3
    EXPECT_TRUE(pool.in_use(want));
  }
  EXPECT_EQ(pool.used(), 4u);
  EXPECT_EQ(pool.free_blocks(), 0u);
  id = 99;
  EXPECT_FALSE(pool.alloc(2, &id));  // empty
  EXPECT_EQ(id, 99u);                // untouched
  EXPECT_EQ(pool.used(), 4u);
  // Released blocks are reused last-in first-out.
  pool.release(3, 1);
  EXPECT_FALSE(pool.in_use(1));
  ASSERT_TRUE(pool.alloc(4, &id));
  EXPECT_EQ(id, 1u);
  pool.release(5, 2);
  pool.release(5, 0);
  ASSERT_TRUE(pool.alloc(6, &id));
  EXPECT_EQ(id, 0u);  // released last
  ASSERT_TRUE(pool.alloc(6, &id));
  EXPECT_EQ(id, 2u);
  EXPECT_EQ(pool.peak_used(), 4u);
  EXPECT_FALSE(pool.in_use(4));  // out of range
}

TEST(BlockPool, BadReleasesThrow) {
  BlockPool pool(nullptr, 4, 128);  // no SRAM: occupancy not tracked
  uint32_t id = 0;
  ASSERT_TRUE(pool.alloc(0, &id));  // 0
  ASSERT_TRUE(pool.alloc(0, &id));  // 1
  pool.release(1, 1);
  auto expect_error = [&](uint32_t bad) {
    try {
      pool.release(2, bad);
      ADD_FAILURE() << "expected an oonic::Error for block " << bad;
    } catch (const oonic::Error& e) {
      EXPECT_EQ(e.id(), oonic::msg::kModel);
      EXPECT_EQ(std::string(e.what()),
                "block pool: release of block " + std::to_string(bad) + " that is not in use");
    }
  };
  expect_error(1);  // double release
  expect_error(3);  // never allocated
  expect_error(4);  // out of range
  EXPECT_EQ(pool.used(), 1u);
  EXPECT_EQ(pool.free_blocks(), 3u);
  ASSERT_TRUE(pool.alloc(3, &id));
  EXPECT_EQ(id, 1u);  // the double release did not push block 1 twice
  ASSERT_TRUE(pool.alloc(3, &id));
  EXPECT_EQ(id, 2u);
}

TEST(BlockPool, EmptyPool) {
  BlockPool pool(nullptr, 0, 64);
  uint32_t id = 7;
  EXPECT_FALSE(pool.alloc(0, &id));
  EXPECT_EQ(id, 7u);
}

TEST(BlockPool, OccupancyFollowsBlocks) {
  Stats st;
  Sram s("buf", params("1R1W"), st, "nic0.buf");
  BlockPool pool(&s, 4, 128);
  uint32_t id = 0;
  pool.alloc(1, &id);  // +128 at 1
  pool.alloc(3, &id);  // +128 at 3
  pool.alloc(3, &id);  // +128 at 3
  pool.release(6, 1);  // -128 at 6
  nlohmann::json j = st.to_json(10);
  // Points: 128 from 1, 384 from 3, 256 from 6.
  EXPECT_EQ(s.occupancy().points(), (Points{{1, 128}, {3, 384}, {6, 256}}));
  EXPECT_EQ(s.occupancy().peak(), 384);
  EXPECT_EQ(s.occupancy().final_value(), 256);
  // Area to 10: 128*2 + 384*3 + 256*4 = 256 + 1152 + 1024 = 2432 -> mean 243.2.
  EXPECT_DOUBLE_EQ(s.occupancy().mean(), 243.2);
  // Peak utilization 384 / 1024 = 0.375.
  EXPECT_EQ(j["nic0.buf.peak_utilization"]["value"], 0.375);
  EXPECT_EQ(pool.peak_used(), 3u);
}

// SparseMemory: written against kPageBytes (64 KiB when these tests were written,
// 2 MiB since), so every address below is derived from the page size.
using oonic::SparseMemory;
constexpr uint64_t kPage = SparseMemory::kPageBytes;

std::vector<uint8_t> bytes(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
  return v;
}

bool all_zero(const std::vector<uint8_t>& v, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (v[i]) return false;
  return true;
}

TEST(SparseMemory, UntouchedReadsZeroWithoutAllocating) {
  SparseMemory m;
  std::vector<uint8_t> out(100, 0xEE);
  m.read(12345, out.data(), out.size());
  EXPECT_EQ(out, std::vector<uint8_t>(100, 0));
  EXPECT_EQ(m.pages(), 0u);
  EXPECT_EQ(m.first_difference(0, std::vector<uint8_t>(10, 0).data(), 10), -1);
  const uint8_t one = 1;
  EXPECT_EQ(m.first_difference(777, &one, 1), 777);
  EXPECT_EQ(m.pages(), 0u);  // comparing does not allocate either
}

TEST(SparseMemory, WriteAcrossOnePageBoundary) {
  SparseMemory m;
  // 8 bytes at kPage - 3: 3 in page 0 (kPage-3 .. kPage-1), 5 in page 1 (kPage .. kPage+4).
  auto v = bytes(8, 1);
  m.write(kPage - 3, v.data(), v.size());
  EXPECT_EQ(m.pages(), 2u);
  std::vector<uint8_t> out(8);
  m.read(kPage - 3, out.data(), out.size());
  EXPECT_EQ(out, v);
  // One byte around each end stays zero.
  uint8_t b = 0xEE;
  m.read(kPage - 4, &b, 1);
  EXPECT_EQ(b, 0);
  m.read(kPage + 5, &b, 1);
  EXPECT_EQ(b, 0);
  m.read(kPage, &b, 1);  // the 4th byte written (index 3)
  EXPECT_EQ(b, v[3]);
  EXPECT_EQ(m.first_difference(kPage - 3, v.data(), v.size()), -1);
  // Byte index 5 lives at kPage + 2.
  auto w = v;
  w[5] ^= 0x80;
  EXPECT_EQ(m.first_difference(kPage - 3, w.data(), w.size()), static_cast<int64_t>(kPage + 2));
}

TEST(SparseMemory, WriteSpanningThreePages) {
  SparseMemory m;
  // kPage + 32 bytes at 2*kPage - 16: 16 in page 1, kPage in page 2, 16 in page 3.
  const uint64_t addr = 2 * kPage - 16, len = kPage + 32;
  auto v = bytes(len, 9);
  m.write(addr, v.data(), len);
  EXPECT_EQ(m.pages(), 3u);
  std::vector<uint8_t> out(len);
  m.read(addr, out.data(), len);
  EXPECT_TRUE(out == v);
  EXPECT_EQ(m.first_difference(addr, v.data(), len), -1);
  // Flip the byte at 3*kPage + 5 (page 3), index (3*kPage + 5) - (2*kPage - 16) = kPage + 21.
  auto w = v;
  w[kPage + 21] ^= 0xFF;
  EXPECT_EQ(m.first_difference(addr, w.data(), len), static_cast<int64_t>(3 * kPage + 5));
  // A difference in an earlier page is reported first: index 3 is at addr + 3.
  w[3] ^= 0x01;
  EXPECT_EQ(m.first_difference(addr, w.data(), len), static_cast<int64_t>(addr + 3));
}

TEST(SparseMemory, HolesBetweenPagesReadZero) {
  SparseMemory m;
  const uint8_t a = 0xA1, c = 0xC3;
  m.write(kPage - 1, &a, 1);  // last byte of page 0
  m.write(2 * kPage, &c, 1);  // first byte of page 2; page 1 never touched
  EXPECT_EQ(m.pages(), 2u);
  // kPage + 2 bytes from kPage - 1 end at kPage - 1 + kPage + 1 = 2*kPage.
  std::vector<uint8_t> out(kPage + 2, 0xEE);
  m.read(kPage - 1, out.data(), out.size());
  EXPECT_EQ(out.front(), 0xA1);
  EXPECT_EQ(out.back(), 0xC3);
  EXPECT_TRUE(all_zero(out, 1, out.size() - 1));
  EXPECT_EQ(m.pages(), 2u);  // reading did not allocate page 1
  // Comparing against all zeros finds kPage - 1 first; page 1 alone matches zeros.
  std::vector<uint8_t> zeros(out.size(), 0);
  EXPECT_EQ(m.first_difference(kPage - 1, zeros.data(), zeros.size()),
            static_cast<int64_t>(kPage - 1));
  EXPECT_EQ(m.first_difference(kPage, zeros.data(), kPage), -1);
  // ... and 2*kPage is the first difference when starting at kPage.
  EXPECT_EQ(m.first_difference(kPage, zeros.data(), kPage + 1), static_cast<int64_t>(2 * kPage));
}

TEST(SparseMemory, PageCacheSwitchesPages) {
  SparseMemory m;
  const uint8_t x = 0x11, y = 0x22;
  m.write(10, &x, 1);              // page 0
  m.write(5 * kPage + 10, &y, 1);  // page 5
  uint8_t b = 0xEE;
  m.read(3 * kPage + 10, &b, 1);  // page 3 absent
  EXPECT_EQ(b, 0);
  m.read(10, &b, 1);
  EXPECT_EQ(b, 0x11);
  m.read(5 * kPage + 10, &b, 1);
  EXPECT_EQ(b, 0x22);
  m.write(10, &y, 1);  // overwrite page 0 after page 5 was cached
  m.read(10, &b, 1);
  EXPECT_EQ(b, 0x22);
  m.read(5 * kPage + 10, &b, 1);
  EXPECT_EQ(b, 0x22);
  // A high address: 2^40 + 3.
  const uint64_t hi = uint64_t{1} << 40;
  m.write(hi + 3, &x, 1);
  m.read(hi + 3, &b, 1);
  EXPECT_EQ(b, 0x11);
  EXPECT_EQ(m.first_difference(hi, std::vector<uint8_t>{0, 0, 0, 0x11}.data(), 4), -1);
  EXPECT_EQ(m.pages(), 3u);  // pages 0, 5 and 2^40 / kPage
}

TEST(SparseMemory, FillWithPattern) {
  SparseMemory m;
  // 20 bytes at kPage - 6 cross into page 1; each byte is pattern_byte(address).
  m.fill(kPage - 6, oonic::pattern_byte, 20);
  std::vector<uint8_t> want(20);
  for (uint64_t i = 0; i < 20; ++i) want[i] = oonic::pattern_byte(kPage - 6 + i);
  std::vector<uint8_t> out(20);
  m.read(kPage - 6, out.data(), 20);
  EXPECT_EQ(out, want);
  EXPECT_EQ(m.pages(), 2u);
}

}  // namespace

// Digest mode (host.memory.digest): a page written completely becomes its digest.
TEST(SparseMemoryDigest, APageWrittenCompletelyIsKeptAsItsDigest) {
  SparseMemory m;
  m.enable_digest();
  std::vector<uint8_t> page(kPage);
  for (size_t i = 0; i < kPage; ++i) page[i] = static_cast<uint8_t>(i * 7 + 3);
  // Written in 4 KB pieces, out of order: sealed only when the last lands.
  for (size_t k = kPage / 4096; k-- > 1;) m.write(kPage + k * 4096, page.data() + k * 4096, 4096);
  EXPECT_EQ(m.pages(), 1u);
  EXPECT_TRUE(m.sealed().empty());
  m.write(kPage, page.data(), 4096);
  EXPECT_EQ(m.pages(), 0u);  // the bytes are gone
  ASSERT_EQ(m.sealed().size(), 1u);
  EXPECT_EQ(m.sealed().at(1), SparseMemory::digest_of(page.data()));
  uint8_t b;
  try {
    m.read(kPage + 5, &b, 1);
    ADD_FAILURE() << "read of a digest page";
  } catch (const oonic::Error& e) {
    EXPECT_NE(std::string(e.what()).find("0x200005"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host.memory.digest"), std::string::npos);
  }
  EXPECT_THROW(m.first_difference(kPage, &b, 1), oonic::Error);
}

TEST(SparseMemoryDigest, KeptRangesAndPartPagesStayBytes) {
  SparseMemory m;
  m.enable_digest();
  m.keep(3 * kPage + 100, 1);  // page 3 is read back
  std::vector<uint8_t> page(kPage, 0x5a);
  m.write(3 * kPage, page.data(), kPage);
  m.write(5 * kPage, page.data(), kPage - 1);  // one byte short
  EXPECT_TRUE(m.sealed().empty());
  EXPECT_EQ(m.pages(), 2u);
  uint8_t b = 0;
  m.read(3 * kPage + 7, &b, 1);
  EXPECT_EQ(b, 0x5a);
  SparseMemory plain;  // without digest mode nothing changes
  plain.write(0, page.data(), kPage);
  EXPECT_EQ(plain.pages(), 1u);
  EXPECT_TRUE(plain.sealed().empty());
}

TEST(SparseMemoryDigest, RewritingASealedPageReopensAndSealsAgain) {
  SparseMemory m;
  m.enable_digest();
  std::vector<uint8_t> a(kPage, 1), b(kPage, 2);
  m.write(0, a.data(), kPage);
  ASSERT_EQ(m.sealed().size(), 1u);
  m.write(0, b.data(), 4096);  // part of it: the rest of a's bytes are gone
  EXPECT_TRUE(m.sealed().empty());
  EXPECT_EQ(m.reopened(), (std::vector<uint64_t>{0}));
  EXPECT_TRUE(m.lost(0));
  m.write(4096, b.data(), kPage - 4096);  // rewritten completely
  ASSERT_EQ(m.sealed().size(), 1u);
  EXPECT_EQ(m.sealed().at(0), SparseMemory::digest_of(b.data()));
  EXPECT_TRUE(m.reopened().empty());
}
