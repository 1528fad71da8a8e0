// `oonic trace` tools: Python-compatible random stream and windowed shuffle,
// perturb (shuffle bound, drops / retransmissions, duplicates, multipath) checked
// with stats, the text writer's field form, and convert round trips on the real
// captures.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "model/wire/uet_frame.h"
#include "platforms/cli/cli.h"
#include "platforms/common/arrival_order.h"
#include "platforms/common/py_random.h"
#include "platforms/trace/sidecar.h"
#include "platforms/trace/text_writer.h"
#include "platforms/trace/trace.h"
#include "platforms/trace/trace_tools.h"

namespace oonic::trace {
namespace {

// A frame read back from a trace (its bytes stay valid until the next read).
std::vector<uint8_t>& frame_buf() {
  static std::vector<uint8_t> b;
  return b;
}

class TraceToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/oonic_trace_tools_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string write(const std::string& name, const std::string& content) {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  // Frames owning the concatenated bytes of `frames`, the i-th at time i x step_ps, from
  // source record i + 1.
  static Frames frames_of(const std::vector<std::vector<uint8_t>>& frames, int64_t step_ps) {
    std::vector<uint8_t> bytes;
    for (const auto& f : frames) bytes.insert(bytes.end(), f.begin(), f.end());
    Frames fr = Frames::own(bytes);
    uint64_t off = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      Frame f;
      f.offset = off;
      f.len = f.wire_len = static_cast<uint32_t>(frames[i].size());
      f.time_ps = static_cast<int64_t>(i) * step_ps;
      f.source = static_cast<uint32_t>(i + 1);
      off += f.len;
      fr.frames.push_back(f);
    }
    return fr;
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_;
};

using TraceToolsRandom = TraceToolsTest;
using TraceToolsPerturb = TraceToolsTest;
using TraceToolsStats = TraceToolsTest;
using TraceToolsConvert = TraceToolsTest;
using TraceToolsSynth = TraceToolsTest;
using TraceToolsCli = TraceToolsTest;

// An in-order synthetic trace and its sidecar (in memory).
struct Synth {
  Frames frames;
  Sidecar sidecar;
};
Synth make_inorder(uint32_t qps, uint32_t wqes, uint64_t wqe_bytes, uint32_t pmtu, bool ooo,
                   const std::string& dir) {
  SynthOptions o;
  o.qps = qps;
  o.wqes = wqes;
  o.wqe_bytes = wqe_bytes;
  o.pmtu = pmtu;
  o.ooo = ooo;
  o.payload_pattern = false;
  SynthResult r = synth(o);
  std::string sc = dir + "/inorder.qps.yaml";
  std::ofstream(sc) << r.sidecar_yaml;
  return {r.frames, load_sidecar(sc)};
}

// Per stream (by DUT QPN): the PSNs and marks of a trace's data packets in order.
struct Seq {
  std::vector<uint32_t> psn;
  std::vector<Mark> mark;
  std::vector<uint32_t> source;
};
std::map<uint32_t, Seq> streams_of(const Frames& fr) {
  std::map<uint32_t, Seq> m;
  for (const Frame& f : fr.frames) {
    wire::PacketView v;
    if (wire::parse(fr.data(f), f.len, v, true) != wire::ParseStatus::kOk) continue;
    Seq& s = m[v.bth.dest_qp];
    s.psn.push_back(v.bth.psn);
    s.mark.push_back(f.mark);
    s.source.push_back(f.source);
  }
  return m;
}

// ---------------------------------------------------------------- random ---

TEST_F(TraceToolsRandom, MatchesCPythonRandom) {
  // Values printed by CPython 3.11: random.Random(S).randrange / random / getrandbits.
  PyRandom r1(1);
  std::vector<uint64_t> got;
  for (int i = 0; i < 8; ++i) got.push_back(r1.randrange(10));
  EXPECT_EQ(got, (std::vector<uint64_t>{2, 9, 1, 4, 1, 7, 7, 7}));
  EXPECT_EQ(r1.random(), 0x1.4d9d98184b9dap-1);
  EXPECT_EQ(r1.getrandbits(32), 3387541014u);
  PyRandom r0(0);
  got.clear();
  for (int i = 0; i < 4; ++i) got.push_back(r0.randrange(1000));
  EXPECT_EQ(got, (std::vector<uint64_t>{864, 394, 776, 911}));
  PyRandom r2((1ull << 40) + 5);  // a two-word key
  got.clear();
  for (int i = 0; i < 4; ++i) got.push_back(r2.randrange(7));
  EXPECT_EQ(got, (std::vector<uint64_t>{4, 4, 2, 5}));
  EXPECT_DOUBLE_EQ(r2.random(), 0.9257865475671585);
  PyRandom r3(12345);
  EXPECT_EQ(r3.getrandbits(64), 13515657874892102023ull);
  EXPECT_EQ(r3.randrange(1ull << 40), 593537256020ull);
}

TEST_F(TraceToolsRandom, WindowedShuffleIsGenTraces) {
  // scripts/gen-trace: oonic::arrival::windowed_shuffle(list(range(20)), 5, random.Random(7))
  PyRandom r(7);
  EXPECT_EQ(oonic::arrival::windowed_shuffle(20, 5, r),
            (std::vector<uint32_t>{2,  1, 5,  4,  0,  3,  10, 6,  9,  7,
                                   11, 8, 12, 16, 17, 13, 15, 14, 19, 18}));
  PyRandom r0(1);
  EXPECT_EQ(oonic::arrival::windowed_shuffle(5, 0, r0), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
}

// --------------------------------------------------------------- perturb ---

// The exact bound of the windowed shuffle with distance D: when packet p is
// emitted, every window member is at most (lowest not-yet-emitted position) + D,
// and that lowest position is rcv_nxt; so OOD = p - rcv_nxt <= D, lateness
// (highest earlier PSN - p) <= D, and |output place - in-order place| <= D.
// OOD = D is reached (the window's last member can be drawn), so D is exact.
TEST_F(TraceToolsPerturb, ShuffleOodNeverExceedsDistance) {
  Synth in = make_inorder(3, 4, 8 * 1024, 256, false, dir_);  // 3 QPs x 128 packets
  ASSERT_EQ(in.frames.frames.size(), 384u);
  auto in_streams = streams_of(in.frames);
  for (uint32_t d : {0u, 1u, 2u, 5u, 16u, 63u}) {
    uint64_t max_seen = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      PerturbOptions o;
      o.ooo_distance = d;
      o.seed = seed;
      PerturbResult r = perturb(in.frames, o, in.sidecar);
      ASSERT_EQ(r.out.frames.size(), in.frames.frames.size());
      TraceStats s = compute_stats(r.out, in.sidecar);
      ASSERT_EQ(s.data_packets, 384u);
      EXPECT_EQ(s.duplicates, 0u);
      EXPECT_EQ(s.gaps, 0u);
      EXPECT_LE(s.ood.max, d) << "D " << d << " seed " << seed;
      EXPECT_LE(s.lateness.max, d) << "D " << d << " seed " << seed;
      EXPECT_LE(s.ood.p999, s.ood.max);
      max_seen = std::max(max_seen, s.ood.max);
      // Per stream: a permutation, each packet within D places of its own; the
      // interleaving of the QPs is the input's.
      auto out_streams = streams_of(r.out);
      for (auto& [qpn, seq] : out_streams) {
        const Seq& ref = in_streams.at(qpn);
        ASSERT_EQ(seq.psn.size(), ref.psn.size());
        std::vector<uint32_t> sorted = seq.psn;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, ref.psn);
        for (size_t j = 0; j < seq.psn.size(); ++j) {
          int64_t home = wire::psn_diff(seq.psn[j], ref.psn[0]);
          EXPECT_LE(std::abs(home - static_cast<int64_t>(j)), static_cast<int64_t>(d));
        }
      }
      for (size_t i = 0; i < r.out.frames.size(); ++i) {
        wire::PacketView a, b;
        wire::parse(r.out.data(r.out.frames[i]), r.out.frames[i].len, a, false);
        wire::parse(in.frames.data(in.frames.frames[i]), in.frames.frames[i].len, b, false);
        EXPECT_EQ(a.bth.dest_qp, b.bth.dest_qp);
        EXPECT_EQ(r.out.frames[i].time_ps, in.frames.frames[i].time_ps);  // a place keeps its time
      }
    }
    EXPECT_EQ(max_seen, d) << "the bound D is reached for some seed";
  }
}

TEST_F(TraceToolsPerturb, MessageUnitsStayWithinTheirWqe) {
  Synth in = make_inorder(2, 5, 16 * 1024, 1024, true, dir_);  // OOO WQEs of 16 packets
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    PerturbOptions o;
    o.ooo_distance = 6;
    // auto: a stream of OOO WRITEs is shuffled WQE by WQE, as gen-trace does
    o.unit = seed % 2 ? PerturbOptions::Unit::kMessage : PerturbOptions::Unit::kAuto;
    o.seed = seed;
    PerturbResult r = perturb(in.frames, o, in.sidecar);
    TraceStats s = compute_stats(r.out, in.sidecar);
    EXPECT_LE(s.ood.max, 6u);
    for (auto& [qpn, seq] : streams_of(r.out)) {
      for (size_t j = 0; j < seq.psn.size(); ++j)
        EXPECT_EQ(seq.psn[j] / 16, j / 16) << "packet left its WQE";
    }
  }
}

