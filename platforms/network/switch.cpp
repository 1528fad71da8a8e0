#include "platforms/network/switch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "model/core/clock.h"
#include "model/core/error.h"
#include "model/wire/pfc.h"
#include "model/wire/roce.h"

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

// BTH byte 8 bit 0 of a CNP: THEMIS's reaction point already reacted to it.
constexpr uint8_t kThemisCnpBit = 0x01;

bool data_opcode(uint8_t op) {
  const wire::OpcodeInfo* i = wire::opcode_info(op);
  return i && (i->flags & wire::kHasPayload) && (i->flags & wire::kIsRequest);
}

bool control_opcode(uint8_t op) {
  return op == wire::kAcknowledge || op == wire::kOooNak || op == wire::kSchemeFeedback ||
         op == wire::kCnp;
}

uint64_t ip_key(const wire::PacketView& v, bool dst) {
  const auto& ip = dst ? v.dst_ip : v.src_ip;
  if (v.ip_version == 4)
    return uint64_t{ip[0]} << 24 | uint64_t{ip[1]} << 16 | uint64_t{ip[2]} << 8 | ip[3];
  return fnv1a(std::string_view(reinterpret_cast<const char*>(ip.data()), ip.size()));
}

// The THEMIS bit on a CNP (BTH byte 8 bit 0); the ICRC covers it and is rewritten.
void set_themis_bit(uint8_t* f, size_t len, const wire::PacketView& v) {
  const size_t l3 = v.has_vlan ? 18 : 14;
  const size_t bth = l3 + (v.ip_version == 6 ? 40 : 20) + 8;
  if (len < bth + 12 + 4) return;
  f[bth + 8] |= kThemisCnpBit;
  const size_t end = std::min<size_t>(len, v.frame_len);
  const uint32_t icrc = wire::compute_icrc(f, end, l3);
  for (int i = 0; i < 4; ++i) f[end - 4 + i] = static_cast<uint8_t>(icrc >> (8 * i));
}

