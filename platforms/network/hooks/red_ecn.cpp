#include "platforms/network/hooks/red_ecn.h"

#include <memory>

#include "platforms/network/hooks/builtin.h"

namespace oonic::network {

RedEcn::RedEcn(const SwitchParams& p, uint32_t ports, uint64_t seed, const std::string& name)
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
  RedEcnHook(const SwitchBuild& b, uint32_t ports) : red_(*b.sp, ports, b.seed, b.name) {
    b.stats->derived(b.name + ".marked", "frame", "frames marked CE by RED",
                     [this] { return static_cast<double>(red_.marked()); });
  }
  uint32_t stages() const override { return kMark | kFault; }
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
  return {"red_ecn",
          "RED/ECN: marks ECN-capable frames CE by queue depth (switch.ecn, kmin, "
          "kmax, pmax, mark_at)",
          [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
            return std::make_unique<RedEcnHook>(b, pipe.buffer().ports());
          },
          nullptr};
}

}  // namespace hooks
}  // namespace oonic::network
