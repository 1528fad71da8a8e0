#include "model/core/stats.h"

#include <ostream>
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
  if (!in_order_)
    std::stable_sort(ev.begin(), ev.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  return ev;
}

std::vector<TimeWeighted::Point>& TimeWeighted::pending_in_order(std::vector<Point>* scratch) {
  if (in_order_ && chunks_.size() == 1) return chunks_.front();
  *scratch = sorted_pending();
  return *scratch;
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
  std::vector<Point> scratch;
  std::vector<Point>& ev = pending_in_order(&scratch);
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
  // What is left is sorted and lies at or after `before`; a right-sized copy (a
  // fabric holds thousands of gauges: none keeps a chunk's capacity while idle).
  std::vector<Point> rest(ev.begin() + static_cast<std::ptrdiff_t>(i), ev.end());
  chunks_.clear();
  if (!rest.empty()) chunks_.push_back(std::move(rest));
  in_order_ = true;
  last_booked_ = chunks_.empty() ? 0 : chunks_.back().back().first;
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

uint32_t Stats::intern(std::string_view s) {
  auto it = text_ids_.find(s);
  if (it != text_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(texts_.size());
  texts_.emplace_back(s);
  text_ids_.emplace(std::string_view(texts_.back()), id);
  return id;
}

Stats::Item& Stats::add(const std::string& name, Kind kind, StatText unit, StatText desc, void* p) {
  const size_t dot = name.rfind('.');
  Item it{};
  it.path = dot == std::string::npos ? kNoPath : intern(std::string_view(name).substr(0, dot));
  it.leaf = intern(dot == std::string::npos ? std::string_view(name)
                                            : std::string_view(name).substr(dot + 1));
  it.kind = kind, it.unit = unit.c_str(), it.desc = desc.c_str(), it.p = p;
  const uint64_t key = (uint64_t{it.path} << 32) | it.leaf;
  if (!index_.emplace(key, static_cast<uint32_t>(items_.size())).second)
    throw Error(msg::kModel, "stat '" + name + "' registered twice");
  sorted_.clear();
  items_.push_back(it);
  return items_.back();
}

std::string Stats::name_of(const Item& it) const {
  if (it.path == kNoPath) return texts_[it.leaf];
  return texts_[it.path] + "." + texts_[it.leaf];
}

Counter& Stats::counter(const std::string& name, StatText unit, StatText desc) {
  counters_.emplace_back();
  try {
    add(name, Kind::kCounter, unit, desc, &counters_.back());
  } catch (...) {
    counters_.pop_back();
    throw;
  }
  return counters_.back();
}

Histogram& Stats::histogram(const std::string& name, StatText unit, StatText desc,
                            double bucket_width, uint32_t nbuckets) {
  histograms_.emplace_back();
  Histogram& h = histograms_.back();
  try {
    add(name, Kind::kHistogram, unit, desc, &h);
  } catch (...) {
    histograms_.pop_back();
    throw;
  }
  h.bucket_width = bucket_width;
  h.buckets.assign(std::max<uint32_t>(nbuckets, 1), 0);
  return h;
}

TimeWeighted& Stats::gauge(const std::string& name, StatText unit, StatText desc) {
  gauges_.emplace_back();
  try {
    add(name, Kind::kGauge, unit, desc, &gauges_.back());
  } catch (...) {
    gauges_.pop_back();
    throw;
  }
  return gauges_.back();
}

void Stats::derived(const std::string& name, StatText unit, StatText desc,
                    std::function<double()> f) {
  functions_.push_back(std::move(f));
  try {
    add(name, Kind::kDerived, unit, desc, &functions_.back());
  } catch (...) {
    functions_.pop_back();
    throw;
  }
}

nlohmann::json Stats::entry(Item& it) {
  nlohmann::json e;
  e["unit"] = it.unit;
  e["desc"] = it.desc;
  switch (it.kind) {
    case Kind::kCounter:
      e["value"] = static_cast<Counter*>(it.p)->value;
      break;
    case Kind::kHistogram: {
      const auto* h = static_cast<Histogram*>(it.p);
      e["count"] = h->count;
      e["mean"] = h->mean();
      e["min"] = h->min;
      e["max"] = h->max;
      e["bucket_width"] = h->bucket_width;
      e["buckets"] = h->buckets;
      break;
    }
    case Kind::kGauge: {
      const auto* g = static_cast<TimeWeighted*>(it.p);
      e["peak"] = g->peak();
      e["mean"] = g->mean();
      e["final"] = g->final_value();
      break;
    }
    case Kind::kDerived: {
      double v = (*static_cast<std::function<double()>*>(it.p))();
      if (!std::isfinite(v)) v = 0.0;
      // Counts stay integers in the JSON.
      if (v == std::floor(v) && std::fabs(v) < 9e15)
        e["value"] = static_cast<int64_t>(v);
      else
        e["value"] = v;
      break;
    }
  }
  return e;
}

nlohmann::json Stats::to_json(Cycle end) {
  for (auto& g : gauges_)
    if (!g.finalized()) g.finalize(end);
  nlohmann::json j = nlohmann::json::object();
  for (auto& it : items_) j[name_of(it)] = entry(it);
  return j;
}

const std::vector<uint32_t>& Stats::sorted() const {
  if (sorted_.size() == items_.size()) return sorted_;
  sorted_.resize(items_.size());
  for (uint32_t i = 0; i < sorted_.size(); ++i) sorted_[i] = i;
  // The order of the full names (std::string's, as a JSON object's keys), compared
  // piecewise: path, '.', leaf.
  auto parts = [this](const Item& it, std::string_view(&v)[3]) {
    if (it.path == kNoPath)
      v[0] = {}, v[1] = {};
    else
      v[0] = texts_[it.path], v[1] = ".";
    v[2] = texts_[it.leaf];
  };
  auto less = [&](uint32_t a, uint32_t b) {
    const Item& x = items_[a];
    const Item& y = items_[b];
    if (x.path == y.path) return texts_[x.leaf] < texts_[y.leaf];
    std::string_view u[3], w[3];
    parts(x, u), parts(y, w);
    size_t ui = 0, uo = 0, wi = 0, wo = 0;
    for (;;) {
      while (ui < 3 && uo == u[ui].size()) ++ui, uo = 0;
      while (wi < 3 && wo == w[wi].size()) ++wi, wo = 0;
      if (ui == 3 || wi == 3) return ui == 3 && wi != 3;
      const size_t n = std::min(u[ui].size() - uo, w[wi].size() - wo);
      const int c = u[ui].substr(uo, n).compare(w[wi].substr(wo, n));
      if (c) return c < 0;
      uo += n, wo += n;
    }
  };
  std::sort(sorted_.begin(), sorted_.end(), less);
  return sorted_;
}

void Stats::write_json(std::ostream& os, Cycle end, int depth) {
  for (auto& g : gauges_)
    if (!g.finalized()) g.finalize(end);
  if (items_.empty()) {
    os << "{}";
    return;
  }
  const std::string pad(static_cast<size_t>(depth + 1) * 2, ' ');
  os << "{\n";
  const std::vector<uint32_t>& order = sorted();
  for (size_t k = 0; k < order.size(); ++k) {
    Item& it = items_[order[k]];
    // The entry as dump(2) writes it at depth 0, its lines moved to this depth.
    std::string v = entry(it).dump(2);
    std::string moved;
    moved.reserve(v.size() + 64);
    for (char c : v) {
      moved += c;
      if (c == '\n') moved += pad;
    }
    os << pad << nlohmann::json(name_of(it)).dump() << ": " << moved
       << (k + 1 < order.size() ? ",\n" : "\n");
  }
  os << std::string(static_cast<size_t>(depth) * 2, ' ') << "}";
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
  v.reserve(items_.size());
  for (const auto& it : items_) v.push_back({name_of(it), it.kind, it.unit, it.desc});
  return v;
}

const Stats::Item* Stats::find(const std::string& name) const {
  const size_t dot = name.rfind('.');
  uint32_t path = kNoPath;
  if (dot != std::string::npos) {
    auto p = text_ids_.find(std::string_view(name).substr(0, dot));
    if (p == text_ids_.end()) return nullptr;
    path = p->second;
  }
  auto l = text_ids_.find(dot == std::string::npos ? std::string_view(name)
                                                   : std::string_view(name).substr(dot + 1));
  if (l == text_ids_.end()) return nullptr;
  auto i = index_.find((uint64_t{path} << 32) | l->second);
  return i == index_.end() ? nullptr : &items_[i->second];
}

const Counter* Stats::find_counter(const std::string& name) const {
  const Item* it = find(name);
  return it && it->kind == Kind::kCounter ? static_cast<const Counter*>(it->p) : nullptr;
}

uint64_t Stats::counter_value(const std::string& name) const {
  const Counter* c = find_counter(name);
  return c ? c->value : 0;
}

double Stats::scalar_value(const std::string& name) const {
  const Item* it = find(name);
  if (!it) return 0;
  if (it->kind == Kind::kCounter) return static_cast<double>(static_cast<Counter*>(it->p)->value);
  if (it->kind == Kind::kDerived) return (*static_cast<std::function<double()>*>(it->p))();
  return 0;
}

TimeWeighted* Stats::find_gauge(const std::string& name) {
  const Item* it = find(name);
  return it && it->kind == Kind::kGauge ? static_cast<TimeWeighted*>(it->p) : nullptr;
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