// The ECN bits of an Ethernet frame's IP header (optional 802.1Q tag) set to ecn; the
// IPv4 checksum is rewritten (the ICRC masks the ECN bits). False without an IP header.
bool set_ecn(uint8_t* f, size_t len, uint8_t ecn) {
  size_t l3 = 14;
  if (len < 14) return false;
  uint16_t type = uint16_t(f[12] << 8 | f[13]);
  if (type == 0x8100 && len >= 18) type = uint16_t(f[16] << 8 | f[17]), l3 = 18;
  if (type == 0x0800 && len >= l3 + 20) {
    f[l3 + 1] = static_cast<uint8_t>((f[l3 + 1] & 0xFC) | ecn);
    f[l3 + 10] = f[l3 + 11] = 0;
    uint32_t sum = 0;
    const size_t ihl = size_t{f[l3] & 0x0Fu} * 4;
    for (size_t i = 0; i + 1 < ihl && l3 + i + 1 < len; i += 2)
      sum += uint32_t(f[l3 + i] << 8 | f[l3 + i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    f[l3 + 10] = static_cast<uint8_t>(c >> 8), f[l3 + 11] = static_cast<uint8_t>(c);
    return true;
  }
  if (type == 0x86DD && len >= l3 + 40) {  // traffic class: bits 4..11 of the first word
    f[l3 + 1] = static_cast<uint8_t>((f[l3 + 1] & 0xCF) | ecn << 4);
    return true;
  }
  return false;
}
// CE (RED's mark).
bool mark_ce(uint8_t* f, size_t len) {
  return set_ecn(f, len, 3);
}
// Back to ECT(0): THEMIS's np takes the mark, later hops may mark again.
bool clear_ce(uint8_t* f, size_t len) {
  return set_ecn(f, len, 2);
}

}  // namespace

Switch::Switch(sc_core::sc_module_name name, const SwitchParams& sp, const RoutingParams& rp,
               const Topology& t, const Routes& routes, uint32_t node, const AddressMap& hosts,
               uint64_t seed, Stats& stats)
    : sc_module(name),
      routes_(routes),
      node_(node),
      hosts_(hosts),
      core_(checked(sp), port_rates(t, node), seed, this->name()),
      select_(rp, seed, this->name()),
      wire_(t.ports[node].size()),
      start_at_(t.ports[node].size(), kNone),
      unroutable_(stats.counter(std::string(this->name()) + ".unroutable", "frame",
                                "frames to no known host, or not IP (dropped)")),
      lost_(stats.counter(std::string(this->name()) + ".lost", "frame",
                          "frames lost on an egress wire (switch.loss_rate, the link's error "
                          "rate)")),
      lost_data_(stats.counter(std::string(this->name()) + ".lost_data", "frame",
                               "of .lost, frames of the data class (PFC class 1: data, READ "
                               "requests and responses); the rest are ACK/NAK/CNP/feedback")),
      loss_rng_(make_rng(seed, std::string(this->name()) + ".loss")),
      down_(t.ports[node].size(), 0),
      refresh_at_(t.ports[node].size() * 8, kNone),
      psn_rules_(t.ports[node].size()),
      fault_lost_(stats.counter(std::string(this->name()) + ".fault_lost", "frame",
                                "frames lost on an egress wire to a fault: the link down, or a "
                                "PSN rule (faults.file)")),
      port_frames_(t.ports[node].size()),
      port_bytes_(t.ports[node].size()) {
  const std::string n = this->name();
  for (const auto& [addr, host] : hosts)
    if (addr.first == 4)
      v4_hosts_[uint32_t{addr.second[0]} << 24 | uint32_t{addr.second[1]} << 16 |
                uint32_t{addr.second[2]} << 8 | addr.second[3]] = host;
  for (uint32_t k = 0; k < t.ports[node].size(); ++k) {
    rx_socket.push_back(std::make_unique<Target>(("rx_socket_" + std::to_string(k)).c_str()));
    tx_socket.push_back(std::make_unique<Initiator>(("tx_socket_" + std::to_string(k)).c_str()));
    rx_socket.back()->register_b_transport(this, &Switch::b_transport, static_cast<int>(k));
    const Topology::Link& l = t.links[t.ports[node][k].link];
    prop_ps_.push_back(static_cast<uint64_t>(std::llround(l.delay_ns * 1000.0)));
    if (sp.headroom_auto)
      core_.set_headroom(k,
                         std::max<uint64_t>(sp.headroom_bytes,
                                            static_cast<uint64_t>(3.0 * l.gbps * l.delay_ns / 8)));
    loss_.push_back(1 - (1 - sp.loss_rate) * (1 - l.error_rate));
  }
  auto c = [this](auto get) { return [this, get] { return static_cast<double>(get(core_)); }; };
  stats.derived(n + ".frames_in", "frame", "frames that arrived (any port)",
                c([](const SwitchCore& s) { return s.counters().frames_in; }));
  stats.derived(n + ".frames_out", "frame", "frames sent (any port)",
                c([](const SwitchCore& s) { return s.counters().frames_out; }));
  stats.derived(n + ".bytes_out", "byte", "frame bytes sent (without FCS)",
                c([](const SwitchCore& s) { return s.counters().bytes_out; }));
  stats.derived(n + ".marked", "frame", "frames marked CE by RED",
                c([](const SwitchCore& s) { return s.counters().marked; }));
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
  for (uint8_t b = 0; b < 6; ++b) mac_[b] = 0;
  mac_[0] = 0x02;  // locally administered: 02:00:00:00:<node>
  mac_[4] = static_cast<uint8_t>(node >> 8), mac_[5] = static_cast<uint8_t>(node);
  SC_METHOD(run);  // a method, not a thread: no stack switch per wake
  sensitive << wake_ << arrived_;
  dont_initialize();
}

void Switch::set_port_rate(uint32_t port, double gbps) {
  core_.set_rate(port, gbps);
}

void Switch::set_port_loss(uint32_t port, double p) {
  loss_.at(port) = p;
}

void Switch::set_port_down(uint32_t port, bool down) {
  down_.at(port) = down;
}

void Switch::add_psn_rule(uint32_t port, uint32_t n, uint32_t r, bool ip_id) {
  psn_rules_.at(port).push_back({n, r, ip_id});
}

bool Switch::fault_lost(uint32_t port, uint32_t slot) {
  const std::vector<uint8_t>& b = slots_[slot];
  return down_[port] || psn_rule_hit(b.data(), b.size(), psn_rules_[port]);
}

uint64_t Switch::send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now) {
  const uint32_t slot = slots_.put(f, len);
  const auto [start, end] = core_.send_control(port, len, now);
  if (down_[port]) {
    fault_lost_.inc();
    slots_.release(slot);
  } else {
    wire_[port].push_back({end + prop_ps_[port], slot});
    schedule(end + prop_ps_[port], 1, port);
  }
  return start;
}

