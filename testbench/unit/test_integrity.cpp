// The replay's integrity check (platforms/replay/integrity.h): later writes win
// where payloads overlap, the verdict names the first differing byte of the
// first piece in PSN order, and a capture read back from its file gives the same
// verdict as the same frames held in memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "model/ornic/ornic_params.h"
#include "platforms/replay/integrity.h"
#include "platforms/replay/setup.h"
#include "platforms/trace/pcap_io.h"
#include "platforms/trace/sidecar.h"
#include "platforms/trace/trace.h"

namespace oonic::replay {
namespace {

// Three WRITE Only packets: PSN 1's payload overlaps the upper half of PSN 0's,
// and arrives first (record 1), so trace order and PSN order disagree.
const char* kTrace =
    "# oonic-trace v1\n"
    "0 op=WRITE_ONLY qp=0x11 psn=1 va=0x10020 rkey=0x1234 dmalen=64 len=64 "
    "payload=pat:0xb0000\n"
    "100 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 dmalen=64 len=64 "
    "payload=pat:0xa0000\n"
    "200 op=WRITE_ONLY qp=0x11 psn=2 va=0x20000 rkey=0x1234 dmalen=64 len=64 "
    "payload=pat:0xc0000\n";
const char* kSidecar =
    "dut: {ip: 10.0.0.2, mac: \"02:00:00:00:00:02\"}\n"
    "qps:\n"
    "  - qpn: 0x11\n"
    "    start_psn: 0\n"
    "    pmtu: 4096\n"
    "    regions: [{base: 0x10000, length: 0x20000, rkey: 0x1234}]\n";

std::vector<uint8_t> pat(uint64_t addr, size_t n) {
  std::vector<uint8_t> b(n);
  trace::fill_pattern(addr, b.data(), n);
  return b;
}

class Integrity : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/oonic-integrity-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/t.txt") << kTrace;
    std::ofstream(dir_ + "/t.qps.yaml") << kSidecar;
    // The same frames as a capture (read back from the file by the check).
    trace::Trace text = trace::Trace::load(dir_ + "/t.txt");
    {
      trace::PcapWriter w(dir_ + "/t.pcap");
      std::vector<uint8_t> buf;
      for (const auto& r : text.records) w.write(r.time_ps, text.frame(r, buf), r.len);
      w.close();
    }
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  // The check of `file` against host memory written by `fill`.
  template <class F>
  IntegrityResult check(const std::string& file, F fill) {
    trace::Trace t = trace::Trace::load(dir_ + "/" + file);
    EXPECT_EQ(t.in_file(), file == "t.pcap");
    std::optional<trace::Sidecar> sc = trace::load_sidecar(dir_ + "/t.qps.yaml");
    ornic::OrnicParams p;
    ReplaySetup setup = make_setup(t, sc, "", p);
    SparseMemory host;
    fill(host);
    return check_integrity(t, setup, host);
  }
  std::string dir_;
};

void write(SparseMemory& m, uint64_t addr, const std::vector<uint8_t>& b, size_t from = 0,
           size_t n = 64) {
  m.write(addr, b.data() + from, n);
}

TEST_F(Integrity, LaterWriteWinsWhereTheyOverlap) {
  for (const char* f : {"t.txt", "t.pcap"}) {
    // PSN order: PSN 0 at 0x10000, then PSN 1 over 0x10020..0x1005f, PSN 2 apart.
    IntegrityResult r = check(f, [](SparseMemory& m) {
      write(m, 0x10000, pat(0xa0000, 64));
      write(m, 0x10020, pat(0xb0000, 64));
      write(m, 0x20000, pat(0xc0000, 64));
    });
    EXPECT_TRUE(r.checked) << f;
    EXPECT_TRUE(r.ok) << f << ": " << r.text();
    EXPECT_EQ(r.bytes, 192u) << f;
    EXPECT_EQ(r.ranges, 3u) << f;
  }
}

TEST_F(Integrity, EarlierWriteLeftInPlaceIsReportedAtTheFirstPieceThatSeesIt) {
  for (const char* f : {"t.txt", "t.pcap"}) {
    // PSN 1's bytes were overwritten by PSN 0's (painted in trace order, not PSN
    // order): 0x10020.. hold PSN 0's upper half. The first piece in PSN order
    // covering it is PSN 0's (record 2); the byte expected is PSN 1's first.
    IntegrityResult r = check(f, [](SparseMemory& m) {
      write(m, 0x10020, pat(0xb0000, 64));
      write(m, 0x10000, pat(0xa0000, 64));
      write(m, 0x20000, pat(0xc0000, 64));
    });
    EXPECT_FALSE(r.ok) << f;
    EXPECT_EQ(r.first_bad_addr, 0x10020u) << f;
    EXPECT_EQ(r.expected, pat(0xb0000, 1)[0]) << f;
    EXPECT_EQ(r.actual, pat(0xa0000 + 0x20, 1)[0]) << f;
    EXPECT_EQ(r.record, 2u) << f;
  }
}

TEST_F(Integrity, MismatchInALaterPieceNamesItsRecord) {
  for (const char* f : {"t.txt", "t.pcap"}) {
    IntegrityResult r = check(f, [](SparseMemory& m) {
      write(m, 0x10000, pat(0xa0000, 64));
      write(m, 0x10020, pat(0xb0000, 64));
      auto c = pat(0xc0000, 64);
      c[10] ^= 0x5a;
      write(m, 0x20000, c);
    });
    EXPECT_FALSE(r.ok) << f;
    EXPECT_EQ(r.first_bad_addr, 0x2000au) << f;
    EXPECT_EQ(r.expected, pat(0xc0000 + 10, 1)[0]) << f;
    EXPECT_EQ(r.record, 3u) << f;  // PSN 2 is the trace's third record
  }
}

TEST_F(Integrity, WithoutOverlapTheEarliestPieceInPsnOrderIsReported) {
  // Two separate payloads, both wrong. PSN 1's comes first in the trace (record 1);
  // the verdict names PSN 0's (record 2), the first in PSN order.
  const char* t2 =
      "# oonic-trace v1\n"
      "0 op=WRITE_ONLY qp=0x11 psn=1 va=0x20000 rkey=0x1234 dmalen=64 len=64 "
      "payload=pat:0xc0000\n"
      "100 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 dmalen=64 len=64 "
      "payload=pat:0xa0000\n";
  std::ofstream(dir_ + "/t.txt") << t2;
  IntegrityResult r = check("t.txt", [](SparseMemory& m) {
    write(m, 0x10000, std::vector<uint8_t>(64, 0xee));
    write(m, 0x20000, std::vector<uint8_t>(64, 0xee));
  });
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.first_bad_addr, 0x10000u);
  EXPECT_EQ(r.record, 2u);
}

}  // namespace
}  // namespace oonic::replay

