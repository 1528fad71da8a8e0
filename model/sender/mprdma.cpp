// MP-RDMA's sender cores (see mprdma.h for the rules and the choices).
#include "model/sender/mprdma.h"

#include <algorithm>
#include <cmath>

#include "model/core/rng.h"

namespace oonic::sender {

void MpRdmaParams::describe(ParamTable& t) {
  t.add("cc.mprdma.delta_psns", &delta_psns, "PSN",
        "OOO-aware path selection: an ACK whose SACK is more than this below the highest SACKed "
        "PSN marks a slow path (cwnd -1, nothing clocked on it); 0: unbounded (no pruning)",
        0, 1u << 22);
  t.add("cc.mprdma.rtt_us", &rtt_us, "us",
        "base RTT: burst timer, new-path probing period, idle restart, synchronise delay, BDP",
        0.001, 1e6);
  t.add("cc.mprdma.initial_window", &initial_window, "packet",
        "IW: window at a QP's start, after idle and after a timeout, sent at once on random "
        "VPs; 0: one BDP (mac.rate_gbps x rtt_us / (nic.pmtu_bytes + 62 B))",
        0, 1u << 20);
  t.add("cc.mprdma.max_per_ack", &max_per_ack, "packet",
        "burst control: packets one ACK clocks out on its VP", 1, 64);
  t.add("cc.mprdma.burst_timer_rtts", &burst_timer_rtts, "RTT",
        "burst control: the rest of the window goes this long after it had room and no ACK "
        "clocked it, onto random VPs",
        0, 1000);
  t.add("cc.mprdma.probe_probability", &probe_probability, "probability",
        "new-path probing: once per RTT the next packet goes onto a new random VP with this "
        "probability",
        0, 1);
  t.add("cc.mprdma.idle_restart_rtts", &idle_restart_rtts, "RTT",
        "restart after idle: a QP that sends after this long with nothing in flight starts "
        "again from IW",
        0, 1e6);
  t.add("cc.mprdma.sync_alpha", &sync_alpha, "ratio",
        "synchronise: a Sync WQE's first packet waits alpha x delta x RTT / cwnd", 0, 1000);
  t.add("cc.mprdma.min_cwnd", &min_cwnd, "packet", "the window never falls below this", 0.01, 1e6);
  t.add("cc.mprdma.early_retransmit", &early_retransmit,
        "with no new data, the window resends unacknowledged PSNs below the highest SACKed one, "
        "each once");
  t.add("cc.mprdma.renack_frames", &renack_frames, "frame",
        "recovery mode: a NACK that still names the lost PSN this many feedback frames after "
        "it was resent sends it again (its resend was lost); 0: never (the timeout does)",
        0, 1u << 20);
  t.add("cc.mprdma.sack_skip", &sack_skip,
        "recovery mode and early retransmit skip PSNs an ACK already SACKed (a 256-PSN SACK "
        "record per QP); false: resend the whole span as before");
  t.add("cc.mprdma.cwnd_validation", &cwnd_validation,
        "cwnd grows (+1/cwnd per ACK) only while the window limits sending (awnd < 2 before "
        "the ACK), as RFC 7661; false (default, the paper's rule): every unmarked ACK grows it");
  t.add("cc.mprdma.recovery_hold_psns", &recovery_hold_psns, "PSN",
        "while in recovery mode, new data at or past snd_una + this waits (resends go on); "
        "0: off, new data keeps going past the receiver's L while a hole is open",
        0, 1u << 22);
  t.add("cc.mprdma.seed", &seed, "seed", "random VPs and probing draws (mixed with the QP index)",
        0, 1.8e19);
}

// ---- window core --------------------------------------------------------------------

MpRdmaWindow::MpRdmaWindow(const MpRdmaParams& p, double clock_mhz, double line_gbps,
                           uint32_t pmtu_bytes, uint32_t max_qps, const StatGroup& stats, Sram* mem)
    : p_(p),
      mhz_(clock_mhz),
      line_(line_gbps),
      pmtu_(pmtu_bytes),
      qps_(max_qps),
      mem_(mem),
      acks_(stats.counter("mprdma_acks", "frame", "MP-RDMA ACKs taken by the window")),
      ece_(stats.counter("ece_acks", "frame", "ACKs with ECE (cwnd -1/2)")),
      pruned_(stats.counter("pruned_acks", "frame",
                            "ACKs with SACK below snd_ooh - delta and no ReTx echo (cwnd -1, "
                            "their VP clocks nothing)")),
      reductions_(stats.counter("window_reductions", "event",
                                "path window reductions: an ACK could clock a packet but the QP "
                                "had none (cwnd -1)")),
      clocked_(stats.counter("clocked_packets", "packet",
                             "packets sent on the VP of the ACK that clocked them")),
      burst_timers_(stats.counter("burst_timers", "event", "burst timers armed")),
      burst_sends_(stats.counter("burst_packets", "packet",
                                 "packets the burst timer released onto random VPs")),
      probes_(stats.counter("probes", "packet", "packets sent onto a new random VP (probing)")),
      restarts_(stats.counter("restarts", "event",
                              "window (re)starts at IW: first send, restart after idle")),
      sync_delays_(stats.counter("sync_delays", "event", "synchronise messages delayed")),
      timeouts_(stats.counter("timeouts", "event", "timeouts the window took (cwnd = IW)")) {
  const double rtt_ns = p_.rtt_us * 1000.0;
  rtt_ = std::max<Cycle>(1, static_cast<Cycle>(std::llround(rtt_ns * mhz_ / 1000.0)));
  burst_ = static_cast<Cycle>(std::llround(p_.burst_timer_rtts * static_cast<double>(rtt_)));
  idle_ = static_cast<Cycle>(std::llround(p_.idle_restart_rtts * static_cast<double>(rtt_)));
  iw_ = p_.initial_window;
  if (!iw_) {
    const double bdp_bytes = line_ * rtt_ns / 8.0;
    iw_ = std::max<uint32_t>(1, static_cast<uint32_t>(bdp_bytes / (pmtu_bytes + 62.0)));
  }
}

MpRdmaWindow::Qp& MpRdmaWindow::qp(uint32_t qi) {
  return qps_[qi];
}

void MpRdmaWindow::touch(Cycle t) {
  if (!mem_) return;
  mem_->read(t, kMpRdmaStateBits);  // read-modify-write of the QP's state
  mem_->write(t, kMpRdmaStateBits);
}

void MpRdmaWindow::report(uint32_t qi, Qp& q, Cycle t) {
  // cwnd as a rate for rates.csv: cwnd packets of PMTU + 62 B per base RTT.
  if (on_rate_) on_rate_(qi, t, q.cwnd * (pmtu_ + 62.0) * 8.0 / (p_.rtt_us * 1000.0));
}

double MpRdmaWindow::draw(Qp& q) {
  q.rng = splitmix64(q.rng);
  return static_cast<double>(q.rng >> 11) * (1.0 / 9007199254740992.0);
}

uint16_t MpRdmaWindow::random_vp(Qp& q) {
  q.rng = splitmix64(q.rng);
  return static_cast<uint16_t>(49152 + (q.rng >> 32) % 16384);
}

Cycle MpRdmaWindow::sync_delay(double cwnd) const {
  // dt = alpha x delta / R_s, R_s = cwnd / RTT.
  const double d = p_.sync_alpha * p_.delta_psns * static_cast<double>(rtt_) / std::max(cwnd, 1e-9);
  return static_cast<Cycle>(std::ceil(d));
}

double MpRdmaWindow::awnd(uint32_t qi, const SendState& s) const {
  if (qi >= qps_.size()) return 0;
  const Qp& q = qps_[qi];
  const int32_t out = wire::psn_diff(s.high(qi), s.una(qi));
  return q.cwnd + static_cast<double>(q.inflate) - out;
}

void MpRdmaWindow::restart(uint32_t qi, Qp& q, Cycle now, const SendState& s) {
  if (!q.started) q.rng = splitmix64(p_.seed ^ splitmix64(uint64_t{qi} + 1));
  q.started = true;
  q.timed_out = false;
  q.cwnd = iw_;
  q.inflate = 0;
  q.acked = 0;
  q.iw_left = iw_;
  q.ntok = 0;
  q.burst_at = kNever;
  q.next_probe = now + rtt_;
  restarts_.inc();
  report(qi, q, now);
}

Cycle MpRdmaWindow::send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) {
  Qp& q = qp(qi);
  touch(now);
  if (!q.started) {
    if (mem_) mem_->occupy(now, kMpRdmaStateBits);
    restart(qi, q, now, s);
  } else if (s.una(qi) == s.high(qi) && now > q.last + idle_ && q.sync_at == kNever) {
    restart(qi, q, now, s);
  }
  // What moved snd_una without an MP-RDMA ACK of ours (a READ response, another
  // receiver's cumulative ACK) comes off inflate here.
  if (q.acked && !q.mp_acks) cumulative_clock(qi, q, now);
  settle(q, 0);
  if (q.timed_out) {
    // Every outstanding packet is taken as gone: the whole window may go again.
    q.timed_out = false;
    q.acked = 0;
    q.inflate = wire::psn_diff(s.high(qi), s.una(qi));
    q.iw_left = static_cast<uint32_t>(std::max(1.0, q.cwnd));
    q.ntok = 0;
    q.burst_at = kNever;
  }
  if (awnd(qi, s) < 1) {
    q.burst_at = kNever;  // the burst ends; an ACK reopens the window
    q.iw_left = 0;
    return kNever;
  }
  if (sync_first) {
    if (q.sync_at == kNever) {
      q.sync_at = now + sync_delay(q.cwnd);
      sync_delays_.inc();
    }
    if (now < q.sync_at) return q.sync_at;
  }
  if (q.iw_left > 0 || q.ntok > 0) return now;
  if (q.burst_at == kNever) {
    q.burst_at = now + burst_;
    burst_timers_.inc();
  }
  return std::max(now, q.burst_at);
}

