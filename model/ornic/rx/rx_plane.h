// ORNIC's RX plane (Figure 1): the Req/Rsp Pkt and Hdr Buffers, the RX Parser, the
// Bitmap Manager (the ordering seam), the Req Processor and the Rsp Processor. It takes
// every frame the MAC received (FrameIn), books its whole path through the blocks at
// once (docs/DESIGN.md "Timing model"), counts drops by reason (`nic0.rx.drops.*`) and
// writes the packet's record (packets.csv).
#pragma once

#include <functional>
#include <systemc>
#include <vector>

#include "model/core/qp_table.h"
#include "model/core/signal.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/drop_reason.h"
#include "model/ornic/mac.h"
#include "model/ornic/packet_log.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/requester_events.h"
#include "model/ornic/rx/bitmap_manager.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/ornic/rx/req_processor.h"
#include "model/ornic/rx/rsp_processor.h"
#include "model/ornic/rx/rx_parser.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class RxPlane : public sc_core::sc_module, public FrameIn {
 public:
  // rate: the transmit seam's rate core, told of every CNP to one of our QPs.
  RxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps, DmaPort& dma,
          ResponderWork& req_manager, RequesterEvents& rsp_manager, sender::RateControl& rate,
          Agenda& agenda);

  void frame_in(Cycle arrival, const uint8_t* frame, uint32_t len, uint32_t record) override;
  void set_packet_log(PacketLog* log) { log_ = log; }
  // Adds an observer of every packet's record (several may listen).
  void set_packet_observer(std::function<void(const PacketRecord&)> f) {
    observer_.connect(std::move(f));
  }
  PacketLog* packet_log() { return log_; }
  const Counter& drops(Drop d) const { return *drops_[static_cast<size_t>(d)]; }
  uint64_t drops_total() const;
  Cycle last_rx() const { return last_rx_; }

  Sram req_pkt_sram, req_hdr_sram, rsp_pkt_sram, rsp_hdr_sram;
  PktBuffer req_pkt_buffer, req_hdr_buffer, rsp_pkt_buffer, rsp_hdr_buffer;
  RxParser parser;
  BitmapManager bitmap_manager;
  ReqProcessor req_processor;
  RspProcessor rsp_processor;

 private:
  QpContextTable& qps_;  // lookups; RecoveryCounts of dropped frames
  sender::RateControl& rate_;
  ResponderWork& responder_;
  // Notification point: the cycle of each QP's last CNP (kNever: none yet).
  QpTable<Cycle> last_cnp_;
  bool cnp_on_ooo_;
  bool ece_in_acks_;  // the scheme's per-packet ACK echoes ECN (MP-RDMA): no CNPs
  Cycle cnp_interval_;
  Counter& ce_marked_;
  void notify_congestion(Cycle t, bool ce);  // ce: a CE mark (else an OOO arrival)
  PacketLog* log_ = nullptr;
  Signal<const PacketRecord&> observer_;
  std::vector<Counter*> drops_;
  Counter accepted_frames_;  // frames with no drop (not a registered stat)
  wire::PacketView view_;
  Cycle last_rx_ = 0;
};

}  // namespace oonic::ornic
