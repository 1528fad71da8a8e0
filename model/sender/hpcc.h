// HPCC (Li et al., SIGCOMM'19; MECHANISMS.md §9) as a rate core of the transmit seam
// (tx.rate hpcc), plain C++, following the paper's Algorithm 1 as ns-3 HPCC's RdmaHw
// runs it (mix/config.txt's CC_MODE 3). Every data packet leaves with an empty INT stack
// of int_hops records; each switch writes one (platforms/network/hooks/int_stamp.h); the
// receiver echoes the stack of the last data packet in its next ACK. Per QP, with T the
// base RTT, B_j a hop's rate, eta the target utilisation, W_AI the additive step (as a
// rate, rai):
//   per ACK with a stack of n hops (the first one only stores the records):
//     for each hop j: tau_j = time_j - time_j' (ns, against the same hop's record of the
//       previous ACK), txRate_j = (bytes_j - bytes_j') x 8 / tau_j,
//       U_j = min(qlen_j, qlen_j') x 8 / (B_j T) + txRate_j / B_j;
//     U = max_j U_j with its tau; tau = min(tau, T);
//     u = (u (T - tau) + U tau) / T                      (the smoothed utilisation)
//     if u / eta >= 1 or incStage >= maxStage:  R = Rc / (u / eta) + rai, stage 0
//     else:                                     R = Rc + rai, stage + 1
//     R within [min_rate, line]; the records become the references.
//   Rc and incStage (the reference) take R and the stage only when the ACK acknowledges
//   beyond lastUpdateSeq, which then moves to the QP's first PSN never sent (once per
//   RTT); other ACKs move R alone (fast_react; without it they change nothing).
//   Window (HAS_WIN): at most window_bytes x R / line in flight (VAR_WIN), window_bytes 0:
//   line x T (the BDP). Pacing: a packet may start once the previous one's bytes
//   (payload + pacing_overhead_bytes) have gone at R.
// A stack whose hop count changed (another path) only replaces the references. A hop
// with tau 0 (two ACKs of one record) is skipped. Rates are Gbit/s; T in ns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/params.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"

namespace oonic::sender {

struct HpccParams {            // cc.hpcc.*
  double eta = 0.95;           // U_TARGET
  uint32_t max_stage = 5;      // MI_THRESH (the paper's maxStage)
  bool fast_react = true;      // FAST_REACT
  double rai_mbps = 50;        // RATE_AI: W_AI as a rate
  double min_rate_mbps = 100;  // MIN_RATE
  double base_rtt_us = 0;      // T; 0: the fabric's largest base RTT among its flows
  uint64_t window_bytes = 0;   // HAS_WIN's window; 0: line x T
  bool var_win = true;         // VAR_WIN: the window x R / line
  bool window = true;          // HAS_WIN
  uint32_t int_hops = 0;       // records a data packet's stack has room for; 0: the
                               // fabric's longest path (switches), else 5
  uint32_t pacing_overhead_bytes = 62;
  void describe(ParamTable& t);
};

class Hpcc final : public RateControl {
 public:
  Hpcc(const HpccParams& p, double clock_mhz, double line_gbps, uint32_t max_qps,
       const StatGroup& stats, Sram* mem = nullptr, uint32_t pmtu_bytes = 1024);
  const char* name() const override { return "hpcc"; }

  Cycle send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) override;
  Cycle earliest(uint32_t qi, Cycle now, uint32_t bytes) override;
  void sent(uint32_t qi, Cycle start, uint32_t bytes) override;
  bool on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) override;
  bool on_int(uint32_t qi, Cycle t, uint32_t psn, const wire::IntStack& stack,
              const SendState& s) override;
  void tag(uint32_t qi, wire::FrameSpec& f) override;

  double rate_gbps(uint32_t qi) const { return qps_[qi].rate; }
  double reference_gbps(uint32_t qi) const { return qps_[qi].ref; }
  double utilization(uint32_t qi) const { return qps_[qi].u; }
  uint32_t stage(uint32_t qi) const { return qps_[qi].stage; }
  double window_bytes(uint32_t qi) const;
  uint32_t int_hops() const { return hops_; }

 private:
  struct Qp {
    double rate = 0, ref = 0;  // R and Rc, Gbit/s (0: not set yet: line)
    double u = 1;
    uint32_t stage = 0;
    bool have_refs = false;
    uint32_t last_update_psn = 0;
    uint8_t nhop = 0;
    std::array<wire::IntHop, wire::kMaxIntHops> hop{};
    Cycle next_avail = 0;
    uint32_t last_bytes = 0;
  };
  wire::IntStack empty_;  // what tag() puts on every data packet: int_hops records, zero
  Qp& qp(uint32_t qi);
  void set_rate(uint32_t qi, Qp& q, double gbps, Cycle t);
  Cycle tx_cycles(double gbps, uint32_t bytes) const;
  void touch(Cycle t, bool write);

  HpccParams p_;
  double mhz_, line_;
  double t_ns_;    // T
  double window_;  // bytes at line rate
  uint32_t hops_;  // records per stack
  uint32_t pmtu_;
  QpTable<Qp> qps_;
  Sram* mem_;
  Counter &int_acks_, &updates_, &fast_reacts_, &decreases_, &increases_, &paced_;
};

}  // namespace oonic::sender
