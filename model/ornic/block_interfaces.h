// The named interfaces between ORNIC's blocks (the arrows of Figure 1), each
// implemented by one block's core and bound once where the NIC is assembled
// (OrnicNic's constructor). A block reaches another only through these: no block
// holds another block's type or changes its state. Plain C++.
//
//   Req Processor  --ResponderWork-->    Req Manager      (ACK / NAK / READ work)
//   Rsp Processor  --RequesterEvents-->  Rsp Manager      (responses; requester_events.h)
//   processors     --BitmapPort-->       Bitmap Manager   (the ordering seam's shell)
//   processors, managers, QP Manager --DmaPort--> DMA Engine
//   Rsp Manager    --RequesterState-->   QP Manager       (send queues: ACK, resend, go back)
//   CQE Manager    --CompletionSource--> QP Manager       (the head WQE, retire)
//   QP Manager, Rsp Manager --CompletionWork--> CQE Manager
//   QP Manager     --SendTimer-->        Rsp Manager      (arm the requester timeout)
//   TX arbiter     --TxSource-->         QP Manager; --ControlSource--> Req Manager
//   Req Manager, QP Manager --HdrGeneratorPort--> Hdr Generator --MacPort--> MAC
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/core/cycles.h"
#include "model/ordering/ordering_unit.h"
#include "model/schemes/receive_schemes.h"
#include "model/sender/loss_recovery.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

class PktBuffer;
struct QpContext;

// The DMA Engine: payload to and from host memory. Each returns the cycle the
// transfer is done (write: its last TLP left the NIC; read: its last completion came in).
class DmaPort {
 public:
  virtual ~DmaPort() = default;
  // `buffer` (may be null) is the Pkt Buffer the payload is read out of, beat by beat.
  virtual Cycle write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len,
                      PktBuffer* buffer) = 0;
  virtual Cycle read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len) = 0;
  // The cycle the write channel is next free (a copy that must not delay placement waits
  // for it).
  virtual Cycle write_free_at() const { return 0; }
  // Make `len` bytes visible at addr at once, untimed (TLM debug transport): MELO's copy
  // lands in memory when decided, and its timed write follows when the channel is idle.
  virtual void poke(uint64_t addr, const uint8_t* src, uint32_t len) {}
};

// The MAC, as the Hdr Generator sees it: it holds each frame for its wire time.
class MacPort {
 public:
  virtual ~MacPort() = default;
  // A frame of len bytes is ready at `ready`: book the MAC for its wire time; returns the
  // cycle its first byte goes on the wire. Then send() hands the bytes over for that cycle.
  virtual Cycle reserve(Cycle ready, size_t len) = 0;
  virtual void send(Cycle start, const uint8_t* frame, size_t len) = 0;
  virtual Cycle free_at() const = 0;
  virtual uint64_t busy_cycles() const = 0;  // cycles it has been sending
  // PFC: until when frames of class c may not start (0: ACK, NAK, CNP; 1: the rest).
  virtual Cycle paused_until(uint8_t c) const { return 0; }
};

// The Hdr Generator: builds a frame and hands it to the MAC. Each returns the cycle the
// frame started on the wire.
class HdrGeneratorPort {
 public:
  virtual ~HdrGeneratorPort() = default;
  virtual Cycle send_ack(Cycle t, const QpContext& qp, uint32_t psn, uint32_t msn, uint8_t syndrome,
                         bool start_addr_cached) = 0;
  virtual Cycle send_bitmap_nak(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                                const wire::BitmapBlock& block) = 0;
  virtual Cycle send_feedback(Cycle t, const QpContext& qp, uint32_t epsn, uint32_t msn,
                              const wire::SchemeFeedback& fb) = 0;
  virtual Cycle send_read_response(Cycle t, const QpContext& qp, uint8_t opcode, uint32_t psn,
                                   uint32_t msn, const uint8_t* payload, uint32_t len) = 0;
  // A request frame (WRITE/SEND data, READ request): spec holds everything but the
  // destination QP. If in_place, the payload has wire::header_size(spec) bytes of room
  // before it and 8 after it, and the frame is built around it there (no copy).
  virtual Cycle send_data(Cycle t, const QpContext& qp, wire::FrameSpec& spec, bool in_place) = 0;
  // A CNP (DCQCN's congestion notification) to the QP's peer.
  virtual Cycle send_cnp(Cycle t, const QpContext& qp) { return t; }
  virtual Cycle free_at() const = 0;      // the generator itself
  virtual Cycle mac_free_at() const = 0;  // the MAC behind it
  // Until when the MAC holds frames of PFC class c (0: ACK, NAK, CNP; 1: data and READ
  // responses) because the link partner paused it; 0 when never paused.
  virtual Cycle mac_paused_until(uint8_t c) const { return 0; }
};

