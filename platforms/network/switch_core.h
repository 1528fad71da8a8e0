// A packet-level switch's buffer, as plain C++ (no SystemC): per-port, per-priority
// output queues in one shared buffer, admission by dynamic threshold
// (Choudhury-Hahne) or static limits, strict-priority egress with a serializing
// port, and PFC's accounting (XOFF/XON per ingress port and priority, headroom, PAUSE
// received on an egress port). RED/ECN marking is a pipeline hook
// (hooks/red_ecn.h) that reads the queue depths this core reports. Times in ps;
// lengths are frame bytes without FCS (the buffer holds frames; the wire adds FCS
// and preamble/IFG, wire::wire_bytes). The SystemC shell (switch.h: ports as TLM
// sockets, links, routing, hooks) is built on it; docs/FABRIC.md has the model.
//
// Per frame entering for egress port o, priority c, from ingress port i:
//   1. admission, lossy (pfc off): dropped (buffer_full) if used + b > buffer;
//      else dropped (threshold) if, dynamic: q(o,c) + b > alpha x (buffer - used),
//      static: q(o,c) + b > static_limit. Priority 0 (control) is admitted
//      whenever the buffer has room.
//   2. admission, lossless (pfc on): dropped (buffer_full) if used + b > buffer;
//      dropped (headroom) if in(i,c) + b > xoff + headroom. After admission,
//      in(i,c) >= xoff sends XOFF to port i's upstream (once, until XON); xoff is
//      switch.xoff_bytes, or with pfc_threshold dynamic T(i) (pfc_xoff: the free
//      shared buffer >> a per-port shift, as ns-3 HPCC's MMU; there the bytes past T
//      count as headroom, a frame is dropped only when the headroom is full and the
//      shared part past T, XOFF holds while any headroom is used, and XON needs the
//      headroom empty and the shared part empty or pfc_resume_bytes below T); while
//      it holds, refresh() sends it again every half pause time (pause_quanta x
//      256 bit times at port i's rate), so the upstream never resumes on a
//      timeout while the bytes are still above xon (as switches do: a PFC
//      deadlock stays one).
//   3. Admit::queue_bytes = q(o,c) before it (RED at enqueue reads it).
//   4. eligible for egress at arrival + latency.
// Egress of port o (start_next): when the port is free, the highest priority
// (0 first) whose head is eligible and not paused starts; its last byte leaves
// after ser = ceil(wire_bytes(len) x 8 / rate); Departure::queue_bytes = q(o,c)
// after the frame left (RED at dequeue reads it). A dequeue that brings in(i,c)
// to xon or below after an XOFF sends XON. A PAUSE received on port o for
// priority c stops that priority from starting until now + quanta x 512 bit
// times at the port's rate (quanta 0 resumes). A PAUSE frame the switch sends
// (send_control) goes out at the next frame boundary of its port, ahead of
// every queue, and holds the port for its own wire time.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/core/params.h"
#include "model/core/plugin_params.h"
#include "model/core/rng.h"

namespace oonic::network {

// One of each switch hook row's parameters (switch_hook.cpp).
PluginParamSet switch_hook_params();

struct SwitchParams {              // switch.*
  std::string model = "pipeline";  // the switch factory's row (switch_node.h)
  uint32_t priorities = 2;         // 0 = control (strict), 1.. = data
  uint64_t buffer_bytes = 9 << 20;
  std::string admission = "dynamic";  // dynamic | static
  double alpha = 1.0;                 // dynamic threshold
  uint64_t static_limit_bytes = 1 << 20;
  double latency_ns = 0;  // port to port, before a frame can leave
  bool pfc = false;
  uint64_t xoff_bytes = 256 * 1024;
  uint64_t xon_bytes = 128 * 1024;
  // static: XOFF at xoff_bytes, XON at xon_bytes. dynamic (ns-3 HPCC's switch MMU): XOFF
  // when in(i,c) >= T(i) = (buffer - headroom pool - used) >> shift(i), XON when in(i,c) +
  // pfc_resume_bytes <= T(i); shift(i) = pfc_shift, one less per doubling of port i's rate
  // above pfc_base_gbps (at least 0).
  std::string pfc_threshold = "static";
  uint32_t pfc_shift = 3;
  double pfc_base_gbps = 100;
  uint64_t pfc_resume_bytes = 3 * 1024;
  std::string pfc_headroom_pool = "reserved";  // reserved: the ports' headroom set aside; shared
  uint64_t headroom_bytes = 64 * 1024;
  bool headroom_auto = false;     // per port: at least 3 x rate x the link's delay (ns-3 HPCC)
  uint32_t pause_quanta = 65535;  // of an XOFF PAUSE frame
  double loss_rate = 0;           // fault: random loss on every egress wire (the shell's)
  // The switch hook rows' own parameters (SwitchHookRow::params), in registry order:
  // RED/ECN's (switch.ecn, kmin_bytes, kmax_bytes, pmax, mark_at: hooks/red_ecn.h),
  // INT's (switch.int_*: hooks/int_stamp.h).
  PluginParamSet hooks = switch_hook_params();

