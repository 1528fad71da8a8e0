#include "model/ornic/control/req_manager_core.h"

#include <algorithm>

namespace oonic::ornic {

ReqManagerCore::ReqManagerCore(const CoreEnv& env, const QpContextTable& qps, Sram& acked_psn_mem,
                               DmaPort& dma, Sram* uet_nack_mem)
    : p_(env.p),
      qps_(qps),
      mem_(acked_psn_mem),
      uet_nack_mem_(uet_nack_mem),
      dma_(dma),
      slots_(env.p.nic.max_qps),
      ack_regs_(env.stats.counter("ack_registrations", "registration",
                                  "ACKed-PSN writes by the Req Processor")),
      acks_sent_(env.stats.counter("acks_scheduled", "frame",
                                   "ACKs the scheduler handed to the Hdr Generator")),
      nak_regs_(env.stats.counter("nak_registrations", "registration",
                                  "NAK registrations by the Req Processor")),
      cnp_regs_(env.stats.counter("cnp_registrations", "registration",
                                  "CNPs asked for by the notification point")),
      dup_reads_ignored_(env.stats.counter(
          "duplicate_reads_ignored", "request",
          "re-requested READs whose PSN a queued READ job is still to send (ignored)")),
      uet_acks_held_(env.stats.counter(
          "uet_acks_held", "frame",
          "UET ACKs not written over a UET NACK waiting in the QP's register (dropped: the "
          "NACK takes their cumulative PSN and the next ACK their SACK state; the packets "
          "they covered go uncounted at the sender)")),
      uet_nacks_merged_(env.stats.counter(
          "uet_nacks_merged", "frame",
          "UET NACKs that joined those waiting in the QP's register, or named a PSN one of "
          "them names (one frame names up to 3)")),
      uet_nacks_lost_(env.stats.counter(
          "uet_nacks_lost", "frame",
          "UET NACKs lost because the QP's register already held "
          "control.req_manager.uet_nack_depth, or a NAK of another kind replaced them there "
          "(the sender's SACK recovery, go-back-N or timeout resends their PSNs)")) {
  env.stats.derived(
      "ack_aggregation", "ratio", "ACK registrations per ACK sent (ORNIC Figure 8 aggregation)",
      [this] {
        return acks_sent_.value ? static_cast<double>(ack_regs_.value) / acks_sent_.value : 0.0;
      });
  env.probe(p_queue_, "ack_queue_depth", 16);
}

void ReqManagerCore::register_ack(Cycle t, uint32_t qp, uint32_t psn, uint32_t msn, bool cached) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kAck, w.qp = qp, w.psn = psn, w.msn = msn,
  w.flag = cached;
  pending_.push(w);
  ack_regs_.inc();
  wake_port->wake(t);
}

void ReqManagerCore::register_nak(Cycle t, uint32_t qp, uint8_t syndrome, uint32_t psn,
                                  uint32_t msn) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kNak, w.qp = qp, w.psn = psn, w.msn = msn;
  w.syndrome = syndrome;
  pending_.push(w);
  nak_regs_.inc();
  wake_port->wake(t);
}

void ReqManagerCore::register_cnp(Cycle t, uint32_t qp) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kCnp, w.qp = qp;
  pending_.push(w);
  cnp_regs_.inc();
  wake_port->wake(t);
}

void ReqManagerCore::register_bitmap_nak(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                                         const wire::BitmapBlock& block) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kBitmapNak, w.qp = qp, w.psn = epsn, w.msn = msn;
  if (free_blocks_.empty()) {
    w.block = static_cast<uint32_t>(blocks_.size());
    blocks_.push_back(block);
  } else {
    w.block = free_blocks_.back();
    free_blocks_.pop_back();
    blocks_[w.block] = block;
  }
  pending_.push(w);
  nak_regs_.inc();
  wake_port->wake(t);
}

