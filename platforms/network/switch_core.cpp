#include "platforms/network/switch_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/core/error.h"
#include "model/wire/roce.h"

namespace oonic::network {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
}  // namespace

const char* to_string(SwitchDrop d) {
  switch (d) {
    case SwitchDrop::kNone:
      return "none";
    case SwitchDrop::kBufferFull:
      return "buffer_full";
    case SwitchDrop::kThreshold:
      return "threshold";
    case SwitchDrop::kHeadroom:
      return "headroom";
    case SwitchDrop::kCount:
      break;
  }
  return "?";
}

void SwitchParams::describe(ParamTable& t) {
  t.add("switch.model", &model,
        "the switch module every switch node is built as: a row of the switch factory "
        "(platforms/network/switch_node.h); pipeline is the built-in switch (its features "
        "are hooks, docs/DESIGN.md 'The switch pipeline')",
        {});
  t.add("switch.priorities", &priorities, "class",
        "output queues per port; priority 0 (ACK, NAK, CNP) is served first, strictly", 1, 8);
  t.add("switch.buffer_bytes", &buffer_bytes, "byte",
        "shared packet buffer of a switch (frames without FCS)", 1, 1e12);
  t.add("switch.admission", &admission,
        "lossy admission: dynamic = a queue may hold alpha x the free buffer (Choudhury-Hahne), "
        "static = at most static_limit_bytes a queue",
        {"dynamic", "static"});
  t.add("switch.alpha", &alpha, "ratio", "dynamic threshold factor", 1.0 / 64, 64);
  t.add("switch.static_limit_bytes", &static_limit_bytes, "byte",
        "per-queue limit when admission is static", 1, 1e12);
  t.add("switch.latency_ns", &latency_ns, "ns",
        "port-to-port latency: a frame can leave this long after its last byte arrived", 0, 1e9);
  t.add("switch.pfc", &pfc,
        "lossless: PFC per ingress port and priority instead of threshold drops");
  t.add("switch.xoff_bytes", &xoff_bytes, "byte",
        "PFC: bytes held from one ingress port and priority at which XOFF is sent upstream", 1,
        1e12);
  t.add("switch.xon_bytes", &xon_bytes, "byte", "PFC: XON is sent when they drain to this", 0,
        1e12);
  t.add("switch.pfc_threshold", &pfc_threshold,
        "PFC: static (XOFF at xoff_bytes, XON at xon_bytes) or dynamic (ns-3 HPCC's switch MMU: "
        "XOFF when an ingress port and priority holds >= T = (buffer - headroom pool - used) >> "
        "shift, XON when it holds pfc_resume_bytes less than T)",
        {"static", "dynamic"});
  t.add("switch.pfc_shift", &pfc_shift, "shift",
        "PFC dynamic: T is the free buffer >> this at a port of pfc_base_gbps; one less per "
        "doubling of the port's rate above it, at least 0 (ns-3 HPCC: 3, i.e. 1/8)",
        0, 30);
  t.add("switch.pfc_base_gbps", &pfc_base_gbps, "Gbit/s",
        "PFC dynamic: the port rate pfc_shift applies to (ns-3 HPCC: the host link rate)", 0.001,
        1e6);
  t.add("switch.pfc_resume_bytes", &pfc_resume_bytes, "byte",
        "PFC dynamic: XON when an XOFFed ingress holds this much less than T (ns-3 HPCC: 3 KB)", 0,
        1e12);
  t.add("switch.pfc_headroom_pool", &pfc_headroom_pool,
        "PFC dynamic: reserved (every port's headroom is set aside from the buffer before T is "
        "taken, as ns-3 HPCC) or shared (it is not; where the headroom exceeds the buffer, as a "
        "500 us long haul's does, reserved leaves T = 0)",
        {"reserved", "shared"});
  t.add("switch.headroom_auto", &headroom_auto,
        "PFC: each ingress port's headroom is at least 3 x its rate x its link's delay (ns-3 "
        "HPCC's rule: a long link needs room for what is in flight while the PAUSE travels)");
  t.add("switch.headroom_bytes", &headroom_bytes, "byte",
        "PFC: bytes admitted past xoff while the PAUSE takes effect; beyond, frames are dropped "
        "(headroom)",
        0, 1e12);
  t.add("switch.pause_quanta", &pause_quanta, "quantum",
        "PFC: quanta of an XOFF PAUSE frame (one quantum = 512 bit times at the port's rate)", 1,
        65535);
  t.add("switch.loss_rate", &loss_rate, "probability",
        "fault: each frame leaving any port of a switch is lost on the wire with this "
        "probability (with the link's own error rate, topology.txt's 5th column; counted as "
        "<switch>.lost)",
        0, 1);
  hooks.describe(t);
}

