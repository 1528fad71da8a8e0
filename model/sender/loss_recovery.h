// The transmit seam, loss-recovery half (docs/DESIGN.md "Seams"): what the sender does
// about losses. The Rsp Manager tells the recovery core every response that bears on it
// (a PSN-sequence NAK, ORNIC's bitmap NAK, a Scheme Feedback frame, the requester
// timeout) after it has moved the QP's first unacknowledged PSN; the core answers by
// acting on the QP's send state through SendState: resend single PSNs (selective) or go
// back N. The QP Manager asks it, per packet, whether to hold the packet and what to add
// to its headers. Every core is plain C++; `tx.recovery` picks one
// (model/schemes/sender_policies.h).
#pragma once

#include <cstdint>

#include "model/wire/roce.h"

namespace oonic::sender {

class RateControl;

// IRN's two-level retransmission timeout (IRN §3.1), as Eunomia's sender relies on it
// (MECHANISMS.md §2), and Eunomia's optional loss inference from SACKs.
struct IrnTimerParams {              // eunomia.sender.*
  double rto_low_us = 100;           // with at most rto_low_packets PSNs outstanding (IRN: 100 us)
  double rto_high_us = 320;          // otherwise (IRN: 320 us)
  uint32_t rto_low_packets = 3;      // N (IRN: 3)
  uint32_t sack_loss_threshold = 0;  // PSNs a SACK must pass an un-SACKed PSN by to resend
                                     // it (0: off, as published: loss is the timeout's)
};

// One QP's send state as a recovery core sees it (implemented over the QP Manager's
// send queues): PSNs in [una, high) were sent and are not acknowledged.
class SendState {
 public:
  virtual ~SendState() = default;
  virtual uint32_t una(uint32_t qi) const = 0;       // first unacknowledged PSN
  virtual uint32_t high(uint32_t qi) const = 0;      // first PSN never sent
  virtual uint32_t send_psn(uint32_t qi) const = 0;  // next PSN the send pointer sends
  // The QP has new data it could send now (the send pointer is short of the end of its
  // active WQEs), window aside.
  virtual bool has_new(uint32_t qi) const = 0;
  // psn lies in the span of an active WRITE or SEND WQE (not a READ's, whose recovery is
  // the requester's own re-request, nor a retired WQE's).
  virtual bool in_write_or_send(uint32_t qi, uint32_t psn) const = 0;
  // A PSN is queued for selective retransmission (resend()), not yet sent again.
  virtual bool has_queued_resend(uint32_t qi) const { return false; }
  // How many (a window core counts them out of its flight: lost, not in flight).
  virtual uint32_t queued_resends(uint32_t qi) const { return has_queued_resend(qi) ? 1 : 0; }
  // Queue psn for selective retransmission; false when outside [una, high) or queued.
  virtual bool resend(uint32_t qi, uint32_t psn) = 0;
  // Go back N: send again from psn (the send pointer moves back, queued resends drop).
  virtual void go_back(uint32_t qi, uint32_t psn) = 0;
};

// What a data packet of an OOO WQE carries for the sender policy's headers.
struct PacketTag {
  uint32_t head = 0;  // the WQE's (message's) first PSN
  bool last = false;  // the message's last packet
  bool retx = false;  // a retransmission
  bool sync = false;  // the WQE carries the synchronise flag
  uint32_t msn = 0;   // the message's sequence number (WQEs sent on the QP before it)
};

class LossRecovery {
 public:
  virtual ~LossRecovery() = default;
  virtual const char* name() const = 0;
  // The policy's rate core (make_sender_policy pairs them once): UET's recovery sizes its
  // loss threshold and resend span by its window.
  virtual void pair(const RateControl& rate) {}

  // The QP's first unacknowledged PSN moved from `from` to `to`.
  virtual void advanced(uint32_t qi, uint32_t from, uint32_t to) {}
  // An ACK moved the first unacknowledged PSN (after advanced()): the core may resend
  // what it now knows is lost (IRN: the new first hole, when a higher PSN was SACKed).
  virtual void on_progress(SendState& s, uint32_t qi) {}
  // A NAK with "PSN sequence error": the responder expects psn. RoCE's answer for every
  // sender: go back N (the standard path runs under every scheme).
  virtual void on_sequence_nak(SendState& s, uint32_t qi, uint32_t psn) { s.go_back(qi, psn); }
  // ORNIC's OOO NAK: the block of PSNs from block.base_psn, bit 0 = not received.
  virtual void on_bitmap_nak(SendState& s, uint32_t qi, const wire::BitmapBlock& block) {}
  // A Scheme Feedback frame (MELO hole NACK, SACK, NACK, MP-RDMA ACK). A NACK (the
  // receiver could not track the packet and dropped it) resends that PSN under every core.
  virtual void on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) {
    if (fb.type == wire::SchemeFeedback::kNack) s.resend(qi, fb.psn[0]);
  }
  // Whether the NIC's resend holdoff (tx.resend_holdoff_ns) applies to the resends this
  // frame asks for. UET's RUD: a NACK says the packet is gone (trimmed), so never; its ROD
  // keeps it (going back N resends the packet anyway).
  virtual bool holdoff(const wire::SchemeFeedback& fb) const { return true; }
  // The requester timeout fired while PSNs in [una, high) were outstanding.
  virtual void on_timeout(SendState& s, uint32_t qi) { s.go_back(qi, s.una(qi)); }
  // The core's own timeout when the timer is armed with `outstanding` PSNs in flight, in
  // ns; 0: the NIC's (control.rsp_manager: RTT + OTD x PMTU / rate, or TIMEOUT_CYCLES).
  virtual double timeout_ns(uint32_t outstanding) const { return 0; }

  // Transmit hooks, asked by the QP Manager. Hold the packet at send_psn (the last
  // packet of an OOO WRITE when last_of_ooo_write) while una != send_psn?
  virtual bool holds(uint32_t qi, bool last_of_ooo_write, uint32_t send_psn, uint32_t una) {
    return false;
  }
  // Headers the policy adds to a data packet of an OOO WQE.
  virtual void tag(wire::FrameSpec& f, const PacketTag& t) {}
  // Resends the core paces itself (MP-RDMA's recovery mode and early retransmit): the
  // QP Manager asks, when the QP may send, for the next PSN to send again, after its
  // selective-retransmission queue and before new data. has_resend: one is due.
  virtual bool has_resend(const SendState& s, uint32_t qi) const { return false; }
  virtual bool next_resend(SendState& s, uint32_t qi, uint32_t* psn) { return false; }
  // An out-of-order READ response the requester's own ordering unit SACKed: re-request
  // the hole it reports? (Eunomia: no, a SACK is information only.)
  virtual bool rerequest_on_read_sack() const { return true; }
  // PSNs past the first unacknowledged one that the receiver said it holds (UET: its
  // SACK bitmaps): a window core counts them out of its flight, as htsim's NSCC does.
  virtual uint32_t sacked_past_una(uint32_t qi) const { return 0; }
  // The QP is in a loss-recovery episode (UET's SLEEK): htsim lets its resends pass the
  // window then, and only then.
  virtual bool in_loss_recovery(uint32_t qi) const { return false; }
};

}  // namespace oonic::sender
