// TX plane: ORNIC's QP Manager (Figure 1), the core. It owns the requester side of each
// QP: the send queue ring in host memory, the WQEs fetched from it into the WQE cache
// (`tx.wqe_cache`, one word per cached WQE; the shell owns the SRAM), and the send
// pointer.
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
// The PSN window (max_inflight_psns past the first unacknowledged PSN) keeps data
// inside the receiver's bitmap (OTD + BDP, Eq. 5). What to resend and whether to hold a
// packet is the sender policy's (model/sender/): the Rsp Manager drives recovery through
// RequesterState, the QP Manager asks the policy before each packet. Plain C++.
#pragma once

#include <algorithm>
#include <boost/container/deque.hpp>
#include <deque>
#include <vector>

#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_map.h"
#include "model/ornic/wqe.h"
#include "model/sender/loss_recovery.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

// A WQE in the WQE cache.
struct TxWqe {
  Wqe w;
  uint64_t seq = 0;  // position in the SQ (monotonic)
  bool bad = false;  // malformed (or failed by a NAK): completes with an error CQE
  Cycle cached_at = 0;
  bool active = false;
  uint32_t start_psn = 0, npsn = 0;  // PSN span (READ: its response packets)
  uint32_t msn = 0;                  // message sequence number (activation order)
  bool sync_counted = false;         // counted in SqState::syncs
  bool start_addr_cached = false;    // OOO WRITE: the responder said so in an ACK
  bool acked = false;                // WRITE/SEND: every PSN acknowledged
  bool data_done = false;            // READ: every response placed in host memory
  Cycle data_done_at = 0;
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
  uint32_t sq_pi = 0;    // producer index (doorbell), modulo 2^16
  uint64_t fetched = 0;  // WQEs fetched so far
  uint64_t cq_pi = 0;    // CQEs written so far
  // Boost's deque allocates nothing until used: a NIC has nic.max_qps of these
  // and a fabric host uses a few (std::deque costs ~1 KB each, empty).
  boost::container::deque<TxWqe> wqes;  // in the cache, in SQ order; the first `active` are active
  uint32_t active = 0;
  uint32_t next_psn = 0;  // PSN of the next WQE activated
  uint32_t send_psn = 0;  // send pointer (go-back-N moves it back)
  uint32_t high_psn = 0;  // first PSN never sent
  uint32_t una = 0;       // first unacknowledged PSN
  boost::container::deque<Retx> retx;
  uint32_t epoch = 0;  // bumped by go-back-N: prefetched packets of older epochs are dropped
  bool fetch_busy = false;
  bool queued = false;  // in the round-robin list
  uint32_t inflight_prefetch = 0;
  uint64_t msn = 0;          // WQEs activated so far (the message sequence number of the next)
  uint32_t syncs = 0;        // active WQEs with the Sync flag (none: no lookup per pick)
  Cycle wake_at = kNever;    // a wake booked for the rate core's send_at
  uint32_t loss_window = 0;  // after a timeout: PSNs allowed past una (0: the window)
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
  uint16_t sport = 0;            // UDP source port (the rate core's choice at pick)
};

class QpManagerCore final : public TxSource, public RequesterState, public CompletionSource {
 public:
  struct Links {  // the blocks it talks to, by their interfaces
    DmaPort& dma;
    HdrGeneratorPort& hdr;
    CompletionWork& completions;
    SendTimer& timer;
    sender::LossRecovery& recovery;
    sender::RateControl& rate;
  };
  QpManagerCore(const CoreEnv& env, QpContextTable& qps, const RegisterFile& regs, Agenda& agenda,
                Sram& wqe_cache, Links links);

  // SQ_DOORBELL of QP block `qi` written with `pi`, effective at cycle t.
  void doorbell(Cycle t, uint32_t qi, uint32_t pi);

  // TxSource
  Cycle head_ready(Cycle now) override;
  bool send_head(Cycle now) override;

