#include "platforms/compare/compare.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/core/error.h"
#include "model/schemes/receive_schemes.h"
#include "platforms/common/cli_options.h"
#include "platforms/common/results.h"

extern char** environ;

namespace fs = std::filesystem;

namespace oonic::compare {

namespace {

const char* kDescription =
    "Runs TRACE (oonic replay) or the two-NIC workload CONFIG (oonic run) once per\n"
    "receive-order scheme (nic.ordering) and prints two tables. The first: end\n"
    "cycle, throughput, ordering SRAM bits (every bitmap.* and eunomia.* instance\n"
    "of the scheme but the free list, and cc.context, the sender's per-QP state of\n"
    "a window or rate core such as MP-RDMA's; both NICs in a run: peak and time-weighted\n"
    "mean, summed), control frames sent (ACK, NAK, bitmap NAK, SACK, NACK), drops,\n"
    "retransmissions (run) and integrity (replay: host memory equals the trace's\n"
    "bytes; run: the scoreboard). The second: peak and mean bits of each of those\n"
    "SRAM instances, per scheme. In a run, each figure is NIC a's plus NIC b's (a sum\n"
    "of peaks, not the peak of the sum).";

const char* kFooter =
    "Each scheme's own results directory holds its stats.json and the rest.\n"
    "\"NAK\" is the standard NAK (PSN sequence error: go back N; remote access, RNR,\n"
    "invalid request); \"bitmap NAK\" ORNIC's OOO NAK with its bitmap block; \"SACK\" the\n"
    "Scheme Feedback frames of type SACK (IRN, Eunomia), MP-RDMA ACK and UET ACK (uet-rud,\n"
    "uet-rod: every ACK they send); \"NACK\" those\n"
    "of type NACK (Eunomia, MP-RDMA: not tracked, dropped) and MELO's hole NACK.\n"
    "DIR/compare.csv holds the first table, DIR/compare_sram.csv the second.";

struct CompareOptions {
  std::string input, config, out, csv;
  uint64_t seed = 1;
  bool run = false;
  std::vector<std::string> sets, schemes;
};

struct Row {
  std::string scheme;
  uint64_t cycles = 0;
  double gbps = 0;
  double peak_bits = 0, mean_bits = 0;
  uint64_t acks = 0, naks = 0, bitmap_naks = 0, sacks = 0, nacks = 0, drops = 0, retx = 0;
  std::vector<std::pair<std::string, std::pair<double, double>>> srams;  // name, peak, mean
  bool ok = false;
  std::string note;
  std::string verdict;  // replay: integrity's first word when not OK (MISMATCH)
};

std::string self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(msg::kIo, "compare: cannot find the oonic binary (/proc/self/exe)");
  return p.string();
}

int spawn_wait(const std::vector<std::string>& argv) {
  std::vector<char*> a;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, a[0], nullptr, nullptr, a.data(), environ) != 0)
    throw Error(msg::kIo, "compare: cannot start " + argv[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

double num(const nlohmann::json& stats, const std::string& k) {
  auto it = stats.find(k);
  if (it == stats.end()) return 0;
  if (it->contains("value")) return (*it)["value"].get<double>();
  return 0;
}

using results::fmt;

// The options resolved: checked, defaults filled in, the output directory made.
struct Plan {
  std::string input, config, out, csv, seed;
  bool run = false;
  std::vector<std::string> sets, schemes;
  std::string exe;  // this oonic, run once per scheme
  bool progress = false;
};

Plan make_plan(const CompareOptions& o) {
  Plan p;
  p.input = o.input, p.config = o.config, p.out = o.out, p.csv = o.csv;
  p.seed = std::to_string(o.seed);
  p.run = o.run;
  p.sets = o.sets;
  p.schemes = o.schemes;
  if (p.input.empty()) throw Error(msg::kCli, "compare: no TRACE (or --run CONFIG) given");
  if (p.run && !p.config.empty())
    throw Error(msg::kCli, "compare: --config is for a replay; a run's CONFIG is its argument");
  if (p.input != "-" && !fs::exists(p.input)) throw Error(msg::kIo, p.input + ": no such file");
  if (p.schemes.empty()) p.schemes = ordering::scheme_names();
  for (const auto& s : p.schemes) {
    const auto& known = ordering::scheme_names();
    if (std::find(known.begin(), known.end(), s) == known.end())
      throw Error(msg::kCli, "compare: unknown scheme '" + s + "'");
  }
  if (p.out.empty())
    p.out = "results/compare/" +
            (p.input == "-" ? std::string("run") : fs::path(p.input).stem().string());
  if (p.csv.empty()) p.csv = p.out + "/compare.csv";
  fs::create_directories(p.out);
  p.exe = self_exe();
  p.progress = isatty(fileno(stderr));
  return p;
}

// Every ordering SRAM instance of the scheme (bitmap.*: the Bitmap Manager's,
// its layout differs per scheme; eunomia.*: Eunomia's receiver agent) but the
// free list, which every pooled scheme has alike (full when idle); cc.context: the
// sender's per-QP state (MP-RDMA's window and recovery, DCQCN's rate).
bool ordering_sram(const std::string& k) {
  return (k.rfind("bitmap.", 0) == 0 && k != "bitmap.free_list") || k.rfind("eunomia.", 0) == 0 ||
         k == "cc.context";
}

// The sum of `what` (peak_bits, mean_bits) over a NIC's ordering SRAM
// instances; prefix: the NIC's ("a.", "b.", "" in a replay).
double ordering_bits(nlohmann::json& j, const std::string& prefix, const char* what) {
  double b = 0;
  for (auto it = j["sram"].begin(); it != j["sram"].end(); ++it)
    if (it.key().rfind(prefix, 0) == 0 && ordering_sram(it.key().substr(prefix.size())))
      b += (*it)[what].get<double>();
  return b;
}

// Per structure (summed over both NICs in a run).
void read_srams(nlohmann::json& j, bool run, Row& r) {
  for (auto it = j["sram"].begin(); it != j["sram"].end(); ++it) {
    std::string k = it.key();
    if (run && k.size() > 2 && k[1] == '.') k = k.substr(2);
    if (!ordering_sram(k)) continue;
    auto f =
        std::find_if(r.srams.begin(), r.srams.end(), [&](const auto& x) { return x.first == k; });
    if (f == r.srams.end()) f = r.srams.insert(r.srams.end(), {k, {0.0, 0.0}});
    f->second.first += (*it)["peak_bits"].get<double>();
    f->second.second += (*it)["mean_bits"].get<double>();
  }
}

// The control frames a NIC (stats prefix p) sent.
void count_frames(const nlohmann::json& st, const std::string& p, Row& r) {
  r.acks += static_cast<uint64_t>(num(st, p + "tx.hdr_generator.acks"));
  r.naks += static_cast<uint64_t>(num(st, p + "tx.hdr_generator.naks"));
  r.bitmap_naks += static_cast<uint64_t>(num(st, p + "tx.hdr_generator.bitmap_naks"));
  r.sacks += static_cast<uint64_t>(num(st, p + "tx.hdr_generator.scheme_feedback_sacks") +
                                   num(st, p + "tx.hdr_generator.scheme_feedback_mp_acks") +
                                   num(st, p + "tx.hdr_generator.scheme_feedback_uet_acks"));
  r.nacks += static_cast<uint64_t>(num(st, p + "tx.hdr_generator.scheme_feedback_nacks") +
                                   num(st, p + "tx.hdr_generator.scheme_feedback_hole_nacks"));
}

// A run's figures: both NICs', summed.
void read_run(nlohmann::json& j, Row& r) {
  const auto& st = j["stats"];
  r.gbps = j["run"]["throughput_gbps"].get<double>();
  for (const char* side : {"a.", "b."}) {
    std::string s = side;
    r.peak_bits += ordering_bits(j, s, "peak_bits");
    r.mean_bits += ordering_bits(j, s, "mean_bits");
    count_frames(st, s + "nic.", r);
    r.drops += static_cast<uint64_t>(num(st, s + "nic.rx.drops.total"));
    r.retx += static_cast<uint64_t>(num(st, s + "nic.tx.qp_manager.retransmitted"));
  }
  r.ok = j["scoreboard"]["ok"].get<bool>();
  if (!j["run"]["finished"].get<bool>()) r.note = "not finished";
}

// A replay's figures: throughput from the first arrival to the end cycle.
void read_replay(nlohmann::json& j, double period_ps, Row& r) {
  const auto& st = j["stats"];
  uint64_t first = j["run"]["first_arrival_cycle"].get<uint64_t>();
  double us = (r.cycles - std::min(first, r.cycles)) * period_ps / 1e6;
  double bytes = num(st, "nic0.rx.req_processor.accepted_bytes") +
                 num(st, "nic0.rx.rsp_processor.read_response_bytes");
  r.gbps = us > 0 ? bytes * 8 / (us * 1e3) : 0;
  r.peak_bits = ordering_bits(j, "", "peak_bits");
  r.mean_bits = ordering_bits(j, "", "mean_bits");
  count_frames(st, "nic0.", r);
  r.drops = static_cast<uint64_t>(num(st, "nic0.rx.drops.total"));
  r.ok = j["integrity"]["ok"].get<bool>();
  // A replay cannot resend what a scheme dropped: name it, not "FAILED".
  if (!r.ok) r.verdict = j["integrity"]["text"].get<std::string>().substr(0, 8);
}

// One scheme: the replay or run in its own directory, and its row.
Row run_scheme(const Plan& p, const std::string& sch) {
  if (p.progress) std::fprintf(stderr, "\r  %s ...            ", sch.c_str());
  std::string dir = p.out + "/" + sch;
  std::vector<std::string> argv = {
      p.exe,   p.run ? "run" : "replay", p.input, "--out", dir, "--quiet", "--seed", p.seed,
      "--set", "nic.ordering=" + sch};
  if (!p.config.empty()) argv.insert(argv.end(), {"--config", p.config});
  if (!p.run) argv.push_back("--no-packets-csv");
  for (const auto& s : p.sets) argv.insert(argv.end(), {"--set", s});
  int rc = spawn_wait(argv);
  Row r;
  r.scheme = sch;
  if (rc == 2 || !fs::exists(dir + "/stats.json")) {
    r.note = "failed (exit " + std::to_string(rc) + ")";
    return r;
  }
  std::ifstream f(dir + "/stats.json");
  nlohmann::json j = nlohmann::json::parse(f);
  const double period_ps = 1e6 / j["run"]["clock_mhz"].get<double>();
  r.cycles = j["run"]["end_cycle"].get<uint64_t>();
  read_srams(j, p.run, r);
  if (p.run)
    read_run(j, r);
  else
    read_replay(j, period_ps, r);
  return r;
}

// Prints both tables and writes them as CSV; true if every scheme ran.
bool write_tables(const Plan& p, const std::vector<Row>& rows) {
  const bool run = p.run;
  const std::string& csv = p.csv;
  const char* check = run ? "scoreboard" : "integrity";
  std::ostringstream t;
  t << "oonic compare " << (run ? "--run " : "") << p.input << " (" << rows.size()
    << " schemes; results in " << p.out << "/)\n\n";
  t << "| scheme | end cycle | Gbit/s | ordering SRAM peak bits | mean bits | ACK | NAK | bitmap "
       "NAK | SACK | NACK | drops | "
    << (run ? "retransmitted | " : "") << check << " |\n";
  t << "|---|---|---|---|---|---|---|---|---|---|---|" << (run ? "---|" : "") << "---|\n";
  std::ofstream c(csv);
  if (!c) throw Error(msg::kIo, csv + ": cannot write");
  c << "scheme,end_cycle,gbps,ordering_sram_peak_bits,ordering_sram_mean_bits,acks,naks,"
       "bitmap_naks,sacks,nacks,drops,retransmitted,"
    << check << "\n";
  bool all_ok = true;
  for (const Row& r : rows) {
    std::string verdict = !r.note.empty()      ? r.note
                          : r.ok               ? "OK"
                          : !r.verdict.empty() ? r.verdict
                                               : "FAILED";
    if (!r.note.empty()) all_ok = false;
    t << "| " << r.scheme << " | " << r.cycles << " | " << fmt(r.gbps, 2) << " | "
      << fmt(r.peak_bits, 0) << " | " << fmt(r.mean_bits, 1) << " | " << r.acks << " | " << r.naks
      << " | " << r.bitmap_naks << " | " << r.sacks << " | " << r.nacks << " | " << r.drops << " | "
      << (run ? std::to_string(r.retx) + " | " : "") << verdict << " |\n";
    c << r.scheme << "," << r.cycles << "," << fmt(r.gbps, 3) << "," << fmt(r.peak_bits, 0) << ","
      << fmt(r.mean_bits, 1) << "," << r.acks << "," << r.naks << "," << r.bitmap_naks << ","
      << r.sacks << "," << r.nacks << "," << r.drops << "," << r.retx << "," << verdict << "\n";
  }
  // Per structure: the ordering SRAM instances of each scheme.
  const std::string sram_csv = fs::path(csv).parent_path().empty()
                                   ? std::string("compare_sram.csv")
                                   : (fs::path(csv).parent_path() / "compare_sram.csv").string();
  std::ofstream sc(sram_csv);
  if (!sc) throw Error(msg::kIo, sram_csv + ": cannot write");
  sc << "scheme,structure,peak_bits,mean_bits\n";
  t << "\n| scheme | SRAM structure | peak bits | mean bits |\n|---|---|---|---|\n";
  for (const Row& r : rows)
    for (const auto& [name, pm] : r.srams) {
      t << "| " << r.scheme << " | " << name << " | " << fmt(pm.first, 0) << " | "
        << fmt(pm.second, 1) << " |\n";
      sc << r.scheme << "," << name << "," << fmt(pm.first, 0) << "," << fmt(pm.second, 1) << "\n";
    }
  t << "\nCSV: " << csv << ", " << sram_csv << "\n";
  std::fputs(t.str().c_str(), stdout);
  return all_ok;
}

}  // namespace

int run_compare(const CompareOptions& o) {
  const Plan p = make_plan(o);
  std::vector<Row> rows;
  for (const auto& sch : p.schemes) rows.push_back(run_scheme(p, sch));
  if (p.progress) std::fprintf(stderr, "\r%40s\r", "");
  return write_tables(p, rows) ? 0 : 1;
}

void add_command(CLI::App& oonic, cli::Context& ctx) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* c = cli::add_command(oonic, "compare",
                                 "the same trace or workload through every receive-order\n"
                                 "scheme (nic.ordering), one table",
                                 kDescription, kFooter);
  cli::add_positional(c, "TRACE", o->input, "the trace to replay (or --run CONFIG)", false);
  c->add_option_function<std::string>(
       "--run",
       [o](const std::string& v) {
         o->run = true;
         o->input = v;
       },
       "run this two-NIC workload (oonic run) instead of a trace")
      ->option_text("CONFIG");
  cli::add_list(
      c, "--schemes,--ordering", o->schemes,
      "LIST", "comma-separated (default: every scheme:\n" + [] {
        std::string all;
        for (const auto& s : ordering::scheme_names()) all += (all.empty() ? "" : ",") + s;
        return all;
      }() + ")");
  cli::add_sets(c, o->sets, "passed to every run (repeatable)");
  cli::add_text(c, "--config", o->config, "FILE",
                "replay only: the YAML config passed to every replay");
  cli::add_text(c, "--out", o->out, "DIR",
                "results, one directory per scheme (default results/compare/<name>)");
  cli::add_text(c, "--csv", o->csv, "FILE",
                "also write the table as CSV (default DIR/compare.csv)");
  cli::add_seed(c, o->seed, "run seed passed to every run");
  c->callback([o, c, &ctx] {
    if (o->run && c->count("TRACE")) cli::fail(c, "give TRACE or --run CONFIG, not both");
    ctx.rc = run_compare(*o);
  });
}

}  // namespace oonic::compare
