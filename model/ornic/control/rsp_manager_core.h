// Control plane: ORNIC's Rsp Manager, the core. The Rsp Processor hands it every
// response (RequesterEvents); it keeps the requester state of each QP moving through
// the QP Manager's send queues (RequesterState) and hands every loss decision to the
// sender policy's loss-recovery core (model/sender/):
//   ACK            first unacknowledged PSN advances; "Start_Addr cached" turns the
//                  QP's OOO WRITE from FSpot to Spot; WQEs fully ACKed go to the CQE
//                  Manager.
//   NAK (PSN seq)  the recovery core (every core: go back N from the PSN the responder
//                  expects).
//   bitmap NAK,    the recovery core (ORNIC: resend the block's 0 bits; MELO: the holes;
//   feedback       IRN: the first hole per SACK; Eunomia: mark the SACK; NACK: resend).
//   READ data      a READ whose last data is placed goes to the CQE Manager; a standard
//                  READ response past the expected PSN re-requests from it (once per
//                  expected PSN); an OOO READ loss re-requests each missing run of the
//                  block (unless the recovery core takes a SACK as information only).
//   timeout        per QP, RTT + OTD/B (or the recovery core's own, e.g. Eunomia's
//                  IRN-style two levels) of silence: armed by a send when nothing was
//                  outstanding, moved by progress (the first unacknowledged PSN advancing,
//                  READ data), never by another send (MECHANISMS.md §1). The recovery core
//                  decides (go back N; Eunomia: selective), and incomplete READs are
//                  re-requested from their first missing PSN. The timer is one agenda
//                  entry per busy QP, moved lazily: idle QPs cost nothing and progress
//                  costs no heap operation.
//   resend holdoff a PSN resent on feedback is not resent again on further feedback
//                  until tx.resend_holdoff_ns (an RTT) has passed without the hole being
//                  filled: a retransmission still in flight is not sent twice (§3). Feedback
//                  naming it during the holdoff is not forgotten: at the holdoff's end the
//                  PSN is resent if still unacknowledged (a lost retransmission recovered
//                  without the timeout). The timeout's own resends are never held off.
// Plain C++.
#pragma once

#include <vector>

#include "model/core/link.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_map.h"
#include "model/ornic/requester_events.h"
#include "model/sender/loss_recovery.h"
#include "model/sender/rate_control.h"

namespace oonic::ornic {

class RspManagerCore final : public RequesterEvents, public SendTimer {
 public:
  struct Links {
    CompletionWork& completions;  // the CQE Manager
    sender::LossRecovery& recovery;
    sender::RateControl& rate;
  };
  RspManagerCore(const CoreEnv& env, QpContextTable& qps, const RegisterFile& regs, Agenda& agenda,
                 Links links);
  // Bound where the NIC is assembled (built after the control plane): the QP Manager's
  // send queues, and the requester's own ordering unit (OOO READ responses).
  Link<RequesterState> send_queues_port{"control.rsp_manager.send_queues_port"};
  Link<BitmapPort> bitmap_port{"control.rsp_manager.bitmap_port"};

  void on_ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) override;
  void on_nak(Cycle t, uint32_t qi, uint8_t syndrome, uint32_t psn) override;
  void on_bitmap_nak(Cycle t, uint32_t qi, uint32_t epsn, const wire::BitmapBlock& block) override;
  void on_feedback(Cycle t, uint32_t qi, uint32_t epsn, const wire::SchemeFeedback& fb) override;
  void on_read_data(Cycle t, uint32_t qi, uint32_t read_psn, Cycle dma_done,
                    bool complete) override;
  void on_read_gap(Cycle t, uint32_t qi, uint32_t read_psn, uint32_t expected_psn) override;
  void on_read_loss(Cycle t, uint32_t qi, uint32_t read_psn, const wire::BitmapBlock& block,
                    uint32_t epsn, bool sack) override;
  void on_int(Cycle t, uint32_t qi, uint32_t psn, const wire::IntStack& stack) override;
  // SendTimer: the QP sent something at cycle t: (re)arm its timer.
  void sent(Cycle t, uint32_t qi) override;
  // The requester timeout of QP qi in cycles: TIMEOUT_CYCLES, or RTT + OTD x PMTU / rate.
  Cycle timeout_cycles(uint32_t qi) const;

