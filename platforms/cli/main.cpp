// oonic: the command line. Subcommands: replay, run, compare, params, stats,
// registers, trace, experiment.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/ornic/register_map.h"
#include "platforms/b2b/b2b.h"
#include "platforms/compare/compare.h"
#include "platforms/experiments/bitmap_compare.h"
#include "platforms/replay/replay.h"
#include "platforms/trace/trace_tools.h"

// SystemC prints its banner when its kernel starts, before sc_main; silence it
// from a static initializer so it never lands in our stdout.
[[maybe_unused]] static const bool kNoBanner = [] {
  return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

namespace {

const char* kUsage = R"(usage: oonic COMMAND [ARGS]

oonic is a cycle-accurate SystemC/TLM-2.0 model of an out-of-order RDMA NIC
(RoCEv2 RC; ORNIC's RX/Control/TX planes).

commands:
  replay TRACE [options]   play a packet trace, in arrival order, into one NIC
  run CONFIG [options]     two NICs (hosts, PCIe, a reordering/lossy network) run a
                           workload of WRITE/READ/SEND WQEs; scoreboard checked
  compare TRACE | --run CONFIG
                           the same trace or workload through every receive-order
                           scheme (nic.ordering), one table
  params [--markdown]      list every parameter: default, unit, range, description
  stats [--run] [--markdown]
                           list every stat a replay (or, with --run, a b2b run)
                           reports: kind, unit, description
  registers                the Register Manager's register map (Markdown)
  trace SUBCOMMAND         trace tools: convert, synth, perturb, stats
  experiment NAME          rerun a paper evaluation on the cores: bitmap-compare (ORNIC 4.3)
  help                     this text; `oonic COMMAND --help` for a command

exit status: 0 done, 1 a run's scoreboard failed or it did not finish,
             2 bad input (the message names the file, line, key or record)
)";

const char* kRunUsage = R"(usage: oonic run CONFIG [options]

Builds the b2b system: host A and host B, each with its memory and PCIe link
and an ORNIC NIC, connected by a network that delays, reorders (OOO distance)
and drops (random rate or listed PSNs). Host A posts the workload (workload.*
keys: QPs, opcode mix, WQE sizes, count, OOO or standard) through the NIC's
register bus, and takes CQEs. After the run the scoreboard checks every WQE:
bytes at the destination equal the source, exactly one CQE each, no READ CQE
before its data. CONFIG is a YAML file (`oonic params` lists every key;
examples/ has runnable ones); "-" runs the defaults.

options:
  --set KEY=VALUE      override one parameter (repeatable), e.g. --set network.loss_rate=0.01
  --out DIR            results directory (default: results/<config name>)
  --vcd[=GROUPS]       also write waves.vcd (both NICs; groups rx,bitmap,dma,control,tx)
  --vcd-window A:B     only cycles A..B in waves.vcd
  --seed N             run seed: workload draws, network jitter and loss (default 1)
  --quiet              no summary on stdout
  -h, --help           this text

results: stats.json wqes.csv sram.csv a_to_b.pcap b_to_a.pcap config.yaml [waves.vcd]
exit status: 0 every WQE completed and the scoreboard is clean, 1 otherwise,
             2 bad input
)";

const char* kReplayUsage = R"(usage: oonic replay TRACE [options]

Plays TRACE (pcap, pcapng or oonic text trace, see traces/README.md) into the
receive side of one ORNIC NIC with its PCIe link and host memory, and writes
the results directory.

options:
  --config FILE        YAML configuration (`oonic params` lists every key)
  --set KEY=VALUE      override one parameter (repeatable), e.g. --set nic.otd=32
  --qps FILE           QP / memory-region sidecar (default: TRACE's .qps.yaml if
                       present, else derived from the trace and printed)
  --out DIR            results directory (default: results/<trace name>)
  --timing MODE        captured (default) | line-rate | gap:N (N NIC cycles apart)
  --dut WHO            device under test in a two-sided capture: mac=..., ip=...,
                       qp=N (default: the receiver of the first RC request)
  --vcd[=GROUPS]       also write waves.vcd (whole cycles, hierarchical names);
                       GROUPS: comma-separated rx,bitmap,dma,control,tx (default all)
  --vcd-window A:B     only cycles A..B in waves.vcd
  --seed N             run seed (default 1)
  --no-packets-csv     do not write packets.csv (same as --set out.packets_csv=false)
  --quiet              no summary on stdout
  -h, --help           this text

results: stats.json packets.csv sram.csv tx.pcap tx.csv config.yaml qps.yaml [waves.vcd]
)";

