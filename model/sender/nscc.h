// NSCC, Ultra Ethernet's network-signal-based congestion control (issue 31, item 3), as a
// window core of the transmit seam (tx.rate nscc), plain C++. The algorithm and its
// parameter names follow htsim's UEC model (ultraethernet/uet-htsim, sim/uec.cpp:
// initNsccParams, updateCwndOnAck_NSCC); the code is oonic's. Per QP, with MSS the PMTU,
// BDP = line x network_rtt, and the reference network of 100 Gbit/s and 12 us:
//   a = BDP / (100 Gbit/s x 12 us), b = target_Qdelay / 12 us
//   alpha = 4 MSS a b / target_Qdelay, fi = 5 MSS a, eta = 0.15 MSS a, fi_scale = 0.25 a
//   maxwnd = 1.5 BDP (re-derived when a lower RTT is measured), cwnd starts at maxwnd
//   (or cc.nscc.init_cwnd_pkts MSS, htsim's -cwnd), never below one MSS.
// Every ACK that moves the first unacknowledged PSN gives the newly acknowledged bytes, a
// delay sample (RTT of its last PSN, if that PSN was sent once, minus the lowest RTT seen)
// and ECN (skip; see below):
//   quick adapt first: once per base_rtt + target_Qdelay, if triggered (a timeout), or the
//     delay is above 4 target_Qdelay, and fewer than maxwnd >> qa_gate bytes were
//     acknowledged in that period, cwnd = those bytes (the next in-flight bytes' ECN
//     ignored);
//   no ECN, delay >= target: fair increase, inc += fi x newly;
//   no ECN, delay <  target: fast increase when the delay is under 1 us for a window's
//     bytes (cwnd += fi_scale x newly), else proportional, inc += alpha x newly x
//     (target - delay);
//   ECN, delay >= target: multiplicative decrease at most once per base RTT,
//     cwnd *= max(1 - gamma (avg_delay - target) / avg_delay, 0.5), if avg_delay > target;
//   ECN, delay < target: nothing (UEC switches the path);
//   every 8 MSS acknowledged or network_rtt: cwnd += inc / cwnd, and + eta once per
//     network_rtt.
// avg_delay: an EWMA (delay_alpha) of the samples; a sample above target without ECN pulls
// it towards base_rtt / 4 instead (htsim's update_delay).
// With other receivers a CNP is the ECN echo (UET's ACK carries it): the ACK after a CNP
// counts as ECN-marked, and data packets go out ECT. The window (htsim's can_send_NSCC):
// a packet is picked only while in flight + MSS <= cwnd, in flight leaving out PSNs the
// recovery core holds as SACKed and, outside a loss-recovery episode, PSNs queued to go
// again (a NACKed packet is out of the flight until it goes); queued resends pass the
// window only in an episode (SLEEK's) or after a timeout until una moves (oonic's timeout
// does not take every expired packet out of the flight as htsim's does), and the recovery
// core's own queue (MP-RDMA's) always. Times in ps.
// Spraying (cc.nscc.spray): each packet's UDP source port is an entropy value from UET's
// entropy core (model/uet/entropy_core.h): oblivious (random), rr (round robin), avoid
// (round robin skipping penalised values) or mixed (htsim's default: values unmarked ACKs
// came back on first) over cc.nscc.paths values, so the switches' ECMP hash spreads a
// QP's packets over the paths.
// Per-packet ACKs: with MP-RDMA's receiver (nic.ordering mprdma) every data packet is
// answered by an ACK frame (Scheme Feedback, MP-RDMA's ACK) naming the packet's PSN, its
// source port (the entropy value) and its ECN, as UET's ACK does. NSCC then takes these
// instead of the cumulative ACKs: the delay sample is that packet's RTT, ECN is the
// frame's own, the bytes are one MSS a packet, and avoid penalises the entropy value of an
// ECN-marked ACK (1) or a NACK (4; the receiver dropped the packet). A NACK also
// triggers quick adapt and takes its bytes off the window (htsim's updateCwndOnNack_NSCC).
// With UET's receivers (nic.ordering uet-rud, uet-rod) the ACK is UET's own (kUetAck): coalesced,
// so its bytes are the packets it covers, its delay sample the RTT of the PSN that sent it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/params.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"
#include "model/uet/entropy_core.h"

