// Why the NIC did not take a frame, in one table (stats and packets.csv use these names).
#pragma once

#include <cstdint>

namespace oonic::ornic {

enum class Drop : uint8_t {
  kNone = 0,
  kTruncated,            // frame shorter than its headers say (or cut by the capture's snaplen)
  kNotRoce,              // not IPv4/IPv6 UDP port 4791 (ARP, TCP, ICMPv6, ...)
  kBadIpHeader,          // IPv4 with options, bad lengths
  kUdOrCnp,              // UD (connection management on QP1) or CNP: not RC traffic
  kUnknownOpcode,        // BTH opcode not RC and not an oonic extension
  kBadExtension,         // malformed extension header
  kBadPadding,           // pad count larger than the payload
  kBadIcrc,              // ICRC mismatch
  kUnknownQp,            // no QP context for the destination QPN
  kDuplicate,            // PSN already received (re-ACKed)
  kPsnSequenceError,     // standard packet with a PSN gap (NAK sent once per ePSN)
  kBeyondWindow,         // OOO packet beyond the QP's bitmap (N x M PSNs)
  kBitmapPoolExhausted,  // OOO packet needing a bitmap block with the pool empty
  kSpotBeforeStartAddr,  // OOO WRITE Spot/Last before Start_Addr was cached
  kRemoteAccess,         // R_Key unknown or address outside its region (NAK remote access)
  kNoRecvBuffer,         // SEND with no receive buffer left (RNR NAK)
  kInvalidRequest,       // opcode out of sequence (e.g. WRITE Middle with no First)
  kReqPktBufferFull,     // Req Pkt Buffer had no room for the payload
  kReqHdrBufferFull,     // Req Hdr Buffer had no room for the header
  kRspPktBufferFull,
  kRspHdrBufferFull,
  kUnexpectedResponse,  // response with no outstanding request (e.g. READ response for no READ)
  kUntrackable,         // the ordering scheme cannot track this PSN (GBN gap, MELO middle access)
  kSyncEarly,  // MP-RDMA: a Sync message's packet before every earlier message is in (NACK)
  kNotForDut,  // sent by the device under test in the capture (not replayed as input)
  kTrimmed,    // a switch cut its payload (switch.trim; DSCP nic.trim_dscp): NACKed
  kCount
};

inline const char* drop_name(Drop d) {
  static const char* const names[] = {"none",
                                      "truncated",
                                      "not_roce",
                                      "bad_ip_header",
                                      "ud_or_cnp",
                                      "unknown_opcode",
                                      "bad_extension_header",
                                      "bad_padding",
                                      "bad_icrc",
                                      "unknown_qp",
                                      "duplicate",
                                      "psn_sequence_error",
                                      "beyond_window",
                                      "bitmap_pool_exhausted",
                                      "spot_before_start_addr",
                                      "remote_access",
                                      "no_recv_buffer",
                                      "invalid_request",
                                      "req_pkt_buffer_full",
                                      "req_hdr_buffer_full",
                                      "rsp_pkt_buffer_full",
                                      "rsp_hdr_buffer_full",
                                      "unexpected_response",
                                      "untrackable",
                                      "sync_early",
                                      "not_for_dut",
                                      "trimmed"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<size_t>(Drop::kCount));
  return names[static_cast<size_t>(d)];
}

}  // namespace oonic::ornic
