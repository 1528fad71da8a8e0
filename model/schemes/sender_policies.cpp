#include "model/schemes/sender_policies.h"

#include "model/sender/dcqcn.h"
#include "model/sender/hpcc.h"
#include "model/sender/mprdma.h"
#include "model/sender/nscc.h"

#include "model/core/error.h"
#include "model/eunomia/sender_agent_core.h"
#include "model/sender/standard_recovery.h"
#include "model/sender/uet_recovery.h"

namespace oonic::sender {

namespace {
template <class T>
std::unique_ptr<LossRecovery> plain(const StatGroup&, const PolicyEnv&) {
  return std::make_unique<T>();
}
std::unique_ptr<LossRecovery> selective(const StatGroup&, const PolicyEnv& e) {
  return std::make_unique<SelectiveRepeat>(e.max_qps);
}
std::unique_ptr<LossRecovery> hole_list(const StatGroup&, const PolicyEnv& e) {
  return std::make_unique<HoleList>(e.max_qps);
}
std::unique_ptr<LossRecovery> eunomia(const StatGroup& st, const PolicyEnv& e) {
  static const IrnTimerParams kDefaults;
  return std::make_unique<eunomia::SenderAgentCore>(st, e.max_qps, e.window_psns,
                                                    e.irn ? *e.irn : kDefaults);
}
std::unique_ptr<LossRecovery> uet_recovery(const StatGroup& st, const PolicyEnv& e) {
  static const UetRecoveryParams kDefaults;
  return std::make_unique<UetRecovery>(e.uet ? *e.uet : kDefaults, e.max_qps, e.window_psns, st,
                                       e.ordered_delivery);
}
std::unique_ptr<RateControl> dcqcn_rate(const StatGroup& stats, const PolicyEnv& env) {
  return std::make_unique<Dcqcn>(rate_params_of<DcqcnParams>(env, "dcqcn"), env.clock_mhz,
                                 env.line_gbps, env.max_qps, stats, env.cc_context, env.pmtu_bytes);
}

// cc.mprdma.*: the mprdma rate row's, which MP-RDMA's recovery reads too.
const MpRdmaParams& mprdma_params(const PolicyEnv& env) {
  return rate_params_of<MpRdmaParams>(env, "mprdma");
}
std::unique_ptr<RateControl> mprdma_rate(const StatGroup& stats, const PolicyEnv& env) {
  return std::make_unique<MpRdmaWindow>(mprdma_params(env), env.clock_mhz, env.line_gbps,
                                        env.pmtu_bytes, env.max_qps, stats, env.cc_context);
}
std::unique_ptr<LossRecovery> mprdma_recovery(const StatGroup& stats, const PolicyEnv& env) {
  return std::make_unique<MpRdmaRecovery>(mprdma_params(env), env.max_qps, stats);
}

std::unique_ptr<RateControl> hpcc_rate(const StatGroup& stats, const PolicyEnv& env) {
  return std::make_unique<Hpcc>(rate_params_of<HpccParams>(env, "hpcc"), env.clock_mhz,
                                env.line_gbps, env.max_qps, stats, env.cc_context, env.pmtu_bytes);
}

std::unique_ptr<RateControl> nscc_rate(const StatGroup& stats, const PolicyEnv& env) {
  return std::make_unique<Nscc>(rate_params_of<NsccParams>(env, "nscc"), env.clock_mhz,
                                env.line_gbps, env.pmtu_bytes, env.window_psns, env.max_qps, stats,
                                env.cc_context);
}

std::unique_ptr<RateControl> no_rate(const StatGroup&, const PolicyEnv&) {
  return std::make_unique<NoRate>();
}
}  // namespace

const std::vector<RecoveryKind>& recovery_kinds() {
  static const std::vector<RecoveryKind> k = {
      {"go-back-n", "recovery",
       "RoCE: a PSN-sequence NAK or a timeout goes back N (rx.req_processor.seq_nak, "
       "control.rsp_manager.min_timeout_us: a commodity NIC's costs)",
       &plain<GoBackN>},
      {"ornic", "recovery", "ORNIC: go-back-N, and the OOO NAK's bitmap block resends its 0 bits",
       &plain<OrnicRecovery>},
      {"selective-repeat", "recovery",
       "IRN: a SACK resends the first hole (repeated after tx.resend_holdoff_ns); NACK resends",
       &selective},
      {"hole-list", "recovery",
       "MELO/LEFT: the NACK's holes are resent exactly, lowest first; a timeout resends the first "
       "unacknowledged PSN and the holes learnt, not a window",
       &hole_list},
      {"eunomia", "sender_agent",
       "Eunomia's sender agent: metadata, last-packet hold, SACK scoreboard, selective timeout",
       &eunomia},
      {"mprdma", "mprdma",
       "MP-RDMA: recovery mode from a NACK (resends clocked by the window), early retransmit, "
       "ReTx/Sync/iPSN/MSN on every data packet",
       &mprdma_recovery},
      {"uet", "uet_recovery",
       "UET (htsim's SLEEK): loss recovery once the receiver's out-of-order count reaches "
       "tx.uet.loss_retx_factor windows, resending what its ACKs' SACK bitmaps do not hold; a "
       "NACK (trimmed) resends at once; the timeout resends one PSN (tx.uet.*)",
       &uet_recovery},
  };
  return k;
}

const std::vector<RateKind>& rate_kinds() {
  static const std::vector<RateKind> k = {
      {"none", "line rate, no pacing, the QP's own UDP source port", false, &no_rate},
      {"dcqcn", "DCQCN reaction point: per-QP rate from CNPs, paced (cc.dcqcn.*)", true,
       &dcqcn_rate, &make_plugin_params<DcqcnParams>},
      {"mprdma",
       "MP-RDMA: one window over virtual paths (UDP source ports) clocked by per-packet ACKs, "
       "OOO-aware path selection, burst control (cc.mprdma.*)",
       true, &mprdma_rate, &make_plugin_params<MpRdmaParams>},
      {"hpcc",
       "HPCC: a window and rate from the INT stacks the switches stamp and the receiver "
       "echoes (cc.hpcc.*, switch.int_*)",
       true, &hpcc_rate, &make_plugin_params<HpccParams>, true, "cc.hpcc.base_rtt_us"},
      {"nscc",
       "Ultra Ethernet's NSCC: a window from delay and ECN (a CNP echoes ECN on RoCEv2 "
       "frames), quick adapt (cc.nscc.*)",
       true, &nscc_rate, &make_plugin_params<NsccParams>, false, "cc.nscc.network_rtt_us"},
  };
  return k;
}

namespace {
template <class Row>
const Row& find(const std::vector<Row>& rows, const std::string& name, const char* key) {
  for (const Row& r : rows)
    if (name == r.name) return r;
  std::string all;
  for (const Row& r : rows) all += (all.empty() ? "" : ", ") + std::string(r.name);
  throw Error(msg::kConfig, std::string(key) + ": unknown '" + name + "' (" + all + ")");
}
}  // namespace

PluginParamSet rate_params() {
  PluginParamSet s;
  for (const RateKind& k : rate_kinds())
    if (k.params) s.add(k.name, k.params());
  return s;
}

const RecoveryKind& find_recovery(const std::string& name) {
  return find(recovery_kinds(), name, "tx.recovery");
}
const RateKind& find_rate(const std::string& name) {
  return find(rate_kinds(), name, "tx.rate");
}

SenderPolicy make_sender_policy(const std::string& recovery, const std::string& rate,
                                const StatGroup& tx, const PolicyEnv& env) {
  const RecoveryKind& r = find_recovery(recovery);
  const RateKind& k = find_rate(rate);
  SenderPolicy p;
  p.recovery = r.make(tx.group(r.block), env);
  p.rate = k.make(tx.group("rate"), env);
  p.rate->pair(*p.recovery);
  p.recovery->pair(*p.rate);
  return p;
}

std::vector<std::string> recovery_choices() {
  std::vector<std::string> v{"auto"};
  for (const RecoveryKind& k : recovery_kinds()) v.push_back(k.name);
  return v;
}
std::vector<std::string> rate_choices() {
  std::vector<std::string> v{"auto"};
  for (const RateKind& k : rate_kinds()) v.push_back(k.name);
  return v;
}

}  // namespace oonic::sender
