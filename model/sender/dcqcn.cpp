#include "model/sender/dcqcn.h"

#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "model/sender/rate_pacing.h"

namespace oonic::sender {

void DcqcnParams::describe(ParamTable& t) {
  t.add("cc.dcqcn.g", &g, "ratio", "DCQCN alpha gain g (ns-3 HPCC: 1/256)", 1.0 / 65536, 1);
  t.add("cc.dcqcn.rai_mbps", &rai_mbps, "Mbit/s", "additive increase of the target rate", 0, 1e6);
  t.add("cc.dcqcn.rhai_mbps", &rhai_mbps, "Mbit/s", "hyper increase of the target rate", 0, 1e6);
  t.add("cc.dcqcn.rate_timer_us", &rate_timer_us, "us",
        "rate-increase timer period, started by a rate decrease", 0.001, 1e6);
  t.add("cc.dcqcn.alpha_interval_us", &alpha_interval_us, "us", "alpha update period", 0.001, 1e6);
  t.add("cc.dcqcn.decrease_interval_us", &decrease_interval_us, "us",
        "rate-decrease check period: at most one decrease per period, if a CNP came", 0.001, 1e6);
  t.add("cc.dcqcn.fast_recovery_stages", &fast_recovery_stages, "stage",
        "increase-timer stages of fast recovery before additive increase (F)", 0, 1000);
  t.add("cc.dcqcn.min_rate_mbps", &min_rate_mbps, "Mbit/s", "the rate never drops below this",
        0.001, 1e6);
  t.add("cc.dcqcn.clamp_target", &clamp_target,
        "a decrease always sets the target rate to the current rate (off: only after an "
        "increase stage)");
  t.add("cc.dcqcn.rate_on_first_cnp", &rate_on_first_cnp, "ratio",
        "the first CNP sets both rates to this fraction of the current rate", 0.001, 1);
  t.add("cc.dcqcn.pacing_overhead_bytes", &pacing_overhead_bytes, "byte",
        "bytes counted per packet beside the payload when pacing (Ethernet, IPv4, UDP, BTH, "
        "ICRC, FCS)",
        0, 1024);
  t.add("cc.dcqcn.byte_counter_bytes", &byte_counter_bytes, "byte",
        "reaction point byte counter: every this many bytes a QP sends after a decrease is an "
        "increase event beside the timer's (0: timer only, as ns-3 HPCC and CX4; the paper: 10 MB)",
        0, 1e12);
  t.add("cc.dcqcn.window_bytes", &window_bytes, "byte",
        "a sender window on top of the rate: a QP with this many bytes unacknowledged waits for "
        "an ACK (0: none; ns-3 HPCC's HAS_WIN with its maxBdp, the largest base RTT x host rate). "
        "It holds resends too: with a selective recovery a full window waits for an ACK before "
        "resending",
        0, 1e12);
  t.add("cc.dcqcn.window_scales", &window_scales,
        "the window is window_bytes x the current rate / line rate (ns-3 HPCC's VAR_WIN), so a "
        "QP whose rate DCQCN cut keeps fewer bytes in flight");
  t.add("cc.dcqcn.preset", &preset,
        "the defaults of every cc.dcqcn.* key (and cc.cnp_interval_us) not set explicitly: hpcc = "
        "ns-3 HPCC's mix/config.txt (the CX4 behaviour most published results use), paper = the "
        "SIGCOMM'15 paper (docs/FABRIC.md)",
        {"hpcc", "paper"});
  // The paper's constants as its authors' simulator and fluid model give them:
  // K = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mbit/s, g = 1/256, N = 50 us.
  // R_HAI is not in the paper's text we could check: 200 Mbit/s, as in the first
  // author's ns-3 configuration.
  t.add_preset("cc.dcqcn.preset", "paper",
               {{"cc.dcqcn.g", "0.00390625"},
                {"cc.dcqcn.alpha_interval_us", "55"},
                {"cc.dcqcn.rate_timer_us", "55"},
                {"cc.dcqcn.byte_counter_bytes", "10000000"},
                {"cc.dcqcn.fast_recovery_stages", "5"},
                {"cc.dcqcn.rai_mbps", "40"},
                {"cc.dcqcn.rhai_mbps", "200"},
                {"cc.cnp_interval_us", "50"}});
}

namespace {
Cycle us_to_cycles(double us, double mhz) {
  return std::max<Cycle>(1, static_cast<Cycle>(std::llround(us * mhz)));
}
}  // namespace

Dcqcn::Dcqcn(const DcqcnParams& p, double clock_mhz, double line_gbps, uint32_t max_qps,
             const StatGroup& stats, Sram* mem, uint32_t pmtu_bytes)
    : p_(p),
      pmtu_(pmtu_bytes),
      mhz_(clock_mhz),
      line_(line_gbps),
      alpha_cyc_(us_to_cycles(p.alpha_interval_us, clock_mhz)),
      decrease_cyc_(us_to_cycles(p.decrease_interval_us, clock_mhz)),
      rate_cyc_(us_to_cycles(p.rate_timer_us, clock_mhz)),
      qps_(max_qps),
      mem_(mem),
      cnps_(stats.counter("cnps", "CNP", "CNPs received (DCQCN reaction point)")),
      decreases_(stats.counter("rate_decreases", "event", "DCQCN rate decreases")),
      fast_recoveries_(stats.counter("fast_recoveries", "event", "DCQCN fast-recovery steps")),
      additive_(stats.counter("additive_increases", "event", "DCQCN additive-increase steps")),
      hyper_(stats.counter("hyper_increases", "event", "DCQCN hyper-increase steps")),
      paced_(
          stats.counter("paced_packets", "packet", "packets DCQCN held back below the line rate")) {
  if (!(line_gbps > 0) || !(clock_mhz > 0))
    throw Error(msg::kConfig, "tx.rate dcqcn: the line rate and the clock must be positive");
}

Dcqcn::Qp& Dcqcn::qp(uint32_t qi) {
  if (qi >= qps_.size()) throw Error(msg::kModel, "dcqcn: QP index " + std::to_string(qi));
  return qps_[qi];
}

void Dcqcn::touch(Cycle t, bool write) {
  touch_state(mem_, t, write);
}

Cycle Dcqcn::tx_cycles(double gbps, uint32_t bytes) const {
  return pacing_cycles(gbps, bytes, p_.pacing_overhead_bytes, mhz_);
}

void Dcqcn::set_rate(uint32_t qi, Qp& q, double rc, Cycle t) {
  // The pending packet's start moves with the rate (ns-3 HPCC's ChangeRate).
  if (q.last_bytes) {
    const Cycle old_t = tx_cycles(q.rc, q.last_bytes), new_t = tx_cycles(rc, q.last_bytes);
    q.next_avail = rebook(q.next_avail, old_t, new_t);
  }
  const bool changed = rc != q.rc;
  q.rc = rc;
  if (changed && on_rate_) on_rate_(qi, t, rc);
}

void Dcqcn::increase(uint32_t qi, Qp& q, bool timer, Cycle t) {
  const uint32_t f = p_.fast_recovery_stages;
  const uint32_t c = p_.byte_counter_bytes ? q.byte_stage : q.stage;
  if (std::max(q.stage, c) < f) {
    fast_recoveries_.inc();
  } else if (std::min(q.stage, c) > f) {
    q.rt = std::min(line_, q.rt + p_.rhai_mbps / 1000.0);
    hyper_.inc();
  } else {
    q.rt = std::min(line_, q.rt + p_.rai_mbps / 1000.0);
    additive_.inc();
  }
  set_rate(qi, q, q.rc / 2 + q.rt / 2, t);
  ++(timer ? q.stage : q.byte_stage);
}

void Dcqcn::advance(uint32_t qi, Qp& q, Cycle t) {
  if (!q.active) return;
  const double g = p_.g;
  for (;;) {
    const Cycle inc = q.increase_on ? q.next_increase : kNever;
    const Cycle next = std::min({q.next_alpha, q.next_decrease, inc});
    if (next > t) return;
    if (q.next_alpha == next) {
      q.alpha = q.alpha_cnp ? (1 - g) * q.alpha + g : (1 - g) * q.alpha;
      q.alpha_cnp = false;
      q.next_alpha += alpha_cyc_;
    } else if (q.next_decrease == next) {
      q.next_decrease += decrease_cyc_;
      if (q.decrease_cnp) {
        if (p_.clamp_target || q.stage != 0 || q.byte_stage != 0) q.rt = q.rc;
        set_rate(qi, q, std::max(p_.min_rate_mbps / 1000.0, q.rc * (1 - q.alpha / 2)), next);
        q.stage = q.byte_stage = 0;
        q.bytes = 0;
        q.decrease_cnp = false;
        q.increase_on = true;
        q.next_increase = next + rate_cyc_;
        decreases_.inc();
      }
    } else {
      q.next_increase += rate_cyc_;
      increase(qi, q, true, next);
    }
  }
}

void Dcqcn::on_cnp(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  cnps_.inc();
  touch(t, false);  // read-modify-write of the QP's word
  touch(t, true);
  if (!q.active && mem_) mem_->occupy(t, mem_->params().width_bits);
  advance(qi, q, t);
  q.alpha_cnp = q.decrease_cnp = true;
  if (!q.active) {
    q.active = true;
    q.rc = line_;
    q.alpha = 1;
    q.alpha_cnp = false;
    q.next_alpha = t + alpha_cyc_;
    q.next_decrease = t + decrease_cyc_;
    q.rt = line_ * p_.rate_on_first_cnp;
    set_rate(qi, q, q.rt, t);
  }
}

Cycle Dcqcn::earliest(uint32_t qi, Cycle now, uint32_t bytes) {
  Qp& q = qp(qi);
  if (!q.active) return now;
  touch(now, false);
  touch(now, true);  // the next packet's booked start
  advance(qi, q, now);
  if (q.next_avail > now) paced_.inc();
  // The packet is booked at once: the TX path asks for several packets ahead
  // (tx.qp_manager.prefetch_packets) before it sends the first.
  const Cycle t = std::max(now, q.next_avail);
  q.last_bytes = bytes;
  q.next_avail = t + tx_cycles(q.rc, bytes);
  return t;
}

void Dcqcn::sent(uint32_t qi, Cycle start, uint32_t bytes) {
  Qp& q = qp(qi);
  if (!q.active) return;
  touch(start, true);
  advance(qi, q, start);
  // A packet that left later than booked (the MAC was busy) pushes the next.
  q.next_avail = std::max(q.next_avail, start + tx_cycles(q.rc, bytes));
  if (p_.byte_counter_bytes && q.increase_on) {
    q.bytes += bytes;
    while (q.bytes >= p_.byte_counter_bytes) {
      q.bytes -= p_.byte_counter_bytes;
      increase(qi, q, false, start);
    }
  }
}

Cycle Dcqcn::send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) {
  if (!p_.window_bytes) return now;
  const int32_t flight = wire::psn_diff(s.send_psn(qi), s.una(qi));
  if (flight <= 0) return now;
  double w = static_cast<double>(p_.window_bytes);
  if (p_.window_scales) w *= rate_gbps(qi, now) / line_;
  return static_cast<double>(flight) * pmtu_ >= w ? kNever : now;
}

bool Dcqcn::on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) {
  return p_.window_bytes != 0;  // a window may have opened
}

double Dcqcn::rate_gbps(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  advance(qi, q, t);
  return q.active ? q.rc : line_;
}

double Dcqcn::target_gbps(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  advance(qi, q, t);
  return q.active ? q.rt : line_;
}

double Dcqcn::alpha(uint32_t qi, Cycle t) {
  Qp& q = qp(qi);
  advance(qi, q, t);
  return q.alpha;
}

}  // namespace oonic::sender