// The Req Manager's register-schedulers (Figure 8), fed by the Req Processor. Each
// registration is booked for cycle t (>= now).
class ResponderWork {
 public:
  virtual ~ResponderWork() = default;
  virtual void register_ack(Cycle t, uint32_t qp, uint32_t psn, uint32_t msn,
                            bool start_addr_cached) = 0;
  virtual void register_nak(Cycle t, uint32_t qp, uint8_t syndrome, uint32_t psn, uint32_t msn) = 0;
  virtual void register_bitmap_nak(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                                   const wire::BitmapBlock& block) = 0;
  virtual void register_feedback(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                                 const wire::SchemeFeedback& fb) = 0;
  virtual void register_read(Cycle t, uint32_t qp, uint64_t va, uint32_t len, uint32_t psn,
                             uint32_t msn, bool ooo, bool duplicate) = 0;
  // DCQCN's notification point: a CNP to the QP's peer (pacing is the caller's).
  virtual void register_cnp(Cycle t, uint32_t qp) {}
};

// The Bitmap Manager as the Req and Rsp Processors reach it: one port, so their calls
// queue (port contention).
class BitmapPort {
 public:
  struct Result {
    ordering::Outcome out;
    Cycle grant = 0, done = 0;
  };
  virtual ~BitmapPort() = default;
  virtual void open(Cycle t, uint32_t qp, uint32_t start_psn, uint32_t otd) = 0;
  virtual void close(Cycle t, uint32_t qp) = 0;
  virtual Result access(Cycle t, uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta) = 0;
  virtual bool is_open(uint32_t qp) const = 0;
  virtual uint32_t epsn(uint32_t qp) const = 0;
  // Some PSN at or after the QP's ePSN was accepted (out-of-order data pending).
  virtual bool has_pending(uint32_t qp) const = 0;
  virtual const ordering::SchemeTraits& traits() const = 0;
};

// The CQE Manager's inputs.
class CompletionWork {
 public:
  virtual ~CompletionWork() = default;
  virtual void registered() = 0;  // a WQE was cached
  // WQEs of QP qi may have completed at cycle t: write their CQEs in SQ order.
  virtual void poll(Cycle t, uint32_t qi) = 0;
};

// The requester timeout (the Rsp Manager's): the QP sent something at t.
class SendTimer {
 public:
  virtual ~SendTimer() = default;
  virtual void sent(Cycle t, uint32_t qi) = 0;
};

