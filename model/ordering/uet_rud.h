// UET's RUD receiver (reliable unordered delivery, issue 31) behind the receive seam
// (nic.ordering uet-rud), plain C++: the same per-PDC state as UET's receiver core
// (rud_receiver_core.h) in the NIC's ordering unit, so its on-chip cost and its ACKs run
// under every arrival order the other schemes see (replay, oonic compare, the fabric).
//
// State and cost: a static cyclic bitmap of W = window bits a QP (PDC) past the
// cumulative PSN (in the NIC bitmap.nodes_per_qp x bitmap.block_bits, as for irn), the
// structure and cost model of static_bitmap.h (IRN's): a packet in
// the window is placed at once, in order or not; beyond it, dropped and NACKed
// (PSN_OOR_WINDOW). The ACK-coalescing count (log2 ack_every bits a PDC) is not counted.
//
// Feedback (UET RUD's ACK rules; choices where UET 1.0 leaves room, as htsim's UEC model
// makes them):
//   the PDC's first packet, and every ack_every-th placed packet: an ACK, which carries
//     the SACK state: kSack (sack_psn = this PSN) when the packet was out of order, else
//     kAck (the cumulative PSN);
//   a duplicate: kAck at once (the sender learns it was received);
//   beyond the window: kNack;
//   otherwise kNone (coalesced).
// ACK-request and ECN-marked packets (ACK at once in UET) are not seen here: the seam's
// packet metadata carries neither on RoCEv2 frames. ROD (ordered delivery) takes only the
// next PSN and NACKs the rest, which on RoCEv2 frames is go-back-N (nic.ordering gbn).
#pragma once

#include <cstdint>
#include <vector>

#include "model/ordering/static_bitmap.h"

namespace oonic::ordering {

class UetRud : public detail::CyclicBitmapUnit {
 public:
  struct Params {
    uint32_t window_bits = 256;  // PSNs tracked past the cumulative PSN (bitmap bits)
    uint32_t word_bits = 64;     // bitmap memory width: bits read or written per cycle
    uint32_t block_bits = 16;    // accounting block (bits) for blocks_held
    uint32_t max_qps = 2048;     // PDC slots
    uint32_t ack_every = 4;      // placed packets per coalesced ACK (rud_receiver_core.h)
  };
  explicit UetRud(const Params& p)
      : CyclicBitmapUnit(p.window_bits, p.word_bits, p.block_bits, p.max_qps, "UetRud"),
        p_(p),
        since_(p.max_qps, 0),
        first_(p.max_qps, 1) {}
  const char* name() const override { return "uet-rud"; }
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override;

 protected:
  void set_feedback(Outcome& out, uint32_t psn) const override;

 private:
  Params p_;
  std::vector<uint32_t> since_;  // per PDC: placed packets since the last ACK
  std::vector<uint8_t> first_;   // per PDC: its first packet not yet seen
};

}  // namespace oonic::ordering
