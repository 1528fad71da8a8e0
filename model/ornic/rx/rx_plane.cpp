#include "model/ornic/rx/rx_plane.h"

#include "model/schemes/receive_schemes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace oonic::ornic {

RxPlane::RxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps, DmaPort& dma,
                 ResponderWork& req_manager, RequesterEvents& rsp_manager,
                 sender::RateControl& rate, Agenda& agenda)
    : sc_module(n),
      req_pkt_sram("rx.req_pkt_buffer", env.p.sram.req_pkt_buffer, env.stats,
                   env.sram_stat("rx.req_pkt_buffer")),
      req_hdr_sram("rx.req_hdr_buffer", env.p.sram.req_hdr_buffer, env.stats,
                   env.sram_stat("rx.req_hdr_buffer")),
      rsp_pkt_sram("rx.rsp_pkt_buffer", env.p.sram.rsp_pkt_buffer, env.stats,
                   env.sram_stat("rx.rsp_pkt_buffer")),
      rsp_hdr_sram("rx.rsp_hdr_buffer", env.p.sram.rsp_hdr_buffer, env.stats,
                   env.sram_stat("rx.rsp_hdr_buffer")),
      req_pkt_buffer(&req_pkt_sram),
      req_hdr_buffer(&req_hdr_sram),
      rsp_pkt_buffer(&rsp_pkt_sram),
      rsp_hdr_buffer(&rsp_hdr_sram),
      parser("parser", env,
             RxBuffers{req_pkt_buffer, req_hdr_buffer, rsp_pkt_buffer, rsp_hdr_buffer}),
      bitmap_manager("bitmap_manager", env),
      req_processor("req_processor", env, qps,
                    ReqProcessorCore::Links{bitmap_manager, dma, req_manager, req_hdr_buffer,
                                            req_pkt_buffer, agenda}),
      rsp_processor("rsp_processor", env, qps,
                    RspProcessorCore::Links{bitmap_manager, dma, rsp_manager, rsp_hdr_buffer,
                                            rsp_pkt_buffer}),
      qps_(qps),
      rate_(rate),
      responder_(req_manager),
      last_cnp_(env.p.nic.max_qps, kNever),
      cnp_on_ooo_(env.p.np.cnp_on_ooo),
      ece_in_acks_(ordering::find_scheme(env.p.nic.ordering).traits.sack_as_mp_ack ||
                   ordering::find_scheme(env.p.nic.ordering).traits.uet_ack),
      cnp_interval_(
          static_cast<Cycle>(std::llround(env.p.np.cnp_interval_us * env.p.nic.clock_mhz))),
      ce_marked_(env.stats.counter(std::string(name()) + ".ce_marked", "frame",
                                   "RC frames received with ECN CE (congestion experienced)")) {
  const StatGroup drops(env.stats, std::string(name()) + ".drops");
  drops_.push_back(&accepted_frames_);  // Drop::kNone
  for (size_t i = 1; i < static_cast<size_t>(Drop::kCount); ++i)
    drops_.push_back(&drops.counter(drop_name(static_cast<Drop>(i)), "frame",
                                    "frames dropped for this reason (README: drops)"));
  drops.derived("total", "frame", "frames dropped for any reason but duplicate",
                [this] { return static_cast<double>(drops_total()); });
}

uint64_t RxPlane::drops_total() const {
  uint64_t n = 0;
  for (size_t i = 1; i < drops_.size(); ++i)
    if (static_cast<Drop>(i) != Drop::kDuplicate) n += drops_[i]->value;
  return n;
}

// DCQCN's notification point: a CE-marked frame to one of our QPs asks for a CNP
// to its peer, at most one per cc.cnp_interval_us.
void RxPlane::notify_congestion(Cycle t, bool ce) {
  if (ce) ce_marked_.inc();
  if (ece_in_acks_) return;  // MP-RDMA, UET: the ACKs echo ECE; no CNP
  const int64_t qi = qps_.find(view_.bth.dest_qp);
  if (qi < 0) return;
  Cycle& last = last_cnp_[static_cast<uint32_t>(qi)];
  if (last != kNever && t < last + cnp_interval_) return;
  last = t;
  responder_.register_cnp(t, static_cast<uint32_t>(qi));
}

void RxPlane::frame_in(Cycle arrival, const uint8_t* frame, uint32_t len, uint32_t record) {
  PacketRecord rec;
  rec.index = record;
  rec.arrival = arrival;
  RxParserCore::Result r = parser.core.receive(arrival, frame, len, view_);
  rec.parsed = r.ready;
  // DCQCN's congestion notification for one of our QPs: the rate core reacts.
  // A CNP to a QP this NIC does not have stays a ud_or_cnp drop.
  const int64_t cnp_qi = r.drop == Drop::kUdOrCnp && view_.bth.opcode == wire::kCnp
                             ? qps_.find(view_.bth.dest_qp)
                             : -1;
  if (cnp_qi >= 0) {
    rate_.on_cnp(static_cast<uint32_t>(cnp_qi), r.ready);
    rec.verdict = RecordVerdict::kCnp;
    rec.opcode = view_.bth.opcode, rec.qpn = view_.bth.dest_qp, rec.psn = view_.bth.psn;
    rec.payload = view_.payload_len;
  } else if (r.drop != Drop::kNone) {
    rec.verdict = RecordVerdict::kDropped;
    rec.drop = r.drop;
    if (r.drop == Drop::kBadIcrc || r.drop == Drop::kUdOrCnp || r.drop >= Drop::kReqPktBufferFull) {
      rec.opcode = view_.bth.opcode, rec.qpn = view_.bth.dest_qp, rec.psn = view_.bth.psn;
      rec.payload = view_.payload_len;
    }
  } else {
    rec.opcode = view_.bth.opcode, rec.qpn = view_.bth.dest_qp, rec.psn = view_.bth.psn;
    rec.payload = view_.payload_len;
    if ((view_.tos & 3) == 3) notify_congestion(r.ready, true);
    if (r.request)
      req_processor.core.process(r.ready, view_, rec);
    else
      rsp_processor.core.process(r.ready, view_, rec);
    if (cnp_on_ooo_ && (view_.tos & 3) != 3 && rec.verdict == RecordVerdict::kOoo)
      notify_congestion(r.ready, false);
  }
  drops_[static_cast<size_t>(rec.drop)]->inc();
  if (rec.drop != Drop::kNone && cnp_qi < 0) {
    // Recovery accounting per QP (what the NIC itself dropped; duplicates).
    const int64_t qi = qps_.find(view_.bth.dest_qp);
    if (qi >= 0) {
      RecoveryCounts& rc = qps_.at(static_cast<uint32_t>(qi)).recovery;
      if (rec.drop == Drop::kDuplicate)
        ++rc.duplicates;
      else if (rec.drop != Drop::kUdOrCnp && rec.drop != Drop::kBadIcrc)
        ++rc.nic_drops;
    }
  }
  last_rx_ = std::max({last_rx_, rec.parsed, rec.processed, rec.dma_done});
  if (log_) log_->write(rec);
  if (observer_) observer_(rec);
}

}  // namespace oonic::ornic