void ReqManagerCore::register_feedback(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                                       const wire::SchemeFeedback& fb) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kFeedback, w.qp = qp, w.psn = epsn, w.msn = msn;
  if (free_fbs_.empty()) {
    w.block = static_cast<uint32_t>(fbs_.size());
    fbs_.push_back(fb);
  } else {
    w.block = free_fbs_.back();
    free_fbs_.pop_back();
    fbs_[w.block] = fb;
  }
  pending_.push(w);
  nak_regs_.inc();
  wake_port->wake(t);
}

void ReqManagerCore::register_read(Cycle t, uint32_t qp, uint64_t va, uint32_t len, uint32_t psn,
                                   uint32_t msn, bool ooo, bool duplicate) {
  Pending w{};
  w.t = t, w.seq = seq_++, w.kind = Kind::kRead, w.qp = qp, w.psn = psn, w.msn = msn, w.va = va;
  w.len = len, w.flag = ooo, w.dup = duplicate;
  pending_.push(w);
  wake_port->wake(t);
}

uint32_t ReqManagerCore::uet_nacks_waiting(const Slot& s) {
  if (!s.nak_queued || !s.nak_is_feedback || s.nak_feedback.type != wire::SchemeFeedback::kNack ||
      !(s.nak_feedback.info & wire::kUetNackFlag))
    return 0;
  uint32_t n = wire::nack_entries(s.nak_feedback);
  for (const wire::SchemeFeedback& f : s.nak_more) n += wire::nack_entries(f);
  return n;
}

void ReqManagerCore::sync_uet_nacks(Cycle t, Slot& s, bool sent) {
  if (!uet_nack_mem_) return;
  const uint32_t n = sent ? 0 : uet_nacks_waiting(s);
  if (n > s.uet_nack_entries) uet_nack_mem_->count(false, n - s.uet_nack_entries);
  if (sent) uet_nack_mem_->count(true, s.uet_nack_entries);
  uet_nack_mem_->occupy(t, (static_cast<int64_t>(n) - s.uet_nack_entries) * kUetNackEntryBits);
  s.uet_nack_entries = n;
}

bool ReqManagerCore::uet_nack_holds(Slot& s, const wire::SchemeFeedback& next) {
  // One feedback register a QP (ORNIC's): a later frame replaces one not yet sent. UET's
  // NACK (a trimmed packet) must not be lost so: a UET ACK waits (the next one carries
  // what it said), and a UET NACK joins the pending ones, up to uet_nack_depth PSNs (3 a
  // frame); one more is lost rather than those waiting.
  using F = wire::SchemeFeedback;
  const F& pending = s.nak_feedback;
  if (pending.type != F::kNack || !(pending.info & wire::kUetNackFlag)) return false;
  if (next.type == F::kUetAck) {
    uet_acks_held_.inc();
    return true;
  }
  if (next.type != F::kNack || !(next.info & wire::kUetNackFlag)) return false;
  uint32_t held = 0;
  auto names = [&next](const F& f) {
    for (uint32_t i = 0; i < wire::nack_entries(f); ++i)
      if (f.psn[i] == next.psn[0]) return true;
    return false;
  };
  bool again = names(pending);
  held += wire::nack_entries(pending);
  for (const F& f : s.nak_more) held += wire::nack_entries(f), again = again || names(f);
  if (again) {  // its PSN waits already (a resend trimmed again): one NACK says it
    uet_nacks_merged_.inc();
    return true;
  }
  if (held >= p_.req_manager.uet_nack_depth) {
    uet_nacks_lost_.inc();
    return true;
  }
  F& last = s.nak_more.empty() ? s.nak_feedback : s.nak_more.back();
  const uint32_t n = wire::nack_entries(last);
  // A frame names PSNs of one kind (TRIMMED or PSN_OUT_OF_WINDOW: the kind is the frame's).
  if (n >= 3 || ((last.info ^ next.info) & wire::kUetNackOutOfWindow)) {
    s.nak_more.push_back(next);  // a further frame
  } else {
    last.psn[n] = next.psn[0];
    last.more_vp[n - 1] = next.vp;
    last.info = static_cast<uint8_t>((last.info & ~3u) | (n + 1));  // the first's kind
    if (wire::uet_nack_last_hop(next, 0)) last.info |= wire::uet_nack_last_hop_bit(n);
  }
  uet_nacks_merged_.inc();
  return true;
}

