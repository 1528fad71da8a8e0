// ORNIC RX plane: the RX Parser, the core. Takes a frame from the MAC once its last byte
// has arrived (store and forward), holds the parser for one cycle per beat, classifies
// it (request: WRITE/SEND data, READ request; response: ACK/NAK, READ response),
// validates headers and the ICRC, and writes the header into the Req/Rsp Hdr Buffer and
// the payload into the Req/Rsp Pkt Buffer as the beats stream through. Header ready for
// the processor at
//   g + beats(frame) + rx.parser.latency,   g = max(arrival, parser free).
// Plain C++.
#pragma once

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/drop_reason.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"

namespace oonic::ornic {

struct RxBuffers {
  PktBuffer& req_pkt;
  PktBuffer& req_hdr;
  PktBuffer& rsp_pkt;
  PktBuffer& rsp_hdr;
};

class RxParserCore {
 public:
  RxParserCore(const CoreEnv& env, RxBuffers buffers);

  struct Result {
    Drop drop = Drop::kNone;
    bool request = false;
    Cycle ready = 0;  // header in its Hdr Buffer, ready for the processor
  };
  Result receive(Cycle arrival, const uint8_t* frame, uint32_t len, wire::PacketView& v);

 private:
  const OrnicParams& p_;
  const wire::uet::NicWire uet_wire_;  // reads UET's frames too (nic.wire uet)
  RxBuffers buf_;
  Resource parser_;
  Counter& frames_;
  Counter& bytes_;
  Counter& requests_;
  Counter& responses_;
  Probe p_opcode_, p_psn_, p_qpn_, p_len_;
};

Drop drop_for(wire::ParseStatus s);

}  // namespace oonic::ornic
