// UET's loss recovery as htsim's UEC model runs it (SLEEK; tx.recovery uet, issue 31),
// with UET's receivers (nic.ordering uet-rud or uet-rod, whose ACKs carry a SACK bitmap and the
// receiver's out-of-order count: model/wire/roce.h kUetAck). Plain C++.
//
// - Scoreboard: the PSNs past the first unacknowledged one that an ACK's SACK bitmap (or
//   the PSN it answers) says arrived, per QP, in a ring of the sender's window.
// - Loss from reordering, by count (htsim's runSleek): when the receiver holds at least
//     threshold = max(min(loss_retx_factor x cwnd, window), min_retx_pkts)
//   packets past the cumulative PSN (cwnd: the rate core's window in packets, the NIC's
//   PSN window when it keeps none), the QP enters loss recovery: it resends every PSN in
//   [una, min(recovery_psn, una + cwnd, the highest PSN SACKed)) the scoreboard does not
//   hold, each once per episode (htsim's span), and leaves recovery when the cumulative
//   PSN passes recovery_psn
//   (the highest PSN sent when it entered). A threshold by count rather than by PSN
//   distance is what keeps spraying's reordering from reading as loss.
// - A NACK (a trimmed packet, or one beyond the receiver's window) resends that PSN at
//   once, even when it was resent less than tx.resend_holdoff_ns ago (that resend was
//   trimmed too): UET's fast retransmit on trim.
// - A resend of an OOO WQE's packet asks for an ACK at once (AckReq; every WRITE is one on
//   UET's wire); so does the packet that fills NSCC's window (model/sender/nscc.h), as in
//   htsim. tx.uet.sleek false turns episodes off (htsim without -sleek).
// - The timeout resends the first unacknowledged PSN and every PSN below the highest one
//   an ACK named that the scoreboard still does not hold (never a window: go-back-N is
//   not UET's).
// Choices where htsim differs, with why:
// - htsim keeps a retransmission timer per packet, so every lost packet times out on its
//   own; the NIC keeps one per QP (control.rsp_manager), so its timeout resends every
//   hole the scoreboard shows.
// - htsim re-queues an un-SACKed PSN on every ACK in recovery (its resend leaves the
//   scoreboard); here each PSN goes once an episode, and the NIC's holdoff
//   (tx.resend_holdoff_ns) guards repeats. htsim's probes (a probe when ACKs stop) are
//   not modelled: the timeout does their work.
#pragma once

#include <cstdint>
#include <vector>

#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/sender/loss_recovery.h"

namespace oonic {
class ParamTable;
}

namespace oonic::sender {

struct UetRecoveryParams {        // tx.uet.*
  double loss_retx_factor = 1.5;  // htsim loss_retx_factor: threshold in windows
  uint32_t min_retx_pkts = 5;     // htsim min_retx_config: the threshold's floor, packets
  bool sleek = true;              // htsim -sleek: loss recovery episodes (off: NACKs and RTO)
  void describe(ParamTable& t);
};

class UetRecovery final : public LossRecovery {
 public:
  // ordered: the PDCs deliver in order (ROD).
  UetRecovery(const UetRecoveryParams& p, uint32_t max_qps, uint32_t window_psns,
              const StatGroup& stats, bool ordered = false);
  const char* name() const override { return "uet"; }
  void pair(const RateControl& rate) override { rate_ = &rate; }
  void advanced(uint32_t qi, uint32_t from, uint32_t to) override;
  void on_progress(SendState& s, uint32_t qi) override;
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
  void on_timeout(SendState& s, uint32_t qi) override;
  bool in_loss_recovery(uint32_t qi) const override { return in_recovery(qi); }
  // A NACK's resend is never held off under RUD: the packet is gone (trimmed), not in
  // flight. Under ROD it is: the go-back-N the receiver's NAK starts resends it too, and
  // resending every NACKed PSN at once as well kept re-trimming them
  // (examples/fabric-incast-uet.yaml, uet-rod: 127 timeouts and 13.6 ms against 1 and 1.1 ms).
  bool holdoff(const wire::SchemeFeedback& fb) const override {
    return ordered_ || fb.type != wire::SchemeFeedback::kNack;
  }
  // Every resend asks for an ACK at once (AckReq), as UET's (htsim's) do.
  void tag(wire::FrameSpec& f, const PacketTag& t) override {
    if (t.retx) f.bth.ack_req = true;
  }

  // For tests: the scoreboard holds psn (an ACK said it arrived), the QP is in recovery,
  // and the threshold in packets it uses now.
  bool sacked(uint32_t qi, uint32_t psn) const;
  bool in_recovery(uint32_t qi) const { return qi < qps_.size() && qps_[qi].recovery; }
  uint32_t sacked_past_una(uint32_t qi) const override {
    return qi < qps_.size() ? qps_[qi].count : 0;
  }
  uint32_t threshold(uint32_t qi) const;

 private:
  struct Qp {
    std::vector<uint64_t> ring;  // scoreboard bits, PSN mod ring bits (made on first use)
    uint32_t una = 0;            // the first unacknowledged PSN the ring is valid from
    bool una_set = false;        // una is known (the QP's first PSN may be anywhere)
    uint32_t ooo = 0;            // the receiver's out-of-order count (the last ACK's)
    uint32_t count = 0;          // bits set in the ring
    uint32_t recovery_psn = 0;   // leave recovery when una passes it
    uint32_t next_rtx = 0;       // the next PSN this episode may resend
    uint32_t high_sacked = 0;    // the highest PSN an ACK named
    bool any_sacked = false;     // high_sacked is set
    bool recovery = false;
  };
  double window(uint32_t qi) const;
  void mark(Qp& q, uint32_t psn);
  void run(SendState& s, uint32_t qi);
  UetRecoveryParams p_;
  bool ordered_;
  uint32_t window_psns_, ring_bits_;
  const RateControl* rate_ = nullptr;
  QpTable<Qp> qps_;
  Counter &episodes_, &sleek_resends_, &nack_resends_, &rto_resends_;
};

}  // namespace oonic::sender
