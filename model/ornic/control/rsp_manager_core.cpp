#include "model/ornic/control/rsp_manager_core.h"

#include <algorithm>

#include "model/core/cycles.h"

namespace oonic::ornic {

bool RspManagerCore::CountingState::resend(uint32_t qi, uint32_t psn) {
  std::vector<Resent>& r = resent_[qi];
  auto it = std::find_if(r.begin(), r.end(), [psn](const Resent& e) { return e.psn == psn; });
  if (holdoff_ && it != r.end() && now_ < it->at + holdoff_) {
    // Resent less than an RTT ago and still a hole: that resend is in flight. Asked
    // again at the holdoff's end (once).
    held_off_.inc();
    ++qps_.at(qi).recovery.held_off;
    if (!it->retry) {
      it->retry = true;
      const Cycle due = it->at + holdoff_;
      agenda_.at(due, [this, qi, psn](Cycle x) { retry(x, qi, psn); });
    }
    return false;
  }
  if (!sq_->resend(qi, psn)) return false;
  if (it != r.end())
    it->at = now_, it->retry = false;
  else
    r.push_back(Resent{psn, now_});
  selective_.inc();
  return true;
}

void RspManagerCore::CountingState::retry(Cycle t, uint32_t qi, uint32_t psn) {
  std::vector<Resent>& r = resent_[qi];
  auto it = std::find_if(r.begin(), r.end(), [psn](const Resent& e) { return e.psn == psn; });
  if (it == r.end() || !it->retry) return;  // acknowledged, or a go-back resent it
  it->retry = false;
  if (wire::psn_diff(psn, sq_->una(qi)) < 0 || !sq_->resend(qi, psn)) return;
  it->at = t;
  selective_.inc();
  sq_->kick_qp(t, qi);
}

void RspManagerCore::CountingState::go_back(uint32_t qi, uint32_t psn) {
  go_backs_.inc();
  ++qps_.at(qi).recovery.go_backs;
  resent_[qi].clear();  // everything from psn goes again
  sq_->go_back(qi, psn);
}

void RspManagerCore::CountingState::acked(uint32_t qi, uint32_t una) {
  std::vector<Resent>& r = resent_[qi];
  if (r.empty()) return;
  r.erase(std::remove_if(r.begin(), r.end(),
                         [una](const Resent& e) { return wire::psn_diff(e.psn, una) < 0; }),
          r.end());
}

template <class F>
void RspManagerCore::recover(Cycle x, uint32_t qi, bool holdoff, F&& f) {
  state_.begin(x, holdoff ? holdoff_cycles_ : 0);
  const uint64_t before = selective_psns_.value + go_backs_.value;
  f();
  if (selective_psns_.value + go_backs_.value != before) {
    recoveries_.inc();
    ++qps_.at(qi).recovery.recoveries;
  }
}

RspManagerCore::RspManagerCore(const CoreEnv& env, QpContextTable& qps, const RegisterFile& regs,
                               Agenda& agenda, Links links)
    : p_(env.p),
      qps_(qps),
      regs_(regs),
      agenda_(agenda),
      l_(links),
      last_gap_(env.p.nic.max_qps, kNoGap),
      timers_(env.p.nic.max_qps),
      acks_(
          env.stats.counter("acks", "frame", "ACKs that advanced a QP's first unacknowledged PSN")),
      naks_(
          env.stats.counter("naks", "frame", "PSN-sequence NAKs taken (each starts a go-back-N)")),
      go_backs_(env.stats.counter("go_backs", "event", "go-back-N restarts (NAK or timeout)")),
      bitmap_naks_(env.stats.counter("bitmap_naks", "frame", "OOO NAKs with a bitmap block taken")),
      selective_psns_(env.stats.counter("selective_psns", "PSN",
                                        "PSNs queued for selective retransmission (bitmap NAK, "
                                        "hole NACK, SACK, NACK, a selective timeout, a holdoff "
                                        "retry)")),
      rereads_(env.stats.counter("read_rerequests", "request",
                                 "READ re-requests queued (lost READ responses)")),
      timeouts_(env.stats.counter("timeouts", "event", "requester timeouts fired")),
      error_naks_(env.stats.counter("error_naks", "frame",
                                    "remote access / invalid request NAKs (the WQE completes "
                                    "with an error)")),
      feedback_(env.stats.counter("scheme_feedback", "frame",
                                  "Scheme Feedback frames taken (MELO NACK, SACK, NACK, MP-RDMA "
                                  "ACK)")),
      held_off_(env.stats.counter("resends_held_off", "PSN",
                                  "selective resends not repeated: the PSN was resent less than "
                                  "tx.resend_holdoff_ns ago (that resend is in flight)")),
      recoveries_(env.stats.counter("recoveries", "event",
                                    "loss events acted on: a go-back-N or a response that queued "
                                    "at least one selective resend")),
      state_(send_queues_port, qps, agenda, go_backs_, selective_psns_, held_off_,
             env.p.nic.max_qps) {
  CycleClock clk(p_.nic.clock_mhz);
  const double ns =
      p_.sender.resend_holdoff_ns > 0 ? p_.sender.resend_holdoff_ns : p_.rsp_manager.rtt_ns;
  holdoff_cycles_ = clk.ceil_cycles(static_cast<uint64_t>(ns * 1000.0));
  own_timeout_ = l_.recovery.timeout_ns(0) > 0;
}

Cycle RspManagerCore::timeout_cycles(uint32_t qi) const {
  uint32_t r = regs_.peek(qi, QpReg::kTimeoutCycles);
  if (r) return r;
  const QpContext& c = qps_.at(qi);
  CycleClock clk(p_.nic.clock_mhz);
  double ns = p_.rsp_manager.rtt_ns + double(c.otd) * c.pmtu * 8.0 / p_.mac.rate_gbps;
  ns = std::max(ns, p_.rsp_manager.min_timeout_us * 1000.0);
  return std::max<Cycle>(1, clk.ceil_cycles(static_cast<uint64_t>(ns * 1000.0)));
}

Cycle RspManagerCore::period(uint32_t qi) {
  Timer& tm = timers_[qi];
  if (!regs_.peek(qi, QpReg::kTimeoutCycles)) {
    const int32_t out = wire::psn_diff(send_queues_port->high(qi), send_queues_port->una(qi));
    const double own = l_.recovery.timeout_ns(out > 0 ? static_cast<uint32_t>(out) : 0);
    if (own > 0) {  // the recovery core's own (Eunomia: IRN's two levels)
      const double ns = std::max(own, p_.rsp_manager.min_timeout_us * 1000.0);
      CycleClock clk(p_.nic.clock_mhz);
      return std::max<Cycle>(1, clk.ceil_cycles(static_cast<uint64_t>(ns * 1000.0)));
    }
  }
  if (!tm.cycles) tm.cycles = timeout_cycles(qi);
  return tm.cycles;
}

void RspManagerCore::advance(Cycle t, uint32_t qi, uint32_t una) {
  uint32_t from = 0;
  if (!send_queues_port->acknowledge(qi, una, &from)) return;
  l_.recovery.advanced(qi, from, una);
  state_.acked(qi, una);
  if (l_.rate.on_ack(qi, t, static_cast<uint32_t>(wire::psn_diff(una, from))))
    send_queues_port->kick_qp(t, qi);
  // Progress moves the timer; with nothing left outstanding it stops (the next send
  // arms it).
  timers_[qi].armed_at = t;
  timers_[qi].deadline = send_queues_port->inflight(qi) ? t + period(qi) : kNever;
}

void RspManagerCore::ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) {
  if (!send_queues_port->configured(qi)) return;
  if (cached) send_queues_port->start_addr_cached(qi);
  const uint32_t before = send_queues_port->una(qi);
  advance(t, qi, wire::psn_add(psn, 1));
  if (send_queues_port->una(qi) != before) {
    acks_.inc();
    recover(t, qi, true, [&] { l_.recovery.on_progress(state_, qi); });
  }
  l_.completions.poll(t, qi);
}

