#include "model/sender/uet_recovery.h"

#include <algorithm>
#include <cmath>

#include "model/core/params.h"
#include "model/sender/rate_control.h"

namespace oonic::sender {

void UetRecoveryParams::describe(ParamTable& t) {
  t.add("tx.uet.loss_retx_factor", &loss_retx_factor, "window",
        "tx.recovery uet: the receiver's out-of-order count, in congestion windows, at which "
        "the sender enters loss recovery (htsim's loss_retx_factor)",
        0.01, 1000);
  t.add("tx.uet.min_retx_pkts", &min_retx_pkts, "packet",
        "tx.recovery uet: the loss threshold's floor (htsim's min_retx_config)", 1, 1u << 22);
  t.add("tx.uet.sleek", &sleek,
        "tx.recovery uet: SLEEK's loss-recovery episodes on (htsim's -sleek); false: a PSN "
        "goes again only on a NACK or the timeout, as htsim's runs without -sleek");
}

UetRecovery::UetRecovery(const UetRecoveryParams& p, uint32_t max_qps, uint32_t window_psns,
                         const StatGroup& stats, bool ordered)
    : p_(p),
      ordered_(ordered),
      window_psns_(std::max(1u, window_psns)),
      ring_bits_(64),
      qps_(max_qps),
      episodes_(stats.counter("loss_recoveries", "episode",
                              "times a QP entered loss recovery (the receiver's out-of-order "
                              "count reached the threshold)")),
      sleek_resends_(stats.counter("recovery_resends", "PSN",
                                   "PSNs queued for resending in loss recovery (not SACKed)")),
      nack_resends_(stats.counter("nack_resends", "PSN",
                                  "PSNs resent at once on a NACK (trimmed, or beyond the window)")),
      rto_resends_(stats.counter("timeout_resends", "PSN", "PSNs resent by the timeout")) {
  while (ring_bits_ < 2 * window_psns_) ring_bits_ *= 2;
}

double UetRecovery::window(uint32_t qi) const {
  const double w = rate_ ? rate_->window_packets(qi) : 0;
  return w > 0 ? std::min<double>(w, window_psns_) : window_psns_;
}

uint32_t UetRecovery::threshold(uint32_t qi) const {
  const double t = std::min<double>(p_.loss_retx_factor * window(qi), window_psns_);
  return std::max(p_.min_retx_pkts, static_cast<uint32_t>(std::ceil(t)));
}

bool UetRecovery::sacked(uint32_t qi, uint32_t psn) const {
  if (qi >= qps_.size()) return false;
  const Qp& q = qps_[qi];
  if (q.ring.empty()) return false;
  const int32_t d = wire::psn_diff(psn, q.una);
  if (d < 0) return true;  // acknowledged
  if (static_cast<uint32_t>(d) >= ring_bits_) return false;
  const uint32_t b = psn % ring_bits_;
  return q.ring[b / 64] >> (b % 64) & 1;
}

void UetRecovery::mark(Qp& q, uint32_t psn) {
  const int32_t d = wire::psn_diff(psn, q.una);
  if (d < 0 || static_cast<uint32_t>(d) >= ring_bits_) return;
  if (q.ring.empty()) q.ring.assign(ring_bits_ / 64, 0);
  const uint32_t b = psn % ring_bits_;
  const uint64_t bit = uint64_t{1} << (b % 64);
  if (!(q.ring[b / 64] & bit)) q.ring[b / 64] |= bit, ++q.count;
}

void UetRecovery::advanced(uint32_t qi, uint32_t from, uint32_t to) {
  if (qi >= qps_.size()) return;
  Qp& q = qps_[qi];
  // PSNs now acknowledged leave the ring (their slots serve PSNs a ring further on).
  if (!q.ring.empty() && q.una_set) {
    const int32_t n = wire::psn_diff(to, q.una);
    if (n >= static_cast<int32_t>(ring_bits_)) {
      std::fill(q.ring.begin(), q.ring.end(), 0);
      q.count = 0;
    } else {
      for (int32_t i = 0; i < n; ++i) {
        const uint32_t b = wire::psn_add(q.una, i) % ring_bits_;
        const uint64_t bit = uint64_t{1} << (b % 64);
        if (q.ring[b / 64] & bit) q.ring[b / 64] &= ~bit, --q.count;
      }
    }
  }
  // The first advance (or the first ACK, on_feedback) places the ring: a QP's PSNs may
  // start anywhere in the 24-bit space.
  if (!q.una_set || wire::psn_diff(to, q.una) > 0) q.una = to, q.una_set = true;
  if (q.recovery && wire::psn_diff(q.una, q.recovery_psn) >= 0) q.recovery = false;
  (void)from;
}

void UetRecovery::on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) {
  using F = wire::SchemeFeedback;
  if (qi >= qps_.size()) return;
  if (fb.type == F::kNack) {
    for (uint32_t i = 0; i < wire::nack_entries(fb); ++i)
      if (s.resend(qi, fb.psn[i])) nack_resends_.inc();
    return;
  }
  if (fb.type != F::kUetAck) return;  // another scheme's frame: the timeout covers it
  Qp& q = qps_[qi];
  if (!q.una_set || wire::psn_diff(q.una, s.una(qi)) < 0) q.una = s.una(qi), q.una_set = true;
  mark(q, fb.psn[0]);
  if (!q.any_sacked || wire::psn_diff(fb.psn[0], q.high_sacked) > 0)
    q.high_sacked = fb.psn[0], q.any_sacked = true;
  const uint64_t bits = wire::uet_sack_bits(fb);
  for (uint32_t i = 0; i < wire::kUetSackBits; ++i)
    if (bits >> i & 1) mark(q, wire::psn_add(fb.psn[0], -static_cast<int32_t>(i) - 1));
  if (fb.psn[1] != wire::kUetOooUnknown) q.ooo = fb.psn[1];
  run(s, qi);
}