void SwitchParams::validate() const {
  hooks.validate();
  if (xon_bytes > xoff_bytes)
    throw Error(msg::kConfig, "switch.xon_bytes (" + std::to_string(xon_bytes) +
                                  ") must not exceed switch.xoff_bytes (" +
                                  std::to_string(xoff_bytes) + ")");
  if (priorities < 1 || priorities > 8)
    throw Error(msg::kConfig, "switch.priorities must be in [1, 8]");
}

SwitchCore::SwitchCore(const SwitchParams& p, std::vector<double> port_gbps,
                       const std::string& name)
    : p_(p),
      name_(name),
      gbps_(std::move(port_gbps)),
      latency_ps_(static_cast<uint64_t>(std::llround(p.latency_ns * 1000.0))),
      q_(gbps_.size() * p.priorities),
      in_(gbps_.size() * p.priorities, 0),
      hdrm_(gbps_.size() * p.priorities, 0),
      xoff_(gbps_.size() * p.priorities, 0),
      xoff_at_(gbps_.size() * p.priorities, 0),
      free_(gbps_.size(), 0) {
  p_.validate();
  for (size_t k = 0; k < gbps_.size(); ++k)
    if (!(gbps_[k] > 0))
      throw Error(msg::kConfig, name + ": port " + std::to_string(k) + " has no rate");
  pfc_dynamic_ = p_.pfc_threshold == "dynamic";
  // Modes as flags, once: nothing compares a string per frame.
  static_admission_ = p_.admission == "static";
  hdrm_reserved_ = p_.pfc_headroom_pool == "reserved";
  if (hdrm_reserved_) hdrm_pool_ = p_.headroom_bytes * gbps_.size();
  // ns-3 HPCC: shift 3 (1/8) at the host rate, one less per doubling above it.
  for (double g : gbps_) {
    uint32_t s = p_.pfc_shift;
    for (double r = g; r > p_.pfc_base_gbps && s > 0; r /= 2) --s;
    shift_.push_back(s);
  }
}

uint64_t SwitchCore::pfc_xoff(uint32_t port) const {
  if (!pfc_dynamic_) return p_.xoff_bytes;
  const uint64_t taken = hdrm_pool_ + used_;
  const uint64_t free = p_.buffer_bytes > taken ? p_.buffer_bytes - taken : 0;
  return free >> shift_[port];
}

uint64_t SwitchCore::serialization_ps(uint32_t port, uint32_t len) const {
  return static_cast<uint64_t>(
      std::ceil(static_cast<double>(wire::wire_bytes(len)) * 8000.0 / gbps_[port]));
}