void RspManagerCore::on_ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) {
  // One per ACK: packed so the closure fits std::function's small buffer (no allocation).
  uint64_t k = uint64_t{qi} << 32 | uint64_t{psn} << 1 | (cached ? 1 : 0);
  agenda_.at(t, [this, k](Cycle x) {
    ack(x, static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k >> 1) & wire::kPsnMask, k & 1);
  });
}

void RspManagerCore::on_nak(Cycle t, uint32_t qi, uint8_t syndrome, uint32_t psn) {
  agenda_.at(t, [this, qi, syndrome, psn](Cycle x) {
    if (!send_queues_port->configured(qi)) return;
    uint8_t kind = syndrome & 0xE0;
    if (kind == 0x60 && syndrome == wire::kAethNakPsnSeqErr) {
      // Every PSN before the one the responder expects arrived.
      advance(x, qi, psn);
      naks_.inc();
      recover(x, qi, true, [&] { l_.recovery.on_sequence_nak(state_, qi, psn); });
      l_.completions.poll(x, qi);
    } else if (kind == 0x60) {
      // Remote access / invalid request: the WQE holding psn completes in error.
      error_naks_.inc();
      if (send_queues_port->fail_wqe_at(qi, psn)) l_.completions.poll(x, qi);
    }
    // RNR NAK: the timer resends (RNR timer = requester timeout here).
  });
}

