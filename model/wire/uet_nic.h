// The NIC's packets on UET's own wire (nic.wire uet; issue 31, item 1). The NIC's
// blocks keep one packet form, the RoCE-shaped FrameSpec / PacketView of roce.h (its
// opcode table says what each block does with a packet); the Hdr Generator writes it as
// a UET frame (UDP kUetUdpPort, PDS, SES, payload; no ICRC) and the RX parser reads a
// UET frame back into it. The mapping is one table both ways (docs/DESIGN.md "UET's
// wire"):
//
//   OOO WRITE (FSpot, LastFSpot) RUD_REQ (ROD_REQ: NicWire::ordered) + SES standard
//                                request, opcode WRITE: buffer_offset = the packet's
//                                address, memory_key = R_Key, request_length = the
//                                WQE's length, som = offset 0, eom = Last, message_offset
//                                and payload_length (som = 0), message_id = MSN (16 bit)
//   SEND First/Middle/Last/Only  the same, opcode SEND, som/eom from the opcode
//   UET ACK (Scheme Feedback 5)  ACK_CC (NSCC): CACK_PSN = ePSN - 1, ACK_PSN = the PSN
//                                that sent it, the 48 SACK bits in the 64-bit bitmap
//                                (SACK_PSN = ACK_PSN - 64, bit j = PSN SACK_PSN + j),
//                                ooo_count (0xFFFF: not known), M = ECE, rcvd_bytes =
//                                the coalesced packets x pmtu_bytes; an ACK PSN more
//                                than 32767 from CACK (a stale duplicate) leaves as the
//                                cumulative ACK alone (offsets and bitmap 0)
//   UET NACK (Scheme Feedback 3) one NACK per PSN it names: nack_code TRIMMED (or
//                                PSN_OUT_OF_WINDOW), payload = ePSN
//   ACK                          ACK (12 B): CACK_PSN = the ACKed PSN
//   NAK (AETH syndrome)          NACK, vendor_code = the syndrome (nack_code ROD_OOO for
//                                a PSN sequence error, NO_PKT_BUFFER for RNR, else
//                                vendor_code alone tells it)
//
// The PDC ids are the QP numbers (spdcid the sender's, dpdcid the receiver's; 16 bits).
// READ requests and responses keep their RoCEv2 form (UET's read response, a PDS request
// carrying an SES response with data, is not modelled; the NIC reads both wires). Every
// other packet (CNPs, OOO NAKs with a bitmap, the other schemes' feedback, Spot packets
// that leave out the address, INT stacks) has no form here: to_uet says why, and the
// NIC's parameters refuse a scheme that would send one (OrnicParams::validate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/wire/roce.h"
#include "model/wire/uet_frame.h"

namespace oonic::wire::uet {

struct NicWire {
  uint32_t pmtu_bytes = 4096;  // an ACK's coalesced packets <-> rcvd_bytes
  bool ordered = false;        // requests as ROD_REQ (uet-rod), else RUD_REQ
};

// s (one frame; a UET NACK naming several PSNs: entry `entry` of them) as a UET frame
// spec; spdcid is the sending QP. False with *why set when s has no UET form.
bool to_uet(const FrameSpec& s, uint32_t spdcid, const NicWire& w, UetFrameSpec& out,
            std::string* why, uint32_t entry = 0);
// Whether s travels in UET's form on nic.wire uet (false: a READ request or response,
// kept in RoCEv2's).
bool carries(const FrameSpec& s);
// The frames s becomes (a UET NACK naming n PSNs: n frames, else 1).
uint32_t frames_of(const FrameSpec& s);
// The NIC's view of a UET frame parsed into u: kOk, or kUnknownOpcode for a PDS type or
// SES opcode the NIC does not take.
ParseStatus to_view(const uint8_t* frame, const UetView& u, const NicWire& w, PacketView& v);

}  // namespace oonic::wire::uet

namespace oonic::wire {

// A frame of either transport, told by its UDP destination port: RoCEv2 (parse) or
// UET (uet::parse_frame, then uet::to_view). A UET frame has no ICRC to check.
ParseStatus parse_any(const uint8_t* frame, size_t len, PacketView& out, bool check_icrc,
                      const uet::NicWire& w = uet::NicWire{});

}  // namespace oonic::wire