uint16_t MpRdmaWindow::picked(uint32_t qi, Cycle now, uint32_t psn, bool retx,
                              uint16_t default_port) {
  (void)psn, (void)default_port;
  Qp& q = qp(qi);
  uint16_t vp;
  if (q.iw_left > 0) {
    --q.iw_left;
    vp = random_vp(q);
  } else if (q.ntok > 0) {
    vp = q.tok[0];
    std::copy(q.tok + 1, q.tok + q.ntok, q.tok);
    --q.ntok;
    clocked_.inc();
  } else {
    vp = random_vp(q);
    burst_sends_.inc();
  }
  if (now >= q.next_probe) {
    q.next_probe = now + rtt_;
    if (draw(q) < p_.probe_probability) {
      vp = random_vp(q);
      probes_.inc();
    }
  }
  if (retx) --q.inflate;  // a resend re-enters the network without moving snd_nxt
  if (q.sync_at != kNever && now >= q.sync_at) q.sync_at = kNever;
  q.last = std::max(q.last, now);
  return vp;
}

bool MpRdmaWindow::on_feedback(uint32_t qi, Cycle t, const wire::SchemeFeedback& fb,
                               const SendState& s) {
  using F = wire::SchemeFeedback;
  if (fb.type != F::kMpAck && fb.type != F::kNack) return false;
  if (qi >= qps_.size() || !qps_[qi].started) return false;
  Qp& q = qps_[qi];
  touch(t);
  q.last = std::max(q.last, t);
  q.mp_acks = true;
  // The packet this frame answers left the network (a NACK: the receiver dropped it).
  settle(q, 1);
  if (fb.type == F::kNack) {
    // The dropped packet did reach the receiver: its VP is alive. It clocks one packet
    // (the recovery core's resend) onto that VP.
    if (awnd(qi, s) < 1) return false;
    push_token(q, fb.vp);
    return true;
  }
  acks_.inc();
  const uint32_t sack = fb.psn[1];
  const bool ece = fb.info & 1, retx_echo = fb.info & 2;
  if (!q.have_ooh || wire::psn_diff(sack, q.ooh) > 0) q.ooh = sack, q.have_ooh = true;
  const bool slow = !retx_echo && p_.delta_psns > 0 &&
                    wire::psn_diff(sack, q.ooh) < -static_cast<int32_t>(p_.delta_psns);
  const double before = q.cwnd;
  if (slow) {
    q.cwnd -= 1;
    pruned_.inc();
  } else if (ece) {
    q.cwnd -= 0.5;
    ece_.inc();
  } else if (!p_.cwnd_validation || awnd(qi, s) < 2) {
    q.cwnd += 1.0 / q.cwnd;
  }
  q.cwnd = std::max(q.cwnd, p_.min_cwnd);
  bool open = false;
  if (!slow) {
    const double a = awnd(qi, s);
    if (a >= 1) {
      const bool data = s.has_new(qi) || (recovery_ && recovery_->has_resend(s, qi));
      if (!data) {
        q.cwnd = std::max(q.cwnd - 1, p_.min_cwnd);
        reductions_.inc();
      } else {
        const uint32_t n = std::min<uint32_t>(p_.max_per_ack, static_cast<uint32_t>(std::floor(a)));
        for (uint32_t i = 0; i < n; ++i) push_token(q, fb.vp);
        open = true;
      }
    }
  }
  if (q.cwnd != before) report(qi, q, t);
  return open;
}

