// The "static bitmap" baseline of ORNIC's bitmap comparison (docs/DESIGN.md M1, ORNIC §4.3) as a
// plain C++ core, and the per-QP cyclic bitmap it shares with IRN (irn.h: same structure and cost
// model, different width and feedback).
//
// Structure: every QP slot owns a fixed cyclic bitmap of W bits (StaticBitmap:
// window_bits; IRN: bitmap_bits) in a memory of word_bits-bit words, ceil(W / word_bits)
// words per QP, reserved for all max_qps slots at construction. Slot (head + d) % W stands
// for PSN ePSN + d, 0 <= d < W; head is the slot of ePSN. There is no pool and no pointer:
// a packet's word is found by address arithmetic (QP base + slot / word_bits).
//
// Cost model of receive(), one cycle per word access. The memory is a simple dual-port
// RAM (one read port, one write port, one-cycle read latency: the usual FPGA BRAM).
//   psn < ePSN          0 cycles  kDuplicate: a compare with the ePSN register, no access
//   psn >= ePSN + W     0 cycles  kBeyondWindow, dropped: the address arithmetic says so
//                                 (locate_cycles = 0), no access
//   locate              1 cycle   read the word holding slot (head + psn - ePSN) % W; one
//                                 direct index whatever the PSN (locate_cycles = 1)
//   bit already set     +0        kDuplicate: the locate's read shows it
//   set the bit         1 cycle   write the word back with the bit set (kOutOfOrder)
//   in order (psn==ePSN)
//     "set"             1 cycle   write the word back with the bits the head passes in it
//                                 cleared; the next zero inside that word is found in the
//                                 locate's read data, so ePSN + 1 costs nothing more
//     head advance      +1 cycle  per further word the scan has to read to find the first
//                                 zero after ePSN (each change of word index). Pipelined:
//                                 the read of word i+1 shares its cycle with the clearing
//                                 write of word i, and the "set" cycle is the last write,
//                                 so a scan over k further words costs exactly k cycles.
// So: OOO packet 2, duplicate in the window 1, in-order packet 2 + k.
// block_accesses counts word reads and writes (locate read 1, set write 1, plus 1 read and
// 1 write per further word scanned); node_accesses is always 0 (no node/pointer array).
// blocks_held = ceil(W / block_bits) while the QP is open, 0 when closed; blocks_delta is
// always 0 in receive() (the holding changes only at open/close).
//
// Choices where the spec is open:
//  * The bits the head passes are cleared as it passes them (their slots are then reused
//    for PSNs up to ePSN + W - 1); an in-order packet's own bit is never stored.
//  * Full turn: if all W - 1 slots after ePSN are set when ePSN arrives, the scan goes once
//    round the bitmap and stops on the just-cleared head slot (ePSN += W), re-reading the
//    starting word; k counts that re-read. With W <= word_bits the window is one word and
//    k is always 0.
//  * blocks_held rounds up: a partly used block is held (320 / 16 = 20; IRN 256 / 16 = 16).
//  * StaticBitmap feedback: kAck for an in-order packet and for every duplicate (re-ACK of
//    ePSN - 1); kNone for an out-of-order packet and for a drop beyond the window. The
//    baseline has no loss signal (the §4.3 comparison needs none); its sender recovers by
//    timeout. Default window_bits 320 = OTD 64 + BDP_Window 256 (ORNIC Eqs. 5, 6): the span
//    ORNIC's 20 nodes of 16 bits cover, the static bitmap of the §4.3 comparison.
//  * open() ignores otd; reopening an open QP resets it. close() clears the QP's bits (the
//    memory stays reserved for the slot; blocks_held reports 0 while closed).
//
// All PSN arithmetic is modulo 2^24. Plain C++: no SystemC. receive() does not allocate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/ordering/ordering_unit.h"

namespace oonic::ordering {

namespace detail {

// Per-QP cyclic bitmaps with the cost model above. receive() fills verdict, ePSN and
// costs; the caller chooses the Feedback.
class CyclicBitmap {
 public:
  struct Geometry {
    uint32_t window_bits = 0;  // W, bits per QP (1 .. 2^22 - 1)
    uint32_t word_bits = 0;    // bits the memory reads or writes per cycle (>= 1)
    uint32_t block_bits = 0;   // bits per accounting block for blocks_held (>= 1)
    uint32_t max_qps = 0;      // QP slots (>= 1)
  };
  // `who` names the owning core in exception messages.
  CyclicBitmap(const Geometry& g, const char* who);

