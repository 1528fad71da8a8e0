// Control plane: ORNIC's Req Manager (Figure 8), the core. The Req Processor registers
// ACK, NAK and READ-response work here (ResponderWork); register-schedulers turn it into
// frames (ControlSource, asked by the TX arbiter):
//   ACK: the QP's latest ACKed PSN is written into its slot of the ACKed-PSN memory
//   (`control.acked_psn_mem`, owned by the shell; later writes overwrite earlier ones)
//   and the QP is put in the scheduling queue once; when the Hdr Generator is free the
//   scheduler pops the QP, reads its slot (schedule_cycles + SRAM read) and the Hdr
//   Generator emits one ACK. Many registrations collapse into one ACK whenever they
//   arrive faster than ACKs go out.
//   NAK: the same shape, one slot per QP holding the latest NAK; NAKs go first.
//   READ response: READ jobs served round-robin, one response packet per turn (so ACKs
//   and a re-requested READ interleave with a long READ); payload is fetched by the DMA
//   Engine up to dma.read_prefetch_packets ahead. A duplicate READ request (the
//   requester re-requests after a lost response or a timeout) is ignored when a queued
//   job of the QP is still to send that PSN; otherwise it is served again (a standard
//   one replaces the QP's jobs).
// Registrations take effect at their cycle (apply_due, run by the TX arbiter's process,
// which `wake` rouses). Plain C++.
#pragma once

#include <deque>
#include <queue>
#include <vector>

#include "model/core/link.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/wake.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class ReqManagerCore final : public ResponderWork, public ControlSource {
 public:
  // uet_nack_mem: the UET NACK register's entries (UET's receivers only; else null).
  ReqManagerCore(const CoreEnv& env, const QpContextTable& qps, Sram& acked_psn_mem, DmaPort& dma,
                 Sram* uet_nack_mem = nullptr);
  // Bits of a UET NACK register entry: its PSN (24) and the entropy value it came on (16).
  static constexpr uint32_t kUetNackEntryBits = 40;
  // Bound where the NIC is assembled (built after the control plane).
  Link<HdrGeneratorPort> hdr_generator_port{"control.req_manager.hdr_generator_port"};
  Link<WakeUp> wake_port{"control.req_manager.wake_port"};

  // ResponderWork: registrations, booked for cycle t (>= now).
  void register_ack(Cycle t, uint32_t qp, uint32_t psn, uint32_t msn, bool cached) override;
  void register_nak(Cycle t, uint32_t qp, uint8_t syndrome, uint32_t psn, uint32_t msn) override;
  void register_bitmap_nak(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                           const wire::BitmapBlock& block) override;
  // A baseline scheme's selective feedback (Scheme Feedback frame), in the NAK slot.
  void register_feedback(Cycle t, uint32_t qp, uint32_t epsn, uint32_t msn,
                         const wire::SchemeFeedback& fb) override;
  void register_read(Cycle t, uint32_t qp, uint64_t va, uint32_t len, uint32_t psn, uint32_t msn,
                     bool ooo, bool duplicate) override;
  void register_cnp(Cycle t, uint32_t qp) override;

  // ControlSource: the TX arbiter's side.
  void apply_due(Cycle now) override;
  Cycle next_pending() const override { return pending_.empty() ? kNever : pending_.top().t; }
  bool has_control() const override {
    return !ack_q_.empty() || !nak_q_.empty() || !cnp_q_.empty();
  }
  void send_control(Cycle now) override;
  Cycle read_ready(Cycle now) override;
  void send_read(Cycle now) override;

  // Last cycle at which this manager sent or will send something.
  Cycle last_activity() const { return last_activity_; }

 private:
  enum class Kind : uint8_t { kAck, kNak, kBitmapNak, kFeedback, kRead, kCnp };
  struct Pending {
    Cycle t;
    uint64_t seq;
    Kind kind;
    uint32_t qp;
    uint32_t psn, msn;
    uint8_t syndrome;
    bool flag;
    bool dup;
    uint64_t va;
    uint32_t len;
    uint32_t block;  // index into blocks_ / fbs_ (keeps this small)
    bool operator>(const Pending& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct Slot {  // a QP's word in the ACKed-PSN memory (and its NAK slot)
    uint32_t psn = 0, msn = 0;
    bool cached = false, queued = false;
    uint32_t nak_psn = 0, nak_msn = 0;
    uint8_t nak_syndrome = 0;
    bool nak_queued = false, nak_is_bitmap = false, nak_is_feedback = false;
    bool cnp_queued = false;
    wire::BitmapBlock nak_block;
    wire::SchemeFeedback nak_feedback;
    // UET NACKs past the register's first frame (control.req_manager.uet_nack_depth > 3),
    // up to 3 PSNs each; sent after it.
    std::vector<wire::SchemeFeedback> nak_more;
    uint32_t uet_nack_entries = 0;  // what uet_nack_mem holds of this QP's
  };
  struct ReadJob {
    uint32_t qp;
    uint64_t va;
    uint32_t len, psn, msn;
    bool ooo;
    uint32_t packets, sent = 0, fetched = 0;
    std::deque<Cycle> ready;    // data-ready cycle of fetched, unsent packets
    std::vector<uint8_t> data;  // ring of prefetch slots
  };
  void apply(const Pending& w);
  // A UET NACK waits in the register: next is dropped (a UET ACK) or merged into it.
  bool uet_nack_holds(Slot& s, const wire::SchemeFeedback& next);
  void prefetch(ReadJob& j, Cycle now);

  const OrnicParams& p_;
  const QpContextTable& qps_;
  Sram& mem_;
  Sram* uet_nack_mem_;
  // uet_nack_mem's occupancy follows the UET NACK entries slot s holds at t; each entry
  // written counts as one write (untimed), each sent as one read (timed with the
  // ACKed-PSN word's read at send: not booked apart).
  void sync_uet_nacks(Cycle t, Slot& s, bool sent);
  static uint32_t uet_nacks_waiting(const Slot& s);  // UET NACK entries s holds
  DmaPort& dma_;
  QpTable<Slot> slots_;
  std::deque<uint32_t> ack_q_, nak_q_, cnp_q_;
  std::deque<ReadJob> reads_;
  std::vector<wire::BitmapBlock> blocks_;  // of pending bitmap NAKs
  std::vector<uint32_t> free_blocks_;
  std::vector<wire::SchemeFeedback> fbs_;  // of pending feedback registrations
  std::vector<uint32_t> free_fbs_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> pending_;
  uint64_t seq_ = 0;
  Cycle last_activity_ = 0;
  Counter& ack_regs_;
  Counter& acks_sent_;
  Counter& nak_regs_;
  Counter& cnp_regs_;
  Counter& dup_reads_ignored_;
  Counter& uet_acks_held_;
  Counter& uet_nacks_merged_;
  Counter& uet_nacks_lost_;
  Probe p_queue_;
};

}  // namespace oonic::ornic
