// `oonic replay`, `oonic run`, `oonic params`, `oonic stats`, `oonic registers`:
// their options, defined once; help is generated from them (platforms/cli/cli.h).
#include <cstdio>
#include <memory>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/ornic/register_map.h"
#include "platforms/b2b/b2b.h"
#include "platforms/cli/cli.h"
#include "platforms/fabric/fabric.h"
#include "platforms/replay/replay.h"

namespace oonic::cli {

namespace {

const char* kVcdHelp =
    "also write waves.vcd (whole cycles, hierarchical names); GROUPS:\n"
    "comma-separated rx,bitmap,dma,control,tx (default all)";

void add_replay(CLI::App& oonic, Context& ctx) {
  auto o = std::make_shared<replay::ReplayOptions>();
  CLI::App* c = add_command(
      oonic, "replay", "play a packet trace, in arrival order, into one NIC",
      "Plays TRACE (pcap, pcapng or oonic text trace, see traces/README.md) into the\n"
      "receive side of one ORNIC NIC with its PCIe link and host memory, and writes\n"
      "the results directory.",
      "results: stats.json packets.csv sram.csv tx.pcap tx.csv config.yaml qps.yaml [waves.vcd]");
  add_positional(c, "TRACE", o->trace, "pcap, pcapng or text trace");
  add_text(c, "--config", o->config, "FILE", "YAML configuration (`oonic params` lists every key)");
  add_sets(c, o->sets, "override one parameter (repeatable), e.g. --set nic.otd=32");
  add_text(c, "--qps", o->qps, "FILE",
           "QP / memory-region sidecar (default: TRACE's .qps.yaml if\n"
           "present, else derived from the trace and printed)");
  add_text(c, "--out", o->out, "DIR", "results directory (default: results/<trace name>)");
  add_text(c, "--timing", o->timing, "MODE",
           "captured (default) | line-rate | gap:N (N NIC cycles apart)");
  add_text(c, "--dut", o->dut, "WHO",
           "device under test in a two-sided capture: mac=..., ip=...,\n"
           "qp=N (default: the receiver of the first RC request)");
  add_vcd(c, o->vcd, o->vcd_groups, o->vcd_from, o->vcd_to, kVcdHelp);
  add_seed(c, o->seed, "run seed");
  c->add_flag_callback(
      "--no-packets-csv", [o] { o->sets.push_back("out.packets_csv=false"); },
      "do not write packets.csv (same as --set out.packets_csv=false)");
  add_flag(c, "--quiet", o->quiet, "no summary on stdout");
  c->callback([o, &ctx] { ctx.rc = replay::run_replay(*o); });
}

void add_run(CLI::App& oonic, Context& ctx) {
  auto o = std::make_shared<b2b::RunOptions>();
  auto config = std::make_shared<std::string>();
  CLI::App* c = add_command(
      oonic, "run",
      "two NICs (hosts, PCIe, a reordering/lossy network) run a\n"
      "workload of WRITE/READ/SEND WQEs, or a fabric of hosts and\n"
      "switches runs flows; scoreboard checked",
      "Builds the b2b system: host A and host B, each with its memory and PCIe link\n"
      "and an ORNIC NIC, connected by a network that delays, reorders (OOO distance)\n"
      "and drops (random rate or listed PSNs). Host A posts the workload (workload.*\n"
      "keys: QPs, opcode mix, WQE sizes, count, OOO or standard) through the NIC's\n"
      "register bus, and takes CQEs. After the run the scoreboard checks every WQE:\n"
      "bytes at the destination equal the source, exactly one CQE each, no READ CQE\n"
      "before its data. CONFIG is a YAML file (`oonic params` lists every key;\n"
      "examples/ has runnable ones); \"-\" runs the defaults.\n"
      "\n"
      "With a topology section (topology.*, switch.*, routing.*, flows.* keys) it\n"
      "builds a fabric instead (docs/FABRIC.md): every host a NIC with its PCIe and\n"
      "memory, switches that queue, mark ECN, drop and route; each flow one QP and\n"
      "one WQE posted at its start; every byte checked as it lands.",
      "results: stats.json wqes.csv sram.csv a_to_b.pcap b_to_a.pcap config.yaml [waves.vcd]\n"
      "fabric:  stats.json fct.csv fct.txt qps.csv links.csv summary.txt flows.txt\n"
      "         config.yaml [queues.csv sram.csv h<i>_tx.pcap waves.vcd]\n"
      "exit status: 0 every WQE completed and the scoreboard is clean, 1 otherwise,\n"
      "             2 bad input");
  add_positional(c, "CONFIG", *config, "YAML configuration, or - for the defaults");
  add_sets(c, o->sets, "override one parameter (repeatable), e.g. --set network.loss_rate=0.01");
  add_text(c, "--out", o->out, "DIR", "results directory (default: results/<config name>)");
  add_vcd(c, o->vcd, o->vcd_groups, o->vcd_from, o->vcd_to,
          "also write waves.vcd (both NICs); GROUPS: comma-separated\n"
          "rx,bitmap,dma,control,tx (default all)");
  add_seed(c, o->seed, "run seed: workload draws, network jitter and loss");
  add_flag(c, "--quiet", o->quiet, "no summary on stdout");
  c->callback([o, config, &ctx] {
    if (*config != "-") o->config = *config;
    // One path: the job (a fabric's flows, or the two-NIC workload on the pair
    // topology) says what to build; system::run builds, runs and writes.
    std::unique_ptr<system::Job> job =
        fabric::wants_fabric(o->config, o->sets) ? fabric::make_job(*o) : b2b::make_job(*o);
    ctx.rc = system::run(*job);
  });
}

}  // namespace

void add_simulation_commands(CLI::App& oonic, Context& ctx) {
  add_replay(oonic, ctx);
  add_run(oonic, ctx);
}

void add_listing_commands(CLI::App& oonic, Context& ctx) {
  auto md = std::make_shared<bool>(false);
  CLI::App* p =
      add_command(oonic, "params", "list every parameter: default, unit, range, description",
                  "Every parameter of `oonic replay` and `oonic run` with its default, "
                  "unit, range and\ndescription (docs/PARAMS.md is this, as Markdown).");
  add_flag(p, "--markdown", *md, "a Markdown table");
  p->callback([md, &ctx] {
    ParamTable t;
    replay::AllParams all;
    all.describe(t);
    // `oonic run` adds the network, the workload and run.* to the NIC's keys.
    b2b::AllParams b2b;
    b2b.network.describe(t);
    b2b.workload.describe(t);
    b2b.run.describe(t);
    // A fabric's own keys (its run.* keys that b2b has too mean the same).
    ParamTable ft;
    fabric::AllParams fab;
    fab.describe(ft);
    for (const auto& e : ft.entries())
      if (!t.find(e.key)) t.adopt(e);
    std::fputs(params_listing(t, *md).c_str(), stdout);
    ctx.rc = 0;
  });

  auto smd = std::make_shared<bool>(false);
  auto run = std::make_shared<bool>(false);
  auto fab = std::make_shared<bool>(false);
  auto sets = std::make_shared<std::vector<std::string>>();
  CLI::App* s = add_command(
      oonic, "stats",
      "list every stat a replay (or, with --run, a b2b run)\nreports: kind, unit, description",
      "Lists every stat a replay (--run: a two-NIC run) registers, with unit and\n"
      "description.");
  add_flag(s, "--run", *run, "the stats of `oonic run` instead of `oonic replay`");
  add_flag(s, "--fabric", *fab,
           "the stats of a fabric run (one host of each kind and one\nswitch; "
           "every host and switch has the same)");
  add_flag(s, "--markdown", *smd, "a Markdown table");
  add_sets(s, *sets,
           "change a parameter first (repeatable), e.g. nic.ordering=eunomia:\n"
           "the stats of that ordering's blocks");
  s->callback([smd, run, fab, sets, &ctx] {
    std::fputs((*fab   ? fabric::stats_listing(*smd, *sets)
                : *run ? b2b::stats_listing(*smd, *sets)
                       : replay::stats_listing(*smd, *sets))
                   .c_str(),
               stdout);
    ctx.rc = 0;
  });

  CLI::App* r = add_command(oonic, "registers", "the Register Manager's register map (Markdown)",
                            "The Register Manager's register map as a Markdown table "
                            "(docs/REGISTERS.md).");
  r->callback([&ctx] {
    replay::AllParams all;
    std::fputs(ornic::register_table_markdown(all.nic.nic.max_qps).c_str(), stdout);
    ctx.rc = 0;
  });
}

}  // namespace oonic::cli
