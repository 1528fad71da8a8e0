// eunomia_memory: Eunomia's memory comparison (docs/DESIGN.md M2, "Memory comparison the
// paper runs"), driven by scripts/experiments/eunomia-memory. Plain C++ (the Eunomia
// cores); no SystemC kernel is started.
//
// N concurrent connections (default 20) share one MemoryControllerCore and one
// HdBitmapCore. A fraction F of them (the first round(F*N)) see reordering; the others
// arrive in order. Every connection sends P packets (one message: the last packet carries
// the "last" bit; every packet carries Head metadata = the connection's first PSN). The
// receiver takes one packet at a time from a connection picked uniformly at random among
// those with packets left (all connections are active at once).
//
// Reordering degree d (percent) -> arrival order: a windowed shuffle with OOO distance
//   D = round(d/100 * (max_bitmap_bits - 1))
// i.e. the next arriving packet is picked uniformly among the not-yet-sent PSNs in
// [lo, lo + D], lo = the lowest PSN not yet sent. Every packet arrives at most D positions
// from its in-order slot and at most D PSNs past the first missing one, so d = 100 %
// means packets land up to a whole 256-bit bitmap (255 PSNs) ahead of the first missing
// PSN: the most a static 256-bit bitmap can track. Why this definition: Eunomia's memory
// for a connection is set by how far ahead of Head packets land (rows = span / block
// bits), so the degree scales that span; a "fraction of displaced packets" would not move
// the peak (one packet displaced far costs as many rows as many packets). It is the same
// arrival model as ORNIC §4.3's OOO distance (test_ornic_bitmap.cpp's windowed shuffle).
// The measured share of a reordered connection's packets whose first transmission arrives
// out of order (PSN != ePSN at arrival) is reported (ooo_arrival_pct).
//
// A packet Eunomia cannot track (past the row cap, which can be reached below 256 PSNs
// because a frozen Tail does not reuse ring bits behind Head) is NACKed; the sender puts
// it back into its queue right after the packet the receiver is waiting for (ePSN). No
// loss otherwise.
//
// Memory (bytes, peak over the run; mean over seeds and the max):
//   eunomia_bitmap_bytes    master_array blocks holding bitmap rows x 2 B
//   eunomia_metadata_bytes  master_array blocks holding per-connection metadata x 2 B
//                           (48 B per connection that has a bitmap)
//   eunomia_total_bytes     bitmap + metadata (each its own peak is not added: the peak of
//                           the sum over time)
//   eunomia_index_bytes     metadata_start_index entries in use x 3 B (reported apart;
//                           the paper's comparison counts bitmap + 48 B metadata)
//   static_bitmap_bytes     N x 256/8 (a static 256-bit bitmap per connection)
//   static_total_bytes      N x (256/8 + 9): + 4 B head, 4 B last, 1 B head index
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/eunomia/hd_bitmap_core.h"
#include "model/eunomia/memory_controller_core.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"

[[maybe_unused]] static const bool kNoBanner = [] {
  return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

namespace {

using oonic::eunomia::HdBitmapCore;
using oonic::ordering::Feedback;
using oonic::ordering::Outcome;
using oonic::ordering::PacketMeta;
using oonic::ordering::Verdict;

const char* kUsage = R"(usage: eunomia_memory [options]

Eunomia's memory comparison: N connections, a fraction of them reordered with a
reordering degree; peak bytes of Eunomia's HD bitmap (bitmap rows, per-connection
metadata) against a static bitmap per connection. Writes CSV (one row per
fraction x degree) to --csv FILE or standard output.

Reordering degree d% -> arrival order: windowed shuffle with OOO distance
D = round(d/100 * (max_bitmap_bits - 1)): each arriving packet is chosen
uniformly among the unsent PSNs in [lo, lo + D] (lo = lowest unsent PSN).

options:
  --connections N      concurrent connections (default 20, at most 256)
  --packets N          packets per connection (default 2000)
  --fractions LIST     percent of connections reordered, comma-separated
                       (default 0,10,20,...,100)
  --degrees LIST       reordering degrees in percent (default 10,20,...,100)
  --seeds N            runs per scenario, seeds seed-base.. (default 3)
  --seed-base N        first seed (default 1)
  --max-bitmap-bits N  Eunomia's cap per connection (default 256)
  --block-bits N       Eunomia row width (default 16)
  --metadata-bytes N   Eunomia metadata per connection (default 48 = 8 fixed
                       blocks + one 2-byte address per row)
  --master-blocks N    master_array blocks (default: enough for every
                       connection at the cap, at least 1024)
  --static-bits N      static bitmap per connection (default 256)
  --static-extra-bytes N  static per-connection state besides the bitmap
                       (default 9: head 4 + last 4 + head index 1)
  --csv FILE           write the CSV there (default: standard output)
  -h, --help           this text

exit status: 0 done, 2 bad arguments
)";

