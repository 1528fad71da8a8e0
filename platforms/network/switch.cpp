#include "platforms/network/switch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "model/core/clock.h"
#include "model/core/error.h"
#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"
#include "platforms/network/frame_desc.h"
#include "platforms/network/frame_ecn.h"
#include "platforms/network/frame_keys.h"

namespace oonic::network {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

uint64_t now_ps() {
  return ClockDomain::ps_of(sc_core::sc_time_stamp());
}

std::vector<double> port_rates(const Topology& t, uint32_t node) {
  std::vector<double> g;
  for (const auto& p : t.ports[node]) g.push_back(t.links[p.link].gbps);
  return g;
}

const SwitchParams& checked(const SwitchParams& p) {
  if (p.pfc && p.priorities < 2)
    throw Error(msg::kConfig,
                "switch.pfc needs switch.priorities >= 2 (control at 0, data at 1, as NIC MACs "
                "class their frames)");
  return p;
}

}  // namespace

Switch::Switch(sc_core::sc_module_name name, const SwitchParams& sp, const RoutingParams& rp,
               const Topology& t, const Routes& routes, uint32_t node, const AddressMap& hosts,
               uint64_t seed, Stats& stats)
    : Switch(name, SwitchBuild::of(sp, rp, t, routes, node, hosts, seed, stats)) {}

