// `oonic experiment bitmap-compare` (see bitmap_compare.h and
// docs/experiments/bitmap-compare.md).
//
// Scheme configuration, all for one QP (qp 0) opened at start_psn with OTD = D:
//   ornic          OrnicBitmap: M-bit blocks, N = B / M nodes, pool of N blocks.
//   melo+, left,   MeloPlus / Left / LeftPlus (linked_list_bitmap.h): pool of B bits in
//   left+          M-bit blocks (N blocks, all of them usable by the QP); LEFT's cache
//                  threshold is the core's default (2 hops).
//   eunomia-hd     HdBitmapCore: rows of M bits, cap B bits (B / M rows), its own
//                  master_array (1024 blocks); "blocks held" = bitmap_blocks_held() (rows,
//                  not its metadata blocks: ORNIC's node array is not counted either).
//   static-bitmap  StaticBitmap: a B-bit window from ePSN; blocks_held = B / M always.
// locate_cycles is what each core reports (its header defines it); the experiment
// only averages it over the kOutOfOrder calls.
// Each core is rebuilt for every run, so no state (free-list order, caches) leaks
// from one run into the next.
#include "platforms/experiments/bitmap_compare.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "model/core/error.h"
#include "model/eunomia/hd_bitmap_core.h"
#include "model/ordering/left.h"
#include "model/ordering/melo.h"
#include "model/ordering/ornic_bitmap.h"
#include "model/ordering/static_bitmap.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"
#include "platforms/common/cli_options.h"

