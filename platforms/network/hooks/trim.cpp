// The trimming hook (see trim.h).
#include "platforms/network/hooks/trim.h"

#include <memory>
#include <vector>

#include "model/core/error.h"
#include "model/core/rng.h"
#include "model/core/stats.h"
#include "model/wire/uet_frame.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network {

void TrimParams::describe(ParamTable& t) {
  t.add("switch.trim", &trim,
        "packet trimming (UET's): a data frame the buffer refuses, UET's or a RoCEv2 request "
        "the NICs send, goes on as its headers (payload cut, DSCP trimmed), ahead of the "
        "egress queues; the receiving NIC NACKs it (nic.trim_dscp)");
  t.add("switch.trim_dscp", &dscp_trimmed, "DSCP", "DSCP a trimmed frame carries", 0, 63);
  t.add("switch.trim_dscp_last_hop", &dscp_last_hop, "DSCP",
        "DSCP of a frame trimmed by the switch whose egress port leads to its host", 0, 63);
  t.add("switch.trim_newest_p", &newest_p, "probability",
        "when the buffer would refuse a data frame, the chance that the newest data frame "
        "already in its queue is trimmed instead and the arriving one takes its place "
        "(htsim's CompositeQueue: 0.5, by a coin; 0: the arriving frame is trimmed)",
        0, 1);
}

void TrimParams::validate() const {
  if (dscp_trimmed == dscp_last_hop)
    throw Error(msg::kConfig, "switch.trim_dscp and switch.trim_dscp_last_hop must differ (" +
                                  std::to_string(dscp_trimmed) + ")");
}

namespace hooks {
namespace {

class TrimHook : public SwitchHook {
 public:
  TrimHook(SwitchPipe& pipe, const SwitchBuild& b, const TrimParams& p)
      : pipe_(pipe),
        trimmed_(b.stats->counter(b.name + ".trimmed", "frame",
                                  "data frames (UET, RoCEv2 requests) the buffer refused whose "
                                  "headers went on trimmed (switch.trim)")),
        newest_p_(p.newest_p),
        rng_(make_rng(b.seed, b.name + ".trim")) {
    if (newest_p_ > 0) {
      if (b.sp && b.sp->pfc)
        throw Error(msg::kConfig, "switch.trim_newest_p (" + std::to_string(newest_p_) +
                                      ") needs a lossy buffer; switch.pfc is on");
      trimmed_newest_ = &b.stats->counter(
          b.name + ".trimmed_newest", "frame",
          "of those, the newest frame of the queue, trimmed in the arriving one's place "
          "(switch.trim_newest_p)");
    }
    dscp_.trimmed = static_cast<uint8_t>(p.dscp_trimmed);
    dscp_.trimmed_last_hop = static_cast<uint8_t>(p.dscp_last_hop);
    const uint32_t ports = pipe.buffer().ports();
    to_host_.assign(ports, 0);
    if (b.topology)
      for (uint32_t k = 0; k < ports && k < b.topology->ports[b.node].size(); ++k)
        to_host_[k] = b.topology->is_host(b.topology->ports[b.node][k].peer);
  }
  uint32_t stages() const override { return kAdmission | kBuffered; }
  bool reads_view() const override { return false; }
  // A header trimmed upstream takes the control priority here too (htsim's header-only
  // packets go to the high-priority queue at every hop), so its NACK does not wait behind
  // data. htsim's victim: with newest_p, an untrimmed data frame the buffer would refuse
  // takes the place of the newest frame of its queue, whose headers go on instead (when
  // that frame is at least as long, so the arriving one is then admitted under a static
  // limit; a dynamic threshold may still refuse it, and then it is trimmed too).
  bool admission(PipeFrame& f, uint64_t now) override {
    if (f.fr.prio == 0) return false;
    const uint8_t dscp = pipe_.desc(f.slot).tos >> 2;
    if ((dscp == dscp_.trimmed || dscp == dscp_.trimmed_last_hop) &&
        kind_of(f.slot) == Kind::kTrimmed) {
      f.fr.prio = 0;
      return false;
    }
    if (newest_p_ <= 0) return false;
    SwitchCore& core = pipe_.buffer();
    if (core.admission(f.out_port, f.fr) == SwitchDrop::kNone) return false;
    if (static_cast<double>(rng_() >> 11) * 0x1.0p-53 >= newest_p_) return false;
    const std::optional<SwitchCore::Frame> v = core.newest(f.out_port, f.fr.prio);
    if (!v || v->len < f.fr.len) return false;
    // Only a data frame with payload to cut takes a victim's place (htsim flips its coin
    // for those alone).
    const Kind own = kind_of(f.slot);
    if (own != Kind::kUetData && own != Kind::kRoceData) return false;
    const uint32_t slot = static_cast<uint32_t>(v->tag);
    const size_t n = trimmed_copy(slot, f.out_port);
    if (!n) return false;
    core.take_newest(f.out_port, f.fr.prio);
    pipe_.release(slot);
    pipe_.send_ahead(f.out_port, hdr_.data(), static_cast<uint32_t>(n), now);
    trimmed_.inc();
    trimmed_newest_->inc();
    return false;  // the arriving frame goes on into the buffer
  }
  void buffered(PipeFrame& f, const SwitchCore::Admit& a, uint64_t now) override {
    if (a.accepted) return;
    const size_t n = trimmed_copy(f.slot, f.out_port);
    if (!n) return;
    pipe_.send_ahead(f.out_port, hdr_.data(), static_cast<uint32_t>(n), now);
    trimmed_.inc();
  }

