// What every runnable system (replay, b2b run) writes the same way: text
// files, the VCD set up from --vcd groups, the SRAM summary of stats.json and
// sram.csv.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/vcd.h"
#include "model/sram/sram.h"

namespace oonic::results {

// An SRAM and the name it is reported under (replay: its own; run: "a.<name>").
using NamedSram = std::pair<std::string, Sram*>;

std::string fmt(double v, int prec);
// Throws Error(kIo) naming the path.
void write_text(const std::string& path, const std::string& text);
// The VCD of a run with --vcd (nullptr without): `groups` is the comma list of
// --vcd=GROUPS (empty: all); an unknown group is an Error(kCli) listing the known ones.
std::unique_ptr<Vcd> make_vcd(bool on, const std::string& groups, uint64_t period_ps);
// Finalizes each SRAM's occupancy at `end` and returns stats.json's "sram" object:
// capacity, peak, mean, final bits, 16-bucket time-weighted histogram, reads,
// writes, stall cycles.
nlohmann::json sram_json(const std::vector<NamedSram>& srams, Cycle end);
// sram.csv: every occupancy change point, one closing row per instance at `end`.
void write_sram_csv(const std::string& path, const std::vector<NamedSram>& srams, Cycle end);

}  // namespace oonic::results
