#include "platforms/common/results.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
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
  std::vector<std::tuple<Cycle, size_t, int64_t>> rows;
  for (size_t k = 0; k < srams.size(); ++k) {
    for (const auto& [t, v] : srams[k].second->occupancy().points()) rows.emplace_back(t, k, v);
    // Close every instance's step function at the end of the run.
    rows.emplace_back(end, k, srams[k].second->occupancy().final_value());
  }
  std::sort(rows.begin(), rows.end());
  std::ofstream f(path);
  if (!f) throw Error(msg::kIo, path + ": cannot write");
  f << "cycle,instance,used_bits,capacity_bits\n";
  for (const auto& [t, k, v] : rows)
    f << t << "," << srams[k].first << "," << v << "," << srams[k].second->capacity_bits() << "\n";
}

}  // namespace oonic::results
