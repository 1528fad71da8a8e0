#include "platforms/common/results.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <queue>
#include <sstream>
#include <tuple>

#include "model/core/error.h"

namespace oonic::results {

std::string fmt(double v, int prec) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(prec) << v;
  return os.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw Error(msg::kIo, path + ": cannot write");
  f << text;
}

void write_stats_json(const std::string& path, const nlohmann::json& doc, Stats& stats, Cycle end) {
  if (!doc.is_object() || doc.contains("stats") ||
      (!doc.empty() && std::prev(doc.end()).key() > "stats")) {
    // "stats" would not be the last key: build the tree.
    nlohmann::json j = doc;
    j["stats"] = stats.to_json(end);
    write_text(path, j.dump(2) + "\n");
    return;
  }
  std::ofstream f(path);
  if (!f) throw Error(msg::kIo, path + ": cannot write");
  if (doc.empty()) {
    f << "{\n";
  } else {
    std::string head = doc.dump(2);  // "{\n  ...\n}": reopen it after the last entry
    head.resize(head.size() - 2);
    f << head << ",\n";
  }
  f << "  \"stats\": ";
  stats.write_json(f, end, 1);
  f << "\n}\n";
  if (!f) throw Error(msg::kIo, path + ": cannot write");
}

std::unique_ptr<Vcd> make_vcd(bool on, const std::string& groups, uint64_t period_ps) {
  if (!on) return nullptr;
  auto vcd = std::make_unique<Vcd>(period_ps);
  std::vector<std::string> chosen;
  std::stringstream gs(groups);
  for (std::string g; std::getline(gs, g, ',');) {
    if (g.empty()) continue;
    const auto& known = Vcd::known_groups();
    if (std::find(known.begin(), known.end(), g) == known.end()) {
      std::string all;
      for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
      throw Error(msg::kCli,
                  "--vcd=" + groups + ": unknown signal group '" + g + "' (groups: " + all + ")");
    }
    chosen.push_back(g);
  }
  vcd->set_groups(chosen);
  return vcd;
}

nlohmann::json sram_json(const std::vector<NamedSram>& srams, Cycle end) {
  nlohmann::json sj = nlohmann::json::object();
  for (const auto& [name, s] : srams) {
    s->occupancy().finalize(end);
    sj[name] = {{"capacity_bits", s->capacity_bits()},
                {"peak_bits", s->occupancy().peak()},
                {"mean_bits", s->occupancy().mean()},
                {"final_bits", s->occupancy().final_value()},
                {"reads", s->reads()},
                {"writes", s->writes()},
                {"stall_cycles", s->stall_cycles()},
                {"histogram_16", s->occupancy().histogram(s->capacity_bits(), kOccupancyBuckets)}};
  }
  return sj;
}

struct SramCsv::Row {
  Cycle t;
  size_t k;
  int64_t v;
  bool operator>(const Row& o) const { return std::tie(t, k, v) > std::tie(o.t, o.k, o.v); }
};

SramCsv::SramCsv(const std::string& path, std::vector<NamedSram> srams)
    : path_(path), srams_(std::move(srams)), taken_(srams_.size()) {
  if (path.empty()) return;
  for (const auto& [name, m] : srams_) {
    mid_.push_back("," + name + ",");
    tail_.push_back("," + std::to_string(m->capacity_bits()) + "\n");
  }
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw Error(msg::kIo, path + ": cannot write");
  buf_ = "cycle,instance,used_bits,capacity_bits\n";
}

SramCsv::~SramCsv() {
  if (f_) std::fclose(f_);
}

void SramCsv::put(Cycle t, size_t k, int64_t v) {
  char num[24];
  buf_.append(num, std::to_chars(num, num + sizeof num, t).ptr);
  buf_ += mid_[k];
  buf_.append(num, std::to_chars(num, num + sizeof num, v).ptr);
  buf_ += tail_[k];
  if (buf_.size() >= (1u << 20)) flush();
}

void SramCsv::flush() {
  if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size())
    throw Error(msg::kIo, path_ + ": cannot write");
  buf_.clear();
}