SwitchDrop SwitchCore::admission(uint32_t out_port, const Frame& f) const {
  const Queue& q = q_[idx(out_port, f.prio)];
  const uint64_t b = f.len;
  const size_t ii = idx(f.in_port, f.prio);
  if (used_ + b > p_.buffer_bytes) return SwitchDrop::kBufferFull;
  if (p_.pfc) {
    const uint64_t room = headroom_.empty() ? p_.headroom_bytes : headroom_[f.in_port];
    if (pfc_dynamic_) {
      // ns-3 HPCC: dropped only when the headroom is full and the shared part past T.
      if (hdrm_[ii] + b > room && in_[ii] - hdrm_[ii] + b > pfc_xoff(f.in_port))
        return SwitchDrop::kHeadroom;
    } else if (in_[ii] + b > p_.xoff_bytes + room) {
      return SwitchDrop::kHeadroom;
    }
  } else if (f.prio != 0) {
    const double limit = static_admission_
                             ? static_cast<double>(p_.static_limit_bytes)
                             : p_.alpha * static_cast<double>(p_.buffer_bytes - used_);
    if (static_cast<double>(q.bytes + b) > limit) return SwitchDrop::kThreshold;
  }
  return SwitchDrop::kNone;
}

void SwitchCore::check(uint32_t out_port, const Frame& f) const {
  if (out_port >= ports() || f.in_port >= ports() || f.prio >= p_.priorities)
    throw Error(msg::kModel, name_ + ": frame for port " + std::to_string(out_port) + " priority " +
                                 std::to_string(f.prio) + " from port " +
                                 std::to_string(f.in_port) + " does not exist");
}

SwitchCore::Admit SwitchCore::enqueue(uint64_t now_ps, uint32_t out_port, const Frame& f) {
  Admit a;
  ++c_.frames_in;
  check(out_port, f);
  Queue& q = q_[idx(out_port, f.prio)];
  const uint64_t b = f.len;
  const size_t ii = idx(f.in_port, f.prio);
  const SwitchDrop drop = admission(out_port, f);
  if (drop != SwitchDrop::kNone) {
    a.drop = drop;
    ++c_.drops[static_cast<size_t>(drop)];
    return a;
  }
  a.accepted = true;
  // ns-3 HPCC takes T before the frame counts (where its bytes go), then after (pause).
  const uint64_t t_before = pfc_dynamic_ ? pfc_xoff(f.in_port) : 0;
  a.queue_bytes = q.bytes;
  q.items.push_back({f, now_ps + latency_ps_});
  q.bytes += b;
  used_ += b;
  c_.peak_used_bytes = std::max(c_.peak_used_bytes, used_);
  bool pause = false;
  if (p_.pfc && pfc_dynamic_) {
    // The bytes past T go to the port's headroom; any there, or T reached, pauses.
    if (in_[ii] - hdrm_[ii] + b > t_before) hdrm_[ii] += b;
    in_[ii] += b;
    pause = hdrm_[ii] > 0 || in_[ii] - hdrm_[ii] >= pfc_xoff(f.in_port);
  } else {
    in_[ii] += b;
    pause = in_[ii] >= p_.xoff_bytes;
  }
  if (p_.pfc && !xoff_[ii] && pause) {
    xoff_[ii] = 1;
    xoff_at_[ii] = now_ps;
    ++c_.xoff_sent;
    a.pause = Pause{f.in_port, f.prio, p_.pause_quanta};
  }
  return a;
}

std::optional<SwitchCore::Frame> SwitchCore::take_newest(uint32_t port, uint8_t prio) {
  if (p_.pfc) throw Error(msg::kModel, name_ + ": take_newest with PFC on");
  Queue& q = q_[idx(port, prio)];
  if (q.items.empty()) return std::nullopt;
  const Frame f = q.items.back().f;
  q.items.pop_back();
  q.bytes -= f.len;
  used_ -= f.len;
  in_[idx(f.in_port, prio)] -= f.len;
  return f;
}

std::optional<SwitchCore::Frame> SwitchCore::newest(uint32_t port, uint8_t prio) const {
  const Queue& q = q_[idx(port, prio)];
  if (q.items.empty()) return std::nullopt;
  return q.items.back().f;
}

