// VCD writer tests: exact file text for out-of-order changes (sorted by cycle,
// last change in a cycle wins, unchanged values write nothing), hierarchical
// scopes, the 1 ps timescale with times = cycle x period, the [from, to] window,
// identifier codes beyond 94 variables, limits, groups, probes and write errors.
#include "model/core/vcd.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/core/error.h"

namespace {

namespace fs = std::filesystem;

class CoreVcd : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("oonic_core_vcd_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

// Four variables; codes are assigned in add order from '!' (ASCII 33): ! " # $.
void add_example(oonic::Vcd& v) {
  ASSERT_EQ(v.add_var("nic0.rx.psn", 24), 0);   // code !
  ASSERT_EQ(v.add_var("nic0.rx.valid", 1), 1);  // code "
  ASSERT_EQ(v.add_var("nic0.tx.busy", 1), 2);   // code #
  ASSERT_EQ(v.add_var("top", 8), 3);            // code $ (no scope)
  v.change(5, 0, 7);
  v.change(2, 1, 1);
  v.change(5, 1, 1);  // valid is already 1 since cycle 2: nothing written
  v.change(3, 2, 0);  // busy is already 0 (initial): nothing written, no time stamp
  v.change(7, 0, 7);  // psn: 7 -> 9 -> 8 within cycle 7, the last one wins
  v.change(7, 0, 9);
  v.change(7, 0, 8);
  v.change(9, 3, 255);
  v.change(9, 1, 0);
}

const char* const kHeader =
    "$comment oonic: times are whole NIC cycles x 4000 ps $end\n"
    "$timescale 1ps $end\n"
    "$var wire 8 $ top $end\n"
    "$scope module nic0 $end\n"
    "$scope module rx $end\n"
    "$var wire 24 ! psn $end\n"
    "$var wire 1 \" valid $end\n"
    "$upscope $end\n"
    "$scope module tx $end\n"
    "$var wire 1 # busy $end\n"
    "$upscope $end\n"
    "$upscope $end\n"
    "$enddefinitions $end\n";

TEST_F(CoreVcd, SortedDeduplicatedAndScaled) {
  oonic::Vcd v(4000);
  add_example(v);
  EXPECT_EQ(v.changes(), 9u);  // every recorded change is buffered
  v.write(path("a.vcd"));
  // Period 4000 ps: cycle 2 -> #8000, 5 -> #20000, 7 -> #28000, 9 -> #36000.
  // Multi-bit values are "b<binary> code" without leading zeros: 7 = b111,
  // 8 = b1000, 255 = b11111111. Within a cycle variables are written in add order.
  EXPECT_EQ(slurp(path("a.vcd")), std::string(kHeader) +
                                      "#0\n"
                                      "$dumpvars\n"
                                      "b0 !\n"
                                      "0\"\n"
                                      "0#\n"
                                      "b0 $\n"
                                      "$end\n"
                                      "#8000\n"
                                      "1\"\n"
                                      "#20000\n"
                                      "b111 !\n"
                                      "#28000\n"
                                      "b1000 !\n"
                                      "#36000\n"
                                      "0\"\n"
                                      "b11111111 $\n");
}

TEST_F(CoreVcd, WindowAppliesEarlierChangesToTheDump) {
  oonic::Vcd v(4000);
  add_example(v);
  v.write(path("w.vcd"), 4, 7);
  // from = 4: the dump is at 4 x 4000 = #16000 and shows valid = 1 (set at cycle 2);
  // cycles 5 and 7 are inside; cycle 9 > to = 7 is left out.
  EXPECT_EQ(slurp(path("w.vcd")), std::string(kHeader) +
                                      "#16000\n"
                                      "$dumpvars\n"
                                      "b0 !\n"
                                      "1\"\n"
                                      "0#\n"
                                      "b0 $\n"
                                      "$end\n"
                                      "#20000\n"
                                      "b111 !\n"
                                      "#28000\n"
                                      "b1000 !\n");
}

TEST_F(CoreVcd, ChangeBackWithinACycleWritesNothing) {
  oonic::Vcd v(3103);  // 322.265625 MHz rounds to 3103 ps
  int a = v.add_var("a", 4);
  v.change(1, a, 5);
  v.change(4, a, 9);
  v.change(4, a, 5);  // back to 5 within cycle 4: no stamp, no value
  v.change(6, a, 0);
  v.write(path("b.vcd"));
  // Cycle 1 -> #3103, cycle 6 -> #18618 (6 x 3103).
  EXPECT_EQ(slurp(path("b.vcd")),
            "$comment oonic: times are whole NIC cycles x 3103 ps $end\n"
            "$timescale 1ps $end\n"
            "$var wire 4 ! a $end\n"
            "$enddefinitions $end\n"
            "#0\n$dumpvars\nb0 !\n$end\n"
            "#3103\nb101 !\n"
            "#18618\nb0 !\n");
}

TEST_F(CoreVcd, WideValuesAndManyVariables) {
  oonic::Vcd v(1000);
  // 200 variables: codes are base-94 digits from '!', least significant first, so
  // 0 -> "!", 93 -> "~", 94 -> "!\"", 95 -> "\"\"", 199 -> 199 = 11 + 2*94 -> "," + "#".
  for (int i = 0; i < 200; ++i) v.add_var("s.v" + std::to_string(i), 64);
  v.change(1, 199, ~uint64_t{0});
  v.change(1, 0, uint64_t{1} << 63);
  v.write(path("c.vcd"));
  std::string s = slurp(path("c.vcd"));
  std::set<std::string> codes;
  std::istringstream is(s);
  std::string line;
  while (std::getline(is, line))
    if (line.rfind("$var wire 64 ", 0) == 0) {
      std::istringstream ls(line.substr(13));
      std::string code;
      ls >> code;
      codes.insert(code);
    }
  EXPECT_EQ(codes.size(), 200u);  // all distinct
  EXPECT_NE(s.find("$var wire 64 ~ v93 $end\n"), std::string::npos);
  EXPECT_NE(s.find("$var wire 64 !\" v94 $end\n"), std::string::npos);
  EXPECT_NE(s.find("$var wire 64 \"\" v95 $end\n"), std::string::npos);
  EXPECT_NE(s.find("$var wire 64 ,# v199 $end\n"), std::string::npos);
  // Cycle 1 -> #1000; 2^63 is a 1 and 63 zeros, 2^64-1 is 64 ones.
  EXPECT_NE(s.find("#1000\nb1" + std::string(63, '0') + " !\nb" + std::string(64, '1') + " ,#\n"),
            std::string::npos)
      << s;
}

TEST_F(CoreVcd, ProbeBindsAndRecords) {
  oonic::Probe off;
  EXPECT_FALSE(off.on());
  off.set(3, 1);  // unbound: nothing happens
  oonic::Vcd v(4000);
  oonic::Probe p, q;
  q.bind(nullptr, "x", 1);  // binding to no Vcd keeps it off
  EXPECT_FALSE(q.on());
  p.bind(&v, "nic0.q.depth", 8);
  EXPECT_TRUE(p.on());
  p.set(2, 3);
  p.set(1, 1);
  EXPECT_EQ(v.changes(), 2u);
  v.write(path("p.vcd"));
  // Out of order: cycle 1 (#4000) then 2 (#8000).
  std::string s = slurp(path("p.vcd"));
  EXPECT_NE(s.find("$scope module nic0 $end\n$scope module q $end\n$var wire 8 ! depth $end\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("$end\n#4000\nb1 !\n#8000\nb11 !\n"), std::string::npos) << s;
}

TEST_F(CoreVcd, WriteTwiceAndRecordAfterAWrite) {
  oonic::Vcd v(4000);
  add_example(v);
  v.write(path("1.vcd"));
  v.write(path("2.vcd"));  // the changes were sorted in place: same file again
  EXPECT_EQ(slurp(path("1.vcd")), slurp(path("2.vcd")));
  // Recorded after the first write, this is the last change of cycle 7: psn goes
  // 7 -> 9 -> 8 -> 7 within cycle 7, i.e. stays 7 (set at cycle 5): #28000 disappears.
  v.change(7, 0, 7);
  EXPECT_EQ(v.changes(), 10u);
  v.write(path("3.vcd"));
  std::string s = slurp(path("3.vcd"));
  EXPECT_EQ(s.find("#28000"), std::string::npos) << s;
  EXPECT_NE(s.find("#20000\nb111 !\n#36000\n0\"\nb11111111 $\n"), std::string::npos) << s;
}

TEST_F(CoreVcd, AtMost65536Variables) {
  oonic::Vcd v(1);
  for (int i = 0; i < 65536; ++i) ASSERT_EQ(v.add_var("v", 1), i);  // ids 0 .. 65535
  try {
    v.add_var("one.too.many", 1);
    ADD_FAILURE() << "expected an oonic::Error";
  } catch (const oonic::Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kModel);
    EXPECT_EQ(std::string(e.what()), "VCD: more than 65536 signals");
  }
}

TEST_F(CoreVcd, LargestPackedCycle) {
  oonic::Vcd v(1);  // 1 ps per cycle: times equal cycles
  v.add_var("a", 1);
  v.add_var("b", 1);
  const oonic::Cycle last = (oonic::Cycle{1} << 48) - 1;  // 2^48 - 1 = 281474976710655
  v.change(last, 0, 0);  // a: 1 -> 0 at the last representable cycle
  v.change(last, 1, 1);  // b: already 1 since cycle 3, nothing written
  v.change(3, 1, 1);
  v.change(3, 0, 1);
  v.write(path("big.vcd"));
  EXPECT_EQ(slurp(path("big.vcd")),
            "$comment oonic: times are whole NIC cycles x 1 ps $end\n"
            "$timescale 1ps $end\n"
            "$var wire 1 ! a $end\n"
            "$var wire 1 \" b $end\n"
            "$enddefinitions $end\n"
            "#0\n$dumpvars\n0!\n0\"\n$end\n"
            "#3\n1!\n1\"\n"
            "#281474976710655\n0!\n");
}

TEST_F(CoreVcd, Groups) {
  // A signal's group is the second component of its name, except bitmap_manager.
  EXPECT_EQ(oonic::Vcd::group_of("nic0.rx.parser.psn"), "rx");
  EXPECT_EQ(oonic::Vcd::group_of("nic0.rx.bitmap_manager.epsn"), "bitmap");
  EXPECT_EQ(oonic::Vcd::group_of("nic0.dma.addr"), "dma");
  EXPECT_EQ(oonic::Vcd::group_of("nic0.tx"), "tx");
  EXPECT_EQ(oonic::Vcd::group_of("top"), "");
  EXPECT_EQ(oonic::Vcd::known_groups(),
            (std::vector<std::string>{"rx", "bitmap", "dma", "control", "tx"}));
  oonic::Vcd v(4000);
  v.set_groups({"dma", "bitmap"});
  oonic::Probe rx, bm, dma;
  rx.bind(&v, "nic0.rx.parser.psn", 24);  // filtered out: stays off
  bm.bind(&v, "nic0.rx.bitmap_manager.epsn", 24);
  dma.bind(&v, "nic0.dma.addr", 64);
  EXPECT_FALSE(rx.on());
  EXPECT_TRUE(bm.on());
  EXPECT_TRUE(dma.on());
  EXPECT_EQ(v.add_var("nic0.tx.busy", 1), -1);
  rx.set(1, 5);  // off: not recorded
  bm.set(1, 5);
  dma.set(2, 1);
  EXPECT_EQ(v.changes(), 2u);
  v.write(path("g.vcd"));
  // Codes are only spent on recorded signals: epsn "!", addr "\"".
  std::string s = slurp(path("g.vcd"));
  EXPECT_NE(s.find("$var wire 24 ! epsn $end"), std::string::npos) << s;
  EXPECT_NE(s.find("$var wire 64 \" addr $end"), std::string::npos) << s;
  EXPECT_EQ(s.find(" psn $end"), std::string::npos) << s;
  EXPECT_NE(s.find("#4000\nb101 !\n#8000\nb1 \"\n"), std::string::npos) << s;
}

TEST_F(CoreVcd, CannotWrite) {
  oonic::Vcd v(4000);
  std::string bad = path("no/such/dir/x.vcd");
  try {
    v.write(bad);
    FAIL() << "expected an oonic::Error";
  } catch (const oonic::Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kIo);
    EXPECT_EQ(std::string(e.what()), bad + ": cannot write VCD");
  }
}

}  // namespace
