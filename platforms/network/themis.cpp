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
  t.add("themis.preset", &preset,
        "the defaults of themis.np_scope, themis.np_key, themis.t_interval_us and "
        "cc.cnp_interval_us when not set: paper (the THEMIS paper's text: the long-haul port, "
        "per flow, 50 us; the NICs' 50 us) or artefact (its public ns-3 code, NS3/: any port "
        "of the external switch, per host pair, 7 us; the NICs' 5 us)",
        {"paper", "artefact"});
  t.add("themis.t_interval_us", &t_interval_us, "us",
        "np: at most one CNP per flow (np_key) towards its sender per interval (generated or "
        "forwarded)",
        0, 1e6);
  t.add("themis.np_scope", &np_scope,
        "np: which CE-marked data it acts on: wan (leaving over the long-haul port, the "
        "paper) or all (leaving by any port of the external switch, the artefact)",
        {"wan", "all"});
  t.add("themis.np_key", &np_key,
        "np: what t_interval is counted per: flow (sender, receiver, UDP source port: the "
        "paper's 5-tuple) or host_pair (sender and receiver hosts: the artefact's table)",
        {"flow", "host_pair"});
  t.add("themis.block", &block,
        "rp: how a throttled flow's inbound packets are held: rate (paced in order at the "
        "flow's Rc from a DCQCN reaction point: its bytes enter the DC at the rate its local "
        "congestion calls for), delay (each held T_block = rtt x (line / Rc - 1), then at line "
        "rate: the bytes arrive later, not slower) or loop (the THEMIS artefact: n passes "
        "through one shared loop port, n growing with the CNPs)",
        {"rate", "delay", "loop"});
  t.add("themis.max_held_bytes", &max_held_bytes, "byte",
        "rp, block rate: bytes held (recirculating) at once at the switch; a packet that "
        "would pass it makes its flow's oldest held packet leave at once (or passes itself), "
        "counted as held_overflow: order kept, memory bounded",
        1, 1e12);
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
  // The THEMIS artefact (github.com/Networked-System-and-Security-Group/Themis, NS3/): its
  // switch CNPs marked data leaving any port, spaced about 7 us per host pair; its NICs
  // send at most one CNP per 5 us per QP. The paper's values are the keys' defaults.
  t.add_preset("themis.preset", "artefact",
               {{"themis.np_scope", "all"},
                {"themis.np_key", "host_pair"},
                {"themis.t_interval_us", "7"},
                {"cc.cnp_interval_us", "5"}});
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
      held_overflow(stats.counter("held_overflow", "packet",
                                  "rp, block rate: packets let go early (their flow's oldest "
                                  "held, or themselves) because holding would pass "
                                  "themis.max_held_bytes")),
      held_peak_bytes(stats.counter("held_peak_bytes", "byte",
                                    "rp: the most bytes held (recirculating) at once")),
      p_(p),
      loop_(p.loop()),
      rate_(p.rate()),
      host_pair_(p.np_host_pair()),
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
  Flow* made = &flows_.emplace(k, f).first->second;
  by_index_.push_back(made);
  return made;
}

void ThemisCore::learn_qpn(const FlowKey& k, uint32_t qpn) {
  if (Flow* f = flow(k)) f->has_qpn = true, f->qpn = qpn;
}

ThemisCore::NpClock* ThemisCore::np_clock(const FlowKey& k, Flow& f) {
  if (!host_pair_) return &f.np;
  return &pairs_[FlowKey{k.sender, k.receiver, 0}];
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
  NpClock& c = *np_clock(k, *f);
  if (c.cnp_seen && now_ps - c.last_cnp_ps < interval_ps_) {
    cnps_suppressed.inc();
    return true;
  }
  c.cnp_seen = true;
  c.last_cnp_ps = now_ps;
  *send = true;
  *cnp_qpn = f->qpn;
  cnps_generated.inc();
  return true;
}

