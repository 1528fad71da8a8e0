#include "model/sender/nscc.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "model/sender/rate_pacing.h"

namespace oonic::sender {

namespace {
constexpr double kRefGbps = 100, kRefRttPs = 12e6;  // htsim's reference network
constexpr double kFastIncreasePs = 1e6;             // fast increase below 1 us of delay

uet::EvMode ev_mode(const std::string& spray) {              // once, at construction
  if (spray == "oblivious") return uet::EvMode::kOblivious;  // once
  if (spray == "avoid") return uet::EvMode::kAvoid;          // once
  if (spray == "mixed") return uet::EvMode::kMixed;          // once
  return uet::EvMode::kRoundRobin;
}
}  // namespace

void NsccParams::describe(ParamTable& t) {
  t.add("cc.nscc.network_rtt_us", &network_rtt_us, "us",
        "tx.rate nscc: network_rtt, the base RTT that sizes BDP, maxwnd and the scaling; 0: in "
        "a fabric the largest base RTT among its flows, in a two-NIC run twice "
        "network.propagation_ns",
        0, 1e7);
  t.add("cc.nscc.target_qdelay_us", &target_qdelay_us, "us",
        "nscc: target_Qdelay, the queueing delay it steers to; 0: in a fabric whose switches "
        "trim (switch.trim) 0.75 x network_rtt, else network_rtt (htsim's choices)",
        0, 1e7);
  t.add("cc.nscc.qa_gate", &qa_gate, "shift",
        "nscc: quick adapt cuts the window only when fewer than maxwnd >> qa_gate bytes were "
        "acknowledged in its period",
        0, 30);
  t.add("cc.nscc.quick_adapt", &quick_adapt, "nscc: quick adapt on (htsim's !disable_quick_adapt)");
  t.add("cc.nscc.gamma", &gamma, "ratio", "nscc: the multiplicative decrease's gain", 0, 1);
  t.add("cc.nscc.delay_alpha", &delay_alpha, "ratio", "nscc: avg_delay's EWMA weight", 0, 1);
  t.add("cc.nscc.maxwnd_bdp", &maxwnd_bdp, "BDP", "nscc: the largest window, in BDPs", 0.01, 100);
  t.add("cc.nscc.init_cwnd_pkts", &init_cwnd_pkts, "MSS",
        "nscc: a QP's first window (htsim's -cwnd; its published permutations ran 75); 0: "
        "maxwnd",
        0, 1u << 20);
  t.add("cc.nscc.base_rtt_on_nack", &base_rtt_on_nack,
        "nscc: a NACK's RTT (its packet's send time to the NACK) lowers the base RTT, BDP and "
        "maxwnd as an ACK's does (htsim's update_base_rtt_on_nack, on there: a packet trimmed "
        "early comes back as a NACK sooner than any ACK)");
  t.add("cc.nscc.adjust_bytes_mss", &adjust_bytes_mss, "MSS",
        "nscc: acknowledged bytes between window adjustments (adjust_bytes_threshold)", 1, 1e6);
  t.add("cc.nscc.spray", &spray,
        "nscc: each packet's UDP source port an entropy value (UET's spraying): off, oblivious "
        "(random), rr (round robin), avoid (round robin skipping values an ECN-marked ACK "
        "or a NACK penalised) or mixed (htsim's default: a value an unmarked ACK came back on "
        "is used again, else avoid's choice); avoid and mixed need ACKs that name the entropy "
        "value (nic.ordering mprdma, uet-rud or uet-rod); over cc.nscc.paths values",
        {"off", "oblivious", "rr", "avoid", "mixed"});
  t.add("cc.nscc.paths", &paths, "value", "nscc: entropy values a QP sprays over (a power of two)",
        1, 65536);
}

void NsccParams::validate() const {
  if (paths == 0 || (paths & (paths - 1)))
    throw Error(msg::kConfig, "cc.nscc.paths: " + std::to_string(paths) + " is not a power of two");
}

Nscc::Nscc(const NsccParams& p, double clock_mhz, double line_gbps, uint32_t pmtu_bytes,
           uint32_t window_psns, uint32_t max_qps, const StatGroup& stats, Sram* mem)
    : p_(p),
      spray_(p.spray != "off"),  // once
      ev_mode_(ev_mode(p.spray)),
      mhz_(clock_mhz),
      line_(line_gbps),
      mss_(pmtu_bytes),
      window_(std::max<uint32_t>(window_psns, 1)),
      qps_(max_qps),
      mem_(mem),
      acks_(stats.counter("nscc_acks", "frame", "NSCC: ACKs that moved the window")),
      quick_adapts_(stats.counter("quick_adapts", "event",
                                  "NSCC: quick adapt set the window to the bytes acknowledged")),
      decreases_(stats.counter("multiplicative_decreases", "event",
                               "NSCC: windows cut for ECN with the average delay above target")),
      fast_increases_(stats.counter("fast_increases", "event",
                                    "NSCC: window steps of fast increase (delay under 1 us)")) {
  if (!(line_gbps > 0) || !(clock_mhz > 0) || !mss_)
    throw Error(msg::kConfig, "tx.rate nscc: the line rate, clock and PMTU must be positive");
  p.validate();
  if (!(p.network_rtt_us > 0))
    throw Error(msg::kConfig,
                "cc.nscc.network_rtt_us: NSCC needs the network's base RTT (0 is resolved only "
                "in a fabric or a two-NIC run)");
  network_rtt_ = p.network_rtt_us * 1e6;
  target_ = p.target_qdelay_us > 0 ? p.target_qdelay_us * 1e6 : network_rtt_;
  qa_threshold_ = 4 * target_;
  const double a = line_ * network_rtt_ / (kRefGbps * kRefRttPs);  // BDP / reference BDP
  const double b = target_ / kRefRttPs;
  alpha_ = 4.0 * mss_ * a * b / target_;
  fi_ = 5.0 * mss_ * a;
  eta_ = 0.15 * mss_ * a;
  fi_scale_ = 0.25 * a;
  adjust_bytes_ = static_cast<double>(p.adjust_bytes_mss) * mss_;
}

Nscc::Qp& Nscc::qp(uint32_t qi) {
  if (qi >= qps_.size()) throw Error(msg::kModel, "nscc: QP index " + std::to_string(qi));
  return qps_[qi];
}

void Nscc::set_bounds(Qp& q) const {
  q.cwnd = std::clamp(q.cwnd, static_cast<double>(mss_), std::max<double>(q.maxwnd, mss_));
}

void Nscc::report(uint32_t qi, const Qp& q, Cycle t) {
  if (on_rate_) on_rate_(qi, t, std::min(line_, q.cwnd * 8 / (q.base_rtt / 1000.0)));
}

Cycle Nscc::send_at(uint32_t qi, Cycle now, const SendState& s, bool) {
  // In flight: sent and neither acknowledged nor SACKed (UET's recovery keeps the SACKs),
  // nor, outside a recovery episode, queued to be sent again (htsim takes a NACKed packet
  // out of its flight until it goes again).
  int32_t flight = wire::psn_diff(s.send_psn(qi), s.una(qi));
  if (flight > 0 && recovery_) flight -= static_cast<int32_t>(recovery_->sacked_past_una(qi));
  Qp& q = qp(qi);
  if (q.rto) {
    if (!q.rto_una_set) q.rto_una = s.una(qi), q.rto_una_set = true;
    if (s.una(qi) != q.rto_una) q.rto = false;
  }
  const bool episode = q.rto || (recovery_ && recovery_->in_loss_recovery(qi));
  if (flight > 0 && !episode) flight -= static_cast<int32_t>(s.queued_resends(qi));
  if (!q.started) return now;
  // htsim's AR: the packet after which the window admits no other asks for an ACK at once
  // (so a coalescing receiver answers a window of one packet without waiting).
  q.ar = static_cast<double>(std::max(flight, 0) + 2) * mss_ > q.cwnd;
  if (flight <= 0) return now;
  // Resends pass the window only in a loss-recovery episode (htsim's can_send_NSCC) or
  // after a timeout until una moves, and the recovery core's own queue (MP-RDMA's) always.
  if ((recovery_ && recovery_->has_resend(s, qi)) || (episode && s.queued_resends(qi) > 0))
    return now;
  return static_cast<double>(flight + 1) * mss_ > q.cwnd ? kNever : now;
}

uint16_t Nscc::picked(uint32_t qi, Cycle now, uint32_t psn, bool retx, uint16_t port) {
  Qp& q = qp(qi);
  touch_state(mem_, now, true);
  if (!q.started) {
    q.started = true;
    q.base_rtt = network_rtt_;
    q.maxwnd = p_.maxwnd_bdp * line_ * network_rtt_ / 8000.0;  // Gbit/s x ps / 8000 = bytes
    q.cwnd = p_.init_cwnd_pkts ? static_cast<double>(p_.init_cwnd_pkts) * mss_ : q.maxwnd;
    set_bounds(q);
    q.first_psn = q.next_psn = psn;
    q.last_adjust = ps(now);
    q.sent.assign(window_, -1.0);
    q.sent_psn.assign(window_, 0);
  }
  q.sent[psn % window_] = retx ? -1.0 : ps(now);  // a resent PSN gives no RTT sample
  q.sent_psn[psn % window_] = psn & wire::kPsnMask;
  if (wire::psn_diff(psn + 1, q.next_psn) > 0) q.next_psn = (psn + 1) & wire::kPsnMask;
  if (!spray_) return port;
  if (!q.ev)  // seeded by the QP's own port (drawn from the run seed) and index
    q.ev = std::make_shared<uet::EntropyCore>(
        uet::EntropyParams{p_.paths, ev_mode_},
        Rng(uint64_t{port} * 0x9E3779B97F4A7C15ull ^ (uint64_t{qi} << 20)));
  return q.ev->next();
}

double Nscc::sent_time(const Qp& q, uint32_t psn) const {
  // A slot holds the newest PSN picked into it: an answer about an older one (a late
  // duplicate's ACK a window below, or a PSN across the wrap, since 2^24 is no multiple
  // of most windows) would read a later packet's time, an RTT of nanoseconds that then
  // held base_rtt, and with it maxwnd, near zero.
  const uint32_t slot = psn % window_;
  return q.sent_psn[slot] == (psn & wire::kPsnMask) ? q.sent[slot] : -1.0;
}

void Nscc::lower_base_rtt(Qp& q, double now, double sent) const {
  if (sent < 0 || now < sent || now - sent >= q.base_rtt) return;
  q.base_rtt = now - sent;  // a lower base RTT: BDP and maxwnd follow
  q.maxwnd = p_.maxwnd_bdp * line_ * q.base_rtt / 8000.0;
}

void Nscc::update_delay(Qp& q, double raw, bool skip) const {
  const double delay = raw - q.base_rtt;
  const double a = p_.delay_alpha;
  if (!skip && delay > target_)
    q.avg_delay = a * q.base_rtt * 0.25 + (1 - a) * q.avg_delay;
  else if (delay > 5 * q.base_rtt)
    q.avg_delay = 0.0125 * delay + (1 - 0.0125) * q.avg_delay;
  else
    q.avg_delay = a * delay + (1 - a) * q.avg_delay;
}

bool Nscc::quick_adapt(Qp& q, bool loss, bool skip, double delay, double now) {
  if (!p_.quick_adapt) return false;
  bool done = false;
  if (q.ignored < q.to_ignore && skip) {
    done = true;  // the ECN of bytes sent before the last cut
  } else if (now > q.qa_end) {
    const double gate = std::ldexp(q.maxwnd, -static_cast<int>(p_.qa_gate));
    if (q.qa_end != 0 && (q.trigger_qa || loss || delay > qa_threshold_) &&
        static_cast<double>(q.achieved) < gate) {
      q.cwnd = std::max<double>(static_cast<double>(q.achieved), mss_);
      const uint32_t una = (q.first_psn + q.acked) & wire::kPsnMask;
      q.to_ignore = static_cast<int64_t>(std::max(0, wire::psn_diff(q.next_psn, una))) * mss_;
      q.ignored = 0;
      q.trigger_qa = false;
      done = true;
      quick_adapts_.inc();
    }
    q.achieved = 0;
    q.qa_end = now + q.base_rtt + target_;
  }
  if (done) q.inc = 0, q.received = 0;
  return done;
}

bool Nscc::on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) {
  Qp& q = qp(qi);
  if (!q.started || !acked_psns) return false;
  q.acked += acked_psns;
  if (q.per_packet) return true;  // the per-packet ACK frames carry the update
  const bool skip = q.ecn;        // a CNP since the last ACK: this ACK echoes ECN
  q.ecn = false;
  // The delay sample: the RTT of the last PSN acknowledged, if it went once.
  const uint32_t last = (q.first_psn + q.acked - 1) & wire::kPsnMask;
  acked(qi, q, t, uint64_t{acked_psns} * mss_, sent_time(q, last), skip);
  return true;
}

