// The transmit seam (docs/DESIGN.md "Seams"): a sender policy is a loss-recovery core
// and a rate/pacing core, each picked by name from a table (`tx.recovery`, `tx.rate`).
// `tx.recovery: auto` takes the recovery the receive scheme (`nic.ordering`) pairs with
// (ordering::SchemeTraits::recovery). Adding a sender is one core and one row here; a
// rate row names its parameters, and their keys join the table through tx.* (rate_params).
// Plain C++.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/core/plugin_params.h"
#include "model/core/stats.h"
#include "model/sender/loss_recovery.h"
#include "model/sender/rate_control.h"
#include "model/sender/uet_recovery.h"
#include "model/sram/sram.h"

namespace oonic::sender {

struct PolicyEnv {
  uint32_t max_qps = 2048;
  uint32_t window_psns = 320;  // the requester's PSN window (tx.qp_manager.max_inflight_psns)
  double clock_mhz = 250;      // the NIC clock (rate cores pace in its cycles)
  double line_gbps = 100;      // the MAC line rate
  // The rate rows' own parameters (rate_params()): cc.dcqcn.*, cc.mprdma.*, ...; a core
  // whose params are absent (null, or not added) takes its defaults.
  const PluginParamSet* rate_params = nullptr;
  Sram* cc_context = nullptr;              // the rate core's per-QP state (none: not counted)
  uint32_t pmtu_bytes = 1024;              // nic.pmtu_bytes (MP-RDMA's BDP in packets)
  const IrnTimerParams* irn = nullptr;     // eunomia.sender.* (defaults when null)
  const UetRecoveryParams* uet = nullptr;  // tx.uet.* (defaults when null)
  bool ordered_delivery = false;           // the PDCs deliver in order (nic.ordering uet-rod)
};

struct RecoveryKind {
  const char* name;
  const char* block;  // the TX plane block that holds it (its stats group), e.g. sender_agent
  const char* description;
  std::unique_ptr<LossRecovery> (*make)(const StatGroup& stats, const PolicyEnv& env);
};
struct RateKind {
  const char* name;
  const char* description;
  bool context;  // keeps per-QP state in the cc.context SRAM
  std::unique_ptr<RateControl> (*make)(const StatGroup& stats, const PolicyEnv& env);
  // The row's own parameters (their keys join the table), or null: none.
  std::unique_ptr<PluginParams> (*params)() = nullptr;
  // Its data packets carry an INT stack for the switches to fill (switch.int_stamp auto).
  bool int_stack = false;
  // Its parameter (us) that 0 leaves to the platform: a fabric's largest base RTT among
  // its flows, a two-NIC run's twice network.propagation_ns; null: none.
  const char* base_rtt_key = nullptr;
};

const std::vector<RecoveryKind>& recovery_kinds();
const std::vector<RateKind>& rate_kinds();
// The row of `name`; throws oonic::Error (msg::kConfig) naming the key and the choices.
const RecoveryKind& find_recovery(const std::string& name);
const RateKind& find_rate(const std::string& name);
// A sender policy: both cores. `tx` is the stats group of the TX plane
// ("nic0.tx"); a core reports under its row's block ("nic0.tx.sender_agent").
struct SenderPolicy {
  std::unique_ptr<LossRecovery> recovery;
  std::unique_ptr<RateControl> rate;
};
SenderPolicy make_sender_policy(const std::string& recovery, const std::string& rate,
                                const StatGroup& tx, const PolicyEnv& env);

// One of each rate row's parameters, in row order (tx.* owns them: SenderPolicyParams).
PluginParamSet rate_params();
// A row's parameters in env, or its type's defaults.
template <class P>
const P& rate_params_of(const PolicyEnv& env, const char* row) {
  static const P kDefaults;
  const P* p = env.rate_params ? env.rate_params->find<P>(row) : nullptr;
  return p ? *p : kDefaults;
}

// Names for the parameter table ("auto" first for recovery).
std::vector<std::string> recovery_choices();
std::vector<std::string> rate_choices();

}  // namespace oonic::sender
