// UET's receiver for one PDC (packet delivery context), as plain C++ (issue 31,
// item 2, first part): RUD (reliable unordered delivery: every packet in the window
// is placed when it arrives) or ROD (reliable ordered delivery: only the next PSN is
// taken). It tracks which PSNs arrived in a bitmap of `window` bits past the
// cumulative PSN, and says for each packet what the NIC does: place it or not, and
// which ACK or NACK (model/wire/uet_pds.h) goes back. The NIC does not run this core:
// its receivers are model/ordering/uet_rud.h (uet-rud, uet-rod, with clocked SRAM and
// cycles), which apply the same rules; folding the two into one is still to do.
//
// Choices where UET 1.0 leaves room (htsim's UEC model does the same):
// - ACK coalescing: an ACK every `ack_every` placed packets, and at once for a packet
//   with AR, an ECN-marked one (ACK_ON_ECN), a duplicate, and the PDC's first packet.
// - SACK: 64 bits from base = max(highest PSN - 63, CACK + 1); sack_psn_offset = base -
//   CACK (the public sources do not settle the offset's origin).
// - A trimmed packet is not placed: NACK TRIMMED (or TRIMMED_LASTHOP), payload = the
//   highest PSN received + 1. Beyond the window: NACK PSN_OOR_WINDOW. ROD, out of order:
//   NACK ROD_OOO, not placed.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/wire/uet_pds.h"

namespace oonic::uet {

struct RudReceiverParams {
  uint32_t window = 256;   // PSNs tracked past the cumulative PSN (bitmap bits)
  uint32_t ack_every = 4;  // placed packets per coalesced ACK (htsim: 16 KB of 4 KB packets)
  bool ordered = false;    // ROD instead of RUD
};

struct RxPacket {
  uint32_t psn = 0;
  bool ar = false;        // ACK requested
  bool ecn = false;       // arrived CE-marked
  bool trimmed = false;   // a switch cut its payload (DSCP trimmed)
  bool last_hop = false;  // trimmed at the last hop
};

struct RxVerdict {
  bool place = false;                   // write its payload where its SES header says
  bool duplicate = false;               // already placed (a resend): not placed again
  std::optional<wire::uet::Pds> reply;  // the ACK or NACK to send now, if any
};

class RudReceiverCore {
 public:
  // start_psn: the PDC's first PSN (CACK starts one below it).
  RudReceiverCore(const RudReceiverParams& p, uint32_t start_psn, uint16_t local_pdcid,
                  uint16_t peer_pdcid);
  RxVerdict receive(const RxPacket& pkt);

  uint32_t cack_psn() const { return cack_; }
  // Most PSNs tracked at once past CACK (the bitmap's peak occupancy), and the largest
  // out-of-order degree (highest PSN - CACK - 1 when a packet arrived).
  uint32_t peak_tracked() const { return peak_tracked_; }
  uint32_t max_ood() const { return max_ood_; }
  uint64_t placed() const { return placed_; }
  uint64_t duplicates() const { return dups_; }
  uint64_t acks() const { return acks_; }
  uint64_t nacks() const { return nacks_; }

 private:
  bool seen(uint32_t psn) const;  // psn in (cack, cack + window]
  wire::uet::Pds ack(bool m) const;
  wire::uet::Pds nack(uint32_t psn, uint8_t code) const;
  RudReceiverParams p_;
  uint16_t local_, peer_;
  uint32_t cack_;              // every PSN up to here placed
  uint32_t highest_;           // highest PSN placed (cack_ when none past it)
  std::vector<uint8_t> bits_;  // window bits: PSN cack_ + 1 + i (ring, by PSN mod window)
  uint32_t tracked_ = 0;       // set bits
  uint32_t since_ack_ = 0;
  bool first_ = true;
  uint32_t peak_tracked_ = 0, max_ood_ = 0;
  uint64_t placed_ = 0, dups_ = 0, acks_ = 0, nacks_ = 0;
};

}  // namespace oonic::uet
