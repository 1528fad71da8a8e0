// TX plane: ORNIC's Hdr Generator builds request frames (WRITE/SEND data, READ
// requests) for the QP Manager and ACK / NAK / READ-response frames from the
// control plane's work, and hands them to the MAC, which sends them at line
// rate. Both are resources: the Hdr Generator is busy ack_cycles (data_cycles)
// per frame; the MAC holds each frame for its wire time (frame + FCS +
// preamble/IFG at mac.rate_gbps), rounded up to whole cycles.
#pragma once

#include <functional>
#include <systemc>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/qp_context.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

// Where the NIC's frames go (the NIC top forwards them to mac_tx_socket).
using FrameSink = std::function<void(Cycle start, const uint8_t* frame, size_t len)>;

class HdrGenerator : public sc_core::sc_module {
 public:
  HdrGenerator(sc_core::sc_module_name name, const BlockEnv& env);
  void set_sink(FrameSink s) { sink_ = std::move(s); }

  // Each returns the cycle the frame started on the wire.
  Cycle send_ack(Cycle t, const QpContext& qp, uint32_t psn, uint32_t msn, uint8_t syndrome,
                 bool start_addr_cached);
  Cycle send_bitmap_nak(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                        const wire::BitmapBlock& block);
  Cycle send_feedback(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                      const wire::SchemeFeedback& fb);
  Cycle send_read_response(Cycle t, const QpContext& qp, uint8_t opcode, uint32_t psn, uint32_t msn,
                           const uint8_t* payload, uint32_t len);
  // A request frame of the requester (WRITE/SEND data, READ request): spec
  // holds everything but the destination QP. If in_place, the payload has
  // wire::header_size(spec) bytes of room before it and 8 after it, and the
  // frame is built around it there (no copy).
  Cycle send_data(Cycle t, const QpContext& qp, wire::FrameSpec& spec, bool in_place = false);
  Cycle free_at() const { return gen_.free_at(); }
  Cycle mac_free_at() const { return mac_.free_at(); }

 private:
  Cycle emit(Cycle t, uint32_t gen_cycles, wire::FrameSpec& spec, const QpContext& qp,
             bool in_place = false);
  OrnicParams p_;
  CycleClock clk_;
  Resource gen_, mac_;
  FrameSink sink_;
  std::vector<uint8_t> buf_;
  Counter& acks_;
  Counter& naks_;
  Counter& bitmap_naks_;
  Counter& feedback_;
  Counter* feedback_type_[5] = {};  // by SchemeFeedback type (1..4)
  Counter& read_responses_;
  Counter& requests_;
  Counter& frames_;
  Counter& bytes_;
  Probe p_opcode_, p_psn_, p_qpn_;
};

}  // namespace oonic::ornic