void Switch::send_pause(const SwitchCore::Pause& p, uint64_t now) {
  wire::Pfc pf;
  pf.enable = static_cast<uint8_t>(1u << p.prio);
  pf.quanta[p.prio] = static_cast<uint16_t>(p.quanta);
  uint8_t frame[wire::kPfcFrameBytes];
  wire::build_pfc(pf, mac_, frame);
  const uint64_t start = send_ahead(p.port, frame, sizeof frame, now);
  if (on_pfc_) on_pfc_(start, p.port, p.prio, p.quanta, true);
  if (p.quanta) {  // one refresh chain per port and priority: the newest XOFF's
    refresh_at_[size_t{p.port} * 8 + p.prio] = now + core_.refresh_ps(p.port);
    schedule(now + core_.refresh_ps(p.port), 2, p.port, p.prio);
  }
}

void Switch::schedule(uint64_t t, uint8_t kind, uint32_t port, uint8_t prio) {
  events_.push({t, seq_++, kind, port, prio});
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
  schedule(start_at_[port], 0, port);
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

void Switch::admit(uint32_t port, uint32_t slot, uint64_t now) {
  std::vector<uint8_t>& buf = slots_[slot];
  const uint8_t* f = buf.data();
  const uint32_t len = static_cast<uint32_t>(buf.size());
  wire::Pfc pf;
  if (wire::parse_pfc(f, len, pf)) {  // from the downstream device of this port
    slots_.release(slot);
    for (uint8_t c = 0; c < 8; ++c) {
      if (!(pf.enable >> c & 1) || c >= core_.priorities()) continue;
      core_.pause(port, c, pf.quanta[c], now);
      if (on_pfc_) on_pfc_(now, port, c, pf.quanta[c], false);
    }
    try_start(port, now);
    return;
  }
  wire::PacketView v;
  const wire::ParseStatus st = wire::parse(f, len, v, false);
  auto unroutable = [&] {
    unroutable_.inc();
    slots_.release(slot);
  };
  if (!v.ip_version) return unroutable();
  uint32_t dst_host;
  if (v.ip_version == 4) {  // a hash lookup: once per frame and hop
    auto h = v4_hosts_.find(static_cast<uint32_t>(ip_key(v, true)));
    if (h == v4_hosts_.end()) return unroutable();
    dst_host = h->second;
  } else {
    auto h = hosts_.find({v.ip_version, v.dst_ip});
    if (h == hosts_.end()) return unroutable();
    dst_host = h->second;
  }
  const std::vector<uint32_t>& ports = routes_.next_ports(node_, dst_host);
  if (ports.empty()) return unroutable();
  FlowKey key{ip_key(v, false), ip_key(v, true), v.udp_sport, v.udp_dport, 17};
  const uint32_t out =
      select_.choose(key, dst_host, ports, now, [this](uint32_t p) { return core_.port_bytes(p); });
  const bool roce = st == wire::ParseStatus::kOk || st == wire::ParseStatus::kBadIcrc ||
                    st == wire::ParseStatus::kUdOrCnp;
  SwitchCore::Frame fr;
  fr.len = len;
  fr.prio = roce && control_opcode(v.bth.opcode) ? 0 : 1;
  fr.ect = (v.tos & 3) == 1 || (v.tos & 3) == 2;
  fr.in_port = port;
  fr.tag = slot;
  bool np_out = false;  // a data packet leaving over the long haul under THEMIS's np
  if (themis_ && roce && (port == wan_port_ || out == wan_port_)) {
    if (!themis_in(port, out, slot, v, fr, now)) return;
    np_out = out == wan_port_ && themis_->np() && data_opcode(v.bth.opcode);
    if (np_out && (v.tos & 3) == 3 && !np_keep_mark(slot, now)) clear_ce(slots_[slot].data(), len);
  }
  enqueue_frame(out, fr, now, np_out);
}

void Switch::enqueue_frame(uint32_t out, SwitchCore::Frame fr, uint64_t now, bool np_out) {
  const uint32_t slot = static_cast<uint32_t>(fr.tag);
  SwitchCore::Admit a = core_.enqueue(now, out, fr);
  if (a.pause) send_pause(*a.pause, now);
  if (!a.accepted) {
    slots_.release(slot);
    return;
  }
  if (a.ce && (!np_out || np_keep_mark(slot, now))) mark_ce(slots_[slot].data(), fr.len);
  if (on_queue_) on_queue_(now, out, core_.port_bytes(out));
  try_start(out, now);
}

void Switch::enable_themis(const ThemisParams& p, const sender::DcqcnParams& dcqcn,
                           uint32_t wan_port, uint64_t rtt_ps, Stats& stats) {
  themis_ = std::make_unique<ThemisCore>(p, dcqcn, rtt_ps,
                                         StatGroup(stats, std::string(name()) + ".themis"));
  wan_port_ = wan_port;
}

bool Switch::themis_in(uint32_t port, uint32_t out, uint32_t slot, const wire::PacketView& v,
                       const SwitchCore::Frame& fr, uint64_t now) {
  const ThemisCore& tp = *themis_;
  const bool in = port == wan_port_;
  const uint8_t op = v.bth.opcode;
  // The flow: data goes sender -> receiver; ACKs and CNPs come back receiver -> sender.
  const bool data = data_opcode(op);
  ThemisCore::FlowKey k;
  k.sender = ip_key(v, !data), k.receiver = ip_key(v, data), k.sport = v.udp_sport;
  if (op == wire::kCnp) {
    if (in) {
      if (v.bth.resv7 & kThemisCnpBit) {  // the far switch reacted: not ours to count
        themis_->cnps_marked_in.inc();
        return true;
      }
      if (tp.np() && !themis_->forward_cnp_in(k, now)) {
        slots_.release(slot);
        return false;
      }
    } else if (tp.rp()) {
      themis_->on_cnp_out(k, now);
      std::vector<uint8_t>& b = slots_[slot];
      set_themis_bit(b.data(), b.size(), v);
    }
    return true;
  }
  if (!data) {
    if (in && control_opcode(op)) themis_->learn_qpn(k, v.bth.dest_qp);
    return true;
  }
  if (in && tp.rp()) {
    uint32_t passes = 0;
    const uint64_t t = themis_->release_ps(k, now, fr.len, &passes);
    if (passes == 0) return true;
    {  // recirculates until t: held outside the buffer
      uint32_t i;
      if (held_free_.empty()) {
        i = static_cast<uint32_t>(held_.size());
        held_.push_back({out, fr});
      } else {
        i = held_free_.back();
        held_free_.pop_back();
        held_[i] = {out, fr};
      }
      schedule(t, 3, i);
      return false;
    }
  }
  return true;
}

bool Switch::np_keep_mark(uint32_t slot, uint64_t now) {
  const std::vector<uint8_t>& b = slots_[slot];
  wire::PacketView v;
  wire::parse(b.data(), b.size(), v, false);
  ThemisCore::FlowKey k;
  k.sender = ip_key(v, false), k.receiver = ip_key(v, true), k.sport = v.udp_sport;
  bool send = false;
  uint32_t qpn = 0;
  if (!themis_->on_marked_data_out(k, now, &send, &qpn)) return true;
  if (send) {
    // The CNP the receiver would have sent, from the receiver to the sender.
    static const uint8_t kReserved[16] = {};
    wire::FrameSpec s;
    s.src_mac = v.dst_mac, s.dst_mac = v.src_mac;
    s.ip_version = v.ip_version;
    s.src_ip = v.dst_ip, s.dst_ip = v.src_ip;
    s.tos = 0;
    s.udp_sport = v.udp_sport;
    s.bth.opcode = wire::kCnp;
    s.bth.dest_qp = qpn;
    s.payload = kReserved, s.payload_len = sizeof kReserved;
    const std::vector<uint8_t> cnp = wire::build(s);
    uint32_t host = 0;
    if (v.ip_version == 4) {
      auto h = v4_hosts_.find(static_cast<uint32_t>(k.sender));
      if (h == v4_hosts_.end()) return false;
      host = h->second;
    } else {
      auto h = hosts_.find({v.ip_version, v.src_ip});
      if (h == hosts_.end()) return false;
      host = h->second;
    }
    const std::vector<uint32_t>& ports = routes_.next_ports(node_, host);
    if (!ports.empty()) {
      // The CNP's 5-tuple: the data packet's, reversed (RoCE's destination port both ways).
      FlowKey fk{ip_key(v, true), ip_key(v, false), v.udp_sport, v.udp_dport, 17};
      const uint32_t p =
          select_.choose(fk, host, ports, now, [this](uint32_t q) { return core_.port_bytes(q); });
      send_ahead(p, cnp.data(), static_cast<uint32_t>(cnp.size()), now);
    }
  }
  return false;
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
    if (e.kind == 2) {  // PFC: refresh an XOFF that still holds
      const size_t ri = size_t{e.port} * 8 + e.prio;
      if (refresh_at_[ri] != e.t) continue;  // superseded by a later XOFF's chain
      refresh_at_[ri] = kNone;
      if (auto p = core_.refresh(e.port, e.prio, now)) {
        send_pause(*p, now);
      } else if (const uint64_t due = core_.refresh_due_ps(e.port, e.prio); due != kNone) {
        refresh_at_[ri] = due;  // not due yet: the port's rate fell since it was booked
        schedule(due, 2, e.port, e.prio);
      }
      continue;
    }
    if (e.kind == 3) {  // THEMIS rp: a held packet's release
      const Held h = held_[e.port];
      held_free_.push_back(e.port);
      themis_->released(h.fr.len);
      enqueue_frame(h.out, h.fr, now, false);
      continue;
    }
    if (e.kind == 0) {
      if (start_at_[e.port] != e.t) continue;  // superseded by an earlier start
      start_at_[e.port] = kNone;
      if (auto d = core_.start_next(e.port, now)) {
        const uint32_t slot = static_cast<uint32_t>(d->frame.tag);
        // Under THEMIS's np a data packet marked as it leaves over the long haul is
        // taken by the switch instead (its sender gets a CNP from here).
        if (d->ce && !(themis_ && e.port == wan_port_ && themis_->np() && d->frame.prio == 1 &&
                       !np_keep_mark(slot, now)))
          mark_ce(slots_[slot].data(), slots_[slot].size());
        ++port_frames_[e.port];
        port_bytes_[e.port] += slots_[slot].size();
        if (on_queue_) on_queue_(now, e.port, core_.port_bytes(e.port));
        if (d->pause) send_pause(*d->pause, now);
        if (fault_lost(e.port, slot)) {
          fault_lost_.inc();  // the link is down, or a rule names the frame
          slots_.release(slot);
        } else if (loss_[e.port] > 0 &&
                   static_cast<double>(loss_rng_() >> 11) * (1.0 / 9007199254740992.0) <
                       loss_[e.port]) {
          lost_.inc();  // on the wire: the port was busy, the far end gets nothing
          if (d->frame.prio == 1) lost_data_.inc();
          slots_.release(slot);
        } else {
          wire_[e.port].push_back({d->end_ps + prop_ps_[e.port], slot});
          schedule(d->end_ps + prop_ps_[e.port], 1, e.port);
        }
      }
      try_start(e.port, now);
    } else {
      const InFlight fl = wire_[e.port].front();
      wire_[e.port].pop_front();
      std::vector<uint8_t>& b = slots_[fl.slot];
      if (on_deliver_) on_deliver_(e.port, now, b.data(), b.size());
      gp_.set_command(tlm::TLM_WRITE_COMMAND);
      gp_.set_address(0);
      gp_.set_data_ptr(b.data());
      gp_.set_data_length(static_cast<unsigned>(b.size()));
      gp_.set_streaming_width(static_cast<unsigned>(b.size()));
      gp_.set_byte_enable_ptr(nullptr);
      gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      donation_.buf = &b;  // the next switch may take the buffer instead of copying it
      gp_.set_extension(&donation_);
      (*tx_socket[e.port])->b_transport(gp_, d);
      gp_.clear_extension(&donation_);
      slots_.release(fl.slot);
    }
  }
}

}  // namespace oonic::network