// gen-trace's apply_loss over a stream order: lost items leave, each comes back
// after the item K places later (or at the end).
std::vector<std::pair<uint32_t, bool>> apply_loss(const std::vector<uint32_t>& seq,
                                                  const std::set<uint32_t>& lost, uint32_t k,
                                                  bool retx) {
  std::vector<std::pair<uint32_t, bool>> out;
  std::deque<std::pair<size_t, uint32_t>> due;
  for (size_t pos = 0; pos < seq.size(); ++pos) {
    if (lost.count(seq[pos])) {
      if (retx) due.push_back({pos + k, seq[pos]});
    } else {
      out.push_back({seq[pos], false});
    }
    while (!due.empty() && due.front().first <= pos)
      out.push_back({due.front().second, true}), due.pop_front();
  }
  for (auto& d : due) out.push_back({d.second, true});
  return out;
}

TEST_F(TraceToolsPerturb, DroppedPsnsComeBackAsRetransmissions) {
  Synth in = make_inorder(1, 2, 64 * 1024, 512, false, dir_);  // 256 packets, one stream
  uint64_t total_dropped = 0;
  for (bool retx : {true, false}) {
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      PerturbOptions o;
      o.ooo_distance = 8;
      o.seed = seed;
      PerturbResult base = perturb(in.frames, o, in.sidecar);
      o.drop_rate = 0.05;
      o.no_retx = !retx;
      PerturbResult lossy = perturb(in.frames, o, in.sidecar);
      std::set<uint32_t> lost;
      for (auto& [s, psn] : lossy.dropped_psns) lost.insert(psn);
      ASSERT_EQ(lost.size(), lossy.dropped);
      total_dropped += lossy.dropped;
      EXPECT_EQ(lossy.retransmitted, retx ? lossy.dropped : 0);
      // The shuffle draws come first: same seed, same order, then loss applied
      // exactly as gen-trace does (K = D + 1 = 9).
      const Seq b = streams_of(base.out).begin()->second;
      const Seq l = streams_of(lossy.out).begin()->second;
      auto expected = apply_loss(b.psn, lost, 9, retx);
      ASSERT_EQ(l.psn.size(), expected.size());
      for (size_t j = 0; j < expected.size(); ++j) {
        EXPECT_EQ(l.psn[j], expected[j].first) << "seed " << seed << " place " << j;
        EXPECT_EQ(l.mark[j] == Mark::kRetransmission, expected[j].second);
      }
      // Each lost PSN: gone from its place; once, marked, later (or absent).
      for (uint32_t p : lost) {
        size_t home = std::find(b.psn.begin(), b.psn.end(), p) - b.psn.begin();
        size_t n = std::count(l.psn.begin(), l.psn.end(), p);
        if (!retx) {
          EXPECT_EQ(n, 0u);
          continue;
        }
        ASSERT_EQ(n, 1u);
        size_t at = std::find(l.psn.begin(), l.psn.end(), p) - l.psn.begin();
        EXPECT_EQ(l.mark[at], Mark::kRetransmission);
        size_t before = 0;  // packets of the base order placed before the lost one's home
        for (size_t j = 0; j < home; ++j) before += lost.count(b.psn[j]) ? 0 : 1;
        EXPECT_GT(at, before) << "PSN " << p << " still at its place";
      }
      TraceStats s = compute_stats(lossy.out, in.sidecar);
      EXPECT_EQ(s.duplicates, 0u);
      if (retx) {
        EXPECT_EQ(s.gaps, 0u);
      } else {
        // Never seen: every lost PSN below the highest PSN that arrived.
        uint32_t hi = *std::max_element(l.psn.begin(), l.psn.end());
        uint64_t below = 0;
        for (uint32_t p : lost) below += p < hi ? 1 : 0;
        EXPECT_EQ(s.gaps, below);
        for (auto& [a, e] : s.streams[0].gap_ranges)
          for (uint32_t p = a; p <= e; ++p) EXPECT_TRUE(lost.count(p)) << p;
      }
    }
  }
  EXPECT_GT(total_dropped, 100u);
}

