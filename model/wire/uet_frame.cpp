// UET frame codec (see uet_frame.h).
#include "model/wire/uet_frame.h"

#include <cstring>

#include "model/wire/bytes.h"

namespace oonic::wire::uet {

namespace {

size_t l3_offset(const PacketView& v) {
  return kEthHeaderBytes + (v.has_vlan ? kVlanTagBytes : 0);
}
size_t ip_bytes(uint8_t version) {
  return version == 6 ? kIpv6HeaderBytes : kIpv4HeaderBytes;
}

}  // namespace

const char* to_string(UetStatus s) {
  switch (s) {
    case UetStatus::kOk:
      return "ok";
    case UetStatus::kNotUet:
      return "not a UET frame";
    case UetStatus::kTruncated:
      return "truncated";
    case UetStatus::kBadHeader:
      return "bad IP/UDP header";
    case UetStatus::kUnsupported:
      return "unsupported PDS type or SES form";
  }
  return "?";
}

size_t ses_size(const Pds& p) {
  const auto h = static_cast<NextHdr>(p.next_hdr);
  if (is_request(p.type) &&
      (h == NextHdr::kRequestStd || h == NextHdr::kRequestSmall || h == NextHdr::kRequestMedium))
    return ses_bytes(p.next_hdr);
  if ((p.type == PdsType::kAck || p.type == PdsType::kAckCc) &&
      (h == NextHdr::kResponse || h == NextHdr::kResponseData || h == NextHdr::kResponseDataSmall))
    return ses_bytes(p.next_hdr);
  return 0;
}

bool carries_ses(const Pds& p) {
  return ses_size(p) != 0;
}

size_t frame_size(const UetFrameSpec& s) {
  return kEthHeaderBytes + (s.outer.vlan ? kVlanTagBytes : 0) + ip_bytes(s.outer.ip_version) +
         kUdpHeaderBytes + pds_bytes(s.pds.type) + ses_size(s.pds) + s.payload_len;
}

size_t header_size(const UetFrameSpec& s) {
  return frame_size(s) - s.payload_len;
}

size_t build_frame(const UetFrameSpec& s, uint8_t* out, size_t cap) {
  const size_t pds = pds_bytes(s.pds.type);
  const size_t len = frame_size(s);
  if (!pds || cap < len) return 0;
  const size_t l3 = kEthHeaderBytes + (s.outer.vlan ? kVlanTagBytes : 0);
  const size_t udp_len = len - l3 - ip_bytes(s.outer.ip_version);
  size_t at = write_eth_ip_udp(s.outer, kUetUdpPort, udp_len, out);
  if (!write_pds(s.pds, out + at, pds)) return 0;
  at += pds;
  if (const size_t n = ses_size(s.pds)) {
    const auto h = static_cast<NextHdr>(s.pds.next_hdr);
    uint8_t* o = out + at;
    const size_t w = h == NextHdr::kRequestStd      ? write_ses_std(s.ses, o, n)
                     : h == NextHdr::kRequestSmall  ? write_ses_small(s.ses, o, n)
                     : h == NextHdr::kRequestMedium ? write_ses_medium(s.ses, o, n)
                                                    : write_ses_response(s.response, h, o, n);
    if (!w) return 0;
    at += n;
  }
  if (s.payload_len) {
    // The payload may already sit in place (the NIC's transmit slots): not copied.
    if (s.payload && s.payload != out + at) std::memmove(out + at, s.payload, s.payload_len);
    if (!s.payload) std::memset(out + at, 0, s.payload_len);
    at += s.payload_len;
  }
  if (s.outer.ip_version == 6)  // IPv6 forbids a zero UDP checksum (RFC 8200 8.1)
    wr16(out + l3 + kIpv6HeaderBytes + 6, udp6_checksum(out + l3, udp_len));
  return at;
}

std::vector<uint8_t> build_frame(const UetFrameSpec& s) {
  std::vector<uint8_t> f(frame_size(s));
  if (!build_frame(s, f.data(), f.size())) return {};
  return f;
}

UetStatus parse_frame(const uint8_t* frame, size_t len, UetView& out, const UetDscp& dscp) {
  out = UetView{};
  // The RoCE parser reads Ethernet, IP and UDP and stops at a port not its own.
  const ParseStatus st = parse(frame, len, out.outer, false);
  if (st == ParseStatus::kTruncated) return UetStatus::kTruncated;
  if (st == ParseStatus::kBadIpHeader) return UetStatus::kBadHeader;
  if (st != ParseStatus::kNotRoce || out.outer.udp_dport != kUetUdpPort) return UetStatus::kNotUet;
  const size_t l4 = l3_offset(out.outer) + ip_bytes(out.outer.ip_version);
  const size_t udp_len = rd16(frame + l4 + 4);
  if (udp_len < kUdpHeaderBytes || udp_len > len - l4) return UetStatus::kBadHeader;
  const size_t end = l4 + udp_len;
  size_t at = l4 + kUdpHeaderBytes;
  size_t used = 0;
  const PdsStatus ps = read_pds(frame + at, end - at, out.pds, &used);
  if (ps == PdsStatus::kTruncated) return UetStatus::kTruncated;
  if (ps != PdsStatus::kOk) return UetStatus::kUnsupported;
  at += used;
  const bool req = is_request(out.pds.type);
  if (const size_t n = ses_size(out.pds)) {
    const auto h = static_cast<NextHdr>(out.pds.next_hdr);
    const uint8_t* in = frame + at;
    PdsStatus r;
    if (h == NextHdr::kRequestStd) {
      r = read_ses_std(in, end - at, out.ses);
    } else if (h == NextHdr::kRequestSmall) {
      r = read_ses_small(in, end - at, out.ses);
    } else if (h == NextHdr::kRequestMedium) {
      r = read_ses_medium(in, end - at, out.ses);
    } else {
      r = read_ses_response(in, end - at, h, out.response);
      out.has_response = r == PdsStatus::kOk;
    }
    if (r != PdsStatus::kOk) return UetStatus::kTruncated;
    out.has_ses = req;
    at += n;
  } else if (req && out.pds.next_hdr != static_cast<uint8_t>(NextHdr::kNone)) {
    return UetStatus::kUnsupported;  // a request announcing a response form, or no form
  }
  out.payload = frame + at;
  out.payload_len = static_cast<uint32_t>(end - at);
  const uint8_t d = out.outer.tos >> 2;
  out.trimmed_last_hop = d == dscp.trimmed_last_hop;
  out.trimmed = d == dscp.trimmed || out.trimmed_last_hop;
  return UetStatus::kOk;
}

size_t trim_frame(uint8_t* frame, size_t len, bool last_hop, const UetDscp& dscp) {
  UetView v;
  if (parse_frame(frame, len, v, dscp) != UetStatus::kOk || !v.payload_len) return len;
  const size_t l3 = l3_offset(v.outer);
  const size_t l4 = l3 + ip_bytes(v.outer.ip_version);
  const size_t cut = static_cast<size_t>(v.payload - frame);  // the headers stay
  const size_t udp_len = cut - l4;
  rewrite_ip_udp(frame, v.outer, last_hop ? dscp.trimmed_last_hop : dscp.trimmed, udp_len);
  if (v.outer.ip_version == 6) wr16(frame + l4 + 6, udp6_checksum(frame + l3, udp_len));
  return cut;
}

}  // namespace oonic::wire::uet
