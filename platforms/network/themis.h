// THEMIS (MECHANISMS.md §7): the DC's external switch takes over DCQCN's notification
// and reaction points for inter-DC flows, so that intra-DC flows sharing a bottleneck
// with them are not suppressed by the long-haul loop. Plain C++, one per external
// switch; the Switch shell asks it about every frame crossing the long-haul port
// (`themis.mode`: none, np, rp, both).
//
// Flow = (sender IP, receiver IP, UDP source port): a fabric QP pair uses one source
// port both ways, so data (sender -> receiver), its ACKs and its CNPs (receiver ->
// sender) name the same flow.
//
// Notification point (np), at the sender's DC:
//   * a data packet leaving the DC (egress: the long-haul port; with themis.np_scope all,
//     any port of the external switch, as the THEMIS artefact) with ECN CE: the mark
//     is cleared (the far receiver does not CNP it again) and, if the flow's last CNP
//     towards its sender (with themis.np_key host_pair: the last CNP between its two
//     hosts, as the artefact keys it) is older than t_interval, a CNP goes to the sender, out of
//     the port towards it ahead of its queues. The CNP names the sender's QP: from the flow table
//     the fabric fills at connection setup (themis.np_flows table, learn_qpn for every flow
//     crossing the long haul), or learned from the flow's ACKs coming in over the long-haul port
//     (learn: a flow with none seen yet keeps its mark, and the receiver will CNP it);
//   * a CNP coming in over the long-haul port for a local sender is forwarded only if
//     the flow's last CNP is older than t_interval (else dropped: suppressed).
// Reaction point (rp), at the receiver's DC:
//   * a CNP going out over the long-haul port (a local receiver's, for an inter-DC
//     flow): the flow reacts at this switch as DCQCN's reaction point does
//     (sender::Dcqcn with the NICs' cc.dcqcn.* constants, on a rate that starts at
//     themis.line_gbps): its rate fraction f = Rc / line falls on CNPs and recovers
//     with DCQCN's timers. The CNP gets the THEMIS bit (BTH byte 8 bit 0; ICRC
//     rewritten) before it goes on;
//   * a CNP with the THEMIS bit coming in over the long-haul port goes on to the sender
//     untouched: the np does not react to it (no interval check, no t_last), so the far
//     switch's reaction is not doubled by this one; the sender's DCQCN still reacts;
//   * themis.block rate (the default; MECHANISMS.md §7 "realise it as rate control per
//     flow"): the flow's data coming in over the long-haul port leaves no faster than its
//     reaction point's rate Rc: a packet of b bytes leaves at max(now, the flow's next
//     free time) and moves that time on by b x 8 / Rc, so the flow's packets keep their
//     order and its bytes enter the DC at Rc (a sender not yet slowed by its own DCQCN
//     has its excess held here, not in the destination ToR's queue). Held packets
//     recirculate (passes as below); the bytes held at once are bounded by
//     themis.max_held_bytes: a packet that would pass it makes its flow's oldest held
//     packet leave at once (or passes itself when its flow holds none): order is kept and
//     the flow goes unpaced while the loop is full (held_overflow). Choice: not a drop,
//     which a go-back-N flow pays with a window resent over the long haul, into the same
//     full loop (tried: flows then stalled for 100 ms);
//   * themis.block delay (the earlier model): the flow's data coming in over the long-haul
//     port is blocked for
//     T_block = rtt x (1 / f - 1): a window-limited sender whose RTT grows from rtt to
//     rtt + T_block sends at f of its rate (choice: the mapping from DCQCN's rate to a
//     block time; rtt = themis.rtt_us, or 2 x the long-haul delay), at most
//     themis.max_block_us (as DCQCN's rate nears its minimum the formula grows without
//     bound: 1 s at 100 Mbit/s of 100 Gbit/s, which stalls a flow). The packet
//     recirculates through the ingress pipeline meanwhile: n = ceil(T_block / pass)
//     resubmits, a pass = themis.pass_ns + the loop's queue (bytes recirculating) and
//     the packet at themis.loop_gbps, so sum of qlen_i / rate_drain = T_block. Holding
//     costs passes, not buffer. themis.block loop instead follows the THEMIS artefact:
//     the flow's pass count n starts at 1 with its first CNP, and every `step` CNPs
//     (step starting at themis.step, growing by one) adds a pass (n grows as about
//     sqrt(2 x CNPs)); themis.recover_us without a CNP halves step and takes one pass
//     away (choice: the artefact never lowers n). Each packet makes its n passes
//     through one loop port shared by every flow, first come first served: a pass waits
//     for the loop, takes the packet's time at loop_gbps, then pass_ns.
//     A packet leaves no earlier than its flow's previous
//     one plus its own time at themis.line_gbps (when T_block shrinks, what was held
//     leaves as a line-rate stream, not at once), so no packet overtakes an earlier one
//     (e2e: THEMIS on single-path flows delivers every packet in order).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/core/params.h"
#include "model/core/stats.h"

