#include "model/ornic/control/rsp_manager.h"

#include "model/eunomia/sender_agent.h"

#include <algorithm>

#include "model/ornic/control/cqe_manager.h"
#include "model/ornic/tx/qp_manager.h"

namespace oonic::ornic {

RspManager::RspManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
                       Agenda& agenda, CqeManager& cqe)
    : sc_module(name),
      p_(env.p),
      qps_(qps),
      agenda_(agenda),
      cqe_(cqe),
      last_gap_(env.p.nic.max_qps, kNoGap),
      sack_resent_(env.p.nic.max_qps, kNoGap),
      acks_(env.stats.counter(std::string(this->name()) + ".acks", "frame",
                              "ACKs that advanced a QP's first unacknowledged PSN")),
      naks_(env.stats.counter(std::string(this->name()) + ".naks", "frame",
                              "PSN-sequence NAKs taken (each starts a go-back-N)")),
      go_backs_(env.stats.counter(std::string(this->name()) + ".go_backs", "event",
                                  "go-back-N restarts (NAK or timeout)")),
      bitmap_naks_(env.stats.counter(std::string(this->name()) + ".bitmap_naks", "frame",
                                     "OOO NAKs with a bitmap block taken")),
      selective_psns_(env.stats.counter(std::string(this->name()) + ".selective_psns", "PSN",
                                        "PSNs queued for selective retransmission from bitmap "
                                        "NAKs")),
      rereads_(env.stats.counter(std::string(this->name()) + ".read_rerequests", "request",
                                 "READ re-requests queued (lost READ responses)")),
      timeouts_(env.stats.counter(std::string(this->name()) + ".timeouts", "event",
                                  "requester timeouts fired")),
      error_naks_(env.stats.counter(std::string(this->name()) + ".error_naks", "frame",
                                    "remote access / invalid request NAKs (the WQE completes "
                                    "with an error)")),
      feedback_(env.stats.counter(std::string(this->name()) + ".scheme_feedback", "frame",
                                  "Scheme Feedback frames taken (MELO NACK, SACK, NACK, MP-RDMA "
                                  "ACK)")) {}

TxWqe* RspManager::read_wqe(uint32_t qi, uint32_t read_psn) {
  SqState& s = qpm_->sq(qi);
  for (uint32_t i = 0; i < s.active; ++i)
    if (!s.wqes[i].bad && s.wqes[i].w.op == WqeOp::kRead && s.wqes[i].start_psn == read_psn)
      return &s.wqes[i];
  return nullptr;
}

void RspManager::advance(Cycle t, uint32_t qi, uint32_t una) {
  SqState& s = qpm_->sq(qi);
  if (wire::psn_diff(una, s.una) <= 0 || wire::psn_diff(una, s.high_psn) > 0) return;
  if (sender_) sender_->advanced(qi, s.una, una);
  s.una = una;
  s.deadline = t + s.timeout_cycles;
  for (uint32_t i = 0; i < s.active; ++i) {
    TxWqe& w = s.wqes[i];
    if (w.bad || w.w.op == WqeOp::kRead || w.acked) continue;
    if (wire::psn_diff(s.una, wire::psn_add(w.start_psn, w.npsn)) >= 0) w.acked = true;
  }
  while (!s.retx.empty() && !s.retx.front().reread && wire::psn_diff(s.retx.front().psn, s.una) < 0)
    s.retx.pop_front();
}

void RspManager::ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) {
  SqState& s = qpm_->sq(qi);
  if (!s.configured) return;
  if (cached) {
    // The responder cached Start_Addr of the QP's (single) OOO WRITE WQE.
    for (uint32_t i = 0; i < s.active; ++i)
      if (s.wqes[i].w.ooo && s.wqes[i].w.op == WqeOp::kWrite) s.wqes[i].start_addr_cached = true;
  }
  uint32_t before = s.una;
  advance(t, qi, wire::psn_add(psn, 1));
  if (s.una != before) acks_.inc();
  cqe_.poll(t, qi);
}

void RspManager::on_ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) {
  // One per ACK: packed so the closure fits std::function's small buffer (no allocation).
  uint64_t k = uint64_t{qi} << 32 | uint64_t{psn} << 1 | (cached ? 1 : 0);
  agenda_.at(t, [this, k](Cycle x) {
    ack(x, static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k >> 1) & wire::kPsnMask, k & 1);
  });
}

