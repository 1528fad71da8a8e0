#include "model/ornic/tx/qp_manager.h"

#include "model/eunomia/sender_agent.h"

#include <algorithm>

#include "model/ornic/control/cqe_manager.h"
#include "model/ornic/control/rsp_manager.h"

namespace oonic::ornic {

namespace {
// A prefetch slot: room for the headers, the payload (nic.pmtu_bytes is at most
// 4096), pad and ICRC; the Hdr Generator builds the frame around the payload.
constexpr uint32_t kHeadroom = 128;
constexpr uint32_t kSlotBytes = kHeadroom + 4096 + 8;
}  // namespace

QpManager::QpManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
                     RegisterFile& regs, DmaEngine& dma, HdrGenerator& hdr, Agenda& agenda)
    : sc_module(name),
      p_(env.p),
      qps_(qps),
      regs_(regs),
      dma_(dma),
      hdr_(hdr),
      agenda_(agenda),
      cache_("tx.wqe_cache", env.p.sram.wqe_cache, env.stats, env.sram_stat("tx.wqe_cache")),
      sq_(env.p.nic.max_qps),
      slots_(size_t{env.p.qp_manager.prefetch_packets} * kSlotBytes),
      doorbells_(env.stats.counter(std::string(this->name()) + ".doorbells", "write",
                                   "SQ_DOORBELL writes taken")),
      wqes_fetched_(env.stats.counter(std::string(this->name()) + ".wqes_fetched", "WQE",
                                      "WQEs fetched from send queues into the WQE cache")),
      bad_wqes_(env.stats.counter(std::string(this->name()) + ".bad_wqes", "WQE",
                                  "malformed WQEs or doorbells of unconfigured QPs (error CQE or "
                                  "ignored)")),
      packets_(env.stats.counter(std::string(this->name()) + ".packets", "packet",
                                 "request packets sent (WRITE/SEND data, READ requests), "
                                 "retransmissions included")),
      retx_packets_(env.stats.counter(std::string(this->name()) + ".retransmitted", "packet",
                                      "request packets sent again (go-back-N, selective, "
                                      "timeout, READ re-request)")),
      stale_(env.stats.counter(std::string(this->name()) + ".stale_prefetches", "packet",
                               "prefetched packets dropped before sending (ACKed meanwhile or "
                               "superseded by go-back-N)")),
      payload_bytes_(env.stats.counter(std::string(this->name()) + ".payload_bytes", "byte",
                                       "request payload bytes sent (retransmissions included)")),
      window_stalls_(env.stats.counter(std::string(this->name()) + ".window_stalls", "event",
                                       "times a QP had data but its PSN window was full")) {}

Cycle QpManager::timeout_cycles(uint32_t qi) const {
  uint32_t r = regs_.peek(qi, QpReg::kTimeoutCycles);
  if (r) return r;
  const QpContext& c = qps_.at(qi);
  CycleClock clk(p_.nic.clock_mhz);
  double ns = p_.rsp_manager.rtt_ns + double(c.otd) * c.pmtu * 8.0 / p_.mac.rate_gbps;
  return std::max<Cycle>(1, clk.ceil_cycles(static_cast<uint64_t>(ns * 1000.0)));
}

void QpManager::doorbell(Cycle t, uint32_t qi, uint32_t pi) {
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
      s.timeout_cycles = timeout_cycles(qi);
      s.configured = true;
    }
    s.sq_pi = pi & 0xFFFF;
    fetch(x, qi);
  });
}

