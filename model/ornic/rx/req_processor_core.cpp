#include "model/ornic/rx/req_processor_core.h"
#include "model/ornic/rx/context_stage.h"

#include <algorithm>

#include "model/ornic/rx/feedback.h"

namespace oonic::ornic {

namespace {

bool is_ooo_write(uint8_t op) {
  return op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot || op == wire::kOooWriteLast ||
         op == wire::kOooWriteLastFSpot;
}

}  // namespace

ReqProcessorCore::ReqProcessorCore(const CoreEnv& env, QpContextTable& qps, Links links)
    : p_(env.p),
      ack_every_(env.p.req_processor.ack_policy == "every"),
      in_order_scheme_(std::string(links.bitmap.traits().recovery) == "go-back-n"),
      traits_(links.bitmap.traits()),
      qps_(qps),
      l_(links),
      packets_(env.stats.counter("packets", "packet", "request headers processed")),
      accepted_(env.stats.counter("accepted", "packet",
                                  "request packets accepted (payload placed or READ served)")),
      accepted_bytes_(env.stats.counter("accepted_bytes", "byte",
                                        "payload bytes of accepted WRITE/SEND packets")),
      ooo_packets_(
          env.stats.counter("ooo_accepted", "packet",
                            "OOO WRITE (and Eunomia OOO SEND) packets accepted ahead of ePSN")),
      in_order_(env.stats.counter("in_order_accepted", "packet", "packets accepted at ePSN")),
      messages_(
          env.stats.counter("messages", "message", "complete requests received (MSN increments)")),
      start_addr_cached_(env.stats.counter("start_addr_cached", "event",
                                           "Start_Addr computed by Eq. 2 and cached")),
      reads_(env.stats.counter("read_requests", "request", "READ requests accepted")) {
  if (traits_.reorder_buffer) {
    rob_.resize(env.p.nic.max_qps);
    rob_copies_ = &env.stats.counter("rob_copies", "packet",
                                     "MELO: packets copied from the re-order buffer in host "
                                     "memory to their destination (a second PCIe pass)");
    rob_bytes_ = &env.stats.counter("rob_bytes", "byte",
                                    "MELO: bytes read back from the re-order buffer and written "
                                    "again");
  }
  env.stats.derived("stall_cycles", "cycle", "cycles headers waited for a pipeline slot",
                    [this] { return static_cast<double>(pipe_.stall_cycles()); });
  env.probe(p_qpn_, "qpn", 24);
  env.probe(p_psn_, "psn", 24);
  env.probe(p_epsn_, "epsn", 24);
  env.probe(p_verdict_, "drop", 8);
}

bool ReqProcessorCore::region_ok(const QpContext& c, uint32_t rkey, uint64_t va,
                                 uint64_t len) const {
  for (const MemoryRegion& r : c.regions)
    if (r.rkey == rkey && va >= r.base && va + len <= r.base + r.length && va + len >= va)
      return true;
  return false;
}

void ReqProcessorCore::drop(Cycle t, const wire::PacketView& v, PacketRecord& rec, Drop d) {
  rec.drop = d;
  rec.verdict = d == Drop::kDuplicate ? RecordVerdict::kDuplicate : RecordVerdict::kDropped;
  l_.pkt_buf.discard(t, v.payload_len);
}

void ReqProcessorCore::process(Cycle ready, const wire::PacketView& v, PacketRecord& rec) {
  packets_.inc();
  Actions& a = act_;
  a = Actions{};
  const ContextStage cs = context_stage(pipe_, ready, p_.req_processor.ii_cycles, l_.hdr_buf, v,
                                        qps_, p_.req_processor.check_cycles);
  uint8_t op = v.bth.opcode;
  if (cs.qi < 0) {
    drop(cs.t1, v, rec, Drop::kUnknownQp);
    rec.processed = cs.t1;
    return;
  }
  const int64_t qi = cs.qi;
  QpContext& c = qps_.at(static_cast<uint32_t>(qi));
  const uint32_t ctx_bits = qps_.sram().params().width_bits;
  const Cycle s = cs.issue;
  const Cycle t3 = cs.t3;
  Cycle t4 = t3;
  rec.verdict = RecordVerdict::kAccepted;
  // HPCC's telemetry: the QP's next response echoes the last data packet's INT stack.
  if (v.flags & wire::kHasInt) {
    if (!c.int_echo) c.int_echo = std::make_shared<wire::IntStack>();
    *c.int_echo = v.int_stack.copy();
  }
  if ((v.flags & wire::kHasPayload) &&
      wire::is_trimmed(v, static_cast<uint8_t>(p_.nic.trim_dscp),
                       static_cast<uint8_t>(p_.nic.trim_dscp_last_hop)))
    trimmed(t3, v, rec);
  else if (is_ooo_write(op))
    ooo_write(t3, static_cast<uint32_t>(qi), c, v, rec, &t4);
  else if (traits_.ooo_send && op <= wire::kSendOnlyImm &&
           (v.flags & (wire::kHasEunomiaMeta | wire::kHasMpRdmaMeta)))
    ooo_send(t3, static_cast<uint32_t>(qi), c, v, rec, &t4);
  else if (op == wire::kReadRequest || op == wire::kOooReadRequest)
    read_request(t3, static_cast<uint32_t>(qi), c, v, rec);
  else
    standard(t3, static_cast<uint32_t>(qi), c, v, rec);
  Cycle t5 = qps_.sram().write(t4, ctx_bits);
  rec.processed = t5;
  if (p_qpn_.on()) {
    p_qpn_.set(s, v.bth.dest_qp);
    p_psn_.set(s, v.bth.psn);
    p_epsn_.set(t5, c.epsn);
    p_verdict_.set(t5, static_cast<uint64_t>(rec.drop));
  }
  if (rec.drop == Drop::kNone) accepted_.inc();
  if (a.place) place(t5, a.addr, v, rec);
  if (a.rob_flush) rob_flush(t5, static_cast<uint32_t>(qi), c.epsn);
  if (a.read) {
    if (!a.read_dup) reads_.inc();
    l_.work.register_read(t5, static_cast<uint32_t>(qi), v.reth.va, v.reth.dma_len, v.bth.psn,
                          c.msn, a.read_ooo, a.read_dup);
  }
  if (a.bitmap_nak)
    l_.work.register_bitmap_nak(t5, static_cast<uint32_t>(qi), c.epsn, c.msn, a.block);
  if (a.feedback) l_.work.register_feedback(t5, static_cast<uint32_t>(qi), c.epsn, c.msn, a.fb);
  if (a.nak) l_.work.register_nak(t5, static_cast<uint32_t>(qi), a.syndrome, a.nak_psn, c.msn);
  if (a.ack) ack(t5, static_cast<uint32_t>(qi), c);
}

void ReqProcessorCore::place(Cycle t, uint64_t addr, const wire::PacketView& v, PacketRecord& rec) {
  accepted_bytes_.inc(v.payload_len);
  if (v.payload_len == 0) return;
  Cycle done = l_.dma.write(t, addr, v.payload, v.payload_len, &l_.pkt_buf);
  rec.dma_done = done;
  last_dma_done_ = std::max(last_dma_done_, done);
}

void ReqProcessorCore::rob_flush(Cycle t, uint32_t qi, uint32_t epsn) {
  // The second pass MELO pays: every buffered packet now behind ePSN is read back from
  // the re-order buffer and written to the application's buffer. Chaining read, write,
  // next read cost a PCIe read round trip per packet, and writes booked ahead of later
  // placements filled the Req Pkt Buffer: the NIC dropped what the network delivered.
  auto& q = rob_[qi];
  for (auto it = q.begin(); it != q.end();) {
    if (wire::psn_diff(it->psn, epsn) >= 0) {
      ++it;
      continue;
    }
    if (it->len) {
      RobCopy c{0, it->final_addr, std::vector<uint8_t>(it->len)};
      c.ready = std::max(t, l_.dma.read(t, it->rob_addr, c.data.data(), it->len));
      l_.dma.poke(c.final_addr, c.data.data(), it->len);
      rob_copies_pending_.push_back(std::move(c));
      rob_bytes_->inc(it->len);
    }
    rob_copies_->inc();
    it = q.erase(it);
  }
  if (!rob_copies_pending_.empty() && !rob_turn_booked_) {
    rob_turn_booked_ = true;
    l_.agenda.at(rob_copies_pending_.front().ready, [this](Cycle x) { rob_write(x); });
  }
}

void ReqProcessorCore::rob_write(Cycle t) {
  rob_turn_booked_ = false;
  if (rob_copies_pending_.empty()) return;
  const Cycle idle = l_.dma.write_free_at();
  if (idle > t) {  // placements hold the channel: after them
    rob_turn_booked_ = true;
    l_.agenda.at(idle, [this](Cycle x) { rob_write(x); });
    return;
  }
  // One copy's timed write (the bytes are in place already: the same bytes again).
  const RobCopy c = std::move(rob_copies_pending_.front());
  rob_copies_pending_.pop_front();
  const Cycle wr =
      l_.dma.write(t, c.final_addr, c.data.data(), static_cast<uint32_t>(c.data.size()), nullptr);
  last_dma_done_ = std::max(last_dma_done_, wr);
  if (!rob_copies_pending_.empty()) {
    rob_turn_booked_ = true;
    l_.agenda.at(std::max(rob_copies_pending_.front().ready, t + 1),
                 [this](Cycle x) { rob_write(x); });
  }
}

void ReqProcessorCore::trimmed(Cycle t3, const wire::PacketView& v, PacketRecord& rec) {
  // A switch cut the payload: nothing to place; the sender learns of the loss at once, in
  // the scheme's own NACK (ORNIC's bitmap NAK with the PSN's bit 0, else a NACK naming it
  // and the entropy value it came on, as UET's NACK does).
  Actions& a = act_;
  drop(t3, v, rec, Drop::kTrimmed);
  const uint32_t psn = v.bth.psn & wire::kPsnMask;
  if (traits_.bitmap_nak) {
    a.bitmap_nak = true;
    a.block = wire::BitmapBlock{};
    a.block.base_psn = psn, a.block.nbits = 1;
  } else {
    a.feedback = true;
    a.fb = wire::SchemeFeedback{};
    a.fb.type = wire::SchemeFeedback::kNack;
    a.fb.psn[0] = psn;
    a.fb.vp = v.udp_sport;
    if (traits_.uet_ack) {
      a.fb.info = wire::kUetNackFlag | 1;
      if (((v.tos >> 2) & 0x3F) == p_.nic.trim_dscp_last_hop)  // UET's TRIMMED_LASTHOP
        a.fb.info |= wire::uet_nack_last_hop_bit(0);
    }
  }
}

void ReqProcessorCore::reack(QpContext& c, const wire::PacketView& v) {
  // A duplicate below ePSN: ACKed again so the requester learns what arrived (MP-RDMA:
  // its per-packet ACK, SACKing the duplicate).
  Actions& a = act_;
  if (traits_.sack_as_mp_ack) {
    a.feedback = true;
    mp_ack(c.epsn, v.bth.psn, v, &a.fb);
  } else if (traits_.uet_ack) {
    // UET: ACKed at once, without reading the bitmap: every PSN below ePSN is in (all
    // ones), and the OOO count is not known here.
    a.feedback = true;
    uet_ack(v.bth.psn, wire::kUetOooUnknown, ~uint64_t{0} >> (64 - wire::kUetSackBits), 0, v,
            &a.fb);
  } else {
    a.ack = true;
  }
}

void ReqProcessorCore::ack(Cycle t, uint32_t qi, QpContext& c) {
  l_.work.register_ack(t, qi, wire::psn_add(c.epsn, -1), c.msn, c.announce_cached);
  c.announce_cached = false;
}

bool ReqProcessorCore::leave_ooo(Cycle t, uint32_t qi, QpContext& c, uint32_t psn) {
  if (!c.ooo_active) return true;
  // A standard request may follow an OOO WQE once every OOO PSN is in.
  if (l_.bitmap.has_pending(qi) || psn != c.epsn) return false;
  l_.bitmap.close(t, qi);
  c.ooo_active = false;
  c.send_buf_valid = false;
  return true;
}

void ReqProcessorCore::standard(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                                PacketRecord& rec) {
  Actions& a = act_;
  const uint8_t op = v.bth.opcode;
  const uint32_t psn = v.bth.psn;
  if (!leave_ooo(t3, qi, c, psn)) {
    drop(t3, v, rec, Drop::kInvalidRequest);
    return;
  }
  int32_t d = wire::psn_diff(psn, c.epsn);
  if (d < 0) {
    drop(t3, v, rec, Drop::kDuplicate);
    a.ack = true;  // re-ACK so the requester learns what arrived
    return;
  }
  if (d > 0) {
    if (!c.nak_sent && p_.req_processor.seq_nak) {
      a.nak = true, a.syndrome = wire::kAethNakPsnSeqErr, a.nak_psn = c.epsn;
      c.nak_sent = true;
    }
    drop(t3, v, rec, Drop::kPsnSequenceError);
    return;
  }
  const bool is_send = op <= wire::kSendOnlyImm;
  const bool first = v.flags & wire::kIsFirst;
  const bool last = v.flags & wire::kIsLast;
  auto nak_and_drop = [&](uint8_t syndrome, Drop why) {
    a.nak = true, a.syndrome = syndrome, a.nak_psn = psn;
    drop(t3, v, rec, why);
  };
  if (first) {
    if (c.in_msg) return nak_and_drop(wire::kAethNakInvalidReq, Drop::kInvalidRequest);
    if (is_send) {
      if (c.recv_next >= c.recv_count) return nak_and_drop(wire::kAethRnrNak, Drop::kNoRecvBuffer);
      c.msg_addr = c.recv_base + uint64_t{c.recv_next} * c.recv_bytes;
      c.msg_end = c.msg_addr + c.recv_bytes;
      ++c.recv_next;
    } else {
      if (!region_ok(c, v.reth.rkey, v.reth.va, v.reth.dma_len))
        return nak_and_drop(wire::kAethNakRemoteAccess, Drop::kRemoteAccess);
      c.msg_addr = v.reth.va;
      c.msg_end = v.reth.va + v.reth.dma_len;
    }
    c.in_msg = true;
    c.msg_is_send = is_send;
  } else if (!c.in_msg || c.msg_is_send != is_send) {
    return nak_and_drop(wire::kAethNakInvalidReq, Drop::kInvalidRequest);
  }
  if (c.msg_addr + v.payload_len > c.msg_end)
    return nak_and_drop(is_send ? wire::kAethNakInvalidReq : wire::kAethNakRemoteAccess,
                        is_send ? Drop::kInvalidRequest : Drop::kRemoteAccess);
  a.place = true;
  a.addr = c.msg_addr;
  c.msg_addr += v.payload_len;
  if (last) {
    c.in_msg = false;
    c.msn = (c.msn + 1) & wire::kPsnMask;
    messages_.inc();
  }
  c.epsn = wire::psn_add(psn, 1);
  c.nak_sent = false;
  in_order_.inc();
  a.ack = ack_every_ || v.bth.ack_req || last;
}

void ReqProcessorCore::ooo_write(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                                 PacketRecord& rec, Cycle* t4) {
  Actions& a = act_;
  const uint8_t op = v.bth.opcode;
  const uint32_t psn = v.bth.psn;
  if (c.in_msg) {
    drop(t3, v, rec, Drop::kInvalidRequest);
    return;
  }
  if (!c.ooo_active) {
    l_.bitmap.open(t3, qi, c.epsn, c.otd);
    c.ooo_active = true;
    c.wqe_start_psn = c.epsn;
    c.start_addr_cached = false;
    c.wqe_last_known = false;
  }
  if (wire::psn_diff(psn, c.epsn) < 0) {
    drop(t3, v, rec, Drop::kDuplicate);  // below ePSN: known from the context, no bitmap access
    reack(c, v);
    return;
  }
  const bool fspot = op == wire::kOooWriteFSpot || op == wire::kOooWriteLastFSpot;
  const bool last = op == wire::kOooWriteLast || op == wire::kOooWriteLastFSpot;
  const uint64_t off = uint64_t(uint32_t(wire::psn_diff(psn, c.wqe_start_psn))) * c.pmtu;
  auto nak_and_drop = [&](uint8_t syndrome, Drop why) {
    a.nak = true, a.syndrome = syndrome, a.nak_psn = psn;
    drop(t3, v, rec, why);
  };
  uint64_t addr;
  if (fspot) {
    if (!c.start_addr_cached) {
      if (v.reth.va < off) return nak_and_drop(wire::kAethNakRemoteAccess, Drop::kRemoteAccess);
      uint64_t start = v.reth.va - off;  // Eq. 2
      if (!region_ok(c, v.reth.rkey, start, v.reth.dma_len))
        return nak_and_drop(wire::kAethNakRemoteAccess, Drop::kRemoteAccess);
      c.start_addr = start;
      c.wqe_len = v.reth.dma_len;
      c.wqe_rkey = v.reth.rkey;
      c.start_addr_cached = true;
      c.announce_cached = true;
      start_addr_cached_.inc();
    }
    addr = v.reth.va;
    if (addr != c.start_addr + off)
      return nak_and_drop(wire::kAethNakInvalidReq, Drop::kInvalidRequest);
  } else {
    if (!c.start_addr_cached) {
      drop(t3, v, rec, Drop::kSpotBeforeStartAddr);
      return;
    }
    addr = c.start_addr + off;  // Eq. 1
  }
  if (addr + v.payload_len > c.start_addr + c.wqe_len)
    return nak_and_drop(wire::kAethNakRemoteAccess, Drop::kRemoteAccess);

  ordered(t3, qi, c, v, rec, t4, addr, last, false);
}

void ReqProcessorCore::ooo_send(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                                PacketRecord& rec, Cycle* t4) {
  Actions& a = act_;
  const uint32_t psn = v.bth.psn;
  auto nak_and_drop = [&](uint8_t syndrome, Drop why) {
    a.nak = true, a.syndrome = syndrome, a.nak_psn = psn;
    drop(t3, v, rec, why);
  };
  if (c.in_msg) return nak_and_drop(wire::kAethNakInvalidReq, Drop::kInvalidRequest);
  if (!c.ooo_active) {
    l_.bitmap.open(t3, qi, c.epsn, c.otd);
    c.ooo_active = true;
    c.wqe_start_psn = c.epsn;
    c.start_addr_cached = false;
    c.wqe_last_known = false;
  }
  if (wire::psn_diff(psn, c.epsn) < 0) {
    drop(t3, v, rec, Drop::kDuplicate);  // below ePSN: known from the context
    reack(c, v);
    return;
  }
  // The message's first PSN and last bit: Eunomia's Head metadata, or MP-RDMA's iPSN
  // with the opcode's last bit.
  const bool eu = v.flags & wire::kHasEunomiaMeta;
  const uint32_t head = (eu ? v.eunomia.head : v.mprdma.ipsn) & wire::kPsnMask;
  const bool msg_last = eu ? v.eunomia.last : (v.flags & wire::kIsLast) != 0;
  const int32_t idx = wire::psn_diff(psn, head);
  const uint64_t off = uint64_t(uint32_t(std::max(idx, 0))) * c.pmtu;
  if (idx < 0 || off + v.payload_len > c.recv_bytes || (c.send_buf_valid && head != c.send_head))
    return nak_and_drop(wire::kAethNakInvalidReq, Drop::kInvalidRequest);  // one at a time
  if (!c.send_buf_valid) {
    // The message's first packet to arrive (any of them) takes the next receive buffer.
    if (c.recv_next >= c.recv_count) return nak_and_drop(wire::kAethRnrNak, Drop::kNoRecvBuffer);
    c.send_buf = c.recv_base + uint64_t{c.recv_next} * c.recv_bytes;
    ++c.recv_next;
    c.send_buf_valid = true;
    c.send_head = head;
  }
  ordered(t3, qi, c, v, rec, t4, c.send_buf + off, msg_last, true);
}

void ReqProcessorCore::ordered(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                               PacketRecord& rec, Cycle* t4, uint64_t addr, bool last, bool send) {
  Actions& a = act_;
  const uint32_t psn = v.bth.psn;
  if (traits_.sack_as_mp_ack && (v.flags & wire::kHasMpRdmaMeta) && v.mprdma.sync &&
      wire::psn_diff(v.mprdma.ipsn & wire::kPsnMask, c.epsn) > 0) {
    // MP-RDMA: a synchronise message updates memory only after every earlier message is
    // in (rcv_nxt has reached its first PSN); one that arrives early is dropped, NACKed.
    a.feedback = true;
    a.fb = wire::SchemeFeedback{};
    a.fb.type = wire::SchemeFeedback::kNack;
    a.fb.psn[0] = psn & wire::kPsnMask;
    a.fb.vp = v.udp_sport;
    drop(t3, v, rec, Drop::kSyncEarly);
    return;
  }
  ordering::PacketMeta meta;  // Eunomia: Head / last from the data packet's metadata
  meta.last = last;
  meta.record = rec.index;
  meta.ack_req = v.bth.ack_req;
  meta.ecn = (v.tos & 3) == 3;
  if (v.flags & wire::kHasEunomiaMeta)
    meta.has_head = true, meta.head = v.eunomia.head, meta.last = v.eunomia.last;
  BitmapPort::Result r = l_.bitmap.access(t3, qi, psn, meta);
  *t4 = r.done;
  rec.bitmap = true;
  rec.locate_cycles = r.out.locate_cycles;
  rec.bitmap_cycles = r.out.cycles;
  rec.blocks_held = r.out.blocks_held;
  if (traits_.bitmap_nak) {
    if (selective_feedback(r.out, psn, &a.block)) a.bitmap_nak = true;
  } else if (scheme_feedback(r.out, v, traits_, &a.fb)) {
    a.feedback = true;
  }
  if (r.out.feedback == ordering::Feedback::kNak &&
      (p_.req_processor.seq_nak || !in_order_scheme_))  // go-back-N schemes: NAK ePSN
    a.nak = true, a.syndrome = wire::kAethNakPsnSeqErr, a.nak_psn = r.out.epsn;
  switch (r.out.verdict) {
    case ordering::Verdict::kInOrder:
    case ordering::Verdict::kOutOfOrder: {
      a.place = true;
      a.addr = addr;
      if (!rob_.empty() && r.out.verdict == ordering::Verdict::kOutOfOrder) {
        // MELO: out-of-order data waits in the QP's re-order buffer in host memory.
        const uint64_t slot = uint32_t(psn) % (p_.bitmap.nodes_per_qp * p_.bitmap.block_bits);
        a.addr = p_.bitmap.melo_rob_base +
                 (uint64_t{qi} * p_.bitmap.nodes_per_qp * p_.bitmap.block_bits + slot) * c.pmtu;
        rob_[qi].push_back(RobEntry{psn, addr, a.addr, v.payload_len});
      }
      a.rob_flush = !rob_.empty() && r.out.head_advanced && !rob_[qi].empty();
      if (r.out.verdict == ordering::Verdict::kInOrder)
        in_order_.inc();
      else
        ooo_packets_.inc(), rec.verdict = RecordVerdict::kOoo;
      if (last) c.wqe_last_psn = psn, c.wqe_last_known = true;
      c.epsn = r.out.epsn;
      bool complete = false;
      if (r.out.head_advanced && c.wqe_last_known && wire::psn_diff(c.epsn, c.wqe_last_psn) > 0) {
        complete = true;  // every PSN of the WQE is in: one more complete request
        c.msn = (c.msn + 1) & wire::kPsnMask;
        messages_.inc();
        c.wqe_start_psn = c.epsn;
        c.start_addr_cached = false;
        c.wqe_last_known = false;
        c.wqe_len = 0;
        if (send) c.send_buf_valid = false;  // the next SEND takes the next buffer
      }
      // Eunomia's receiver ACKs every in-order packet (its sender's last-packet hold
      // waits for the cumulative ACK), whatever the ACK policy.
      if (traits_.sack_as_mp_ack || traits_.uet_ack)  // MP-RDMA, UET: the unit's ACK only
        a.ack = false, c.announce_cached = false;
      else if (ack_every_ || traits_.ack_every_in_order)
        a.ack = r.out.head_advanced || c.announce_cached;
      else
        a.ack = v.bth.ack_req || complete || c.announce_cached;
      break;
    }
    case ordering::Verdict::kDuplicate:
      drop(*t4, v, rec, Drop::kDuplicate);
      break;
    case ordering::Verdict::kBeyondWindow:
      drop(*t4, v, rec, Drop::kBeyondWindow);
      break;
    case ordering::Verdict::kPoolExhausted:
      drop(*t4, v, rec, Drop::kBitmapPoolExhausted);
      break;
    case ordering::Verdict::kQpClosed:
      drop(*t4, v, rec, Drop::kUnknownQp);
      break;
    case ordering::Verdict::kUntrackable:
      drop(*t4, v, rec, Drop::kUntrackable);
      break;
  }
}

void ReqProcessorCore::read_request(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                                    PacketRecord& rec) {
  Actions& a = act_;
  const uint32_t psn = v.bth.psn;
  int32_t d = wire::psn_diff(psn, c.epsn);
  if (d < 0) {
    // A duplicate READ is executed again (IBA 9.7.5.1.4): the requester
    // re-requests responses it lost, from their PSN.
    drop(t3, v, rec, Drop::kDuplicate);
    if (region_ok(c, v.reth.rkey, v.reth.va, v.reth.dma_len)) {
      a.read = true, a.read_dup = true;
      a.read_ooo = v.bth.opcode == wire::kOooReadRequest;
    }
    return;
  }
  if (d > 0) {
    if (!c.nak_sent && p_.req_processor.seq_nak) {
      a.nak = true, a.syndrome = wire::kAethNakPsnSeqErr, a.nak_psn = c.epsn;
      c.nak_sent = true;
    }
    drop(t3, v, rec, Drop::kPsnSequenceError);
    return;
  }
  if (!leave_ooo(t3, qi, c, psn)) {
    drop(t3, v, rec, Drop::kInvalidRequest);
    return;
  }
  if (c.in_msg || !region_ok(c, v.reth.rkey, v.reth.va, v.reth.dma_len)) {
    a.nak = true, a.syndrome = c.in_msg ? wire::kAethNakInvalidReq : wire::kAethNakRemoteAccess;
    a.nak_psn = psn;
    drop(t3, v, rec, c.in_msg ? Drop::kInvalidRequest : Drop::kRemoteAccess);
    return;
  }
  uint32_t npk = std::max<uint32_t>(1, (v.reth.dma_len + c.pmtu - 1) / c.pmtu);
  c.epsn = wire::psn_add(psn, npk);  // the responses use these PSNs
  c.msn = (c.msn + 1) & wire::kPsnMask;
  c.nak_sent = false;
  messages_.inc();
  a.read = true;
  a.read_ooo = v.bth.opcode == wire::kOooReadRequest;
}

}  // namespace oonic::ornic