Switch::Switch(sc_core::sc_module_name name, const SwitchBuild& b)
    : sc_module(name),
      routes_(*b.routes),
      node_(b.node),
      hosts_(*b.hosts),
      core_(checked(*b.sp), port_rates(*b.topology, b.node), this->name()),
      select_(*b.rp, b.seed, this->name()),
      wire_(b.topology->ports[b.node].size()),
      start_at_(b.topology->ports[b.node].size(), kNone),
      unroutable_(b.stats->counter(std::string(this->name()) + ".unroutable", "frame",
                                   "frames to no known host, or not IP (dropped)")),
      port_frames_(b.topology->ports[b.node].size()),
      port_bytes_(b.topology->ports[b.node].size()),
      stats_(*b.stats) {
  const std::string n = this->name();
  const Topology& t = *b.topology;
  const SwitchParams& sp = *b.sp;
  Stats& stats = *b.stats;
  for (const auto& [addr, host] : hosts_)
    if (addr.first == 4)
      v4_hosts_[uint32_t{addr.second[0]} << 24 | uint32_t{addr.second[1]} << 16 |
                uint32_t{addr.second[2]} << 8 | addr.second[3]] = host;
  for (uint32_t k = 0; k < t.ports[node_].size(); ++k) {
    rx_socket.push_back(std::make_unique<Target>(("rx_socket_" + std::to_string(k)).c_str()));
    tx_socket.push_back(std::make_unique<Initiator>(("tx_socket_" + std::to_string(k)).c_str()));
    rx_socket.back()->register_b_transport(this, &Switch::b_transport, static_cast<int>(k));
    const Topology::Link& l = t.links[t.ports[node_][k].link];
    prop_ps_.push_back(static_cast<uint64_t>(std::llround(l.delay_ns * 1000.0)));
    if (sp.headroom_auto)
      core_.set_headroom(k,
                         std::max<uint64_t>(sp.headroom_bytes,
                                            static_cast<uint64_t>(3.0 * l.gbps * l.delay_ns / 8)));
  }
  auto c = [this](auto get) { return [this, get] { return static_cast<double>(get(core_)); }; };
  stats.derived(n + ".frames_in", "frame", "frames that arrived (any port)",
                c([](const SwitchCore& s) { return s.counters().frames_in; }));
  stats.derived(n + ".frames_out", "frame", "frames sent (any port)",
                c([](const SwitchCore& s) { return s.counters().frames_out; }));
  stats.derived(n + ".bytes_out", "byte", "frame bytes sent (without FCS)",
                c([](const SwitchCore& s) { return s.counters().bytes_out; }));
  stats.derived(n + ".peak_buffer_bytes", "byte", "most bytes in the shared buffer at once",
                c([](const SwitchCore& s) { return s.counters().peak_used_bytes; }));
  for (size_t d = 1; d < static_cast<size_t>(SwitchDrop::kCount); ++d)
    stats.derived(n + ".drops." + to_string(static_cast<SwitchDrop>(d)), "frame",
                  "frames dropped for this reason (docs: the switch core)",
                  [this, d] { return static_cast<double>(core_.counters().drops[d]); });
  stats.derived(n + ".pfc.xoff_sent", "frame", "PAUSE frames (XOFF, and refreshes) sent upstream",
                c([](const SwitchCore& s) { return s.counters().xoff_sent; }));
  stats.derived(n + ".pfc.xon_sent", "frame", "PAUSE frames with quanta 0 (XON) sent upstream",
                c([](const SwitchCore& s) { return s.counters().xon_sent; }));
  stats.derived(n + ".pfc.pauses_received", "frame",
                "PAUSE frames received from downstream devices (per enabled priority)",
                c([](const SwitchCore& s) { return s.counters().pauses_received; }));
  for (uint8_t i = 0; i < 6; ++i) mac_[i] = 0;
  mac_[0] = 0x02;  // locally administered: 02:00:00:00:<node>
  mac_[4] = static_cast<uint8_t>(node_ >> 8), mac_[5] = static_cast<uint8_t>(node_);
  // The hooks that are on for this switch, in registry order; each stage calls only
  // those that implement it.
  SwitchBuild hb = b;
  hb.name = n;
  for (const SwitchHookRow& row : switch_hook_registry()) {
    std::unique_ptr<SwitchHook> h = row.make(*this, hb);
    if (!h) continue;
    const uint32_t s = h->stages();
    SwitchHook* p = h.get();
    hook_index_[p] = static_cast<uint32_t>(hooks_.size());
    hooks_.push_back(std::move(h));
    if (s & SwitchHook::kIngress) ingress_.push_back(p);
    if (s & SwitchHook::kAdmission) admission_.push_back(p);
    if (s & SwitchHook::kBuffered) buffered_.push_back(p);
    if (s & SwitchHook::kMark) mark_.push_back(p);
    if (s & SwitchHook::kDequeued) dequeued_.push_back(p);
    if (s & SwitchHook::kEgress) egress_.push_back(p);
    if (s & SwitchHook::kFault) fault_.push_back(p);
    if (s & (SwitchHook::kAdmission | SwitchHook::kBuffered | SwitchHook::kMark))
      parse_view_ = parse_view_ || p->reads_view();
  }
  SC_METHOD(run);  // a method, not a thread: no stack switch per wake
  sensitive << wake_ << arrived_;
  dont_initialize();
}

void Switch::apply_fault(const PortFault& f) {
  if (f.port >= core_.ports())
    throw Error(msg::kConfig, std::string(name()) + ": a fault on port " + std::to_string(f.port) +
                                  " of " + std::to_string(core_.ports()));
  if (f.kind == PortFault::Kind::kRate) {
    core_.set_rate(f.port, f.value);
    return;
  }
  bool applied = false;
  for (SwitchHook* h : fault_) applied = h->fault(f) || applied;
  static const char* const kKinds[] = {"rate", "down", "up", "loss", "ecn", "drop rule"};
  if (!applied)
    throw Error(msg::kConfig, std::string(name()) + ": no hook of this switch takes a '" +
                                  kKinds[static_cast<int>(f.kind)] + "' fault (port " +
                                  std::to_string(f.port) + ")");
}

