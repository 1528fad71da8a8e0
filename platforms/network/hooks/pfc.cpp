// PFC's frames (switch.pfc; the buffer's accounting is SwitchCore's): a PAUSE
// arriving on port k pauses or resumes port k's egress priorities; an XOFF or XON
// the buffer decides goes out of the ingress port as an 802.1Qbb frame
// (wire/pfc.h) at the port's next frame boundary, ahead of its queues (never lost
// on the wire, only to a port down); an XOFF in force is sent again every half
// pause time (SwitchCore::refresh).
#include <limits>
#include <memory>
#include <vector>

#include "model/wire/pfc.h"
#include "platforms/network/hooks/builtin.h"

namespace oonic::network::hooks {
namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

class PfcHook : public SwitchHook {
 public:
  explicit PfcHook(SwitchPipe& pipe)
      : pipe_(pipe), refresh_at_(size_t{pipe.buffer().ports()} * 8, kNone) {}
  uint32_t stages() const override { return kIngress | kBuffered | kDequeued; }
  bool reads_view() const override { return false; }

  bool ingress(uint32_t port, uint32_t slot, uint64_t now) override {
    if (!pipe_.desc(slot).pfc) return false;  // not a MAC control frame: bytes untouched
    const std::vector<uint8_t>& b = pipe_.bytes(slot);
    wire::Pfc pf;
    if (!wire::parse_pfc(b.data(), b.size(), pf)) return false;
    pipe_.release(slot);  // from the downstream device of this port
    SwitchCore& core = pipe_.buffer();
    for (uint8_t c = 0; c < 8; ++c) {
      if (!(pf.enable >> c & 1) || c >= core.priorities()) continue;
      core.pause(port, c, pf.quanta[c], now);
      pipe_.pfc_seen(now, port, c, pf.quanta[c], false);
    }
    pipe_.wake_port(port, now);
    return true;
  }
  void buffered(PipeFrame&, const SwitchCore::Admit& a, uint64_t now) override {
    if (a.pause) send(*a.pause, now);
  }
  void dequeued(PipeFrame&, const SwitchCore::Departure& d, uint64_t now) override {
    if (d.pause) send(*d.pause, now);
  }
  // Refresh an XOFF that still holds (arg: port x 8 + priority).
  void timer(uint32_t ri, uint64_t at, uint64_t now) override {
    if (refresh_at_[ri] != at) return;  // superseded by a later XOFF's chain
    refresh_at_[ri] = kNone;
    const uint32_t port = ri / 8;
    const uint8_t prio = static_cast<uint8_t>(ri % 8);
    SwitchCore& core = pipe_.buffer();
    if (auto p = core.refresh(port, prio, now)) {
      send(*p, now);
    } else if (const uint64_t due = core.refresh_due_ps(port, prio); due != kNone) {
      refresh_at_[ri] = due;  // not due yet: the port's rate fell since it was booked
      pipe_.book(this, due, ri);
    }
  }

 private:
  void send(const SwitchCore::Pause& p, uint64_t now) {
    wire::Pfc pf;
    pf.enable = static_cast<uint8_t>(1u << p.prio);
    pf.quanta[p.prio] = static_cast<uint16_t>(p.quanta);
    uint8_t frame[wire::kPfcFrameBytes];
    wire::build_pfc(pf, pipe_.mac(), frame);
    const uint64_t start = pipe_.send_ahead(p.port, frame, sizeof frame, now);
    pipe_.pfc_seen(start, p.port, p.prio, p.quanta, true);
    if (p.quanta) {  // one refresh chain per port and priority: the newest XOFF's
      const uint32_t ri = p.port * 8 + p.prio;
      refresh_at_[ri] = now + pipe_.buffer().refresh_ps(p.port);
      pipe_.book(this, refresh_at_[ri], ri);
    }
  }
  SwitchPipe& pipe_;
  std::vector<uint64_t> refresh_at_;  // [port][8 priorities]: the live refresh's time
};

}  // namespace

SwitchHookRow pfc_row() {
  return {"pfc",
          "PFC frames: PAUSE received pauses an egress priority; the buffer's XOFF/XON sent "
          "upstream ahead of the queues, XOFF refreshed (switch.pfc)",
          [](SwitchPipe& pipe, const SwitchBuild&) -> std::unique_ptr<SwitchHook> {
            return std::make_unique<PfcHook>(pipe);
          },
          nullptr, nullptr};
}

}  // namespace oonic::network::hooks