  void open(uint32_t qp, uint32_t start_psn);
  void close(uint32_t qp);
  bool is_open(uint32_t qp) const;
  Outcome receive(uint32_t qp, uint32_t psn);

  uint32_t epsn(uint32_t qp) const;
  uint32_t head(uint32_t qp) const;  // slot of ePSN
  // Whether psn counts as received: true below ePSN, the slot's bit in the window, false
  // beyond it or for a closed QP.
  bool received(uint32_t qp, uint32_t psn) const;
  uint32_t blocks_held(uint32_t qp) const;
  uint32_t blocks_per_qp() const { return blocks_per_qp_; }
  uint32_t words_per_qp() const { return words_per_qp_; }  // word_bits words
  const Geometry& geometry() const { return g_; }
  bool check_invariants(std::string* why) const;

 private:
  struct Qp {
    uint32_t epsn = 0;
    uint32_t head = 0;
    bool open = false;
  };
  Geometry g_;
  const char* who_;
  uint32_t words_per_qp_ = 0;   // ceil(W / word_bits): what the cost model reads
  uint32_t blocks_per_qp_ = 0;  // ceil(W / block_bits)
  uint32_t store_words_ = 0;    // ceil(W / 64): model storage per QP
  std::vector<Qp> qps_;
  std::vector<uint64_t> bits_;  // max_qps * store_words_

  uint64_t* row(uint32_t qp) { return &bits_[static_cast<size_t>(qp) * store_words_]; }
  const uint64_t* row(uint32_t qp) const { return &bits_[static_cast<size_t>(qp) * store_words_]; }
};

// An OrderingUnit over a CyclicBitmap: the per-QP bookkeeping the static-bitmap
// schemes share (IRN, the static baseline). A scheme only names itself and says
// which feedback each verdict gets.
class CyclicBitmapUnit : public OrderingUnit {
 public:
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override {
    (void)otd;  // no reorder tolerance: the window is the whole bitmap
    bm_.open(qp, start_psn);
  }
  void close(uint32_t qp) override { bm_.close(qp); }
  bool is_open(uint32_t qp) const override { return bm_.is_open(qp); }
  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override {
    Outcome out = bm_.receive(qp, psn);
    set_feedback(out, psn);
    return out;
  }
  uint32_t epsn(uint32_t qp) const override { return bm_.epsn(qp); }
  uint32_t blocks_held(uint32_t qp) const override { return bm_.blocks_held(qp); }
  bool check_invariants(std::string* why) const override { return bm_.check_invariants(why); }
  uint32_t head(uint32_t qp) const { return bm_.head(qp); }
  bool received(uint32_t qp, uint32_t psn) const { return bm_.received(qp, psn); }

 protected:
  CyclicBitmapUnit(uint32_t window_bits, uint32_t word_bits, uint32_t block_bits, uint32_t max_qps,
                   const char* who)
      : bm_(CyclicBitmap::Geometry{window_bits, word_bits, block_bits, max_qps}, who) {}
  virtual void set_feedback(Outcome& out, uint32_t psn) const = 0;

 private:
  CyclicBitmap bm_;
};

}  // namespace detail

class StaticBitmap : public detail::CyclicBitmapUnit {
 public:
  struct Params {
    uint32_t window_bits = 320;  // bits per QP (PSNs ePSN .. ePSN + window_bits - 1)
    uint32_t word_bits = 64;     // bitmap memory width: bits read or written per cycle
    uint32_t block_bits = 16;    // accounting block (bits) for blocks_held (ORNIC's M)
    uint32_t max_qps = 2048;     // QP slots (qp index 0..max_qps-1)
  };
  explicit StaticBitmap(const Params& p)
      : CyclicBitmapUnit(p.window_bits, p.word_bits, p.block_bits, p.max_qps, "StaticBitmap"),
        p_(p) {}
  const char* name() const override { return "static"; }
  const Params& params() const { return p_; }

 protected:
  // kAck for in order and duplicates; the baseline has no loss signal (kNone otherwise).
  void set_feedback(Outcome& out, uint32_t psn) const override;

 private:
  Params p_;
};

}  // namespace oonic::ordering