#include "model/sender/dcqcn.h"

namespace oonic::network {

struct ThemisParams {                // themis.*
  std::string mode = "none";         // none | np | rp | both
  std::string preset = "paper";      // paper | artefact: defaults of the np's keys below
  double t_interval_us = 50;         // np: at most one CNP per flow (or host pair) per interval
  std::string np_scope = "wan";      // np: marked data leaving by the long haul | by any port
  std::string np_key = "flow";       // np: t_interval per flow | per host pair (the artefact)
  std::string block = "rate";        // rp: rate (paced at DCQCN's Rc) | delay (T_block) | loop
  double max_held_bytes = 33554432;  // rp: bytes held at once (more: dropped, counted)
  uint32_t step = 5;                 // rp, loop: CNPs per added pass at first (grows by one)
  double recover_us = 500;           // rp, loop: no CNP this long: step halves, one pass fewer
  double line_gbps = 100;            // rp: a flow's rate before its first CNP (the host links)
  double rtt_us = 0;                 // rp: the RTT T_block stretches; 0: 2 x the long-haul delay
  double max_block_us = 1000;        // rp, block dcqcn: T_block never exceeds this
  double pass_ns = 100;              // rp: one recirculation pass (the loop port's delay)
  double loop_gbps = 1600;           // rp: the loop port's rate
  uint32_t max_flows = 65536;        // flows an external switch tracks
  std::string np_flows = "table";    // np: table (filled at connection setup) | learn (from ACKs)
  // Read at construction (ThemisCore keeps them as flags), never per frame.
  bool np() const { return mode == "np" || mode == "both"; }
  bool loop() const { return block == "loop"; }
  bool rate() const { return block == "rate"; }
  bool np_all_ports() const { return np_scope == "all"; }
  bool np_host_pair() const { return np_key == "host_pair"; }
  bool rp() const { return mode == "rp" || mode == "both"; }
  bool np_table() const { return np_flows == "table"; }
  void describe(ParamTable& t);
};

class ThemisCore {
 public:
  struct FlowKey {
    uint64_t sender = 0, receiver = 0;
    uint16_t sport = 0;
    bool operator==(const FlowKey& o) const {
      return sender == o.sender && receiver == o.receiver && sport == o.sport;
    }
  };
  // dcqcn: the reaction point's constants (the NICs' cc.dcqcn.*); rtt_ps: the RTT
  // T_block stretches (themis.rtt_us when set). Times in ps.
  ThemisCore(const ThemisParams& p, const sender::DcqcnParams& dcqcn, uint64_t rtt_ps,
             const StatGroup& stats);
  const ThemisParams& params() const { return p_; }
  bool np() const { return np_on_; }  // themis.mode np or both
  bool rp() const { return rp_on_; }  // themis.mode rp or both

