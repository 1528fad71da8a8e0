// TX plane: the TX arbiter in front of the Hdr Generator and the MAC, the core. Each
// turn it runs the NIC's due work (agenda entries, control-plane registrations) and
// grants frames, one at a time, by priority:
//   1. NAK, then ACK           (Req Manager register-schedulers, Figure 8)
//   2. requester data          (QP Manager: selective retransmissions first,
//                               go-back-N and new packets, round-robin over QPs)
//      and READ responses      (Req Manager), alternating when both are ready.
// A frame is granted when the Hdr Generator is free and the MAC frees within
// lookahead_cycles, so frames never queue up behind the MAC and a late ACK still goes
// next. A PFC class the MAC's link partner paused (class 0: ACK, NAK, CNP; class 1:
// data and READ responses) is not granted until the pause ends: frames granted before
// the PAUSE arrived still go (at most lookahead_cycles + one frame: the MAC's
// response delay). turn() returns when nothing more can go now, with the cycle the
// next turn is due; the shell's process sleeps until then. Plain C++.
#pragma once

#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"

namespace oonic::ornic {

class TxArbiterCore {
 public:
  TxArbiterCore(const CoreEnv& env, Agenda& agenda, ControlSource& control, TxSource& data,
                const HdrGeneratorPort& hdr);
  // Everything due at `now`; returns the cycle of the next turn (kNever: nothing booked).
  Cycle turn(Cycle now);

 private:
  const OrnicParams& p_;
  Agenda& agenda_;
  ControlSource& control_;
  TxSource& data_;
  const HdrGeneratorPort& hdr_;
  bool data_turn_ = true;
  Counter& data_grants_;
  Counter& read_grants_;
  Counter& control_grants_;
};

}  // namespace oonic::ornic