TEST_F(TraceToolsPerturb, DropPsnInOrder) {
  Synth in = make_inorder(2, 1, 16 * 1024, 1024, false, dir_);  // 16 packets a QP
  PerturbOptions o;
  o.drop_psns = {5};
  o.retx_after = 3;
  PerturbResult r = perturb(in.frames, o, in.sidecar);
  EXPECT_EQ(r.dropped, 2u);  // in every stream
  for (auto& [qpn, seq] : streams_of(r.out)) {
    EXPECT_EQ(seq.psn,
              (std::vector<uint32_t>{0, 1, 2, 3, 4, 6, 7, 8, 5, 9, 10, 11, 12, 13, 14, 15}));
    EXPECT_EQ(seq.mark[8], Mark::kRetransmission);
  }
  TraceStats s = compute_stats(r.out, in.sidecar);
  EXPECT_EQ(s.ood.max, 3u);  // PSN 8 arrives while 5 is missing
  EXPECT_EQ(s.lateness.max, 3u);
  // Past the end of the unit: the retransmission closes the stream.
  o.drop_psns = {14};
  o.retx_after = 5;
  r = perturb(in.frames, o, in.sidecar);
  for (auto& [qpn, seq] : streams_of(r.out)) EXPECT_EQ(seq.psn.back(), 14u);
}

TEST_F(TraceToolsPerturb, DuplicatesCountedAndAdjacent) {
  Synth in = make_inorder(2, 2, 32 * 1024, 512, false, dir_);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    PerturbOptions o;
    o.ooo_distance = 4;
    o.duplicate_rate = 0.1;
    o.seed = seed;
    PerturbResult r = perturb(in.frames, o, in.sidecar);
    EXPECT_GT(r.duplicated, 0u);
    EXPECT_EQ(r.out.frames.size(), in.frames.frames.size() + r.duplicated);
    TraceStats s = compute_stats(r.out, in.sidecar);
    EXPECT_EQ(s.duplicates, r.duplicated);
    EXPECT_EQ(s.gaps, 0u);
    EXPECT_LE(s.ood.max, 4u);  // a copy right after its original adds no OOD
    for (size_t i = 0; i < r.out.frames.size(); ++i) {
      if (r.out.frames[i].mark != Mark::kDuplicate) continue;
      ASSERT_GT(i, 0u);
      EXPECT_EQ(r.out.frames[i - 1].source, r.out.frames[i].source);
      EXPECT_EQ(r.out.frames[i - 1].mark, Mark::kNone);
    }
  }
}

TEST_F(TraceToolsPerturb, MultipathArrivalOrder) {
  Synth in = make_inorder(2, 2, 32 * 1024, 1024, false, dir_);  // 64 packets a QP, ~85 ns apart
  // Equal delays: nothing moves.
  PerturbOptions same;
  same.multipath = 3;
  same.path_delays_ps = {5000, 5000, 5000};
  PerturbResult r0 = perturb(in.frames, same, in.sidecar);
  EXPECT_EQ(compute_stats(r0.out, in.sidecar).ood.max, 0u);
  for (size_t i = 0; i < r0.out.frames.size(); ++i) {
    EXPECT_EQ(r0.out.frames[i].source, in.frames.frames[i].source);
    EXPECT_EQ(r0.out.frames[i].time_ps, in.frames.frames[i].time_ps + 5000);
  }
  using Spray = PerturbOptions::Spray;
  for (Spray sp : {Spray::kRoundRobin, Spray::kRandom, Spray::kHash}) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      PerturbOptions o;
      o.multipath = 2;
      o.path_delays_ps = {0, 1000000};  // 1 us apart
      o.spray = sp;
      o.seed = seed;
      PerturbResult r = perturb(in.frames, o, in.sidecar);
      ASSERT_EQ(r.out.frames.size(), in.frames.frames.size());
      for (size_t i = 1; i < r.out.frames.size(); ++i)
        EXPECT_LE(r.out.frames[i - 1].time_ps, r.out.frames[i].time_ps);
      // Bound: packet p can only be overtaken... OOD(p) <= the packets of its
      // stream sent less than (max - min delay) before it.
      uint64_t bound = 0;
      for (auto& [qpn, seq] : streams_of(in.frames)) {
        std::vector<int64_t> t;
        for (uint32_t src : seq.source) t.push_back(in.frames.frames[src - 1].time_ps);
        for (size_t p = 0; p < t.size(); ++p) {
          uint64_t n = 0;
          for (size_t q = 0; q < p; ++q) n += (t[p] - t[q] <= 1000000) ? 1 : 0;
          bound = std::max(bound, n);
        }
      }
      TraceStats s = compute_stats(r.out, in.sidecar);
      EXPECT_LE(s.ood.max, bound);
      if (sp == Spray::kHash) {
        EXPECT_EQ(s.ood.max, 0u);  // one path per flow
      }
      if (sp == Spray::kRoundRobin) {
        EXPECT_GT(s.ood.max, 0u);
      }
      EXPECT_EQ(s.gaps, 0u);
      EXPECT_EQ(s.duplicates, 0u);
    }
  }
}