namespace oonic::sender {

struct NsccParams {               // cc.nscc.*
  double network_rtt_us = 0;      // network_rtt; 0: the fabric's largest base RTT (two NICs: 2x
                                  // network.propagation_ns)
  double target_qdelay_us = 0;    // target_Qdelay; 0: network_rtt (htsim without trimming)
  uint32_t qa_gate = 3;           // quick adapt only below maxwnd >> qa_gate acknowledged
  bool quick_adapt = true;        // !disable_quick_adapt
  double gamma = 0.8;             // multiplicative decrease
  double delay_alpha = 0.0125;    // avg_delay's EWMA weight
  double maxwnd_bdp = 1.5;        // maxwnd in BDPs
  uint32_t init_cwnd_pkts = 0;    // the first window in MSS (htsim's -cwnd); 0: maxwnd
  uint32_t adjust_bytes_mss = 8;  // adjust_bytes_threshold in MSS
  bool base_rtt_on_nack = false;  // htsim's update_base_rtt_on_nack (its default: true)
  std::string spray = "off";      // off | oblivious | rr | avoid | mixed: an EV per packet
  uint32_t paths = 64;            // entropy values a QP sprays over (a power of two)
  void describe(ParamTable& t);
  void validate() const;  // throws Error(kConfig) naming the key
};

class Nscc final : public RateControl {
 public:
  // window_psns: the PSNs a QP may have in flight (tx.qp_manager.max_inflight_psns): the
  // send-time record's size.
  Nscc(const NsccParams& p, double clock_mhz, double line_gbps, uint32_t pmtu_bytes,
       uint32_t window_psns, uint32_t max_qps, const StatGroup& stats, Sram* mem = nullptr);
  const char* name() const override { return "nscc"; }

  Cycle send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) override;
  uint16_t picked(uint32_t qi, Cycle now, uint32_t psn, bool retx, uint16_t port) override;
  bool on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) override;
  bool on_feedback(uint32_t qi, Cycle t, const wire::SchemeFeedback& fb,
                   const SendState& s) override;
  void on_cnp(uint32_t qi, Cycle t) override;
  void on_timeout(uint32_t qi, Cycle t) override;
  bool ecn_capable() const override { return true; }
  // AckReq on the packet that fills the window (Qp::ar).
  void tag(uint32_t qi, wire::FrameSpec& f) override {
    if (qi < qps_.size() && qps_[qi].ar) f.bth.ack_req = true;
  }
  void pair(const LossRecovery& recovery) override { recovery_ = &recovery; }

  double cwnd_bytes(uint32_t qi) const { return qps_[qi].cwnd; }
  double window_packets(uint32_t qi) const override {
    return qi < qps_.size() && qps_[qi].started ? qps_[qi].cwnd / mss_ : 0;
  }
  double maxwnd_bytes(uint32_t qi) const { return qps_[qi].maxwnd; }
  double avg_delay_ps(uint32_t qi) const { return qps_[qi].avg_delay; }
  // The derived constants (bytes, bytes per ps, ps).
  double alpha() const { return alpha_; }
  double fi() const { return fi_; }
  double eta() const { return eta_; }
  double fi_scale() const { return fi_scale_; }
  double target_ps() const { return target_; }

 private:
  struct Qp {
    bool started = false;
    bool ar = false;  // the next packet asks for an ACK (send_at: the window fills)
    // A timeout fired and una has not moved since: its resends pass the window (htsim's
    // RTO takes every expired packet out of the flight; here they are not all queued).
    bool rto = false, rto_una_set = false;
    uint32_t rto_una = 0;
    double cwnd = 0, maxwnd = 0, base_rtt = 0, avg_delay = 0, inc = 0;
    double fi_count = 0;
    uint64_t achieved = 0, received = 0;
    int64_t to_ignore = 0, ignored = 0;
    bool increase = false, trigger_qa = false, ecn = false;
    bool per_packet = false;  // per-packet ACK frames arrive: cumulative ACKs only kick
    double last_dec = 0, last_adjust = 0, qa_end = 0;
    uint32_t first_psn = 0, acked = 0,
             next_psn = 0;                 // PSNs acknowledged; one past the highest picked
    std::vector<double> sent;              // send time by PSN mod window (ps; < 0: resent)
    std::vector<uint32_t> sent_psn;        // the PSN each slot's time is of
    std::shared_ptr<uet::EntropyCore> ev;  // spraying: the QP's entropy values
  };
  Qp& qp(uint32_t qi);
  double ps(Cycle t) const { return static_cast<double>(t) * 1e6 / mhz_; }
  bool quick_adapt(Qp& q, bool loss, bool skip, double delay, double now);
  // One ACK's update: newly acknowledged bytes, the send time of the PSN it answers (< 0:
  // none), its ECN.
  void acked(uint32_t qi, Qp& q, Cycle t, uint64_t newly, double sent_ps, bool skip);
  void update_delay(Qp& q, double raw, bool skip) const;
  // When psn went (ps), or -1: resent, or no longer the newest PSN of its ring slot.
  double sent_time(const Qp& q, uint32_t psn) const;
  // A sample of a packet sent at `sent` (ps; < 0: resent, none) seen at now.
  void lower_base_rtt(Qp& q, double now, double sent) const;
  void set_bounds(Qp& q) const;
  void report(uint32_t qi, const Qp& q, Cycle t);

  NsccParams p_;
  bool spray_ = false;
  uet::EvMode ev_mode_ = uet::EvMode::kRoundRobin;
  double mhz_, line_;
  uint32_t mss_, window_;
  double network_rtt_, target_, qa_threshold_, alpha_, fi_, eta_, fi_scale_;
  double adjust_bytes_;
  QpTable<Qp> qps_;
  Sram* mem_;
  const LossRecovery* recovery_ = nullptr;  // its resends go past the window
  Counter &acks_, &quick_adapts_, &decreases_, &fast_increases_;
};

}  // namespace oonic::sender