SwitchTotals Switch::totals() const {
  const std::string n = name();
  SwitchTotals s;
  const SwitchCore::Counters& c = core_.counters();
  for (size_t d = 1; d < static_cast<size_t>(SwitchDrop::kCount); ++d) s.drops += c.drops[d];
  s.xoff_sent = c.xoff_sent, s.xon_sent = c.xon_sent;
  s.marked = static_cast<uint64_t>(stats_.scalar_value(n + ".marked"));
  s.lost = stats_.counter_value(n + ".lost");
  s.fault_lost = stats_.counter_value(n + ".fault_lost");
  return s;
}

std::vector<PortHold> Switch::holds(uint64_t now) const {
  std::vector<PortHold> out;
  for (uint32_t k = 0; k < core_.ports(); ++k)
    for (uint8_t c = 0; c < core_.priorities(); ++c) {
      PortHold h;
      h.port = k, h.prio = c;
      if (core_.paused_until_ps(k, c) > now) h.paused_until_ps = core_.paused_until_ps(k, c);
      h.queued_bytes = core_.queue_bytes(k, c);
      h.xoff = core_.xoff(k, c);
      h.ingress_bytes = core_.ingress_bytes(k, c);
      if (h.paused_until_ps || h.xoff) out.push_back(h);
    }
  return out;
}

std::optional<uint32_t> Switch::host_of(uint8_t ip_version, const uint8_t* ip) const {
  if (ip_version == 4) {  // a hash lookup: once per frame and hop
    auto h = v4_hosts_.find(uint32_t{ip[0]} << 24 | uint32_t{ip[1]} << 16 | uint32_t{ip[2]} << 8 |
                            ip[3]);
    if (h == v4_hosts_.end()) return std::nullopt;
    return h->second;
  }
  std::array<uint8_t, 16> a{};
  std::copy(ip, ip + 16, a.begin());
  auto h = hosts_.find({ip_version, a});
  if (h == hosts_.end()) return std::nullopt;
  return h->second;
}

std::optional<uint32_t> Switch::port_to_host(const FlowKey& key, uint32_t host, uint64_t now) {
  const std::vector<uint32_t>& ports = routes_.next_ports(node_, host);
  if (ports.empty()) return std::nullopt;
  return select_.choose(key, host, ports, now, [this](uint32_t p) { return core_.port_bytes(p); });
}

uint64_t Switch::send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now) {
  const uint32_t slot = slots_.put(f, len);
  slots_.desc(slot) = describe(slots_[slot]);
  const auto [start, end] = core_.send_control(port, len, now);
  if (lost_on_wire(port, slot, 0, true, now)) {
    slots_.release(slot);
  } else {
    wire_[port].push_back({end + prop_ps_[port], slot});
    schedule(end + prop_ps_[port], EventKind::kArrive, port);
  }
  return start;
}

bool Switch::lost_on_wire(uint32_t port, uint32_t slot, uint8_t prio, bool control, uint64_t now) {
  for (SwitchHook* h : egress_)
    if (h->egress(port, slot, prio, control, now)) {
      if (on_lost_) on_lost_(port, now, slots_[slot].data(), slots_[slot].size());
      return true;
    }
  return false;
}

void Switch::book(SwitchHook* hook, uint64_t t, uint32_t arg) {
  schedule(t, EventKind::kHook, hook_index_.at(hook), arg);
}

void Switch::schedule(uint64_t t, EventKind kind, uint32_t port, uint32_t arg) {
  events_.push({t, seq_++, kind, port, arg});
  if (!running_) arm(t);  // step() arms for its earliest event when it ends
}

void Switch::arm(uint64_t t) {
  if (t >= armed_) return;  // a wake at or before t is pending
  armed_ = t;
  const uint64_t now = now_ps();
  wake_.notify(ClockDomain::from_ps(t > now ? t - now : 0));
}

void Switch::try_start(uint32_t port, uint64_t now) {
  const uint64_t t = core_.next_start_ps(port);
  if (t == kNone || t >= start_at_[port]) return;  // nothing, or an earlier start is pending
  start_at_[port] = std::max(t, now);
  schedule(start_at_[port], EventKind::kStart, port);
}

