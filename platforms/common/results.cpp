#include "platforms/common/results.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
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
                {"histogram_16", s->occupancy().histogram(s->capacity_bits(), 16)}};
  }
  return sj;
}

void write_sram_csv(const std::string& path, const std::vector<NamedSram>& srams, Cycle end) {
  // Rows in (cycle, instance, value) order: a merge of the instances' change
  // points (each already in cycle order), written as they come, so nothing the
  // size of the run is built here.
  struct Row {
    Cycle t;
    size_t k;
    int64_t v;
    bool operator>(const Row& o) const { return std::tie(t, k, v) > std::tie(o.t, o.k, o.v); }
  };
  // Instance k's rows: its points with the closing row of the step function
  // (end, final value) in its sorted place (after every point, unless a point
  // lies at or past the end).
  std::vector<size_t> closing_at(srams.size());
  for (size_t k = 0; k < srams.size(); ++k) {
    const auto& pts = srams[k].second->occupancy().points();
    const std::pair<Cycle, int64_t> closing{end, srams[k].second->occupancy().final_value()};
    closing_at[k] =
        static_cast<size_t>(std::upper_bound(pts.begin(), pts.end(), closing) - pts.begin());
  }
  auto row_at = [&](size_t k, size_t i) -> Row {
    const auto& pts = srams[k].second->occupancy().points();
    if (i == closing_at[k]) return Row{end, k, srams[k].second->occupancy().final_value()};
    const auto& p = pts[i < closing_at[k] ? i : i - 1];
    return Row{p.first, k, p.second};
  };
  struct Later {
    bool operator()(const std::pair<Row, size_t>& a, const std::pair<Row, size_t>& b) const {
      return a.first > b.first;
    }
  };
  std::priority_queue<std::pair<Row, size_t>, std::vector<std::pair<Row, size_t>>, Later> heap;
  for (size_t k = 0; k < srams.size(); ++k) heap.push({row_at(k, 0), 0});
  std::ofstream f(path);
  if (!f) throw Error(msg::kIo, path + ": cannot write");
  f << "cycle,instance,used_bits,capacity_bits\n";
  while (!heap.empty()) {
    auto [r, i] = heap.top();
    heap.pop();
    f << r.t << "," << srams[r.k].first << "," << r.v << "," << srams[r.k].second->capacity_bits()
      << "\n";
    if (i < srams[r.k].second->occupancy().points().size()) heap.push({row_at(r.k, i + 1), i + 1});
  }
}

}  // namespace oonic::results
