// The MAC (outside ORNIC's Figure 1, the NIC's port to the network), the core. Transmit:
// each frame holds the MAC for its wire time (frame + FCS + preamble/IFG at mac.rate_gbps,
// rounded up to whole cycles) and leaves through FrameOut at the cycle its first byte
// goes on the wire. Receive: a frame is the NIC's once its last byte has arrived
// (store and forward); the RX Parser takes it from there. PFC: a PAUSE frame (802.1Qbb,
// wire/pfc.h) is the MAC's own, never the RX plane's: for each class it enables, frames of
// that class may not start before arrival + quanta x 512 bit times at mac.rate_gbps
// (rounded up to whole cycles; quanta 0 resumes at once). The NIC classes its frames as
// the switch does: 0 = ACK, NAK, CNP; 1 = everything else. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/core/cycles.h"
#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/wire/pfc.h"

namespace oonic::ornic {

// Where the MAC's frames go (the shell's mac_tx_socket).
class FrameOut {
 public:
  virtual ~FrameOut() = default;
  virtual void frame_out(Cycle start, const uint8_t* frame, size_t len) = 0;
};

class MacCore final : public MacPort {
 public:
  MacCore(const CoreEnv& env, FrameOut& out);
  Cycle reserve(Cycle ready, size_t len) override;
  void send(Cycle start, const uint8_t* frame, size_t len) override;
  Cycle free_at() const override { return tx_.free_at(); }
  // Cycles a frame of len bytes holds the MAC (at least 1).
  Cycle wire_cycles(size_t len) const;
  void received() { frames_in_.inc(); }
  uint64_t busy_cycles() const override { return tx_.busy_cycles(); }
  // A PFC frame whose last byte arrived at `now`. Returns true when a class may start
  // earlier than it could before (an XON or a shorter pause): the TX arbiter must look.
  bool pause(Cycle now, const wire::Pfc& pf);
  Cycle paused_until(uint8_t c) const override { return c < 8 ? paused_until_[c] : 0; }
  // Cycles of PAUSE time of class c (overlapping pauses counted once).
  uint64_t paused_cycles(uint8_t c) const { return c < 8 ? paused_cycles_[c] : 0; }

 private:
  double rate_gbps_;
  CycleClock clk_;
  FrameOut& out_;
  Resource tx_;
  Counter& frames_in_;
  Counter& frames_out_;
  Counter& pfc_in_;
  Cycle paused_until_[8] = {};
  uint64_t paused_cycles_[8] = {};
};

}  // namespace oonic::ornic