  // An ACK, NAK or feedback frame of flow k coming in: it names the sender's QP.
  void learn_qpn(const FlowKey& k, uint32_t qpn);
  // np: a CE-marked data packet of flow k leaving the DC at now. Returns whether to
  // clear its mark; *cnp_qpn set (and true returned by *send) when a CNP goes out.
  bool on_marked_data_out(const FlowKey& k, uint64_t now_ps, bool* send, uint32_t* cnp_qpn);
  // np: a CNP of flow k coming in from the long haul: forward it?
  bool forward_cnp_in(const FlowKey& k, uint64_t now_ps);
  // rp: a local receiver's CNP of flow k going out at now (the flow slows down here).
  void on_cnp_out(const FlowKey& k, uint64_t now_ps);
  // rp, block delay or loop: a data packet of flow k (bytes) coming in at now: when it
  // may go on (now when the flow is not throttled), and the resubmits that took.
  // released(bytes) when it leaves the loop.
  uint64_t release_ps(const FlowKey& k, uint64_t now_ps, uint32_t bytes, uint32_t* resubmits);
  // rp, block rate: a data packet of flow k (bytes; id: the caller's handle) coming in at
  // now. kPass: it goes on now; kHeld: it waits in the flow's queue, and when the queue
  // was empty *wake_ps says when the flow's head may leave (call release_head(*flow)
  // then). When holding it would pass themis.max_held_bytes, the flow's head leaves now
  // to make room (*early: its id, else kNoId) or, the flow holding nothing, the packet
  // passes: order kept, memory bounded, the flow unpaced meanwhile (held_overflow).
  enum class Hold { kPass, kHeld };
  static constexpr uint32_t kNoId = ~0u;
  Hold hold(const FlowKey& k, uint64_t now_ps, uint32_t bytes, uint32_t id, uint64_t* wake_ps,
            uint32_t* flow, uint32_t* early);
  // rp, block rate: the flow's head leaves at now (its id in *id; the resubmits it made
  // are counted); the next leaves at now + its bytes at the flow's rate now, returned in
  // *wake_ps (kNoWake: the queue is empty). False: nothing was held.
  static constexpr uint64_t kNoWake = ~uint64_t{0};
  bool release_head(uint32_t flow, uint64_t now_ps, uint32_t* id, uint64_t* wake_ps);
  void released(uint32_t bytes) { looping_bytes_ -= std::min<uint64_t>(looping_bytes_, bytes); }
  double rate_fraction(const FlowKey& k, uint64_t now_ps);  // f of the flow now (1: free)

  // Counters.
  Counter &cnps_generated, &cnps_forwarded, &cnps_suppressed, &cnps_marked_in, &ce_cleared, &no_qpn,
      &rp_cnps, &held, &resubmits, &held_overflow, &held_peak_bytes;

 private:
  struct Hash {
    size_t operator()(const FlowKey& k) const;
  };
  struct NpClock {  // the np's interval state
    uint64_t last_cnp_ps = 0;
    bool cnp_seen = false;
  };
  struct Flow {
    uint32_t index = 0;
    bool has_qpn = false;
    uint32_t qpn = 0;
    NpClock np;
    bool rp_seen = false;          // rp: a local receiver's CNP of the flow went out here
    uint64_t last_release_ps = 0;  // rp: when its last held packet leaves (block rate: when
                                   // the next may, by the rate at the last departure)
    struct Held {
      uint32_t id, bytes;
      uint64_t since_ps;
    };
    std::deque<Held> queue;              // rp, block rate: held packets, in arrival order
    uint32_t n = 0, step = 0, cnps = 0;  // rp, loop: passes per packet, step, CNPs into it
    uint64_t last_rp_cnp_ps = 0;
  };
  void recover(Flow& f, uint64_t now_ps);
  Flow* flow(const FlowKey& k);  // null when max_flows are tracked already
  // The np's interval state: the flow's, or with np_key host_pair its host pair's.
  NpClock* np_clock(const FlowKey& k, Flow& f);
  uint64_t held_at(Flow& f, uint64_t now_ps, uint64_t t, uint32_t bytes, uint32_t* passes);
  uint64_t ser_ps(uint32_t bytes, double gbps) const {
    return static_cast<uint64_t>(std::llround(bytes * 8.0 * 1000.0 / gbps));
  }
  ThemisParams p_;
  bool loop_;           // themis.block loop (read once, not per packet)
  bool rate_;           // themis.block rate
  bool host_pair_;      // themis.np_key host_pair
  bool np_on_, rp_on_;  // themis.mode (read once, not per packet)
  uint64_t interval_ps_;
  uint64_t rtt_ps_;
  uint64_t looping_bytes_ = 0;  // rp: bytes recirculating (the loop's queue)
  uint64_t loop_free_ps_ = 0;   // rp, loop: when the loop port is next free (one FIFO)
  uint64_t recover_ps_;
  std::unordered_map<FlowKey, Flow, Hash> flows_;
  std::vector<Flow*> by_index_;                       // flows_ by Flow::index (nodes do not move)
  std::unordered_map<FlowKey, NpClock, Hash> pairs_;  // np_key host_pair (sport 0)
  sender::Dcqcn rp_;                                  // per flow index; cycles are picoseconds
};

}  // namespace oonic::network
