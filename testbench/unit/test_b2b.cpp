// The b2b platform's plain parts: WQE/CQE layouts, the workload generator and
// the scoreboard (which must catch each kind of wrong result).
#include <gtest/gtest.h>

#include "model/core/error.h"
#include "model/ornic/wqe.h"
#include "platforms/b2b/scoreboard.h"
#include "platforms/host/workload.h"

namespace oonic {
namespace {

TEST(Wqe, EncodeDecodeRoundTripAndBadOpcode) {
  ornic::Wqe w;
  w.wr_id = 0x1122334455667788ull;
  w.op = ornic::WqeOp::kRead;
  w.ooo = true;
  w.length = 1 << 20;
  w.local_addr = 0xA000;
  w.remote_addr = 0xB000;
  w.rkey = 0x99;
  uint8_t b[ornic::kWqeBytes];
  w.encode(b);
  EXPECT_EQ(b[8], 1);
  EXPECT_EQ(b[9], 1);
  ornic::Wqe x;
  ASSERT_TRUE(x.decode(b));
  EXPECT_EQ(x.wr_id, w.wr_id);
  EXPECT_EQ(x.op, w.op);
  EXPECT_TRUE(x.ooo);
  EXPECT_EQ(x.length, w.length);
  EXPECT_EQ(x.local_addr, w.local_addr);
  EXPECT_EQ(x.remote_addr, w.remote_addr);
  EXPECT_EQ(x.rkey, w.rkey);
  b[8] = 7;
  EXPECT_FALSE(x.decode(b));
  ornic::Cqe c;
  c.wr_id = 5, c.qpn = 0x1234, c.op = ornic::WqeOp::kSend, c.status = 2, c.byte_len = 77;
  c.start_psn = 0xABCDE;
  uint8_t cb[ornic::kCqeBytes];
  c.encode(cb);
  ornic::Cqe d;
  d.decode(cb);
  EXPECT_EQ(d.wr_id, 5u);
  EXPECT_EQ(d.qpn, 0x1234u);
  EXPECT_EQ(d.op, ornic::WqeOp::kSend);
  EXPECT_EQ(d.status, 2);
  EXPECT_EQ(d.owner, 1);
  EXPECT_EQ(d.byte_len, 77u);
  EXPECT_EQ(d.start_psn, 0xABCDEu);
}

TEST(Workload, SizesParseWithSuffixesAndRejectBadText) {
  EXPECT_EQ(host::parse_bytes("4096", "k"), 4096u);
  EXPECT_EQ(host::parse_bytes("64K", "k"), 65536u);
  EXPECT_EQ(host::parse_bytes("256M", "k"), 256u << 20);
  EXPECT_EQ(host::parse_bytes("1g", "k"), 1u << 30);
  for (const char* bad : {"", "12Q", "K", "-4", "4 K", "8G"}) {
    try {
      host::parse_bytes(bad, "workload.wqe_bytes");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("workload.wqe_bytes"), std::string::npos) << bad;
    }
  }
}

TEST(Workload, DeterministicMixAndModes) {
  host::WorkloadParams p;
  p.qps = 3;
  p.wqes_per_qp = 400;
  p.mix = "write:2,read:1,send:1";
  p.mode = "alternate";
  p.wqe_bytes = "4K,1M";
  auto a = host::make_workload(p, 7), b = host::make_workload(p, 7), c = host::make_workload(p, 8);
  ASSERT_EQ(a.size(), 3u);
  int n[3] = {0, 0, 0}, diff = 0;
  for (uint32_t q = 0; q < 3; ++q) {
    ASSERT_EQ(a[q].size(), 400u);
    for (uint32_t i = 0; i < 400; ++i) {
      const auto& w = a[q][i];
      EXPECT_EQ(w.qp, q);
      EXPECT_EQ(w.op, b[q][i].op);
      EXPECT_EQ(w.bytes, b[q][i].bytes);
      diff += w.op != c[q][i].op || w.bytes != c[q][i].bytes;
      EXPECT_TRUE(w.bytes == 4096 || w.bytes == (1u << 20));
      ++n[static_cast<int>(w.op)];
      // alternate: even positions OOO, except SEND which has no OOO form
      EXPECT_EQ(w.ooo, i % 2 == 0 && w.op != ornic::WqeOp::kSend);
    }
  }
  EXPECT_GT(diff, 100);
  // 1200 draws with weights 2:1:1 (loose bounds: > 6 sigma away would fail)
  EXPECT_NEAR(n[0], 600, 110);
  EXPECT_NEAR(n[1], 300, 95);
  EXPECT_NEAR(n[2], 300, 95);
  p.mix = "read";
  p.mode = "standard";
  auto reads = host::make_workload(p, 1);
  for (const auto& w : reads[0]) {
    EXPECT_EQ(w.op, ornic::WqeOp::kRead);
    EXPECT_FALSE(w.ooo);
  }
}

TEST(Workload, CrossKeyChecksNameTheKeys) {
  host::WorkloadParams p;
  p.queue_depth = 100;
  p.sq_entries = 64;
  try {
    p.validate();
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("workload.queue_depth"), std::string::npos);
  }
  p = host::WorkloadParams{};
  p.mix = "write:0,read:0";
  EXPECT_THROW(p.validate(), Error);
  p.mix = "write:x";
  EXPECT_THROW(p.validate(), Error);
}