TEST_F(TraceToolsPerturb, OtherFramesKeepTheirPlace) {
  // Frames that are not data to the DUT (an ACK to the DUT, a frame from it,
  // a non-RoCE frame) stay where they are.
  std::string p = write("mix.txt",
                        "0 op=WRITE_FIRST qp=0x11 psn=0 va=0x10000 rkey=1 dmalen=4096 len=1024\n"
                        "1 op=WRITE_MIDDLE qp=0x11 psn=1 len=1024\n"
                        "2 op=ACK qp=0x11 psn=1\n"
                        "3 op=WRITE_MIDDLE qp=0x11 psn=2 len=1024\n"
                        "4 raw=ffffffffffff0200000000010806\n"
                        "5 op=WRITE_LAST qp=0x11 psn=3 len=1024\n"
                        "6 op=ACK qp=0x22 psn=0 src=10.0.0.2 dst=10.0.0.1\n"
                        "7 op=SEND_ONLY qp=0x11 psn=4 len=8\n");
  Frames in = read_frames(p);
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    PerturbOptions o;
    o.ooo_distance = 3;
    o.seed = seed;
    PerturbResult r = perturb(in, o);
    ASSERT_EQ(r.out.frames.size(), 8u);
    EXPECT_EQ(r.data_packets, 5u);
    EXPECT_EQ(r.out.frames[2].source, 3u);
    EXPECT_EQ(r.out.frames[4].source, 5u);
    EXPECT_EQ(r.out.frames[6].source, 7u);
    for (size_t i = 0; i < 8; ++i)
      EXPECT_EQ(r.out.frames[i].time_ps, static_cast<int64_t>(i) * 1000);
  }
}

// ----------------------------------------------------------------- stats ---

TEST_F(TraceToolsStats, OodDuplicatesGaps) {
  std::string body;
  for (uint32_t psn : {0, 3, 1, 2, 5, 4, 4, 8})
    body += "- op=SEND_MIDDLE qp=0x11 psn=" + std::to_string(psn) + " len=4\n";
  body += "- op=ACK qp=0x11 psn=3 src=10.0.0.2 dst=10.0.0.1\n";
  Frames fr = read_frames(write("s.txt", body));
  TraceStats s = compute_stats(fr, std::nullopt);
  EXPECT_EQ(s.frames, 9u);
  EXPECT_EQ(s.data_packets, 8u);
  EXPECT_EQ(s.from_dut, 1u);
  ASSERT_EQ(s.streams.size(), 1u);
  // rcv_nxt before each: 0,1,1,2,4,4,6,6 -> OOD 0,2,0,0,1,0,0,2
  EXPECT_EQ(s.ood.max, 2u);
  EXPECT_DOUBLE_EQ(s.ood.mean, 5.0 / 8);
  EXPECT_EQ(s.ood.p999, 2u);
  // highest before: -,0,3,3,3,5,5,5 -> lateness 0,0,2,1,0,1,1,0
  EXPECT_EQ(s.lateness.max, 2u);
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(s.gaps, 2u);  // 6, 7
  ASSERT_EQ(s.streams[0].gap_ranges.size(), 1u);
  EXPECT_EQ(s.streams[0].gap_ranges[0], std::make_pair(6u, 7u));
  EXPECT_EQ(s.streams[0].psn_min, 0u);
  EXPECT_EQ(s.streams[0].psn_max, 8u);
  std::string j = stats_json(s);
  EXPECT_NE(j.find("\"ood\""), std::string::npos);
  EXPECT_NE(j.find("\"SEND_MIDDLE\": 8"), std::string::npos);
  // A sidecar start PSN below the lowest seen: those PSNs are gaps, and OOD
  // counts from the start.
  std::string sc = write("s.qps.yaml", "qps:\n  - qpn: 0x11\n    start_psn: 16777214\n");
  TraceStats w = compute_stats(fr, load_sidecar(sc));
  EXPECT_EQ(w.gaps, 4u);
  EXPECT_EQ(w.ood.max, 10u);  // PSN 8 while 16777214 is missing
}

// --------------------------------------------------------------- convert ---

void expect_same_frames(const Frames& a, const Frames& b, const std::string& what) {
  ASSERT_EQ(a.frames.size(), b.frames.size()) << what;
  for (size_t i = 0; i < a.frames.size(); ++i) {
    const Frame& x = a.frames[i];
    const Frame& y = b.frames[i];
    ASSERT_EQ(x.len, y.len) << what << " frame " << i + 1;
    EXPECT_EQ(x.wire_len, y.wire_len) << what << " frame " << i + 1;
    EXPECT_EQ(0, std::memcmp(a.data(x), b.data(y), x.len)) << what << " frame " << i + 1;
    // Absolute time as (ns, ps within the ns): ns x 1000 would overflow int64 for
    // epoch-based capture times.
    auto abs_time = [](int64_t origin_ns, int64_t t_ps) {
      int64_t ns = t_ps / 1000, ps = t_ps % 1000;
      if (ps < 0) ps += 1000, --ns;  // floor division: times may precede the origin
      return std::pair<int64_t, int64_t>{origin_ns + ns, ps};
    };
    EXPECT_EQ(abs_time(a.origin_ns, x.time_ps), abs_time(b.origin_ns, y.time_ps))
        << what << " frame " << i + 1;
  }
}

