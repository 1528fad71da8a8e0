// One direction of the network between two NICs, as plain C++ (no SystemC):
// decides for each frame whether it is dropped and when its last byte reaches
// the far end, then hands frames out in arrival order through an output port of
// the same rate. NetworkLink (network_link.h) is its SystemC shell.
//
// Per frame, in the order frames enter (start = first byte on the sender's wire):
//   1. input wire: start' = max(start, previous start' + ser(previous)); a
//      sender never overlaps its own frames, this only guards against one that does
//      (counted as sender_overlap)
//   2. drop: a network.drop_psns rule of this direction lists the BTH PSN and the
//      PSN was never dropped here before (listed); else, unless the frame is an
//      ACK/NAK and loss_acks is off, with probability loss_rate (random)
//   3. base = start' + ser + propagation, ser = wire_bytes(len) x 8 / rate
//   4. OOO emulator (ooo_distance d > 0, frames other than ACK/NAK when
//      reorder_acks is off): arrival = max(base + U[0, D], max arrival of every
//      such frame at least d before it), so no frame is overtaken by d or more
//      frames sent after it (ties leave in sending order)
//   5. output port: frames leave in (arrival, sending order) order;
//      delivered = max(arrival, previous delivered + ser)
// Two 64-bit draws per frame (loss, delay) from make_rng(seed, "network." + dir),
// whatever the parameters, so changing one knob never shifts another's draws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/core/rng.h"
#include "platforms/network/network_params.h"

namespace oonic::network {

enum class DropReason : uint8_t { kNone = 0, kRandom, kListed };
const char* to_string(DropReason r);  // "none", "random", "listed"

class LinkCore {
 public:
  struct Decision {
    bool drop = false;
    DropReason reason = DropReason::kNone;
    uint64_t seq = 0;         // frame number on this link, 1-based, dropped frames included
    uint64_t start_ps = 0;    // first byte on the sender's wire (after the input-wire guard)
    uint64_t ser_ps = 0;      // serialization time
    uint64_t extra_ps = 0;    // OOO delay: random part + distance-bound push
    uint64_t arrival_ps = 0;  // last byte at the far end (before the output port); 0 if dropped
    bool roce = false;        // parsed as an RC RoCE frame
    bool ack = false;         // ACK or NAK (BTH opcode 0x11 or 0x1F)
    uint32_t psn = 0;         // BTH PSN if roce
  };

  struct Delivery {
    uint64_t seq = 0;
    uint64_t tag = 0;  // as passed to on_frame
    uint64_t start_ps = 0, arrival_ps = 0;
    uint64_t delivered_ps = 0;  // last byte leaves the output port = reaches the peer
    uint32_t len = 0;
    uint32_t displacement = 0;   // frames sent after this one delivered before it
    bool reordered = false;      // a frame sent earlier is still in flight
    bool ordered_class = false;  // took part in the OOO emulator (not an exempt ACK/NAK)
  };

  struct Counters {
    uint64_t frames_in = 0, bytes_in = 0;
    uint64_t frames_delivered = 0, bytes_delivered = 0;
    uint64_t dropped_random = 0, dropped_listed = 0;
    uint64_t acks = 0;          // ACK/NAK frames in
    uint64_t jittered = 0;      // frames given a random delay > 0
    uint64_t bound_pushed = 0;  // frames held back by the distance bound
    uint64_t reordered = 0;     // frames delivered before a frame sent earlier
    uint64_t max_displacement = 0;
    uint64_t output_waits = 0;    // frames delayed by the output port (delivered > arrival)
    uint64_t sender_overlap = 0;  // frames that started before the previous one had left
    uint64_t extra_ps_total = 0;  // sum of extra_ps over delivered-to-be frames
    uint64_t peak_in_flight = 0;
  };

  // dir: "ab" or "ba" (selects the drop_psns rules, names the RNG stream).
  // Validates p; throws oonic::Error (msg::kConfig).
  LinkCore(const NetworkParams& p, const std::string& dir, uint64_t seed);

  // A frame (Ethernet, no FCS) whose first byte goes on the sender's wire at
  // start_ps. A frame that is not dropped is queued for delivery with `tag`.
  Decision on_frame(uint64_t start_ps, const uint8_t* frame, size_t len, uint64_t tag = 0);

  // Delivery, in arrival order. next_delivery_ps() is when the head of the queue
  // leaves the output port given what was delivered so far; call deliver() once
  // that time has come (it pops the head). A frame entering later cannot come
  // before a head whose arrival has passed (arrival > the time it enters).
  bool pending() const { return !queue_.empty(); }
  size_t in_flight() const { return queue_.size(); }
  uint64_t next_arrival_ps() const { return queue_.top().arrival_ps; }
  uint64_t next_delivery_ps() const;
  Delivery deliver();

  const Counters& counters() const { return c_; }
  const NetworkParams& params() const { return p_; }
  const std::string& dir() const { return dir_; }
  uint64_t serialization_ps(size_t len) const { return p_.serialization_ps(len); }
  uint64_t propagation_ps() const { return prop_ps_; }
  uint64_t max_jitter_ps() const { return jitter_ps_; }

 private:
  struct Item {
    uint64_t arrival_ps, seq, ser_ps, start_ps, tag;
    uint64_t oseq;  // 1-based among ordered-class frames, 0 if exempt
    uint32_t len;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      return a.arrival_ps != b.arrival_ps ? a.arrival_ps > b.arrival_ps : a.seq > b.seq;
    }
  };
  bool listed_drop(uint32_t psn, uint32_t qpn);

  NetworkParams p_;
  std::string dir_;
  Rng rng_;
  uint64_t prop_ps_, jitter_ps_;
  std::vector<DropRule> rules_;                  // this direction's only
  std::unordered_map<uint64_t, uint32_t> used_;  // listed PSNs: frames dropped so far
  uint64_t input_free_ps_ = 0;
  // Distance bound: arrivals of the last d ordered-class frames (ring) and the
  // max arrival of all older ones.
  std::vector<uint64_t> ring_;
  size_t ring_pos_ = 0;
  uint64_t older_max_ps_ = 0;
  uint64_t next_oseq_ = 1;
  std::priority_queue<Item, std::vector<Item>, Later> queue_;
  uint64_t out_free_ps_ = 0;
  // Displacement: done_[i] says whether ordered-class frame base_oseq_ + i was
  // delivered; everything below base_oseq_ was.
  std::deque<uint8_t> done_;
  uint64_t base_oseq_ = 1;
  uint64_t ordered_delivered_ = 0;
  Counters c_;
};

}  // namespace oonic::network