bool ThemisCore::forward_cnp_in(const FlowKey& k, uint64_t now_ps) {
  Flow* f = flow(k);
  if (!f) return true;
  NpClock& c = *np_clock(k, *f);
  if (c.cnp_seen && now_ps - c.last_cnp_ps < interval_ps_) {
    cnps_suppressed.inc();
    return false;
  }
  c.cnp_seen = true;
  c.last_cnp_ps = now_ps;
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
  f->rp_seen = true;
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
  return held_at(f, now_ps, t, bytes, passes);
}

ThemisCore::Hold ThemisCore::hold(const FlowKey& k, uint64_t now_ps, uint32_t bytes, uint32_t id,
                                  uint64_t* wake_ps, uint32_t* flow, uint32_t* early) {
  *wake_ps = kNoWake;
  *early = kNoId;
  auto it = flows_.find(k);
  if (it == flows_.end()) return Hold::kPass;
  Flow& f = it->second;
  if (!f.rp_seen) return Hold::kPass;  // never throttled here
  // A packet finding the flow's queue empty and its pacing slot free goes now and books
  // the next slot at the rate now; anything else waits its turn in the queue.
  if (f.queue.empty() && f.last_release_ps <= now_ps) {
    const double gbps = rp_.rate_gbps(f.index, now_ps);
    f.last_release_ps = gbps >= p_.line_gbps ? now_ps : now_ps + ser_ps(bytes, gbps);
    return Hold::kPass;
  }
  if (static_cast<double>(looping_bytes_ + bytes) > p_.max_held_bytes) {
    held_overflow.inc();
    if (f.queue.empty()) return Hold::kPass;  // nothing of the flow to keep it behind
    const Flow::Held h = f.queue.front();     // the oldest leaves now, unpaced, to make room
    f.queue.pop_front();
    looping_bytes_ -= std::min<uint64_t>(looping_bytes_, h.bytes);
    *early = h.id;
  }
  if (f.queue.empty() && *early == kNoId) *wake_ps = f.last_release_ps;
  f.queue.push_back({id, bytes, now_ps});
  *flow = f.index;
  held.inc();
  looping_bytes_ += bytes;
  held_peak_bytes.value = std::max(held_peak_bytes.value, looping_bytes_);
  return Hold::kHeld;
}

bool ThemisCore::release_head(uint32_t flow, uint64_t now_ps, uint32_t* id, uint64_t* wake_ps) {
  *wake_ps = kNoWake;
  if (flow >= by_index_.size() || by_index_[flow]->queue.empty()) return false;
  Flow& f = *by_index_[flow];
  const Flow::Held h = f.queue.front();
  f.queue.pop_front();
  *id = h.id;
  looping_bytes_ -= std::min<uint64_t>(looping_bytes_, h.bytes);
  // It recirculated from its arrival until now: passes of pass_ns behind the loop's
  // queue (the bytes recirculating with it).
  const double pass_ps = p_.pass_ns * 1000.0 + static_cast<double>(looping_bytes_ + h.bytes) * 8.0 *
                                                   1000.0 / p_.loop_gbps;
  resubmits.inc(std::max<uint64_t>(
      1, static_cast<uint64_t>(std::ceil(static_cast<double>(now_ps - h.since_ps) / pass_ps))));
  // The next slot, at the flow's rate now: a rate that recovers drains the queue faster.
  const double gbps = rp_.rate_gbps(f.index, now_ps);
  f.last_release_ps = now_ps + ser_ps(h.bytes, gbps);
  if (!f.queue.empty()) *wake_ps = f.last_release_ps;
  return true;
}

uint64_t ThemisCore::held_at(Flow&, uint64_t now_ps, uint64_t t, uint32_t bytes, uint32_t* passes) {
  // Passes of pass_ns behind the loop's queue, until the packet's time is spent.
  const double pass_ps = p_.pass_ns * 1000.0 +
                         static_cast<double>(looping_bytes_ + bytes) * 8.0 * 1000.0 / p_.loop_gbps;
  *passes = std::max<uint32_t>(
      1, static_cast<uint32_t>(std::ceil(static_cast<double>(t - now_ps) / pass_ps)));
  held.inc();
  resubmits.inc(*passes);
  looping_bytes_ += bytes;
  held_peak_bytes.value = std::max(held_peak_bytes.value, looping_bytes_);
  return t;
}

}  // namespace oonic::network
