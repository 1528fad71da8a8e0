#include "platforms/replay/replay.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/core/report.h"
#include "model/ornic/ornic_nic.h"
#include "platforms/common/results.h"
#include "platforms/host/host_node.h"
#include "platforms/replay/integrity.h"
#include "platforms/replay/network_sink.h"
#include "platforms/replay/setup.h"
#include "platforms/replay/trace_source.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace fs = std::filesystem;

namespace oonic::replay {

using results::fmt;
using results::write_text;

void PlatformParams::describe(ParamTable& t) {
  t.add("net.link_gbps", &link_gbps, "Gbit/s",
        "rate of the link feeding the NIC in a replay (line-rate timing; floor for captured)", 0.1,
        1600);
  t.add("out.packets_csv", &packets_csv, "write packets.csv (one row per frame)");
  t.add("out.sram_csv", &sram_csv, "write sram.csv (occupancy change points)");
}

namespace {

// Results settle behind simulated time every this many input frames.
constexpr uint32_t kSettleFrames = 4096;

// The systems of a replay, bound by name.
struct ReplaySystem : host::HostNode {
  TraceSource source;
  NetworkSink sink;
  ReplaySystem(const AllParams& p, Stats& stats, Vcd* vcd, const trace::Trace& trace,
               const std::vector<uint32_t>& input, Timing timing, const std::string& dir,
               bool progress)
      : HostNode({"nic0", "pcie0", "host0"}, p.nic, p.pcie, p.host, stats, vcd),
        source("source", trace, input, timing, p.platform.link_gbps, nic.clock(), stats, progress),
        sink("sink", nic.clock(), dir + "/tx.pcap", dir + "/tx.csv") {
    source.mac_tx_socket.bind(nic.mac_rx_socket);
    nic.mac_tx_socket.bind(sink.mac_rx_socket);
  }
};

// The parameters: defaults, the config file, --set, then the presets.
void read_params(const ReplayOptions& o, AllParams& all, ParamTable& table) {
  all.describe(table);
  apply_config(table, o.config, o.sets);
  all.nic.validate();
}

// --qps, else the trace's own sidecar if it has one.
std::optional<trace::Sidecar> find_sidecar(const ReplayOptions& o) {
  std::string qps_path = o.qps;
  if (qps_path.empty() && fs::exists(trace::default_sidecar_path(o.trace)))
    qps_path = trace::default_sidecar_path(o.trace);
  std::optional<trace::Sidecar> sidecar;
  if (!qps_path.empty()) sidecar = trace::load_sidecar(qps_path);
  return sidecar;
}

// The results directory, with the resolved config and the QP setup written.
std::string prepare_results_dir(const ReplayOptions& o, const ParamTable& table,
                                const ReplaySetup& setup) {
  std::string dir = o.out.empty() ? "results/" + fs::path(o.trace).stem().string() : o.out;
  fs::create_directories(dir);
  // A results directory is reused: remove what this run may not rewrite.
  for (const char* f : {"packets.csv", "sram.csv", "waves.vcd", "stats.json", "tx.pcap", "tx.csv"})
    fs::remove(fs::path(dir) / f);
  write_text(dir + "/config.yaml", resolved_yaml(table));
  write_text(dir + "/qps.yaml", setup.sidecar_yaml);
  return dir;
}

// What the DUT had set up before the trace: QPs, its own READs, and the host
// memory a READ responder serves.
void install_setup(ReplaySystem& sys, const ReplaySetup& setup) {
  for (const auto& c : setup.qps) sys.nic.add_qp(c);
  for (const auto& [q, rw] : setup.reads) sys.nic.add_read_wqe(q, rw);
  // A READ responder's source is read back by the NIC: never a digest.
  for (const auto& pf : setup.prefill) sys.memory.memory().keep(pf.addr, pf.len);
  for (const auto& pf : setup.prefill) {
    if (pf.bytes.empty()) {
      std::vector<uint8_t> b(pf.len);
      trace::fill_pattern(pf.addr, b.data(), b.size());
      sys.memory.memory().write(pf.addr, b.data(), b.size());
    } else {
      sys.memory.memory().write(pf.addr, pf.bytes.data(), pf.bytes.size());
    }
  }
}

// The frames the DUT sent are not replayed: counted, and logged as skipped.
void skip_dut_frames(ReplaySystem& sys, Stats& stats, const ReplaySetup& setup,
                     const trace::Trace& tr, ornic::PacketLog* plog) {
  Counter& from_dut = stats.counter("source.frames_from_dut", "frame",
                                    "frames the device under test sent in the capture (not input)");
  from_dut.inc(setup.from_dut.size());
  sys.source.set_skipped(&setup.from_dut, [plog, &tr](uint32_t i) {
    if (!plog) return;
    ornic::PacketRecord r;
    r.index = tr.records[i].index;
    r.verdict = ornic::RecordVerdict::kSkipped;
    r.drop = ornic::Drop::kNotForDut;
    plog->write(r);
  });
}

// A finished replay, as stats.json and the summary report it.
struct Finished {
  const ReplayOptions& o;
  const AllParams& all;
  const trace::Trace& tr;
  const ReplaySetup& setup;
  ReplaySystem& sys;
  Stats& stats;
  const std::vector<results::NamedSram>& named;
  const IntegrityResult& integ;
  Cycle first, end;
};

// Writes stats.json; returns the RTL lockstep check's complaint (empty if none).
std::string write_stats_json(const Finished& f, const Timing& timing, const std::string& dir) {
  nlohmann::json j;
  j["run"] = {{"trace", f.o.trace},
              {"format", trace::to_string(f.tr.format)},
              {"records", f.tr.records.size()},
              {"input_frames", f.setup.input.size()},
              {"dut", f.setup.dut.text()},
              {"timing", timing.text()},
              {"seed", f.o.seed},
              {"clock_mhz", f.all.nic.nic.clock_mhz},
              {"first_arrival_cycle", f.first},
              {"end_cycle", f.end}};
  j["stats"] = f.stats.to_json(f.end);
  j["sram"] = results::sram_json(f.named, f.end);
  j["integrity"] = {{"checked", f.integ.checked},
                    {"ok", f.integ.ok},
                    {"bytes", f.integ.bytes},
                    {"ranges", f.integ.ranges},
                    {"text", f.integ.text()}};
  if (f.all.host.digest) j["integrity"]["unverified_bytes"] = f.integ.unverified_bytes;
  // bitmap.impl rtl: the RTL behind the Bitmap Manager, and the lockstep check.
  std::string rtl_report;
  nlohmann::json rtl_j = results::rtl_json({{"nic0", &f.sys.nic}}, &rtl_report);
  if (!rtl_j.is_null()) j["rtl"] = rtl_j;
  j["setup"] = f.setup.notes;
  nlohmann::json issues = nlohmann::json::array();
  for (const auto& is : f.tr.issues)
    issues.push_back({{"record", is.index}, {"reason", is.reason}});
  j["trace_issues"] = issues;
  write_text(dir + "/stats.json", j.dump(2) + "\n");
  return rtl_report;
}

// The summary on stdout.
void print_summary(const Finished& f, uint64_t period_ps, const std::string& dir, double wall) {
  const ornic::BitmapManager& bm = f.sys.nic.rx().bitmap_manager;
  const Cycle end = f.end, first = f.first;
  std::ostringstream s;
  const auto& n = f.sys.nic;
  uint64_t placed = n.payload_bytes_placed();
  double us = (end - std::min(first, end)) * period_ps / 1e6;
  auto cnt = [&](const std::string& k) { return f.stats.counter_value(k); };
  s << "oonic replay " << f.o.trace << " (" << trace::to_string(f.tr.format) << ", "
    << f.tr.records.size() << " records)\n";
  for (const auto& note : f.setup.notes) s << "  setup       " << note << "\n";
  for (const auto& is : f.tr.issues)
    s << "  trace       record " << is.index << ": " << is.reason << "\n";
  s << "  frames      " << f.setup.input.size() << " in, " << f.setup.from_dut.size()
    << " sent by the DUT (skipped); requests accepted " << cnt("nic0.rx.req_processor.accepted")
    << " (" << cnt("nic0.rx.req_processor.ooo_accepted") << " out of order), responses "
    << cnt("nic0.rx.rsp_processor.packets") << ", duplicates "
    << n.drops(ornic::Drop::kDuplicate).value << ", dropped " << n.drops_total() << "\n";
  s << "  cycles      " << end << " at " << fmt(f.all.nic.nic.clock_mhz, 0)
    << " MHz (first arrival " << first << "; " << fmt(us, 3) << " us to last activity)\n";
  s << "  throughput  " << fmt(us > 0 ? placed * 8.0 / (us * 1e3) : 0, 2) << " Gbit/s payload ("
    << placed << " B placed in host memory)\n";
  s << "  sent        ACK " << cnt("nic0.tx.hdr_generator.acks") << ", NAK "
    << cnt("nic0.tx.hdr_generator.naks") << ", NAK+bitmap "
    << cnt("nic0.tx.hdr_generator.bitmap_naks") << ", READ response "
    << cnt("nic0.tx.hdr_generator.read_responses") << " (" << f.sys.sink.frames()
    << " frames in tx.pcap; ACK aggregation "
    << fmt(cnt("nic0.control.req_manager.acks_scheduled")
               ? double(cnt("nic0.control.req_manager.ack_registrations")) /
                     cnt("nic0.control.req_manager.acks_scheduled")
               : 0,
           2)
    << " registrations/ACK)\n";
  s << "  drops      ";
  bool any = false;
  for (size_t i = 1; i < static_cast<size_t>(ornic::Drop::kCount); ++i) {
    auto d = static_cast<ornic::Drop>(i);
    if (d == ornic::Drop::kDuplicate || d == ornic::Drop::kNotForDut) continue;
    if (uint64_t v = n.drops(d).value) s << " " << ornic::drop_name(d) << " " << v, any = true;
  }
  s << (any ? "\n" : " none\n");
  s << "  SRAM        " << std::left << std::setw(24) << "instance" << std::right << std::setw(12)
    << "capacity" << std::setw(12) << "peak" << std::setw(14) << "mean (bits)"
    << "\n";
  for (const auto& [name, m] : f.named)
    s << "              " << std::left << std::setw(24) << m->name() << std::right << std::setw(12)
      << m->capacity_bits() << std::setw(12) << m->occupancy().peak() << std::setw(14)
      << fmt(m->occupancy().mean(), 1) << "\n";
  s << "  integrity   " << f.integ.text() << "\n";
  if (const ordering::RtlOrnicBitmap* rtl = bm.rtl())
    s << "  rtl         " << rtl->calls() << " bitmap calls through " << rtl->library() << " ("
      << rtl->rtl_edges() << " clock edges); "
      << (!f.all.nic.bitmap.rtl_check ? std::string("not checked")
          : rtl->mismatches() ? std::to_string(rtl->mismatches()) + " differ from the C++ core"
                              : std::string("identical to the C++ core"))
      << "\n";
  s << "  results     " << dir << "/  (simulated in " << fmt(wall, 3) << " s wall)\n";
  std::fputs(s.str().c_str(), stdout);
}

}  // namespace

int run_replay(const ReplayOptions& o) {
  install_report_handler();
  AllParams all;
  ParamTable table;
  read_params(o, all, table);
  Timing timing = Timing::parse(o.timing);

  trace::Trace tr = trace::Trace::load(o.trace);
  if (tr.records.empty()) tr.issues.push_back({0, 0, "empty trace: no records"});
  std::optional<trace::Sidecar> sidecar = find_sidecar(o);
  ReplaySetup setup = make_setup(tr, sidecar, o.dut, all.nic);
  const std::string dir = prepare_results_dir(o, table, setup);

  Stats stats;
  ClockDomain clk(all.nic.nic.clock_mhz);
  std::unique_ptr<Vcd> vcd = results::make_vcd(o.vcd, o.vcd_groups, clk.period_ps());
  bool progress = !o.quiet && isatty(fileno(stderr));
  auto sys =
      std::make_unique<ReplaySystem>(all, stats, vcd.get(), tr, setup.input, timing, dir, progress);
  std::unique_ptr<ornic::PacketLog> plog;
  if (all.platform.packets_csv) {
    plog = std::make_unique<ornic::PacketLog>(dir + "/packets.csv");
    sys->nic.set_packet_log(plog.get());
  }
  install_setup(*sys, setup);
  skip_dut_frames(*sys, stats, setup, tr, plog.get());

  std::vector<results::NamedSram> named;
  for (Sram* m : sys->nic.srams()) named.emplace_back(m->name(), m);
  results::SramCsv sram_csv(all.platform.sram_csv ? dir + "/sram.csv" : "", named);
  sys->source.every_frames(kSettleFrames, [&](Cycle now) { sram_csv.settle(now); });

  auto w0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  sys->sink.close();
  plog.reset();

  Cycle end = std::max(sys->nic.last_activity(), sys->source.last_arrival());
  Cycle first = sys->source.first_arrival();
  IntegrityResult integ = check_integrity(tr, setup, sys->memory.memory());
  const Finished done{o, all, tr, setup, *sys, stats, named, integ, first, end};
  const std::string rtl_report = write_stats_json(done, timing, dir);
  sram_csv.finish(end);
  if (vcd) vcd->write(dir + "/waves.vcd", o.vcd_from, o.vcd_to);
  if (!o.quiet) print_summary(done, clk.period_ps(), dir, wall);
  if (!rtl_report.empty()) {
    std::fprintf(stderr, "oonic: %s\n", rtl_report.c_str());
    return 1;
  }
  return 0;
}

std::string stats_listing(bool markdown, const std::vector<std::string>& sets) {
  install_report_handler();
  AllParams all;
  ParamTable table;
  all.describe(table);
  for (const auto& s : sets) apply_override(table, s);
  all.nic.validate();
  Stats stats;
  trace::Trace tr;
  std::vector<uint32_t> none;
  fs::path tmp = fs::temp_directory_path() / ("oonic-stats-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  {
    ReplaySystem sys(all, stats, nullptr, tr, none, Timing{}, tmp.string(), false);
    stats.counter("source.frames_from_dut", "frame",
                  "frames the device under test sent in the capture (not input)");
    for (Sram* s : sys.nic.srams()) (void)s;
  }
  fs::remove_all(tmp);
  return stats.listing(markdown);
}

}  // namespace oonic::replay
