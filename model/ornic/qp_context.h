// QP context table: one context per QP in the `qp.context` SRAM (one word per
// QP), looked up by QPN. The context holds the responder state of requests to
// this QP (ePSN, MSN, the OOO WQE's Start_PSN/Start_Addr for Eq. 1/2, the
// message being received) and the requester state of responses to it.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "model/sram/sram.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

struct MemoryRegion {
  uint64_t base = 0, length = 0;
  uint32_t rkey = 0;
};

// A READ this QP issued as requester, whose responses it expects.
struct ReadWqe {
  uint32_t start_psn = 0;
  uint32_t length = 0;
  uint64_t local_addr = 0;
  bool ooo = false;
  uint32_t packets = 0;    // ceil(length / pmtu)
  uint32_t next_psn = 0;   // standard READ: next expected response PSN
  uint32_t received = 0;   // packets placed
  uint64_t last_done = 0;  // cycle the latest placement's DMA is done
};

// What loss recovery cost one QP, as requester (resends, timeouts) and as the receiver of
// its data (frames the NIC itself dropped, duplicates that were spurious resends). Not
// part of the modelled context SRAM: the simulator's accounting (stats, qps.csv, fct.csv).
struct RecoveryCounts {
  uint64_t retransmitted = 0;  // PSNs sent again (data packets, READ requests)
  uint64_t timeouts = 0;       // requester timeouts fired with data outstanding
  uint64_t go_backs = 0;       // go-back-N restarts (NAK or timeout)
  uint64_t recoveries = 0;     // loss events acted on: a go-back or >= 1 selective resend
  uint64_t held_off = 0;       // resends not repeated: the PSN's resend was still in flight
  uint64_t nic_drops = 0;      // frames to this QP the NIC dropped (any reason but duplicate)
  uint64_t duplicates = 0;     // data received again (spurious retransmissions)
};

struct QpContext {
  uint32_t qpn = 0, peer_qpn = 0;
  uint32_t pmtu = 4096, otd = 64;
  // Addresses of frames this NIC sends on the QP (src = this NIC, dst = peer).
  wire::FrameSpec tx_template;
  std::vector<MemoryRegion> regions;
  // Responder: requests arriving at this QP.
  uint32_t epsn = 0;      // expected PSN (standard path; the bitmap holds it for OOO)
  uint32_t msn = 0;       // complete requests received (24 bit)
  bool nak_sent = false;  // a PSN-sequence NAK was sent for the current ePSN
  // Standard message being received.
  bool in_msg = false;
  bool msg_is_send = false;
  uint64_t msg_addr = 0;  // next byte's address
  uint64_t msg_end = 0;   // end of the RETH DMA length / receive buffer
  // OOO WQE (ORNIC): Eq. 1 / Eq. 2 state.
  bool ooo_active = false;
  uint32_t wqe_start_psn = 0;
  bool start_addr_cached = false;
  uint64_t start_addr = 0;
  uint32_t wqe_len = 0;
  uint32_t wqe_rkey = 0;
  uint32_t wqe_last_psn = 0;
  bool wqe_last_known = false;
  bool announce_cached = false;  // next ACK carries "Start_Addr cached"
  // Eunomia's out-of-order SEND: the message's receive buffer and Head.
  bool send_buf_valid = false;
  uint64_t send_buf = 0;
  uint32_t send_head = 0;
  // Receive buffers for SEND.
  uint64_t recv_base = 0;
  uint32_t recv_count = 0, recv_bytes = 0, recv_next = 0;
  // Requester: responses arriving at this QP.
  uint32_t snd_una = 0;
  bool snd_una_valid = false;
  std::vector<ReadWqe> reads;
  RecoveryCounts recovery;
  // HPCC's echo: the INT stack of the last data packet with one (its next ACK, NAK or
  // feedback frame carries it); allocated at the first such packet.
  std::shared_ptr<wire::IntStack> int_echo;
  // IPv4 identification of the next frame the NIC sends on the QP (every frame, resends
  // included, as real NICs count; tx.hdr_generator.ip_id). The Hdr Generator's register.
  mutable uint16_t tx_ip_id = 0;
};

class QpContextTable {
 public:
  QpContextTable(Sram* sram, uint32_t max_qps) : sram_(sram), max_qps_(max_qps) {}
  // Returns the new context's index; throws oonic::Error when full or duplicate.
  uint32_t add(Cycle t, const QpContext& ctx);
  // Index of the QPN, or -1.
  int64_t find(uint32_t qpn) const {
    auto it = index_.find(qpn);
    return it == index_.end() ? -1 : static_cast<int64_t>(it->second);
  }
  QpContext& at(uint32_t i) { return ctx_[i]; }
  const QpContext& at(uint32_t i) const { return ctx_[i]; }
  uint32_t size() const { return static_cast<uint32_t>(ctx_.size()); }
  Sram& sram() { return *sram_; }

 private:
  Sram* sram_;
  uint32_t max_qps_;
  std::vector<QpContext> ctx_;
  std::unordered_map<uint32_t, uint32_t> index_;
};

}  // namespace oonic::ornic
