// Faults on a switch's egress wires (faults.file, docs/FABRIC.md "Faults"): a port
// down loses every frame leaving it, the switch's own (PFC, CNP) too, until up; a
// PSN rule loses the RC frames whose BTH PSN (or IPv4 identification) mod n == r.
// Counted as <switch>.fault_lost.
#include <memory>
#include <vector>

#include "platforms/network/hooks/builtin.h"
#include "platforms/network/psn_rules.h"

namespace oonic::network::hooks {
namespace {

class PortFaultsHook : public SwitchHook {
 public:
  PortFaultsHook(SwitchPipe& pipe, const SwitchBuild& b)
      : pipe_(pipe),
        down_(pipe.buffer().ports(), 0),
        rules_(pipe.buffer().ports()),
        lost_(b.stats->counter(b.name + ".fault_lost", "frame",
                               "frames lost on an egress wire to a fault: the link down, or a "
                               "PSN rule (faults.file)")) {}
  uint32_t stages() const override { return kEgress | kFault; }
  bool reads_view() const override { return false; }
  bool egress(uint32_t port, uint32_t slot, uint8_t, bool control, uint64_t) override {
    // The bytes only where a PSN rule must read them.
    const bool hit = down_[port] || (!control && !rules_[port].empty() &&
                                     psn_rule_hit(pipe_.bytes(slot).data(),
                                                  pipe_.bytes(slot).size(), rules_[port]));
    if (hit) lost_.inc();
    return hit;
  }
  bool fault(const PortFault& x) override {
    switch (x.kind) {
      case PortFault::Kind::kDown:
      case PortFault::Kind::kUp:
        down_.at(x.port) = x.kind == PortFault::Kind::kDown;
        return true;
      case PortFault::Kind::kPsnRule:
        rules_.at(x.port).push_back(
            {static_cast<uint32_t>(x.a), static_cast<uint32_t>(x.b), x.ip_id});
        return true;
      default:
        return false;
    }
  }

 private:
  SwitchPipe& pipe_;
  std::vector<uint8_t> down_;                // per port
  std::vector<std::vector<PsnRule>> rules_;  // per port
  Counter& lost_;
};

}  // namespace

SwitchHookRow port_faults_row() {
  return {"port_faults",
          "faults.file on egress wires: a port down, PSN/IP-id rules (counted as fault_lost)",
          [](SwitchPipe& pipe, const SwitchBuild& b) -> std::unique_ptr<SwitchHook> {
            return std::make_unique<PortFaultsHook>(pipe, b);
          },
          nullptr, nullptr};
}

}  // namespace oonic::network::hooks