void ReqManagerCore::apply(const Pending& w) {
  Slot& s = slots_[w.qp];
  switch (w.kind) {
    case Kind::kAck:
      mem_.write(w.t, 64);
      s.psn = w.psn, s.msn = w.msn;
      s.cached = s.cached || w.flag;
      if (!s.queued) s.queued = true, ack_q_.push_back(w.qp);
      break;
    case Kind::kCnp:
      if (!s.cnp_queued) s.cnp_queued = true, cnp_q_.push_back(w.qp);
      break;
    case Kind::kFeedback:
      if (s.nak_queued && s.nak_is_feedback && uet_nack_holds(s, fbs_[w.block])) {
        // What waits goes out with the newest cumulative PSN (the ePSN only grows).
        if (wire::psn_diff(w.psn, s.nak_psn) > 0) s.nak_psn = w.psn, s.nak_msn = w.msn;
        free_fbs_.push_back(w.block);
        sync_uet_nacks(w.t, s, false);
        break;
      }
      [[fallthrough]];
    case Kind::kNak:
    case Kind::kBitmapNak:
      // A NAK of another kind replaces UET NACKs still waiting: they are lost as well.
      if (s.nak_queued) uet_nacks_lost_.inc(uet_nacks_waiting(s));
      s.nak_psn = w.psn, s.nak_msn = w.msn, s.nak_syndrome = w.syndrome;
      s.nak_is_bitmap = w.kind == Kind::kBitmapNak;
      s.nak_is_feedback = w.kind == Kind::kFeedback;
      s.nak_more.clear();
      if (s.nak_is_feedback) {
        s.nak_feedback = fbs_[w.block];
        free_fbs_.push_back(w.block);
      }
      if (s.nak_is_bitmap) {
        s.nak_block = blocks_[w.block];
        free_blocks_.push_back(w.block);
      }
      if (!s.nak_queued) s.nak_queued = true, nak_q_.push_back(w.qp);
      sync_uet_nacks(w.t, s, false);
      break;
    case Kind::kRead: {
      if (w.dup) {
        // A re-requested PSN still to be sent by a job of this QP is on its way:
        // nothing to do. One the job already sent (lost on the way) restarts a
        // standard READ's stream from there (an OOO re-request is one more job).
        bool covered = false;
        for (const ReadJob& j : reads_) {
          int32_t d = wire::psn_diff(w.psn, j.psn);
          covered = covered || (j.qp == w.qp && d >= 0 && static_cast<uint32_t>(d) >= j.sent &&
                                static_cast<uint32_t>(d) < j.packets);
        }
        if (covered) {
          dup_reads_ignored_.inc();
          break;
        }
        if (!w.flag)
          for (auto it = reads_.begin(); it != reads_.end();)
            it = it->qp == w.qp ? reads_.erase(it) : it + 1;
      }
      ReadJob j;
      j.qp = w.qp, j.va = w.va, j.len = w.len, j.psn = w.psn, j.msn = w.msn, j.ooo = w.flag;
      uint32_t pmtu = qps_.at(w.qp).pmtu;
      j.packets = std::max<uint32_t>(1, (w.len + pmtu - 1) / pmtu);
      j.data.resize(size_t{p_.dma.read_prefetch_packets} * pmtu);
      reads_.push_back(std::move(j));
      break;
    }
  }
}

void ReqManagerCore::prefetch(ReadJob& j, Cycle now) {
  uint32_t pmtu = qps_.at(j.qp).pmtu;
  while (j.fetched < j.packets && j.fetched - j.sent < p_.dma.read_prefetch_packets) {
    uint32_t off = j.fetched * pmtu;
    uint32_t n = std::min(pmtu, j.len - std::min(j.len, off));
    uint8_t* slot = j.data.data() + size_t{j.fetched % p_.dma.read_prefetch_packets} * pmtu;
    j.ready.push_back(n ? dma_.read(now, j.va + off, slot, n) : now);
    ++j.fetched;
  }
}

