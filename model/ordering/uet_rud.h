// UET's RUD receiver (reliable unordered delivery, issue 31) behind the receive seam
// (nic.ordering uet-rud), plain C++: UET's per-PDC receive state in the NIC's ordering
// unit, so its on-chip cost and its ACKs run under every arrival order the other schemes
// see (replay, oonic compare, the fabric). A trimmed request never reaches it: the Req
// Processor drops it and NACKs it (TRIMMED, or TRIMMED_LASTHOP by its DSCP).
//
// State and cost: a static cyclic bitmap of W = window bits a QP (PDC) past the
// cumulative PSN (in the NIC bitmap.nodes_per_qp x bitmap.block_bits, as for irn), the
// structure and cost model of static_bitmap.h (IRN's): a packet in
// the window is placed at once, in order or not; beyond it, dropped and NACKed
// (PSN_OOR_WINDOW). The ACK-coalescing count and the out-of-order count (log2 ack_every +
// log2 W bits a PDC, registers beside ePSN) are not counted in the SRAM.
//
// Feedback (UET RUD's ACK rules; choices where UET 1.0 leaves room, as htsim's UEC model
// makes them). Every ACK is UET's (Feedback kSack; the scheme's trait uet_ack sends it as
// a Scheme Feedback frame of type kUetAck, model/wire/roce.h): the PSN that sent it, the
// out-of-order count (PSNs placed past ePSN), a 48-bit SACK bitmap of the PSNs below it,
// and how many packets it covers. Sent for
//   the PDC's first packet, every ack_every-th placed packet, and at once for a packet
//     that asks for one (AckReq), arrived CE-marked (PacketMeta), or filled the last hole
//     (the OOO count fell to 0: htsim's ACK when the out-of-order queue drains);
//   a duplicate, at once (the sender learns it was received);
// beyond the window: kNack (dropped); otherwise kNone (coalesced).
// Cost of an ACK: the bitmap words its SACK span reaches past ePSN, other than the word
// the locate read, one cycle each (one read each); a span wholly below ePSN is all ones
// and reads nothing. So an in-order packet's ACK costs nothing more, and an out-of-order
// one's at most two words of 64 bits.
// ROD (ordered delivery, nic.ordering uet-rod, UetRod below) takes only the next PSN: the
// go-back-N receiver (gbn.h: its state and zero-cycle cost) with UET's ACKs, coalesced as
// above; an out-of-order packet is dropped and NACKed once per ePSN (UET's ROD_OOO NACK,
// the PSN-sequence NAK on RoCEv2 frames), so the sender goes back N.
#pragma once

#include <cstdint>
#include <vector>

#include "model/ordering/gbn.h"
#include "model/ordering/static_bitmap.h"

namespace oonic::ordering {

// UET's ACK coalescing, per PDC (both receivers): an ACK for the PDC's first packet,
// every `every`-th placed one, and at once when the caller says so (AckReq, a CE mark,
// ...). placed() counts a placed packet and returns the packets the ACK due now covers
// (0: none due); the count restarts after an ACK.
class AckCoalescer {
 public:
  AckCoalescer(uint32_t max_qps, uint32_t every)
      : every_(every), since_(max_qps, 0), first_(max_qps, 1) {}
  bool has(uint32_t qp) const { return qp < since_.size(); }
  void open(uint32_t qp) { since_[qp] = 0, first_[qp] = 1; }
  uint32_t placed(uint32_t qp, bool now) {
    ++since_[qp];
    if (!first_[qp] && since_[qp] < every_ && !now) return 0;
    const uint32_t n = since_[qp];
    since_[qp] = 0, first_[qp] = 0;
    return n;
  }

 private:
  uint32_t every_;
  std::vector<uint32_t> since_;  // placed packets since the last ACK
  std::vector<uint8_t> first_;   // the PDC's first packet not yet seen
};

class UetRud : public detail::CyclicBitmapUnit {
 public:
  struct Params {
    uint32_t window_bits = 256;  // PSNs tracked past the cumulative PSN (bitmap bits)
    uint32_t word_bits = 64;     // bitmap memory width: bits read or written per cycle
    uint32_t block_bits = 16;    // accounting block (bits) for blocks_held
    uint32_t max_qps = 2048;     // PDC slots
    uint32_t ack_every = 4;      // placed packets per coalesced ACK (htsim: 16 KB of 4 KB)
  };
  explicit UetRud(const Params& p)
      : CyclicBitmapUnit(p.window_bits, p.word_bits, p.block_bits, p.max_qps, "UetRud"),
        p_(p),
        acks_(p.max_qps, p.ack_every),
        ooo_(p.max_qps, 0) {}
  const char* name() const override { return "uet-rud"; }
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  Outcome receive(uint32_t qp, uint32_t psn) override { return receive(qp, psn, PacketMeta{}); }
  Outcome receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) override;
  uint32_t ooo_count(uint32_t qp) const { return qp < ooo_.size() ? ooo_[qp] : 0; }

 protected:
  void set_feedback(Outcome& out, uint32_t psn) const override;

 private:
  // Fills out's UET ACK covering `covered` placed packets.
  void ack(uint32_t qp, uint32_t psn, Outcome& out, uint32_t covered);
  Params p_;
  AckCoalescer acks_;
  std::vector<uint32_t> ooo_;  // per PDC: PSNs placed past ePSN (the OOO count)
};

class UetRod final : public Gbn {
 public:
  struct Params {
    uint32_t max_qps = 2048;  // PDC slots
    uint32_t ack_every = 4;   // in-order packets per coalesced ACK
  };
  explicit UetRod(const Params& p) : Gbn(Gbn::Params{p.max_qps}), acks_(p.max_qps, p.ack_every) {}
  const char* name() const override { return "uet-rod"; }
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  Outcome receive(uint32_t qp, uint32_t psn) override { return receive(qp, psn, PacketMeta{}); }
  Outcome receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) override;

 private:
  AckCoalescer acks_;
};

}  // namespace oonic::ordering
