// THEMIS on a DC's external switch (themis.h has the mechanism): the frames crossing
// the long-haul port. Admission: a CNP coming in is forwarded or suppressed (np), a
// local receiver's CNP going out makes this switch react and gets the THEMIS bit
// (rp), ACKs coming in teach the np the sender's QP, and an inbound data packet of a
// throttled flow recirculates until its release (rp: held outside the buffer, a
// timer puts it back). Mark: a data packet leaving over the long haul marked CE keeps
// the mark only if the np cannot act for it (else the mark is cleared and its sender
// may get a CNP from here, out of the port towards it, ahead of the queues).
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "model/core/rng.h"
#include "model/wire/roce.h"
#include "platforms/network/frame_ecn.h"
#include "platforms/network/frame_keys.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network::hooks {
namespace {

// BTH byte 8 bit 0 of a CNP: THEMIS's reaction point already reacted to it.
constexpr uint8_t kThemisCnpBit = 0x01;

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

class ThemisHook : public SwitchHook {
 public:
  ThemisHook(SwitchPipe& pipe, const SwitchBuild& b)
      : pipe_(pipe),
        core_(*b.themis->params, *b.themis->dcqcn, b.themis->rtt_ps,
              StatGroup(*b.stats, b.name + ".themis")),
        wan_(b.themis->wan_port),
        np_all_(b.themis->params->np_all_ports()),
        rate_(b.themis->params->rate()) {
    // themis.np_flows table: the control plane's table, filled at connection setup.
    if (core_.np() && b.themis->params->np_table() && b.themis->flows)
      for (const ThemisFlow& x : *b.themis->flows)
        core_.learn_qpn({x.sender_ip, x.receiver_ip, x.sport}, x.sender_qpn);
  }
  uint32_t stages() const override { return kAdmission | kMark; }

  bool admission(PipeFrame& f, uint64_t now) override {
    if (!f.roce) return false;
    const bool crosses = f.fr.in_port == wan_ || f.out_port == wan_;
    if (!crosses && !np_all_) return false;
    const wire::PacketView& v = *f.view;
    if (crosses && taken(f, v, now)) return true;
    const bool np_out = np_port(f.out_port) && core_.np() && data_opcode(v.bth.opcode);
    f.scratch = np_out;
    if (np_out && (v.tos & 3) == 3 && !keep_mark(f.slot, now)) {
      std::vector<uint8_t>& b = pipe_.bytes(f.slot);
      set_frame_ecn(b.data(), b.size(), 2);  // back to ECT(0): later hops may mark again
    }
    return false;
  }
  void mark(PipeFrame& f, MarkPoint at, uint64_t, uint64_t now) override {
    if (!f.ce) return;
    const bool np_out = at == MarkPoint::kEnqueue
                            ? f.scratch != 0
                            : np_port(f.out_port) && core_.np() && f.fr.prio == 1;
    if (np_out) f.ce = keep_mark(f.slot, now);
  }
  // A held packet's release (arg: its index in held_), or with kFlowTimer a rate-paced
  // flow's head (arg: the flow), which books the flow's next.
  void timer(uint32_t arg, uint64_t, uint64_t now) override {
    if (arg & kFlowTimer) {
      uint32_t i = 0;
      uint64_t next = ThemisCore::kNoWake;
      if (core_.release_head(arg & ~kFlowTimer, now, &i, &next)) leave(i, now);
      if (next != ThemisCore::kNoWake) pipe_.book(this, next, arg);
      return;
    }
    core_.released(held_[arg].fr.len);
    leave(arg, now);
  }