  // sender::SendState / RequesterState
  uint32_t una(uint32_t qi) const override { return sq_[qi].una; }
  uint32_t high(uint32_t qi) const override { return sq_[qi].high_psn; }
  uint32_t send_psn(uint32_t qi) const override { return sq_[qi].send_psn; }
  bool has_new(uint32_t qi) const override;
  bool has_queued_resend(uint32_t qi) const override { return !sq_[qi].retx.empty(); }
  uint32_t queued_resends(uint32_t qi) const override;
  bool in_write_or_send(uint32_t qi, uint32_t psn) const override;
  bool resend(uint32_t qi, uint32_t psn) override;
  void go_back(uint32_t qi, uint32_t psn) override;
  bool configured(uint32_t qi) const override { return sq_[qi].configured; }
  bool has_active(uint32_t qi) const override { return sq_[qi].active > 0; }
  bool acknowledge(uint32_t qi, uint32_t una, uint32_t* from) override;
  void start_addr_cached(uint32_t qi) override;
  bool fail_wqe_at(uint32_t qi, uint32_t psn) override;
  bool read_active(uint32_t qi, uint32_t read_psn) const override;
  bool read_done(uint32_t qi, uint32_t read_psn) const override;
  uint32_t read_npsn(uint32_t qi, uint32_t read_psn) const override;
  void read_data(uint32_t qi, uint32_t read_psn, Cycle dma_done, bool complete) override;
  bool reread(uint32_t qi, uint32_t psn, uint32_t count) override;
  void unfinished_reads(uint32_t qi, std::vector<uint32_t>& first_psns) const override;
  bool inflight(uint32_t qi) const override;
  void kick_qp(Cycle t, uint32_t qi) override;
  void restart_window(uint32_t qi, uint32_t psns) override;

  // CompletionSource
  bool head_completed(uint32_t qi, CompletedWqe* out) const override;
  void retire(Cycle t, uint32_t qi) override;
  Cycle read_wqe_cache(Cycle t) override;

  const SqState& sq(uint32_t qi) const { return sq_[qi]; }
  uint32_t qp_count() const { return static_cast<uint32_t>(sq_.size()); }
  Cycle last_activity() const { return last_activity_; }
  bool idle() const;

 private:
  void fetch(Cycle t, uint32_t qi);
  void activate(Cycle t, uint32_t qi);
  void enqueue(uint32_t qi);
  bool sendable(uint32_t qi) const;
  // New data may go: fewer than the window (or the loss window after a timeout) past una.
  bool window_open(const SqState& s) const {
    const uint32_t w = s.loss_window ? std::min(s.loss_window, window_) : window_;
    return wire::psn_diff(s.send_psn, s.una) < static_cast<int32_t>(w);
  }
  bool pick(Cycle now, TxPacket& out);
  bool stale(const TxPacket& k) const;
  bool holds_last(uint32_t qi);
  bool sync_first(const SqState& s) const;
  TxWqe* wqe_of(SqState& s, uint32_t psn);
  const TxWqe* wqe_of(const SqState& s, uint32_t psn) const;
  TxWqe* read_wqe(uint32_t qi, uint32_t read_psn);
  const TxWqe* read_wqe(uint32_t qi, uint32_t read_psn) const;

  const OrnicParams& p_;
  const bool uet_wire_;  // nic.wire resolved to uet: every WRITE OOO, FSpot throughout
  QpContextTable& qps_;
  const RegisterFile& regs_;
  Agenda& agenda_;
  Sram& cache_;
  Links l_;
  QpTable<SqState> sq_;
  std::deque<uint32_t> rr_;
  std::deque<TxPacket> fifo_;
  std::vector<uint8_t> slots_;  // prefetch_packets x 4096, made at the first send
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
  const uint32_t window_;  // OrnicParams::window_psns(), read once
};

}  // namespace oonic::ornic