namespace oonic::experiments {

namespace {

const char* kBitmapCompareDescription =
    "ORNIC \u00a74.3's bitmap comparison on the ordering cores (model/ordering/), no SystemC:\n"
    "one QP, M-bit blocks, a B-bit QP bitmap, P packets per run reordered by a windowed\n"
    "shuffle with OOO distance D or in aligned groups (--arrival); every scheme sees the\n"
    "same arrival orders.\n"
    "  scenario no-loss    every packet arrives once\n"
    "  scenario head-loss  one random packet of the first bitmap block (PSN start..start+M-1)\n"
    "                      is lost; its retransmission arrives after the last packet\n"
    "Per run: mean locate cycles of the out-of-order packets (verdict kOutOfOrder) and\n"
    "the maximum number of bitmap blocks the QP held; over the seeds: mean, std, min,\n"
    "p5, p95, max. Arrival models (Python's random.Random(seed): oonic::PyRandom):\n"
    "  window          the window holds the not-yet-sent packets at most D positions after\n"
    "                  the first not-yet-sent one; each step sends one of them chosen\n"
    "                  uniformly (OOD <= D; the outstanding PSNs may span D + 1)\n"
    "  aligned-groups  consecutive groups of G positions from the first PSN, each a\n"
    "                  uniformly random permutation, groups in order (OOD <= G - 1; with\n"
    "                  G = 64 and M = 16 a group touches exactly 4 blocks: ORNIC \u00a74.3)\n"
    "See docs/experiments/bitmap-compare.md.";

// ------------------------------------------------------------------ schemes ---

std::unique_ptr<ordering::OrderingUnit> make_ornic(const BitmapCompareOptions& o) {
  ordering::OrnicBitmap::Params p;
  p.block_bits = o.block_bits;
  p.nodes_per_qp = o.qp_bits / o.block_bits;
  p.pool_blocks = o.qp_bits / o.block_bits;
  p.max_qps = 1;
  return std::make_unique<ordering::OrnicBitmap>(p);
}

// MELO+ / LEFT / LEFT+: a pool of exactly the QP's B bits (N blocks of M bits), the
// list may span all of it (max_blocks_per_qp 0). LEFT's cache threshold: the core's
// default.
template <class T>
std::unique_ptr<ordering::OrderingUnit> make_list(const BitmapCompareOptions& o) {
  typename T::Params p;
  p.pool_bits = o.qp_bits;
  p.block_bits = o.block_bits;
  p.max_qps = 1;
  p.max_blocks_per_qp = 0;
  return std::make_unique<T>(p);
}

// Eunomia HD bitmap: rows of M bits, capped at the QP's B bits (R = B / M rows); its own
// master_array (1024 2-byte blocks, the reference build) serves the one QP.
std::unique_ptr<ordering::OrderingUnit> make_eunomia(const BitmapCompareOptions& o) {
  eunomia::HdBitmapCore::Params p;
  p.block_bits = o.block_bits;
  p.max_bitmap_bits = o.qp_bits;
  // Metadata: 8 header blocks + one address entry per row (the reference 24 = 8 + 16 rows
  // of its 256-bit cap; 28 for 20 rows).
  p.memory.metadata_blocks = std::max(p.memory.metadata_blocks, 8 + o.qp_bits / o.block_bits);
  return std::make_unique<eunomia::HdBitmapCore>(p);
}

uint32_t eunomia_bitmap_blocks(const ordering::OrderingUnit& u, uint32_t qp) {
  return static_cast<const eunomia::HdBitmapCore&>(u).bitmap_blocks_held(qp);
}

// Static bitmap: window_bits = B, held blocks counted in M-bit blocks (B / M, always).
std::unique_ptr<ordering::OrderingUnit> make_static(const BitmapCompareOptions& o) {
  ordering::StaticBitmap::Params p;
  p.window_bits = o.qp_bits;
  p.block_bits = o.block_bits;
  p.max_qps = 1;
  return std::make_unique<ordering::StaticBitmap>(p);
}

const char* kScenarios[2] = {"no-loss", "head-loss"};
const char* kScenarioLabels[2] = {"A: no loss", "B: head loss"};

std::string scheme_ids() {
  std::string ids;
  for (const Scheme& s : bitmap_compare_schemes())
    ids += (ids.empty() ? "" : ",") + std::string(s.id);
  return ids;
}

void validate(const BitmapCompareOptions& o) {
  auto bad = [](const std::string& m) { throw Error(msg::kCli, "bitmap-compare: " + m); };
  if (o.seeds < 1) bad("--seeds must be at least 1");
  if (o.block_bits < 1 || o.block_bits > wire::kMaxBitmapBlockBits)
    bad("--block-bits must be 1.." + std::to_string(wire::kMaxBitmapBlockBits));
  if (o.qp_bits < o.block_bits || o.qp_bits % o.block_bits != 0)
    bad("--qp-bits " + std::to_string(o.qp_bits) + " must be a positive multiple of --block-bits " +
        std::to_string(o.block_bits));
  if (o.qp_bits >= (1u << 22)) bad("--qp-bits must be below 2^22");
  if (o.packets_per_run() < 1) bad("--packets must be at least 1");
  if (o.packets_per_run() >= (1u << 23)) bad("--packets must be below 2^23 (24-bit PSNs)");
  if (o.ooo_distance >= (1u << 22)) bad("--ooo-distance must be below 2^22");
  if (o.start_psn > wire::kPsnMask) bad("--start-psn must fit 24 bits");
}

std::string fmt(double x) {
  char b[64];
  if (std::isnan(x)) return "n/a";
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(b, sizeof b, "%.0f", x);
  } else {
    std::snprintf(b, sizeof b, "%.2f", x);
  }
  return b;
}

std::string fmt_csv(double x) {
  if (std::isnan(x)) return "";
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", x);
  return b;
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error(msg::kIo, "bitmap-compare: cannot write '" + path + "'");
  f << text;
  f.flush();
  if (!f) throw Error(msg::kIo, "bitmap-compare: error writing '" + path + "'");
}

// The arrival order keeps its promise (else the shuffle is broken: internal error):
// every packet lands within d positions of its in-order place, and no packet arrives
// more than d PSNs beyond the first one not yet arrived (the receiver's ePSN without loss).
void check_shuffle(const std::vector<uint32_t>& order, uint32_t d, uint64_t seed, uint32_t* max_ood,
                   uint32_t* max_disp) {
  std::vector<uint8_t> arrived(order.size(), 0);
  uint32_t low = 0, ood = 0, disp = 0;
  for (uint32_t k = 0; k < order.size(); ++k) {
    const uint32_t x = order[k];
    if (x >= order.size() || arrived[x])
      throw Error(msg::kModel, "bitmap-compare: shuffle of seed " + std::to_string(seed) +
                                   " is not a permutation");
    ood = std::max(ood, x - low);
    disp = std::max(disp, x > k ? x - k : k - x);
    arrived[x] = 1;
    while (low < order.size() && arrived[low]) ++low;
  }
  if (ood > d || disp > d)
    throw Error(msg::kModel, "bitmap-compare: shuffle of seed " + std::to_string(seed) +
                                 " exceeds OOO distance " + std::to_string(d));
  *max_ood = std::max(*max_ood, ood);
  *max_disp = std::max(*max_disp, disp);
}

struct RunResult {
  bool any_ooo = false;
  double locate = 0;  // mean locate_cycles of kOutOfOrder calls
  uint32_t max_blocks = 0;
  uint32_t ooo = 0, dropped = 0, duplicates = 0;
  bool complete = false;
};

RunResult run_once(const Scheme& s, const BitmapCompareOptions& o,
                   const std::vector<uint32_t>& psns, uint64_t seed, const char* scenario) {
  std::unique_ptr<ordering::OrderingUnit> u = s.make(o);
  u->open(0, o.start_psn, o.ooo_distance);
  RunResult r;
  uint64_t locate_sum = 0;
  // The run is one message: every packet carries Head = start PSN (Eunomia's sender
  // metadata), the packet with the last PSN has the "last" bit. Cores that need no
  // metadata ignore it.
  const uint32_t last_psn = wire::psn_add(o.start_psn, o.packets_per_run() - 1);
  ordering::PacketMeta meta;
  meta.has_head = true;
  meta.head = o.start_psn;
  for (uint32_t psn : psns) {
    meta.last = psn == last_psn;
    const ordering::Outcome out = u->receive(0, psn, meta);
    switch (out.verdict) {
      case ordering::Verdict::kOutOfOrder:
        ++r.ooo;
        locate_sum += out.locate_cycles;
        break;
      case ordering::Verdict::kInOrder:
        break;
      case ordering::Verdict::kDuplicate:
        ++r.duplicates;
        break;
      default:
        ++r.dropped;
        break;
    }
    const uint32_t held = s.bitmap_blocks ? s.bitmap_blocks(*u, 0) : out.blocks_held;
    r.max_blocks = std::max(r.max_blocks, held);
  }
  r.any_ooo = r.ooo > 0;
  r.locate = r.any_ooo ? static_cast<double>(locate_sum) / r.ooo : 0.0;
  r.complete = u->epsn(0) == wire::psn_add(o.start_psn, o.packets_per_run());
  std::string why;
  if (!u->check_invariants(&why))
    throw Error(msg::kModel, std::string("bitmap-compare: ") + s.id + ", scenario " + scenario +
                                 ", seed " + std::to_string(seed) + ": invariant broken: " + why);
  u->close(0);
  return r;
}

}  // namespace

