// A QP's send state for the transmit seam's cores in tests without the NIC: [una, high)
// sent and not acknowledged, the send pointer at send_, new data always there, no resend
// taken.
#pragma once

#include <cstdint>

#include "model/sender/loss_recovery.h"

namespace oonic::testing {

class FakeSendState final : public sender::SendState {
 public:
  uint32_t una(uint32_t) const override { return una_; }
  uint32_t high(uint32_t) const override { return high_; }
  uint32_t send_psn(uint32_t) const override { return send_; }
  bool has_new(uint32_t) const override { return true; }
  bool in_write_or_send(uint32_t, uint32_t) const override { return true; }
  bool resend(uint32_t, uint32_t) override { return false; }
  void go_back(uint32_t, uint32_t) override {}
  bool has_queued_resend(uint32_t) const override { return queued_ > 0; }
  uint32_t queued_resends(uint32_t) const override { return queued_; }
  uint32_t una_ = 0, high_ = 0, send_ = 0, queued_ = 0;  // queued_: PSNs queued to resend
};

}  // namespace oonic::testing