  void describe(ParamTable& t);
  // Cross checks; throws oonic::Error (msg::kConfig) naming the key.
  void validate() const;
};

enum class SwitchDrop : uint8_t { kNone = 0, kBufferFull, kThreshold, kHeadroom, kCount };
const char* to_string(SwitchDrop d);  // "none", "buffer_full", "threshold", "headroom"

class SwitchCore {
 public:
  struct Frame {
    uint64_t tag = 0;  // the caller's handle, returned on departure
    uint32_t len = 0;  // bytes without FCS
    uint8_t prio = 1;
    bool ect = false;  // ECN-capable (may be marked CE)
    uint32_t in_port = 0;
  };
  // A PAUSE to send out of `port` (to its upstream): quanta 0 is XON.
  struct Pause {
    uint32_t port;
    uint8_t prio;
    uint32_t quanta;
  };
  struct Admit {
    bool accepted = false;
    SwitchDrop drop = SwitchDrop::kNone;
    uint64_t queue_bytes = 0;  // accepted: the frame's queue (port, priority) before it
    std::optional<Pause> pause;
  };
  struct Departure {
    Frame frame;
    uint32_t port = 0;
    uint64_t start_ps = 0, end_ps = 0;  // first and last byte on the egress wire
    uint64_t queue_bytes = 0;           // its queue (port, priority) left behind
    std::optional<Pause> pause;         // an XON this dequeue released
  };
  struct Counters {
    uint64_t frames_in = 0, frames_out = 0, bytes_out = 0;
    uint64_t drops[static_cast<size_t>(SwitchDrop::kCount)] = {};
    uint64_t xoff_sent = 0, xon_sent = 0, pauses_received = 0;
    uint64_t peak_used_bytes = 0;
  };

  // port_gbps: egress rate of each port. Validates p (throws oonic::Error).
  SwitchCore(const SwitchParams& p, std::vector<double> port_gbps, const std::string& name);

  Admit enqueue(uint64_t now_ps, uint32_t out_port, const Frame& f);
  // The drop enqueue would make of f now (kNone: it would be admitted), counting nothing.
  SwitchDrop admission(uint32_t out_port, const Frame& f) const;
  // The newest frame queued on (port, prio), or nullopt when the queue is empty.
  std::optional<Frame> newest(uint32_t port, uint8_t prio) const;
  // Takes that frame back out of the buffer (a trimming switch's victim, htsim's
  // CompositeQueue); it counts neither as sent nor dropped. Lossy buffers only: with PFC
  // on it throws (an XON it would release is not modelled).
  std::optional<Frame> take_newest(uint32_t port, uint8_t prio);
  // Earliest time start_next(port, t) can start a frame (UINT64_MAX: nothing).
  uint64_t next_start_ps(uint32_t port) const;
  // Starts the next frame on `port` at now_ps if one can start then.
  std::optional<Departure> start_next(uint32_t port, uint64_t now_ps);
  // A PAUSE frame received on `port` (from the downstream device) for `prio`.
  void pause(uint32_t port, uint8_t prio, uint32_t quanta, uint64_t now_ps);
  // Books `port` for a control frame of len bytes (a PAUSE) at the next frame
  // boundary at or after now_ps; returns its first and last byte times.
  std::pair<uint64_t, uint64_t> send_control(uint32_t port, uint32_t len, uint64_t now_ps);
  // Until when `prio` on egress `port` is paused by the downstream device.
  uint64_t paused_until_ps(uint32_t port, uint8_t prio) const {
    return q_[idx(port, prio)].paused_until_ps;
  }
  // The XOFF refresh due at now_ps for ingress `port`, `prio` (refresh_ps(port)
  // after the last XOFF, while it holds); nothing otherwise.
  std::optional<Pause> refresh(uint32_t port, uint8_t prio, uint64_t now_ps);
  uint64_t refresh_ps(uint32_t port) const;
  // When the XOFF of ingress `port`, `prio` is next due for a refresh (at the
  // port's present rate); UINT64_MAX if no XOFF holds.
  uint64_t refresh_due_ps(uint32_t port, uint8_t prio) const;
  // Whether this switch holds XOFF towards ingress `port`'s upstream for `prio`.
  bool xoff(uint32_t port, uint8_t prio) const { return xoff_[idx(port, prio)] != 0; }

