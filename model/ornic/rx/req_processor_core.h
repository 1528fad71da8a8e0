// ORNIC RX plane: the Req Processor (Figure 1), the core. For each request header it
//   1. fetches the header from the Req Hdr Buffer,
//   2. reads the QP context (`qp.context`),
//   3. checks transport state (check_cycles): PSN against ePSN for standard
//      packets; for OOO WRITE packets the address by Eq. 2 (FSpot: cache
//      Start_Addr = Write_Addr - (PSN - Start_PSN) x PMTU) or Eq. 1 (Spot/Last:
//      Write_Addr = Start_Addr + (PSN - Start_PSN) x PMTU); R_Key and bounds,
//   4. for OOO packets asks the Bitmap Manager (shared with the Rsp Processor),
//   5. writes the QP context back, hands the payload to the DMA Engine and
//      registers ACK / NAK / READ-response work in the Req Manager.
// It is pipelined: a new header every ii_cycles. Cycle of each step for a
// header ready at r (defaults: SRAM read latency 1, check 1):
//   s  = max(r, previous s + ii)          pipeline slot
//   t1 = hdr buffer read done  (s + beats(hdr) - 1 + 1)
//   t2 = QP context read done  (t1 + 1)
//   t3 = t2 + check_cycles
//   t4 = Bitmap Manager done   (OOO only; = t3 otherwise)
//   t5 = QP context written    (t4 + 1): DMA starts, ACK/NAK registered.
// The receive scheme's traits (ordering::SchemeTraits, through the Bitmap Manager) say
// whether out-of-order payload parks in a host re-order buffer first (MELO), whether a
// SEND with Head metadata is received out of order and every in-order packet ACKed
// (Eunomia). Plain C++.
#pragma once

#include <deque>
#include <vector>

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/packet_log.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

class ReqProcessorCore {
 public:
  struct Links {
    BitmapPort& bitmap;
    DmaPort& dma;
    ResponderWork& work;  // the Req Manager
    PktBuffer& hdr_buf;   // Req Hdr Buffer
    PktBuffer& pkt_buf;   // Req Pkt Buffer
    Agenda& agenda;       // MELO's second pass: its writes wait for idle write-channel cycles
  };
  ReqProcessorCore(const CoreEnv& env, QpContextTable& qps, Links links);

  // Process one request whose header is ready at `ready`. Fills rec.
  void process(Cycle ready, const wire::PacketView& v, PacketRecord& rec);
  uint64_t payload_bytes_accepted() const { return accepted_bytes_.value; }
  Cycle last_dma_done() const { return last_dma_done_; }

 private:
  // What the processor decided for one packet; carried out when the QP context has
  // been written back (t5).
  struct Actions {
    bool place = false;
    uint64_t addr = 0;
    bool ack = false;
    bool nak = false;
    uint8_t syndrome = 0;
    uint32_t nak_psn = 0;
    bool bitmap_nak = false;
    wire::BitmapBlock block;
    bool feedback = false;
    wire::SchemeFeedback fb;
    bool read = false;
    bool read_ooo = false;
    bool read_dup = false;
    bool rob_flush = false;  // MELO: the head moved, copy what the re-order buffer now heads
  };
  // MELO: a packet accepted out of order is written to the QP's re-order buffer in host
  // memory (bitmap.melo_rob_base) and copied to its destination when ePSN passes it.
  struct RobEntry {
    uint32_t psn;
    uint64_t final_addr, rob_addr;
    uint32_t len;
  };
  // The second pass, pipelined as a DMA copy is and never ahead of placement
  // (MECHANISMS.md §3): every read is issued from t back to back; the bytes are in the
  // application's buffer at once (untimed, DmaPort::poke), and each copy's timed write is
  // booked, in order, at the first cycle at or after its read's data is back at which the
  // write channel is idle (placements of arriving packets keep the channel first).
  void rob_flush(Cycle t, uint32_t qi, uint32_t epsn);
  void rob_write(Cycle t);  // the copy engine's turn (an agenda entry)
  struct RobCopy {
    Cycle ready;  // the read's data is back
    uint64_t final_addr;
    std::vector<uint8_t> data;
  };
  void standard(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v, PacketRecord& rec);
  // Out-of-order SEND (Eunomia): a SEND packet with Head metadata, placed at
  // (psn - Head) x PMTU into the message's receive buffer in any order; the message
  // completes when Head passes Last Seq.
  void ooo_send(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v, PacketRecord& rec,
                Cycle* t4);
  // The bitmap call of an out-of-order data packet to addr and what follows from its
  // verdict (placement, feedback, completion when Head passes the message's last PSN).
  void ordered(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v, PacketRecord& rec,
               Cycle* t4, uint64_t addr, bool last, bool send);
  void ooo_write(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v, PacketRecord& rec,
                 Cycle* t_end);
  void read_request(Cycle t3, uint32_t qi, QpContext& c, const wire::PacketView& v,
                    PacketRecord& rec);
  bool leave_ooo(Cycle t, uint32_t qi, QpContext& c, uint32_t psn);
  bool region_ok(const QpContext& c, uint32_t rkey, uint64_t va, uint64_t len) const;
  void ack(Cycle t, uint32_t qi, QpContext& c);
  void trimmed(Cycle t3, const wire::PacketView& v, PacketRecord& rec);
  void reack(QpContext& c, const wire::PacketView& v);
  void drop(Cycle t, const wire::PacketView& v, PacketRecord& rec, Drop d);
  void place(Cycle t, uint64_t addr, const wire::PacketView& v, PacketRecord& rec);

  const OrnicParams& p_;
  const bool ack_every_;  // rx.req_processor.ack_policy == every (read once, not per packet)
  // The receive scheme is an in-order one (gbn): rx.req_processor.seq_nak applies to its NAK.
  const bool in_order_scheme_;
  const ordering::SchemeTraits& traits_;
  QpContextTable& qps_;
  Links l_;
  Actions act_;  // this packet's decisions
  Resource pipe_;
  Cycle last_dma_done_ = 0;
  std::vector<std::deque<RobEntry>> rob_;   // empty unless the scheme has a reorder buffer
  std::deque<RobCopy> rob_copies_pending_;  // reads issued, writes not yet booked, in order
  bool rob_turn_booked_ = false;            // an agenda entry for rob_write is pending
  Counter* rob_copies_ = nullptr;
  Counter* rob_bytes_ = nullptr;
  Counter& packets_;
  Counter& accepted_;
  Counter& accepted_bytes_;
  Counter& ooo_packets_;
  Counter& in_order_;
  Counter& messages_;
  Counter& start_addr_cached_;
  Counter& reads_;
  Probe p_qpn_, p_psn_, p_epsn_, p_verdict_;
};

}  // namespace oonic::ornic
