#include "model/ornic/rx/rsp_processor_core.h"
#include "model/ornic/rx/context_stage.h"

#include <algorithm>

#include "model/ornic/rx/feedback.h"

namespace oonic::ornic {

RspProcessorCore::RspProcessorCore(const CoreEnv& env, QpContextTable& qps, Links links)
    : p_(env.p),
      qps_(qps),
      l_(links),
      packets_(env.stats.counter("packets", "packet", "response headers processed")),
      acks_(env.stats.counter("acks", "frame", "ACKs received")),
      psns_acked_(env.stats.counter("psns_acked", "PSN",
                                    "PSNs newly acknowledged (a coalesced ACK covers several)")),
      coalesced_(env.stats.counter("coalesced_acks", "frame",
                                   "ACKs that acknowledged more than one new PSN")),
      naks_(
          env.stats.counter("naks", "frame", "NAKs received (PSN sequence, RNR, access, invalid)")),
      bitmap_naks_(
          env.stats.counter("bitmap_naks", "frame", "OOO NAKs with a bitmap block received")),
      feedback_(env.stats.counter("scheme_feedback", "frame",
                                  "Scheme Feedback frames received (MELO NACK, SACK, NACK, "
                                  "MP-RDMA ACK)")),
      cached_flags_(env.stats.counter("start_addr_cached_acks", "frame",
                                      "ACKs carrying the Start_Addr-cached flag")),
      read_packets_(
          env.stats.counter("read_response_packets", "packet", "READ response packets placed")),
      read_bytes_(
          env.stats.counter("read_response_bytes", "byte", "READ response payload bytes placed")),
      reads_done_(env.stats.counter("reads_completed", "request",
                                    "READs whose every response packet is placed")) {}

void RspProcessorCore::drop(Cycle t, const wire::PacketView& v, PacketRecord& rec, Drop d) {
  rec.drop = d;
  rec.verdict = d == Drop::kDuplicate ? RecordVerdict::kDuplicate : RecordVerdict::kDropped;
  l_.pkt_buf.discard(t, v.payload_len);
}

void RspProcessorCore::process(Cycle ready, const wire::PacketView& v, PacketRecord& rec) {
  packets_.inc();
  const ContextStage cs = context_stage(pipe_, ready, p_.rsp_processor.ii_cycles, l_.hdr_buf, v,
                                        qps_, p_.rsp_processor.check_cycles);
  rec.verdict = RecordVerdict::kAccepted;
  if (cs.qi < 0) {
    drop(cs.t1, v, rec, Drop::kUnknownQp);
    rec.processed = cs.t1;
    return;
  }
  const int64_t qi = cs.qi;
  QpContext& c = qps_.at(static_cast<uint32_t>(qi));
  const uint32_t ctx_bits = qps_.sram().params().width_bits;
  const Cycle t3 = cs.t3;
  Cycle t4 = t3;
  const uint8_t op = v.bth.opcode;
  const uint32_t psn = v.bth.psn;
  enum class Tell { kNone, kAck, kNak, kBitmapNak, kFeedback } tell = Tell::kNone;
  if (op == wire::kSchemeFeedback) {
    feedback_.inc();
    tell = Tell::kFeedback;
  } else if (op == wire::kAcknowledge || op == wire::kOooNak) {
    uint8_t kind = v.aeth.syndrome & 0xE0;
    if (op == wire::kOooNak) {
      bitmap_naks_.inc();
      tell = Tell::kBitmapNak;
    } else if (kind == 0) {
      acks_.inc();
      tell = Tell::kAck;
      if (v.bth.resv7 & wire::kBthStartAddrCachedBit) cached_flags_.inc();
      uint32_t next = wire::psn_add(psn, 1);
      if (!c.snd_una_valid) {
        psns_acked_.inc();
        c.snd_una = next, c.snd_una_valid = true;
      } else {
        int32_t covered = wire::psn_diff(next, c.snd_una);
        if (covered > 0) {
          psns_acked_.inc(static_cast<uint64_t>(covered));
          if (covered > 1) coalesced_.inc();
          c.snd_una = next;
        }
      }
    } else {
      naks_.inc();
      tell = Tell::kNak;
    }
  } else {
    // READ response: find the READ it answers.
    ReadWqe* rw = nullptr;
    for (ReadWqe& r : c.reads) {
      int32_t d = wire::psn_diff(psn, r.start_psn);
      if (d >= 0 && static_cast<uint32_t>(d) < r.packets) {
        rw = &r;
        break;
      }
    }
    if (!rw) {
      drop(t3, v, rec, Drop::kUnexpectedResponse);
    } else if (rw->received >= rw->packets) {
      drop(t3, v, rec, Drop::kDuplicate);  // late copy of a READ already complete
    } else {
      bool accept = false;
      if (rw->ooo) {
        if (!l_.bitmap.is_open(static_cast<uint32_t>(qi)))
          l_.bitmap.open(t3, static_cast<uint32_t>(qi), rw->start_psn, c.otd);
        ordering::PacketMeta meta;
        meta.record = rec.index;
        BitmapPort::Result r = l_.bitmap.access(t3, static_cast<uint32_t>(qi), psn, meta);
        t4 = r.done;
        rec.bitmap = true;
        rec.locate_cycles = r.out.locate_cycles;
        rec.bitmap_cycles = r.out.cycles;
        rec.blocks_held = r.out.blocks_held;
        accept = r.out.verdict == ordering::Verdict::kInOrder ||
                 r.out.verdict == ordering::Verdict::kOutOfOrder;
        wire::BitmapBlock lost;
        // Whether a SACK's hole is re-requested is the sender policy's (Eunomia: no).
        if (selective_feedback(r.out, psn, &lost))
          l_.requester.on_read_loss(t4 + 1, static_cast<uint32_t>(qi), rw->start_psn, lost,
                                    r.out.epsn, r.out.feedback == ordering::Feedback::kSack);
        else if (r.out.feedback == ordering::Feedback::kNak)
          l_.requester.on_read_gap(t4 + 1, static_cast<uint32_t>(qi), rw->start_psn, r.out.epsn);
        if (!accept)
          drop(t4, v, rec,
               r.out.verdict == ordering::Verdict::kDuplicate       ? Drop::kDuplicate
               : r.out.verdict == ordering::Verdict::kBeyondWindow  ? Drop::kBeyondWindow
               : r.out.verdict == ordering::Verdict::kUntrackable   ? Drop::kUntrackable
               : r.out.verdict == ordering::Verdict::kPoolExhausted ? Drop::kBitmapPoolExhausted
                                                                    : Drop::kUnknownQp);
        else if (r.out.verdict == ordering::Verdict::kOutOfOrder)
          rec.verdict = RecordVerdict::kOoo;
      } else {
        int32_t d = wire::psn_diff(psn, rw->next_psn);
        if (d == 0) {
          accept = true;
          rw->next_psn = wire::psn_add(psn, 1);
        } else {
          drop(t3, v, rec, d < 0 ? Drop::kDuplicate : Drop::kPsnSequenceError);
          if (d > 0)
            l_.requester.on_read_gap(t3 + 1, static_cast<uint32_t>(qi), rw->start_psn,
                                     rw->next_psn);
        }
      }
      if (accept) {
        uint64_t addr =
            rw->local_addr + uint64_t(uint32_t(wire::psn_diff(psn, rw->start_psn))) * c.pmtu;
        Cycle t5 = qps_.sram().write(t4, ctx_bits);
        rec.processed = t5;
        read_packets_.inc();
        read_bytes_.inc(v.payload_len);
        if (v.payload_len) {
          rec.dma_done = l_.dma.write(t5, addr, v.payload, v.payload_len, &l_.pkt_buf);
          last_dma_done_ = std::max(last_dma_done_, rec.dma_done);
        }
        rw->last_done = std::max(rw->last_done, rec.dma_done ? rec.dma_done : t5);
        bool complete = ++rw->received == rw->packets;
        if (complete) {
          reads_done_.inc();
          if (rw->ooo) l_.bitmap.close(t5, static_cast<uint32_t>(qi));
        }
        l_.requester.on_read_data(t5, static_cast<uint32_t>(qi), rw->start_psn, rw->last_done,
                                  complete);
        return;
      }
    }
  }
  Cycle t5 = qps_.sram().write(t4, ctx_bits);
  rec.processed = t5;
  l_.pkt_buf.discard(t5, rec.drop == Drop::kNone ? v.payload_len : 0);
  if ((v.flags & wire::kHasInt) && tell != Tell::kNone)
    l_.requester.on_int(t5, static_cast<uint32_t>(qi), psn, v.int_stack.copy());
  switch (tell) {
    case Tell::kAck:
      l_.requester.on_ack(t5, static_cast<uint32_t>(qi), psn,
                          v.bth.resv7 & wire::kBthStartAddrCachedBit);
      break;
    case Tell::kNak:
      l_.requester.on_nak(t5, static_cast<uint32_t>(qi), v.aeth.syndrome, psn);
      break;
    case Tell::kBitmapNak:
      l_.requester.on_bitmap_nak(t5, static_cast<uint32_t>(qi), psn, v.bitmap);
      break;
    case Tell::kFeedback:
      l_.requester.on_feedback(t5, static_cast<uint32_t>(qi), psn, v.feedback);
      break;
    case Tell::kNone:
      break;
  }
}

}  // namespace oonic::ornic