TEST_F(TraceToolsConvert, CapturesRoundTripByteIdentical) {
  const std::string dir = OONIC_SOURCE_DIR "/traces/captures/";
  const char* caps[] = {"connectx4lx-cnp.pcap", "huawei-rc-send-1k.pcap",
                        "softroce-read-request.pcap", "softroce-write-read-cm.pcap",
                        "softroce-write-read.pcap"};
  for (const char* c : caps) {
    std::string cap = dir + c;
    Frames orig = read_frames(cap);
    ASSERT_GT(orig.frames.size(), 0u) << c;
    ASSERT_TRUE(orig.has_origin);
    std::string txt = path(std::string(c) + ".txt");
    std::string back = path(std::string(c) + ".back.pcap");
    std::string ng = path(std::string(c) + ".back.pcapng");
    write_frames(txt, OutFormat::kText, orig);
    Frames t = read_frames(txt);
    EXPECT_TRUE(t.has_origin);
    expect_same_frames(orig, t, std::string(c) + " text");
    write_frames(back, OutFormat::kPcap, t);
    write_frames(ng, OutFormat::kPcapNg, t);
    expect_same_frames(orig, read_frames(back), std::string(c) + " pcap");
    expect_same_frames(orig, read_frames(ng), std::string(c) + " pcapng");
    // The project's loader sees the same records in the original and the copy.
    Trace a = Trace::load(cap), b = Trace::load(back), g = Trace::load(ng);
    ASSERT_EQ(a.records.size(), b.records.size());
    ASSERT_EQ(a.records.size(), g.records.size());
    for (size_t i = 0; i < a.records.size(); ++i) {
      for (const Trace* x : {&b, &g}) {
        EXPECT_EQ(a.records[i].time_ps, x->records[i].time_ps) << c << " " << i;
        EXPECT_EQ(a.records[i].orig_len, x->records[i].orig_len);
        ASSERT_EQ(a.records[i].len, x->records[i].len);
        std::vector<uint8_t> other;
        EXPECT_EQ(0, std::memcmp(a.frame(a.records[i], frame_buf()), x->frame(x->records[i], other),
                                 a.records[i].len));
      }
    }
    // pcap -> pcap directly too.
    std::string direct = path(std::string(c) + ".direct.pcap");
    write_frames(direct, OutFormat::kPcap, orig);
    expect_same_frames(orig, read_frames(direct), std::string(c) + " direct");
  }
}

TEST_F(TraceToolsConvert, FieldFormWhereFieldsRebuildTheFrame) {
  std::vector<std::vector<uint8_t>> frames;
  std::vector<bool> want_fields;
  auto add = [&](const wire::FrameSpec& s, bool fields) {
    frames.push_back(wire::build(s));
    want_fields.push_back(fields);
  };
  std::vector<uint8_t> pat(1000), hex = {1, 2, 3, 4, 5};
  fill_pattern(0x12345, pat.data(), pat.size());
  wire::FrameSpec s;
  s.bth.opcode = wire::kWriteFirst, s.bth.dest_qp = 0x11, s.bth.psn = 7;
  s.reth = {0x12345, 0x99, 4096};
  s.payload = pat.data(), s.payload_len = 1000;
  add(s, true);  // pattern payload at an unaligned address
  wire::FrameSpec v6 = s;
  v6.ip_version = 6;
  v6.src_ip = {{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}};
  v6.dst_ip = {{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}};
  v6.vlan = true, v6.vlan_tci = 0x2005, v6.tos = 3, v6.ttl = 9, v6.udp_sport = 7;
  v6.bth.opcode = wire::kSendOnlyImm, v6.immdt = 0xabcdef01, v6.bth.se = true;
  v6.payload = hex.data(), v6.payload_len = 5;
  add(v6, true);
  wire::FrameSpec ack;
  ack.bth.opcode = wire::kAcknowledge, ack.bth.dest_qp = 0x12, ack.bth.psn = 3;
  ack.bth.resv7 = wire::kBthStartAddrCachedBit, ack.aeth = {0x00, 5};
  ack.src_mac = {{2, 0xaa, 0, 0, 0, 9}};
  add(ack, true);
  wire::FrameSpec nak;
  nak.bth.opcode = wire::kOooNak, nak.bth.dest_qp = 0x12, nak.bth.psn = 40;
  nak.bitmap.base_psn = 32, nak.bitmap.nbits = 40;
  nak.bitmap.words[0] = 0xfffb, nak.bitmap.words[1] = 0x3;
  nak.aeth = {wire::kAethNakPsnSeqErr, 0};
  add(nak, true);
  wire::FrameSpec cnp;
  cnp.bth.opcode = wire::kCnp, cnp.bth.dest_qp = 0x118, cnp.payload_len = 16, cnp.tos = 0xc2;
  add(cnp, true);
  wire::FrameSpec mig = s;
  mig.bth.migreq = true;  // no text field says MigReq
  add(mig, false);
  add(s, true);
  for (size_t b = 0; b < 4; ++b) frames.back()[frames.back().size() - 1 - b] ^= 0xff;  // badicrc=1
  add(s, false);
  frames.back().insert(frames.back().end(), 6, 0);  // Ethernet padding after the ICRC
  frames.push_back({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 0x08, 0x06, 0, 1});
  want_fields.push_back(false);

  Frames fr = frames_of(frames, 1500);
  std::string p = path("f.txt");
  WriteSummary w = write_frames(p, OutFormat::kText, fr);
  EXPECT_EQ(w.raw_lines, 3u);
  EXPECT_EQ(w.field_lines, frames.size() - 3);
  std::string text = slurp(p);
  EXPECT_NE(text.find("payload=pat:0x12345"), std::string::npos) << text;
  EXPECT_NE(text.find("cached=1"), std::string::npos);
  EXPECT_NE(text.find("bitmap=32:40:0000fffb,00000003"), std::string::npos) << text;
  EXPECT_NE(text.find("badicrc=1"), std::string::npos);
  EXPECT_NE(text.find("src=fd00::1"), std::string::npos) << text;
  TextFrameWriter tw;
  for (size_t i = 0; i < frames.size(); ++i)
    EXPECT_EQ(!tw.fields(frames[i].data(), frames[i].size()).empty(), want_fields[i]) << i;
  // The project's loader rebuilds every frame from the text.
  Trace t = Trace::load(p);
  ASSERT_EQ(t.records.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(t.records[i].len, frames[i].size()) << i;
    EXPECT_EQ(0,
              std::memcmp(t.frame(t.records[i], frame_buf()), frames[i].data(), frames[i].size()))
        << i;
    EXPECT_EQ(t.records[i].time_ps, i * 1500);
  }
}