void UetRecovery::on_progress(SendState& s, uint32_t qi) {
  if (qi < qps_.size() && qps_[qi].recovery) run(s, qi);
}

void UetRecovery::run(SendState& s, uint32_t qi) {
  Qp& q = qps_[qi];
  const uint32_t una = s.una(qi);
  if (q.recovery && wire::psn_diff(una, q.recovery_psn) >= 0) q.recovery = false;
  if (!q.recovery) {
    if (!p_.sleek || q.ooo < threshold(qi)) return;
    q.recovery = true, q.recovery_psn = s.high(qi), q.next_rtx = una;
    episodes_.inc();
  }
  if (wire::psn_diff(q.next_rtx, una) < 0) q.next_rtx = una;
  // htsim's span: [una, min(recovery_psn, una + cwnd)), and never past the highest PSN
  // an ACK named (what lies beyond it may be in flight still).
  const int32_t span = static_cast<int32_t>(std::max(1.0, std::floor(window(qi))));
  const int32_t end =
      std::min({wire::psn_diff(q.recovery_psn, una), span, wire::psn_diff(q.high_sacked, una)});
  for (int32_t d = wire::psn_diff(q.next_rtx, una); d < end; ++d) {
    const uint32_t psn = wire::psn_add(una, d);
    if (!sacked(qi, psn) && s.in_write_or_send(qi, psn) && s.resend(qi, psn)) sleek_resends_.inc();
    q.next_rtx = wire::psn_add(psn, 1);
  }
}

void UetRecovery::on_timeout(SendState& s, uint32_t qi) {
  const uint32_t una = s.una(qi);
  if (!s.in_write_or_send(qi, una)) return LossRecovery::on_timeout(s, qi);  // READ: go back
  if (s.resend(qi, una)) rto_resends_.inc();
  // A PSN below the highest one SACKed and still not SACKed a timeout later is lost.
  Qp& q = qps_[qi];
  if (!q.any_sacked) return;
  for (int32_t d = 1; d < wire::psn_diff(q.high_sacked, una); ++d) {
    const uint32_t psn = wire::psn_add(una, d);
    if (!sacked(qi, psn) && s.in_write_or_send(qi, psn) && s.resend(qi, psn)) rto_resends_.inc();
  }
}

}  // namespace oonic::sender
