// A packet-level switch as a SystemC module: the shell of SwitchCore (queues,
// admission, RED/ECN, strict priority, serialization) and PathSelect (the
// equal-cost choice) on a Topology node (issue 15).
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
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/core/rng.h"
#include "model/core/signal.h"
#include "model/core/stats.h"
#include "platforms/network/frame_slots.h"
#include "platforms/network/path_select.h"
#include "platforms/network/psn_rules.h"
#include "platforms/network/switch_core.h"
#include "platforms/network/themis.h"
#include "platforms/network/topology.h"
#include "tlm/net_packet.h"

namespace oonic::network {

// Host addresses: (IP version, address bytes, IPv4 in the first 4) -> host node.
using AddressMap = std::map<std::pair<uint8_t, std::array<uint8_t, 16>>, uint32_t>;

class Switch : public sc_core::sc_module {
 public:
  using Target = tlm_utils::simple_target_socket_tagged<Switch>;
  using Initiator = tlm_utils::simple_initiator_socket_tagged<Switch>;
  std::vector<std::unique_ptr<Target>> rx_socket;     // per port
  std::vector<std::unique_ptr<Initiator>> tx_socket;  // per port

  // node: this switch in t; stats under "<name>.". Throws oonic::Error (kConfig).
  Switch(sc_core::sc_module_name name, const SwitchParams& sp, const RoutingParams& rp,
         const Topology& t, const Routes& routes, uint32_t node, const AddressMap& hosts,
         uint64_t seed, Stats& stats);

  const SwitchCore& core() const { return core_; }
  uint64_t wakes() const { return wakes_; }
  // Called whenever a port's queued bytes (every priority) change: at an
  // enqueue and when a frame starts leaving (queues.csv).
  using QueueFn = std::function<void(uint64_t ps, uint32_t port, uint64_t bytes)>;
  void on_queue(QueueFn f) { on_queue_.connect(std::move(f)); }
  // Called for each PFC frame sent (sent = true, at its first byte) or received
  // (at its last byte), once per priority it names; quanta 0 is XON.
  using PfcFn =
      std::function<void(uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool sent)>;
  void on_pfc(PfcFn f) { on_pfc_.connect(std::move(f)); }
  // Called for every frame delivered out of a port (its last byte at the far end),
  // before the far end takes it (link captures).
  using DeliverFn = std::function<void(uint32_t port, uint64_t ps, const uint8_t* f, size_t n)>;
  void on_deliver(DeliverFn f) { on_deliver_.connect(std::move(f)); }
  // Faults (docs/FABRIC.md "Faults"), from the time they are called: a port's
  // rate; a port down (every frame leaving it is lost, PFC frames too) or up; a
  // rule losing frames leaving the port whose BTH PSN mod n == r.
  void set_port_rate(uint32_t port, double gbps);
  void set_port_down(uint32_t port, bool down);
  // Random loss on the port's egress wire from now on (replaces switch.loss_rate and
  // the link's error rate there).
  void set_port_loss(uint32_t port, double p);
  void set_port_ecn(uint32_t port, uint64_t kmin, uint64_t kmax) {
    core_.set_ecn(port, kmin, kmax);
  }
  void add_psn_rule(uint32_t port, uint32_t n, uint32_t r, bool ip_id = false);
  // THEMIS on this switch (a DC's external switch): wan_port is its long-haul port;
  // stats under "<name>.themis.". Call before the run.
  // rtt_ps: the RTT the reaction point's block time stretches (twice the long haul's delay).
  void enable_themis(const ThemisParams& p, const sender::DcqcnParams& dcqcn, uint32_t wan_port,
                     uint64_t rtt_ps, Stats& stats);
  const ThemisCore* themis() const { return themis_.get(); }
  // Frames and bytes (without FCS) that left each port, lost ones included.
  const std::vector<uint64_t>& port_frames_out() const { return port_frames_; }
  const std::vector<uint64_t>& port_bytes_out() const { return port_bytes_; }

 private:
  SC_HAS_PROCESS(Switch);
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void run();
  void step();                 // everything due now, then the frames that arrived now
  void run_due(uint64_t now);  // the events due at or before now
  void schedule(uint64_t t, uint8_t kind, uint32_t port, uint8_t prio = 0);
  void try_start(uint32_t port, uint64_t now);
  void arm(uint64_t t);  // wake the process at t (unless a wake at or before t is pending)
  void admit(uint32_t port, uint32_t slot, uint64_t now);  // a frame in slot, arrived on port
  void send_pause(const SwitchCore::Pause& p, uint64_t now);
  // A frame the switch makes (PFC, a THEMIS CNP) out of port at its next frame
  // boundary, ahead of the queues; returns its first byte's time.
  uint64_t send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now);
  // Queue a routed frame (slot) on out; the rest of admit().
  void enqueue_frame(uint32_t out, SwitchCore::Frame fr, uint64_t now, bool np_out);
  // THEMIS's checks of a frame crossing the long-haul port; false: it was taken
  // (dropped or held).
  bool themis_in(uint32_t port, uint32_t out, uint32_t slot, const wire::PacketView& v,
                 const SwitchCore::Frame& fr, uint64_t now);
  // np: a CE-marked data packet in slot leaving over the long haul: true to keep it
  // marked (else the mark is cleared and the sender may get a CNP).
  bool np_keep_mark(uint32_t slot, uint64_t now);

  struct Event {
    uint64_t t;
    uint64_t seq;
    uint8_t kind;  // 0: start on port, 1: arrival at the far end of port, 2: XOFF refresh,
                   // 3: a held packet's release (port = its index in held_)
    uint32_t port;
    uint8_t prio;  // kind 2
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
  Counter& lost_;
  Counter& lost_data_;
  std::vector<double> loss_;  // per port: switch.loss_rate with the link's error rate
  Rng loss_rng_;
  std::vector<uint8_t> down_;         // per port: the link is down (fault)
  std::vector<uint64_t> refresh_at_;  // [port][8 priorities]: the live XOFF refresh event
  std::vector<std::vector<PsnRule>> psn_rules_;  // per port
  Counter& fault_lost_;
  bool fault_lost(uint32_t port, uint32_t slot);  // a fault loses this departing frame
  Signal<uint64_t, uint32_t, uint64_t> on_queue_;
  Signal<uint64_t, uint32_t, uint8_t, uint32_t, bool> on_pfc_;
  Signal<uint32_t, uint64_t, const uint8_t*, size_t> on_deliver_;
  std::array<uint8_t, 6> mac_;
  std::unique_ptr<ThemisCore> themis_;
  uint32_t wan_port_ = 0;
  struct Held {
    uint32_t out;
    SwitchCore::Frame fr;
  };
  std::vector<Held> held_;  // THEMIS rp: packets recirculating, by index
  std::vector<uint32_t> held_free_;
  std::vector<uint64_t> port_frames_, port_bytes_;
};

}  // namespace oonic::network
