// The loss-recovery cores of the standard and baseline senders (docs/DESIGN.md M1, M3,
// M5, M6):
//   GoBackN         RoCE's in-order sender: a PSN-sequence NAK or a timeout goes back N.
//   OrnicRecovery   ORNIC: as GoBackN, plus the OOO NAK's bitmap block resends exactly
//                   the PSNs whose bit is 0 (and were sent, and are not queued).
//   SelectiveRepeat IRN (and MP-RDMA's receiver as oonic pairs it): a SACK (or MP-RDMA
//                   ACK) resends the first hole; the NIC holds off a repeat until an RTT
//                   has passed without it being filled (tx.resend_holdoff_ns), so a lost
//                   retransmission is resent again on a later SACK, not by the timeout.
//   HoleList        MELO / LEFT: the NACK's up-to-3 holes are resent exactly, lowest first
//                   (MELO's receiver takes a resend only at its list's front). The sender
//                   keeps every hole the NACKs told it of (its rebuilt view of the
//                   receiver's bitmap) until the first unacknowledged PSN passes it; a
//                   timeout resends the first unacknowledged PSN and those holes, not a
//                   whole window (MELO's selective retransmission; MECHANISMS.md §3).
// Every core also takes a NACK (resend that PSN) and the timeout (go back N). A frame a
// core does not expect (another scheme's feedback) is left to the timeout. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "model/core/qp_table.h"
#include "model/sender/loss_recovery.h"

namespace oonic::sender {

class GoBackN : public LossRecovery {
 public:
  const char* name() const override { return "go-back-n"; }
};

class OrnicRecovery final : public GoBackN {
 public:
  const char* name() const override { return "ornic"; }
  void on_bitmap_nak(SendState& s, uint32_t qi, const wire::BitmapBlock& block) override;
};

class SelectiveRepeat final : public GoBackN {
 public:
  explicit SelectiveRepeat(uint32_t max_qps) : high_(max_qps, kNone) {}
  const char* name() const override { return "selective-repeat"; }
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
  // IRN's loss inference: a PSN below the highest SACKed one is lost. When an ACK moves
  // the first unacknowledged PSN to a new hole that a SACK has already passed, the hole
  // is resent at once (the packets after it may all have arrived: no SACK would come).
  void on_progress(SendState& s, uint32_t qi) override;
  void advanced(uint32_t qi, uint32_t from, uint32_t to) override;

 private:
  static constexpr uint32_t kNone = ~0u;
  QpTable<uint32_t> high_;  // per QP: the highest SACKed PSN not yet acknowledged
};

class HoleList final : public GoBackN {
 public:
  explicit HoleList(uint32_t max_qps = 0) : known_(max_qps) {}
  const char* name() const override { return "hole-list"; }
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
  void on_timeout(SendState& s, uint32_t qi) override;
  void advanced(uint32_t qi, uint32_t from, uint32_t to) override;

 private:
  QpTable<std::vector<uint32_t>> known_;  // per QP: hole PSNs learnt, not yet passed
};

}  // namespace oonic::sender
