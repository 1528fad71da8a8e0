// Eunomia's sender-side agent (docs/DESIGN.md M2) as a SystemC block, used by the QP
// Manager (transmit) and the Rsp Manager (feedback) when `nic.ordering: eunomia`:
//  * appends Head (the message's first PSN) and the last bit to every data packet of
//    an OOO WRITE (the metadata extension of docs/DESIGN.md "Wire format": BTH byte 8 bit 5 + 8
//    bytes);
//  * holds a WRITE's last packet until everything before it is acknowledged in order
//    (costs about one RTT: the receiver's application synchronises on it);
//  * takes a SACK as information only: the SACKed PSN is marked received in a per-QP
//    SACK scoreboard (a ring of window_psns bits rounded up to a power of two, indexed
//    by PSN), no recovery starts;
//  * a NACK (the receiver could not track the packet and dropped it) resends that PSN
//    (selective repeat);
//  * on a timeout, resends only the PSNs in [first unacknowledged, first never sent)
//    that the scoreboard does not mark (selective repeat, as IRN), instead of going
//    back N.
// State: the scoreboard's bits per QP (the scoreboard); no SRAM instance of its own (it is
// kept with the QP's send state).
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/wire/roce.h"

namespace oonic::eunomia {

class SenderAgent : public sc_core::sc_module {
 public:
  SenderAgent(sc_core::sc_module_name name, const ornic::BlockEnv& env, uint32_t window_psns);

  // Puts Head and last on a data packet of an OOO WRITE.
  void tag(wire::FrameSpec& f, uint32_t head, bool last);
  // The hold rule: true when the packet about to be sent (send_psn) is a WRITE's last
  // packet and PSNs before it are unacknowledged (una != send_psn). Counts each hold
  // once per (QP, PSN).
  bool holds_last(uint32_t qi, bool is_last_of_write, uint32_t send_psn, uint32_t una);
  // SACK of psn (una: the receiver's cumulative PSN after the SACK was applied).
  void on_sack(uint32_t qi, uint32_t psn, uint32_t una);
  void on_nack() { nacks_.inc(); }
  // The first unacknowledged PSN moved from `from` to `to`: forget their marks.
  void advanced(uint32_t qi, uint32_t from, uint32_t to);
  // Whether psn was SACKed (and not yet passed by the cumulative ACK).
  bool sacked(uint32_t qi, uint32_t psn) const;
  void on_timeout_resend(uint64_t psns, uint64_t skipped) {
    timeout_resends_.inc(psns);
    timeout_skipped_.inc(skipped);
  }

 private:
  uint32_t window_;
  std::vector<std::vector<uint64_t>> board_;  // per QP, window_ bits (lazily sized)
  std::vector<uint32_t> held_psn_;            // per QP: last PSN counted as held (+1)
  Counter& tagged_;
  Counter& holds_;
  Counter& sacks_;
  Counter& nacks_;
  Counter& timeout_resends_;
  Counter& timeout_skipped_;
  std::vector<uint64_t>& row(uint32_t qi);
};

}  // namespace oonic::eunomia