void QpManager::fetch(Cycle t, uint32_t qi) {
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
      dma_.read(t, s.sq_base + uint64_t{pos} * kWqeBytes, fetch_buf_.data(), n * kWqeBytes);
  Cycle last = done;
  const uint32_t bits = cache_.params().width_bits;
  for (uint32_t k = 0; k < n; ++k) {
    TxWqe w;
    w.seq = s.fetched + k;
    w.bad = !w.w.decode(fetch_buf_.data() + size_t{k} * kWqeBytes);
    w.cached_at = last = cache_.write(done + uint64_t{k + 1} * p_.qp_manager.fetch_cycles, bits);
    cache_.occupy(w.cached_at, bits);
    if (w.bad) bad_wqes_.inc();
    s.wqes.push_back(w);
    if (cqe_) cqe_->registered();
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

void QpManager::activate(Cycle t, uint32_t qi) {
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
      if (cqe_) cqe_->poll(t, qi);
      continue;
    }
    w.start_psn = s.next_psn;
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

void QpManager::retire(Cycle t, uint32_t qi) {
  SqState& s = sq_[qi];
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
  s.wqes.pop_front();
  --s.active;
  --cached_wqes_;
}

void QpManager::kick_qp(Cycle t, uint32_t qi) {
  activate(t, qi);
  fetch(t, qi);
  enqueue(qi);
}

void QpManager::enqueue(uint32_t qi) {
  SqState& s = sq_[qi];
  if (s.queued || !sendable(qi)) return;
  s.queued = true;
  rr_.push_back(qi);  // always called from the arbiter's process: it looks at rr_ next
}

TxWqe* QpManager::wqe_of(SqState& s, uint32_t psn) {
  for (uint32_t i = 0; i < s.active; ++i) {
    TxWqe& w = s.wqes[i];
    if (w.bad) continue;
    int32_t d = wire::psn_diff(psn, w.start_psn);
    if (d >= 0 && static_cast<uint32_t>(d) < w.npsn) return &w;
  }
  return nullptr;
}

bool QpManager::holds_last(uint32_t qi) const {
  // Eunomia's sender agent holds an OOO WRITE's last packet until everything before
  // it is acknowledged in order.
  const SqState& s = sq_[qi];
  if (!sender_ || s.send_psn == s.una) return false;
  bool last = false;
  for (uint32_t i = 0; i < s.active && !last; ++i) {
    const TxWqe& w = s.wqes[i];
    if (w.bad || !w.w.ooo || w.w.op != WqeOp::kWrite) continue;
    last = wire::psn_add(w.start_psn, w.npsn - 1) == s.send_psn;
  }
  return sender_->holds_last(qi, last, s.send_psn, s.una);
}

bool QpManager::sendable(uint32_t qi) const {
  const SqState& s = sq_[qi];
  if (!s.configured) return false;
  if (!s.retx.empty()) return true;
  if (wire::psn_diff(s.send_psn, s.next_psn) >= 0) return false;
  if (holds_last(qi)) return false;
  return wire::psn_diff(s.send_psn, s.una) < static_cast<int32_t>(p_.qp_manager.max_inflight_psns);
}

bool QpManager::pick(Cycle now, TxPacket& out) {
  (void)now;
  while (!rr_.empty()) {
    uint32_t qi = rr_.front();
    rr_.pop_front();
    SqState& s = sq_[qi];
    s.queued = false;
    const QpContext& c = qps_.at(qi);
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
    if (!got) {
      if (wire::psn_diff(s.send_psn, s.next_psn) >= 0) continue;
      if (wire::psn_diff(s.send_psn, s.una) >=
          static_cast<int32_t>(p_.qp_manager.max_inflight_psns)) {
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
    enqueue(qi);
    return true;
  }
  return false;
}

bool QpManager::stale(const TxPacket& k) const {
  const SqState& s = sq_[k.qi];
  if (k.epoch != s.epoch) return true;
  if (s.wqes.empty() || k.wqe_seq < s.wqes.front().seq) return true;
  const TxWqe& w = s.wqes[k.wqe_seq - s.wqes.front().seq];
  if (k.read_request) return w.data_done;
  return w.acked || wire::psn_diff(k.psn, s.una) < 0;
}

Cycle QpManager::head_ready(Cycle now) {
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
      const TxWqe& w = sq_[k.qi].wqes[k.wqe_seq - sq_[k.qi].wqes.front().seq];
      k.ready = dma_.read(now, w.w.local_addr + k.offset,
                          slots_.data() + size_t{k.slot} * kSlotBytes + kHeadroom, k.len);
    }
    fifo_.push_back(k);
  }
  return fifo_.empty() ? kNever : fifo_.front().ready;
}

bool QpManager::send_head(Cycle now) {
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
      bool addr = !w.start_addr_cached;
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
    // Eunomia's sender agent: Head (the message's first PSN) and last on every packet
    // of an OOO WRITE or SEND (an OOO SEND keeps the standard SEND opcodes).
    if (sender_ && w.w.ooo) sender_->tag(f, w.start_psn, last);
  }
  Cycle g = now + p_.arbiter.schedule_cycles;
  Cycle r = cache_.read(g, cache_.params().width_bits);
  Cycle start = hdr_.send_data(r, c, f, /*in_place=*/f.payload_len > 0);
  packets_.inc();
  payload_bytes_.inc(f.payload_len);
  if (k.retx) retx_packets_.inc();
  last_activity_ = std::max(last_activity_, start);
  if (rsp_) rsp_->sent(start, k.qi);
  return true;
}

void QpManager::go_back(uint32_t qi, uint32_t psn) {
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

bool QpManager::idle() const {
  if (!fifo_.empty()) return false;
  for (const SqState& s : sq_)
    if (!s.wqes.empty()) return false;
  return true;
}

}  // namespace oonic::ornic