void RspManager::on_nak(Cycle t, uint32_t qi, uint8_t syndrome, uint32_t psn) {
  agenda_.at(t, [this, qi, syndrome, psn](Cycle x) {
    SqState& s = qpm_->sq(qi);
    if (!s.configured) return;
    uint8_t kind = syndrome & 0xE0;
    if (kind == 0x60 && syndrome == wire::kAethNakPsnSeqErr) {
      // Every PSN before the one the responder expects arrived.
      advance(x, qi, psn);
      naks_.inc();
      go_backs_.inc();
      qpm_->go_back(qi, psn);
      cqe_.poll(x, qi);
    } else if (kind == 0x60) {
      // Remote access / invalid request: the WQE holding psn completes in error.
      error_naks_.inc();
      if (TxWqe* w = qpm_->wqe_of(s, psn)) {
        w->bad = true;
        cqe_.poll(x, qi);
      }
    }
    // RNR NAK: the timer resends (RNR timer = requester timeout here).
  });
}

void RspManager::on_bitmap_nak(Cycle t, uint32_t qi, uint32_t epsn,
                               const wire::BitmapBlock& block) {
  agenda_.at(t, [this, qi, epsn, block](Cycle x) {
    SqState& s = qpm_->sq(qi);
    if (!s.configured) return;
    bitmap_naks_.inc();
    advance(x, qi, epsn);
    for (uint32_t i = 0; i < block.nbits; ++i) {
      if (block.test(i)) continue;
      uint32_t psn = wire::psn_add(block.base_psn, i);
      if (wire::psn_diff(psn, s.una) < 0 || wire::psn_diff(psn, s.high_psn) >= 0) continue;
      bool dup = false;
      for (const Retx& r : s.retx) dup = dup || (!r.reread && r.psn == psn);
      if (dup) continue;
      s.retx.push_back(Retx{psn, false, 0});
      selective_psns_.inc();
    }
    cqe_.poll(x, qi);
  });
}

bool RspManager::resend(uint32_t qi, uint32_t psn) {
  SqState& s = qpm_->sq(qi);
  if (wire::psn_diff(psn, s.una) < 0 || wire::psn_diff(psn, s.high_psn) >= 0) return false;
  for (const Retx& r : s.retx)
    if (!r.reread && r.psn == psn) return false;
  s.retx.push_back(Retx{psn, false, 0});
  selective_psns_.inc();
  return true;
}

void RspManager::on_feedback(Cycle t, uint32_t qi, uint32_t epsn, const wire::SchemeFeedback& fb) {
  agenda_.at(t, [this, qi, epsn, fb](Cycle x) {
    SqState& s = qpm_->sq(qi);
    if (!s.configured) return;
    feedback_.inc();
    using F = wire::SchemeFeedback;
    advance(x, qi, fb.type == F::kMpAck ? fb.psn[0] : epsn);
    switch (fb.type) {
      case F::kHoleNack:
        for (uint8_t h = 0; h < fb.info && h < 3; ++h)
          for (uint32_t k = 0; k < fb.len[h]; ++k) resend(qi, wire::psn_add(fb.psn[h], k));
        break;
      case F::kSack:
      case F::kMpAck:
        // Eunomia's sender takes a SACK as information only: no recovery starts.
        if (sender_) {
          sender_->on_sack(qi, fb.psn[0], s.una);
          break;
        }
        if (sack_resent_[qi] != s.una) {
          sack_resent_[qi] = s.una;
          resend(qi, s.una);
        }
        break;
      case F::kNack:
        if (sender_) sender_->on_nack();
        resend(qi, fb.psn[0]);
        break;
    }
    cqe_.poll(x, qi);
  });
}

void RspManager::on_read_data(Cycle t, uint32_t qi, uint32_t read_psn, Cycle dma_done,
                              bool complete) {
  agenda_.at(t, [this, qi, read_psn, dma_done, complete](Cycle x) {
    TxWqe* w = read_wqe(qi, read_psn);
    if (!w) return;
    SqState& s = qpm_->sq(qi);
    s.deadline = x + s.timeout_cycles;
    w->read_seen = true;
    // The READ request got there: its PSN span is acknowledged.
    if (wire::psn_diff(s.una, w->start_psn) >= 0)
      advance(x, qi, wire::psn_add(w->start_psn, w->npsn));
    if (complete && !w->data_done) {
      w->data_done = true;
      w->data_done_at = std::max(w->data_done_at, dma_done);
    } else {
      w->data_done_at = std::max(w->data_done_at, dma_done);
    }
    cqe_.poll(x, qi);
  });
}

void RspManager::reread(uint32_t qi, uint32_t psn, uint32_t count) {
  SqState& s = qpm_->sq(qi);
  for (const Retx& r : s.retx)
    if (r.reread && r.psn == psn) return;
  s.retx.push_back(Retx{psn, true, count});
  rereads_.inc();
}

void RspManager::on_read_gap(Cycle t, uint32_t qi, uint32_t read_psn, uint32_t expected_psn) {
  agenda_.at(t, [this, qi, read_psn, expected_psn](Cycle x) {
    TxWqe* w = read_wqe(qi, read_psn);
    if (!w || w->data_done) return;
    // Once per expected PSN: the re-requested responses restart the sequence.
    if (last_gap_[qi] == expected_psn) return;
    last_gap_[qi] = expected_psn;
    reread(qi, expected_psn, 0);
    qpm_->kick_qp(x, qi);
  });
}