bool Nscc::on_feedback(uint32_t qi, Cycle t, const wire::SchemeFeedback& fb, const SendState&) {
  using F = wire::SchemeFeedback;
  if (fb.type != F::kMpAck && fb.type != F::kNack && fb.type != F::kUetAck) return false;
  if (qi >= qps_.size() || !qps_[qi].started) return false;
  Qp& q = qps_[qi];
  q.per_packet = true;
  if (fb.type == F::kNack) {  // the receiver dropped the packet sent on entropy value fb.vp
    touch_state(mem_, t, true);
    // htsim: a NACK for a packet trimmed at its last hop counts as a good path (PATH_GOOD).
    if (q.ev) q.ev->on_nack(fb.vp, wire::uet_nack_last_hop(fb, 0));
    const double now = ps(t), before = q.cwnd;
    const uint32_t n = wire::nack_entries(fb);  // UET's merged NACKs name up to 3 PSNs
    q.ignored += static_cast<int64_t>(mss_) * n;
    if (p_.base_rtt_on_nack) lower_base_rtt(q, now, sent_time(q, fb.psn[0]));
    update_delay(q, q.base_rtt + network_rtt_, true);
    q.trigger_qa = true;
    if (!quick_adapt(q, true, true, 0, now)) {
      q.cwnd -= static_cast<double>(mss_) * n;
      set_bounds(q);
    }
    if (q.cwnd != before) report(qi, q, t);
    return true;
  }
  const bool ece = fb.info & 1, retx_echo = fb.info & 2;
  if (fb.type == F::kUetAck) {  // UET's ACK: the packets it covers, the delay of its PSN
    if (q.ev) ece ? q.ev->on_ecn(fb.vp) : q.ev->on_good(fb.vp);
    acked(qi, q, t, uint64_t{wire::uet_coalesced(fb)} * mss_, sent_time(q, fb.psn[0]), ece);
    return true;
  }
  if (q.ev) ece ? q.ev->on_ecn(fb.vp) : q.ev->on_good(fb.vp);
  acked(qi, q, t, mss_, retx_echo ? -1.0 : sent_time(q, fb.psn[1]), ece);
  return true;
}

