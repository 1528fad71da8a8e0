// THEMIS's external-switch core (see themis.h).
#include "platforms/network/themis.h"

#include <algorithm>
#include <cmath>

#include "model/core/rng.h"

namespace oonic::network {

void ThemisParams::describe(ParamTable& t) {
  t.add("themis.mode", &mode,
        "THEMIS at the DCs' external switches (the two ends of the longest-delay link): none, "
        "np (notification point: CNP the local sender, clear the mark), rp (reaction point: "
        "throttle the flow at the switch by recirculation), both",
        {"none", "np", "rp", "both"});
  t.add("themis.t_interval_us", &t_interval_us, "us",
        "np: at most one CNP per flow towards its sender per interval (generated or forwarded)", 0,
        1e6);
  t.add("themis.block", &block,
        "rp: how a throttled flow's packets are held: dcqcn (T_block = rtt x (line / Rc - 1), "
        "Rc from DCQCN's reaction point) or loop (the THEMIS artefact: n passes through one "
        "shared loop port, n growing with the CNPs)",
        {"dcqcn", "loop"});
  t.add("themis.step", &step, "CNP",
        "rp, block loop: CNPs that add one pass at first (the step grows by one each time)", 1,
        1u << 20);
  t.add("themis.recover_us", &recover_us, "us",
        "rp, block loop: without a CNP this long a flow's step halves and it loses one pass", 0.001,
        1e9);
  t.add("themis.line_gbps", &line_gbps, "Gbit/s",
        "rp: a flow's rate at the switch before its first CNP (DCQCN's Rc starts here)", 0.001,
        1e5);
  t.add("themis.max_block_us", &max_block_us, "us",
        "rp, block dcqcn: the longest a packet is held (T_block's cap)", 0.001, 1e9);
  t.add("themis.rtt_us", &rtt_us, "us",
        "rp: the RTT the block time stretches, T_block = rtt x (line / Rc - 1); 0: twice the "
        "long-haul link's delay",
        0, 1e9);
  t.add("themis.pass_ns", &pass_ns, "ns",
        "rp: one recirculation pass of a held packet (the loop port's delay)", 0.001, 1e9);
  t.add("themis.loop_gbps", &loop_gbps, "Gbit/s",
        "rp: the loop port's rate (a pass also takes the packet's serialization there)", 0.001,
        1e6);
  t.add("themis.max_flows", &max_flows, "flow",
        "flows an external switch tracks (more are passed through untouched, counted)", 1,
        1u << 24);
  t.add("themis.np_flows", &np_flows,
        "np: how the notification point knows an inter-DC flow's sender QP: table (filled at "
        "connection setup from the fabric's QP pairs, as THEMIS's P4 prototype's control plane "
        "does: the flow's first marked packet can produce a CNP) or learn (from the flow's "
        "ACKs coming in over the long haul; until one has, its marked packets pass marked, "
        "counted as no_qpn)",
        {"table", "learn"});
}

size_t ThemisCore::Hash::operator()(const FlowKey& k) const {
  return static_cast<size_t>(splitmix64(k.sender ^ splitmix64(k.receiver ^ k.sport)));
}

ThemisCore::ThemisCore(const ThemisParams& p, const sender::DcqcnParams& dcqcn, uint64_t rtt_ps,
                       const StatGroup& stats)
    : cnps_generated(
          stats.counter("cnps_generated", "frame", "np: CNPs the switch sent to local senders")),
      cnps_forwarded(stats.counter("cnps_forwarded", "frame",
                                   "np: CNPs from the long haul forwarded to local senders")),
      cnps_suppressed(stats.counter("cnps_suppressed", "frame",
                                    "np: CNPs not sent or dropped: the flow's last CNP was less "
                                    "than t_interval ago")),
      cnps_marked_in(stats.counter("cnps_marked_in", "frame",
                                   "CNPs from the long haul with the THEMIS bit: forwarded to the "
                                   "sender untouched (the far switch reacted; np does not count "
                                   "them)")),
      ce_cleared(stats.counter("ce_cleared", "frame", "np: data packets leaving the DC unmarked")),
      no_qpn(stats.counter("no_qpn", "frame",
                           "np: CE-marked data of a flow whose sender QP is not known yet (no ACK "
                           "seen; left marked)")),
      rp_cnps(stats.counter("rp_cnps", "frame",
                            "rp: local receivers' CNPs the switch reacted to (and marked)")),
      held(stats.counter("held_packets", "packet", "rp: data packets held (recirculated)")),
      resubmits(stats.counter("resubmits", "pass",
                              "rp: ingress-pipeline passes of held packets (recirculations)")),
      p_(p),
      loop_(p.loop()),
      np_on_(p.np()),
      rp_on_(p.rp()),
      interval_ps_(static_cast<uint64_t>(std::llround(p.t_interval_us * 1e6))),
      rtt_ps_(p.rtt_us > 0 ? static_cast<uint64_t>(std::llround(p.rtt_us * 1e6)) : rtt_ps),
      recover_ps_(static_cast<uint64_t>(std::llround(p.recover_us * 1e6))),
      rp_(dcqcn, 1e6, p.line_gbps, p.max_flows, stats.group("rp")) {}

ThemisCore::Flow* ThemisCore::flow(const FlowKey& k) {
  auto it = flows_.find(k);
  if (it != flows_.end()) return &it->second;
  if (flows_.size() >= p_.max_flows) return nullptr;
  Flow f;
  f.index = static_cast<uint32_t>(flows_.size());
  return &flows_.emplace(k, f).first->second;
}

void ThemisCore::learn_qpn(const FlowKey& k, uint32_t qpn) {
  if (Flow* f = flow(k)) f->has_qpn = true, f->qpn = qpn;
}

bool ThemisCore::on_marked_data_out(const FlowKey& k, uint64_t now_ps, bool* send,
                                    uint32_t* cnp_qpn) {
  *send = false;
  Flow* f = flow(k);
  if (!f || !f->has_qpn) {
    no_qpn.inc();
    return false;
  }
  ce_cleared.inc();
  if (f->cnp_seen && now_ps - f->last_cnp_ps < interval_ps_) {
    cnps_suppressed.inc();
    return true;
  }
  f->cnp_seen = true;
  f->last_cnp_ps = now_ps;
  *send = true;
  *cnp_qpn = f->qpn;
  cnps_generated.inc();
  return true;
}

bool ThemisCore::forward_cnp_in(const FlowKey& k, uint64_t now_ps) {
  Flow* f = flow(k);
  if (!f) return true;
  if (f->cnp_seen && now_ps - f->last_cnp_ps < interval_ps_) {
    cnps_suppressed.inc();
    return false;
  }
  f->cnp_seen = true;
  f->last_cnp_ps = now_ps;
  cnps_forwarded.inc();
  return true;
}

void ThemisCore::recover(Flow& f, uint64_t now_ps) {
  while (f.n > 0 && now_ps - f.last_rp_cnp_ps >= recover_ps_) {
    f.step = std::max<uint32_t>(1, f.step / 2);
    --f.n;
    f.last_rp_cnp_ps += recover_ps_;
  }
}

void ThemisCore::on_cnp_out(const FlowKey& k, uint64_t now_ps) {
  Flow* f = flow(k);
  if (!f) return;
  rp_cnps.inc();
  if (!loop_) {
    rp_.on_cnp(f->index, now_ps);
    return;
  }
  recover(*f, now_ps);
  if (f->n == 0) {
    f->n = 1, f->step = p_.step, f->cnps = 0;
  } else if (++f->cnps >= f->step) {
    f->cnps -= f->step;
    ++f->step;
    ++f->n;
  }
  f->last_rp_cnp_ps = now_ps;
}

double ThemisCore::rate_fraction(const FlowKey& k, uint64_t now_ps) {
  auto it = flows_.find(k);
  if (it == flows_.end()) return 1.0;
  return rp_.rate_gbps(it->second.index, now_ps) / p_.line_gbps;
}

uint64_t ThemisCore::release_ps(const FlowKey& k, uint64_t now_ps, uint32_t bytes,
                                uint32_t* passes) {
  *passes = 0;
  auto it = flows_.find(k);
  if (it == flows_.end()) return now_ps;
  Flow& f = it->second;
  if (loop_) {
    // n passes through the one loop port, first come first served: each waits for the
    // loop (the packets of every flow looping), then takes its time on it and the pass.
    recover(f, now_ps);
    uint64_t t = now_ps;
    const uint64_t ser = static_cast<uint64_t>(std::llround(bytes * 8.0 * 1000.0 / p_.loop_gbps));
    const uint64_t lat = static_cast<uint64_t>(std::llround(p_.pass_ns * 1000.0));
    for (uint32_t i = 0; i < f.n; ++i) {
      const uint64_t start = std::max(t, loop_free_ps_);
      loop_free_ps_ = start + ser;
      t = start + ser + lat;
    }
    const uint64_t spacing =
        f.last_release_ps > now_ps
            ? static_cast<uint64_t>(std::llround(bytes * 8.0 * 1000.0 / p_.line_gbps))
            : 0;
    t = std::max(t, f.last_release_ps + spacing);
    if (t <= now_ps) return now_ps;
    f.last_release_ps = t;
    *passes = std::max<uint32_t>(1, f.n);
    held.inc();
    resubmits.inc(*passes);
    return t;
  }
  const double frac = rp_.rate_gbps(f.index, now_ps) / p_.line_gbps;
  const double cap_ps = p_.max_block_us * 1e6;
  const uint64_t block =
      frac < 1.0
          ? static_cast<uint64_t>(std::llround(std::min(cap_ps, rtt_ps_ * (1.0 / frac - 1.0))))
          : 0;
  // Never ahead of the flow's previous packet, and behind it by this packet at the
  // flow's line rate: when T_block shrinks, what was held leaves as a line-rate stream,
  // not all at once.
  const uint64_t spacing =
      f.last_release_ps > now_ps
          ? static_cast<uint64_t>(std::llround(bytes * 8.0 * 1000.0 / p_.line_gbps))
          : 0;
  const uint64_t t = std::max(now_ps + block, f.last_release_ps + spacing);
  if (t <= now_ps) return now_ps;
  f.last_release_ps = t;
  // Passes of pass_ns behind the loop's queue, until T_block is spent.
  const double pass_ps = p_.pass_ns * 1000.0 +
                         static_cast<double>(looping_bytes_ + bytes) * 8.0 * 1000.0 / p_.loop_gbps;
  *passes = std::max<uint32_t>(
      1, static_cast<uint32_t>(std::ceil(static_cast<double>(t - now_ps) / pass_ps)));
  held.inc();
  resubmits.inc(*passes);
  looping_bytes_ += bytes;
  return t;
}

}  // namespace oonic::network
