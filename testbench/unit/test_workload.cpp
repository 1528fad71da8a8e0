// Flow workloads (platforms/network/workload.h), without the kernel: the shipped
// size CDFs, draws and means derived by hand, ns-3 HPCC's flow file, and
// generated flows (patterns, offered load, determinism).
#include "platforms/network/workload.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "model/core/error.h"

namespace oonic::network {
namespace {

std::string data(const std::string& f) {
  return std::string(OONIC_SOURCE_DIR) + "/data/cdf/" + f;
}

class WorkloadFiles : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    char tmpl[] = "/tmp/oonic-wl-XXXXXX";
    int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    close(fd);
    paths_.push_back(tmpl);
    std::ofstream(paths_.back()) << text;
    return paths_.back();
  }
  void TearDown() override {
    for (const auto& p : paths_) std::remove(p.c_str());
  }
  template <class F>
  std::string error(F f) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.id(), msg::kConfig);
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  std::vector<std::string> paths_;
};

TEST_F(WorkloadFiles, WebSearchCdfMeanAndDraws) {
  SizeCdf c = SizeCdf::read(data("websearch.txt"));
  // Sum of (x0 + x1) / 2 x (p1 - p0) / 100 over the 11 segments:
  // 5000x15 + 15000x5 + 25000x10 + 40000x10 + 65000x13 + 140000x7 + 600000x10
  // + 1.5e6x10 + 3.5e6x10 + 7.5e6x7 + 2e7x3 = 2,625,000 + 168,500,000 -> /100.
  EXPECT_DOUBLE_EQ(c.mean(), 1711250.0);
  // u = 0.5: p = 50 on (50000, 40)-(80000, 53): 50000 + 30000 x 10 / 13 = 73076.9 -> 73077.
  EXPECT_EQ(c.sample(0.5), 73077u);
  EXPECT_EQ(c.sample(0.0), 1u);  // size 0 is drawn as one byte
  EXPECT_EQ(c.sample(0.999999999), 30000000u);
  SizeCdf fb = SizeCdf::read(data("fb_hadoop.txt"));
  // p = 10 on (300, 5)-(350, 15): 325.
  EXPECT_EQ(fb.sample(0.10), 325u);
}

TEST_F(WorkloadFiles, CdfErrorsNameFileAndLine) {
  std::string p = write("0 0\n100 50\n90 60\n200 100\n");
  EXPECT_NE(error([&] { SizeCdf::read(p); }).find(p + ":3: sizes and percents must not decrease"),
            std::string::npos);
  p = write("# comment\n0 0\n100 90\n");
  EXPECT_NE(error([&] { SizeCdf::read(p); }).find(p + ":3: the last percent must be 100"),
            std::string::npos);
  p = write("0 0\n100 fifty\n");
  EXPECT_NE(error([&] { SizeCdf::read(p); }).find(p + ":2: percent 'fifty'"), std::string::npos);
  p = write("0 0\n100 100 7\n");
  EXPECT_NE(error([&] { SizeCdf::read(p); }).find(p + ":2: expected 'bytes cumulative-percent'"),
            std::string::npos);
  p = write("0 0\n1e30 100\n");
  EXPECT_NE(error([&] { SizeCdf::read(p); }).find(p + ":2: bytes '1e30'"), std::string::npos);
  EXPECT_NE(error([&] { SizeCdf::read("/nonexistent/cdf.txt"); }).find("cannot open"),
            std::string::npos);
}

TEST_F(WorkloadFiles, HpccFlowFileReadsAndWritesBack) {
  // Hosts first (node id = host index), as in a generated topology.
  const std::vector<int32_t> three = {0, 1, 2};
  std::string p = write("3\n0 1 3 100 1000 0.000001\n2 0 3 100 5000 0.000002\n1 2 3 100 7 2e-6\n");
  std::vector<Flow> f = read_hpcc_flows(p, three);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1].src, 2u);
  EXPECT_EQ(f[1].bytes, 5000u);
  EXPECT_EQ(f[1].start_ps, 2000000u);
  EXPECT_EQ(f[2].line, 4u);
  EXPECT_EQ(hpcc_flows_text(f, {0, 1, 2}),
            "3\n0 1 3 100 1000 0.000001000\n2 0 3 100 5000 0.000002000\n1 2 3 100 7 0.000002000\n");
}

