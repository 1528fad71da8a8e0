// MP-RDMA's sender (MP-RDMA NSDI'18 §4, docs/DESIGN.md M6) as the two cores of the
// transmit seam: a window core (`tx.rate mprdma`) and a recovery core (`tx.recovery
// mprdma`), the pair `nic.ordering: mprdma` takes with tx.rate / tx.recovery auto.
// Plain C++; every constant a parameter (cc.mprdma.*).
//
// Window core, per QP (one window for every path; a path = a virtual path (VP) = a UDP
// source port, which ECMP maps onto a physical path):
//   awnd = cwnd + inflate - (snd_nxt - snd_una)         (snd_nxt: first PSN never sent)
//   per MP-RDMA ACK (SACK = the PSN it acknowledges, AACK = cumulative, VP, ECE, ReTx):
//     inflate += 1; when snd_una advances by k (on_ack, before the ACK itself is
//     taken): inflate -= k (never below 0)
//     snd_ooh = max(snd_ooh, SACK); snd_ool = snd_ooh - delta
//     SACK < snd_ool and no ReTx echo (a slow path): cwnd -= 1, nothing clocked on its VP
//     else: cwnd -= 1/2 with ECE, cwnd += 1/cwnd without; then, if awnd >= 1:
//       - the QP has nothing to send (no new data, no resend due): cwnd -= 1 (path
//         window reduction);
//       - else the ACK clocks min(max_per_ack, floor(awnd)) packets onto its VP (tokens,
//         at most 2 x max_per_ack kept, the oldest dropped);
//     cwnd never falls below min_cwnd. cwnd_validation (an option, off by default, as
//     RFC 7661): the +1/cwnd growth happens only while the window limits sending (awnd
//     < 2 before the ACK). Without it a connection the links do not mark (nothing
//     ECN-marks a single flow at its own line rate) grows cwnd far past the BDP and every
//     ACK clocks max_per_ack tokens. On the lossy-path run it made no consistent
//     difference (docs/experiments/mprdma.md), so the paper's rule stays the default.
//   A NACK also counts as a packet that left the network (inflate += 1: the receiver
//     dropped it) and, when awnd >= 1, clocks one packet onto the VP it echoes (the
//     dropped packet reached the receiver: that path is alive). Choice: the paper does
//     not say; without it, after paths fail, NACK-only feedback sends onto random VPs
//     (the burst timer) and the clock can die out until the timeout.
//   READ: a READ request's PSN span counts in snd_nxt - snd_una until its responses are
//     in (the window paces the responses the requester asked for); their arrival moves
//     snd_una (on_ack) and reopens the window.
//   send_at: awnd < 1 -> kNever (an ACK reopens it). Else a token or an initial-window
//     send goes now; otherwise the burst timer (burst_timer_rtts x RTT after the moment
//     the window had room and no token) releases the rest onto random VPs, until awnd
//     falls below 1 (burst control: at most max_per_ack packets per ACK).
//   picked: the packet takes the oldest token's VP (initial window / burst: a random
//     VP in 49152..65535). Once per RTT the next packet instead goes, with probability
//     probe_probability, onto a new random VP (new path probing). A resend consumes
//     window as a new packet does (inflate -= 1): it re-enters the network without
//     moving snd_nxt. Choice: the paper leaves this implicit.
//   Initial window: at a QP's first send, and when it sends after idle_restart_rtts x
//     RTT with nothing in flight (restart after idle): cwnd = IW, and IW packets go at
//     once, each on its own random VP. IW = initial_window, or one BDP (line rate x
//     RTT / (PMTU + 62 B of headers)) when 0.
//   Synchronise: the first packet of a WQE with the Sync flag waits
//     dt = sync_alpha x delta / R_s, R_s = cwnd / RTT, i.e. sync_alpha x delta x RTT /
//     cwnd, from when it could first have gone.
//   Timeout: cwnd = IW; every outstanding packet is taken as gone (inflate = snd_nxt -
//     snd_una), and the window's packets go at once on random VPs. Choice: the paper
//     says only "RTO last".
// Recovery core, per QP:
//   NACK of PSN p (the receiver dropped a packet beyond rcv_nxt + L and names its first
//     hole p): recovery mode, recovery = snd_nxt, snd_retx = p. While in it, every
//     packet the window lets out is a resend of max(snd_retx, snd_una) (snd_retx then
//     moves on) until snd_retx reaches recovery; the mode ends when snd_una passes
//     recovery. A NACK of a PSN below snd_retx after the span was resent (the resend
//     was lost too) starts the mode again. A NACK that still names the mode's lost PSN
//     renack_frames feedback frames after it was resent sends that PSN again at once
//     (choice: otherwise only the timeout recovers a lost resend inside a long span).
//     Other NACKs in the mode change nothing.
//   Early retransmit: outside recovery, when the QP has no new data, the window's
//     packets resend unacknowledged PSNs below snd_ooh (something after them arrived),
//     each once (early_ptr), from snd_una up. Choice: the paper says "unacknowledged
//     packets as new data"; bounding it by snd_ooh keeps a tail that is merely in flight
//     from being sent twice. What no ACK covers is left to the timeout (RTO last).
//   Timeout: recovery mode from snd_una to snd_nxt.
//   SACK record (sack_skip, default on): the last kSackRing PSNs' SACKs are kept (a ring
//     indexed by PSN, cleared as snd_una passes); recovery mode and early retransmit skip
//     a PSN some ACK already SACKed. Choice: the paper's sender has the per-packet SACK in
//     every ACK; resending what the receiver reported held doubled the frames sent at 1 %
//     loss (32 B of state more than its Table 1).
//   Tags every data packet of an OOO WQE with the metadata extension (wire::MpRdmaMeta:
//     ReTx, Sync, iPSN = the message's first PSN, MSN).
// Other receivers (tx.rate mprdma with nic.ordering ornic, eunomia, ...: MP-RDMA's
//   multipath with their recovery): until a QP sees an MP-RDMA ACK, the ACKs that move
//   snd_una clock it: cwnd += 1/cwnd per PSN acknowledged, at most max_per_ack packets
//   per ACK onto random VPs (nothing echoes one), the rest by the burst timer; a CNP
//   takes cwnd -= 1/2. Nothing prunes a slow path (no SACK says which is slow).
// State (the cc.context SRAM word, read and written once per event): see kMpRdmaStateBits.
#pragma once