void MpRdmaWindow::push_token(Qp& q, uint16_t vp) {
  if (q.ntok == kMaxTokens) {  // the oldest goes
    std::copy(q.tok + 1, q.tok + q.ntok, q.tok);
    --q.ntok;
  }
  q.tok[q.ntok++] = vp;
}

void MpRdmaWindow::settle(Qp& q, int64_t plus) {
  q.inflate = std::max<int64_t>(0, q.inflate + plus - static_cast<int64_t>(q.acked));
  q.acked = 0;
}

void MpRdmaWindow::cumulative_clock(uint32_t qi, Qp& q, Cycle t) {
  // A receiver without MP-RDMA's per-packet ACK (ORNIC, Eunomia, ...): what its ACKs
  // moved snd_una by clocks the window, +1/cwnd per PSN, at most max_per_ack packets
  // onto random VPs (it echoes none), the rest by the burst timer.
  const uint32_t k = q.acked;
  const double before = q.cwnd;
  for (uint32_t i = 0; i < k; ++i) q.cwnd += 1.0 / q.cwnd;
  const uint32_t n = std::min(p_.max_per_ack, k);
  for (uint32_t i = 0; i < n; ++i) push_token(q, random_vp(q));
  if (q.cwnd != before) report(qi, q, t);
}