void RspManagerCore::on_bitmap_nak(Cycle t, uint32_t qi, uint32_t epsn,
                                   const wire::BitmapBlock& block) {
  agenda_.at(t, [this, qi, epsn, block](Cycle x) {
    if (!send_queues_port->configured(qi)) return;
    bitmap_naks_.inc();
    advance(x, qi, epsn);
    recover(x, qi, true, [&] { l_.recovery.on_bitmap_nak(state_, qi, block); });
    l_.completions.poll(x, qi);
  });
}

void RspManagerCore::on_feedback(Cycle t, uint32_t qi, uint32_t epsn,
                                 const wire::SchemeFeedback& fb) {
  agenda_.at(t, [this, qi, epsn, fb](Cycle x) {
    if (!send_queues_port->configured(qi)) return;
    feedback_.inc();
    advance(x, qi, fb.type == wire::SchemeFeedback::kMpAck ? fb.psn[0] : epsn);
    recover(x, qi, l_.recovery.holdoff(fb), [&] { l_.recovery.on_feedback(state_, qi, fb); });
    // A window core (MP-RDMA) clocks the QP's next packets with this frame.
    if (l_.rate.on_feedback(qi, x, fb, state_)) send_queues_port->kick_qp(x, qi);
    l_.completions.poll(x, qi);
  });
}

void RspManagerCore::on_read_data(Cycle t, uint32_t qi, uint32_t read_psn, Cycle dma_done,
                                  bool complete) {
  agenda_.at(t, [this, qi, read_psn, dma_done, complete](Cycle x) {
    if (!send_queues_port->read_active(qi, read_psn)) return;
    timers_[qi].armed_at = x, timers_[qi].deadline = x + period(qi);
    // The READ request got there: its PSN span is acknowledged.
    if (wire::psn_diff(send_queues_port->una(qi), read_psn) >= 0)
      advance(x, qi, wire::psn_add(read_psn, send_queues_port->read_npsn(qi, read_psn)));
    send_queues_port->read_data(qi, read_psn, dma_done, complete);
    l_.completions.poll(x, qi);
  });
}

void RspManagerCore::on_int(Cycle t, uint32_t qi, uint32_t psn, const wire::IntStack& stack) {
  // The stack is copied into the closure (HPCC's runs only: the others send none).
  agenda_.at(t, [this, qi, psn, stack](Cycle x) {
    if (!send_queues_port->configured(qi)) return;
    if (l_.rate.on_int(qi, x, psn, stack, state_)) send_queues_port->kick_qp(x, qi);
  });
}

void RspManagerCore::reread(uint32_t qi, uint32_t psn, uint32_t count) {
  if (send_queues_port->reread(qi, psn, count)) rereads_.inc();
}

void RspManagerCore::on_read_gap(Cycle t, uint32_t qi, uint32_t read_psn, uint32_t expected_psn) {
  agenda_.at(t, [this, qi, read_psn, expected_psn](Cycle x) {
    if (!send_queues_port->read_active(qi, read_psn) || send_queues_port->read_done(qi, read_psn))
      return;
    // Once per expected PSN: the re-requested responses restart the sequence.
    if (last_gap_[qi] == expected_psn) return;
    last_gap_[qi] = expected_psn;
    reread(qi, expected_psn, 0);
    send_queues_port->kick_qp(x, qi);
  });
}