void Nscc::acked(uint32_t qi, Qp& q, Cycle t, uint64_t newly, double sent, bool skip) {
  touch_state(mem_, t, false);
  touch_state(mem_, t, true);
  acks_.inc();
  const double now = ps(t);
  const double before = q.cwnd;
  q.achieved += newly, q.received += newly, q.ignored += static_cast<int64_t>(newly);
  double delay = q.avg_delay;
  if (sent >= 0 && now >= sent) {
    const double raw = now - sent;
    lower_base_rtt(q, now, sent);
    if (raw >= q.base_rtt) {
      update_delay(q, raw, skip);
      delay = raw - q.base_rtt;
    }
  }
  if (!quick_adapt(q, false, skip, delay, now)) {
    if (!skip && delay >= target_) {
      q.inc += fi_ * static_cast<double>(newly);  // fair increase
    } else if (!skip) {
      // Fast increase near an empty path, else proportional to the delay's headroom.
      if (delay < kFastIncreasePs) {
        q.fi_count += static_cast<double>(newly);
        if (q.fi_count > q.cwnd || q.increase) {
          q.cwnd += static_cast<double>(newly) * fi_scale_;
          q.increase = true;
          fast_increases_.inc();
        } else {
          q.increase = false;
        }
      } else {
        q.fi_count = 0, q.increase = false;
      }
      if (!q.increase) q.inc += alpha_ * static_cast<double>(newly) * (target_ - delay);
    } else if (delay >= target_) {
      q.increase = false, q.fi_count = 0;
      if (q.avg_delay > target_ && now - q.last_dec > q.base_rtt) {
        q.cwnd *= std::max(1 - p_.gamma * (q.avg_delay - target_) / q.avg_delay, 0.5);
        q.last_dec = now;
        decreases_.inc();
      }
    }
    set_bounds(q);
    if (static_cast<double>(q.received) > adjust_bytes_ || now - q.last_adjust > network_rtt_) {
      q.cwnd += q.inc / q.cwnd;
      if (now - q.last_adjust >= network_rtt_) q.cwnd += eta_, q.last_adjust = now;
      q.inc = 0, q.received = 0;
    }
    set_bounds(q);
  }
  if (q.cwnd != before) report(qi, q, t);
}

void Nscc::on_cnp(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  touch_state(mem_, t, true);
  q.ecn = true;
}

void Nscc::on_timeout(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  touch_state(mem_, t, true);
  q.trigger_qa = true;  // the next ACK's quick adapt may cut to what was delivered
  q.rto = true, q.rto_una_set = false;
}

}  // namespace oonic::sender