namespace oonic::replay {
namespace {

// host.memory.digest: 512 WRITE Only packets of 4 KB fill the 2 MiB host page at
// 0x200000 (PSN k at 0x200000 + 4096 k), arriving in reverse PSN order.
class IntegrityDigest : public Integrity {
 protected:
  void SetUp() override {
    Integrity::SetUp();
    std::ofstream t(dir_ + "/d.txt");
    t << "# oonic-trace v1\n";
    for (int k = 511; k >= 0; --k)
      t << (511 - k) * 1000 << " op=WRITE_ONLY qp=0x11 psn=" << k << " va=0x" << std::hex
        << (0x200000 + 4096 * k) << " rkey=0x1234 dmalen=4096 len=4096 payload=pat:0x"
        << (0x200000 + 4096 * k) << std::dec << "\n";
    std::ofstream(dir_ + "/d.qps.yaml")
        << "dut: {ip: 10.0.0.2, mac: \"02:00:00:00:00:02\"}\nqps:\n  - qpn: 0x11\n"
           "    start_psn: 0\n    pmtu: 4096\n"
           "    regions: [{base: 0x200000, length: 0x200000, rkey: 0x1234}]\n";
  }
  template <class F>
  IntegrityResult check_digest(F fill) {
    trace::Trace t = trace::Trace::load(dir_ + "/d.txt");
    std::optional<trace::Sidecar> sc = trace::load_sidecar(dir_ + "/d.qps.yaml");
    ornic::OrnicParams p;
    ReplaySetup setup = make_setup(t, sc, "", p);
    SparseMemory host;
    host.enable_digest();
    fill(host);
    return check_integrity(t, setup, host);
  }
};

TEST_F(IntegrityDigest, ACompletePageIsComparedByItsDigest) {
  IntegrityResult r = check_digest([](SparseMemory& m) {
    m.write(0x200000, pat(0x200000, 0x200000).data(), 0x200000);
    EXPECT_EQ(m.sealed().size(), 1u);
  });
  EXPECT_TRUE(r.ok) << r.text();
  EXPECT_EQ(r.bytes, 0x200000u);
  EXPECT_EQ(r.unverified_bytes, 0u);
}

TEST_F(IntegrityDigest, AWrongByteNamesThePageAndTheFirstPieceInPsnOrder) {
  IntegrityResult r = check_digest([](SparseMemory& m) {
    auto b = pat(0x200000, 0x200000);
    b[0x12345] ^= 1;
    m.write(0x200000, b.data(), b.size());
  });
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.digest_page);
  EXPECT_EQ(r.first_bad_addr, 0x200000u);
  EXPECT_EQ(r.record, 512u);  // PSN 0 is the last record
  EXPECT_NE(r.text().find("kept as a digest"), std::string::npos) << r.text();
}

TEST_F(IntegrityDigest, APageThePayloadsDoNotFillIsNotComparable) {
  // Host bytes past the payloads (0x3ff000..) make the page complete; the
  // payloads alone do not fill it, so it cannot be compared: counted, not failed.
  std::ofstream t(dir_ + "/d.txt");
  t << "# oonic-trace v1\n";
  for (int k = 0; k < 511; ++k)
    t << k * 1000 << " op=WRITE_ONLY qp=0x11 psn=" << k << " va=0x" << std::hex
      << (0x200000 + 4096 * k) << " rkey=0x1234 dmalen=4096 len=4096 payload=pat:0x"
      << (0x200000 + 4096 * k) << std::dec << "\n";
  t.close();
  IntegrityResult r = check_digest(
      [](SparseMemory& m) { m.write(0x200000, pat(0x200000, 0x200000).data(), 0x200000); });
  EXPECT_TRUE(r.ok) << r.text();
  EXPECT_EQ(r.unverified_bytes, 511u * 4096);
  EXPECT_NE(r.text().find("not comparable"), std::string::npos) << r.text();
}

TEST_F(IntegrityDigest, AReusedPageIsComparedWithTheLastWritesBytes) {
  // Two WQEs write the page: PSN 0..511 with one pattern, 512..1023 with another.
  std::ofstream t(dir_ + "/d.txt");
  t << "# oonic-trace v1\n";
  for (int k = 0; k < 1024; ++k)
    t << k * 1000 << " op=WRITE_ONLY qp=0x11 psn=" << k << " va=0x" << std::hex
      << (0x200000 + 4096 * (k % 512)) << " rkey=0x1234 dmalen=4096 len=4096 payload=pat:0x"
      << (k < 512 ? 0x200000 : 0x600000) + 4096 * (k % 512) << std::dec << "\n";
  t.close();
  auto run = [&](bool second_last) {
    return check_digest([&](SparseMemory& m) {
      auto a = pat(0x200000, 0x200000), b = pat(0x600000, 0x200000);
      m.write(0x200000, (second_last ? a : b).data(), 0x200000);
      for (uint64_t o = 0; o < 0x200000; o += 4096)  // rewritten in pieces: reopened, resealed
        m.write(0x200000 + o, (second_last ? b : a).data() + o, 4096);
      EXPECT_EQ(m.sealed().size(), 1u);
    });
  };
  IntegrityResult ok = run(true);
  EXPECT_TRUE(ok.ok) << ok.text();
  EXPECT_EQ(ok.ranges, 1024u);
  IntegrityResult bad = run(false);
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(bad.digest_page);
  EXPECT_EQ(bad.first_bad_addr, 0x200000u);
  EXPECT_EQ(bad.record, 1u);  // PSN 0's piece is the first in PSN order on that page
}

}  // namespace
}  // namespace oonic::replay
