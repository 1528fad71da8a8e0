// `oonic experiment bitmap-compare`: ORNIC §4.3's bitmap comparison
// (docs/DESIGN.md M1, M3, M4; docs/experiments/bitmap-compare.md).
//
// One QP, M-bit blocks (default 16), a B-bit QP bitmap (default 320 = N 20 blocks),
// packets start..start+P-1 reordered by a windowed shuffle with OOO distance D
// (default 64). Every scheme (ORNIC, MELO+, LEFT, LEFT+, Eunomia HD, static
// bitmap) is its plain C++ ordering core (model/ordering/), fed the same arrival
// order per seed; no SystemC kernel runs.
//
//   scenario A "no-loss":   every packet arrives once, in the shuffled order.
//   scenario B "head-loss": the same order without one packet of the first bitmap
//                           block (PSN start + u, u uniform in 0..M-1); that packet
//                           (its retransmission) arrives after the last packet.
//                           Packets a scheme cannot track meanwhile (beyond its
//                           window, pool empty) are dropped and counted, never resent.
//
// Per run (seed, scheme, scenario): the mean locate_cycles over the calls with
// verdict kOutOfOrder, and the maximum blocks_held over all calls (Eunomia: its bitmap
// rows, Scheme::bitmap_blocks). Over the seeds:
// mean, sample std, min, p5, p95, max.
//
// Arrival (--arrival): the windowed shuffle (default) or aligned groups of G (ORNIC
// §4.3's "OOO distance did not exceed 64": groups of 64 positions, each a random
// permutation, in order; at most four 16-bit blocks are touched at once).
// Shuffle (scripts/gen-trace's and `oonic trace perturb`'s windowed shuffle, the same
// code and generator: platforms/common/arrival_order.h): the window holds the
// not-yet-sent packets whose in-order position is at most (first not-yet-sent
// position) + D, in ascending order; each step sends the window entry at index
// rng.randrange(window size), rng = Python's random.Random(seed) (PyRandom). So no
// packet arrives more than D PSNs beyond the first missing one and each lands
// within D positions of its in-order place. The lost packet's offset u is drawn
// from the same generator right after the shuffle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/ordering/ordering_unit.h"
#include "platforms/common/py_random.h"

namespace CLI {
class App;
}
namespace oonic::cli {
struct Context;
}

namespace oonic::experiments {

// Adds `oonic experiment` and its experiments under `oonic` (platforms/cli/cli.h).
void add_command(CLI::App& oonic, cli::Context& ctx);

// How one seed's arrival order is made.
enum class Arrival {
  kWindow,         // windowed shuffle with OOO distance D (above)
  kAlignedGroups,  // consecutive groups of G positions, each a random permutation, groups
                   // in order (platforms/common/arrival_order.h): ORNIC §4.3's model
};
const char* arrival_name(Arrival a);  // "window", "aligned-groups"

struct BitmapCompareOptions {
  uint32_t seeds = 1000;  // runs per scheme and scenario, seeds first_seed..
  uint64_t first_seed = 1;
  uint32_t packets = 0;              // per run; 0 = 10 * qp_bits
  uint32_t ooo_distance = 64;        // D; also the OTD of the schemes that have one
  uint32_t block_bits = 16;          // M
  uint32_t qp_bits = 320;            // B, a multiple of M
  uint32_t start_psn = 0;            // first PSN of the run (24 bits)
  std::vector<std::string> schemes;  // ids to run; empty = every available one
  Arrival arrival = Arrival::kWindow;
  uint32_t group = 0;  // kAlignedGroups: G positions per group; 0 = D
  uint32_t packets_per_run() const { return packets ? packets : 10 * qp_bits; }
  uint32_t group_size() const { return group ? group : ooo_distance; }
  // Bound the arrival order keeps on OOO distance and displacement: D, or G - 1.
  uint32_t arrival_bound() const {
    return arrival == Arrival::kWindow ? ooo_distance : (group_size() ? group_size() - 1 : 0);
  }
};

// The arrival order of positions 0..n-1 the options ask for, drawn from rng.
std::vector<uint32_t> arrival_order(const BitmapCompareOptions& o, uint32_t n, PyRandom& rng);

// A scheme as the experiment builds it: one QP (qp 0), geometry from the options.
struct Scheme {
  const char* id;     // CSV name: ornic, melo+, left, left+, eunomia-hd, static-bitmap
  const char* label;  // table name
  std::unique_ptr<ordering::OrderingUnit> (*make)(const BitmapCompareOptions& o);
  // Bitmap blocks the QP holds after a call; nullptr = Outcome::blocks_held. (Eunomia's
  // blocks_held also counts its 24 metadata blocks; the comparison counts bitmap rows.)
  uint32_t (*bitmap_blocks)(const ordering::OrderingUnit& u, uint32_t qp) = nullptr;
};
// Every scheme whose core is built into this binary, in table order.
const std::vector<Scheme>& bitmap_compare_schemes();

struct Spread {
  uint32_t n = 0;  // values aggregated (runs)
  double mean = 0, std = 0, min = 0, p5 = 0, p95 = 0, max = 0;
};
// Sample std (n - 1; 0 when n < 2); p5/p95 by linear interpolation between the
// closest order statistics (position q * (n - 1) in the sorted values).
Spread spread(std::vector<double> v);

struct BitmapCompareRow {
  std::string scheme, label, scenario;
  Spread locate;               // per-run mean locate_cycles of kOutOfOrder calls (runs with any)
  Spread blocks;               // per-run max blocks_held
  double ooo_packets = 0;      // mean per run: calls with verdict kOutOfOrder
  double dropped = 0;          // mean per run: beyond window, pool exhausted, untrackable
  double duplicates = 0;       // mean per run
  uint32_t complete_runs = 0;  // runs that ended with ePSN = start + packets
};

struct BitmapCompareResult {
  std::vector<BitmapCompareRow> rows;  // scheme-major, scenarios no-loss then head-loss
  // Measured over every seed's arrival order (both <= ooo_distance by construction):
  uint32_t max_ooo_distance = 0;     // max (arriving position - first missing position)
  uint32_t max_displacement = 0;     // max |arrival index - in-order position|
  std::vector<std::string> skipped;  // "id: reason" of schemes whose core rejects the geometry
};

BitmapCompareResult run_bitmap_compare(const BitmapCompareOptions& o);
std::string bitmap_compare_csv(const BitmapCompareOptions& o, const BitmapCompareResult& r);
std::string bitmap_compare_markdown(const BitmapCompareOptions& o, const BitmapCompareResult& r);

}  // namespace oonic::experiments