TEST_F(WorkloadFiles, HpccFlowFileNamesNodeIds) {
  // ns-3 HPCC's mix/topology.txt numbers its switch 0 and hosts 1..: node 1 is host 0.
  const std::vector<int32_t> nodes = {-1, 0, 1, 2};
  std::vector<Flow> f =
      read_hpcc_flows(write("2\n1 3 3 100 1000 2.0\n3 2 3 101 10 2.000001\n"), nodes);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].src, 0u);
  EXPECT_EQ(f[0].dst, 2u);
  EXPECT_EQ(f[1].dport, 101u);
  EXPECT_EQ(f[0].start_ps, 2000000000000u);
  // Written back by node id.
  EXPECT_EQ(hpcc_flows_text(f, {1, 2, 3}).substr(0, 23), "2\n1 3 3 100 1000 2.0000");
  const std::string bad = write("1\n0 1 3 100 10 0\n");
  EXPECT_NE(error([&] { read_hpcc_flows(bad, nodes); }).find(bad + ":2: src node 0 is a switch"),
            std::string::npos);
}

TEST_F(WorkloadFiles, HpccFlowFileReadsTheCountsFlowsOnly) {
  // ns-3 HPCC's mix/flow.txt: a count of 2, more flow lines, then a description.
  const std::vector<int32_t> three = {0, 1, 2};
  FlowFileInfo info;
  std::vector<Flow> f = read_hpcc_flows(
      write("2\n0 1 3 100 10 2\n1 2 3 100 10 2\n2 0 3 100 10 2\n\nFirst line: # of flows\n"), three,
      kMaxFlows, &info);
  EXPECT_EQ(f.size(), 2u);
  EXPECT_EQ(info.count_line, 1u);
  EXPECT_EQ(info.ignored_from, 4u);
  read_hpcc_flows(write("\n1\n0 1 3 100 10 2\n\n"), three, kMaxFlows, &info);
  EXPECT_EQ(info.count_line, 2u);
  EXPECT_EQ(info.ignored_from, 0u);
  // A trailing line longer than any reader takes is still only not read.
  read_hpcc_flows(write("1\n0 1 3 100 10 2\n" + std::string(3 << 20, 'x') + "\n"), three, kMaxFlows,
                  &info);
  EXPECT_EQ(info.ignored_from, 3u);
  // More flows than the cap a caller sets: refused at the count.
  const std::string p = write("3\n0 1 3 100 10 2\n");
  EXPECT_NE(error([&] { read_hpcc_flows(p, three, 2); }).find(p + ":1: the number of flows '3'"),
            std::string::npos);
}

TEST_F(WorkloadFiles, HpccFlowFileRefusesWhatItCannotRun) {
  const std::vector<int32_t> three = {0, 1, 2};
  // Each: file text, the line and words the error must carry.
  const std::pair<const char*, const char*> cases[] = {
      {"2\n0 0 3 100 10 0\n", ":2: a flow from node 0 to itself"},
      {"1\n0 9 3 100 10 0\n", ":2: dst node '9'"},
      {"3\n0 1 3 100 10 0\n", ":3: expected 3 flows (the count on line 1), found 1"},
      {"2\n0 1 3 100 10 0.5\n1 0 3 100 10 0.1\n", ":3: start 0.1 s is before"},
      // No count line: the first flow is not taken for a count.
      {"0 1 3 100 10 0\n1 2 3 100 10 0\n", ":1: expected the number of flows alone"},
      {"1e3\n", ":1: the number of flows '1e3'"},
      {"2.5\n", ":1: the number of flows '2.5'"},
      {"1\n0 1 3 100 18446744073709551616 0\n", ":2: bytes '18446744073709551616'"},
      {"1\n0 1 3 100 18446744073709551615 0\n", ":2: bytes '18446744073709551615'"},
      {"1\n0 1 3 100 1e30 0\n", ":2: bytes '1e30'"},
      {"1\n0 1 3 100 1.5 0\n", ":2: bytes '1.5'"},
      {"1\n0 1 3 100 2147483648 0\n", ":2: bytes '2147483648'"},
      {"1\n0 1 3 100 0 0\n", ":2: bytes '0'"},
      {"1\n0 1 -1 100 10 0\n", ":2: priority '-1'"},
      {"1\n0 1 4294967296 100 10 0\n", ":2: priority '4294967296'"},
      {"1\n0 1 3 65536 10 0\n", ":2: dport '65536'"},
      {"1\n0 1 3 100 10 0 7\n", ":2: expected 'src dst priority dport bytes start_s', found 7"},
      {"1\n0 1 3 100 10 nan\n", ":2: start_s 'nan'"},
      {"1\n0 1 3 100 10 inf\n", ":2: start_s 'inf'"},
      {"1\n0 1 3 100 10 0x10\n", ":2: start_s '0x10'"},
  };
  for (const auto& [text, want] : cases) {
    const std::string p = write(text);
    const std::string e = error([&] { read_hpcc_flows(p, three); });
    EXPECT_NE(e.find(p + want), std::string::npos) << text << "\n" << e;
  }
}

