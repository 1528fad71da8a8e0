// Stats registry: named counters, histograms, time-weighted gauges and derived
// figures, each with a unit and a description, dumped as JSON at the end of a
// run. Names are hierarchical ("nic0.rx.parser.packets"). Plain C++.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/core/cycles.h"

namespace oonic {

struct Counter {
  uint64_t value = 0;
  void inc(uint64_t n = 1) { value += n; }
};

struct Histogram {
  double bucket_width = 1;
  std::vector<uint64_t> buckets;  // last bucket collects everything above
  uint64_t count = 0;
  double sum = 0, min = 0, max = 0;
  void add(double x);
  double mean() const { return count ? sum / count : 0; }
};

// A quantity that is a step function of the cycle (queue depth, SRAM bits used).
// Changes may be recorded out of cycle order (blocks book future cycles); they
// are sorted when settled or finalized. A long run settles behind simulated
// time (settle): changes before a cycle no block can book any more are folded
// into the running figures, so memory follows the changes in flight, not the
// length of the run.
class TimeWeighted {
 public:
  using Point = std::pair<Cycle, int64_t>;
  // t must not lie before a cycle already settled (an Error of kModel).
  void change(Cycle t, int64_t delta) {
    if (t < settled_before_) late(t);
    // Most gauges book in cycle order: settling then needs no sort.
    if (t < last_booked_)
      in_order_ = false;
    else
      last_booked_ = t;
    // Chunked: growing never copies what is already recorded (runs book millions).
    if (chunks_.empty() || chunks_.back().size() >= kChunk) {
      // The first chunk grows as it fills (most gauges change a few times: a
      // fabric has thousands); later ones are taken whole.
      const bool first = chunks_.empty();
      chunks_.emplace_back();
      if (!first) chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back({t, delta});
  }
  // Folds every change booked before cycle `before` (the caller promises that
  // none earlier will be booked, and that the run ends at or after it). Their
  // change points go to *taken when given (then points() keeps only later
  // ones and histogram() answers only for the tracked shape), else they stay.
  void settle(Cycle before, std::vector<Point>* taken = nullptr);
  // The histogram shape kept up while settling (top, buckets).
  void track_histogram(int64_t top, int n);
  // Figures at `end` from everything booked so far; may be called again after
  // more changes.
  void finalize(Cycle end);
  // After finalize: change points (cycle, value), one per cycle with a change.
  const std::vector<Point>& points() const { return points_; }
  int64_t peak() const { return peak_; }
  double mean() const { return mean_; }
  int64_t final_value() const { return final_; }
  int64_t min_value() const { return min_; }
  // Time-weighted histogram: fraction of cycles spent in each of `n` equal
  // buckets of [0, top].
  std::vector<double> histogram(int64_t top, int n) const;
  bool finalized() const { return finalized_; }

 private:
  // The fold of the changes in cycle order up to some cycle.
  struct Fold {
    int64_t v = 0, peak = 0, min = 0;
    long double area = 0;
    Cycle last_t = 0;
    Cycle hist_t = 0;  // histogram: the cycle its segments reach
    std::vector<double> hist;
    // Folds the changes of cycle t (summed to d): the area up to t (clipped at end).
    bool step(Cycle t, int64_t d, Cycle end);
    void hist_to(Cycle t, int64_t top, int n);
  };
  [[noreturn]] void late(Cycle t) const;
  std::vector<Point> sorted_pending() const;
  // The pending changes in cycle order (stable), as one vector: the only chunk
  // itself when it is already sorted, else a sorted copy left in *scratch.
  std::vector<Point>& pending_in_order(std::vector<Point>* scratch);
  static constexpr size_t kChunk = 4096;
  std::vector<std::vector<Point>> chunks_;  // booked, not yet settled
  std::vector<Point> points_;               // settled points kept, then finalize's
  size_t kept_ = 0;                         // of points_, the settled ones
  bool taken_ = false;                      // some settled points went elsewhere
  Cycle settled_before_ = 0;
  Cycle last_booked_ = 0;  // the latest cycle booked while in_order_
  bool in_order_ = true;   // the pending changes were booked in cycle order
  Fold settled_;
  int64_t hist_top_ = 0;
  int hist_n_ = 0;
  int64_t peak_ = 0, final_ = 0, min_ = 0;
  double mean_ = 0;
  Cycle end_ = 0;
  bool finalized_ = false;
};

// A stat's unit or description: a string literal, held by pointer (a fabric
// registers hundreds of stats a host; copies of their texts were most of an idle
// host's memory). Only literals convert, so a dangling pointer cannot compile.
class StatText {
 public:
  template <size_t N>
  constexpr StatText(const char (&s)[N]) : s_(s) {}  // NOLINT: implicit by design
  const char* c_str() const { return s_; }

