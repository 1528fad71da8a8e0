// ORNIC RX plane: the Rsp Processor (Figure 1), the core. ACK/NAK: advances the QP's
// acknowledged PSN (a coalesced ACK covers every PSN up to its own) and counts NAKs; the
// retransmission work they start belongs to the Rsp Manager (RequesterEvents). READ
// responses: the requester knows each READ's Start_PSN and local Start_Addr, so a
// response packet goes to Start_Addr + (PSN - Start_PSN) x PMTU (Eq. 1); standard READ
// responses must come in order, OOO READ responses go through the Bitmap Manager
// (shared with the Req Processor). Same pipeline shape as the Req Processor: slot, Rsp
// Hdr Buffer read, QP context read, check, [bitmap], context write, DMA. Plain C++.
#pragma once

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/packet_log.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/requester_events.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

class RspProcessorCore {
 public:
  struct Links {
    BitmapPort& bitmap;
    DmaPort& dma;
    RequesterEvents& requester;  // the Rsp Manager
    PktBuffer& hdr_buf;          // Rsp Hdr Buffer
    PktBuffer& pkt_buf;          // Rsp Pkt Buffer
  };
  RspProcessorCore(const CoreEnv& env, QpContextTable& qps, Links links);
  // Process one response whose header is ready at `ready`. Fills rec.
  void process(Cycle ready, const wire::PacketView& v, PacketRecord& rec);
  uint64_t payload_bytes_accepted() const { return read_bytes_.value; }
  Cycle last_dma_done() const { return last_dma_done_; }

 private:
  void drop(Cycle t, const wire::PacketView& v, PacketRecord& rec, Drop d);

  const OrnicParams& p_;
  QpContextTable& qps_;
  Links l_;
  Resource pipe_;
  Cycle last_dma_done_ = 0;
  Counter& packets_;
  Counter& acks_;
  Counter& psns_acked_;
  Counter& coalesced_;
  Counter& naks_;
  Counter& bitmap_naks_;
  Counter& feedback_;
  Counter& cached_flags_;
  Counter& read_packets_;
  Counter& read_bytes_;
  Counter& reads_done_;
};

}  // namespace oonic::ornic