struct Options {
  uint32_t connections = 20, packets = 2000, seeds = 3, seed_base = 1;
  std::vector<uint32_t> fractions{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  std::vector<uint32_t> degrees{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  uint32_t max_bitmap_bits = 256, block_bits = 16, metadata_bytes = 48, master_blocks = 0;
  uint32_t static_bits = 256, static_extra = 9;
  std::string csv;
};

struct BadArgs : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint32_t parse_u32(const std::string& opt, const std::string& v) {
  if (v.empty() || v[0] == '-') throw BadArgs(opt + " '" + v + "': expected a number");
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (errno || *end || x > 0xFFFFFFFFull) throw BadArgs(opt + " '" + v + "': expected a number");
  return static_cast<uint32_t>(x);
}

std::vector<uint32_t> parse_list(const std::string& opt, const std::string& v, uint32_t max) {
  std::vector<uint32_t> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const uint32_t x = parse_u32(opt, item);
    if (x > max) throw BadArgs(opt + ": " + item + " is above " + std::to_string(max));
    out.push_back(x);
  }
  if (out.empty()) throw BadArgs(opt + ": empty list");
  return out;
}

struct RunResult {
  uint32_t bitmap_bytes = 0, metadata_bytes = 0, total_bytes = 0, index_bytes = 0;
  uint64_t deliveries = 0, ooo_first = 0, first = 0, nacks = 0;
};

RunResult run_once(const Options& o, uint32_t reordered, uint32_t dist, uint64_t seed) {
  HdBitmapCore::Params p;
  p.block_bits = o.block_bits;
  p.max_bitmap_bits = o.max_bitmap_bits;
  p.memory.max_connections = o.connections;
  p.memory.metadata_blocks = o.metadata_bytes / 2;
  p.memory.blocks = o.master_blocks;
  HdBitmapCore bm(p);

  oonic::PyRandom rng(seed);
  struct Conn {
    uint32_t start = 0;
    std::vector<uint32_t> queue;  // offsets, in delivery order
    size_t pos = 0;
    std::vector<uint8_t> first_sent;
  };
  std::vector<Conn> conns(o.connections);
  for (uint32_t c = 0; c < o.connections; ++c) {
    Conn& k = conns[c];
    k.start = static_cast<uint32_t>(rng.getrandbits(24));
    if (c < reordered) {
      k.queue = oonic::arrival::windowed_shuffle(o.packets, dist, rng);  // the one shuffle
    } else {
      k.queue.resize(o.packets);
      for (uint32_t i = 0; i < o.packets; ++i) k.queue[i] = i;
    }
    k.first_sent.assign(o.packets, 0);
    bm.open(c, k.start, 0);
  }
  RunResult r;
  std::vector<uint32_t> active;
  for (uint32_t c = 0; c < o.connections; ++c) active.push_back(c);
  const uint64_t limit = 1000ull * o.packets * o.connections + 100000;
  while (!active.empty()) {
    const size_t ai = static_cast<size_t>(rng.randrange(active.size()));
    Conn& k = conns[active[ai]];
    const uint32_t c = active[ai];
    if (k.pos == k.queue.size()) {
      active[ai] = active.back();
      active.pop_back();
      continue;
    }
    const uint32_t x = k.queue[k.pos++];
    PacketMeta meta;
    meta.has_head = true;
    meta.head = k.start;
    meta.last = x + 1 == o.packets;
    const uint32_t psn = oonic::wire::psn_add(k.start, x);
    if (c < reordered && !k.first_sent[x]) {
      k.first_sent[x] = 1;
      ++r.first;
      if (psn != bm.epsn(c)) ++r.ooo_first;
    }
    const Outcome out = bm.receive(c, psn, meta);
    if (++r.deliveries > limit) throw std::runtime_error("a connection does not terminate");
    if (out.feedback == Feedback::kNack) {
      ++r.nacks;
      // Resend after the packet at ePSN (it is queued: nothing is lost).
      const uint32_t e = static_cast<uint32_t>(oonic::wire::psn_diff(out.epsn, k.start));
      size_t at = k.queue.size();
      for (size_t i = k.pos; i < k.queue.size(); ++i)
        if (k.queue[i] == e) {
          at = i + 1;
          break;
        }
      k.queue.insert(k.queue.begin() + static_cast<std::ptrdiff_t>(at), x);
    }
    if (out.verdict == Verdict::kPoolExhausted)
      throw std::runtime_error("master_array exhausted: raise --master-blocks");
  }
  for (uint32_t c = 0; c < o.connections; ++c) {
    if (bm.epsn(c) != oonic::wire::psn_add(conns[c].start, o.packets))
      throw std::runtime_error("connection " + std::to_string(c) + " did not complete");
    if (bm.blocks_held(c) != 0)
      throw std::runtime_error("connection " + std::to_string(c) + " still holds a bitmap");
  }
  std::string why;
  if (!bm.check_invariants(&why)) throw std::runtime_error("invariant violated: " + why);
  const auto& mc = bm.controller();
  if (mc.used_blocks() != 0) throw std::runtime_error("master_array not empty at the end");
  r.bitmap_bytes = mc.peak_bitmap_blocks() * 2;
  r.metadata_bytes = mc.peak_metadata_blocks() * 2;
  r.total_bytes = mc.peak_used_blocks() * 2;
  r.index_bytes = mc.peak_metadata_blocks() / mc.params().metadata_blocks * 3;
  return r;
}

std::string fmt1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

int run(int argc, char* argv[]) {
  Options o;
  std::vector<std::string> a(argv + 1, argv + argc);
  auto need = [&](size_t& i) -> std::string {
    if (i + 1 >= a.size()) throw BadArgs(a[i] + " needs a value");
    return a[++i];
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& s = a[i];
    if (s == "-h" || s == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (s == "--connections") {
      o.connections = parse_u32(s, need(i));
    } else if (s == "--packets") {
      o.packets = parse_u32(s, need(i));
    } else if (s == "--fractions") {
      o.fractions = parse_list(s, need(i), 100);
    } else if (s == "--degrees") {
      o.degrees = parse_list(s, need(i), 100);
    } else if (s == "--seeds") {
      o.seeds = parse_u32(s, need(i));
    } else if (s == "--seed-base") {
      o.seed_base = parse_u32(s, need(i));
    } else if (s == "--max-bitmap-bits") {
      o.max_bitmap_bits = parse_u32(s, need(i));
    } else if (s == "--block-bits") {
      o.block_bits = parse_u32(s, need(i));
    } else if (s == "--metadata-bytes") {
      o.metadata_bytes = parse_u32(s, need(i));
    } else if (s == "--master-blocks") {
      o.master_blocks = parse_u32(s, need(i));
    } else if (s == "--static-bits") {
      o.static_bits = parse_u32(s, need(i));
    } else if (s == "--static-extra-bytes") {
      o.static_extra = parse_u32(s, need(i));
    } else if (s == "--csv") {
      o.csv = need(i);
    } else {
      throw BadArgs("unknown argument '" + s + "' (see --help)");
    }
  }
  if (o.connections < 1 || o.connections > 256) throw BadArgs("--connections must be 1..256");
  if (o.packets < 1 || o.packets > (1u << 22)) throw BadArgs("--packets must be 1..4194304");
  if (o.seeds < 1) throw BadArgs("--seeds must be >= 1");
  if (o.metadata_bytes % 2 != 0) throw BadArgs("--metadata-bytes must be even (2-byte blocks)");
  if (o.static_bits % 8 != 0) throw BadArgs("--static-bits must be a multiple of 8");
  if (o.block_bits < 16 || o.block_bits % 16 != 0 || o.max_bitmap_bits < o.block_bits ||
      o.max_bitmap_bits % o.block_bits != 0)
    throw BadArgs("--block-bits must be a multiple of 16 dividing --max-bitmap-bits");
  if (o.master_blocks == 0) {
    const uint64_t need_blocks =
        static_cast<uint64_t>(o.connections) * (o.metadata_bytes / 2 + o.max_bitmap_bits / 16);
    o.master_blocks = static_cast<uint32_t>(std::max<uint64_t>(1024, need_blocks));
    if (o.master_blocks > 0xFFFF) throw BadArgs("too many connections for a 65535-block array");
  }

  std::ofstream file;
  if (!o.csv.empty()) {
    file.open(o.csv);
    if (!file) throw BadArgs("cannot write " + o.csv);
  }
  std::ostream& out = o.csv.empty() ? std::cout : file;
  out << "reordered_pct,degree_pct,reordered_connections,ooo_distance,connections,"
         "packets_per_connection,seeds,eunomia_bitmap_bytes,eunomia_metadata_bytes,"
         "eunomia_total_bytes,eunomia_index_bytes,eunomia_bitmap_bytes_max,"
         "eunomia_total_bytes_max,static_bitmap_bytes,static_total_bytes,ooo_arrival_pct,"
         "nacks\n";
  const uint32_t static_bitmap = o.connections * (o.static_bits / 8);
  const uint32_t static_total = o.connections * (o.static_bits / 8 + o.static_extra);
  for (uint32_t f : o.fractions) {
    const uint32_t reordered =
        static_cast<uint32_t>(std::lround(f / 100.0 * static_cast<double>(o.connections)));
    for (uint32_t d : o.degrees) {
      const uint32_t dist = static_cast<uint32_t>(
          std::lround(d / 100.0 * static_cast<double>(o.max_bitmap_bits - 1)));
      double bm = 0, md = 0, tot = 0, idx = 0;
      uint32_t bm_max = 0, tot_max = 0;
      uint64_t first = 0, ooo = 0, nacks = 0;
      for (uint32_t s = 0; s < o.seeds; ++s) {
        // One seed per (run, fraction, degree): scenarios are independent.
        const uint64_t seed = (static_cast<uint64_t>(o.seed_base + s) << 16) ^ (f << 8) ^ d;
        const RunResult r = run_once(o, reordered, dist, seed);
        bm += r.bitmap_bytes;
        md += r.metadata_bytes;
        tot += r.total_bytes;
        idx += r.index_bytes;
        bm_max = std::max(bm_max, r.bitmap_bytes);
        tot_max = std::max(tot_max, r.total_bytes);
        first += r.first;
        ooo += r.ooo_first;
        nacks += r.nacks;
      }
      const double n = o.seeds;
      out << f << ',' << d << ',' << reordered << ',' << dist << ',' << o.connections << ','
          << o.packets << ',' << o.seeds << ',' << fmt1(bm / n) << ',' << fmt1(md / n) << ','
          << fmt1(tot / n) << ',' << fmt1(idx / n) << ',' << bm_max << ',' << tot_max << ','
          << static_bitmap << ',' << static_total << ','
          << fmt1(first ? 100.0 * static_cast<double>(ooo) / static_cast<double>(first) : 0.0)
          << ',' << nacks << '\n';
    }
  }
  out.flush();
  if (!out) throw std::runtime_error("write error");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  try {
    return run(argc, argv);
  } catch (const BadArgs& e) {
    std::fprintf(stderr, "eunomia_memory: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {  // model parameters refused
    std::fprintf(stderr, "eunomia_memory: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "eunomia_memory: %s\n", e.what());
    return 1;
  }
}
