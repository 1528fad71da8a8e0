// Ultra Ethernet Transport (UET 1.0): the Semantic Sublayer's standard request
// header (issue 31, item 1), the one a RUD/ROD request's next_hdr 3 names and the
// one that carries what direct placement needs: the message, its offset and the
// buffer. Layouts as in xdp2's `src/include/uet/ses.h` and Wireshark's
// `packet-uet.c` (uet_pds.h says why those); big-endian, bit fields MSB first.
//
//   44 bytes: rsvd 2 | opcode 6, version 2 | dc | ie | rel | hd | eom | som,
//   message_id 16, ri_generation 8, job_id 24, rsvd 4 | pid_on_fep 12,
//   rsvd 4 | resource_index 12, buffer_offset 64, initiator 32,
//   memory_key (or match bits) 64, then
//     som = 1: header_data 64;
//     som = 0: rsvd 18 | payload_length 14, message_offset 32;
//   request_length 32.
// The small (20 B) and medium (32 B) request forms share its first 12 bytes (opcode ..
// resource_index), then
//   small:  buffer_offset 64;
//   medium: buffer_offset (header_data when hd) 64, initiator 32, memory_key 64.
// Responses (next_hdr 4, 5, 6, riding on a PDS ACK), from xdp2's
// uet_ses_*_response_hdr:
//   common (8 B): list 2 | opcode 6, version 2 | return_code 6, message_id 16,
//     ri_generation 8, job_id 24;
//   no data (12 B, RESPONSE): common, modified_length 32;
//   with data (20 B, RESPONSE_DATA): common, read_request_message_id 16,
//     rsvd 4 | payload_length 12, modified_length 32, message_offset 32;
//   with small data (12 B, RESPONSE_DATA_SMALL): list 2 | opcode 6, version 2 |
//     return_code 6, rsvd 2 | payload_length 14, rsvd 8 | job_id 24,
//     original_request_psn 32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/wire/uet_pds.h"

namespace oonic::wire::uet {

constexpr size_t kSesStdBytes = 44, kSesSmallBytes = 20, kSesMediumBytes = 32;
constexpr size_t kSesResponseBytes = 12, kSesResponseDataBytes = 20,
                 kSesResponseDataSmallBytes = 12;

enum class SesOpcode : uint8_t {
  kNoOp = 0,
  kWrite = 1,
  kRead = 2,
  kAtomic = 3,
  kFetchingAtomic = 4,
  kSend = 5,
  kRendezvousSend = 6,
  kDatagramSend = 7,
  kDeferrableSend = 8,
  kTaggedSend = 9,
};

struct SesStd {
  uint8_t opcode = static_cast<uint8_t>(SesOpcode::kWrite);  // 6 bits
  uint8_t version = 0;                                       // 2 bits
  bool dc = false;                                           // delivery complete
  bool ie = false;                                           // initiator error
  bool rel = false;                                          // relative addressing
  bool hd = false;                                           // header data present
  bool eom = false;                                          // end of message
  bool som = false;  // start of message: header_data, else payload_length + message_offset
  uint16_t message_id = 0;
  uint8_t ri_generation = 0;
  uint32_t job_id = 0;          // 24 bits
  uint16_t pid_on_fep = 0;      // 12 bits
  uint16_t resource_index = 0;  // 12 bits
  uint64_t buffer_offset = 0;
  uint32_t initiator = 0;
  uint64_t memory_key = 0;
  uint64_t header_data = 0;     // som
  uint16_t payload_length = 0;  // !som, 14 bits
  uint32_t message_offset = 0;  // !som: this packet's byte offset in the message
  uint32_t request_length = 0;
};

// A response (next_hdr 4, 5 or 6); which fields a form carries is said above.
struct SesResponse {
  uint8_t list = 0;                      // 2 bits
  uint8_t opcode = 0;                    // 6 bits: the response type
  uint8_t version = 0;                   // 2 bits
  uint8_t return_code = 0;               // 6 bits
  uint16_t message_id = 0;               // not in the small form
  uint8_t ri_generation = 0;             // not in the small form
  uint32_t job_id = 0;                   // 24 bits
  uint32_t modified_length = 0;          // no data, with data
  uint16_t read_request_message_id = 0;  // with data
  uint16_t payload_length = 0;           // with data: 12 bits; with small data: 14 bits
  uint32_t message_offset = 0;           // with data
  uint32_t original_request_psn = 0;     // with small data
};

// The SES header's size for a PDS next_hdr (NextHdr), 0 for none or an unknown value.
size_t ses_bytes(uint8_t next_hdr);

// Writes s (kSesStdBytes) into out; 0 with *st set when cap is short (kTruncated) or
// a value does not fit its field (kBadField).
size_t write_ses_std(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st = nullptr);
// Reads a standard request header: kOk, or kTruncated.
PdsStatus read_ses_std(const uint8_t* in, size_t len, SesStd& out);
// The small and medium request forms (the fields of SesStd they carry; the others read
// as 0 and are not written).
size_t write_ses_small(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st = nullptr);
PdsStatus read_ses_small(const uint8_t* in, size_t len, SesStd& out);
size_t write_ses_medium(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st = nullptr);
PdsStatus read_ses_medium(const uint8_t* in, size_t len, SesStd& out);
// A response of form next_hdr (kResponse, kResponseData, kResponseDataSmall); writing
// an unknown form is kBadField, reading one kUnsupported.
size_t write_ses_response(const SesResponse& r, NextHdr form, uint8_t* out, size_t cap,
                          PdsStatus* st = nullptr);
PdsStatus read_ses_response(const uint8_t* in, size_t len, NextHdr form, SesResponse& out);

}  // namespace oonic::wire::uet
