#include "platforms/network/hooks/red_ecn.h"

#include <memory>

#include "model/core/error.h"

#include "platforms/network/hooks/builtin.h"

namespace oonic::network {

void RedParams::describe(ParamTable& t) {
  t.add("switch.ecn", &ecn, "RED/ECN marking of ECN-capable frames on the egress queue");
  t.add("switch.kmin_bytes", &kmin_bytes, "byte", "RED: no marking at or below this queue depth", 0,
        1e12);
  t.add("switch.kmax_bytes", &kmax_bytes, "byte", "RED: every frame marked at or above this depth",
        0, 1e12);
  t.add("switch.pmax", &pmax, "probability", "RED: marking probability just below kmax", 0, 1);
  t.add("switch.mark_at", &mark_at,
        "RED decision on the queue depth a frame finds at enqueue, or leaves behind at dequeue "
        "(ns-3 HPCC's switch: dequeue, so a mark reflects the newest queue)",
        {"enqueue", "dequeue"});
}

void RedParams::validate() const {
  if (kmin_bytes > kmax_bytes)
    throw Error(msg::kConfig, "switch.kmin_bytes (" + std::to_string(kmin_bytes) +
                                  ") must not exceed switch.kmax_bytes (" +
                                  std::to_string(kmax_bytes) + ")");
}

RedEcn::RedEcn(const RedParams& p, uint32_t ports, uint64_t seed, const std::string& name)
    : k_(ports, {p.kmin_bytes, p.kmax_bytes}),
      pmax_(p.pmax),
      enqueue_(p.ecn && p.mark_at == "enqueue"),
      dequeue_(p.ecn && p.mark_at == "dequeue"),
      rng_(make_rng(seed, name + ".red")) {}

double RedEcn::probability(uint32_t port, uint64_t q) const {
  const auto [kmin, kmax] = k_[port];
  if (q <= kmin) return 0.0;
  if (q >= kmax) return 1.0;
  return pmax_ * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
}

bool RedEcn::decide(uint32_t port, uint64_t q) {
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  const bool ce = u < probability(port, q);
  marked_ += ce;
  return ce;
}

void RedEcn::set_thresholds(uint32_t port, uint64_t kmin, uint64_t kmax) {
  k_.at(port) = {kmin, kmax};
}

namespace hooks {
namespace {

// Marks at the point switch.mark_at names; the switch writes CE into the frame.
class RedEcnHook : public SwitchHook {
 public:
  RedEcnHook(const SwitchBuild& b, const RedParams& p, uint32_t ports)
      : red_(p, ports, b.seed, b.name) {
    b.stats->derived(b.name + ".marked", "frame", "frames marked CE by RED",
                     [this] { return static_cast<double>(red_.marked()); });
  }
  uint32_t stages() const override { return kMark | kFault; }
  bool reads_view() const override { return false; }
  void mark(PipeFrame& f, MarkPoint at, uint64_t q, uint64_t) override {
    if (!f.fr.ect) return;
    if (at == MarkPoint::kEnqueue ? !red_.at_enqueue() : !red_.at_dequeue()) return;
    f.ce = red_.decide(f.out_port, q);
  }
  bool fault(const PortFault& x) override {
    if (x.kind != PortFault::Kind::kEcn) return false;
    red_.set_thresholds(x.port, x.a, x.b);
    return true;
  }

 private:
  RedEcn red_;
};

}  // namespace

SwitchHookRow red_ecn_row() {
  SwitchHookRow r;
  r.name = "red_ecn";
  r.doc =
      "RED/ECN: marks ECN-capable frames CE by queue depth (switch.ecn, kmin, kmax, pmax, "
      "mark_at)";
  r.make = [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
    static const RedParams kDefaults;
    const RedParams* p = b.sp->hooks.find<RedParams>("red_ecn");
    return std::make_unique<RedEcnHook>(b, p ? *p : kDefaults, pipe.buffer().ports());
  };
  r.params = [] { return make_plugin_params<RedParams>(); };
  return r;
}

}  // namespace hooks
}  // namespace oonic::network
