// `oonic run`: one path for every system. A job (the two-NIC workload on the pair
// topology, platforms/b2b; flows across a fabric, platforms/fabric) reads its
// parameters and inputs, says how its hosts and switches are built, posts its work
// and writes its results; run() builds the system (system::build), runs the kernel
// (run_loop: slices, the job's scheduled changes, the stall watchdog) and hands the
// job what the run did.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platforms/system/system.h"

namespace oonic::system {

struct RunOptions {
  std::string config;             // YAML
  std::vector<std::string> sets;  // "a.b=v"
  std::string out;                // results dir; default results/<config stem>
  bool vcd = false;
  std::string vcd_groups;
  uint64_t vcd_from = 0, vcd_to = ~uint64_t{0};
  uint64_t seed = 1;
  bool quiet = false;
};

// How the run loop ended.
struct Ran {
  double wall = 0;      // seconds in the kernel
  uint64_t end_ps = 0;  // simulated time at the end
  bool idle = false;    // the kernel ran out of events with work open
  std::string stall;    // the stall report, if the watchdog stopped the run
};

class Job {
 public:
  virtual ~Job() = default;
  // Parameters, inputs and the results directory; sets the system's topology,
  // routes, host maps and addresses. Throws Error naming the key, file or line.
  virtual void prepare(System& s) = 0;
  // How host i (index in s.host_nodes) is built.
  virtual std::vector<HostSpec> host_specs(const System& s) = 0;
  // The switch at node n (a topology with switches only).
  virtual std::unique_ptr<network::SwitchNode> make_switch(const System& s, uint32_t node) = 0;
  virtual const PcieParams& pcie() const = 0;
  virtual const HostMemoryParams& memory() const = 0;
  virtual Stats& stats() = 0;
  virtual Vcd* vcd() = 0;
  virtual uint64_t seed() const = 0;
  // QPs, WQEs and observers, once the system is built.
  virtual void start(System& s) = 0;

  // The run loop's questions. The simulated-time limit (ps):
  virtual uint64_t max_ps() const = 0;
  // True once every driver has finished.
  virtual bool done() const = 0;
  // The next scheduled change to the network (a fault), ps; UINT64_MAX: none left.
  virtual uint64_t next_change_ps() const { return UINT64_MAX; }
  // Applies the changes due by now.
  virtual void apply_changes(uint64_t /*now_ps*/) {}
  // The stall watchdog: how long without progress stops the run (ps; 0: no watchdog),
  // the slack beyond it, whether the run progressed since the last look, and the
  // report of a stall that started at since_ps.
  virtual uint64_t stall_ps() const { return 0; }
  virtual uint64_t stall_slack_ps(uint64_t /*max_ps*/) const { return 0; }
  virtual bool progressed(uint64_t /*now_ps*/) { return true; }
  virtual std::string stall_report(uint64_t /*now_ps*/, uint64_t /*since_ps*/) { return {}; }

  // Results, from the system and how the run ended; returns the exit status.
  virtual int finish(System& s, const Ran& ran) = 0;
};

// Runs the kernel for a built, started system: in slices of stall_ps / 4 (the whole
// run without a watchdog) and up to each scheduled change, which applies between
// slices. A process of its own would add timed events, and the kernel does not keep
// the order of same-time events; a slice that ends at t leaves t's events to the
// next one, so a change at t applies before them.
Ran run_loop(Job& job);

// prepare, build, start, run_loop, finish; returns the job's exit status.
int run(Job& job);

}  // namespace oonic::system