 private:
  static constexpr uint32_t kFlowTimer = 0x80000000u;
  // Keeps a held frame; returns its index in held_.
  uint32_t keep(const PipeFrame& f) {
    if (held_free_.empty()) {
      held_.push_back(f);
      return static_cast<uint32_t>(held_.size() - 1);
    }
    const uint32_t i = held_free_.back();
    held_free_.pop_back();
    held_[i] = f;
    return i;
  }
  // Held frame i goes on into the buffer.
  void leave(uint32_t i, uint64_t now) {
    PipeFrame f = held_[i];
    held_free_.push_back(i);
    f.view = nullptr, f.scratch = 0;
    pipe_.enqueue(f, now);
  }
  // A port the np watches marked data leave by: the long haul, or any (np_scope all).
  bool np_port(uint32_t port) const { return np_all_ || port == wan_; }
  // The checks of a frame crossing the long-haul port; true: it was taken (dropped
  // or held).
  bool taken(const PipeFrame& f, const wire::PacketView& v, uint64_t now) {
    const bool in = f.fr.in_port == wan_;
    const uint8_t op = v.bth.opcode;
    // The flow: data goes sender -> receiver; ACKs and CNPs come back receiver -> sender.
    const bool data = data_opcode(op);
    ThemisCore::FlowKey k;
    k.sender = ip_key(v, !data), k.receiver = ip_key(v, data), k.sport = v.udp_sport;
    if (op == wire::kCnp) {
      if (in) {
        if (v.bth.resv7 & kThemisCnpBit) {  // the far switch reacted: not ours to count
          core_.cnps_marked_in.inc();
          return false;
        }
        if (core_.np() && !core_.forward_cnp_in(k, now)) {
          pipe_.release(f.slot);
          return true;
        }
      } else if (core_.rp()) {
        core_.on_cnp_out(k, now);
        std::vector<uint8_t>& b = pipe_.bytes(f.slot);
        set_themis_bit(b.data(), b.size(), v);
      }
      return false;
    }
    if (!data) {
      if (in && control_opcode(op)) core_.learn_qpn(k, v.bth.dest_qp);
      return false;
    }
    if (in && core_.rp() && rate_) {
      const uint32_t i = keep(f);
      uint64_t wake = ThemisCore::kNoWake;
      uint32_t flow = 0, early = ThemisCore::kNoId;
      if (core_.hold(k, now, f.fr.len, i, &wake, &flow, &early) == ThemisCore::Hold::kPass) {
        held_free_.push_back(i);
        return false;
      }
      if (early != ThemisCore::kNoId) leave(early, now);  // the loop is full
      if (wake != ThemisCore::kNoWake) pipe_.book(this, wake, flow | kFlowTimer);
      return true;
    }
    if (in && core_.rp()) {
      uint32_t passes = 0;
      const uint64_t t = core_.release_ps(k, now, f.fr.len, &passes);
      if (passes == 0) return false;
      pipe_.book(this, t, keep(f));  // recirculates until t: held outside the buffer
      return true;
    }
    return false;
  }

  // np: a CE-marked data packet in slot leaving over the long haul: true to keep it
  // marked (else the mark is cleared and the sender may get a CNP).
  bool keep_mark(uint32_t slot, uint64_t now) {
    const std::vector<uint8_t>& b = pipe_.bytes(slot);
    wire::PacketView v;
    wire::parse(b.data(), b.size(), v, false);
    ThemisCore::FlowKey k;
    k.sender = ip_key(v, false), k.receiver = ip_key(v, true), k.sport = v.udp_sport;
    bool send = false;
    uint32_t qpn = 0;
    if (!core_.on_marked_data_out(k, now, &send, &qpn)) return true;
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
      const std::optional<uint32_t> host = pipe_.host_of(v.ip_version, v.src_ip.data());
      if (!host) return false;
      // The CNP's 5-tuple: the data packet's, reversed (RoCE's destination port both ways).
      FlowKey fk{ip_key(v, true), ip_key(v, false), v.udp_sport, v.udp_dport, 17};
      if (const std::optional<uint32_t> p = pipe_.port_to_host(fk, *host, now))
        pipe_.send_ahead(*p, cnp.data(), static_cast<uint32_t>(cnp.size()), now);
    }
    return false;
  }

  SwitchPipe& pipe_;
  ThemisCore core_;
  uint32_t wan_;                 // the long-haul port
  bool np_all_;                  // themis.np_scope all
  bool rate_;                    // themis.block rate
  std::vector<PipeFrame> held_;  // rp: packets recirculating, by index
  std::vector<uint32_t> held_free_;
};

}  // namespace

SwitchHookRow themis_row() {
  return {"themis",
          "THEMIS's notification and reaction points on a DC's external switch (themis.mode; "
          "the fabric names the long-haul port)",
          [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
            if (!b.themis) return nullptr;
            return std::make_unique<ThemisHook>(pipe, b);
          },
          nullptr, nullptr};
}

}  // namespace oonic::network::hooks
