// A packet-level switch as a SystemC module: the shell of SwitchCore (queues, the
// MMU's admission and PFC accounting, strict priority, serialization) and PathSelect
// (the equal-cost choice) on a Topology node, with its features as hooks on a fixed
// pipeline (switch_hook.h: PFC frames, RED/ECN marking, THEMIS, faults, wire loss;
// hooks/*.cpp). The fabric builds it through the factory (switch_node.h, row
// "pipeline").
//   rx_socket_<k>  TLM target: frames arriving on port k, called when the
//                  frame's last byte has arrived (b_transport, TLM_WRITE_COMMAND,
//                  Ethernet without FCS; the bytes are copied).
//   tx_socket_<k>  TLM initiator: frames leaving port k, called with zero delay
//                  when the frame's last byte reaches the far end: its last byte
//                  left the port (SwitchCore) + the link's propagation delay.
// Routing: the destination IP names a host (the address map); the egress port
// is one of Routes::next_ports, chosen by PathSelect on the RoCEv2 5-tuple.
// Priority 0 (ACK, NAK, OOO NAK, Scheme Feedback, CNP) and 1 (everything else).
// A frame marked CE gets ECN 11 (IPv4: the header checksum is rewritten; the
// ICRC masks the ECN bits). Frames to an unknown address, or not IP, are
// dropped and counted (unroutable). One SC_METHOD; it runs only when a frame
// is due to start or to arrive, or frames came in. Frames arriving at one
// instant are admitted together in ingress-port order (then those of one port
// in arrival order), after the starts due at that instant: the result does not
// depend on the order in which the kernel ran their senders.
// A frame leaving port k is lost on the wire with probability 1 - (1 -
// switch.loss_rate)(1 - the link's error rate) (counted as lost).
// PFC (switch.pfc, needs switch.priorities >= 2): an XOFF or XON the core
// decides goes out of the ingress port as an 802.1Qbb frame (wire/pfc.h) at
// the port's next frame boundary, ahead of its queues (never lost on the wire);
// a PFC frame arriving on port k pauses or resumes port k's egress priorities.
// An XOFF in force is sent again every half pause time (SwitchCore::refresh).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/core/signal.h"
#include "model/core/stats.h"
#include "platforms/network/frame_slots.h"
#include "platforms/network/path_select.h"
#include "platforms/network/switch_core.h"
#include "platforms/network/switch_hook.h"
#include "platforms/network/switch_node.h"
#include "platforms/network/topology.h"
#include "tlm/net_packet.h"

namespace oonic::network {

class Switch : public sc_core::sc_module, public SwitchNode, private SwitchPipe {
 public:
  using Target = tlm_utils::simple_target_socket_tagged<Switch>;
  using Initiator = tlm_utils::simple_initiator_socket_tagged<Switch>;
  std::vector<std::unique_ptr<Target>> rx_socket;     // per port
  std::vector<std::unique_ptr<Initiator>> tx_socket;  // per port

  // b.node: this switch in b.topology; stats under "<name>."; the hooks of
  // switch_hook_registry() that are on for it. Throws oonic::Error (kConfig).
  Switch(sc_core::sc_module_name name, const SwitchBuild& b);
  // The same without THEMIS (tests).
  Switch(sc_core::sc_module_name name, const SwitchParams& sp, const RoutingParams& rp,
         const Topology& t, const Routes& routes, uint32_t node, const AddressMap& hosts,
         uint64_t seed, Stats& stats);

  const SwitchCore& core() const { return core_; }
  uint64_t wakes() const { return wakes_; }

  // SwitchNode.
  sc_core::sc_module& module() override { return *this; }
  tlm::tlm_target_socket<>& rx(uint32_t port) override { return *rx_socket.at(port); }
  tlm::tlm_initiator_socket<>& tx(uint32_t port) override { return *tx_socket.at(port); }
  // Faults (docs/FABRIC.md "Faults"), from the time they are applied: a port's rate
  // (the core); down/up, PSN rules (hooks/port_faults.cpp); loss (hooks/wire_loss.cpp);
  // ECN thresholds (hooks/red_ecn.cpp).
  void apply_fault(const PortFault& f) override;
  const std::vector<uint64_t>& port_frames_out() const override { return port_frames_; }
  const std::vector<uint64_t>& port_bytes_out() const override { return port_bytes_; }
  SwitchTotals totals() const override;
  std::vector<PortHold> holds(uint64_t now_ps) const override;
  // Called whenever a port's queued bytes (every priority) change: at an
  // enqueue and when a frame starts leaving (queues.csv).
  void on_queue(QueueFn f) override { on_queue_.connect(std::move(f)); }
  // Called for each PFC frame sent (sent = true, at its first byte) or received
  // (at its last byte), once per priority it names; quanta 0 is XON.
  void on_pfc(PfcFn f) override { on_pfc_.connect(std::move(f)); }
  // Called for every frame delivered out of a port (its last byte at the far end),
  // before the far end takes it (link captures).
  void on_deliver(DeliverFn f) override { on_deliver_.connect(std::move(f)); }
  // Called for every frame an egress hook loses on the wire (wire_loss, port_faults).
  void on_lost(DeliverFn f) override { on_lost_.connect(std::move(f)); }
  // The hooks built for this switch, in pipeline order (registry order).
  const std::vector<std::unique_ptr<SwitchHook>>& hooks() const { return hooks_; }

