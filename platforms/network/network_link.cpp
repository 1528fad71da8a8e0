#include "platforms/network/network_link.h"

#include <algorithm>
#include <cmath>

#include "model/core/clock.h"
#include "model/wire/roce.h"
#include "platforms/network/frame_desc.h"

namespace oonic::network {

namespace {

uint64_t now_ps() {
  return ClockDomain::ps_of(sc_core::sc_time_stamp());
}

sc_core::sc_time ps_time(uint64_t ps) {
  return ClockDomain::from_ps(ps);
}

// Bucket width of the one-way delay histogram: 32 buckets span propagation,
// the largest OOO delay and two 4 KB-payload frames; 40 buckets in all.
double delay_bucket_ns(const LinkCore& c) {
  double span_ps = static_cast<double>(c.propagation_ps() + c.max_jitter_ps() +
                                       2 * c.serialization_ps(kReferenceFrameBytes));
  return std::max(1.0, std::ceil(span_ps / 1000.0 / 32.0));
}

}  // namespace

NetworkLink::NetworkLink(sc_core::sc_module_name name, const NetworkParams& p,
                         const std::string& dir, uint64_t seed, Stats& stats,
                         const std::string& stat_prefix)
    : sc_module(name),
      rx_socket("rx_socket"),
      tx_socket("tx_socket"),
      prefix_(stat_prefix.empty() ? "network." + dir : stat_prefix),
      core_(p, dir, seed),
      frames_in_(stats.counter(prefix_ + ".frames_in", "frame",
                               "frames the sending NIC put on this direction of the link")),
      bytes_in_(stats.counter(prefix_ + ".bytes", "byte",
                              "frame bytes (without FCS) put on this direction of the link")),
      frames_delivered_(stats.counter(prefix_ + ".frames_delivered", "frame",
                                      "frames delivered to the receiving NIC")),
      bytes_delivered_(stats.counter(prefix_ + ".bytes_delivered", "byte",
                                     "frame bytes (without FCS) delivered to the receiving NIC")),
      dropped_random_(stats.counter(prefix_ + ".dropped_random", "frame",
                                    "frames dropped at random (network.loss_rate)")),
      dropped_listed_(stats.counter(prefix_ + ".dropped_listed", "frame",
                                    "frames dropped by a network.drop_psns rule")),
      acks_(stats.counter(prefix_ + ".acks", "frame",
                          "ACK/NAK frames (BTH opcode 0x11 or 0x1F) put on the link")),
      jittered_(
          stats.counter(prefix_ + ".jittered", "frame", "frames given a random OOO delay > 0")),
      bound_pushed_(stats.counter(
          prefix_ + ".bound_pushed", "frame",
          "frames held back by the OOO distance bound (else overtaken by ooo_distance frames)")),
      reordered_(
          stats.counter(prefix_ + ".reordered", "frame",
                        "frames delivered while a frame sent before them was still in flight")),
      output_waits_(stats.counter(
          prefix_ + ".output_waits", "frame",
          "frames that waited for the receiving end's port (another frame still arriving)")),
      sender_overlap_(stats.counter(
          prefix_ + ".sender_overlap", "frame",
          "frames whose announced start overlapped the previous frame on the sender's wire "
          "(started when it ended; a sender bug if nonzero)")),
      error_responses_(stats.counter(prefix_ + ".error_responses", "frame",
                                     "deliveries the receiving NIC answered with a TLM error")),
      fault_lost_(stats.counter(prefix_ + ".fault_lost", "frame",
                                "frames lost to a fault: the link down, or a PSN rule (a "
                                "fabric's faults.file)")),
      delay_ns_(stats.histogram(prefix_ + ".delay_ns", "ns",
                                "one-way delay of delivered frames: first byte sent to last byte "
                                "received",
                                delay_bucket_ns(core_), 40)) {
  rx_socket.register_b_transport(this, &NetworkLink::b_transport);
  const std::string& n = prefix_;
  stats.derived(n + ".max_displacement", "frame",
                "most frames sent after a frame that were delivered before it (< ooo_distance; "
                "ACK/NAK frames exempt from the OOO delay are not counted)",
                [this] { return static_cast<double>(core_.counters().max_displacement); });
  stats.derived(n + ".peak_in_flight", "frame", "most frames on the link at once",
                [this] { return static_cast<double>(core_.counters().peak_in_flight); });
  stats.derived(n + ".mean_ooo_delay_ns", "ns",
                "mean OOO delay (random part + distance-bound push) of the frames not dropped",
                [this] {
                  const auto& c = core_.counters();
                  uint64_t kept = c.frames_in - c.dropped_random - c.dropped_listed;
                  return kept ? static_cast<double>(c.extra_ps_total) / 1000.0 / kept : 0.0;
                });
  stats.derived(n + ".max_ooo_delay_ns", "ns",
                "D: the largest random OOO delay (network.ooo_max_delay_ns or derived)",
                [this] { return static_cast<double>(core_.max_jitter_ps()) / 1000.0; });
  SC_METHOD(deliver_loop);  // a method, not a thread: no stack switch per wake
  sensitive << wake_;
  dont_initialize();
}

void NetworkLink::sync_stats() {
  const LinkCore::Counters& c = core_.counters();
  frames_in_.value = c.frames_in;
  bytes_in_.value = c.bytes_in;
  frames_delivered_.value = c.frames_delivered;
  bytes_delivered_.value = c.bytes_delivered;
  dropped_random_.value = c.dropped_random;
  dropped_listed_.value = c.dropped_listed;
  acks_.value = c.acks;
  jittered_.value = c.jittered;
  bound_pushed_.value = c.bound_pushed;
  reordered_.value = c.reordered;
  output_waits_.value = c.output_waits;
  sender_overlap_.value = c.sender_overlap;
}

void NetworkLink::schedule_wake(uint64_t now) {
  if (!core_.pending()) return;
  uint64_t t = core_.next_delivery_ps();
  // An earlier pending notification wins over a later one (IEEE 1666 5.10.8).
  wake_.notify(ps_time(t > now ? t - now : 0));
}

void NetworkLink::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_command() != tlm::TLM_WRITE_COMMAND) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const uint64_t now = now_ps();
  const uint64_t start = now + ClockDomain::ps_of(delay);
  const uint8_t* f = gp.get_data_ptr();
  const size_t len = gp.get_data_length();
  if (down_ || psn_rule_hit(f, len, psn_rules_)) {  // a fault loses it on the wire
    fault_lost_.inc();
    if (on_drop_) on_drop_(start, f, len, "fault");
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const uint32_t slot = slots_.put(f, len);
  LinkCore::Decision d = core_.on_frame(start, slots_[slot].data(), len, slot);
  if (d.drop) {
    slots_.release(slot);
    sync_stats();
    if (on_drop_) on_drop_(d.start_ps, f, len, to_string(d.reason));
  } else {
    if (describe_) slots_.desc(slot) = describe(slots_[slot]);
    sync_stats();
    schedule_wake(now);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void NetworkLink::deliver_loop() {  // a method: runs when wake_ fires
  ++wakes_;
  {
    while (core_.pending() && core_.next_delivery_ps() <= now_ps()) {
      LinkCore::Delivery r = core_.deliver();
      const uint32_t slot = static_cast<uint32_t>(r.tag);
      uint8_t* data = slots_[slot].data();
      last_delivery_ps_ = r.delivered_ps;
      delay_ns_.add(static_cast<double>(r.delivered_ps - r.start_ps) / 1000.0);
      sync_stats();
      if (on_deliver_) on_deliver_(r.delivered_ps, data, r.len);
      gp_.set_command(tlm::TLM_WRITE_COMMAND);
      gp_.set_address(0);
      gp_.set_data_ptr(data);
      gp_.set_data_length(r.len);
      gp_.set_streaming_width(r.len);
      gp_.set_byte_enable_ptr(nullptr);
      gp_.set_dmi_allowed(false);
      gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      meta_.record = static_cast<uint32_t>(r.seq);
      meta_.capture_ps = r.start_ps;
      gp_.set_extension(&meta_);
      donation_.buf = &slots_[slot];  // a switch may take the buffer instead of copying it
      donation_.desc = describe_ ? &slots_.desc(slot) : nullptr;  // and read this instead
      gp_.set_extension(&donation_);
      sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
      tx_socket->b_transport(gp_, zero);
      gp_.clear_extension(&meta_);
      gp_.clear_extension(&donation_);
      if (gp_.is_response_error()) error_responses_.inc();
      slots_.release(slot);
    }
    schedule_wake(now_ps());
  }
}

}  // namespace oonic::network