 private:
  // Loss recovery acts on the send queues through this, which counts what it does.
  class CountingState final : public sender::SendState {
   public:
    CountingState(const Link<RequesterState>& sq, QpContextTable& qps, Agenda& agenda,
                  Counter& go_backs, Counter& selective, Counter& held_off, uint32_t max_qps)
        : sq_(sq),
          qps_(qps),
          agenda_(agenda),
          go_backs_(go_backs),
          selective_(selective),
          held_off_(held_off),
          resent_(max_qps) {}
    uint32_t una(uint32_t qi) const override { return sq_->una(qi); }
    uint32_t high(uint32_t qi) const override { return sq_->high(qi); }
    uint32_t send_psn(uint32_t qi) const override { return sq_->send_psn(qi); }
    bool has_new(uint32_t qi) const override { return sq_->has_new(qi); }
    bool in_write_or_send(uint32_t qi, uint32_t psn) const override {
      return sq_->in_write_or_send(qi, psn);
    }
    bool resend(uint32_t qi, uint32_t psn) override;
    void go_back(uint32_t qi, uint32_t psn) override;
    // The event being handled: its cycle, and whether resends of a PSN resent within
    // holdoff cycles are held off (feedback: yes; the timeout: no).
    void begin(Cycle now, Cycle holdoff) { now_ = now, holdoff_ = holdoff; }
    // The first unacknowledged PSN is una: forget resends of PSNs below it.
    void acked(uint32_t qi, uint32_t una);

   private:
    // A held-off resend asked again when its holdoff ends: resent then if the PSN is still
    // unacknowledged (the feedback said it was still missing an RTT after its resend).
    void retry(Cycle t, uint32_t qi, uint32_t psn);
    const Link<RequesterState>& sq_;
    QpContextTable& qps_;
    Agenda& agenda_;
    Counter& go_backs_;
    Counter& selective_;
    Counter& held_off_;
    Cycle now_ = 0, holdoff_ = 0;
    struct Resent {
      uint32_t psn;
      Cycle at;
      bool retry = false;  // feedback named it during the holdoff: ask again at its end
    };
    QpTable<std::vector<Resent>> resent_;  // per QP: PSNs resent on feedback, and when
  };
  struct Timer {
    Cycle deadline = kNever;
    Cycle armed_at = 0;  // when the present countdown started (a send or progress)
    bool booked = false;
    Cycle cycles = 0;  // 0: not yet computed (latched at the QP's first use)
  };
  void ack(Cycle t, uint32_t qi, uint32_t psn, bool cached);
  void advance(Cycle t, uint32_t qi, uint32_t una);
  void timeout(Cycle t, uint32_t qi);
  void reread(uint32_t qi, uint32_t psn, uint32_t count);
  Cycle period(uint32_t qi);
  // Loss recovery for one event at x: held off (feedback) or not (timeout); counts a
  // recovery when it resent or went back.
  template <class F>
  void recover(Cycle x, uint32_t qi, bool holdoff, F&& f);

  const OrnicParams& p_;
  QpContextTable& qps_;
  const RegisterFile& regs_;
  Agenda& agenda_;
  Links l_;
  static constexpr uint32_t kNoGap = ~0u;
  QpTable<uint32_t> last_gap_;  // per QP: expected PSN last re-requested (standard READ)
  QpTable<Timer> timers_;
  std::vector<uint32_t> reads_scratch_;
  Counter& acks_;
  Counter& naks_;
  Counter& go_backs_;
  Counter& bitmap_naks_;
  Counter& selective_psns_;
  Counter& rereads_;
  Counter& timeouts_;
  Counter& error_naks_;
  Counter& feedback_;
  Counter& held_off_;
  Counter& recoveries_;
  Cycle holdoff_cycles_ = 0;
  bool own_timeout_ = false;  // the recovery core sets its own timeout (timeout_ns > 0)
  CountingState state_;
};

}  // namespace oonic::ornic