 private:
  enum class Kind { kOther, kTrimmed, kUetData, kRoceData };
  // What the frame in slot is to trimming: a header a switch trimmed (UET's or a RoCEv2
  // request's), a UET or RoCEv2 request carrying payload, or neither.
  Kind kind_of(uint32_t slot) {
    const std::vector<uint8_t>& b = pipe_.bytes(slot);
    wire::uet::UetView v;
    if (wire::uet::parse_frame(b.data(), b.size(), v, dscp_) == wire::uet::UetStatus::kOk)
      return v.trimmed ? Kind::kTrimmed : v.payload_len ? Kind::kUetData : Kind::kOther;
    wire::PacketView rv;
    if (wire::parse(b.data(), b.size(), rv, /*check_icrc=*/false) != wire::ParseStatus::kOk)
      return Kind::kOther;
    if (wire::is_trimmed(rv, dscp_.trimmed, dscp_.trimmed_last_hop)) return Kind::kTrimmed;
    return (rv.flags & wire::kIsRequest) && rv.payload_len ? Kind::kRoceData : Kind::kOther;
  }
  // The frame in slot, trimmed for out_port, into hdr_: its length (a header trimmed
  // upstream as it is), or 0 when it has nothing to cut (its drop stands).
  size_t trimmed_copy(uint32_t slot, uint32_t out_port) {
    const Kind k = kind_of(slot);
    if (k == Kind::kOther) return 0;
    const std::vector<uint8_t>& b = pipe_.bytes(slot);
    hdr_.assign(b.begin(), b.end());
    if (k == Kind::kTrimmed) return hdr_.size();
    const bool last_hop = to_host_[out_port] != 0;
    if (k == Kind::kUetData)
      return wire::uet::trim_frame(hdr_.data(), hdr_.size(), last_hop, dscp_);
    const size_t n = wire::trim_frame(hdr_.data(), hdr_.size(),
                                      last_hop ? dscp_.trimmed_last_hop : dscp_.trimmed);
    return n == hdr_.size() ? 0 : n;  // an INT trailer: nothing cut, the drop stands
  }

  SwitchPipe& pipe_;
  Counter& trimmed_;
  Counter* trimmed_newest_ = nullptr;  // switch.trim_newest_p > 0
  double newest_p_;
  Rng rng_;
  wire::uet::UetDscp dscp_;
  std::vector<uint8_t> to_host_;  // per port: its peer is a host
  std::vector<uint8_t> hdr_;      // the trimmed copy (reused)
};

}  // namespace

SwitchHookRow trim_row() {
  SwitchHookRow r;
  r.name = "trim";
  r.doc =
      "packet trimming: a refused data frame (UET, RoCEv2 request) goes on as its headers "
      "(switch.trim)";
  r.make = [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
    const TrimParams* p = b.sp ? b.sp->hooks.find<TrimParams>("trim") : nullptr;
    if (!p || !p->trim) return nullptr;
    return std::make_unique<TrimHook>(pipe, b, *p);
  };
  r.params = [] { return make_plugin_params<TrimParams>(); };
  return r;
}

}  // namespace hooks
}  // namespace oonic::network
