#include "platforms/network/hooks/int_stamp.h"

#include <cmath>
#include <memory>

#include "model/wire/roce.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network {

void IntParams::describe(ParamTable& t) {
  t.add("switch.int_stamp", &stamp,
        "HPCC's INT: every switch writes a hop record into the INT stack of a data packet as "
        "it leaves (clock, port bytes sent, bytes queued, port rate): on, off, or auto (on when "
        "tx.rate's core sends INT stacks: hpcc)",
        {"auto", "on", "off"});
  t.add("switch.int_multi", &multi, "ratio",
        "INT record units: tx bytes in 128 x multi bytes (wraps at 2^20 units), queue in 80 x "
        "multi bytes (saturates at 2^15 - 1 units: 2.6 MB at 1); ns-3 HPCC's INT_MULTI",
        1, 255);
}

namespace {

// The BTH of an IPv4/IPv6 RoCEv2 frame, or null (a quick look: no full parse per frame).
const uint8_t* bth_of(const uint8_t* f, size_t len) {
  size_t l3 = wire::kEthHeaderBytes;
  if (len < l3 + 2) return nullptr;
  uint16_t et = static_cast<uint16_t>(f[12] << 8 | f[13]);
  if (et == 0x8100) {
    l3 += 4;
    if (len < l3) return nullptr;
    et = static_cast<uint16_t>(f[16] << 8 | f[17]);
  }
  size_t l4;
  if (et == 0x0800) {
    if (len < l3 + 20 || f[l3 + 9] != 17) return nullptr;
    l4 = l3 + 20;
  } else if (et == 0x86DD) {
    if (len < l3 + 40 || f[l3 + 6] != 17) return nullptr;
    l4 = l3 + 40;
  } else {
    return nullptr;
  }
  if (len < l4 + 8 + wire::kBthBytes) return nullptr;
  if ((f[l4 + 2] << 8 | f[l4 + 3]) != wire::kRoceUdpPort) return nullptr;
  return f + l4 + 8;
}

int nearest_code(double gbps) {
  int best = 0;
  double d = 1e300;
  for (uint32_t i = 0; i < wire::kIntRateCodes; ++i) {
    const double x = std::fabs(std::log(wire::kIntRatesGbps[i] / gbps));
    if (x < d) d = x, best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

IntStamper::Result IntStamper::depart(uint8_t* frame, size_t len, uint32_t port, uint64_t now_ps,
                                      uint64_t qlen_bytes, double gbps, bool* approx) {
  *approx = false;
  uint64_t& sent = tx_bytes_.at(port);
  const uint64_t before = sent;
  sent += len;
  const uint8_t* bth = bth_of(frame, len);
  if (!bth || !(bth[8] & wire::kBthIntBit)) return Result::kNone;
  // Data packets only (requests with payload, READ responses): a response's stack is an
  // echo, not the path's.
  const wire::OpcodeInfo* info = wire::opcode_info(bth[0]);
  if (!info || !(info->flags & wire::kHasPayload)) return Result::kNone;
  wire::PacketView v;
  wire::parse(frame, len, v, false);
  if (!(v.flags & wire::kHasInt)) return Result::kNone;
  int code = wire::int_rate_code(gbps);
  if (code < 0) code = nearest_code(gbps), *approx = true;
  const wire::IntHop hop = wire::IntHop::make(now_ps / 1000, before, qlen_bytes, code, multi_);
  return wire::push_int_hop(frame, v, hop, static_cast<uint8_t>(multi_)) ? Result::kStamped
                                                                         : Result::kFull;
}

namespace hooks {
namespace {

class IntStampHook : public SwitchHook {
 public:
  IntStampHook(SwitchPipe& pipe, const SwitchBuild& b, uint32_t multi)
      : pipe_(pipe),
        core_(static_cast<uint32_t>(b.topology->ports[b.node].size()), multi),
        stamped_(b.stats->counter(b.name + ".int.stamped", "frame",
                                  "data frames whose INT stack got this switch's hop record")),
        full_(b.stats->counter(b.name + ".int.full", "frame",
                               "INT frames passed without a record: their stack was full "
                               "(cc.hpcc.int_hops too small for the path)")),
        approx_(b.stats->counter(b.name + ".int.rate_approx", "frame",
                                 "records whose port rate has no INT code (the nearest was "
                                 "written)")) {}
  uint32_t stages() const override { return kDequeued; }
  bool reads_view() const override { return false; }
  void dequeued(PipeFrame& f, const SwitchCore::Departure& d, uint64_t now) override {
    std::vector<uint8_t>& b = pipe_.bytes(f.slot);
    bool approx = false;
    const IntStamper::Result r =
        core_.depart(b.data(), b.size(), d.port, now, pipe_.buffer().port_bytes(d.port),
                     pipe_.buffer().rate_gbps(d.port), &approx);
    if (r == IntStamper::Result::kStamped) stamped_.inc();
    if (r == IntStamper::Result::kFull) full_.inc();
    if (approx) approx_.inc();
  }

 private:
  SwitchPipe& pipe_;
  IntStamper core_;
  Counter& stamped_;
  Counter& full_;
  Counter& approx_;
};

}  // namespace

SwitchHookRow int_stamp_row() {
  SwitchHookRow r;
  r.name = "int_stamp";
  r.doc =
      "HPCC's INT: a hop record into the INT stack of each data packet leaving "
      "(switch.int_stamp, switch.int_multi)";
  r.make = [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
    const IntParams* p = b.sp->hooks.find<IntParams>("int_stamp");
    const IntParams defaults;
    if (!p) p = &defaults;
    const bool on = p->stamp == "on" || (p->stamp == "auto" && b.senders_int);  // once
    if (!on) return nullptr;
    return std::make_unique<IntStampHook>(pipe, b, p->multi);
  };
  r.params = [] { return make_plugin_params<IntParams>(); };
  return r;
}

}  // namespace hooks
}  // namespace oonic::network