// What the CQE Manager reads of a QP's send queue and how it retires the head WQE.
struct CompletedWqe {
  uint64_t wr_id = 0;
  uint8_t op = 0;  // WqeOp
  bool bad = false, ooo = false;
  uint32_t length = 0, start_psn = 0;
  Cycle data_done_at = 0;  // READ: its last data's DMA (the CQE waits for it)
  uint64_t cq_addr = 0;    // where its CQE goes in the QP's CQ ring
};
class CompletionSource {
 public:
  virtual ~CompletionSource() = default;
  // The QP's head WQE if it has completed (every PSN ACKed, or a READ's data all placed,
  // or failed); false otherwise.
  virtual bool head_completed(uint32_t qi, CompletedWqe* out) const = 0;
  // Its CQE was written: the head WQE leaves the WQE cache (booked at t; the cache word
  // read for the CQE is `cache_read_at`).
  virtual void retire(Cycle t, uint32_t qi) = 0;
  // The WQE cache read the CQE needs (wr_id, length), granted at or after t.
  virtual Cycle read_wqe_cache(Cycle t) = 0;
  // State changed: activate and fetch more WQEs, requeue the QP for sending.
  virtual void kick_qp(Cycle t, uint32_t qi) = 0;
};

// What the Rsp Manager does to the requester's send queues (the QP Manager's), beyond
// the loss-recovery view (sender::SendState).
class RequesterState : public sender::SendState {
 public:
  virtual bool configured(uint32_t qi) const = 0;
  virtual bool has_active(uint32_t qi) const = 0;
  // The first unacknowledged PSN moves to una (if inside (una, high]); completes the
  // WRITE/SEND WQEs it covers and drops queued resends below it. Returns the old una.
  virtual bool acknowledge(uint32_t qi, uint32_t una, uint32_t* from) = 0;
  // The responder cached Start_Addr of the QP's OOO WRITE: FSpot becomes Spot.
  virtual void start_addr_cached(uint32_t qi) = 0;
  // A remote-access / invalid-request NAK: the WQE holding psn completes in error.
  virtual bool fail_wqe_at(uint32_t qi, uint32_t psn) = 0;
  // READs, by their first PSN.
  virtual bool read_active(uint32_t qi, uint32_t read_psn) const = 0;  // an active READ WQE
  virtual bool read_done(uint32_t qi, uint32_t read_psn) const = 0;    // all its data placed
  virtual uint32_t read_npsn(uint32_t qi, uint32_t read_psn) const = 0;
  // Data of the READ arrived at `dma_done`; complete: all of it.
  virtual void read_data(uint32_t qi, uint32_t read_psn, Cycle dma_done, bool complete) = 0;
  // Re-request a READ from psn (count PSNs, 0: to its end); false when already queued.
  virtual bool reread(uint32_t qi, uint32_t psn, uint32_t count) = 0;
  // Active READs not done whose request span is acknowledged (their data is what is
  // missing): their first PSNs, in SQ order.
  virtual void unfinished_reads(uint32_t qi, std::vector<uint32_t>& first_psns) const = 0;
  // Something sent and not yet answered: PSNs in [una, high), or a READ sent but not done.
  virtual bool inflight(uint32_t qi) const = 0;
  virtual void kick_qp(Cycle t, uint32_t qi) = 0;
  // After a timeout: at most psns PSNs past the first unacknowledged one may be out, the
  // limit growing by each PSN acknowledged until it reaches the QP's window (0: no limit).
  virtual void restart_window(uint32_t qi, uint32_t psns) = 0;
};

// The TX arbiter's sources.
class TxSource {  // the QP Manager: requester data and READ requests
 public:
  virtual ~TxSource() = default;
  // Refill the prefetch FIFO; cycle its head is ready (kNever: nothing to send).
  virtual Cycle head_ready(Cycle now) = 0;
  // Send the head packet at now; false when it was stale (dropped without sending).
  virtual bool send_head(Cycle now) = 0;
};
class ControlSource {  // the Req Manager: ACK/NAK and READ responses
 public:
  virtual ~ControlSource() = default;
  virtual void apply_due(Cycle now) = 0;  // registrations whose cycle has come
  virtual Cycle next_pending() const = 0;
  virtual bool has_control() const = 0;
  virtual void send_control(Cycle now) = 0;  // one NAK (first) or ACK
  virtual Cycle read_ready(Cycle now) = 0;   // head READ response's data (kNever: none)
  virtual void send_read(Cycle now) = 0;
};

}  // namespace oonic::ornic