uint64_t SwitchCore::next_start_ps(uint32_t port) const {
  uint64_t best = kNever;
  for (uint8_t c = 0; c < p_.priorities; ++c) {
    const Queue& q = q_[idx(port, c)];
    if (q.items.empty()) continue;
    best = std::min(best, std::max({free_[port], q.items.front().eligible_ps, q.paused_until_ps}));
  }
  return best;
}

std::optional<SwitchCore::Departure> SwitchCore::start_next(uint32_t port, uint64_t now_ps) {
  if (free_[port] > now_ps) return std::nullopt;
  for (uint8_t c = 0; c < p_.priorities; ++c) {
    Queue& q = q_[idx(port, c)];
    if (q.items.empty() || q.items.front().eligible_ps > now_ps || q.paused_until_ps > now_ps)
      continue;
    Item it = q.items.front();
    q.items.pop_front();
    const uint64_t b = it.f.len;
    q.bytes -= b;
    used_ -= b;
    Departure d;
    d.frame = it.f;
    d.port = port;
    d.start_ps = now_ps;
    d.end_ps = now_ps + serialization_ps(port, it.f.len);
    free_[port] = d.end_ps;
    d.queue_bytes = q.bytes;
    const size_t ii = idx(it.f.in_port, c);
    in_[ii] -= b;
    bool resume;
    if (pfc_dynamic_) {
      // ns-3 HPCC: the headroom drains first; XON once it is empty and the shared part is
      // empty or pfc_resume_bytes below T.
      hdrm_[ii] -= std::min(hdrm_[ii], b);
      const uint64_t shared = in_[ii] - std::min(in_[ii], hdrm_[ii]);
      resume =
          hdrm_[ii] == 0 && (shared == 0 || shared + p_.pfc_resume_bytes <= pfc_xoff(it.f.in_port));
    } else {
      resume = in_[ii] <= p_.xon_bytes;
    }
    if (xoff_[ii] && resume) {
      xoff_[ii] = 0;
      ++c_.xon_sent;
      d.pause = Pause{it.f.in_port, c, 0};
    }
    ++c_.frames_out;
    c_.bytes_out += b;
    return d;
  }
  return std::nullopt;
}

uint64_t SwitchCore::refresh_ps(uint32_t port) const {
  // Half the pause time, in the upstream link's bit times.
  return static_cast<uint64_t>(std::ceil(256.0 * 1000.0 / gbps_[port])) * p_.pause_quanta;
}

uint64_t SwitchCore::refresh_due_ps(uint32_t port, uint8_t prio) const {
  const size_t ii = idx(port, prio);
  return xoff_[ii] ? xoff_at_[ii] + refresh_ps(port) : kNever;
}

std::optional<SwitchCore::Pause> SwitchCore::refresh(uint32_t port, uint8_t prio, uint64_t now_ps) {
  const size_t ii = idx(port, prio);
  if (!xoff_[ii] || now_ps < xoff_at_[ii] + refresh_ps(port)) return std::nullopt;
  xoff_at_[ii] = now_ps;
  ++c_.xoff_sent;
  return Pause{port, prio, p_.pause_quanta};
}

std::pair<uint64_t, uint64_t> SwitchCore::send_control(uint32_t port, uint32_t len,
                                                       uint64_t now_ps) {
  const uint64_t start = std::max(now_ps, free_[port]);
  free_[port] = start + serialization_ps(port, len);
  return {start, free_[port]};
}

void SwitchCore::pause(uint32_t port, uint8_t prio, uint32_t quanta, uint64_t now_ps) {
  if (port >= ports() || prio >= p_.priorities) return;  // not ours: ignored, as a MAC would
  ++c_.pauses_received;
  // One quantum is 512 bit times at the port's rate.
  const uint64_t q_ps = static_cast<uint64_t>(std::ceil(512.0 * 1000.0 / gbps_[port]));
  q_[idx(port, prio)].paused_until_ps = now_ps + uint64_t{quanta} * q_ps;
}

}  // namespace oonic::network