struct Args {
  std::vector<std::string> v;
  size_t i = 0;
  bool more() const { return i < v.size(); }
  std::string next(const std::string& opt) {
    if (i >= v.size()) throw oonic::Error(oonic::msg::kCli, opt + " needs a value");
    return v[i++];
  }
};

int cmd_replay(Args& a) {
  oonic::replay::ReplayOptions o;
  while (a.more()) {
    std::string s = a.v[a.i++];
    auto val = [&](const std::string& opt) {
      auto eq = s.find('=');
      if (eq != std::string::npos && s.rfind("--", 0) == 0 && s.substr(0, eq) == opt)
        return s.substr(eq + 1);
      return a.next(opt);
    };
    auto is = [&](const char* opt) { return s == opt || s.rfind(std::string(opt) + "=", 0) == 0; };
    if (s == "-h" || s == "--help") {
      std::fputs(kReplayUsage, stdout);
      return 0;
    } else if (is("--config")) {
      o.config = val("--config");
    } else if (is("--set")) {
      o.sets.push_back(val("--set"));
    } else if (is("--qps")) {
      o.qps = val("--qps");
    } else if (is("--out")) {
      o.out = val("--out");
    } else if (is("--timing")) {
      o.timing = val("--timing");
    } else if (is("--dut")) {
      o.dut = val("--dut");
    } else if (s == "--vcd") {
      o.vcd = true;
    } else if (s.rfind("--vcd=", 0) == 0) {
      o.vcd = true, o.vcd_groups = s.substr(6);
    } else if (is("--vcd-window")) {
      std::string w = val("--vcd-window");
      unsigned long long from = 0, to = 0;
      char tail = 0;
      if (std::sscanf(w.c_str(), "%llu:%llu%c", &from, &to, &tail) != 2 || from > to)
        throw oonic::Error(oonic::msg::kCli,
                           "--vcd-window '" + w + "': expected FROM:TO cycles, FROM <= TO");
      o.vcd_from = from, o.vcd_to = to;
    } else if (is("--seed")) {
      std::string n = val("--seed");
      char* end = nullptr;
      o.seed = std::strtoull(n.c_str(), &end, 0);
      if (n.empty() || *end)
        throw oonic::Error(oonic::msg::kCli, "--seed '" + n + "': expected a number");
    } else if (s == "--no-packets-csv") {
      o.sets.push_back("out.packets_csv=false");
    } else if (s == "--quiet") {
      o.quiet = true;
    } else if (!s.empty() && s[0] == '-') {
      throw oonic::Error(oonic::msg::kCli,
                         "replay: unknown option '" + s + "' (see oonic replay --help)");
    } else if (o.trace.empty()) {
      o.trace = s;
    } else {
      throw oonic::Error(oonic::msg::kCli,
                         "replay: more than one TRACE given ('" + o.trace + "' and '" + s + "')");
    }
  }
  if (o.trace.empty())
    throw oonic::Error(oonic::msg::kCli, "replay: no TRACE given (see oonic replay --help)");
  return oonic::replay::run_replay(o);
}

