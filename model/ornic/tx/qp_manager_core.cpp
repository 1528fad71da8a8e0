#include "model/ornic/tx/qp_manager_core.h"

#include <algorithm>

namespace oonic::ornic {

namespace {
// A prefetch slot: room for the headers, the payload (nic.pmtu_bytes is at most
// 4096), pad and ICRC; the Hdr Generator builds the frame around the payload.
constexpr uint32_t kHeadroom = 128;
// Headroom for the headers, the payload, its pad and ICRC, and room for an INT trailer.
constexpr uint32_t kSlotBytes =
    kHeadroom + 4096 + 8 + static_cast<uint32_t>(wire::int_trailer_bytes(wire::kMaxIntHops));
}  // namespace

QpManagerCore::QpManagerCore(const CoreEnv& env, QpContextTable& qps, const RegisterFile& regs,
                             Agenda& agenda, Sram& wqe_cache, Links links)
    : p_(env.p),
      uet_wire_(env.p.uet_wire()),
      qps_(qps),
      regs_(regs),
      agenda_(agenda),
      cache_(wqe_cache),
      l_(links),
      sq_(env.p.nic.max_qps),
      doorbells_(env.stats.counter("doorbells", "write", "SQ_DOORBELL writes taken")),
      wqes_fetched_(env.stats.counter("wqes_fetched", "WQE",
                                      "WQEs fetched from send queues into the WQE cache")),
      bad_wqes_(env.stats.counter("bad_wqes", "WQE",
                                  "malformed WQEs or doorbells of unconfigured QPs (error CQE or "
                                  "ignored)")),
      packets_(env.stats.counter("packets", "packet",
                                 "request packets sent (WRITE/SEND data, READ requests), "
                                 "retransmissions included")),
      retx_packets_(env.stats.counter("retransmitted", "packet",
                                      "request packets sent again (go-back-N, selective, "
                                      "timeout, READ re-request)")),
      stale_(env.stats.counter("stale_prefetches", "packet",
                               "prefetched packets dropped before sending (ACKed meanwhile or "
                               "superseded by go-back-N)")),
      payload_bytes_(env.stats.counter("payload_bytes", "byte",
                                       "request payload bytes sent (retransmissions included)")),
      window_stalls_(env.stats.counter("window_stalls", "event",
                                       "times a QP had data but its PSN window was full")),
      window_(env.p.window_psns()) {}

void QpManagerCore::doorbell(Cycle t, uint32_t qi, uint32_t pi) {
  doorbells_.inc();
  agenda_.at(t, [this, qi, pi](Cycle x) {
    if (qi >= qps_.size()) {
      bad_wqes_.inc();
      return;
    }
    SqState& s = sq_[qi];
    if (!s.configured) {
      // The ring registers are latched at the QP's first doorbell.
      s.sq_base =
          uint64_t{regs_.peek(qi, QpReg::kSqBaseHi)} << 32 | regs_.peek(qi, QpReg::kSqBaseLo);
      s.cq_base =
          uint64_t{regs_.peek(qi, QpReg::kCqBaseHi)} << 32 | regs_.peek(qi, QpReg::kCqBaseLo);
      s.sq_size = regs_.peek(qi, QpReg::kSqSize);
      s.cq_size = regs_.peek(qi, QpReg::kCqSize);
      if (!s.sq_size || !s.cq_size) {
        bad_wqes_.inc();
        return;
      }
      s.next_psn = s.send_psn = s.high_psn = s.una = regs_.peek(qi, QpReg::kSqPsn) & wire::kPsnMask;
      s.configured = true;
    }
    s.sq_pi = pi & 0xFFFF;
    fetch(x, qi);
  });
}

void QpManagerCore::fetch(Cycle t, uint32_t qi) {
  SqState& s = sq_[qi];
  if (s.fetch_busy || !s.configured) return;
  uint32_t avail = (s.sq_pi - static_cast<uint32_t>(s.fetched)) & 0xFFFF;
  uint32_t room = p_.qp_manager.max_outstanding_wqes > s.wqes.size()
                      ? p_.qp_manager.max_outstanding_wqes - static_cast<uint32_t>(s.wqes.size())
                      : 0;
  uint64_t cache_room =
      cache_.params().depth > cached_wqes_ ? cache_.params().depth - cached_wqes_ : 0;
  uint32_t pos = static_cast<uint32_t>(s.fetched % s.sq_size);
  uint32_t n = std::min({avail, room, p_.qp_manager.fetch_batch, s.sq_size - pos,
                         static_cast<uint32_t>(std::min<uint64_t>(cache_room, 1u << 20))});
  if (!n) return;
  fetch_buf_.resize(size_t{n} * kWqeBytes);
  Cycle done =
      l_.dma.read(t, s.sq_base + uint64_t{pos} * kWqeBytes, fetch_buf_.data(), n * kWqeBytes);
  Cycle last = done;
  const uint32_t bits = cache_.params().width_bits;
  for (uint32_t k = 0; k < n; ++k) {
    TxWqe w;
    w.seq = s.fetched + k;
    w.bad = !w.w.decode(fetch_buf_.data() + size_t{k} * kWqeBytes);
    // UET's wire: every WRITE packet carries its placement (an OOO WRITE, FSpot
    // throughout; uet_nic.h).
    if (uet_wire_ && !w.bad && w.w.op == WqeOp::kWrite) w.w.ooo = true;
    w.cached_at = last = cache_.write(done + uint64_t{k + 1} * p_.qp_manager.fetch_cycles, bits);
    cache_.occupy(w.cached_at, bits);
    if (w.bad) bad_wqes_.inc();
    s.wqes.push_back(w);
    l_.completions.registered();
  }
  wqes_fetched_.inc(n);
  cached_wqes_ += n;
  s.fetched += n;
  s.fetch_busy = true;
  agenda_.at(last, [this, qi](Cycle x) {
    sq_[qi].fetch_busy = false;
    kick_qp(x, qi);
  });
}

void QpManagerCore::activate(Cycle t, uint32_t qi) {
  SqState& s = sq_[qi];
  QpContext& c = qps_.at(qi);
  while (s.active < s.wqes.size()) {
    TxWqe& w = s.wqes[s.active];
    if (w.cached_at > t) break;
    bool ooo_out = s.active > 0 && s.wqes[s.active - 1].w.ooo;  // only one WQE with an OOO one
    if (ooo_out) break;
    if (w.w.ooo && !w.bad && s.active > 0) break;
    if (s.active >= p_.qp_manager.max_outstanding_wqes) break;
    w.active = true;
    ++s.active;
    if (w.bad) {
      l_.completions.poll(t, qi);
      continue;
    }
    w.start_psn = s.next_psn;
    w.msn = static_cast<uint32_t>(s.msn++);
    if (w.w.sync) ++s.syncs, w.sync_counted = true;
    w.npsn = std::max<uint32_t>(1, (w.w.length + c.pmtu - 1) / c.pmtu);
    s.next_psn = wire::psn_add(s.next_psn, w.npsn);
    if (w.w.op == WqeOp::kRead) {
      ReadWqe r;
      r.start_psn = w.start_psn;
      r.length = w.w.length;
      r.local_addr = w.w.local_addr;
      r.ooo = w.w.ooo;
      r.packets = w.npsn;
      r.next_psn = w.start_psn;
      c.reads.push_back(r);
    }
  }
}

bool QpManagerCore::head_completed(uint32_t qi, CompletedWqe* out) const {
  const SqState& s = sq_[qi];
  if (s.active == 0) return false;
  const TxWqe& w = s.wqes.front();
  const bool complete = w.bad || (w.w.op == WqeOp::kRead ? w.data_done : w.acked);
  if (!complete) return false;
  out->wr_id = w.w.wr_id;
  out->op = static_cast<uint8_t>(w.w.op);
  out->bad = w.bad;
  out->ooo = w.w.ooo;
  out->length = w.w.length;
  out->start_psn = w.start_psn;
  out->data_done_at = w.data_done_at;
  out->cq_addr = s.cq_base + (s.cq_pi % s.cq_size) * kCqeBytes;
  return true;
}

Cycle QpManagerCore::read_wqe_cache(Cycle t) {
  return cache_.read(t, cache_.params().width_bits);
}

void QpManagerCore::retire(Cycle t, uint32_t qi) {
  SqState& s = sq_[qi];
  ++s.cq_pi;
  TxWqe& w = s.wqes.front();
  if (w.w.op == WqeOp::kRead && !w.bad) {
    auto& rs = qps_.at(qi).reads;
    for (auto it = rs.begin(); it != rs.end(); ++it)
      if (it->start_psn == w.start_psn) {
        rs.erase(it);
        break;
      }
  }
  cache_.occupy(t, -static_cast<int64_t>(cache_.params().width_bits));
  if (w.sync_counted) --s.syncs;
  s.wqes.pop_front();
  --s.active;
  --cached_wqes_;
}

void QpManagerCore::kick_qp(Cycle t, uint32_t qi) {
  activate(t, qi);
  fetch(t, qi);
  enqueue(qi);
}

void QpManagerCore::restart_window(uint32_t qi, uint32_t psns) {
  sq_[qi].loss_window = psns < window_ ? psns : 0;
}

void QpManagerCore::enqueue(uint32_t qi) {
  SqState& s = sq_[qi];
  if (s.queued || !sendable(qi)) return;
  s.queued = true;
  rr_.push_back(qi);  // always called from the arbiter's process: it looks at rr_ next
}

TxWqe* QpManagerCore::wqe_of(SqState& s, uint32_t psn) {
  return const_cast<TxWqe*>(wqe_of(static_cast<const SqState&>(s), psn));
}

const TxWqe* QpManagerCore::wqe_of(const SqState& s, uint32_t psn) const {
  for (uint32_t i = 0; i < s.active; ++i) {
    const TxWqe& w = s.wqes[i];
    if (w.bad) continue;
    int32_t d = wire::psn_diff(psn, w.start_psn);
    if (d >= 0 && static_cast<uint32_t>(d) < w.npsn) return &w;
  }
  return nullptr;
}

bool QpManagerCore::in_write_or_send(uint32_t qi, uint32_t psn) const {
  const TxWqe* w = wqe_of(sq_[qi], psn);
  return w && w->w.op != WqeOp::kRead;
}

const TxWqe* QpManagerCore::read_wqe(uint32_t qi, uint32_t read_psn) const {
  const SqState& s = sq_[qi];
  for (uint32_t i = 0; i < s.active; ++i)
    if (!s.wqes[i].bad && s.wqes[i].w.op == WqeOp::kRead && s.wqes[i].start_psn == read_psn)
      return &s.wqes[i];
  return nullptr;
}

TxWqe* QpManagerCore::read_wqe(uint32_t qi, uint32_t read_psn) {
  return const_cast<TxWqe*>(static_cast<const QpManagerCore*>(this)->read_wqe(qi, read_psn));
}

bool QpManagerCore::read_active(uint32_t qi, uint32_t read_psn) const {
  return read_wqe(qi, read_psn) != nullptr;
}

bool QpManagerCore::read_done(uint32_t qi, uint32_t read_psn) const {
  const TxWqe* w = read_wqe(qi, read_psn);
  return w && w->data_done;
}

uint32_t QpManagerCore::read_npsn(uint32_t qi, uint32_t read_psn) const {
  const TxWqe* w = read_wqe(qi, read_psn);
  return w ? w->npsn : 0;
}

void QpManagerCore::read_data(uint32_t qi, uint32_t read_psn, Cycle dma_done, bool complete) {
  TxWqe* w = read_wqe(qi, read_psn);
  if (!w) return;
  if (complete && !w->data_done) w->data_done = true;
  w->data_done_at = std::max(w->data_done_at, dma_done);
}

bool QpManagerCore::acknowledge(uint32_t qi, uint32_t una, uint32_t* from) {
  SqState& s = sq_[qi];
  if (wire::psn_diff(una, s.una) <= 0 || wire::psn_diff(una, s.high_psn) > 0) return false;
  *from = s.una;
  s.una = una;
  if (s.loss_window) {  // slow start after a timeout: one more PSN per PSN acknowledged
    s.loss_window += static_cast<uint32_t>(wire::psn_diff(una, *from));
    if (s.loss_window >= window_) s.loss_window = 0;
  }
  for (uint32_t i = 0; i < s.active; ++i) {
    TxWqe& w = s.wqes[i];
    if (w.bad || w.w.op == WqeOp::kRead || w.acked) continue;
    if (wire::psn_diff(s.una, wire::psn_add(w.start_psn, w.npsn)) >= 0) w.acked = true;
  }
  while (!s.retx.empty() && !s.retx.front().reread && wire::psn_diff(s.retx.front().psn, s.una) < 0)
    s.retx.pop_front();
  return true;
}

void QpManagerCore::start_addr_cached(uint32_t qi) {
  // The responder cached Start_Addr of the QP's (single) OOO WRITE WQE.
  SqState& s = sq_[qi];
  for (uint32_t i = 0; i < s.active; ++i)
    if (s.wqes[i].w.ooo && s.wqes[i].w.op == WqeOp::kWrite) s.wqes[i].start_addr_cached = true;
}

bool QpManagerCore::fail_wqe_at(uint32_t qi, uint32_t psn) {
  TxWqe* w = wqe_of(sq_[qi], psn);
  if (!w) return false;
  w->bad = true;
  return true;
}

bool QpManagerCore::resend(uint32_t qi, uint32_t psn) {
  SqState& s = sq_[qi];
  if (wire::psn_diff(psn, s.una) < 0 || wire::psn_diff(psn, s.high_psn) >= 0) return false;
  for (const Retx& r : s.retx)
    if (!r.reread && r.psn == psn) return false;
  s.retx.push_back(Retx{psn, false, 0});
  return true;
}

bool QpManagerCore::reread(uint32_t qi, uint32_t psn, uint32_t count) {
  SqState& s = sq_[qi];
  for (const Retx& r : s.retx)
    if (r.reread && r.psn == psn) return false;
  s.retx.push_back(Retx{psn, true, count});
  return true;
}

void QpManagerCore::unfinished_reads(uint32_t qi, std::vector<uint32_t>& first_psns) const {
  const SqState& s = sq_[qi];
  first_psns.clear();
  for (uint32_t i = 0; i < s.active; ++i) {
    const TxWqe& w = s.wqes[i];
    if (w.bad || w.w.op != WqeOp::kRead || w.data_done) continue;
    if (wire::psn_diff(s.una, wire::psn_add(w.start_psn, w.npsn)) < 0) continue;  // resent anyway
    first_psns.push_back(w.start_psn);
  }
}

bool QpManagerCore::inflight(uint32_t qi) const {
  // Only something sent and not yet answered can time out; WQEs still waiting for their
  // turn to send re-arm the timer when they are sent.
  const SqState& s = sq_[qi];
  bool in = wire::psn_diff(s.high_psn, s.una) > 0;
  for (uint32_t i = 0; i < s.active && !in; ++i) {
    const TxWqe& w = s.wqes[i];
    in = !w.bad && w.w.op == WqeOp::kRead && !w.data_done &&
         wire::psn_diff(s.high_psn, w.start_psn) > 0;
  }
  return in;
}

bool QpManagerCore::holds_last(uint32_t qi) {
  // A sender policy may hold an OOO WRITE's last packet (Eunomia: until everything
  // before it is acknowledged in order).
  const SqState& s = sq_[qi];
  if (s.send_psn == s.una) return false;
  bool last = false;
  for (uint32_t i = 0; i < s.active && !last; ++i) {
    const TxWqe& w = s.wqes[i];
    if (w.bad || !w.w.ooo || w.w.op != WqeOp::kWrite) continue;
    last = wire::psn_add(w.start_psn, w.npsn - 1) == s.send_psn;
  }
  return l_.recovery.holds(qi, last, s.send_psn, s.una);
}

uint32_t QpManagerCore::queued_resends(uint32_t qi) const {
  // The queued PSNs still outstanding (an ACK may have passed one since it was queued).
  const SqState& s = sq_[qi];
  uint32_t n = 0;
  for (const Retx& r : s.retx)
    if (!r.reread && wire::psn_diff(r.psn, s.una) >= 0 && wire::psn_diff(r.psn, s.send_psn) < 0)
      ++n;
  return n;
}

bool QpManagerCore::has_new(uint32_t qi) const {
  const SqState& s = sq_[qi];
  return !s.retx.empty() || wire::psn_diff(s.send_psn, s.next_psn) < 0;
}

bool QpManagerCore::sync_first(const SqState& s) const {
  // The next new packet opens a WQE with the synchronise flag, sent for the first time.
  if (!s.syncs || !s.retx.empty() || wire::psn_diff(s.send_psn, s.high_psn) < 0) return false;
  const TxWqe* w = wqe_of(s, s.send_psn);
  return w && w->w.sync && w->start_psn == s.send_psn;
}

bool QpManagerCore::sendable(uint32_t qi) const {
  const SqState& s = sq_[qi];
  if (!s.configured) return false;
  if (!s.retx.empty()) return true;
  if (l_.recovery.has_resend(*this, qi)) return true;
  if (wire::psn_diff(s.send_psn, s.next_psn) >= 0) return false;
  if (const_cast<QpManagerCore*>(this)->holds_last(qi)) return false;
  return window_open(s);
}

bool QpManagerCore::pick(Cycle now, TxPacket& out) {
  while (!rr_.empty()) {
    uint32_t qi = rr_.front();
    rr_.pop_front();
    SqState& s = sq_[qi];
    s.queued = false;
    const QpContext& c = qps_.at(qi);
    // A window core (MP-RDMA) may close the QP until feedback (it kicks the QP then) or
    // a timer (booked here) reopens it.
    const Cycle at = l_.rate.send_at(qi, now, *this, sync_first(s));
    if (at > now) {
      if (at != kNever && s.wake_at != at) {
        s.wake_at = at;
        agenda_.at(at, [this, qi](Cycle x) {
          if (sq_[qi].wake_at == x) sq_[qi].wake_at = kNever;
          kick_qp(x, qi);
        });
      }
      continue;
    }
    bool got = false;
    while (!got && !s.retx.empty()) {
      Retx r = s.retx.front();
      s.retx.pop_front();
      TxWqe* w = wqe_of(s, r.psn);
      if (!w) continue;
      uint32_t k = static_cast<uint32_t>(wire::psn_diff(r.psn, w->start_psn));
      out = TxPacket{};
      out.qi = qi, out.epoch = s.epoch, out.wqe_seq = w->seq, out.psn = r.psn, out.retx = true;
      if (w->w.op == WqeOp::kRead) {
        if (w->data_done) continue;
        uint32_t cnt = r.count ? std::min(r.count, w->npsn - k) : w->npsn - k;
        out.read_request = true;
        out.offset = k * c.pmtu;
        out.len = std::min(w->w.length - std::min(w->w.length, out.offset), cnt * c.pmtu);
      } else {
        if (w->acked || wire::psn_diff(r.psn, s.una) < 0) continue;
        out.offset = k * c.pmtu;
        out.len = std::min(c.pmtu, w->w.length - std::min(w->w.length, out.offset));
      }
      got = true;
    }
    // Resends the recovery core paces itself (MP-RDMA's recovery mode, early retransmit).
    uint32_t rpsn = 0;
    while (!got && l_.recovery.next_resend(*this, qi, &rpsn)) {
      TxWqe* w = wqe_of(s, rpsn);
      if (!w || w->w.op == WqeOp::kRead || w->acked) continue;
      const uint32_t k = static_cast<uint32_t>(wire::psn_diff(rpsn, w->start_psn));
      out = TxPacket{};
      out.qi = qi, out.epoch = s.epoch, out.wqe_seq = w->seq, out.psn = rpsn, out.retx = true;
      out.offset = k * c.pmtu;
      out.len = std::min(c.pmtu, w->w.length - std::min(w->w.length, out.offset));
      got = true;
    }
    if (!got) {
      if (wire::psn_diff(s.send_psn, s.next_psn) >= 0) continue;
      if (!window_open(s)) {
        window_stalls_.inc();
        continue;
      }
      if (holds_last(qi)) continue;  // re-queued when an ACK moves the first unacked PSN
      TxWqe* w = wqe_of(s, s.send_psn);
      if (!w) {  // the pointer sits on a retired or bad WQE's span: skip to the next
        s.send_psn = wire::psn_add(s.send_psn, 1);
        enqueue(qi);
        continue;
      }
      uint32_t k = static_cast<uint32_t>(wire::psn_diff(s.send_psn, w->start_psn));
      out = TxPacket{};
      out.qi = qi, out.epoch = s.epoch, out.wqe_seq = w->seq, out.psn = s.send_psn;
      out.retx = wire::psn_diff(s.send_psn, s.high_psn) < 0;
      if (w->w.op == WqeOp::kRead) {
        out.read_request = true;
        out.offset = k * c.pmtu;
        out.len = w->w.length - std::min(w->w.length, out.offset);
        s.send_psn = wire::psn_add(w->start_psn, w->npsn);
      } else {
        out.offset = k * c.pmtu;
        out.len = std::min(c.pmtu, w->w.length - std::min(w->w.length, out.offset));
        s.send_psn = wire::psn_add(s.send_psn, 1);
      }
      if (wire::psn_diff(s.send_psn, s.high_psn) > 0) s.high_psn = s.send_psn;
    }
    out.sport = l_.rate.picked(qi, now, out.psn, out.retx, c.tx_template.udp_sport);
    enqueue(qi);
    return true;
  }
  return false;
}

bool QpManagerCore::stale(const TxPacket& k) const {
  const SqState& s = sq_[k.qi];
  if (k.epoch != s.epoch) return true;
  if (s.wqes.empty() || k.wqe_seq < s.wqes.front().seq) return true;
  const TxWqe& w = s.wqes[k.wqe_seq - s.wqes.front().seq];
  if (k.read_request) return w.data_done;
  return w.acked || wire::psn_diff(k.psn, s.una) < 0;
}

Cycle QpManagerCore::head_ready(Cycle now) {
  while (!fifo_.empty() && stale(fifo_.front())) {
    stale_.inc();
    fifo_.pop_front();
  }
  TxPacket k;
  while (fifo_.size() < p_.qp_manager.prefetch_packets && pick(now, k)) {
    k.slot = next_slot_;
    next_slot_ = (next_slot_ + 1) % p_.qp_manager.prefetch_packets;
    k.ready = now;
    if (!k.read_request && k.len) {
      // Made when the NIC first sends (an idle host never does).
      if (slots_.empty()) slots_.resize(size_t{p_.qp_manager.prefetch_packets} * kSlotBytes);
      const TxWqe& w = sq_[k.qi].wqes[k.wqe_seq - sq_[k.qi].wqes.front().seq];
      k.ready = l_.dma.read(now, w.w.local_addr + k.offset,
                            slots_.data() + size_t{k.slot} * kSlotBytes + kHeadroom, k.len);
    }
    // The rate core may hold the packet back (pacing); `none` never does.
    k.ready = std::max(k.ready, l_.rate.earliest(k.qi, now, k.len));
    fifo_.push_back(k);
  }
  return fifo_.empty() ? kNever : fifo_.front().ready;
}

bool QpManagerCore::send_head(Cycle now) {
  TxPacket k = fifo_.front();
  fifo_.pop_front();
  if (stale(k)) {
    stale_.inc();
    return false;
  }
  SqState& s = sq_[k.qi];
  TxWqe& w = s.wqes[k.wqe_seq - s.wqes.front().seq];
  const QpContext& c = qps_.at(k.qi);
  wire::FrameSpec f = c.tx_template;
  f.bth = wire::Bth{};
  f.bth.psn = k.psn & wire::kPsnMask;
  f.udp_sport = k.sport;
  if (l_.rate.ecn_capable()) f.tos = static_cast<uint8_t>((f.tos & 0xFC) | 0x2);  // ECT(0)
  const uint32_t idx = static_cast<uint32_t>(wire::psn_diff(k.psn, w.start_psn));
  const bool first = idx == 0, last = idx + 1 == w.npsn;
  if (k.read_request) {
    f.bth.opcode = w.w.ooo ? wire::kOooReadRequest : wire::kReadRequest;
    f.reth.va = w.w.remote_addr + k.offset;
    f.reth.rkey = w.w.rkey;
    f.reth.dma_len = k.len;
    f.bth.ack_req = true;
  } else {
    f.payload = slots_.data() + size_t{k.slot} * kSlotBytes + kHeadroom;
    f.payload_len = k.len;
    if (w.w.ooo && w.w.op == WqeOp::kWrite) {
      // FSpot until an ACK said Start_Addr is cached, then Spot; Last ends the WQE.
      bool addr = !w.start_addr_cached || uet_wire_;
      f.bth.opcode = last ? (addr ? wire::kOooWriteLastFSpot : wire::kOooWriteLast)
                          : (addr ? wire::kOooWriteFSpot : wire::kOooWriteSpot);
      if (addr) {
        f.reth.va = w.w.remote_addr + k.offset;
        f.reth.rkey = w.w.rkey;
        f.reth.dma_len = w.w.length;
      }
    } else if (w.w.op == WqeOp::kWrite) {
      f.bth.opcode = first && last ? wire::kWriteOnly
                     : first       ? wire::kWriteFirst
                     : last        ? wire::kWriteLast
                                   : wire::kWriteMiddle;
      if (first) {
        f.reth.va = w.w.remote_addr;
        f.reth.rkey = w.w.rkey;
        f.reth.dma_len = w.w.length;
      }
    } else {
      f.bth.opcode = first && last ? wire::kSendOnly
                     : first       ? wire::kSendFirst
                     : last        ? wire::kSendLast
                                   : wire::kSendMiddle;
    }
    f.bth.ack_req = last;
    f.uet.retx = k.retx, f.uet.msg_offset = k.offset;
    f.uet.msg_id = static_cast<uint16_t>(w.msn);
    l_.rate.tag(k.qi, f);  // the rate core's headers (HPCC: an empty INT stack)
    // The sender policy's headers on a data packet of an OOO WQE (Eunomia: Head and
    // last on every packet of an OOO WRITE or SEND, which keeps the standard opcodes).
    if (w.w.ooo) {
      sender::PacketTag tg;
      tg.head = w.start_psn, tg.last = last, tg.retx = k.retx, tg.sync = w.w.sync, tg.msn = w.msn;
      l_.recovery.tag(f, tg);
    }
  }
  Cycle g = now + p_.arbiter.schedule_cycles;
  Cycle r = cache_.read(g, cache_.params().width_bits);
  Cycle start = l_.hdr.send_data(r, c, f, /*in_place=*/f.payload_len > 0);
  packets_.inc();
  payload_bytes_.inc(f.payload_len);
  if (k.retx) retx_packets_.inc(), ++qps_.at(k.qi).recovery.retransmitted;
  last_activity_ = std::max(last_activity_, start);
  l_.rate.sent(k.qi, start, f.payload_len);
  l_.timer.sent(start, k.qi);
  return true;
}

void QpManagerCore::go_back(uint32_t qi, uint32_t psn) {
  SqState& s = sq_[qi];
  TxWqe* w = wqe_of(s, psn);
  if (w && w->w.op == WqeOp::kRead && psn != w->start_psn) {
    // Inside a READ's response span: re-request from there, go back after it.
    s.retx.clear();
    s.retx.push_back(Retx{psn, true, 0});
    psn = wire::psn_add(w->start_psn, w->npsn);
  } else {
    s.retx.clear();
  }
  if (wire::psn_diff(psn, s.send_psn) < 0) s.send_psn = psn;
  ++s.epoch;
  enqueue(qi);
}

bool QpManagerCore::idle() const {
  if (!fifo_.empty()) return false;
  bool none = true;
  sq_.each([&none](uint32_t, const SqState& s) { none = none && s.wqes.empty(); });
  return none;
}

}  // namespace oonic::ornic