#include <cstdint>
#include <vector>

#include "model/core/params.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/sender/loss_recovery.h"
#include "model/sender/psn_ring.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"

namespace oonic::sender {

struct MpRdmaParams {               // cc.mprdma.*
  uint32_t delta_psns = 32;         // delta; 0: unbounded (no path is pruned)
  double rtt_us = 12;               // base RTT: burst timer, probing, idle restart, sync delay
  uint32_t initial_window = 0;      // IW packets; 0: one BDP
  uint32_t max_per_ack = 2;         // packets one ACK clocks out
  double burst_timer_rtts = 0.5;    // the burst timer, in RTTs
  double probe_probability = 0.01;  // per RTT: the next packet goes onto a new random VP
  double idle_restart_rtts = 3;     // idle this long with nothing in flight: back to IW
  double sync_alpha = 1.0;          // alpha of the synchronise delay
  double min_cwnd = 1;              // packets
  bool early_retransmit = true;
  uint32_t renack_frames = 64;      // recovery: resend the NACKed PSN again after this many
  bool sack_skip = true;            // resends skip PSNs an ACK already SACKed (sack_ring bits)
  bool cwnd_validation = false;     // cwnd grows only while the window limits sending
  uint32_t recovery_hold_psns = 0;  // in recovery, no new data at or past snd_una + this (0: off)
  uint64_t seed = 1;                // random VPs (with the QP index)
  void describe(ParamTable& t);
};

// Bits of per-QP MP-RDMA sender state beyond RoCE's own (snd_una, snd_nxt live in the
// QP Manager's send state): cwnd 32 (16.16 fixed point), inflate 16, snd_ooh 24,
// recovery 24, snd_retx 24, early_ptr 24, mode flags 4, IW left 16, tokens 4 x 16 VPs
// + count 3, burst timer 32, sync release 32, last activity 32, next probe 32, VP random
// state 32, the SACK record 256.
constexpr uint32_t kMpRdmaStateBits =
    32 + 16 + 24 + 24 + 24 + 24 + 4 + 16 + 4 * 16 + 3 + 32 + 32 + 32 + 32 + 32 + 256;

class MpRdmaWindow final : public RateControl {
 public:
  MpRdmaWindow(const MpRdmaParams& p, double clock_mhz, double line_gbps, uint32_t pmtu_bytes,
               uint32_t max_qps, const StatGroup& stats, Sram* mem = nullptr);
  const char* name() const override { return "mprdma"; }
  Cycle send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) override;
  uint16_t picked(uint32_t qi, Cycle now, uint32_t psn, bool retx, uint16_t default_port) override;
  bool on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) override;
  bool on_feedback(uint32_t qi, Cycle t, const wire::SchemeFeedback& fb,
                   const SendState& s) override;
  void on_cnp(uint32_t qi, Cycle t) override;
  void on_timeout(uint32_t qi, Cycle t) override;
  bool ecn_capable() const override { return true; }

  // The recovery core's resends count as data to send (path window reduction).
  void pair(const LossRecovery& r) override { recovery_ = &r; }

  // For tests and results.
  double cwnd(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].cwnd : 0; }
  int64_t inflate(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].inflate : 0; }
  double awnd(uint32_t qi, const SendState& s) const;
  uint32_t snd_ooh(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].ooh : 0; }
  uint32_t tokens(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].ntok : 0; }
  uint32_t initial_window() const { return iw_; }
  Cycle rtt_cycles() const { return rtt_; }
  Cycle sync_delay(double cwnd) const;

 private:
  static constexpr uint32_t kMaxTokens = 8;
  struct Qp {
    bool started = false, timed_out = false, have_ooh = false;
    bool mp_acks = false;  // MP-RDMA ACKs seen (else the cumulative ACK clocks)
    double cwnd = 0;
    int64_t inflate = 0;
    uint32_t acked = 0;  // snd_una's advance not yet taken off inflate
    uint32_t ooh = 0;
    uint32_t iw_left = 0;
    uint16_t tok[kMaxTokens] = {};
    uint8_t ntok = 0;
    Cycle burst_at = kNever, sync_at = kNever, last = 0, next_probe = 0;
    uint64_t rng = 0;
  };
  Qp& qp(uint32_t qi);
  void restart(uint32_t qi, Qp& q, Cycle now, const SendState& s);
  void settle(Qp& q, int64_t plus);  // inflate += plus - acked, never below 0
  static void push_token(Qp& q, uint16_t vp);
  void cumulative_clock(uint32_t qi, Qp& q, Cycle t);
  uint16_t random_vp(Qp& q);
  double draw(Qp& q);
  void touch(Cycle t);
  void report(uint32_t qi, Qp& q, Cycle t);

  MpRdmaParams p_;
  double mhz_, line_;
  uint32_t pmtu_;
  uint32_t iw_;
  Cycle rtt_, burst_, idle_;
  QpTable<Qp> qps_;
  Sram* mem_;
  const LossRecovery* recovery_ = nullptr;
  Counter &acks_, &ece_, &pruned_, &reductions_, &clocked_, &burst_timers_, &burst_sends_, &probes_,
      &restarts_, &sync_delays_, &timeouts_;
};