 private:
  const char* s_;
};

class Stats {
 public:
  enum class Kind : uint8_t { kCounter, kHistogram, kGauge, kDerived };
  struct Info {
    std::string name;
    Kind kind;
    std::string unit;
    std::string desc;
  };

  Counter& counter(const std::string& name, StatText unit, StatText desc);
  Histogram& histogram(const std::string& name, StatText unit, StatText desc, double bucket_width,
                       uint32_t nbuckets);
  TimeWeighted& gauge(const std::string& name, StatText unit, StatText desc);
  void derived(const std::string& name, StatText unit, StatText desc, std::function<double()> f);

  // Finalize every gauge at `end` and build {name: {value/..., unit, desc}}.
  nlohmann::json to_json(Cycle end);
  // The same object written to `os` as nlohmann's dump(2) would write it when it
  // sits at `depth` levels of a document (no tree built: a large fabric's is
  // hundreds of MB).
  void write_json(std::ostream& os, Cycle end, int depth);
  size_t size() const { return items_.size(); }
  std::vector<Info> list() const;
  // Every registered stat, one per line ("name [unit, kind] description") or as
  // a Markdown table (`oonic stats`, docs/STATS*.md).
  std::string listing(bool markdown) const;
  const Counter* find_counter(const std::string& name) const;
  uint64_t counter_value(const std::string& name) const;  // 0 if absent
  // A counter's or a derived stat's value now (0 if absent or another kind).
  double scalar_value(const std::string& name) const;
  TimeWeighted* find_gauge(const std::string& name);

 private:
  // A name is its group path and its last component, each interned once: hosts
  // share their leaf names, and a block's stats share its path.
  struct Item {
    uint32_t path;  // interned text before the last '.' (kNoPath: none)
    uint32_t leaf;  // interned text after it
    Kind kind;
    const char* unit;
    const char* desc;
    void* p;  // Counter*, Histogram*, TimeWeighted* or std::function<double()>*
  };
  static constexpr uint32_t kNoPath = UINT32_MAX;
  Item& add(const std::string& name, Kind kind, StatText unit, StatText desc, void* p);
  uint32_t intern(std::string_view s);
  std::string name_of(const Item& it) const;
  // Item indices sorted by name (JSON order, lookups); rebuilt after a registration.
  const std::vector<uint32_t>& sorted() const;
  const Item* find(const std::string& name) const;
  nlohmann::json entry(Item& it);

  std::deque<Counter> counters_;
  std::deque<Histogram> histograms_;
  std::deque<TimeWeighted> gauges_;
  std::deque<std::function<double()>> functions_;
  std::deque<Item> items_;         // a deque: no doubling copies (a fabric registers ~10^6)
  std::deque<std::string> texts_;  // interned path and leaf texts (stable addresses)
  std::unordered_map<std::string_view, uint32_t> text_ids_;
  std::unordered_map<uint64_t, uint32_t> index_;  // (path, leaf) -> item: lookups, duplicates
  mutable std::vector<uint32_t> sorted_;
};

const char* to_string(Stats::Kind k);

// A block's stats under the block's own name (gem5's statistics::Group): the block
// registers "acks" and the registry holds "nic0.control.rsp_manager.acks". Groups nest
// (group("hd_bitmap")); names, units and descriptions are what docs/STATS*.md list.
class StatGroup {
 public:
  StatGroup(Stats& registry, std::string path) : r_(&registry), path_(std::move(path)) {}
  StatGroup group(const std::string& sub) const { return StatGroup(*r_, full(sub)); }
  Counter& counter(const std::string& name, StatText unit, StatText desc) const {
    return r_->counter(full(name), unit, desc);
  }
  Histogram& histogram(const std::string& name, StatText unit, StatText desc, double bucket_width,
                       uint32_t nbuckets) const {
    return r_->histogram(full(name), unit, desc, bucket_width, nbuckets);
  }
  TimeWeighted& gauge(const std::string& name, StatText unit, StatText desc) const {
    return r_->gauge(full(name), unit, desc);
  }
  void derived(const std::string& name, StatText unit, StatText desc,
               std::function<double()> f) const {
    r_->derived(full(name), unit, desc, std::move(f));
  }
  const std::string& path() const { return path_; }
  Stats& registry() const { return *r_; }

 private:
  std::string full(const std::string& n) const { return path_.empty() ? n : path_ + "." + n; }
  Stats* r_;
  std::string path_;
};

}  // namespace oonic
