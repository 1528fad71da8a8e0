// The ordering seam (docs/DESIGN.md "Seams"): the RX plane
// asks an ordering unit about every data packet of a QP. Each scheme (ornic,
// gbn, irn, melo, melo+, left, left+, mprdma, eunomia) is a plain C++ core
// behind this interface; its SystemC shell owns the SRAM and turns the
// reported cost into cycles.
//
// Cost is counted as ORNIC §4.3 counts: one cycle per array access or per block
// reached through a pointer. `locate_cycles` is the part spent finding the
// packet's bitmap block (the figure the bitmap comparison reports);
// `blocks_held` is the pool blocks the QP holds after the call.
// All PSN arithmetic is modulo 2^24.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model/wire/roce.h"

namespace oonic::ordering {

enum class Verdict : uint8_t {
  kInOrder,        // psn == ePSN: accepted, ePSN advanced
  kOutOfOrder,     // ahead of ePSN: accepted and tracked
  kDuplicate,      // already received
  kBeyondWindow,   // outside what the scheme can track: dropped
  kPoolExhausted,  // needed a block, pool empty: dropped
  kQpClosed,       // QP not open: dropped
  kUntrackable,    // the scheme cannot track it (e.g. MELO middle access, GBN gap): dropped
};
const char* to_string(Verdict v);

// What the receiver tells the sender about this packet (besides data placement).
enum class Feedback : uint8_t {
  kNone,
  kAck,        // cumulative ACK of ePSN - 1
  kNak,        // NAK (PSN sequence error) carrying ePSN: go back N
  kSack,       // selective ACK: ePSN and this PSN (IRN, Eunomia, MP-RDMA)
  kNack,       // packet could not be tracked (Eunomia, MP-RDMA beyond L)
  kBitmapNak,  // ORNIC: NAK carrying the bitmap block at ePSN
  kHoleNack,   // MELO: NACK carrying up to 3 most recent holes
};
const char* to_string(Feedback f);

struct Hole {
  uint32_t start_psn = 0;
  uint8_t length = 0;
};

struct Outcome {
  Verdict verdict = Verdict::kQpClosed;
  uint32_t epsn = 0;           // ePSN after this call
  bool head_advanced = false;  // ePSN moved
  bool nak = false;            // ORNIC: loss declared (OTD): send nak_block
  wire::BitmapBlock nak_block;
  Feedback feedback = Feedback::kNone;
  uint32_t sack_psn = 0;        // kSack: the PSN acknowledged selectively
  std::array<Hole, 3> holes{};  // kHoleNack
  uint8_t nholes = 0;
  uint32_t locate_cycles = 0;   // cycles to find the packet's bitmap block
  uint32_t cycles = 0;          // all cycles of the call (includes locate_cycles)
  uint32_t node_accesses = 0;   // node/pointer array accesses (reads + writes)
  uint32_t block_accesses = 0;  // pool block accesses (reads + writes, free-list ops)
  uint32_t blocks_held = 0;     // pool blocks the QP holds after the call
  int32_t blocks_delta = 0;     // change of blocks_held in this call
  // UET's ACK (uet-rud; model/wire/roce.h kUetAck): PSNs placed past ePSN after the
  // call, the SACK bitmap below the packet's PSN (bit i: PSN - 1 - i received) and the
  // packets placed since the previous ACK, this one included.
  uint32_t ooo_count = 0;
  uint64_t sack_bits = 0;
  uint32_t coalesced = 0;
};

// What some schemes need to know of a packet besides its PSN.
struct PacketMeta {
  bool last = false;        // last packet of a message (MP-RDMA Tail; Eunomia "last" bit)
  bool completion = false;  // the message wants a completion (MP-RDMA Tail-with-completion)
  bool has_head = false;    // Eunomia: the packet carries Head metadata
  uint32_t head = 0;        // Eunomia: first sequence number of the connection/message
  uint32_t record = 0;      // the trace record / packet number (1-based; 0 unknown), for reports
  bool ack_req = false;     // the packet asks for an ACK (BTH AckReq; UET: ACK at once)
  bool ecn = false;         // the packet arrived CE-marked (UET: ACK at once)
};

class OrderingUnit {
 public:
  virtual ~OrderingUnit() = default;
  virtual const char* name() const = 0;
  // Start tracking a QP whose next expected PSN is start_psn; otd is the loss
  // tolerance for schemes that use one (ignored by others).
  virtual void open(uint32_t qp, uint32_t start_psn, uint32_t otd) = 0;
  virtual void close(uint32_t qp) = 0;
  virtual bool is_open(uint32_t qp) const = 0;
  virtual Outcome receive(uint32_t qp, uint32_t psn) = 0;
  // Schemes that use packet metadata override this; the others ignore it.
  virtual Outcome receive(uint32_t qp, uint32_t psn, const PacketMeta& meta) {
    (void)meta;
    return receive(qp, psn);
  }
  virtual uint32_t epsn(uint32_t qp) const = 0;
  virtual uint32_t blocks_held(uint32_t qp) const = 0;
  // Consistency check for property tests; false with a reason when broken.
  virtual bool check_invariants(std::string* why) const = 0;
};

}  // namespace oonic::ordering