class MpRdmaRecovery final : public LossRecovery {
 public:
  MpRdmaRecovery(const MpRdmaParams& p, uint32_t max_qps, const StatGroup& stats);
  const char* name() const override { return "mprdma"; }
  void advanced(uint32_t qi, uint32_t from, uint32_t to) override;
  void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) override;
  void on_timeout(SendState& s, uint32_t qi) override;
  bool has_resend(const SendState& s, uint32_t qi) const override;
  // recovery_hold_psns: while in recovery mode, new data past snd_una + this waits.
  bool holds(uint32_t qi, bool last_of_ooo_write, uint32_t send_psn, uint32_t una) override;
  bool next_resend(SendState& s, uint32_t qi, uint32_t* psn) override;
  void tag(wire::FrameSpec& f, const PacketTag& t) override;
  // A lost READ response is re-requested as before (MP-RDMA's multipath covers WRITE
  // and SEND here).

  bool in_recovery(uint32_t qi) const { return qi < qps_.size() && qps_[qi].on; }
  uint32_t recovery_point(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].recovery : 0; }
  uint32_t snd_retx(uint32_t qi) const { return qi < qps_.size() ? qps_[qi].retx : 0; }

 private:
  static constexpr uint32_t kSackRing = 256;  // PSNs of SACK record (a power of two)
  struct Qp {
    bool on = false, have_ooh = false;
    uint32_t recovery = 0, retx = 0, early = 0, ooh = 0;
    uint32_t lost = 0, since = 0;  // the NACKed PSN of this mode; feedback frames since sent
    PsnRing sacked{kSackRing};
  };
  Qp& qp(uint32_t qi);
  bool early_due(const SendState& s, uint32_t qi, const Qp& q, uint32_t* psn) const;
  // The first PSN at or after p (and before end) no ACK has SACKed; the record covers
  // [una, una + kSackRing) only: past it nothing is skipped.
  uint32_t skip_sacked(const Qp& q, uint32_t p, uint32_t end, uint32_t una) const;
  static bool sacked(const Qp& q, uint32_t psn) { return q.sacked.test(psn); }
  bool early_;
  bool sack_skip_;
  uint32_t hold_;
  uint32_t renack_;
  QpTable<Qp> qps_;
  Counter &nacks_, &entered_, &exited_, &resends_, &early_resends_, &tagged_, &relost_, &skipped_;
};

}  // namespace oonic::sender