int cmd_run(Args& a) {
  oonic::b2b::RunOptions o;
  bool have = false;
  while (a.more()) {
    std::string s = a.v[a.i++];
    if (s == "-h" || s == "--help") {
      std::fputs(kRunUsage, stdout);
      return 0;
    } else if (s == "--set") {
      o.sets.push_back(a.next(s));
    } else if (s == "--out") {
      o.out = a.next(s);
    } else if (s == "--vcd") {
      o.vcd = true;
    } else if (s.rfind("--vcd=", 0) == 0) {
      o.vcd = true, o.vcd_groups = s.substr(6);
    } else if (s == "--vcd-window") {
      std::string w = a.next(s);
      auto c = w.find(':');
      try {
        if (c == std::string::npos) throw std::invalid_argument(w);
        o.vcd_from = std::stoull(w.substr(0, c));
        o.vcd_to = std::stoull(w.substr(c + 1));
      } catch (const std::exception&) {
        throw oonic::Error(oonic::msg::kCli,
                           "--vcd-window: expected A:B (cycles), got '" + w + "'");
      }
    } else if (s == "--seed") {
      std::string v = a.next(s);
      try {
        size_t used = 0;
        o.seed = std::stoull(v, &used);
        if (used != v.size()) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw oonic::Error(oonic::msg::kCli, "--seed: not a number: '" + v + "'");
      }
    } else if (s == "--quiet") {
      o.quiet = true;
    } else if (s.size() > 1 && s[0] == '-') {
      throw oonic::Error(oonic::msg::kCli,
                         "run: unknown option '" + s + "' (see oonic run --help)");
    } else if (have) {
      throw oonic::Error(oonic::msg::kCli, "run: more than one CONFIG given");
    } else {
      have = true;
      if (s != "-") o.config = s;
    }
  }
  if (!have) throw oonic::Error(oonic::msg::kCli, "run: no CONFIG given (see oonic run --help)");
  return oonic::b2b::run_b2b(o);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  Args a;
  for (int i = 1; i < argc; ++i) a.v.push_back(argv[i]);
  try {
    if (!a.more() || a.v[0] == "help" || a.v[0] == "-h" || a.v[0] == "--help") {
      std::fputs(kUsage, stdout);
      return a.more() ? 0 : 2;
    }
    std::string cmd = a.v[a.i++];
    if (cmd == "replay") return cmd_replay(a);
    if (cmd == "run") return cmd_run(a);
    if (cmd == "compare")
      return oonic::compare::compare_command(
          std::vector<std::string>(a.v.begin() + a.i, a.v.end()));
    if (cmd == "trace")
      return oonic::trace::trace_command(std::vector<std::string>(a.v.begin() + a.i, a.v.end()));
    if (cmd == "experiment")
      return oonic::experiments::experiment_command(
          std::vector<std::string>(a.v.begin() + a.i, a.v.end()));
    if (cmd == "registers") {
      if (a.more() && (a.v[a.i] == "-h" || a.v[a.i] == "--help")) {
        std::puts("usage: oonic registers   (the Register Manager's map, Markdown)");
        return 0;
      }
      oonic::replay::AllParams all;
      std::fputs(oonic::ornic::register_table_markdown(all.nic.nic.max_qps).c_str(), stdout);
      return 0;
    }
    if (cmd == "params" || cmd == "stats") {
      bool md = false, run = false;
      std::vector<std::string> sets;
      while (a.more()) {
        std::string s = a.v[a.i++];
        if (s == "--markdown")
          md = true;
        else if (s == "--run" && cmd == "stats")
          run = true;
        else if (s == "--set" && cmd == "stats" && a.more())
          sets.push_back(a.v[a.i++]);
        else if (s == "-h" || s == "--help") {
          if (cmd == "stats")
            std::puts(
                "usage: oonic stats [--run] [--markdown] [--set KEY=VALUE]...\n"
                "Lists every stat a replay (--run: a two-NIC run) registers, with unit and\n"
                "description. --set changes a parameter first (e.g. nic.ordering=eunomia: the\n"
                "stats of that ordering's blocks).");
          else
            std::puts("usage: oonic params [--markdown]");
          return 0;
        } else
          throw oonic::Error(oonic::msg::kCli, cmd + ": unknown option '" + s + "'");
      }
      if (cmd == "params") {
        oonic::ParamTable t;
        oonic::replay::AllParams all;
        all.describe(t);
        // `oonic run` adds the network, the workload and run.* to the NIC's keys.
        oonic::b2b::AllParams b2b;
        b2b.network.describe(t);
        b2b.workload.describe(t);
        b2b.run.describe(t);
        std::fputs(oonic::params_listing(t, md).c_str(), stdout);
      } else {
        std::fputs(
            (run ? oonic::b2b::stats_listing(md, sets) : oonic::replay::stats_listing(md, sets))
                .c_str(),
            stdout);
      }
      return 0;
    }
    throw oonic::Error(oonic::msg::kCli, "unknown command '" + cmd + "' (see oonic --help)");
  } catch (const oonic::Error& e) {
    std::fprintf(stderr, "oonic: error: %s\n", e.what());
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::fprintf(stderr, "oonic: error: %s: %s\n", e.get_msg_type(), e.get_msg());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oonic: error: %s\n", e.what());
    return 2;
  }
}
