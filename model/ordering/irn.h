// IRN's receiver (docs/DESIGN.md M5, IRN SIGCOMM'18; docs/DESIGN.md "Seams", row `irn`) as a plain
// C++ core: selective repeat over a static per-QP bitmap one BDP wide; every out-of-order packet is
// answered with a SACK, which IRN's sender treats as a loss signal (it retransmits the holes below
// the SACKed PSN).
//
// Structure and cost model: the per-QP cyclic bitmap of static_bitmap.h
// (detail::CyclicBitmap), W = bitmap_bits. Summary, one cycle per word access:
//   psn < ePSN           0 cycles                       kDuplicate
//   psn >= ePSN + W      0 cycles                       kBeyondWindow (dropped)
//   duplicate in window  1 (locate: word read)          kDuplicate
//   out of order         2 (locate 1 + set-bit write 1) kOutOfOrder
//   in order             2 + k (k = further words the head scan reads, word_bits per
//                        cycle, read of word i+1 overlapped with the clearing write of i)
// locate_cycles is 1 whenever the bitmap is touched (direct index into the QP's bitmap),
// else 0. block_accesses counts word reads + writes; node_accesses is 0. blocks_held =
// ceil(bitmap_bits / block_bits) = 16 by default, constant while the QP is open: the
// static bitmap holds its memory whether or not the QP sees reordering.
//
// Bitmap width: bitmap_bits = one BDP in packets. 100 Gb/s x 90 us = 9.0e6 bits =
// 1,125,000 B; / 4096 B per packet = 274.7 PSNs. ORNIC's Eq. 6 example rounds this BDP
// window to "~256" and builds its 320-bit QP width as 256 + OTD 64; the default uses the
// same 256 so that IRN and ORNIC are compared at the same BDP_Window (and a hardware
// bitmap is a power of two). Set bitmap_bits = 275 to cover the exact 90 us BDP.
//
// Feedback (choices where the spec is open):
//   kInOrder       kAck  cumulative ACK of the new ePSN - 1 (also when out-of-order data
//                        remains above it: the ACK's ePSN names the next hole)
//   kOutOfOrder    kSack sack_psn = this PSN, Outcome::epsn = the cumulative ACK point (IRN
//                        calls this a NACK: cumulative ACK + the PSN that triggered it)
//   kDuplicate     kAck  re-ACK of ePSN - 1, below ePSN or bit already set alike; no SACK
//                        is repeated (the sender got it with the first copy)
//   kBeyondWindow  kNack the packet was not tracked: the sender must send this PSN again
//                        (the caller knows it: it is the PSN it passed in; sack_psn stays 0
//                        as it names SACKed PSNs only). IRN's sender caps its packets in
//                        flight at the bitmap size (BDP-FC), so a conforming sender never
//                        triggers it.
//   kQpClosed      kNone
// open() ignores otd (IRN has no reorder tolerance: every OOO packet is a loss signal);
// reopening an open QP resets it.
//
// All PSN arithmetic is modulo 2^24. Plain C++: no SystemC. receive() does not allocate.
#pragma once

#include <cstdint>
#include <string>

#include "model/ordering/ordering_unit.h"
#include "model/ordering/static_bitmap.h"

namespace oonic::ordering {

class Irn : public detail::CyclicBitmapUnit {
 public:
  struct Params {
    uint32_t bitmap_bits = 256;  // PSNs tracked per QP (one BDP: see above), 1 .. 2^22-1
    uint32_t word_bits = 64;     // bitmap memory width: bits read or written per cycle
    uint32_t block_bits = 16;    // accounting block (bits) for blocks_held (ORNIC's M)
    uint32_t max_qps = 2048;     // QP slots (qp index 0..max_qps-1)
  };
  explicit Irn(const Params& p)
      : CyclicBitmapUnit(p.bitmap_bits, p.word_bits, p.block_bits, p.max_qps, "Irn"), p_(p) {}
  const char* name() const override { return "irn"; }
  const Params& params() const { return p_; }

 protected:
  void set_feedback(Outcome& out, uint32_t psn) const override;  // the table above

 private:
  Params p_;
};

}  // namespace oonic::ordering