void ReqManagerCore::apply_due(Cycle now) {
  while (!pending_.empty() && pending_.top().t <= now) {
    apply(pending_.top());
    pending_.pop();
  }
  if (p_queue_.on()) p_queue_.set(now, ack_q_.size());
}

void ReqManagerCore::send_control(Cycle now) {
  if (!nak_q_.empty()) {
    uint32_t qp = nak_q_.front();
    nak_q_.pop_front();
    Slot& s = slots_[qp];
    s.nak_queued = false;
    Cycle t = mem_.read(now + p_.req_manager.schedule_cycles, 64);
    sync_uet_nacks(t, s, true);
    if (s.nak_is_feedback) {
      last_activity_ =
          hdr_generator_port->send_feedback(t, qps_.at(qp), s.nak_psn, s.nak_msn, s.nak_feedback);
      for (const wire::SchemeFeedback& f : s.nak_more)
        last_activity_ = hdr_generator_port->send_feedback(t, qps_.at(qp), s.nak_psn, s.nak_msn, f);
      s.nak_more.clear();
    } else if (s.nak_is_bitmap)
      last_activity_ =
          hdr_generator_port->send_bitmap_nak(t, qps_.at(qp), s.nak_psn, s.nak_msn, s.nak_block);
    else
      last_activity_ =
          hdr_generator_port->send_ack(t, qps_.at(qp), s.nak_psn, s.nak_msn, s.nak_syndrome, false);
    return;
  }
  if (!cnp_q_.empty()) {  // congestion news goes before ACKs
    uint32_t qp = cnp_q_.front();
    cnp_q_.pop_front();
    slots_[qp].cnp_queued = false;
    last_activity_ =
        hdr_generator_port->send_cnp(now + p_.req_manager.schedule_cycles, qps_.at(qp));
    return;
  }
  uint32_t qp = ack_q_.front();
  ack_q_.pop_front();
  Slot& s = slots_[qp];
  s.queued = false;
  Cycle t = mem_.read(now + p_.req_manager.schedule_cycles, 64);
  acks_sent_.inc();
  last_activity_ =
      hdr_generator_port->send_ack(t, qps_.at(qp), s.psn, s.msn, wire::kAethAckNoCredit, s.cached);
  s.cached = false;
}

Cycle ReqManagerCore::read_ready(Cycle now) {
  if (reads_.empty()) return kNever;
  ReadJob& j = reads_.front();
  prefetch(j, now);
  return j.ready.front();
}

void ReqManagerCore::send_read(Cycle now) {
  ReadJob& j = reads_.front();
  const QpContext& qp = qps_.at(j.qp);
  uint32_t pmtu = qp.pmtu;
  uint32_t off = j.sent * pmtu;
  uint32_t n = std::min(pmtu, j.len - std::min(j.len, off));
  uint8_t op;
  if (j.ooo)
    op = wire::kOooReadResponse;
  else if (j.packets == 1)
    op = wire::kReadResponseOnly;
  else if (j.sent == 0)
    op = wire::kReadResponseFirst;
  else if (j.sent + 1 == j.packets)
    op = wire::kReadResponseLast;
  else
    op = wire::kReadResponseMiddle;
  const uint8_t* data = j.data.data() + size_t{j.sent % p_.dma.read_prefetch_packets} * pmtu;
  last_activity_ = hdr_generator_port->send_read_response(
      now + p_.req_manager.schedule_cycles, qp, op, wire::psn_add(j.psn, j.sent), j.msn, data, n);
  j.ready.pop_front();
  ++j.sent;
  if (j.sent == j.packets) {
    reads_.pop_front();
  } else if (reads_.size() > 1) {
    // Round-robin: the job's fetched data stays in its own slots.
    reads_.push_back(std::move(reads_.front()));
    reads_.pop_front();
  } else {
    prefetch(j, now);
  }
}

}  // namespace oonic::ornic