TEST(Workload, OfferedLoadMatchesTheTarget) {
  // Every flow 1000 B: host h starts flows at rate 0.5 x 100 Gbit/s / 8000 bit =
  // 6.25 M/s, 6250 expected in 1 ms; 8 hosts: 50,000 +- 224 (Poisson).
  SizeCdf c = SizeCdf::from_points({{1000, 0}, {1000, 100}}, "fixed");
  WorkloadParams p;
  p.load = 0.5;
  p.host_gbps = 100;
  p.duration_s = 0.001;
  std::vector<Flow> f = generate_flows(p, c, 8);
  EXPECT_NEAR(static_cast<double>(f.size()), 50000, 4 * std::sqrt(50000.0));
  for (size_t i = 1; i < f.size(); ++i) ASSERT_LE(f[i - 1].start_ps, f[i].start_ps);
  for (const Flow& x : f) {
    ASSERT_NE(x.src, x.dst);
    ASSERT_LT(x.start_ps, 1000000000u);
    ASSERT_EQ(x.bytes, 1000u);
  }
}

TEST(Workload, PatternsAndDeterminism) {
  SizeCdf c = SizeCdf::read(data("fb_hadoop.txt"));
  WorkloadParams p;
  p.pattern = "permutation";
  p.duration_s = 0.0002;
  std::vector<Flow> f = generate_flows(p, c, 16);
  std::vector<int> dst_of(16, -1);
  for (const Flow& x : f) {
    ASSERT_NE(x.src, x.dst);
    if (dst_of[x.src] < 0) dst_of[x.src] = static_cast<int>(x.dst);
    ASSERT_EQ(dst_of[x.src], static_cast<int>(x.dst));  // always the same destination
  }
  std::set<int> dsts(dst_of.begin(), dst_of.end());
  EXPECT_EQ(dsts.size(), 16u);  // a permutation: every host receives from one
  p.pattern = "incast";
  for (const Flow& x : generate_flows(p, c, 16)) {
    ASSERT_EQ(x.dst, 0u);
    ASSERT_NE(x.src, 0u);
  }
  p.pattern = "random";
  std::vector<Flow> a = generate_flows(p, c, 16), b = generate_flows(p, c, 16);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(a[i].src == b[i].src && a[i].dst == b[i].dst && a[i].bytes == b[i].bytes &&
                a[i].start_ps == b[i].start_ps);
  p.seed = 2;
  std::vector<Flow> d = generate_flows(p, c, 16);
  EXPECT_FALSE(d.size() == a.size() && d[0].start_ps == a[0].start_ps);
}

TEST(Workload, OnceStartsOneFlowPerSenderAtZero) {
  SizeCdf c = SizeCdf::from_points({{4096, 0}, {4096, 100}}, "x");
  WorkloadParams p;
  p.arrival = "once";
  p.pattern = "incast";
  std::vector<Flow> f = generate_flows(p, c, 8);
  ASSERT_EQ(f.size(), 7u);
  for (uint32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(f[i].src, i + 1);
    EXPECT_EQ(f[i].dst, 0u);
    EXPECT_EQ(f[i].start_ps, 0u);
    EXPECT_EQ(f[i].bytes, 4096u);
  }
  p.pattern = "permutation";
  EXPECT_EQ(generate_flows(p, c, 8).size(), 8u);
}

TEST(Workload, MixSendsItsShareAcrossTheHalves) {
  SizeCdf c = SizeCdf::from_points({{1000, 0}, {1000, 100}}, "x");
  WorkloadParams p;
  p.pattern = "mix";
  p.inter_fraction = 0.25;
  p.load = 0.5;
  p.duration_s = 0.001;
  std::vector<Flow> f = generate_flows(p, c, 16);
  size_t across = 0;
  for (const Flow& x : f) {
    ASSERT_NE(x.src, x.dst);
    across += (x.src < 8) != (x.dst < 8);
  }
  ASSERT_GT(f.size(), 10000u);
  // Binomial(n, 0.25): within 5 standard deviations.
  const double n = static_cast<double>(f.size()), sd = std::sqrt(n * 0.25 * 0.75);
  EXPECT_NEAR(static_cast<double>(across), 0.25 * n, 5 * sd);
  EXPECT_THROW(generate_flows(p, c, 7), Error);  // two equal halves needed
}

TEST(Workload, BadParametersNameTheKey) {
  SizeCdf c = SizeCdf::from_points({{0, 0}, {1000, 100}}, "x");
  WorkloadParams p;
  p.load = 1.0;
  try {
    generate_flows(p, c, 4);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("flows.load"), std::string::npos);
  }
  p.load = 0.5;
  p.pattern = "all-to-one";
  EXPECT_THROW(generate_flows(p, c, 4), Error);
  p.pattern = "random";
  EXPECT_THROW(generate_flows(p, c, 1), Error);
}

}  // namespace
}  // namespace oonic::network