void RspManager::on_read_loss(Cycle t, uint32_t qi, uint32_t read_psn,
                              const wire::BitmapBlock& block, uint32_t epsn) {
  agenda_.at(t, [this, qi, read_psn, block, epsn](Cycle x) {
    TxWqe* w = read_wqe(qi, read_psn);
    if (!w || w->data_done) return;
    // Each run of missing PSNs in the block (at or after ePSN) is re-requested.
    uint32_t run = 0, from = 0;
    auto flush = [&] {
      if (run) reread(qi, from, run);
      run = 0;
    };
    for (uint32_t i = 0; i < block.nbits; ++i) {
      uint32_t psn = wire::psn_add(block.base_psn, i);
      int32_t d = wire::psn_diff(psn, w->start_psn);
      bool missing = !block.test(i) && wire::psn_diff(psn, epsn) >= 0 && d >= 0 &&
                     static_cast<uint32_t>(d) < w->npsn;
      if (missing) {
        if (!run) from = psn;
        ++run;
      } else {
        flush();
      }
    }
    flush();
    qpm_->kick_qp(x, qi);
  });
}

void RspManager::sent(Cycle t, uint32_t qi) {
  SqState& s = qpm_->sq(qi);
  s.deadline = t + s.timeout_cycles;
  if (s.timer_booked) return;
  s.timer_booked = true;
  agenda_.at(s.deadline, [this, qi](Cycle x) { timeout(x, qi); });
}

void RspManager::timeout(Cycle t, uint32_t qi) {
  SqState& s = qpm_->sq(qi);
  if (s.active == 0) {
    s.timer_booked = false;  // nothing outstanding: the timer stops
    return;
  }
  if (s.deadline > t) {  // progress since it was booked: move it
    agenda_.at(s.deadline, [this, qi](Cycle x) { timeout(x, qi); });
    return;
  }
  // Only something sent and not yet answered can time out; WQEs still waiting
  // for their turn to send re-arm the timer when they are sent.
  bool inflight = wire::psn_diff(s.high_psn, s.una) > 0;
  for (uint32_t i = 0; i < s.active && !inflight; ++i) {
    const TxWqe& w = s.wqes[i];
    inflight = !w.bad && w.w.op == WqeOp::kRead && !w.data_done &&
               wire::psn_diff(s.high_psn, w.start_psn) > 0;
  }
  if (!inflight) {
    s.timer_booked = false;
    return;
  }
  timeouts_.inc();
  if (wire::psn_diff(s.high_psn, s.una) > 0) {
    // Eunomia: selective repeat of what no SACK marked (the receiver has the rest), when
    // every outstanding PSN belongs to a WRITE or SEND; READ spans go back as before.
    bool selective = sender_ != nullptr;
    for (uint32_t psn = s.una; selective && psn != s.high_psn; psn = wire::psn_add(psn, 1)) {
      const TxWqe* w = qpm_->wqe_of(s, psn);
      selective = w && w->w.op != WqeOp::kRead;
    }
    if (selective) {
      // PSNs from send_psn on are sent again anyway (an earlier go-back-N moved it).
      const uint32_t end = wire::psn_diff(s.send_psn, s.high_psn) < 0 ? s.send_psn : s.high_psn;
      uint64_t sent = 0, skipped = 0;
      for (uint32_t psn = s.una; psn != end; psn = wire::psn_add(psn, 1)) {
        if (sender_->sacked(qi, psn))
          ++skipped;
        else if (resend(qi, psn))
          ++sent;
      }
      sender_->on_timeout_resend(sent, skipped);
    } else {
      go_backs_.inc();
      qpm_->go_back(qi, s.una);
    }
  }
  // READs whose request arrived but whose data did not all come back.
  const QpContext& c = qps_.at(qi);
  for (uint32_t i = 0; i < s.active; ++i) {
    TxWqe& w = s.wqes[i];
    if (w.bad || w.w.op != WqeOp::kRead || w.data_done) continue;
    if (wire::psn_diff(s.una, wire::psn_add(w.start_psn, w.npsn)) < 0) continue;  // resent anyway
    uint32_t from = w.start_psn;
    for (const ReadWqe& r : c.reads)
      if (r.start_psn == w.start_psn) {
        if (!r.ooo)
          from = r.next_psn;
        else if (bitmap_->unit().is_open(qi))
          from = bitmap_->unit().epsn(qi);
      }
    reread(qi, from, 0);
  }
  last_gap_[qi] = kNoGap;
  s.deadline = t + s.timeout_cycles;
  agenda_.at(s.deadline, [this, qi](Cycle x) { timeout(x, qi); });
  qpm_->kick_qp(t, qi);
}

}  // namespace oonic::ornic
