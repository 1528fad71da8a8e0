// MP-RDMA's receiver (docs/DESIGN.md M6, MP-RDMA NSDI'18) as a plain C++ core: per QP a
// cyclic tracking bitmap of L two-bit slots {Empty, Received, Tail, Tail-with-completion},
// head = rcv_nxt. A packet is marked in its slot; then the head-of-line (HoL) scan walks
// from the head, clears fully received HoL messages, moves the head past them and counts
// a completed message (pop an RQ WQE) and, for Tail-with-completion, a CQE. A packet with
// PSN >= rcv_nxt + L is dropped and NACKed. Every other packet is ACKed with SACK (its own
// PSN) and AACK (rcv_nxt after the update).
//
// Every call reports what it cost, counted as ORNIC §4.3 counts (one cycle per array
// access); the ordering shell turns the counts into cycles. The bitmap is the QP's own
// static array (there is no pool and no pointer array): slot reads and writes are
// `block_accesses`, `node_accesses` is always 0.
//
// Cost model of receive() (documented here, asserted in tests):
//   locate      1 cycle  read the packet's slot at (head + psn - rcv_nxt) % L
//                        (locate_cycles = 1; the index itself is address arithmetic)
//   slot write  1 cycle  write Received / Tail / Tail-with-completion (Empty slot only)
//   HoL scan    ceil(S / W) cycles, S = slots examined from the head up to and including
//                        the first Empty slot (S = L when none is Empty), W =
//                        scan_slots_per_cycle (default 1: one cycle per slot examined).
//                        One block access per scan cycle (a W-slot read); clearing the
//                        slots the head moves past is one masked write (1 block access)
//                        in the cycle that finds the stop slot, no extra cycle.
//   below rcv_nxt       0 cycles  duplicate, decided from the rcv_nxt register alone
//   psn >= rcv_nxt + L  0 cycles  dropped; decided by the locate's address arithmetic
//                                 before any slot read (locate_cycles = 0)
//   duplicate in window 1 cycle   the locate read finds the slot non-Empty
//   QP closed           0 cycles
//
// Choices where docs/DESIGN.md M6 / "Wire format" leave room (all asserted in the unit tests):
//
//  * Head granularity (Params::head_advance). kPerMessage (default, §6 literally: "scans
//    for a fully received head-of-line message, clears it, moves the head"): the head, and
//    with it rcv_nxt = AACK, moves only past whole messages, i.e. to just after the last
//    Tail that has no Empty slot before it. A message longer than L packets can then never
//    complete (its Tail is always >= rcv_nxt + L and dropped): the QP stalls; keep
//    messages <= L packets in this mode. kPerPacket: the head moves over every contiguous
//    non-Empty slot (rcv_nxt = first missing PSN, as a TCP-style cumulative ACK); each
//    Tail passed completes its message. Messages complete in the same calls in both modes.
//  * When the scan runs. kPerMessage: after every newly marked packet, from the head
//    (the slot just written is re-read: no forwarding). kPerPacket: only when the packet
//    filled the head slot (psn == rcv_nxt); otherwise the head slot is Empty by invariant
//    and a scan could not move the head, so it is skipped (0 cycles). Duplicates and
//    drops never scan.
//  * The scan's stop offset is kept in a per-QP register, first_empty (offset of the first
//    Empty slot from the head, L when none). It costs nothing (the scan produces it) and
//    gives two answers without touching the bitmap:
//      - Verdict: kInOrder when the packet filled the lowest missing PSN
//        (psn == rcv_nxt + first_empty, the PSN a go-back-N receiver would expect), else
//        kOutOfOrder. In kPerPacket mode this is psn == rcv_nxt. So in-order traffic is
//        never counted as out of order although rcv_nxt may lag by a partial message;
//        head_advanced says whether rcv_nxt moved in this call.
//      - The lost PSN a NACK names (below).
//  * Beyond the window (psn - rcv_nxt >= L): kBeyondWindow, Feedback kNack, on every such
//    packet (no rate limiting: the MP-RDMA sender's recovery mode absorbs repeats).
//    Outcome.epsn = rcv_nxt (AACK, as for every call) and Outcome.sack_psn = the lost PSN
//    = rcv_nxt + first_empty, the first Empty slot ("a loss pushes OOD beyond L → receiver
//    NACKs the lost PSN"). This equals rcv_nxt in kPerPacket mode and whenever the HoL
//    message has no packet yet; with a partly received HoL message (kPerMessage) it is the
//    actual hole, so the sender does not resend packets the receiver holds. If the whole
//    window is non-Empty (only possible in kPerMessage with a message longer than L), it
//    is rcv_nxt + L.
//  * Feedback: every packet of an open QP that is not dropped gets kSack with
//    sack_psn = its PSN and epsn = AACK, duplicates included (the earlier ACK may have
//    been lost; re-SACKing a held PSN is harmless). A closed QP gives kNone.
//  * PacketMeta: last -> Tail, last && completion -> Tail-with-completion; completion
//    without last is ignored (Received). The metadata-less receive(qp, psn) treats the
//    packet as a one-packet message without completion (Tail), so a caller that knows no
//    message boundaries gets a plain per-packet bitmap instead of a stalled head.
//    Metadata of a duplicate is ignored (the slot keeps its first value).
//  * Counters: messages_completed(qp) and cqes(qp) count since open(); they are the only
//    way to learn completions (Outcome has no field for them; the shell diffs them around
//    a call). open() resets them, close() keeps them readable.
//  * blocks_held: the bitmap is static per QP, so it reports ceil(2L / block_bits) blocks
//    (8 for L = 64, block_bits = 16) while the QP is open and 0 otherwise; receive()
//    never changes it (blocks_delta = 0).
//  * The Sync flag (a synchronise message arriving early is dropped and NACKed) and RQ
//    WQE availability are not modelled here: PacketMeta carries no Sync bit.
//  * open()'s otd is ignored. Reopening an open QP first closes it.
//
// All PSN arithmetic is modulo 2^24 (wire::psn_add / psn_diff). Plain C++: no SystemC.
// receive() never allocates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/ordering/ordering_unit.h"
#include "model/wire/roce.h"

