#include "platforms/network/link_core.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"

namespace oonic::network {

namespace {

// Uniform integer in [0, n) from one 64-bit draw (multiply-shift: the same on
// every standard library, unlike std::uniform_int_distribution).
__extension__ typedef unsigned __int128 U128;
uint64_t below(uint64_t draw, uint64_t n) {
  return static_cast<uint64_t>((static_cast<U128>(draw) * n) >> 64);
}

// Uniform double in [0, 1) from one 64-bit draw.
double unit(uint64_t draw) {
  return static_cast<double>(draw >> 11) * (1.0 / 9007199254740992.0);
}

const NetworkParams& checked(const NetworkParams& p, const std::string& dir) {
  p.validate();
  if (dir.empty()) throw Error(msg::kConfig, "a network link needs a direction name");
  return p;
}

}  // namespace

const char* to_string(DropReason r) {
  switch (r) {
    case DropReason::kNone:
      return "none";
    case DropReason::kRandom:
      return "random";
    case DropReason::kListed:
      return "listed";
  }
  return "?";
}

LinkCore::LinkCore(const NetworkParams& p, const std::string& dir, uint64_t seed)
    : p_(checked(p, dir)),
      dir_(dir),
      rng_(make_rng(seed, "network." + dir)),
      prop_ps_(p_.propagation_ps()),
      jitter_ps_(p_.max_jitter_ps()) {
  for (const DropRule& r : parse_drop_psns(p_.drop_psns))
    if (r.dir == dir_) rules_.push_back(r);
  ring_.reserve(p_.ooo_distance);
}

bool LinkCore::listed_drop(uint32_t psn, uint32_t qpn) {
  for (const DropRule& r : rules_) {
    if (psn < r.first || psn > r.last) continue;
    if (r.qpn >= 0 && static_cast<uint32_t>(r.qpn) != qpn) continue;
    uint64_t key = r.qpn >= 0 ? (uint64_t{1} << 63) | uint64_t{qpn} << 24 | psn : psn;
    uint32_t& n = used_[key];
    if (n >= r.times) return false;
    ++n;
    return true;
  }
  return false;
}

LinkCore::Decision LinkCore::on_frame(uint64_t start_ps, const uint8_t* frame, size_t len,
                                      uint64_t tag) {
  Decision d;
  d.seq = ++c_.frames_in;
  c_.bytes_in += len;
  d.ser_ps = p_.serialization_ps(len);
  if (start_ps < input_free_ps_) start_ps = input_free_ps_, ++c_.sender_overlap;
  input_free_ps_ = start_ps + d.ser_ps;
  d.start_ps = start_ps;

  wire::PacketView v;
  if (wire::parse_any(frame, len, v, /*check_icrc=*/false) == wire::ParseStatus::kOk) {
    d.roce = true;
    d.psn = v.bth.psn;
    d.ack = v.bth.opcode == wire::kAcknowledge || v.bth.opcode == wire::kOooNak;
  }
  if (d.ack) ++c_.acks;
  const uint64_t loss_draw = rng_(), delay_draw = rng_();

  if (d.roce && !rules_.empty() && listed_drop(d.psn, v.bth.dest_qp)) {
    d.drop = true, d.reason = DropReason::kListed, ++c_.dropped_listed;
    return d;
  }
  if (p_.loss_rate > 0 && (!d.ack || p_.loss_acks) && unit(loss_draw) < p_.loss_rate) {
    d.drop = true, d.reason = DropReason::kRandom, ++c_.dropped_random;
    return d;
  }

  const uint64_t base = start_ps + d.ser_ps + prop_ps_;
  uint64_t arrival = base;
  const bool ordered = !(d.ack && !p_.reorder_acks);
  const uint32_t dist = p_.ooo_distance;
  if (ordered && dist > 0) {
    uint64_t j = below(delay_draw, jitter_ps_ + 1);
    if (j) ++c_.jittered;
    // The frame d places back leaves the ring and joins the older ones.
    if (ring_.size() < dist) {
      ring_.push_back(0);
    } else {
      older_max_ps_ = std::max(older_max_ps_, ring_[ring_pos_]);
    }
    arrival = base + j;
    if (older_max_ps_ > arrival) arrival = older_max_ps_, ++c_.bound_pushed;
    ring_[ring_pos_] = arrival;
    ring_pos_ = ring_pos_ + 1 == dist ? 0 : ring_pos_ + 1;
  }
  d.arrival_ps = arrival;
  d.extra_ps = arrival - base;
  c_.extra_ps_total += d.extra_ps;

  Item it{arrival, d.seq, d.ser_ps, start_ps, tag, 0, static_cast<uint32_t>(len)};
  if (ordered) {
    it.oseq = next_oseq_++;
    done_.push_back(0);
  }
  queue_.push(it);
  c_.peak_in_flight = std::max<uint64_t>(c_.peak_in_flight, queue_.size());
  return d;
}

uint64_t LinkCore::next_delivery_ps() const {
  const Item& h = queue_.top();
  return std::max(h.arrival_ps, out_free_ps_ + h.ser_ps);
}

LinkCore::Delivery LinkCore::deliver() {
  Item it = queue_.top();
  queue_.pop();
  Delivery r;
  r.seq = it.seq, r.tag = it.tag, r.start_ps = it.start_ps, r.arrival_ps = it.arrival_ps;
  r.len = it.len;
  r.delivered_ps = std::max(it.arrival_ps, out_free_ps_ + it.ser_ps);
  if (r.delivered_ps > it.arrival_ps) ++c_.output_waits;
  out_free_ps_ = r.delivered_ps;
  ++c_.frames_delivered;
  c_.bytes_delivered += it.len;
  if (it.oseq) {
    r.ordered_class = true;
    const size_t k = static_cast<size_t>(it.oseq - base_oseq_);
    uint64_t earlier_in_flight = 0;
    for (size_t i = 0; i < k; ++i) earlier_in_flight += done_[i] == 0;
    // Ordered frames sent before this one: oseq - 1, of which all but the ones
    // still in flight were delivered; the rest of the delivered ones came later.
    uint64_t earlier_delivered = (it.oseq - 1) - earlier_in_flight;
    r.displacement = static_cast<uint32_t>(ordered_delivered_ - earlier_delivered);
    r.reordered = earlier_in_flight > 0;
    if (r.reordered) ++c_.reordered;
    c_.max_displacement = std::max<uint64_t>(c_.max_displacement, r.displacement);
    done_[k] = 1;
    ++ordered_delivered_;
    while (!done_.empty() && done_.front()) done_.pop_front(), ++base_oseq_;
  }
  return r;
}

}  // namespace oonic::network