// Writes the rows of every instance merged in (cycle, instance, value) order:
// instance k has count(k) rows, row(k, i) each already in cycle order.
template <typename Count, typename RowAt>
void SramCsv::write_merged(Count count, RowAt row) {
  struct Later {
    bool operator()(const std::pair<Row, size_t>& a, const std::pair<Row, size_t>& b) const {
      return a.first > b.first;
    }
  };
  std::priority_queue<std::pair<Row, size_t>, std::vector<std::pair<Row, size_t>>, Later> heap;
  for (size_t k = 0; k < srams_.size(); ++k)
    if (count(k)) heap.push({row(k, 0), 0});
  while (!heap.empty()) {
    auto [r, i] = heap.top();
    heap.pop();
    put(r.t, r.k, r.v);
    if (i + 1 < count(r.k)) heap.push({row(r.k, i + 1), i + 1});
  }
}

void SramCsv::settle(Cycle now) {
  for (size_t k = 0; k < srams_.size(); ++k) {
    taken_[k].clear();
    srams_[k].second->occupancy().settle(now, &taken_[k]);  // without a file they are dropped
  }
  // Every row still to come lies at or after `now`: these go first.
  if (f_)
    write_merged([&](size_t k) { return taken_[k].size(); },
                 [&](size_t k, size_t i) {
                   return Row{taken_[k][i].first, k, taken_[k][i].second};
                 });
}

void SramCsv::finish(Cycle end) {
  // Instance k's rows: its remaining points with the closing row of the step
  // function (end, final value) in its sorted place (after every point, unless
  // a point lies at or past the end).
  std::vector<size_t> closing_at(srams_.size());
  for (size_t k = 0; k < srams_.size(); ++k) {
    TimeWeighted& g = srams_[k].second->occupancy();
    g.finalize(end);
    const auto& pts = g.points();
    const TimeWeighted::Point closing{end, g.final_value()};
    closing_at[k] =
        static_cast<size_t>(std::upper_bound(pts.begin(), pts.end(), closing) - pts.begin());
  }
  if (!f_) return;
  auto row = [&](size_t k, size_t i) -> Row {
    const TimeWeighted& g = srams_[k].second->occupancy();
    if (i == closing_at[k]) return Row{end, k, g.final_value()};
    const auto& p = g.points()[i < closing_at[k] ? i : i - 1];
    return Row{p.first, k, p.second};
  };
  write_merged([&](size_t k) { return srams_[k].second->occupancy().points().size() + 1; }, row);
  flush();
  int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0) throw Error(msg::kIo, path_ + ": cannot write");
}

nlohmann::json rtl_json(const std::vector<std::pair<std::string, const ornic::OrnicNic*>>& nics,
                        std::string* report) {
  nlohmann::json j;
  uint64_t calls = 0, edges = 0, mismatches = 0;
  const ornic::BitmapManager::RtlMismatch* first = nullptr;
  std::string first_nic, library;
  bool any = false, checked = true;
  for (const auto& [name, nic] : nics) {
    const ornic::BitmapManager& bm = nic->rx().bitmap_manager;
    const ordering::RtlOrnicBitmap* rtl = bm.rtl();
    if (!rtl) continue;
    any = true;
    library = rtl->library();
    checked = checked && rtl->reference() != nullptr;
    calls += rtl->calls(), edges += rtl->rtl_edges(), mismatches += rtl->mismatches();
    const ornic::BitmapManager::RtlMismatch* m = bm.rtl_first_mismatch();
    if (m && (!first || m->cycle < first->cycle)) first = m, first_nic = name;
  }
  if (!any) return nullptr;
  j = {{"library", library}, {"calls", calls},           {"edges", edges},
       {"checked", checked}, {"mismatches", mismatches}, {"ok", mismatches == 0}};
  if (first) {
    j["first"] = {{"nic", first_nic},      {"record", first->record}, {"cycle", first->cycle},
                  {"qp_index", first->qp}, {"psn", first->psn},       {"call", first->call},
                  {"what", first->what}};
    if (report)
      *report = "bitmap RTL differs from the C++ core: first at " + first_nic + ", packet record " +
                std::to_string(first->record) + " (QP index " + std::to_string(first->qp) +
                ", PSN " + std::to_string(first->psn) + "), cycle " + std::to_string(first->cycle) +
                ", call " + std::to_string(first->call) + ": " + first->what + "; " +
                std::to_string(mismatches) + " call(s) differ";
  }
  return j;
}

}  // namespace oonic::results