TEST_F(TraceToolsConvert, EunomiaMetadataRoundTripsThroughText) {
  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint8_t> pat(512);
  fill_pattern(0x40000, pat.data(), pat.size());
  wire::FrameSpec fs;  // OOO FSpot, not the last packet
  fs.bth.opcode = wire::kOooWriteFSpot, fs.bth.dest_qp = 0x11, fs.bth.psn = 12;
  fs.bth.resv7 = wire::kBthEunomiaMetaBit;
  fs.eunomia = {10, false};
  fs.reth = {0x40000, 0x1234, 8192};
  fs.payload = pat.data(), fs.payload_len = 512;
  frames.push_back(wire::build(fs));
  wire::FrameSpec last = fs;  // OOO Last, the largest Head
  last.bth.opcode = wire::kOooWriteLast, last.bth.ack_req = true;
  last.eunomia = {0xffffffffu, true};
  frames.push_back(wire::build(last));
  wire::FrameSpec send;  // SEND with metadata and the cached bit
  send.bth.opcode = wire::kSendOnly, send.bth.dest_qp = 0x12, send.bth.psn = 3;
  send.bth.resv7 = wire::kBthEunomiaMetaBit | wire::kBthStartAddrCachedBit;
  send.eunomia = {3, true};
  send.payload_len = 40;
  frames.push_back(wire::build(send));
  const size_t n_fields = frames.size();
  // Raw: the bit on an ACK (no metadata there); reserved bytes of the header not 0.
  wire::FrameSpec ack;
  ack.bth.opcode = wire::kAcknowledge, ack.bth.dest_qp = 0x11, ack.bth.psn = 12;
  ack.bth.resv7 = wire::kBthEunomiaMetaBit;
  frames.push_back(wire::build(ack));
  frames.push_back(wire::build(fs));
  const size_t l3 = wire::kEthHeaderBytes;
  frames.back()[l3 + wire::kIpv4HeaderBytes + wire::kUdpHeaderBytes + wire::kBthBytes + 7] = 1;
  uint32_t icrc = wire::compute_icrc(frames.back().data(), frames.back().size(), l3);
  for (int b = 0; b < 4; ++b)
    frames.back()[frames.back().size() - 4 + b] = static_cast<uint8_t>(icrc >> (8 * b));

  TextFrameWriter tw;
  EXPECT_EQ(tw.fields(frames[0].data(), frames[0].size()),
            "op=OOO_WRITE_FSPOT qp=0x11 psn=12 eunomia_head=10 va=0x40000 rkey=0x1234 "
            "dmalen=8192 len=512 payload=pat:0x40000");
  EXPECT_EQ(tw.fields(frames[1].data(), frames[1].size()),
            "op=OOO_WRITE_LAST qp=0x11 psn=12 eunomia_head=4294967295 eunomia_last=1 len=512 "
            "payload=pat:0x40000 ackreq=1");
  EXPECT_EQ(tw.fields(frames[2].data(), frames[2].size()),
            "op=SEND_ONLY qp=0x12 psn=3 eunomia_head=3 eunomia_last=1 len=40 cached=1");
  EXPECT_EQ(tw.fields(frames[3].data(), frames[3].size()), "");
  EXPECT_EQ(tw.fields(frames[4].data(), frames[4].size()), "");

  Frames fr = frames_of(frames, 1000);
  // frames -> text -> frames, and pcap -> text -> pcap: byte for byte.
  std::string txt = path("eu.txt"), pc = path("eu.pcap"), txt2 = path("eu2.txt");
  WriteSummary w = write_frames(txt, OutFormat::kText, fr);
  EXPECT_EQ(w.field_lines, n_fields);
  EXPECT_EQ(w.raw_lines, frames.size() - n_fields);
  // A raw= frame that carries the metadata says so in its comment.
  EXPECT_NE(slurp(txt).find("# OOO_WRITE_FSPOT qp=0x11 psn=12 eunomia_head=10\n"),
            std::string::npos)
      << slurp(txt);
  Trace t = Trace::load(txt);
  ASSERT_EQ(t.records.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(t.records[i].len, frames[i].size()) << i;
    EXPECT_EQ(0,
              std::memcmp(t.frame(t.records[i], frame_buf()), frames[i].data(), frames[i].size()))
        << i;
  }
  write_frames(pc, OutFormat::kPcap, fr);
  Frames from_pcap = read_frames(pc);
  expect_same_frames(fr, from_pcap, "pcap");
  write_frames(txt2, OutFormat::kText, from_pcap);
  Frames back = read_frames(txt2);
  expect_same_frames(fr, back, "pcap -> text");
  write_frames(pc, OutFormat::kPcap, back);
  expect_same_frames(fr, read_frames(pc), "pcap -> text -> pcap");
  // stats counts the frames that carry it: not the ACK (its bit is no metadata), the
  // raw one with reserved bits set yes (the codec ignores them).
  EXPECT_EQ(compute_stats(back, std::nullopt).eunomia_meta, 4u);
  EXPECT_NE(stats_json(compute_stats(back, std::nullopt)).find("\"eunomia_meta\": 4"),
            std::string::npos);
}

