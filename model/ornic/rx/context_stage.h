// The front stages the Req Processor and the Rsp Processor share (ORNIC Figure 1,
// RX plane): one header issued every ii cycles, read out of its Hdr Buffer, its
// QP context looked up and read from the context SRAM, then the transport
// checks. Plain code, used by both cores.
#pragma once

#include <cstdint>

#include "model/core/resource.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

struct ContextStage {
  Cycle issue = 0;  // the processor takes the header
  Cycle t1 = 0;     // the header is out of the Hdr Buffer
  int64_t qi = -1;  // the QP's slot; -1: no such QP (the caller drops at t1)
  Cycle t3 = 0;     // the context is read and the checks are done
};

inline ContextStage context_stage(Resource& pipe, Cycle ready, uint64_t ii_cycles,
                                  PktBuffer& hdr_buf, const wire::PacketView& v,
                                  QpContextTable& qps, uint64_t check_cycles) {
  ContextStage s;
  s.issue = pipe.acquire(ready, ii_cycles);
  s.t1 = hdr_buf.read_out(s.issue, v.header_len);
  s.qi = qps.find(v.bth.dest_qp);
  if (s.qi < 0) return s;
  const Cycle t2 = qps.sram().read(s.t1, qps.sram().params().width_bits);
  s.t3 = t2 + check_cycles;
  return s;
}

}  // namespace oonic::ornic