namespace oonic::ordering {

class MpRdma : public OrderingUnit {
 public:
  // How far the HoL scan moves the head (see the file comment).
  enum class HeadAdvance : uint8_t {
    kPerMessage,  // past whole messages only (docs/DESIGN.md M6)
    kPerPacket,   // over every contiguous received slot
  };

  // Two-bit slot states.
  enum class Slot : uint8_t { kEmpty = 0, kReceived = 1, kTail = 2, kTailCompletion = 3 };

  struct Params {
    uint32_t slots = 64;                // L, tracking-bitmap slots (PSNs) per QP; 1..2^22
    uint32_t max_qps = 2048;            // QP slots (qp index 0..max_qps-1); >= 1
    uint32_t scan_slots_per_cycle = 1;  // W, slots the HoL scan examines per cycle; >= 1
    uint32_t block_bits = 16;           // bits per block when reporting blocks_held; >= 1
    HeadAdvance head_advance = HeadAdvance::kPerMessage;
  };

  explicit MpRdma(const Params& p);
  const char* name() const override { return "mprdma"; }

  // Start tracking a QP whose next expected PSN is start_psn (otd ignored). Reopening an
  // open QP first closes it. Resets the completion counters.
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  // Stop tracking: slots cleared; counters stay readable until the next open().
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;

  // Without metadata: a one-packet message without completion (Tail).
  Outcome receive(uint32_t qp, uint32_t psn) override;
  Outcome receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) override;

  uint32_t epsn(uint32_t qp) const override;  // rcv_nxt (AACK)
  uint32_t blocks_held(uint32_t qp) const override;
  // Messages whose Tail the head has passed (RQ WQEs popped) and CQEs pushed since open().
  uint64_t messages_completed(uint32_t qp) const;
  uint64_t cqes(uint32_t qp) const;
  // Lowest PSN not yet received: rcv_nxt + first_empty (rcv_nxt + L when the window is full).
  uint32_t lowest_missing(uint32_t qp) const;
  // Slot view (tests, VCD): slot i counted from the head (i < L).
  Slot slot(uint32_t qp, uint32_t i_from_head) const;
  uint32_t head_ptr(uint32_t qp) const;                      // slot index of rcv_nxt
  uint32_t bitmap_blocks() const { return bitmap_blocks_; }  // blocks_held of an open QP
  const Params& params() const { return p_; }

  // Consistency check (tests): head in range, first_empty matches the slots, no Tail
  // before the first Empty slot (kPerMessage) / head slot Empty (kPerPacket), closed QPs
  // all Empty, unused bits zero, cqes <= messages.
  bool check_invariants(std::string* why) const override;

 private:
  struct Qp {
    uint32_t rcv_nxt = 0;      // PSN of the head slot (AACK)
    uint32_t head = 0;         // slot index of rcv_nxt, 0..L-1
    uint32_t first_empty = 0;  // offset of the first Empty slot from the head, L if none
    uint64_t messages = 0;
    uint64_t cqes = 0;
    bool open = false;
  };
  Params p_;
  uint32_t words_per_qp_ = 1;  // 64-bit words holding one QP's 2L bits
  uint32_t bitmap_blocks_ = 0;
  std::vector<Qp> qps_;
  std::vector<uint64_t> bits_;  // max_qps * words_per_qp_, slot i at bits 2i..2i+1

  uint64_t* words(uint32_t qp) { return &bits_[static_cast<size_t>(qp) * words_per_qp_]; }
  const uint64_t* words(uint32_t qp) const {
    return &bits_[static_cast<size_t>(qp) * words_per_qp_];
  }
  static Slot get(const uint64_t* w, uint32_t i) {
    return static_cast<Slot>((w[i / 32] >> (2 * (i % 32))) & 3u);
  }
  static void set(uint64_t* w, uint32_t i, Slot s) {
    const uint32_t sh = 2 * (i % 32);
    w[i / 32] = (w[i / 32] & ~(uint64_t{3} << sh)) | (uint64_t{static_cast<uint8_t>(s)} << sh);
  }
};

const char* to_string(MpRdma::Slot s);

}  // namespace oonic::ordering
