// The receive-order schemes as data: one table row per `nic.ordering` value, with the
// core it builds from the NIC's bitmap geometry, the SRAM instances it needs, and the
// traits the rest of the NIC reads instead of comparing scheme names. Every scheme gets
// the same budget: a QP window of W = nodes_per_qp x block_bits PSNs (ORNIC: OTD + BDP,
// Eq. 5) and a shared pool of pool_blocks blocks of block_bits bits.
//   ornic        cyclic node array of nodes_per_qp nodes, shared pool
//   gbn          ePSN only (in order; a gap is NAKed, the sender goes back N)
//   irn          static per-QP bitmap of W bits (one BDP), SACK per OOO packet
//   static       static per-QP bitmap of W bits (the bitmap-compare baseline)
//   melo, melo+  linked list over the shared pool, a list spans <= nodes_per_qp blocks
//   left, left+  the same with the cache pointer (threshold: bitmap.left_cache_threshold)
//   mprdma       L two-bit slots (mprdma_slots, else W), head moved per packet (WQEs are
//                longer than L)
//   eunomia      packet driver over HD bitmap modules (rows of block_bits, cap W bits,
//                metadata 8 + W/block_bits blocks), eunomia_* geometry below
// Adding a scheme is one core (an OrderingUnit) and one row in factory.cpp
// (docs/DESIGN.md "Seams"). Plain C++.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/eunomia/packet_driver_core.h"
#include "model/ordering/ordering_unit.h"

namespace oonic::ordering {

struct SchemeGeometry {
  uint32_t block_bits = 16;
  uint32_t nodes_per_qp = 20;
  uint32_t pool_blocks = 4096;
  uint32_t max_qps = 2048;
  uint32_t left_cache_threshold = 2;
  uint32_t renak_psns = 64;   // ORNIC: re-declare a persisting hole (bitmap.renak_psns)
  uint32_t mprdma_slots = 0;  // MP-RDMA's L; 0: the QP window W (the same budget as the others)
  uint32_t eunomia_master_blocks = 1024;  // master_array blocks (2 B) per module
  uint32_t eunomia_connections = 256;     // connections per module
  uint32_t eunomia_alloc_bits_per_cycle = 64;
};

// The on-chip memories a scheme needs, each an SRAM instance of the Bitmap
// Manager (`bitmap.<name>`), and what each holds:
//   kState     per-QP state words (ORNIC: `node_array`; others: `qp_state`);
//              pointer-array / node accesses of a call land here unless kNextPtr exists
//   kStore     the bits themselves (ORNIC and lists: `block_pool`; IRN/static:
//              `qp_bitmaps`; MP-RDMA: `slots`); block accesses land here
//   kNextPtr   lists: one next pointer per pool block (`next_ptr`); occupied by
//              the blocks lists hold
//   kFreeList  pooled schemes: the free-slot stack of block ids (`free_list`:
//              ORNIC's block pool free list, MELO's avail_ptr stack); occupied by
//              the free blocks, so it starts full
// Eunomia has none here: its SRAMs are its receiver agent's (`eunomia.*`,
// model/eunomia/receiver_agent.h).
struct SramSpec {
  enum Role : uint8_t { kState, kStore, kNextPtr, kFreeList };
  Role role;
  std::string name;
  uint32_t width_bits;
  uint32_t depth;
};

// What the receive side and the sender need to know of a scheme besides its core.
struct SchemeTraits {
  // The receiver's loss/out-of-order feedback travels as ORNIC's OOO NAK with a bitmap
  // block (0x1F); otherwise as a Scheme Feedback frame (0x1E) or a standard NAK.
  bool bitmap_nak = false;
  bool sack_as_mp_ack = false;  // a SACK goes out as an MP-RDMA ACK (AACK, SACK, VP)
  // Every ACK of an OOO WQE is the unit's, sent as UET's ACK (kUetAck: SACK bitmap, OOO
  // count, entropy value, ECE), and no CNP: the ACK echoes ECN. (A SEND, which goes
  // through the in-order path, is still ACKed the RC way.)
  bool uet_ack = false;
  // The receiver takes only the next PSN (UET's ROD): UET's sender then keeps the resend
  // holdoff on NACKs, since going back N resends a trimmed packet anyway.
  bool ordered_delivery = false;
  bool reorder_buffer = false;      // MELO: out-of-order payload parks in host memory first
  bool receiver_agent = false;      // Eunomia: the Bitmap Manager holds the receiver agent
  bool ooo_send = false;            // a SEND carrying Head metadata is received out of order
  bool ack_every_in_order = false;  // every packet that moves ePSN is ACKed (Eunomia's hold)
  // The window is counted from the start of the block holding ePSN (ORNIC's header node,
  // the lists' start block), so only N x M - (M - 1) PSNs from ePSN are sure to fit: the
  // sender's automatic window (tx.qp_manager.max_inflight_psns 0) is that span.
  bool block_window = false;
  const char* recovery = "";  // the sender's loss recovery paired with it (tx.recovery auto)
  const char* rate = "none";  // the sender's rate/window core paired with it (tx.rate auto)
};

struct Scheme {
  const char* name;
  SchemeTraits traits;
  std::unique_ptr<OrderingUnit> (*make)(const SchemeGeometry& g);
  std::vector<SramSpec> (*layout)(const SchemeGeometry& g);
  // Bits of per-QP state kept outside the store while a QP is open (ORNIC: its node
  // array; lists: head/tail pointers and RCV.NXT/HIGH; static bitmaps: ePSN).
  uint64_t (*qp_state_bits)(const SchemeGeometry& g);
  // Bits one held block occupies in the store (Eunomia: a 2-byte master_array block).
  uint32_t (*store_unit_bits)(const SchemeGeometry& g);
};

// Every scheme, in the order `oonic compare` lists them.
const std::vector<Scheme>& schemes();
// The row of `name`; throws oonic::Error (msg::kConfig) listing the known ones.
const Scheme& find_scheme(const std::string& name);
std::vector<std::string> scheme_names();

// Shorthands over the table.
std::unique_ptr<OrderingUnit> make_unit(const std::string& scheme, const SchemeGeometry& g);
uint64_t qp_state_bits(const std::string& scheme, const SchemeGeometry& g);
std::vector<SramSpec> sram_layout(const std::string& scheme, const SchemeGeometry& g);
uint32_t store_unit_bits(const std::string& scheme, const SchemeGeometry& g);
uint32_t block_id_bits(const SchemeGeometry& g);
// Eunomia's core parameters from the geometry (what make_unit("eunomia") builds).
eunomia::PacketDriverCore::Params eunomia_params(const SchemeGeometry& g);

}  // namespace oonic::ordering