// UET frames (UDP 4793) are written raw= with a comment naming their PDS type, PSN, PDCs
// and entropy value (a trimmed one says so), and come back byte for byte.
TEST_F(TraceToolsConvert, UetFramesRawWithTheirPdsInTheComment) {
  namespace u = wire::uet;
  std::vector<std::vector<uint8_t>> frames;
  std::vector<uint8_t> payload(256, 0x5A);
  u::UetFrameSpec req;
  req.outer.udp_sport = 0x8123;
  req.pds.type = u::PdsType::kRudReq;
  req.pds.next_hdr = static_cast<uint8_t>(u::NextHdr::kRequestStd);
  req.pds.psn = 42, req.pds.spdcid = 7, req.pds.dpdcid = 9;
  req.payload = payload.data(), req.payload_len = 256;
  frames.push_back(u::build_frame(req));
  std::vector<uint8_t> trimmed = frames.back();
  trimmed.resize(u::trim_frame(trimmed.data(), trimmed.size(), false));
  frames.push_back(trimmed);
  u::UetFrameSpec nack;
  nack.outer.udp_sport = 0x8123;
  nack.pds.type = u::PdsType::kNack;
  nack.pds.psn = 42, nack.pds.spdcid = 9, nack.pds.dpdcid = 7;
  nack.pds.nack_code = u::kNackTrimmed;
  frames.push_back(u::build_frame(nack));
  for (const auto& f : frames) ASSERT_FALSE(f.empty());

  Frames fr = frames_of(frames, 1000);
  const std::string txt = path("uet.txt");
  WriteSummary w = write_frames(txt, OutFormat::kText, fr);
  EXPECT_EQ(w.raw_lines, frames.size());
  const std::string text = slurp(txt);
  EXPECT_NE(text.find("# uet rud_req psn=42 spdcid=7 dpdcid=9 ev=33059\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# uet rud_req psn=42 spdcid=7 dpdcid=9 ev=33059 trimmed\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# uet nack psn=42 spdcid=9 dpdcid=7 ev=33059 nack_code=0x01\n"),
            std::string::npos)
      << text;
  expect_same_frames(fr, read_frames(txt), "text");
}

TEST_F(TraceToolsConvert, TimesGoingBackwardsAndCutFramesSurviveText) {
  wire::FrameSpec s;
  s.bth.opcode = wire::kSendOnly, s.payload_len = 100;
  std::vector<uint8_t> f = wire::build(s);
  std::vector<uint8_t> bytes = f;
  bytes.insert(bytes.end(), f.begin(), f.end());
  Frames fr = Frames::own(bytes);
  fr.has_origin = true;
  fr.origin_ns = 1700000000123456789;
  Frame a;
  a.len = a.wire_len = static_cast<uint32_t>(f.size());
  a.time_ps = 5000;
  Frame b = a;
  b.offset = f.size();
  b.len = 40;  // cut by a snaplen
  b.time_ps = -2000;
  fr.frames = {a, b};
  std::string txt = path("t.txt"), pc = path("t.pcap");
  write_frames(txt, OutFormat::kText, fr);
  Frames t = read_frames(txt);
  expect_same_frames(fr, t, "text");
  write_frames(pc, OutFormat::kPcap, t);
  expect_same_frames(fr, read_frames(pc), "pcap");
  EXPECT_NE(slurp(txt).find("time=-2.000 wire_len="), std::string::npos) << slurp(txt);
}

TEST_F(TraceToolsConvert, PatternInverse) {
  for (uint64_t x : {0ull, 1ull, 0x123456789abcdefull, ~0ull})
    EXPECT_EQ(unsplitmix64(splitmix64(x)), x);
  std::vector<uint8_t> p(64);
  for (uint64_t a : {0x10000ull, 0x10003ull, 0x7e0000000005ull}) {
    fill_pattern(a, p.data(), p.size());
    uint64_t got = 0;
    ASSERT_TRUE(find_pattern_address(p.data(), p.size(), got));
    EXPECT_EQ(got, a);
  }
  p[30] ^= 1;
  uint64_t got = 0;
  EXPECT_FALSE(find_pattern_address(p.data(), p.size(), got));
}

// ----------------------------------------------------------------- synth ---

TEST_F(TraceToolsSynth, MixedTraceIsFieldFormAndReloads) {
  for (bool ooo : {true, false}) {
    for (bool requester : {false, true}) {
      SynthOptions o;
      o.qps = 2;
      o.wqes = 12;
      o.wqe_bytes = 5000;
      o.pmtu = 1024;
      o.mix_write = 50, o.mix_read = 25, o.mix_send = 25;
      o.ooo = ooo;
      o.read_requester = requester;
      o.seed = 3;
      SynthResult r = synth(o);
      EXPECT_EQ(r.writes + r.reads + r.sends, 24u);
      EXPECT_GT(r.reads, 0u);
      EXPECT_GT(r.sends, 0u);
      std::string p = path("m.txt");
      WriteSummary w = write_frames(p, OutFormat::kText, r.frames);
      EXPECT_EQ(w.raw_lines, 0u);
      Frames back = read_frames(p);
      expect_same_frames(r.frames, back, "synth text");
      std::string sc = write("m.qps.yaml", r.sidecar_yaml);
      Sidecar side = load_sidecar(sc);
      ASSERT_EQ(side.qps.size(), 2u);
      EXPECT_TRUE(side.qps[0].recv.has_value());
      // In order: every stream's PSNs run without holes from the start PSN.
      TraceStats s = compute_stats(back, side);
      EXPECT_EQ(s.ood.max, 0u);
      EXPECT_EQ(s.gaps, 0u) << stats_text(s);
      EXPECT_EQ(s.duplicates, 0u);
      EXPECT_EQ(s.from_dut, requester ? r.reads : 0u);
    }
  }
}

TEST_F(TraceToolsSynth, WriteOnlyMatchesGenTraceLayout) {
  // gen-trace --mode standard --wqes 3 --wqe-bytes 16K (the bundled inorder-write.txt).
  SynthOptions o;
  o.ooo = false;
  o.wqes = 3;
  o.wqe_bytes = 16 * 1024;
  SynthResult r = synth(o);
  Trace t = Trace::load(OONIC_SOURCE_DIR "/traces/inorder-write.txt");
  ASSERT_EQ(t.records.size(), r.frames.frames.size());
  for (size_t i = 0; i < t.records.size(); ++i) {
    const Frame& f = r.frames.frames[i];
    ASSERT_EQ(t.records[i].len, f.len);
    EXPECT_EQ(0, std::memcmp(t.frame(t.records[i], frame_buf()), r.frames.data(f), f.len)) << i;
    EXPECT_EQ(static_cast<int64_t>(t.records[i].time_ps), f.time_ps) << i;
  }
}

