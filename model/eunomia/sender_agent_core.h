// Eunomia's sender-side agent (docs/DESIGN.md M2) as a loss-recovery core of the
// transmit seam (model/sender/loss_recovery.h; `tx.recovery: eunomia`, the pair of
// `nic.ordering: eunomia`). The TX plane's sender-policy block holds it as
// `nic0.tx.sender_agent`.
//  * tag: Head (the message's first PSN) and the last bit on every data packet of an
//    OOO WRITE or SEND (the metadata extension of docs/DESIGN.md "Wire format");
//  * holds a WRITE's last packet until everything before it is acknowledged in order
//    (about one RTT: the receiver's application synchronises on that packet);
//  * a SACK is information only: the SACKed PSN is marked in a per-QP SACK scoreboard (a
//    ring of window_psns bits rounded up to a power of two, indexed by PSN);
//  * a NACK (the receiver could not track the packet and dropped it) resends that PSN;
//  * the timeout is IRN's two levels (eunomia.sender.rto_*): RTO_low while at most N
//    PSNs are outstanding, RTO_high otherwise, measured from the last progress;
//  * optionally (eunomia.sender.sack_loss_threshold > 0, off by default) a SACK more than
//    the threshold past an un-SACKed outstanding PSN resends it once (loss inferred);
//  * a timeout resends only the PSNs in [first unacknowledged, first never sent) that
//    the scoreboard does not mark (selective repeat, as IRN), when every outstanding PSN
//    belongs to a WRITE or SEND; outstanding READ spans go back N as ORNIC's do.
// Plain C++. State: the scoreboard's bits per QP, kept with the QP's send state.
#pragma once

#include <cstdint>
#include <vector>

#include "model/core/stats.h"
#include "model/sender/loss_recovery.h"
#include "model/sender/psn_ring.h"

namespace oonic::eunomia {

class SenderAgentCore final : public sender::LossRecovery {
 public:
  SenderAgentCore(const StatGroup& stats, uint32_t max_qps, uint32_t window_psns,
                  const sender::IrnTimerParams& irn = sender::IrnTimerParams{});
  const char* name() const override { return "eunomia"; }

  void advanced(uint32_t qi, uint32_t from, uint32_t to) override;
  void on_feedback(sender::SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
  void on_timeout(sender::SendState& s, uint32_t qi) override;
  bool holds(uint32_t qi, bool last_of_ooo_write, uint32_t send_psn, uint32_t una) override;
  void tag(wire::FrameSpec& f, const sender::PacketTag& t) override;
  bool rerequest_on_read_sack() const override { return false; }
  double timeout_ns(uint32_t outstanding) const override {
    return (outstanding <= irn_.rto_low_packets ? irn_.rto_low_us : irn_.rto_high_us) * 1000.0;
  }

  // SACK of psn (una: the cumulative PSN after the SACK was applied).
  void on_sack(uint32_t qi, uint32_t psn, uint32_t una);
  // Whether psn was SACKed (and not yet passed by the cumulative ACK).
  bool sacked(uint32_t qi, uint32_t psn) const;
  uint32_t ring_psns() const { return window_; }

 private:
  // Loss inference from a SACK of psn (sack_loss_threshold > 0).
  void infer_losses(sender::SendState& s, uint32_t qi, uint32_t psn);
  sender::IrnTimerParams irn_;
  uint32_t window_;
  std::vector<sender::PsnRing> board_;  // per QP, window_ bits (allocated at a first SACK)
  std::vector<uint32_t> held_psn_;      // per QP: last PSN counted as held (+1)
  std::vector<uint32_t> inferred_to_;   // per QP: PSNs before this were inferred lost
  Counter* inferred_ = nullptr;
  Counter& tagged_;
  Counter& holds_;
  Counter& sacks_;
  Counter& nacks_;
  Counter& timeout_resends_;
  Counter& timeout_skipped_;
};

}  // namespace oonic::eunomia
