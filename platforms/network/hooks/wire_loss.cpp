// Random loss on a switch's egress wires: a frame of the queues leaving port k is
// lost with probability 1 - (1 - switch.loss_rate)(1 - the link's error rate), or
// the rate a `loss` fault sets there (the switch's own PFC and CNP frames are never
// lost on the wire). Counted as <switch>.lost and, for the data class, .lost_data.
#include <memory>
#include <vector>

#include "model/core/rng.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network::hooks {
namespace {

class WireLossHook : public SwitchHook {
 public:
  explicit WireLossHook(const SwitchBuild& b)
      : lost_(b.stats->counter(b.name + ".lost", "frame",
                               "frames lost on an egress wire (switch.loss_rate, the link's "
                               "error rate)")),
        lost_data_(b.stats->counter(b.name + ".lost_data", "frame",
                                    "of .lost, frames of the data class (PFC class 1: data, READ "
                                    "requests and responses); the rest are ACK/NAK/CNP/feedback")),
        rng_(make_rng(b.seed, b.name + ".loss")) {
    const Topology& t = *b.topology;
    for (const auto& p : t.ports[b.node])
      loss_.push_back(1 - (1 - b.sp->loss_rate) * (1 - t.links[p.link].error_rate));
  }
  uint32_t stages() const override { return kEgress | kFault; }
  bool reads_view() const override { return false; }
  bool egress(uint32_t port, uint32_t, uint8_t prio, bool control, uint64_t) override {
    if (control || !(loss_[port] > 0)) return false;
    if (static_cast<double>(rng_() >> 11) * (1.0 / 9007199254740992.0) >= loss_[port]) return false;
    lost_.inc();  // on the wire: the port was busy, the far end gets nothing
    if (prio == 1) lost_data_.inc();
    return true;
  }
  bool fault(const PortFault& x) override {
    if (x.kind != PortFault::Kind::kLoss) return false;
    loss_.at(x.port) = x.value;  // replaces switch.loss_rate and the link's error rate
    return true;
  }

 private:
  Counter& lost_;
  Counter& lost_data_;
  Rng rng_;
  std::vector<double> loss_;  // per port
};

}  // namespace

SwitchHookRow wire_loss_row() {
  return {"wire_loss",
          "random loss on egress wires: switch.loss_rate with each link's error rate, or a "
          "loss fault's",
          [](SwitchPipe&, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
            return std::make_unique<WireLossHook>(b);
          },
          nullptr, nullptr};
}

}  // namespace oonic::network::hooks
