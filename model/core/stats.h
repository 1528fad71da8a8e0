// Stats registry: named counters, histograms, time-weighted gauges and derived
// figures, each with a unit and a description, dumped as JSON at the end of a
// run. Names are hierarchical ("nic0.rx.parser.packets"). Plain C++.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_set>
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
    // Chunked: growing never copies what is already recorded (runs book millions).
    if (chunks_.empty() || chunks_.back().size() == kChunk) {
      chunks_.emplace_back();
      chunks_.back().reserve(kChunk);
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
  static constexpr size_t kChunk = 4096;
  std::vector<std::vector<Point>> chunks_;  // booked, not yet settled
  std::vector<Point> points_;               // settled points kept, then finalize's
  size_t kept_ = 0;                         // of points_, the settled ones
  bool taken_ = false;                      // some settled points went elsewhere
  Cycle settled_before_ = 0;
  Fold settled_;
  int64_t hist_top_ = 0;
  int hist_n_ = 0;
  int64_t peak_ = 0, final_ = 0, min_ = 0;
  double mean_ = 0;
  Cycle end_ = 0;
  bool finalized_ = false;
};

class Stats {
 public:
  enum class Kind { kCounter, kHistogram, kGauge, kDerived };
  struct Info {
    std::string name;
    Kind kind;
    std::string unit;
    std::string desc;
  };

  Counter& counter(const std::string& name, const char* unit, const char* desc);
  Histogram& histogram(const std::string& name, const char* unit, const char* desc,
                       double bucket_width, uint32_t nbuckets);
  TimeWeighted& gauge(const std::string& name, const char* unit, const char* desc);
  void derived(const std::string& name, const char* unit, const char* desc,
               std::function<double()> f);

  // Finalize every gauge at `end` and build {name: {value/..., unit, desc}}.
  nlohmann::json to_json(Cycle end);
  std::vector<Info> list() const;
  // Every registered stat, one per line ("name [unit, kind] description") or as
  // a Markdown table (`oonic stats`, docs/STATS*.md).
  std::string listing(bool markdown) const;
  const Counter* find_counter(const std::string& name) const;
  uint64_t counter_value(const std::string& name) const;  // 0 if absent
  // A counter's or a derived stat's value now (0 if absent or another kind); a scan,
  // for end-of-run summaries.
  double scalar_value(const std::string& name) const;
  TimeWeighted* find_gauge(const std::string& name);

 private:
  void check_new(const std::string& name);
  struct Item {
    Info info;
    Counter* c = nullptr;
    Histogram* h = nullptr;
    TimeWeighted* g = nullptr;
    std::function<double()> f;
  };
  std::deque<Counter> counters_;
  std::deque<Histogram> histograms_;
  std::deque<TimeWeighted> gauges_;
  std::vector<Item> items_;
  std::unordered_set<std::string> names_;  // registered (a fabric has tens of thousands)
};

const char* to_string(Stats::Kind k);

// A block's stats under the block's own name (gem5's statistics::Group): the block
// registers "acks" and the registry holds "nic0.control.rsp_manager.acks". Groups nest
// (group("hd_bitmap")); names, units and descriptions are what docs/STATS*.md list.
class StatGroup {
 public:
  StatGroup(Stats& registry, std::string path) : r_(&registry), path_(std::move(path)) {}
  StatGroup group(const std::string& sub) const { return StatGroup(*r_, full(sub)); }
  Counter& counter(const std::string& name, const char* unit, const char* desc) const {
    return r_->counter(full(name), unit, desc);
  }
  Histogram& histogram(const std::string& name, const char* unit, const char* desc,
                       double bucket_width, uint32_t nbuckets) const {
    return r_->histogram(full(name), unit, desc, bucket_width, nbuckets);
  }
  TimeWeighted& gauge(const std::string& name, const char* unit, const char* desc) const {
    return r_->gauge(full(name), unit, desc);
  }
  void derived(const std::string& name, const char* unit, const char* desc,
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