// ------------------------------------------------------------------- public ---

const std::vector<Scheme>& bitmap_compare_schemes() {
  static const std::vector<Scheme> schemes = {
      {"ornic", "ORNIC", &make_ornic},
      {"melo+", "MELO+", &make_list<ordering::MeloPlus>},
      {"left", "LEFT", &make_list<ordering::Left>},
      {"left+", "LEFT+", &make_list<ordering::LeftPlus>},
      {"eunomia-hd", "Eunomia HD", &make_eunomia, &eunomia_bitmap_blocks},
      {"static-bitmap", "Static bitmap", &make_static},
  };
  return schemes;
}

const char* arrival_name(Arrival a) {
  return a == Arrival::kWindow ? "window" : "aligned-groups";
}

std::vector<uint32_t> arrival_order(const BitmapCompareOptions& o, uint32_t n, PyRandom& rng) {
  if (o.arrival == Arrival::kWindow) return arrival::windowed_shuffle(n, o.ooo_distance, rng);
  return arrival::aligned_groups(n, o.group_size(), rng);
}

Spread spread(std::vector<double> v) {
  Spread s;
  s.n = static_cast<uint32_t>(v.size());
  if (v.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.std = s.min = s.p5 = s.p95 = s.max = nan;
    return s;
  }
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / v.size();
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.std = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0.0;
  s.min = v.front();
  s.max = v.back();
  auto q = [&](double p) {
    const double pos = p * (v.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  };
  s.p5 = q(0.05);
  s.p95 = q(0.95);
  return s;
}

BitmapCompareResult run_bitmap_compare(const BitmapCompareOptions& o) {
  validate(o);
  for (const std::string& id : o.schemes) {
    bool known = false;
    for (const Scheme& s : bitmap_compare_schemes()) known = known || id == s.id;
    if (!known)
      throw Error(msg::kCli,
                  "bitmap-compare: unknown scheme '" + id + "' (available: " + scheme_ids() + ")");
  }
  BitmapCompareResult res;
  // A scheme whose core rejects the geometry (e.g. Eunomia's rows are multiples of 16
  // bits) is an error when asked for by --schemes, else left out with a note.
  std::vector<const Scheme*> run;
  for (const Scheme& s : bitmap_compare_schemes()) {
    const bool asked = std::find(o.schemes.begin(), o.schemes.end(), s.id) != o.schemes.end();
    if (!o.schemes.empty() && !asked) continue;
    try {
      (void)s.make(o);
    } catch (const std::exception& e) {
      if (asked) throw Error(msg::kCli, std::string("bitmap-compare: ") + s.id + ": " + e.what());
      res.skipped.push_back(std::string(s.id) + ": " + e.what());
      continue;
    }
    run.push_back(&s);
  }

  const uint32_t P = o.packets_per_run();
  struct Acc {
    std::vector<double> locate, blocks;
    double ooo = 0, dropped = 0, duplicates = 0;
    uint32_t complete = 0;
  };
  std::vector<Acc> acc(run.size() * 2);
  std::vector<uint32_t> psns[2];
  uint32_t max_ood = 0, max_disp = 0;
  psns[0].resize(P);
  psns[1].reserve(P);

  for (uint32_t i = 0; i < o.seeds; ++i) {
    const uint64_t seed = o.first_seed + i;
    PyRandom rng(seed);
    const std::vector<uint32_t> order = arrival_order(o, P, rng);
    check_shuffle(order, o.arrival_bound(), seed, &max_ood, &max_disp);
    const uint32_t lost = static_cast<uint32_t>(rng.randrange(std::min(o.block_bits, P)));
    psns[1].clear();
    for (uint32_t k = 0; k < P; ++k) {
      psns[0][k] = wire::psn_add(o.start_psn, order[k]);
      if (order[k] != lost) psns[1].push_back(psns[0][k]);
    }
    psns[1].push_back(wire::psn_add(o.start_psn, lost));

    for (size_t si = 0; si < run.size(); ++si) {
      for (int sc = 0; sc < 2; ++sc) {
        const RunResult r = run_once(*run[si], o, psns[sc], seed, kScenarios[sc]);
        Acc& a = acc[si * 2 + sc];
        if (r.any_ooo) a.locate.push_back(r.locate);
        a.blocks.push_back(r.max_blocks);
        a.ooo += r.ooo;
        a.dropped += r.dropped;
        a.duplicates += r.duplicates;
        a.complete += r.complete ? 1 : 0;
      }
    }
  }

  res.max_ooo_distance = max_ood;
  res.max_displacement = max_disp;
  std::vector<BitmapCompareRow>& rows = res.rows;
  for (size_t si = 0; si < run.size(); ++si) {
    for (int sc = 0; sc < 2; ++sc) {
      Acc& a = acc[si * 2 + sc];
      BitmapCompareRow row;
      row.scheme = run[si]->id;
      row.label = run[si]->label;
      row.scenario = kScenarios[sc];
      row.locate = spread(std::move(a.locate));
      row.blocks = spread(std::move(a.blocks));
      row.ooo_packets = a.ooo / o.seeds;
      row.dropped = a.dropped / o.seeds;
      row.duplicates = a.duplicates / o.seeds;
      row.complete_runs = a.complete;
      rows.push_back(std::move(row));
    }
  }
  return res;
}

std::string bitmap_compare_csv(const BitmapCompareOptions& o, const BitmapCompareResult& res) {
  std::ostringstream s;
  s << "scheme,scenario,seeds,first_seed,packets,ooo_distance,block_bits,qp_bits,start_psn,"
       "locate_runs,locate_mean,locate_std,locate_min,locate_p5,locate_p95,locate_max,"
       "blocks_mean,blocks_std,blocks_min,blocks_p5,blocks_p95,blocks_max,"
       "ooo_packets_mean,dropped_mean,duplicates_mean,complete_runs,"
       "measured_ooo_distance_max,measured_displacement_max,arrival,group\n";
  for (const BitmapCompareRow& r : res.rows) {
    s << r.scheme << ',' << r.scenario << ',' << o.seeds << ',' << o.first_seed << ','
      << o.packets_per_run() << ',' << o.ooo_distance << ',' << o.block_bits << ',' << o.qp_bits
      << ',' << o.start_psn << ',' << r.locate.n;
    for (const Spread* sp : {&r.locate, &r.blocks})
      for (double x : {sp->mean, sp->std, sp->min, sp->p5, sp->p95, sp->max})
        s << ',' << fmt_csv(x);
    s << ',' << fmt_csv(r.ooo_packets) << ',' << fmt_csv(r.dropped) << ',' << fmt_csv(r.duplicates)
      << ',' << r.complete_runs << ',' << res.max_ooo_distance << ',' << res.max_displacement << ','
      << arrival_name(o.arrival) << ','
      << (o.arrival == Arrival::kAlignedGroups ? o.group_size() : 0) << '\n';
  }
  return s.str();
}

static std::string arrival_text(const BitmapCompareOptions& o) {
  if (o.arrival == Arrival::kWindow)
    return "windowed shuffle with OOO distance " + std::to_string(o.ooo_distance);
  return "aligned groups of " + std::to_string(o.group_size()) +
         " (each a random permutation, groups in order; OTD " + std::to_string(o.ooo_distance) +
         ")";
}

std::string bitmap_compare_markdown(const BitmapCompareOptions& o, const BitmapCompareResult& res) {
  std::ostringstream s;
  const uint32_t P = o.packets_per_run();
  s << "Bitmap comparison (ORNIC §4.3): 1 QP, " << o.block_bits << "-bit blocks, " << o.qp_bits
    << "-bit QP bitmap (" << o.qp_bits / o.block_bits << " blocks), " << P
    << " packets per run (PSN " << o.start_psn << ".." << wire::psn_add(o.start_psn, P - 1) << "), "
    << arrival_text(o) << ", " << o.seeds << " seeds (" << o.first_seed << ".."
    << o.first_seed + o.seeds - 1 << ", Python random.Random(seed); measured max OOO distance "
    << res.max_ooo_distance << ", max displacement " << res.max_displacement
    << "). A: no loss. B: one random packet of the first block lost, retransmitted after "
       "the last packet; packets a scheme cannot track meanwhile are dropped.\n\n";
  s << "| Scheme | Scenario | Locate cycles per OOO packet, mean ± std | p5 – p95 | min – max "
       "| Max blocks held, mean ± std | p5 – p95 | min – max | OOO packets / run "
       "| Dropped / run |\n";
  s << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BitmapCompareRow& r : res.rows) {
    const char* sl = r.scenario == kScenarios[0] ? kScenarioLabels[0] : kScenarioLabels[1];
    s << "| " << r.label << " | " << sl << " | " << fmt(r.locate.mean) << " ± " << fmt(r.locate.std)
      << " | " << fmt(r.locate.p5) << " – " << fmt(r.locate.p95) << " | " << fmt(r.locate.min)
      << " – " << fmt(r.locate.max) << " | " << fmt(r.blocks.mean) << " ± " << fmt(r.blocks.std)
      << " | " << fmt(r.blocks.p5) << " – " << fmt(r.blocks.p95) << " | " << fmt(r.blocks.min)
      << " – " << fmt(r.blocks.max) << " | " << fmt(r.ooo_packets) << " | " << fmt(r.dropped)
      << " |\n";
  }
  for (const std::string& k : res.skipped)
    s << "\nNot run (the core rejects this geometry): " << k << "\n";
  return s.str();
}

