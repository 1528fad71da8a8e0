// TX plane: ORNIC's QP Manager (Figure 1). It owns the requester side of each
// QP: the send queue ring in host memory, the WQEs fetched from it into the
// WQE cache (`tx.wqe_cache`, one word per cached WQE), and the send pointer.
//   doorbell  -> the host wrote SQ_DOORBELL (producer index) through reg_socket
//   fetch     -> DMA read of the new WQEs (64 B each) from the SQ ring
//   prepare   -> each WQE is parsed and written into the WQE cache
//                (fetch_cycles + one SRAM write), registered with the CQE Manager
//   process   -> activated in SQ order: standard WQEs pipelined up to
//                max_outstanding_wqes; an OOO WQE only when nothing else is
//                outstanding, and nothing after it until it completed (one
//                outstanding OOO WQE per QP, ORNIC "Consistency")
//   send      -> its packets are picked round-robin across QPs, selective
//                retransmissions first, payload fetched by DMA read up to
//                prefetch_packets ahead of the TX arbiter
//   write back-> the CQE Manager writes the CQE and the WQE leaves the cache.
// The PSN window (max_inflight_psns past the first unacknowledged PSN) keeps
// data inside the receiver's bitmap (OTD + BDP, Eq. 5).
#pragma once

#include <deque>
#include <systemc>
#include <vector>

#include "model/core/clock.h"
#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/dma_engine.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_map.h"
#include "model/ornic/tx/hdr_generator.h"
#include "model/ornic/wqe.h"
#include "model/sram/sram.h"

namespace oonic::eunomia {
class SenderAgent;
}

namespace oonic::ornic {

class CqeManager;
class RspManager;

// A WQE in the WQE cache.
struct TxWqe {
  Wqe w;
  uint64_t seq = 0;  // position in the SQ (monotonic)
  bool bad = false;  // malformed: completes with an error CQE
  Cycle cached_at = 0;
  bool active = false;
  uint32_t start_psn = 0, npsn = 0;  // PSN span (READ: its response packets)
  bool start_addr_cached = false;    // OOO WRITE: the responder said so in an ACK
  bool acked = false;                // WRITE/SEND: every PSN acknowledged
  bool data_done = false;            // READ: every response placed in host memory
  Cycle data_done_at = 0;
  bool read_seen = false;  // READ: a response arrived (the request got there)
};

// One entry of the QP's selective retransmission list.
struct Retx {
  uint32_t psn;
  bool reread;         // READ re-request
  uint32_t count = 0;  // reread: PSNs to re-request (0: to the READ's end)
};

struct SqState {
  bool configured = false;
  uint64_t sq_base = 0, cq_base = 0;
  uint32_t sq_size = 0, cq_size = 0;
  uint32_t sq_pi = 0;      // producer index (doorbell), modulo 2^16
  uint64_t fetched = 0;    // WQEs fetched so far
  uint64_t cq_pi = 0;      // CQEs written so far
  std::deque<TxWqe> wqes;  // in the cache, in SQ order; the first `active` are active
  uint32_t active = 0;
  uint32_t next_psn = 0;  // PSN of the next WQE activated
  uint32_t send_psn = 0;  // send pointer (go-back-N moves it back)
  uint32_t high_psn = 0;  // first PSN never sent
  uint32_t una = 0;       // first unacknowledged PSN
  std::deque<Retx> retx;
  uint32_t epoch = 0;  // bumped by go-back-N: prefetched packets of older epochs are dropped
  bool fetch_busy = false;
  bool queued = false;  // in the round-robin list
  uint32_t inflight_prefetch = 0;
  Cycle deadline = kNever;  // requester timeout (RTT + OTD/B after the last progress)
  bool timer_booked = false;
  Cycle timeout_cycles = 0;
};

// A packet picked for sending, its payload fetched (or being fetched).
struct TxPacket {
  uint32_t qi = 0;
  uint32_t epoch = 0;
  uint64_t wqe_seq = 0;
  uint32_t psn = 0;
  bool read_request = false;
  bool retx = false;
  uint32_t offset = 0, len = 0;  // within the WQE (READ request: bytes requested)
  Cycle ready = 0;               // payload in the NIC
  uint32_t slot = 0;             // prefetch buffer slot
};

class QpManager : public sc_core::sc_module {
 public:
  QpManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
            RegisterFile& regs, DmaEngine& dma, HdrGenerator& hdr, Agenda& agenda);
  void set_cqe_manager(CqeManager* c) { cqe_ = c; }

  // SQ_DOORBELL of QP block `qi` written with `pi`, effective at cycle t.
  void doorbell(Cycle t, uint32_t qi, uint32_t pi);

  // TX arbiter interface: refill the prefetch FIFO (payload DMA reads) and say
  // when its head is ready (kNever: nothing to send).
  Cycle head_ready(Cycle now);
  // Send the head packet through the Hdr Generator at cycle now. Returns false
  // when the head was stale (dropped without sending).
  bool send_head(Cycle now);

  SqState& sq(uint32_t qi) { return sq_[qi]; }
  const SqState& sq(uint32_t qi) const { return sq_[qi]; }
  uint32_t qp_count() const { return static_cast<uint32_t>(sq_.size()); }
  // State changed (ACK, NAK, completion): activate and fetch more, re-queue.
  void kick_qp(Cycle t, uint32_t qi);
  // Go-back-N from psn (NAK PSN sequence error, timeout).
  void go_back(uint32_t qi, uint32_t psn);
  // The active WQE whose PSN span holds psn, or nullptr.
  TxWqe* wqe_of(SqState& s, uint32_t psn);
  void set_rsp_manager(RspManager* r) { rsp_ = r; }
  // Eunomia's sender agent (nic.ordering eunomia): metadata and the last-packet hold.
  void set_sender_agent(eunomia::SenderAgent* a) { sender_ = a; }
  // The CQE Manager wrote the head WQE's CQE at t: it leaves the WQE cache.
  void retire(Cycle t, uint32_t qi);
  Sram& wqe_cache() { return cache_; }
  Cycle last_activity() const { return last_activity_; }
  bool idle() const;
  Cycle timeout_cycles(uint32_t qi) const;

 private:
  void fetch(Cycle t, uint32_t qi);
  void activate(Cycle t, uint32_t qi);
  void enqueue(uint32_t qi);
  bool sendable(uint32_t qi) const;
  bool pick(Cycle now, TxPacket& out);
  bool stale(const TxPacket& k) const;
  bool holds_last(uint32_t qi) const;

  const OrnicParams& p_;
  QpContextTable& qps_;
  RegisterFile& regs_;
  DmaEngine& dma_;
  HdrGenerator& hdr_;
  Agenda& agenda_;
  eunomia::SenderAgent* sender_ = nullptr;  // nic.ordering eunomia
  CqeManager* cqe_ = nullptr;
  RspManager* rsp_ = nullptr;
  Sram cache_;
  std::vector<SqState> sq_;
  std::deque<uint32_t> rr_;
  std::deque<TxPacket> fifo_;
  std::vector<uint8_t> slots_;  // prefetch_packets x 4096
  uint32_t next_slot_ = 0;
  std::vector<uint8_t> fetch_buf_;
  uint64_t cached_wqes_ = 0;
  Cycle last_activity_ = 0;
  Counter& doorbells_;
  Counter& wqes_fetched_;
  Counter& bad_wqes_;
  Counter& packets_;
  Counter& retx_packets_;
  Counter& stale_;
  Counter& payload_bytes_;
  Counter& window_stalls_;
};

}  // namespace oonic::ornic
