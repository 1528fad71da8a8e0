#include "model/ornic/rx/rx_parser_core.h"

namespace oonic::ornic {

Drop drop_for(wire::ParseStatus s) {
  switch (s) {
    case wire::ParseStatus::kOk:
      return Drop::kNone;
    case wire::ParseStatus::kTruncated:
      return Drop::kTruncated;
    case wire::ParseStatus::kNotIp:
    case wire::ParseStatus::kNotUdp:
    case wire::ParseStatus::kNotRoce:
      return Drop::kNotRoce;
    case wire::ParseStatus::kBadIpHeader:
      return Drop::kBadIpHeader;
    case wire::ParseStatus::kUnknownOpcode:
      return Drop::kUnknownOpcode;
    case wire::ParseStatus::kBadExtension:
      return Drop::kBadExtension;
    case wire::ParseStatus::kBadPadding:
      return Drop::kBadPadding;
    case wire::ParseStatus::kBadIcrc:
      return Drop::kBadIcrc;
    case wire::ParseStatus::kUdOrCnp:
      return Drop::kUdOrCnp;
  }
  return Drop::kNotRoce;
}

RxParserCore::RxParserCore(const CoreEnv& env, RxBuffers buffers)
    : p_(env.p),
      uet_wire_{env.p.nic.pmtu_bytes, false},
      buf_(buffers),
      frames_(env.stats.counter("frames", "frame", "frames the MAC delivered to the parser")),
      bytes_(env.stats.counter("bytes", "byte", "frame bytes delivered to the parser")),
      requests_(env.stats.counter("requests", "frame",
                                  "frames classified as requests (to the Req Processor)")),
      responses_(env.stats.counter("responses", "frame",
                                   "frames classified as responses (to the Rsp Processor)")) {
  env.stats.derived("stall_cycles", "cycle", "cycles frames waited for the parser",
                    [this] { return static_cast<double>(parser_.stall_cycles()); });
  env.probe(p_opcode_, "opcode", 8);
  env.probe(p_psn_, "psn", 24);
  env.probe(p_qpn_, "qpn", 24);
  env.probe(p_len_, "frame_len", 16);
}

RxParserCore::Result RxParserCore::receive(Cycle arrival, const uint8_t* frame, uint32_t len,
                                           wire::PacketView& v) {
  Result r;
  frames_.inc();
  bytes_.inc(len);
  wire::ParseStatus st = wire::parse_any(frame, len, v, p_.parser.check_icrc, uet_wire_);
  uint64_t b = beats(len, p_.nic.datapath_bytes);
  Cycle g = parser_.acquire(arrival, b);
  r.ready = g + b + p_.parser.latency;
  r.drop = drop_for(st);
  if (r.drop != Drop::kNone) return r;
  if (p_opcode_.on()) {
    p_opcode_.set(g, v.bth.opcode);
    p_psn_.set(g, v.bth.psn);
    p_qpn_.set(g, v.bth.dest_qp);
    p_len_.set(g, len);
  }
  r.request = (v.flags & wire::kIsRequest) != 0;
  PktBuffer& hdr = r.request ? buf_.req_hdr : buf_.rsp_hdr;
  PktBuffer& pkt = r.request ? buf_.req_pkt : buf_.rsp_pkt;
  if (!hdr.admit(g, v.header_len)) {
    r.drop = r.request ? Drop::kReqHdrBufferFull : Drop::kRspHdrBufferFull;
    return r;
  }
  if (!pkt.admit(g, v.payload_len)) {
    r.drop = r.request ? Drop::kReqPktBufferFull : Drop::kRspPktBufferFull;
    return r;
  }
  (r.request ? requests_ : responses_).inc();
  hdr.write(g, v.header_len);
  pkt.write(g, v.payload_len);
  return r;
}

}  // namespace oonic::ornic
