#include "model/ornic/tx/hdr_generator_core.h"

#include <algorithm>
#include <string>

#include "model/core/error.h"

namespace oonic::ornic {

HdrGeneratorCore::HdrGeneratorCore(const CoreEnv& env, MacPort& mac)
    : p_(env.p),
      mac_(mac),
      ip_id_per_qp_(env.p.hdr_generator.ip_id == "per_qp"),
      uet_(env.p.uet_wire()),
      uet_wire_{env.p.nic.pmtu_bytes, env.p.uet_ordered()},
      acks_(env.stats.counter("acks", "frame", "ACK frames sent")),
      cnps_(env.stats.counter("cnps", "frame",
                              "CNP frames sent (DCQCN notification point: CE-marked packets)")),
      naks_(env.stats.counter(
          "naks", "frame", "NAK frames sent (PSN sequence, remote access, RNR, invalid request)")),
      bitmap_naks_(
          env.stats.counter("bitmap_naks", "frame", "OOO NAK frames carrying a bitmap block")),
      feedback_(env.stats.counter("scheme_feedback", "frame",
                                  "Scheme Feedback frames sent (MELO NACK, SACK, NACK, MP-RDMA "
                                  "ACK: the baselines' selective feedback)")),
      read_responses_(env.stats.counter("read_responses", "frame", "READ response frames sent")),
      requests_(env.stats.counter("requests", "frame",
                                  "request frames sent (WRITE/SEND data, READ requests)")),
      frames_(env.stats.counter("frames", "frame", "frames sent")),
      bytes_(env.stats.counter("bytes", "byte", "frame bytes sent (without FCS)")) {
  using F = wire::SchemeFeedback;
  feedback_type_[F::kHoleNack] = &env.stats.counter(
      "scheme_feedback_hole_nacks", "frame", "Scheme Feedback frames of type MELO hole NACK");
  feedback_type_[F::kSack] =
      &env.stats.counter("scheme_feedback_sacks", "frame", "Scheme Feedback frames of type SACK");
  feedback_type_[F::kNack] = &env.stats.counter(
      "scheme_feedback_nacks", "frame", "Scheme Feedback frames of type NACK (not tracked)");
  feedback_type_[F::kMpAck] = &env.stats.counter("scheme_feedback_mp_acks", "frame",
                                                 "Scheme Feedback frames of type MP-RDMA ACK");
  feedback_type_[F::kUetAck] = &env.stats.counter("scheme_feedback_uet_acks", "frame",
                                                  "Scheme Feedback frames of type UET ACK");
  env.stats.derived("mac_busy_cycles", "cycle", "cycles the MAC was sending",
                    [this] { return static_cast<double>(mac_.busy_cycles()); });
  env.stats.derived("stall_cycles", "cycle", "cycles work waited for the Hdr Generator",
                    [this] { return static_cast<double>(gen_.stall_cycles()); });
  env.probe(p_opcode_, "opcode", 8);
  env.probe(p_psn_, "psn", 24);
  env.probe(p_qpn_, "qpn", 24);
}

Cycle HdrGeneratorCore::emit(Cycle t, uint32_t gen_cycles, wire::FrameSpec& spec,
                             const QpContext& qp, bool in_place) {
  spec.bth.dest_qp = qp.peer_qpn;
  if (ip_id_per_qp_) spec.ip_id = qp.tx_ip_id++;
  if (uet_ && wire::uet::carries(spec)) return emit_uet(t, gen_cycles, spec, qp, in_place);
  size_t need = wire::frame_size(spec);
  uint8_t* out;
  if (in_place && spec.payload) {
    out = const_cast<uint8_t*>(spec.payload) - wire::header_size(spec);
  } else {
    out = scratch(need);
  }
  return put(t, gen_cycles, spec, out, wire::build(spec, out, need));
}

Cycle HdrGeneratorCore::emit_uet(Cycle t, uint32_t gen_cycles, wire::FrameSpec& spec,
                                 const QpContext& qp, bool in_place) {
  // A UET NACK naming several PSNs (merged in the Req Manager's register) leaves as one
  // NACK frame each; the first frame's start is the answer.
  const uint32_t n = wire::uet::frames_of(spec);
  Cycle first = 0;
  for (uint32_t e = 0; e < n; ++e) {
    if (e && ip_id_per_qp_) spec.ip_id = qp.tx_ip_id++;
    wire::uet::UetFrameSpec u;
    std::string why;
    if (!wire::uet::to_uet(spec, qp.qpn, uet_wire_, u, &why, e))
      throw Error(msg::kConfig, "nic.wire uet: " + why + " (QP " + std::to_string(qp.qpn) + ")");
    const size_t need = wire::uet::frame_size(u);
    uint8_t* out = in_place && u.payload
                       ? const_cast<uint8_t*>(u.payload) - wire::uet::header_size(u)
                       : scratch(need);
    const size_t len = wire::uet::build_frame(u, out, need);
    if (!len)
      throw Error(msg::kConfig, "nic.wire uet: a field of QP " + std::to_string(qp.qpn) +
                                    "'s frame does not fit UET's headers");
    const Cycle c = put(t, gen_cycles, spec, out, len);
    if (!e) first = c;
  }
  return first;
}

uint8_t* HdrGeneratorCore::scratch(size_t need) {
  // 16 KB at the first frame built here (an idle host builds none).
  if (buf_.size() < need) buf_.resize(std::max<size_t>(need, 16384));
  return buf_.data();
}

Cycle HdrGeneratorCore::put(Cycle t, uint32_t gen_cycles, const wire::FrameSpec& spec,
                            const uint8_t* out, size_t len) {
  Cycle g = gen_.acquire(t, gen_cycles);
  Cycle ready = g + gen_cycles;
  Cycle start = mac_.reserve(ready, len);
  frames_.inc();
  bytes_.inc(len);
  if (p_opcode_.on()) {
    p_opcode_.set(start, spec.bth.opcode);
    p_psn_.set(start, spec.bth.psn);
    p_qpn_.set(start, spec.bth.dest_qp);
  }
  mac_.send(start, out, len);
  return start;
}

namespace {
// HPCC's echo: a response carries the INT stack of the QP's last data packet with one.
void echo_int(wire::FrameSpec& s, const QpContext& qp) {
  if (!qp.int_echo) return;
  s.bth.resv7 |= wire::kBthIntBit;
  s.int_stack = qp.int_echo.get();
}
}  // namespace

Cycle HdrGeneratorCore::send_ack(Cycle t, const QpContext& qp, uint32_t psn, uint32_t msn,
                                 uint8_t syndrome, bool start_addr_cached) {
  wire::FrameSpec s = qp.tx_template;
  s.bth = wire::Bth{};
  s.bth.opcode = wire::kAcknowledge;
  s.bth.psn = psn & wire::kPsnMask;
  if (start_addr_cached) s.bth.resv7 = wire::kBthStartAddrCachedBit;
  echo_int(s, qp);
  s.aeth.syndrome = syndrome;
  s.aeth.msn = msn & wire::kPsnMask;
  s.payload_len = 0;
  ((syndrome & 0xE0) == 0 ? acks_ : naks_).inc();
  return emit(t, p_.hdr_generator.ack_cycles, s, qp);
}

Cycle HdrGeneratorCore::send_cnp(Cycle t, const QpContext& qp) {
  static const uint8_t kReserved[16] = {};  // RoCEv2 CNP: 16 reserved bytes
  wire::FrameSpec s = qp.tx_template;
  s.bth = wire::Bth{};
  s.bth.opcode = wire::kCnp;
  s.tos &= 0xFC;  // a CNP is not ECN-capable
  s.payload = kReserved;
  s.payload_len = sizeof kReserved;
  cnps_.inc();
  return emit(t, p_.hdr_generator.ack_cycles, s, qp);
}

Cycle HdrGeneratorCore::send_bitmap_nak(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                                        const wire::BitmapBlock& block) {
  wire::FrameSpec s = qp.tx_template;
  s.bth = wire::Bth{};
  s.bth.opcode = wire::kOooNak;
  s.bth.psn = epsn & wire::kPsnMask;
  s.aeth.syndrome = wire::kAethNakPsnSeqErr;
  s.aeth.msn = msn & wire::kPsnMask;
  s.bitmap = block;
  echo_int(s, qp);
  bitmap_naks_.inc();
  return emit(t, p_.hdr_generator.ack_cycles, s, qp);
}

Cycle HdrGeneratorCore::send_feedback(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                                      const wire::SchemeFeedback& fb) {
  wire::FrameSpec s = qp.tx_template;
  s.bth = wire::Bth{};
  s.bth.opcode = wire::kSchemeFeedback;
  s.bth.psn = epsn & wire::kPsnMask;
  s.aeth.syndrome =
      fb.type == wire::SchemeFeedback::kHoleNack ? wire::kAethNakPsnSeqErr : wire::kAethAckNoCredit;
  s.aeth.msn = msn & wire::kPsnMask;
  s.feedback = fb;
  // MP-RDMA's ACK and NACK go back on the virtual path they echo (the UDP source port):
  // the ACKs spread over the paths as the data does, and a dead path takes only its own.
  if (fb.vp && (fb.type == wire::SchemeFeedback::kMpAck || fb.type == wire::SchemeFeedback::kNack ||
                fb.type == wire::SchemeFeedback::kUetAck))
    s.udp_sport = fb.vp;
  echo_int(s, qp);
  feedback_.inc();
  if (fb.type <= wire::SchemeFeedback::kUetAck && feedback_type_[fb.type])
    feedback_type_[fb.type]->inc();
  return emit(t, p_.hdr_generator.ack_cycles, s, qp);
}

Cycle HdrGeneratorCore::send_read_response(Cycle t, const QpContext& qp, uint8_t opcode,
                                           uint32_t psn, uint32_t msn, const uint8_t* payload,
                                           uint32_t len) {
  wire::FrameSpec s = qp.tx_template;
  s.bth = wire::Bth{};
  s.bth.opcode = opcode;
  s.bth.psn = psn & wire::kPsnMask;
  s.aeth.syndrome = wire::kAethAckNoCredit;
  s.aeth.msn = msn & wire::kPsnMask;
  s.payload = payload;
  s.payload_len = len;
  read_responses_.inc();
  return emit(t, p_.hdr_generator.data_cycles, s, qp);
}

Cycle HdrGeneratorCore::send_data(Cycle t, const QpContext& qp, wire::FrameSpec& spec,
                                  bool in_place) {
  requests_.inc();
  return emit(t, p_.hdr_generator.data_cycles, spec, qp, in_place);
}

}  // namespace oonic::ornic
