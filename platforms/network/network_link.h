// One direction of the network between two NICs as a SystemC module: the
// SystemC shell of LinkCore (link_core.h, which documents the timing).
//   rx_socket  TLM target: frames the sending NIC's mac_tx_socket sends
//              (b_transport, TLM_WRITE_COMMAND, data = Ethernet frame without FCS;
//              sc_time_stamp() + delay = its first byte on the sender's wire).
//              The bytes are copied; the sender may reuse its buffer at once.
//   tx_socket  TLM initiator: to the receiving NIC's mac_rx_socket; each frame is
//              sent with b_transport and zero delay at the time its last byte
//              reaches the receiver, with a NetPacketMeta (record = the frame's
//              number on this link, 1-based, dropped frames included; capture_ps
//              = when it started on the sender's wire).
// One SC_METHOD delivers; it runs only when a frame is due (or a new frame
// becomes the earliest), never on a clock edge.
// Stats under network.<dir>.*.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/signal.h"
#include "model/core/stats.h"
#include "platforms/network/frame_slots.h"
#include "platforms/network/link_core.h"
#include "platforms/network/network_params.h"
#include "platforms/network/psn_rules.h"
#include "tlm/net_packet.h"

namespace oonic::network {

class NetworkLink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<NetworkLink> rx_socket;
  tlm_utils::simple_initiator_socket<NetworkLink> tx_socket;

  using DeliverFn = std::function<void(uint64_t ps, const uint8_t* frame, size_t len)>;
  using DropFn =
      std::function<void(uint64_t start_ps, const uint8_t* frame, size_t len, const char* reason)>;

  // dir: "ab" or "ba" between two NICs (network.drop_psns rules name it), or a
  // fabric link's name (no rules apply). Stats under stat_prefix (default
  // "network.<dir>"). Throws oonic::Error (msg::kConfig) on bad parameters.
  NetworkLink(sc_core::sc_module_name name, const NetworkParams& p, const std::string& dir,
              uint64_t seed, Stats& stats, const std::string& stat_prefix = "");

  // Called at each delivery, before the peer's b_transport, with the delivery
  // time (= sim time, last byte at the receiver) and the frame.
  void on_deliver(DeliverFn f) { on_deliver_.connect(std::move(f)); }
  // Called when a frame is dropped (at the time it enters), with the time its
  // first byte left the sender and the reason ("random", "listed", or "fault": a fabric
  // fault, set_down or a PSN rule).
  void on_drop(DropFn f) { on_drop_.connect(std::move(f)); }

  // Time of the last delivery (0 if none yet).
  uint64_t last_delivery_ps() const { return last_delivery_ps_; }
  // Frames entered and not yet delivered.
  size_t in_flight() const { return core_.in_flight(); }
  const LinkCore& core() const { return core_; }
  // Times the delivery thread woke (tests: grows with frames, not with time).
  uint64_t wakes() const { return wakes_; }
  const std::string& dir() const { return core_.dir(); }
  // Faults (a fabric's faults.file), from the time they are called: the link down
  // (every frame the sender puts on it is lost) or up; a rule losing frames whose
  // BTH PSN mod n == r. Counted as <prefix>.fault_lost.
  void set_down(bool down) { down_ = down; }
  // Describe each frame as it enters (its bytes warm from the sender) and hand the
  // descriptor on with it (FrameDesc): a host's uplink to a switch.
  void set_describe(bool on) { describe_ = on; }
  void add_psn_rule(uint32_t n, uint32_t r, bool ip_id = false) {
    psn_rules_.push_back({n, r, ip_id});
  }

 private:
  SC_HAS_PROCESS(NetworkLink);
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void deliver_loop();
  void sync_stats();
  void schedule_wake(uint64_t now_ps);

  std::string prefix_;  // before core_: the stats' names are built from it
  LinkCore core_;
  FrameSlots slots_;  // frame copies, by the core's tag
  sc_core::sc_event wake_;
  Signal<uint64_t, const uint8_t*, size_t> on_deliver_;
  Signal<uint64_t, const uint8_t*, size_t, const char*> on_drop_;
  uint64_t last_delivery_ps_ = 0;
  uint64_t wakes_ = 0;
  bool down_ = false;
  bool describe_ = false;
  std::vector<PsnRule> psn_rules_;
  tlm::tlm_generic_payload gp_;
  NetPacketMeta meta_;
  FrameDonation donation_;
  Counter &frames_in_, &bytes_in_, &frames_delivered_, &bytes_delivered_, &dropped_random_,
      &dropped_listed_, &acks_, &jittered_, &bound_pushed_, &reordered_, &output_waits_,
      &sender_overlap_, &error_responses_, &fault_lost_;
  Histogram& delay_ns_;
};

}  // namespace oonic::network
