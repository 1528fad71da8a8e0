// TX plane: ORNIC's Hdr Generator, the core. It builds request frames (WRITE/SEND data,
// READ requests) for the QP Manager and ACK / NAK / READ-response frames from the
// control plane's work, and hands them to the MAC. It is a resource: busy ack_cycles
// (data_cycles) per frame; the MAC then holds the frame for its wire time. Plain C++.
#pragma once

#include <vector>

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/qp_context.h"
#include "model/wire/uet_nic.h"

namespace oonic::ornic {

class HdrGeneratorCore final : public HdrGeneratorPort {
 public:
  HdrGeneratorCore(const CoreEnv& env, MacPort& mac);
  Cycle send_ack(Cycle t, const QpContext& qp, uint32_t psn, uint32_t msn, uint8_t syndrome,
                 bool start_addr_cached) override;
  Cycle send_bitmap_nak(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                        const wire::BitmapBlock& block) override;
  Cycle send_feedback(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                      const wire::SchemeFeedback& fb) override;
  Cycle send_read_response(Cycle t, const QpContext& qp, uint8_t opcode, uint32_t psn, uint32_t msn,
                           const uint8_t* payload, uint32_t len) override;
  Cycle send_data(Cycle t, const QpContext& qp, wire::FrameSpec& spec, bool in_place) override;
  Cycle send_cnp(Cycle t, const QpContext& qp) override;
  Cycle free_at() const override { return gen_.free_at(); }
  Cycle mac_free_at() const override { return mac_.free_at(); }
  Cycle mac_paused_until(uint8_t c) const override { return mac_.paused_until(c); }

 private:
  Cycle emit(Cycle t, uint32_t gen_cycles, wire::FrameSpec& spec, const QpContext& qp,
             bool in_place = false);
  // The frame on UET's wire (nic.wire uet).
  Cycle emit_uet(Cycle t, uint32_t gen_cycles, wire::FrameSpec& spec, const QpContext& qp,
                 bool in_place);
  uint8_t* scratch(size_t need);
  // Takes the generator for gen_cycles from t, then the MAC: the frame's start.
  Cycle put(Cycle t, uint32_t gen_cycles, const wire::FrameSpec& spec, const uint8_t* out,
            size_t len);
  const OrnicParams& p_;
  MacPort& mac_;
  const bool ip_id_per_qp_;  // tx.hdr_generator.ip_id per_qp (read once)
  const bool uet_;           // nic.wire resolved to uet
  const wire::uet::NicWire uet_wire_;
  Resource gen_;
  std::vector<uint8_t> buf_;
  Counter& acks_;
  Counter& cnps_;
  Counter& naks_;
  Counter& bitmap_naks_;
  Counter& feedback_;
  Counter* feedback_type_[6] = {};  // by SchemeFeedback type (1..5)
  Counter& read_responses_;
  Counter& requests_;
  Counter& frames_;
  Counter& bytes_;
  Probe p_opcode_, p_psn_, p_qpn_;
};

}  // namespace oonic::ornic
