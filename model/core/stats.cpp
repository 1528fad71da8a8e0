#include "model/core/stats.h"

#include <sstream>

#include <algorithm>
#include <cmath>

#include "model/core/error.h"

namespace oonic {

void Histogram::add(double x) {
  if (count == 0) min = max = x;
  min = std::min(min, x), max = std::max(max, x);
  ++count, sum += x;
  size_t i = x <= 0 ? 0 : static_cast<size_t>(x / bucket_width);
  if (i >= buckets.size()) i = buckets.size() - 1;
  ++buckets[i];
}

void TimeWeighted::late(Cycle t) const {
  throw Error(msg::kModel, "occupancy change booked at cycle " + std::to_string(t) +
                               ", before cycle " + std::to_string(settled_before_) +
                               " whose changes were already settled");
}

std::vector<TimeWeighted::Point> TimeWeighted::sorted_pending() const {
  std::vector<Point> ev;
  size_t n = 0;
  for (const auto& c : chunks_) n += c.size();
  ev.reserve(n);
  for (const auto& c : chunks_) ev.insert(ev.end(), c.begin(), c.end());
  std::stable_sort(ev.begin(), ev.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return ev;
}

// One value per cycle: the changes booked for a cycle are summed first, so a
// value that exists only between two changes of the same cycle is never seen.
bool TimeWeighted::Fold::step(Cycle t, int64_t d, Cycle end) {
  if (t > last_t) {
    area += static_cast<long double>(v) *
            static_cast<long double>(std::min(t, end) - std::min(last_t, end));
    last_t = t;
  }
  if (d == 0) return false;
  v += d;
  peak = std::max(peak, v), min = std::min(min, v);
  return true;
}

// The histogram's segments up to cycle t (the value v held since hist_t).
void TimeWeighted::Fold::hist_to(Cycle t, int64_t top, int n) {
  if (hist.empty() || top <= 0) return;
  int b = std::clamp(static_cast<int>((static_cast<double>(v) / top) * n), 0, n - 1);
  if (t > hist_t) hist[b] += static_cast<double>(t - hist_t);
  hist_t = std::max(hist_t, t);
}

void TimeWeighted::track_histogram(int64_t top, int n) {
  hist_top_ = top, hist_n_ = n;
  settled_.hist.assign(n > 0 ? n : 0, 0.0);
}

void TimeWeighted::settle(Cycle before, std::vector<Point>* taken) {
  std::vector<Point> ev = sorted_pending();
  size_t i = 0;
  points_.resize(kept_);  // a previous finalize's tail is recomputed later
  while (i < ev.size() && ev[i].first < before) {
    Cycle t = ev[i].first;
    int64_t d = 0;
    for (; i < ev.size() && ev[i].first == t; ++i) d += ev[i].second;
    // Settled cycles lie before the run's end: no clipping.
    if (d != 0) settled_.hist_to(t, hist_top_, hist_n_);
    if (!settled_.step(t, d, ~Cycle{0})) continue;
    if (taken)
      taken->push_back({t, settled_.v}), taken_ = true;
    else
      points_.push_back({t, settled_.v}), ++kept_;
  }
  chunks_.clear();
  if (i < ev.size()) chunks_.emplace_back(ev.begin() + static_cast<std::ptrdiff_t>(i), ev.end());
  settled_before_ = std::max(settled_before_, before);
  finalized_ = false;
}

void TimeWeighted::finalize(Cycle end) {
  if (end < settled_before_)
    throw Error(msg::kModel, "occupancy finalized at cycle " + std::to_string(end) +
                                 ", before its settled cycle " + std::to_string(settled_before_));
  std::vector<Point> ev = sorted_pending();
  points_.resize(kept_);
  Fold f = settled_;
  for (size_t i = 0; i < ev.size();) {
    Cycle t = ev[i].first;
    int64_t d = 0;
    for (; i < ev.size() && ev[i].first == t; ++i) d += ev[i].second;
    if (f.step(t, d, end)) points_.push_back({t, f.v});
  }
  if (end > f.last_t) f.area += static_cast<long double>(f.v) * (end - f.last_t);
  peak_ = f.peak, min_ = f.min;
  final_ = f.v;
  end_ = end;
  mean_ = end ? static_cast<double>(f.area / end) : 0.0;
  finalized_ = true;
}

std::vector<double> TimeWeighted::histogram(int64_t top, int n) const {
  std::vector<double> h(n, 0.0);
  if (!end_ || top <= 0) return h;
  auto bucket = [&](int64_t v) {
    int b = static_cast<int>((static_cast<double>(v) / top) * n);
    return std::clamp(b, 0, n - 1);
  };
  Cycle prev_t = 0;
  int64_t prev_v = 0;
  if (taken_) {
    // The settled points are gone: continue the histogram kept while settling.
    if (top != hist_top_ || n != hist_n_)
      throw Error(msg::kModel, "occupancy histogram of another shape than the one tracked");
    h = settled_.hist, prev_t = settled_.hist_t, prev_v = settled_.v;
  }
  for (const auto& [t, v] : points_) {
    Cycle tt = std::min(t, end_);
    if (tt > prev_t) h[bucket(prev_v)] += static_cast<double>(tt - prev_t);
    prev_t = std::max(prev_t, tt), prev_v = v;
  }
  if (end_ > prev_t) h[bucket(prev_v)] += static_cast<double>(end_ - prev_t);
  for (double& x : h) x /= static_cast<double>(end_);
  return h;
}

void Stats::check_new(const std::string& name) {
  if (!names_.insert(name).second) throw Error(msg::kModel, "stat '" + name + "' registered twice");
}

Counter& Stats::counter(const std::string& name, const char* unit, const char* desc) {
  check_new(name);
  counters_.emplace_back();
  Item it{{name, Kind::kCounter, unit, desc}, &counters_.back(), nullptr, nullptr, {}};
  items_.push_back(std::move(it));
  return counters_.back();
}

Histogram& Stats::histogram(const std::string& name, const char* unit, const char* desc,
                            double bucket_width, uint32_t nbuckets) {
  check_new(name);
  histograms_.emplace_back();
  histograms_.back().bucket_width = bucket_width;
  histograms_.back().buckets.assign(std::max<uint32_t>(nbuckets, 1), 0);
  Item it{{name, Kind::kHistogram, unit, desc}, nullptr, nullptr, nullptr, {}};
  it.h = &histograms_.back();
  items_.push_back(std::move(it));
  return histograms_.back();
}

TimeWeighted& Stats::gauge(const std::string& name, const char* unit, const char* desc) {
  check_new(name);
  gauges_.emplace_back();
  Item it{{name, Kind::kGauge, unit, desc}, nullptr, nullptr, nullptr, {}};
  it.g = &gauges_.back();
  items_.push_back(std::move(it));
  return gauges_.back();
}

void Stats::derived(const std::string& name, const char* unit, const char* desc,
                    std::function<double()> f) {
  check_new(name);
  Item it{{name, Kind::kDerived, unit, desc}, nullptr, nullptr, nullptr, {}};
  it.f = std::move(f);
  items_.push_back(std::move(it));
}

nlohmann::json Stats::to_json(Cycle end) {
  for (auto& g : gauges_)
    if (!g.finalized()) g.finalize(end);
  nlohmann::json j = nlohmann::json::object();
  for (const auto& it : items_) {
    nlohmann::json e;
    e["unit"] = it.info.unit;
    e["desc"] = it.info.desc;
    switch (it.info.kind) {
      case Kind::kCounter:
        e["value"] = it.c->value;
        break;
      case Kind::kHistogram:
        e["count"] = it.h->count;
        e["mean"] = it.h->mean();
        e["min"] = it.h->min;
        e["max"] = it.h->max;
        e["bucket_width"] = it.h->bucket_width;
        e["buckets"] = it.h->buckets;
        break;
      case Kind::kGauge:
        e["peak"] = it.g->peak();
        e["mean"] = it.g->mean();
        e["final"] = it.g->final_value();
        break;
      case Kind::kDerived: {
        double v = it.f();
        if (!std::isfinite(v)) v = 0.0;
        // Counts stay integers in the JSON.
        if (v == std::floor(v) && std::fabs(v) < 9e15)
          e["value"] = static_cast<int64_t>(v);
        else
          e["value"] = v;
        break;
      }
    }
    j[it.info.name] = e;
  }
  return j;
}

std::string Stats::listing(bool markdown) const {
  std::ostringstream os;
  if (markdown) os << "| stat | kind | unit | description |\n|---|---|---|---|\n";
  for (const auto& i : list()) {
    if (markdown)
      os << "| `" << i.name << "` | " << to_string(i.kind) << " | " << i.unit << " | " << i.desc
         << " |\n";
    else
      os << i.name << " [" << i.unit << ", " << to_string(i.kind) << "] " << i.desc << "\n";
  }
  return os.str();
}

std::vector<Stats::Info> Stats::list() const {
  std::vector<Info> v;
  for (const auto& it : items_) v.push_back(it.info);
  return v;
}

const Counter* Stats::find_counter(const std::string& name) const {
  for (const auto& it : items_)
    if (it.info.name == name && it.c) return it.c;
  return nullptr;
}

uint64_t Stats::counter_value(const std::string& name) const {
  const Counter* c = find_counter(name);
  return c ? c->value : 0;
}

double Stats::scalar_value(const std::string& name) const {
  for (const auto& it : items_) {
    if (it.info.name != name) continue;
    if (it.info.kind == Kind::kCounter) return static_cast<double>(it.c->value);
    if (it.info.kind == Kind::kDerived) return it.f();
    return 0;
  }
  return 0;
}

TimeWeighted* Stats::find_gauge(const std::string& name) {
  for (auto& it : items_)
    if (it.info.name == name && it.g) return it.g;
  return nullptr;
}

const char* to_string(Stats::Kind k) {
  switch (k) {
    case Stats::Kind::kCounter:
      return "counter";
    case Stats::Kind::kHistogram:
      return "histogram";
    case Stats::Kind::kGauge:
      return "gauge";
    case Stats::Kind::kDerived:
      return "derived";
  }
  return "?";
}

}  // namespace oonic