TEST_F(TraceToolsSynth, EunomiaMetadataOnOooWritesOnly) {
  SynthOptions o;
  o.qps = 2;
  o.wqes = 10;
  o.wqe_bytes = 5000;
  o.pmtu = 1024;
  o.mix_write = 50, o.mix_read = 25, o.mix_send = 25;
  o.start_psn = 0xfffff0;
  o.seed = 5;
  o.eunomia_meta = true;
  SynthResult r = synth(o);
  ASSERT_GT(r.writes, 0u);
  ASSERT_GT(r.sends, 0u);
  ASSERT_GT(r.reads, 0u);
  // Per QP: the first PSN of the current message (in order: a message's packets
  // follow each other).
  std::map<uint32_t, uint32_t> first;
  std::map<uint32_t, bool> in_msg;
  uint64_t tagged = 0, lasts = 0;
  for (const Frame& f : r.frames.frames) {
    wire::PacketView v;
    ASSERT_EQ(wire::parse(r.frames.data(f), f.len, v, true), wire::ParseStatus::kOk);
    const bool write =
        v.bth.opcode >= wire::kOooWriteFSpot && v.bth.opcode <= wire::kOooWriteLastFSpot;
    if (!in_msg[v.bth.dest_qp]) first[v.bth.dest_qp] = v.bth.psn;
    in_msg[v.bth.dest_qp] = (v.info->flags & wire::kIsLast) == 0;
    EXPECT_EQ((v.flags & wire::kHasEunomiaMeta) != 0, write) << v.info->name;
    if (!write) continue;
    ++tagged;
    EXPECT_EQ(v.eunomia.head, first[v.bth.dest_qp]) << "psn " << v.bth.psn;
    EXPECT_EQ(v.eunomia.last, (v.info->flags & wire::kIsLast) != 0) << "psn " << v.bth.psn;
    lasts += v.eunomia.last;
  }
  EXPECT_EQ(lasts, r.writes);
  EXPECT_EQ(tagged, r.writes * 5);
  // Written as text and loaded back: the same frames, the keys on every WRITE line.
  std::string p = path("eu.txt");
  WriteSummary w = write_frames(p, OutFormat::kText, r.frames);
  EXPECT_EQ(w.raw_lines, 0u);
  expect_same_frames(r.frames, read_frames(p), "synth text");
  std::string text = slurp(p);
  size_t heads = 0;
  for (size_t at = 0; (at = text.find(" eunomia_head=", at)) != std::string::npos; ++at) ++heads;
  EXPECT_EQ(heads, tagged);
  // Without the option nothing carries it; standard mode never tags (the CLI refuses).
  o.eunomia_meta = false;
  EXPECT_EQ(compute_stats(synth(o).frames, std::nullopt).eunomia_meta, 0u);
  o.eunomia_meta = true;
  o.ooo = false;
  EXPECT_EQ(compute_stats(synth(o).frames, std::nullopt).eunomia_meta, 0u);
}

// ------------------------------------------------------------------- CLI ---

std::string cli_error(const std::vector<std::string>& args, const char* id) {
  try {
    std::vector<std::string> all = {"trace"};
    all.insert(all.end(), args.begin(), args.end());
    cli::dispatch(all);
  } catch (const Error& e) {
    EXPECT_EQ(e.id(), id);
    return e.what();
  }
  ADD_FAILURE() << "no oonic::Error";
  return "";
}

TEST_F(TraceToolsCli, Errors) {
  EXPECT_EQ(cli_error({"synth", "--out", path("e.txt"), "--mode", "standard", "--eunomia-metadata"},
                      msg::kCli),
            "trace synth: --eunomia-metadata needs --mode ooo (Eunomia's sender agent tags OOO "
            "WRITE packets only)");
  EXPECT_NE(
      cli_error({"convert", "a.pcap", "b.xyz"}, msg::kCli).find("b.xyz: unknown output format"),
      std::string::npos);
  EXPECT_NE(cli_error({"bogus"}, msg::kCli).find("unknown command 'bogus'"), std::string::npos);
  EXPECT_NE(cli_error({"perturb", "a.txt", "b.txt", "--ooo-distance", "3", "--multipath", "2",
                       "--path-delays-ns", "0,1"},
                      msg::kCli)
                .find("give one of --ooo-distance, --aligned-groups or --multipath"),
            std::string::npos);
  EXPECT_NE(cli_error({"perturb", "a.txt", "b.txt", "--multipath", "2", "--path-delays-ns", "0"},
                      msg::kCli)
                .find("needs 2 --path-delays-ns values, got 1"),
            std::string::npos);
  EXPECT_NE(cli_error({"perturb", "a.txt", "b.txt", "--drop-rate", "1.5"}, msg::kCli)
                .find("--drop-rate '1.5'"),
            std::string::npos);
  EXPECT_EQ(cli_error({"stats", path("missing.pcap")}, msg::kTrace),
            path("missing.pcap") + ": cannot open trace: No such file or directory");
  // Input errors name the file and line.
  std::string bad = write("bad.txt", "0 op=SEND_ONLY qp=1 psn=0\n1 op=SEND_ONLY qp=1 psn=x\n");
  EXPECT_EQ(cli_error({"stats", bad}, msg::kTrace), bad + ":2: bad number 'x', field 'psn'");
  std::string ann = write("ann.txt", "0 op=SEND_ONLY qp=1 psn=0 # wire_len=zz\n");
  EXPECT_EQ(cli_error({"convert", ann, path("o.pcap")}, msg::kTrace),
            ann + ":1: bad annotation 'wire_len=zz' in the comment");
}

}  // namespace
}  // namespace oonic::trace
