#include "model/sender/hpcc.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "model/sender/rate_pacing.h"

namespace oonic::sender {

void HpccParams::describe(ParamTable& t) {
  t.add("cc.hpcc.eta", &eta, "ratio", "tx.rate hpcc: the target utilisation (U_TARGET)", 0.01, 1);
  t.add("cc.hpcc.max_stage", &max_stage, "stage",
        "hpcc: additive steps before a multiplicative one even below the target (MI_THRESH, the "
        "paper's maxStage)",
        0, 1000);
  t.add("cc.hpcc.fast_react", &fast_react,
        "hpcc: every ACK updates the rate from the reference (FAST_REACT); off: only the "
        "once-per-RTT update does");
  t.add("cc.hpcc.rai_mbps", &rai_mbps, "Mbit/s", "hpcc: the additive step W_AI / T (RATE_AI)", 0,
        1e6);
  t.add("cc.hpcc.min_rate_mbps", &min_rate_mbps, "Mbit/s", "hpcc: the lowest rate (MIN_RATE)",
        0.001, 1e6);
  t.add("cc.hpcc.base_rtt_us", &base_rtt_us, "us",
        "hpcc: T, the base RTT of the utilisation and the window; 0: in a fabric the largest "
        "base RTT among its flows (ns-3 HPCC's GLOBAL_T), in a two-NIC run twice "
        "network.propagation_ns",
        0, 1e7);
  t.add("cc.hpcc.window", &window,
        "hpcc: keep at most the window in flight (HAS_WIN); off: the rate alone");
  t.add("cc.hpcc.window_bytes", &window_bytes, "byte",
        "hpcc: the window at line rate (HAS_WIN); 0: line rate x T", 0, 1e12);
  t.add("cc.hpcc.var_win", &var_win,
        "hpcc: the window scales with the rate, window_bytes x R / line (VAR_WIN)");
  t.add("cc.hpcc.int_hops", &int_hops, "hop",
        "hpcc: records in each data packet's INT stack (8 B each, + 4 B); 0: in a fabric the "
        "most switches on a flow's path, elsewhere 5 (ns-3 HPCC's maxHop)",
        0, wire::kMaxIntHops);
  t.add("cc.hpcc.pacing_overhead_bytes", &pacing_overhead_bytes, "byte",
        "hpcc: bytes added to a packet's payload when pacing it at the rate", 0, 10000);
}

Hpcc::Hpcc(const HpccParams& p, double clock_mhz, double line_gbps, uint32_t max_qps,
           const StatGroup& stats, Sram* mem, uint32_t pmtu_bytes)
    : p_(p),
      mhz_(clock_mhz),
      line_(line_gbps),
      t_ns_(p.base_rtt_us * 1000.0),
      window_(p.window_bytes ? static_cast<double>(p.window_bytes)
                             : line_gbps * p.base_rtt_us * 1000.0 / 8.0),
      hops_(p.int_hops ? p.int_hops : 5),
      pmtu_(pmtu_bytes),
      qps_(max_qps),
      mem_(mem),
      int_acks_(stats.counter("int_acks", "frame", "HPCC: responses with an INT stack taken")),
      updates_(stats.counter("rate_updates", "event",
                             "HPCC: reference updates (an ACK past lastUpdateSeq: once per RTT)")),
      fast_reacts_(stats.counter("fast_reacts", "event",
                                 "HPCC: rate changes from the reference on other ACKs")),
      decreases_(stats.counter("multiplicative_steps", "event",
                               "HPCC: R = Rc / (U / eta) + W_AI (U at or above eta, or maxStage)")),
      increases_(stats.counter("additive_steps", "event", "HPCC: R = Rc + W_AI")),
      paced_(stats.counter("paced_packets", "packet", "packets HPCC held back below line rate")) {
  if (!(line_gbps > 0) || !(clock_mhz > 0))
    throw Error(msg::kConfig, "tx.rate hpcc: the line rate and the clock must be positive");
  empty_.max_hops = static_cast<uint8_t>(std::min<uint32_t>(hops_, wire::kMaxIntHops));
  if (!(p.base_rtt_us > 0))
    throw Error(msg::kConfig,
                "cc.hpcc.base_rtt_us: HPCC needs its base RTT T (0 is resolved only in a fabric "
                "or a two-NIC run)");
}

Hpcc::Qp& Hpcc::qp(uint32_t qi) {
  if (qi >= qps_.size()) throw Error(msg::kModel, "hpcc: QP index " + std::to_string(qi));
  Qp& q = qps_[qi];
  if (q.rate == 0) q.rate = q.ref = line_, q.u = 1;  // a new QP: line rate, u as if full
  return q;
}

void Hpcc::touch(Cycle t, bool write) {
  touch_state(mem_, t, write);
}

Cycle Hpcc::tx_cycles(double gbps, uint32_t bytes) const {
  return pacing_cycles(gbps, bytes, p_.pacing_overhead_bytes, mhz_);
}

void Hpcc::set_rate(uint32_t qi, Qp& q, double gbps, Cycle t) {
  // The packet already booked moves with the rate (as DCQCN's pacing does).
  if (q.last_bytes && q.rate < line_) {
    const Cycle old_t = tx_cycles(q.rate, q.last_bytes), new_t = tx_cycles(gbps, q.last_bytes);
    q.next_avail = rebook(q.next_avail, old_t, new_t);
  }
  const bool changed = gbps != q.rate;
  q.rate = gbps;
  if (changed && on_rate_) on_rate_(qi, t, gbps);
}

double Hpcc::window_bytes(uint32_t qi) const {
  const Qp& q = qps_[qi];
  const double r = q.rate == 0 ? line_ : q.rate;
  return p_.var_win ? window_ * r / line_ : window_;
}

Cycle Hpcc::send_at(uint32_t qi, Cycle now, const SendState& s, bool) {
  if (!p_.window) return now;
  const int32_t flight = wire::psn_diff(s.send_psn(qi), s.una(qi));
  if (flight <= 0) return now;
  qp(qi);
  return static_cast<double>(flight) * pmtu_ >= window_bytes(qi) ? kNever : now;
}

Cycle Hpcc::earliest(uint32_t qi, Cycle now, uint32_t bytes) {
  Qp& q = qp(qi);
  touch(now, false);
  touch(now, true);
  if (q.rate >= line_ && q.next_avail <= now) {
    q.last_bytes = 0;  // at line rate: the MAC paces
    return now;
  }
  if (q.next_avail > now) paced_.inc();
  const Cycle t = std::max(now, q.next_avail);
  q.last_bytes = bytes;
  q.next_avail = t + tx_cycles(q.rate, bytes);
  return t;
}

void Hpcc::sent(uint32_t qi, Cycle start, uint32_t bytes) {
  Qp& q = qp(qi);
  if (q.rate >= line_) return;
  q.next_avail = std::max(q.next_avail, start + tx_cycles(q.rate, bytes));
}

bool Hpcc::on_ack(uint32_t, Cycle, uint32_t) {
  return p_.window;
}

bool Hpcc::on_int(uint32_t qi, Cycle t, uint32_t psn, const wire::IntStack& st,
                  const SendState& s) {
  Qp& q = qp(qi);
  int_acks_.inc();
  touch(t, false);
  touch(t, true);
  const uint32_t n = std::min<uint32_t>(st.nhop, wire::kMaxIntHops);
  const uint32_t multi = st.multi ? st.multi : 1;
  const uint32_t next = s.high(qi);   // the first PSN never sent (ns-3's snd_nxt)
  if (!q.have_refs || n != q.nhop) {  // the first stack, or another path: references only
    q.have_refs = true;
    q.nhop = static_cast<uint8_t>(n);
    for (uint32_t i = 0; i < n; ++i) q.hop[i] = st.hop[i];
    q.last_update_psn = next;
    return false;
  }
  // Past lastUpdateSeq (ns-3: ack_seq > m_lastUpdateSeq, its ack_seq the next expected):
  // a full update, once per RTT; else a fast reaction from the reference.
  const bool full = wire::psn_diff(wire::psn_add(psn, 1), q.last_update_psn) > 0;
  double U = 0, tau = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    const wire::IntHop& h = st.hop[i];
    const wire::IntHop& ref = q.hop[i];
    const double dt = static_cast<double>(h.time_delta_ns(ref));
    const double b = h.gbps();
    if (dt > 0 && b > 0) {
      const double tx_gbps = static_cast<double>(h.bytes_delta(ref, multi)) * 8.0 / dt;
      const double qlen = static_cast<double>(std::min(h.qlen_bytes(multi), ref.qlen_bytes(multi)));
      const double u = qlen * 8.0 / (b * t_ns_) + tx_gbps / b;
      if (u > U) U = u, tau = dt;
      any = true;
    }
    q.hop[i] = h;
  }
  bool kick = false;
  if (any && (full || p_.fast_react)) {
    tau = std::min(tau, t_ns_);
    q.u = (q.u * (t_ns_ - tau) + U * tau) / t_ns_;
    const double c = q.u / p_.eta;
    const double ai = p_.rai_mbps / 1000.0;
    double r;
    uint32_t stage;
    if (c >= 1 || q.stage >= p_.max_stage) {
      r = q.ref / c + ai;
      stage = 0;
      if (full) decreases_.inc();
    } else {
      r = q.ref + ai;
      stage = q.stage + 1;
      if (full) increases_.inc();
    }
    r = std::clamp(r, p_.min_rate_mbps / 1000.0, line_);
    kick = r > q.rate;  // a faster rate (and a larger window) may let the QP send now
    set_rate(qi, q, r, t);
    if (full) {
      q.ref = r, q.stage = stage;
      updates_.inc();
    } else {
      fast_reacts_.inc();
    }
  }
  if (full && wire::psn_diff(next, q.last_update_psn) > 0) q.last_update_psn = next;
  return kick;
}

void Hpcc::tag(uint32_t, wire::FrameSpec& f) {
  f.bth.resv7 |= wire::kBthIntBit;
  f.int_stack = &empty_;
}

}  // namespace oonic::sender