 private:
  SC_HAS_PROCESS(Switch);
  // SwitchPipe: what hooks may use.
  const char* pipe_name() const override { return name(); }
  SwitchCore& buffer() override { return core_; }
  uint32_t node() const override { return node_; }
  const std::array<uint8_t, 6>& mac() const override { return mac_; }
  std::vector<uint8_t>& bytes(uint32_t slot) override {
    slots_.desc(slot).valid = false;  // a hook may write: described again before it leaves
    return slots_[slot];
  }
  const FrameDesc& desc(uint32_t slot) override { return fresh(slot); }
  void release(uint32_t slot) override { slots_.release(slot); }
  uint64_t send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now) override;
  void book(SwitchHook* hook, uint64_t t, uint32_t arg) override;
  void enqueue(PipeFrame& f, uint64_t now) override;
  void wake_port(uint32_t port, uint64_t now) override { try_start(port, now); }
  std::optional<uint32_t> host_of(uint8_t ip_version, const uint8_t* ip) const override;
  std::optional<uint32_t> port_to_host(const FlowKey& key, uint32_t host, uint64_t now) override;
  void pfc_seen(uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool sent) override {
    on_pfc_(ps, port, prio, quanta, sent);
  }

  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void run();
  void step();                              // everything due now, then the frames that arrived now
  void run_due(uint64_t now);               // the events due at or before now
  void start(uint32_t port, uint64_t now);  // the port's next frame starts leaving
  void deliver(uint32_t port, uint64_t now);  // its oldest frame on the wire arrives
  enum class EventKind : uint8_t { kStart, kArrive, kHook };
  void schedule(uint64_t t, EventKind kind, uint32_t port, uint32_t arg = 0);
  void try_start(uint32_t port, uint64_t now);
  void arm(uint64_t t);  // wake the process at t (unless a wake at or before t is pending)
  void admit(uint32_t port, uint32_t slot, uint64_t now);  // a frame in slot, arrived on port
  bool lost_on_wire(uint32_t port, uint32_t slot, uint8_t prio, bool control, uint64_t now);
  // The slot's descriptor, described again from its bytes if a hook touched them.
  FrameDesc& fresh(uint32_t slot);

  struct Event {
    uint64_t t;
    uint64_t seq;
    EventKind kind;
    uint32_t port;  // kHook: the hook's index in hooks_
    uint32_t arg;   // kHook: the hook's argument
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct InFlight {
    uint64_t arrive_ps;
    uint32_t slot;
  };

  const Routes& routes_;
  uint32_t node_;
  const AddressMap& hosts_;
  std::unordered_map<uint32_t, uint32_t> v4_hosts_;  // IPv4 address -> host node
  SwitchCore core_;
  PathSelect select_;
  std::vector<uint64_t> prop_ps_;           // per port
  std::vector<std::deque<InFlight>> wire_;  // per port, in arrival order
  std::vector<uint64_t> start_at_;          // per port: the start event pending (or max)
  FrameSlots slots_;                        // frame copies by slot (= SwitchCore tag)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  sc_core::sc_event wake_;     // timed: the earliest event is due
  sc_core::sc_event arrived_;  // delta: frames arrived this instant
  struct Arriving {
    uint32_t port, slot;
  };
  std::vector<Arriving> arriving_, batch_;
  sc_dt::uint64 arrived_delta_ = 0;  // the delta the first of arriving_ came in
  uint64_t armed_ = std::numeric_limits<uint64_t>::max();  // the pending wake_ (or max)
  bool running_ = false;                                   // inside step()
  uint64_t wakes_ = 0;
  tlm::tlm_generic_payload gp_;
  FrameDonation donation_;
  Counter& unroutable_;
  Signal<uint64_t, uint32_t, uint64_t> on_queue_;
  Signal<uint64_t, uint32_t, uint8_t, uint32_t, bool> on_pfc_;
  Signal<uint32_t, uint64_t, const uint8_t*, size_t> on_deliver_;
  Signal<uint32_t, uint64_t, const uint8_t*, size_t> on_lost_;
  std::array<uint8_t, 6> mac_;
  std::vector<std::unique_ptr<SwitchHook>> hooks_;
  // Per stage, the hooks implementing it (registry order).
  std::vector<SwitchHook*> ingress_, admission_, buffered_, mark_, dequeued_, egress_, fault_;
  std::unordered_map<const SwitchHook*, uint32_t> hook_index_;
  bool parse_view_ = false;  // a hook of admission, buffered or mark reads PipeFrame::view
  std::vector<uint64_t> port_frames_, port_bytes_;
  const Stats& stats_;
};

}  // namespace oonic::network