void Switch::b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_command() != tlm::TLM_WRITE_COMMAND) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t>* given = FrameDonation::of(gp);
  const uint32_t slot =
      given ? slots_.adopt(*given) : slots_.put(gp.get_data_ptr(), gp.get_data_length());
  // The sender's descriptor when it gave one (the bytes stay untouched), else parsed.
  const FrameDonation* don = given ? gp.get_extension<FrameDonation>() : nullptr;
  slots_.desc(slot) = don && don->desc && don->desc->valid ? *don->desc : describe(slots_[slot]);
  if (delay != sc_core::SC_ZERO_TIME) {  // arrives later than now: taken at once, as then
    admit(static_cast<uint32_t>(port), slot, now_ps() + ClockDomain::ps_of(delay));
    return;
  }
  // Frames arriving at one instant are taken together, in port order, once every
  // sender of that instant has run: the kernel's order among them does not matter.
  arriving_.push_back({static_cast<uint32_t>(port), slot});
  if (arriving_.size() == 1) {
    arrived_delta_ = sc_core::sc_delta_count();
    arrived_.notify(sc_core::SC_ZERO_TIME);
  }
}

// Arrival: ingress hooks, route, admission hooks, then the buffer (enqueue).
void Switch::admit(uint32_t port, uint32_t slot, uint64_t now) {
  for (SwitchHook* h : ingress_)
    if (h->ingress(port, slot, now)) return;
  FrameDesc& d = fresh(slot);
  const uint32_t len = static_cast<uint32_t>(slots_[slot].size());
  auto unroutable = [&] {
    unroutable_.inc();
    slots_.release(slot);
  };
  if (!d.ip_version) return unroutable();
  if (d.dst_map != &hosts_) {  // a lookup once per frame, not per hop
    const std::optional<uint32_t> h = host_of(d.ip_version, d.dst_ip.data());
    if (!h) return unroutable();
    d.dst_map = &hosts_, d.dst_host = *h;
  }
  const std::optional<uint32_t> dst_host = d.dst_host;
  FlowKey key{d.src_key, d.dst_key, d.sport, d.dport, 17};
  const std::optional<uint32_t> out = port_to_host(key, *dst_host, now);
  if (!out) return unroutable();
  PipeFrame f;
  f.slot = slot;
  f.out_port = *out;
  wire::PacketView v;
  if (parse_view_) {  // a hook reads the parsed headers (THEMIS)
    wire::parse_any(slots_[slot].data(), len, v, false);
    f.view = &v;
  }
  f.roce = d.roce;
  f.fr.len = len;
  f.fr.prio = d.roce && control_opcode(d.opcode) ? 0 : 1;
  f.fr.ect = (d.tos & 3) == 1 || (d.tos & 3) == 2;
  f.fr.in_port = port;
  f.fr.tag = slot;
  for (SwitchHook* h : admission_)
    if (h->admission(f, now)) return;
  enqueue(f, now);
}

// The buffer, buffered hooks, mark hooks at enqueue.
void Switch::enqueue(PipeFrame& f, uint64_t now) {
  const SwitchCore::Admit a = core_.enqueue(now, f.out_port, f.fr);
  for (SwitchHook* h : buffered_) h->buffered(f, a, now);
  if (!a.accepted) {
    slots_.release(f.slot);
    return;
  }
  f.ce = false;
  for (SwitchHook* h : mark_) h->mark(f, MarkPoint::kEnqueue, a.queue_bytes, now);
  if (f.ce) {
    set_frame_ecn(slots_[f.slot].data(), f.fr.len, 3);
    slots_.desc(f.slot).valid = false;
  }
  fresh(f.slot);  // described while its bytes are warm
  if (on_queue_) on_queue_(now, f.out_port, core_.port_bytes(f.out_port));
  try_start(f.out_port, now);
}

void Switch::run() {  // wake_ (an event is due) or arrived_ (frames came in)
  ++wakes_;
  step();
}