// Three WQEs: a WRITE (A -> B), a READ (B -> A), a SEND (A -> B), all correct.
struct Board {
  SparseMemory a, b;
  std::vector<host::WqeRecord> recs;
  std::vector<uint64_t> src;
  Board() {
    std::vector<uint8_t> d(5000);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i * 13 + 1);
    auto add = [&](ornic::WqeOp op, uint64_t s, uint64_t dst) {
      host::WqeRecord r;
      r.wqe.wr_id = recs.size();
      r.wqe.op = op;
      r.wqe.length = 5000;
      r.dest_addr = dst;
      r.posted = true;
      r.cqes = 1;
      r.post_ps = 100;
      r.cqe_ps = 1000;
      r.last_data_ps = op == ornic::WqeOp::kRead ? 900 : 0;
      recs.push_back(r);
      src.push_back(s);
      (op == ornic::WqeOp::kRead ? b : a).write(s, d.data(), d.size());
      (op == ornic::WqeOp::kRead ? a : b).write(dst, d.data(), d.size());
    };
    add(ornic::WqeOp::kWrite, 0x1000, 0x9000);
    add(ornic::WqeOp::kRead, 0x20000, 0x30000);
    add(ornic::WqeOp::kSend, 0x40000, 0x50000);
  }
  b2b::ScoreboardResult check(uint64_t bad_cqes = 0) {
    return b2b::check(recs, src, a, b, bad_cqes);
  }
};

TEST(Scoreboard, CleanRunIsOk) {
  Board s;
  auto r = s.check();
  EXPECT_TRUE(r.ok()) << r.text();
  EXPECT_EQ(r.completed, 3u);
  EXPECT_EQ(r.bytes_checked, 15000u);
}

TEST(Scoreboard, CatchesEachKindOfWrongResult) {
  struct Case {
    const char* name;
    std::function<void(Board&)> spoil;
    const char* needle;
  } cases[] = {
      {"missing CQE", [](Board& s) { s.recs[0].cqes = 0; }, "no CQE"},
      {"two CQEs", [](Board& s) { s.recs[2].cqes = 2; }, "2 CQEs"},
      {"error status", [](Board& s) { s.recs[1].status = 1; }, "status 1"},
      {"WRITE byte wrong at B",
       [](Board& s) {
         uint8_t x = 0;
         s.b.write(0x9000 + 4321, &x, 1);
       },
       "differs from source at byte 4321"},
      {"READ byte wrong at A",
       [](Board& s) {
         uint8_t x = 0xEE;
         s.a.write(0x30000, &x, 1);
       },
       "at byte 0"},
      {"READ CQE before its data", [](Board& s) { s.recs[1].last_data_ps = 2000; },
       "before its last data"},
      {"READ data after its CQE", [](Board& s) { s.recs[1].data_after_cqe = true; }, "READ CQE"},
      {"never posted",
       [](Board& s) {
         s.recs[2].posted = false;
         s.recs[2].cqes = 0;
       },
       "never posted"},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(c.name);
    Board s;
    c.spoil(s);
    auto r = s.check();
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.failure_count, 1u) << r.text();
    EXPECT_NE(r.text().find(c.needle), std::string::npos) << r.text();
  }
  Board s;
  EXPECT_FALSE(s.check(2).ok());
  EXPECT_NE(s.check(2).text().find("2 CQE(s) matching no posted WQE"), std::string::npos);
}

}  // namespace
}  // namespace oonic