void RspManagerCore::on_read_loss(Cycle t, uint32_t qi, uint32_t read_psn,
                                  const wire::BitmapBlock& block, uint32_t epsn, bool sack) {
  if (sack && !l_.recovery.rerequest_on_read_sack()) return;  // information only
  agenda_.at(t, [this, qi, read_psn, block, epsn](Cycle x) {
    if (!send_queues_port->read_active(qi, read_psn) || send_queues_port->read_done(qi, read_psn))
      return;
    const uint32_t npsn = send_queues_port->read_npsn(qi, read_psn);
    // Each run of missing PSNs in the block (at or after ePSN) is re-requested.
    uint32_t run = 0, from = 0;
    auto flush = [&] {
      if (run) reread(qi, from, run);
      run = 0;
    };
    for (uint32_t i = 0; i < block.nbits; ++i) {
      uint32_t psn = wire::psn_add(block.base_psn, i);
      int32_t d = wire::psn_diff(psn, read_psn);
      bool missing = !block.test(i) && wire::psn_diff(psn, epsn) >= 0 && d >= 0 &&
                     static_cast<uint32_t>(d) < npsn;
      if (missing) {
        if (!run) from = psn;
        ++run;
      } else {
        flush();
      }
    }
    flush();
    send_queues_port->kick_qp(x, qi);
  });
}

void RspManagerCore::sent(Cycle t, uint32_t qi) {
  // Armed by a send only when it is not running: the timeout measures silence since
  // the last response, not since the last send (MECHANISMS.md §1).
  Timer& tm = timers_[qi];
  if (tm.deadline != kNever && tm.booked) {
    // A core whose timeout depends on what is outstanding (Eunomia: IRN's RTO_low with
    // few PSNs out, RTO_high with more) gets the longer one once more went out; the
    // countdown still starts where it started.
    if (own_timeout_) tm.deadline = std::max(tm.deadline, tm.armed_at + period(qi));
    return;
  }
  tm.armed_at = t;
  tm.deadline = t + period(qi);
  if (tm.booked) return;
  tm.booked = true;
  agenda_.at(tm.deadline, [this, qi](Cycle x) { timeout(x, qi); });
}

void RspManagerCore::timeout(Cycle t, uint32_t qi) {
  Timer& tm = timers_[qi];
  if (!send_queues_port->has_active(qi) || tm.deadline == kNever) {
    tm.booked = false;  // nothing outstanding: the timer stops
    tm.deadline = kNever;
    return;
  }
  if (tm.deadline > t) {  // progress since it was booked: move it
    agenda_.at(tm.deadline, [this, qi](Cycle x) { timeout(x, qi); });
    return;
  }
  if (!send_queues_port->inflight(qi)) {
    tm.booked = false;
    tm.deadline = kNever;
    return;
  }
  timeouts_.inc();
  ++qps_.at(qi).recovery.timeouts;
  l_.rate.on_timeout(qi, t);
  if (wire::psn_diff(send_queues_port->high(qi), send_queues_port->una(qi)) > 0) {
    if (p_.rsp_manager.timeout_window_psns)
      send_queues_port->restart_window(qi, p_.rsp_manager.timeout_window_psns);
    recover(t, qi, false, [&] { l_.recovery.on_timeout(state_, qi); });
  }
  // READs whose request arrived but whose data did not all come back.
  const QpContext& c = qps_.at(qi);
  send_queues_port->unfinished_reads(qi, reads_scratch_);
  for (const uint32_t first : reads_scratch_) {
    uint32_t from = first;
    for (const ReadWqe& r : c.reads)
      if (r.start_psn == first) {
        if (!r.ooo)
          from = r.next_psn;
        else if (bitmap_port->is_open(qi))
          from = bitmap_port->epsn(qi);
      }
    reread(qi, from, 0);
  }
  last_gap_[qi] = kNoGap;
  tm.armed_at = t;
  tm.deadline = t + period(qi);
  agenda_.at(tm.deadline, [this, qi](Cycle x) { timeout(x, qi); });
  send_queues_port->kick_qp(t, qi);
}

}  // namespace oonic::ornic
