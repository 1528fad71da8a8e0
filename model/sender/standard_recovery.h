// The loss-recovery cores of the standard and baseline senders (docs/DESIGN.md M1, M3,
// M5, M6):
//   GoBackN         RoCE's in-order sender: a PSN-sequence NAK or a timeout goes back N.
//   OrnicRecovery   ORNIC: as GoBackN, plus the OOO NAK's bitmap block resends exactly
//                   the PSNs whose bit is 0 (and were sent, and are not queued).
//   SelectiveRepeat IRN (and MP-RDMA's receiver as oonic pairs it): a SACK (or MP-RDMA
//                   ACK) resends the first hole, once per first-unacknowledged PSN.
//   HoleList        MELO / LEFT: the NACK's up-to-3 holes are resent exactly (the
//                   sender's rebuilt view of the receiver's bitmap).
// Every core also takes a NACK (resend that PSN) and the timeout (go back N). A frame a
// core does not expect (another scheme's feedback) is left to the timeout. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

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
  explicit SelectiveRepeat(uint32_t max_qps) : resent_(max_qps, kNone) {}
  const char* name() const override { return "selective-repeat"; }
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;

 private:
  static constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> resent_;  // per QP: the una whose hole a SACK already resent
};

class HoleList final : public GoBackN {
 public:
  const char* name() const override { return "hole-list"; }
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
};

}  // namespace oonic::sender