void add_command(CLI::App& oonic, cli::Context& ctx) {
  CLI::App* e = cli::add_command(
      oonic, "experiment", "rerun a paper evaluation on the cores: bitmap-compare (ORNIC 4.3)",
      "Reruns one of the reference evaluations of the published designs on the model's\n"
      "cores.");

  struct Args {
    BitmapCompareOptions o;
    std::string arrival = "window", csv, markdown;
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* b =
      cli::add_command(*e, "bitmap-compare",
                       "ORNIC \u00a74.3: cycles to locate a bitmap block and blocks held,\n"
                       "ORNIC vs MELO+ / LEFT / LEFT+ / Eunomia HD / static bitmap",
                       kBitmapCompareDescription);
  BitmapCompareOptions& o = a->o;
  cli::add_uint(b, "--seeds", o.seeds, "N", "runs per scheme and scenario (default 1000)", 1,
                10000000);
  cli::add_uint(b, "--first-seed", o.first_seed, "S", "seeds S .. S+N-1 (default 1)", 0,
                0xFFFFFFFFu);
  cli::add_uint(b, "--packets", o.packets, "N", "packets per run (default 10 x --qp-bits = 3200)",
                1, (1u << 23) - 1);
  cli::add_choice(b, "--arrival", a->arrival, {"window", "aligned-groups"},
                  "window (default) or aligned-groups");
  cli::add_uint(b, "--ooo-distance", o.ooo_distance, "D",
                "shuffle distance, also the OTD of ORNIC (default 64)", 0, (1u << 22) - 1);
  cli::add_uint(b, "--group", o.group, "G", "aligned-groups: positions per group (default D)", 1,
                (1u << 22) - 1);
  cli::add_uint(b, "--block-bits", o.block_bits, "M", "bits per bitmap block (default 16)", 0,
                wire::kMaxBitmapBlockBits);
  cli::add_uint(b, "--qp-bits", o.qp_bits, "B", "QP bitmap bits, a multiple of M (default 320)", 0,
                (1u << 22) - 1);
  cli::add_uint(b, "--start-psn", o.start_psn, "PSN",
                "first PSN of a run (default 0; 24 bits, wraps)", 0, wire::kPsnMask);
  cli::add_list(b, "--schemes", o.schemes, "LIST", "comma-separated subset of: " + scheme_ids());
  cli::add_text(b, "--csv", a->csv, "FILE", "write the CSV (one row per scheme x scenario)");
  cli::add_text(b, "--markdown", a->markdown, "FILE", "write the Markdown table");
  cli::add_flag(b, "--quiet", a->quiet, "do not print the table on stdout");
  b->callback([a, &ctx] {
    a->o.arrival = a->arrival == "window" ? Arrival::kWindow : Arrival::kAlignedGroups;
    const BitmapCompareResult res = run_bitmap_compare(a->o);
    const std::string md = bitmap_compare_markdown(a->o, res);
    if (!a->csv.empty()) write_file(a->csv, bitmap_compare_csv(a->o, res));
    if (!a->markdown.empty()) write_file(a->markdown, md);
    if (!a->quiet) std::fputs(md.c_str(), stdout);
    ctx.rc = 0;
  });
}

}  // namespace oonic::experiments
