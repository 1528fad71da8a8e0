// Go-back-N receiver of a standard RoCEv2 NIC (docs/DESIGN.md M1:
// the in-order NIC ORNIC is compared against; docs/DESIGN.md "Seams",
// row `gbn`) as a plain C++ core behind the ordering seam.
//
// The receiver accepts only the expected PSN. Per QP it keeps ePSN and one flag, "a NAK
// was sent for the current ePSN" (the IBTA responder's NAK-sequence-error state).
//
//   psn == ePSN  kInOrder,     ePSN + 1, Feedback kAck (cumulative ACK of the new ePSN - 1)
//   psn <  ePSN  kDuplicate,   Feedback kAck (re-ACK: IBTA responders acknowledge a
//                              duplicate request again, which repairs a lost ACK)
//   psn >  ePSN  kUntrackable, dropped; Feedback kNak carrying ePSN (Outcome::epsn), at
//                most once per ePSN value: later gap packets while ePSN has not moved get
//                kNone (IBTA: after a PSN sequence error NAK the responder silently drops
//                until the expected PSN arrives). Outcome::nak (ORNIC's bitmap-NAK flag)
//                stays false; the NAK is only the Feedback.
//   QP not open  kQpClosed,    Feedback kNone.
// "<" and ">" are modulo 2^24 (wire::psn_diff): the 2^23 PSNs behind ePSN are duplicates,
// ePSN + 1 .. ePSN + 2^23 - 1 are gaps (psn == ePSN + 2^23 counts as behind, as psn_diff
// maps that distance to -2^23).
//
// Cost model: 0 cycles, 0 accesses for every call. There is no bitmap: the verdict is a
// compare against the ePSN register and the NAK flag is a register bit next to it (ORNIC
// §4.3 counts array and block accesses only). blocks_held is always 0.
//
// Choices where the spec is open:
//  * A duplicate never clears or sets the NAK flag; only an in-order packet (ePSN moves)
//    re-arms the NAK, so a go-back-N sender gets exactly one NAK per stall point.
//  * open() ignores otd; reopening an open QP resets it (ePSN = start_psn, NAK re-armed).
//
// All PSN arithmetic is modulo 2^24. Plain C++: no SystemC. receive() does not allocate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/ordering/ordering_unit.h"

namespace oonic::ordering {

class Gbn : public OrderingUnit {
 public:
  struct Params {
    uint32_t max_qps = 2048;  // QP slots (qp index 0..max_qps-1)
  };
  explicit Gbn(const Params& p);
  const char* name() const override { return "gbn"; }

  // Start tracking a QP at start_psn; otd is ignored. Reopening an open QP resets it.
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;

  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override;

  uint32_t epsn(uint32_t qp) const override;
  uint32_t blocks_held(uint32_t qp) const override;  // always 0
  // True when a NAK was sent for the QP's current ePSN (no further NAK until it moves).
  bool nak_outstanding(uint32_t qp) const;
  const Params& params() const { return p_; }

  bool check_invariants(std::string* why) const override;

 private:
  struct Qp {
    uint32_t epsn = 0;
    bool nak_sent = false;
    bool open = false;
  };
  Params p_;
  std::vector<Qp> qps_;
};

}  // namespace oonic::ordering