void Switch::step() {
  const uint64_t now = now_ps();
  if (armed_ <= now) armed_ = kNone;  // that wake is this one
  running_ = true;
  for (;;) {
    run_due(now);
    // Then the frames that arrived this instant, in the delta after their senders ran
    // (they all deliver in the instant's first delta: links and switches wake timed).
    if (arriving_.empty() || sc_core::sc_delta_count() == arrived_delta_) break;
    batch_.swap(arriving_);
    std::stable_sort(batch_.begin(), batch_.end(),
                     [](const Arriving& x, const Arriving& y) { return x.port < y.port; });
    for (const Arriving& x : batch_) admit(x.port, x.slot, now);
    batch_.clear();
  }
  running_ = false;
  if (!events_.empty()) arm(events_.top().t);
}

void Switch::run_due(uint64_t now) {
  while (!events_.empty() && events_.top().t <= now) {
    const Event e = events_.top();
    events_.pop();
    switch (e.kind) {
      case EventKind::kHook:
        hooks_[e.port]->timer(e.arg, e.t, now);
        break;
      case EventKind::kStart:
        if (start_at_[e.port] != e.t) break;  // superseded by an earlier start
        start_at_[e.port] = kNone;
        start(e.port, now);
        try_start(e.port, now);
        break;
      case EventKind::kArrive:
        deliver(e.port, now);
        break;
    }
  }
}

// Departure: the buffer's next frame, mark hooks at dequeue, dequeued hooks, egress
// hooks, then the wire.
void Switch::start(uint32_t port, uint64_t now) {
  std::optional<SwitchCore::Departure> d = core_.start_next(port, now);
  if (!d) return;
  PipeFrame f;
  f.slot = static_cast<uint32_t>(d->frame.tag);
  f.out_port = port;
  f.fr = d->frame;
  for (SwitchHook* h : mark_) h->mark(f, MarkPoint::kDequeue, d->queue_bytes, now);
  std::vector<uint8_t>& b = slots_[f.slot];
  if (f.ce) {
    set_frame_ecn(b.data(), b.size(), 3);
    slots_.desc(f.slot).valid = false;
  }
  ++port_frames_[port];
  port_bytes_[port] += b.size();
  if (on_queue_) on_queue_(now, port, core_.port_bytes(port));
  for (SwitchHook* h : dequeued_) h->dequeued(f, *d, now);
  if (lost_on_wire(port, f.slot, f.fr.prio, false, now)) {
    slots_.release(f.slot);
    return;
  }
  fresh(f.slot);  // described while its bytes are warm
  wire_[port].push_back({d->end_ps + prop_ps_[port], f.slot});
  schedule(d->end_ps + prop_ps_[port], EventKind::kArrive, port);
}

FrameDesc& Switch::fresh(uint32_t slot) {
  FrameDesc& d = slots_.desc(slot);
  if (!d.valid) d = describe(slots_[slot]);
  return d;
}

void Switch::deliver(uint32_t port, uint64_t now) {
  const InFlight fl = wire_[port].front();
  wire_[port].pop_front();
  std::vector<uint8_t>& b = slots_[fl.slot];
  if (on_deliver_) on_deliver_(port, now, b.data(), b.size());
  gp_.set_command(tlm::TLM_WRITE_COMMAND);
  gp_.set_address(0);
  gp_.set_data_ptr(b.data());
  gp_.set_data_length(static_cast<unsigned>(b.size()));
  gp_.set_streaming_width(static_cast<unsigned>(b.size()));
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  donation_.buf = &b;  // the next switch may take the buffer instead of copying it
  donation_.desc = &slots_.desc(fl.slot);  // and read this instead of its bytes
  gp_.set_extension(&donation_);
  (*tx_socket[port])->b_transport(gp_, d);
  gp_.clear_extension(&donation_);
  slots_.release(fl.slot);
}

}  // namespace oonic::network