  uint64_t serialization_ps(uint32_t port, uint32_t len) const;
  uint64_t queue_bytes(uint32_t port, uint8_t prio) const { return q_[idx(port, prio)].bytes; }
  uint64_t port_bytes(uint32_t port) const {  // every priority of the port
    uint64_t n = 0;
    for (uint8_t c = 0; c < p_.priorities; ++c) n += q_[idx(port, c)].bytes;
    return n;
  }
  uint64_t ingress_bytes(uint32_t port, uint8_t prio) const { return in_[idx(port, prio)]; }
  uint64_t used_bytes() const { return used_; }
  const Counters& counters() const { return c_; }
  uint32_t ports() const { return static_cast<uint32_t>(gbps_.size()); }
  uint32_t priorities() const { return p_.priorities; }
  // Fault: the port's rate from now on (frames that start later serialize at it).
  void set_rate(uint32_t port, double gbps) { gbps_.at(port) = gbps; }
  // PFC headroom of one ingress port (switch.headroom_auto; default switch.headroom_bytes).
  void set_headroom(uint32_t port, uint64_t bytes) {
    if (headroom_.empty()) headroom_.assign(ports(), p_.headroom_bytes);
    if (hdrm_reserved_) hdrm_pool_ += bytes - headroom_.at(port);
    headroom_.at(port) = bytes;
  }
  // PFC's XOFF threshold of ingress port i now (switch.pfc_threshold), in bytes.
  uint64_t pfc_xoff(uint32_t port) const;
  double rate_gbps(uint32_t port) const { return gbps_.at(port); }

 private:
  struct Item {
    Frame f;
    uint64_t eligible_ps;
  };
  struct Queue {
    std::deque<Item> items;
    uint64_t bytes = 0;
    uint64_t paused_until_ps = 0;
  };
  size_t idx(uint32_t port, uint8_t prio) const { return size_t{port} * p_.priorities + prio; }
  void check(uint32_t out_port,
             const Frame& f) const;  // throws for a port or priority out of range

  SwitchParams p_;
  std::string name_;
  std::vector<double> gbps_;
  std::vector<uint64_t> headroom_;  // per port; empty: switch.headroom_bytes
  std::vector<uint32_t> shift_;     // per port: dynamic PFC's shift
  bool pfc_dynamic_ = false;        // switch.pfc_threshold dynamic
  bool static_admission_ = false;   // switch.admission static
  bool hdrm_reserved_ = false;      // switch.pfc_headroom_pool reserved
  uint64_t hdrm_pool_ = 0;          // headroom set aside (pfc_headroom_pool reserved): every port's
  uint64_t latency_ps_;
  std::vector<Queue> q_;           // [port][prio]
  std::vector<uint64_t> in_;       // ingress bytes held [port][prio]
  std::vector<uint64_t> hdrm_;     // pfc_threshold dynamic: of those, in the headroom
  std::vector<uint8_t> xoff_;      // XOFF sent upstream of [port][prio]
  std::vector<uint64_t> xoff_at_;  // when the last XOFF of [port][prio] was sent
  std::vector<uint64_t> free_;     // egress port free from
  uint64_t used_ = 0;
  Counters c_;
};

}  // namespace oonic::network