bool MpRdmaWindow::on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) {
  if (qi >= qps_.size() || !qps_[qi].started) return false;
  Qp& q = qps_[qi];
  // inflate -= k is applied with the ACK that moved snd_una (on_feedback, next), or at the
  // next send_at when no ACK of ours did (a READ response, a standard ACK).
  q.acked += acked_psns;
  q.last = std::max(q.last, t);
  return true;
}

void MpRdmaWindow::on_cnp(uint32_t qi, Cycle t) {
  // Only a receiver without MP-RDMA's ACK sends CNPs (its ECE rides on every ACK).
  if (qi >= qps_.size() || !qps_[qi].started || qps_[qi].mp_acks) return;
  Qp& q = qps_[qi];
  touch(t);
  ece_.inc();
  q.cwnd = std::max(q.cwnd - 0.5, p_.min_cwnd);
  report(qi, q, t);
}

void MpRdmaWindow::on_timeout(uint32_t qi, Cycle t) {
  if (qi >= qps_.size() || !qps_[qi].started) return;
  Qp& q = qps_[qi];
  touch(t);
  timeouts_.inc();
  q.cwnd = iw_;
  q.timed_out = true;
  report(qi, q, t);
}

// ---- recovery core --------------------------------------------------------------------

MpRdmaRecovery::MpRdmaRecovery(const MpRdmaParams& p, uint32_t max_qps, const StatGroup& stats)
    : early_(p.early_retransmit),
      sack_skip_(p.sack_skip),
      hold_(p.recovery_hold_psns),
      renack_(p.renack_frames),
      qps_(max_qps),
      nacks_(stats.counter("nacks", "frame", "MP-RDMA NACKs taken (a packet beyond rcv_nxt + L)")),
      entered_(stats.counter("recoveries", "event", "recovery mode entered (NACK or timeout)")),
      exited_(
          stats.counter("recovery_exits", "event", "recovery mode left (snd_una passed recovery)")),
      resends_(stats.counter("recovery_resends", "packet", "PSNs resent in recovery mode")),
      early_resends_(stats.counter("early_resends", "packet",
                                   "PSNs resent by early retransmit (no new data)")),
      tagged_(stats.counter("tagged", "packet", "data packets carrying the MP-RDMA extension")),
      relost_(stats.counter("lost_resends", "packet",
                            "the NACKed PSN sent again in recovery mode: its resend was lost "
                            "(cc.mprdma.renack_frames)")),
      skipped_(stats.counter("sacked_skips", "packet",
                             "PSNs recovery mode or early retransmit did not resend: an ACK "
                             "had SACKed them (cc.mprdma.sack_skip)")) {}

MpRdmaRecovery::Qp& MpRdmaRecovery::qp(uint32_t qi) {
  return qps_[qi];
}

void MpRdmaRecovery::advanced(uint32_t qi, uint32_t from, uint32_t to) {
  Qp& q = qp(qi);
  q.sacked.clear(from, to);  // PSNs now below snd_una leave the SACK record
  if (q.on && wire::psn_diff(to, q.recovery) >= 0) {
    q.on = false;
    exited_.inc();
  }
}

