// A whole UET frame (issue 31, item 1): Ethernet (+ VLAN), IPv4 or IPv6, UDP to
// kUetUdpPort with the entropy value as its source port, the PDS header, for a
// request whose next header is the standard request the SES header, then the
// payload. No ICRC: UET over UDP relies on the Ethernet FCS (IPv6 carries a UDP
// checksum, which build_frame fills). A trimmed frame (a switch cut its payload to
// forward the headers, issue 31 item 4) is told by its DSCP; the values are the
// operator's choice in UET 1.0, so they are parameters here (UetDscp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/wire/roce.h"
#include "model/wire/uet_pds.h"
#include "model/wire/uet_ses.h"

namespace oonic::wire::uet {

// DSCP code points (6 bits). Defaults: an ns-3 UET model's example values (UET 1.0
// names the classes and leaves the numbers to the operator).
struct UetDscp {
  uint8_t trimmable = 8;          // data a switch may trim
  uint8_t trimmed = 16;           // trimmed by a switch
  uint8_t trimmed_last_hop = 18;  // trimmed by the destination's last-hop switch
  uint8_t control = 46;           // ACK, NACK, control
};

struct UetFrameSpec {
  FrameSpec outer;  // its Ethernet, IP and UDP fields only; udp_sport is the entropy value
  Pds pds;
  SesStd ses;            // a request's SES header (next_hdr std, small or medium)
  SesResponse response;  // an ACK's SES response (next_hdr response forms)
  const uint8_t* payload = nullptr;
  uint32_t payload_len = 0;
};

struct UetView {
  PacketView outer;  // Ethernet, IP and UDP fields (udp_sport: the entropy value)
  Pds pds;
  bool has_ses = false;  // a request's SES header, in ses
  SesStd ses;
  bool has_response = false;  // an ACK's SES response, in response
  SesResponse response;
  const uint8_t* payload = nullptr;  // into the frame
  uint32_t payload_len = 0;
  bool trimmed = false;  // DSCP is trimmed or trimmed_last_hop
  bool trimmed_last_hop = false;
};

enum class UetStatus : uint8_t {
  kOk,
  kNotUet,       // not IP/UDP to kUetUdpPort (a RoCE frame, a PAUSE, ...)
  kTruncated,    // shorter than its headers say
  kBadHeader,    // IP/UDP lengths inconsistent
  kUnsupported,  // a PDS type or SES form this codec does not read
};
const char* to_string(UetStatus s);

// The SES header p announces: a request's std, small or medium form, an ACK's (or
// ACK_CC's) response forms; its size in bytes (ses_size; 0: none).
size_t ses_size(const Pds& p);
bool carries_ses(const Pds& p);
size_t frame_size(const UetFrameSpec& s);
// Bytes before the payload.
size_t header_size(const UetFrameSpec& s);
// The frame, or empty when a field does not fit (PdsStatus::kBadField).
std::vector<uint8_t> build_frame(const UetFrameSpec& s);
// The same into out (cap bytes): its length, or 0 when a field does not fit or cap is
// short. The payload may already sit in place (s.payload == out + header_size(s)).
size_t build_frame(const UetFrameSpec& s, uint8_t* out, size_t cap);
UetStatus parse_frame(const uint8_t* frame, size_t len, UetView& out,
                      const UetDscp& dscp = UetDscp{});
// Trims a parsed data frame in place, as a switch would: the payload cut, the DSCP set
// to dscp.trimmed (or trimmed_last_hop), the IP and UDP lengths fixed. Returns its new
// length (the frame's own when it has no payload to cut).
size_t trim_frame(uint8_t* frame, size_t len, bool last_hop, const UetDscp& dscp = UetDscp{});

}  // namespace oonic::wire::uet
