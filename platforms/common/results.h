// What every runnable system (replay, b2b run) writes the same way: text
// files, the VCD set up from --vcd groups, the SRAM summary of stats.json and
// sram.csv.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/ornic_nic.h"
#include "model/sram/sram.h"

namespace oonic::results {

// An SRAM and the name it is reported under (replay: its own; run: "a.<name>").
using NamedSram = std::pair<std::string, Sram*>;

std::string fmt(double v, int prec);
// Throws Error(kIo) naming the path.
void write_text(const std::string& path, const std::string& text);
// stats.json: `doc` with doc["stats"] = stats (every gauge finalized at `end`), the
// bytes of (doc + stats).dump(2) + "\n", the stats streamed rather than built as a
// tree (a 1,024-host fabric's would be hundreds of MB). Throws Error(kIo).
void write_stats_json(const std::string& path, const nlohmann::json& doc, Stats& stats, Cycle end);
// The VCD of a run with --vcd (nullptr without): `groups` is the comma list of
// --vcd=GROUPS (empty: all); an unknown group is an Error(kCli) listing the known ones.
std::unique_ptr<Vcd> make_vcd(bool on, const std::string& groups, uint64_t period_ps);
// bitmap.impl rtl: stats.json's "rtl" section over the NICs (name, NIC) whose Bitmap
// Manager runs the RTL (null when none does): library, calls, clock edges, whether
// checked, mismatches, ok, and the earliest first mismatch (nic, packet record, cycle,
// QP index, PSN, what). *report gets a one-line error for stderr when any differs.
nlohmann::json rtl_json(const std::vector<std::pair<std::string, const ornic::OrnicNic*>>& nics,
                        std::string* report);
// Finalizes each SRAM's occupancy at `end` and returns stats.json's "sram" object:
// capacity, peak, mean, final bits, 16-bucket time-weighted histogram, reads,
// writes, stall cycles.
nlohmann::json sram_json(const std::vector<NamedSram>& srams, Cycle end);
// sram.csv: every occupancy change point in (cycle, instance) order, and one
// closing row per instance at the end. Written as the run settles, so nothing
// the size of the run is held; with no path the settled points are only folded
// into the figures (stats.json) and nothing is written.
class SramCsv {
 public:
  SramCsv(const std::string& path, std::vector<NamedSram> srams);  // throws Error(kIo)
  // Settles every instance's occupancy before cycle `now` (no block books an
  // earlier cycle any more; the run ends at or after it) and writes those rows.
  void settle(Cycle now);
  // Finalizes at `end` and writes the remaining rows and the closing ones.
  void finish(Cycle end);
  ~SramCsv();
  SramCsv(const SramCsv&) = delete;
  SramCsv& operator=(const SramCsv&) = delete;

 private:
  struct Row;
  template <typename Count, typename RowAt>
  void write_merged(Count count, RowAt row);
  void put(Cycle t, size_t k, int64_t v);  // one row into buf_
  void flush();
  std::string path_;
  std::vector<NamedSram> srams_;
  std::vector<std::string> mid_, tail_;  // ",<name>," and ",<capacity>\n" per instance
  std::FILE* f_ = nullptr;
  std::string buf_;  // rows not yet written (written 1 MB at a time)
  std::vector<std::vector<TimeWeighted::Point>> taken_;
};

}  // namespace oonic::results