void MpRdmaRecovery::on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) {
  using F = wire::SchemeFeedback;
  Qp& q = qp(qi);
  if (q.on) ++q.since;  // feedback frames since the lost PSN was last (re)sent
  if (fb.type == F::kMpAck) {
    const uint32_t sack = fb.psn[1];
    if (!q.have_ooh || wire::psn_diff(sack, q.ooh) > 0) q.ooh = sack, q.have_ooh = true;
    const int32_t d = wire::psn_diff(sack, s.una(qi));
    if (d >= 0 && d < static_cast<int32_t>(kSackRing)) q.sacked.mark(sack);
    return;
  }
  if (fb.type != F::kNack) return;
  nacks_.inc();
  const uint32_t lost = fb.psn[0];
  if (wire::psn_diff(lost, s.una(qi)) < 0) return;  // already acknowledged
  const bool span_done = wire::psn_diff(q.retx, q.recovery) >= 0;
  if (!q.on || (span_done && wire::psn_diff(lost, q.retx) < 0)) {
    q.on = true;
    q.recovery = s.high(qi);
    q.retx = lost;
    q.lost = lost;
    q.since = 0;
    entered_.inc();
  } else if (renack_ && lost == q.lost && wire::psn_diff(lost, q.retx) < 0 && q.since >= renack_) {
    // The receiver still names the PSN resent renack_frames feedback frames ago: that
    // resend was lost too (on a dead path, say). Send it again now, ahead of the span.
    if (s.resend(qi, lost)) relost_.inc();
    q.since = 0;
  }
}

void MpRdmaRecovery::on_timeout(SendState& s, uint32_t qi) {
  Qp& q = qp(qi);
  q.on = true;
  q.recovery = s.high(qi);
  q.retx = q.lost = s.una(qi);
  q.since = 0;
  entered_.inc();
}

uint32_t MpRdmaRecovery::skip_sacked(const Qp& q, uint32_t p, uint32_t end, uint32_t una) const {
  if (!sack_skip_) return p;
  while (wire::psn_diff(p, end) < 0 && wire::psn_diff(p, una) >= 0 &&
         wire::psn_diff(p, una) < static_cast<int32_t>(kSackRing) && sacked(q, p))
    p = wire::psn_add(p, 1);
  return p;
}

bool MpRdmaRecovery::early_due(const SendState& s, uint32_t qi, const Qp& q, uint32_t* psn) const {
  if (!early_ || !q.have_ooh || s.has_new(qi)) return false;
  const uint32_t una = s.una(qi);
  const uint32_t p = skip_sacked(q, wire::psn_diff(q.early, una) > 0 ? q.early : una, q.ooh, una);
  if (wire::psn_diff(p, q.ooh) >= 0 || wire::psn_diff(p, s.high(qi)) >= 0) return false;
  *psn = p;
  return true;
}

bool MpRdmaRecovery::holds(uint32_t qi, bool, uint32_t send_psn, uint32_t una) {
  if (!hold_ || qi >= qps_.size() || !qps_[qi].on) return false;
  return wire::psn_diff(send_psn, una) >= static_cast<int32_t>(hold_);
}

bool MpRdmaRecovery::has_resend(const SendState& s, uint32_t qi) const {
  if (qi >= qps_.size()) return false;
  const Qp& q = qps_[qi];
  uint32_t p;
  if (q.on) {
    p = skip_sacked(q, wire::psn_diff(q.retx, s.una(qi)) > 0 ? q.retx : s.una(qi), q.recovery,
                    s.una(qi));
    return wire::psn_diff(p, q.recovery) < 0;
  }
  return early_due(s, qi, q, &p);
}

bool MpRdmaRecovery::next_resend(SendState& s, uint32_t qi, uint32_t* psn) {
  Qp& q = qp(qi);
  if (q.on) {
    const uint32_t from = wire::psn_diff(q.retx, s.una(qi)) > 0 ? q.retx : s.una(qi);
    const uint32_t p = skip_sacked(q, from, q.recovery, s.una(qi));
    if (p != from) skipped_.inc(static_cast<uint64_t>(wire::psn_diff(p, from)));
    if (wire::psn_diff(p, q.recovery) >= 0) {
      q.retx = p;
      return false;
    }
    *psn = p;
    q.retx = wire::psn_add(p, 1);
    resends_.inc();
    return true;
  }
  if (!early_due(s, qi, q, psn)) return false;
  const uint32_t from = wire::psn_diff(q.early, s.una(qi)) > 0 ? q.early : s.una(qi);
  if (*psn != from) skipped_.inc(static_cast<uint64_t>(wire::psn_diff(*psn, from)));
  q.early = wire::psn_add(*psn, 1);
  early_resends_.inc();
  return true;
}

void MpRdmaRecovery::tag(wire::FrameSpec& f, const PacketTag& t) {
  f.bth.resv7 |= wire::kBthMpRdmaMetaBit;
  f.mprdma.retx = t.retx;
  f.mprdma.sync = t.sync;
  f.mprdma.ipsn = t.head & wire::kPsnMask;
  f.mprdma.msn = t.msn & wire::kPsnMask;
  tagged_.inc();
}

}  // namespace oonic::sender
