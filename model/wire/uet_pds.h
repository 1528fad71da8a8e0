// Ultra Ethernet Transport (UET 1.0): the Packet Delivery Sublayer's headers
// (issue 31, item 1, first part). The PDS header follows UDP (destination port
// kUetUdpPort; the entropy value is the UDP source port) and precedes the
// semantic (SES) header its next_hdr names. This codec reads and writes the PDS
// header alone; Ethernet/IP/UDP and SES are not built yet.
//
// Field sizes and order follow the public implementations of UET 1.0 (the UEC
// specification itself could not be read here): xdp2's `src/include/uet/pds.h`
// and Wireshark's `packet-uet.c`, which agree on every type encoded here.
// Where they differ (the CCX state of ACK_CCX / NACK_CCX: 8 or 16 bytes) the type
// is refused (kUnsupported), not guessed. Every multi-byte field is big-endian;
// bit fields are numbered MSB first.
//
//   prologue (all types, 2 bytes): type 5 | next_hdr (control: ctl_type) 4 | flags 7
//   RUD/ROD request (12 B): prologue, clear_psn_offset s16, psn 32, spdcid 16,
//       dpdcid 16 (syn: use_rsv_pdc 1 | rsvd 3 | psn_offset 12)
//   RUD/ROD request with CC (16 B): the request, ccc_id 8, credit_target 24
//   ACK (12 B): prologue, ack_psn_offset s16, cack_psn 32, spdcid 16, dpdcid 16
//   ACK_CC (32 B): the ACK, cc_type 4 | cc_flags 4, mpr 8, sack_psn_offset s16,
//       sack_bitmap 64, then NSCC state (service_time 16, restore_cwnd 1 |
//       rcv_cwnd_pend 7, rcvd_bytes 24, ooo_count 16) or credit state (credit 24,
//       rsvd 24, ooo_count 16)
//   NACK (16 B): prologue, nack_code 8, vendor_code 8, nack_psn 32, spdcid 16,
//       dpdcid 16, payload 32
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace oonic::wire::uet {

constexpr uint16_t kUetUdpPort = 4793;  // IANA; xdp2 and Wireshark use it

enum class PdsType : uint8_t {
  kTss = 1,
  kRudReq = 2,
  kRodReq = 3,
  kRudiReq = 4,
  kRudiResp = 5,
  kUudReq = 6,
  kAck = 7,
  kAckCc = 8,
  kAckCcx = 9,
  kNack = 10,
  kControl = 11,
  kNackCcx = 12,
  kRudCcReq = 13,
  kRodCcReq = 14,
};

enum class NextHdr : uint8_t {
  kNone = 0,
  kRequestSmall = 1,
  kRequestMedium = 2,
  kRequestStd = 3,
  kResponse = 4,
  kResponseData = 5,
  kResponseDataSmall = 6,
};

// Flags (the prologue's low 7 bits), by type.
constexpr uint8_t kReqRetx = 0x10;   // request: a retransmission
constexpr uint8_t kReqAr = 0x08;     // request: ACK request (ACK this one now)
constexpr uint8_t kReqSyn = 0x04;    // request: PDC establishment (dpdcid not yet known)
constexpr uint8_t kAckM = 0x20;      // ACK/NACK: the acknowledged packet was ECN-marked
constexpr uint8_t kAckRetx = 0x10;   // ACK/NACK: it was a retransmission
constexpr uint8_t kAckP = 0x08;      // ACK: a probe's answer
constexpr uint8_t kAckReqShift = 1;  // ACK: req, 2 bits (0 none, 1 clear PSN, 2 close PDC)
constexpr uint8_t kNackNt = 0x08;    // NACK: 0 RUD/ROD, 1 RUDI

// NACK codes (UET 1.0; a subset named here, every 8-bit value is carried).
constexpr uint8_t kNackTrimmed = 0x01;
constexpr uint8_t kNackTrimmedLastHop = 0x02;
constexpr uint8_t kNackTrimmedAck = 0x03;
constexpr uint8_t kNackNoPdcAvail = 0x04;
constexpr uint8_t kNackNoBitmap = 0x06;
constexpr uint8_t kNackNoPktBuffer = 0x07;
constexpr uint8_t kNackPsnOutOfWindow = 0x0B;
constexpr uint8_t kNackRodOoo = 0x0D;
constexpr uint8_t kNackInvalidDpdcid = 0x0E;
constexpr uint8_t kNackPktNotRcvd = 0x12;
constexpr uint8_t kNackRcvrInferLoss = 0x1A;

constexpr size_t kReqBytes = 12, kReqCcBytes = 16, kAckBytes = 12, kAckCcBytes = 32,
                 kNackBytes = 16;

enum class CcType : uint8_t { kNscc = 0, kCredit = 1 };

struct Pds {
  PdsType type = PdsType::kRudReq;
  uint8_t next_hdr = 0;  // NextHdr, or a control packet's ctl_type
  uint8_t flags = 0;     // 7 bits
  // Requests.
  int16_t clear_psn_offset = 0;  // CLEAR_PSN = psn + offset
  uint32_t psn = 0;
  uint16_t spdcid = 0, dpdcid = 0;
  bool use_rsv_pdc = false;    // syn only (in place of dpdcid)
  uint16_t psn_offset = 0;     // syn only, 12 bits: START_PSN = psn - psn_offset
  uint8_t ccc_id = 0;          // *_CC_REQ
  uint32_t credit_target = 0;  // *_CC_REQ, 24 bits
  // ACK and ACK_CC (psn above is the cumulative ACK PSN, CACK_PSN).
  int16_t ack_psn_offset = 0;  // ACK_PSN = cack_psn + offset
  CcType cc_type = CcType::kNscc;
  uint8_t cc_flags = 0;  // 4 bits
  uint8_t mpr = 0;       // maximum PSN range
  int16_t sack_psn_offset = 0;
  uint64_t sack_bitmap = 0;
  uint16_t service_time = 0;  // NSCC
  bool restore_cwnd = false;  // NSCC
  uint8_t rcv_cwnd_pend = 0;  // NSCC, 7 bits
  uint32_t rcvd_bytes = 0;    // NSCC, 24 bits
  uint32_t credit = 0;        // credit CC, 24 bits
  uint16_t ooo_count = 0;
  // NACK (psn above is the NACKed PSN).
  uint8_t nack_code = 0, vendor_code = 0;
  uint32_t payload = 0;  // NACK: the highest PSN received + 1
};

enum class PdsStatus : uint8_t {
  kOk,
  kTruncated,    // fewer bytes than the type's header
  kUnsupported,  // a type this codec does not encode (TSS, RUDI, UUD, CCX, control)
  kBadField,     // a value that does not fit its field (building only)
};
const char* to_string(PdsStatus s);

// The type's name as UET 1.0 spells it in lower case ("rud_req", "ack_cc", "nack"), or
// "type_<n>".
std::string type_name(PdsType t);
// RUD or ROD request, with or without CC.
bool is_request(PdsType t);
// The header's size for p.type (0 for an unsupported type).
size_t pds_bytes(PdsType t);
// Writes p's header into out (cap bytes); returns the bytes written or 0 (status
// in *st, if given).
size_t write_pds(const Pds& p, uint8_t* out, size_t cap, PdsStatus* st = nullptr);
// Reads a header from [in, in + len): kOk and the header's size in *used.
PdsStatus read_pds(const uint8_t* in, size_t len, Pds& out, size_t* used = nullptr);

}  // namespace oonic::wire::uet
