// The transmit seam, rate/pacing half (docs/DESIGN.md "Seams"): when a QP may send its
// next packet and on which UDP source port. Told every ACK, CNP, Scheme Feedback frame
// and timeout; asked by the QP Manager before it picks a packet of the QP (send_at: a
// window) and before the packet is handed to the TX arbiter (earliest: pacing). Cores:
// `none` (line rate, the QP's own source port), `dcqcn` (rate), `mprdma` (MP-RDMA's
// window clocked by ACKs over virtual paths), `hpcc` (a window from the INT stacks the
// switches stamp and the receiver echoes). Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "model/core/cycles.h"
#include "model/core/signal.h"
#include "model/sender/loss_recovery.h"
#include "model/wire/roce.h"

namespace oonic::sender {

class RateControl {
 public:
  virtual ~RateControl() = default;
  virtual const char* name() const = 0;
  // Window cores: may the QP pick its next packet at `now`? now: yes; a later cycle: ask
  // again then (the QP Manager books a wake); kNever: not before feedback arrives (then
  // on_feedback returns true). sync_first: the packet would be the first of a WQE with
  // the synchronise flag.
  virtual Cycle send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) { return now; }
  // The QP Manager picked psn (retx: a resend) at `now`; the UDP source port it goes
  // out with (default_port: the QP's own).
  virtual uint16_t picked(uint32_t qi, Cycle now, uint32_t psn, bool retx, uint16_t default_port) {
    return default_port;
  }
  // A Scheme Feedback frame arrived (after the first unacknowledged PSN moved and the
  // recovery core saw it). True: the QP may send again (the caller kicks it).
  virtual bool on_feedback(uint32_t qi, Cycle t, const wire::SchemeFeedback& fb,
                           const SendState& s) {
    return false;
  }
  // The policy's recovery core (make_sender_policy pairs them once).
  virtual void pair(const LossRecovery& recovery) {}
  // A window core's congestion window of the QP in packets (0: the core keeps none).
  virtual double window_packets(uint32_t qi) const { return 0; }
  // Earliest cycle the QP may put a packet of `bytes` on the wire, asked at `now`.
  virtual Cycle earliest(uint32_t qi, Cycle now, uint32_t bytes) { return now; }
  // The packet went at `start`.
  virtual void sent(uint32_t qi, Cycle start, uint32_t bytes) {}
  // The QP's first unacknowledged PSN moved by acked_psns (any ACK, NAK, READ response or
  // Scheme Feedback frame). True: the QP may send again (the caller kicks it).
  virtual bool on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) { return false; }
  virtual void on_cnp(uint32_t qi, Cycle t) {}
  virtual void on_timeout(uint32_t qi, Cycle t) {}
  // A response (ACK, NAK, Scheme Feedback) acknowledging up to psn arrived with an INT
  // stack (HPCC's telemetry, echoed by the receiver). True: the QP may send again.
  virtual bool on_int(uint32_t qi, Cycle t, uint32_t psn, const wire::IntStack& stack,
                      const SendState& s) {
    return false;
  }
  // Headers the core adds to every data packet it paces (HPCC: an empty INT stack).
  virtual void tag(uint32_t qi, wire::FrameSpec& f) {}
  // Data packets go out ECN-capable (ECT(0)) when the core reads ECN (CNPs).
  virtual bool ecn_capable() const { return false; }
  // Called at every change of a QP's sending rate, with the cycle it took effect
  // (a core that evaluates timers lazily reports their ticks' cycles, so calls
  // need not come in time order) and the new rate in Gbit/s. Each call adds an
  // observer (model/core/signal.h).
  using RateFn = std::function<void(uint32_t qi, Cycle t, double gbps)>;
  void on_rate(RateFn f) { on_rate_.connect(std::move(f)); }

 protected:
  Signal<uint32_t, Cycle, double> on_rate_;
};

// Line rate, no pacing, the QP's source port: today's behaviour.
class NoRate final : public RateControl {
 public:
  const char* name() const override { return "none"; }
};

}  // namespace oonic::sender
