// Fuzz harness: the UET PDS and SES header codecs (model/wire/uet_pds.h, uet_ses.h),
// both on every input. Properties beyond
// "no crash": a header that reads kOk used exactly its type's size, inside the input;
// writing what was read and reading it again gives the same header, byte for byte
// when written once more (reserved bits are the only bytes allowed to differ from
// the input, and they are written as zero). The same for the SES standard header, its
// small and medium forms and the three responses. And
// the input as a whole frame: a frame that parses has its payload inside it, and
// trimmed it still parses, trimmed, with no payload. And the input as the NIC reads it
// (wire::parse_any, model/wire/uet_nic.h): a UET frame the NIC takes has its payload
// inside it and, written back as the NIC would send that packet, reads back the same.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "model/wire/uet_frame.h"
#include "model/wire/uet_nic.h"
#include "model/wire/uet_pds.h"
#include "model/wire/uet_ses.h"
#include "testbench/fuzz/fuzz_common.h"

namespace {

void check_ses(const uint8_t* data, size_t size) {
  using namespace oonic::wire::uet;
  SesStd s;
  if (read_ses_std(data, size, s) != PdsStatus::kOk) return;
  uint8_t a[kSesStdBytes], b[kSesStdBytes];
  if (write_ses_std(s, a, sizeof a) != kSesStdBytes) std::abort();
  SesStd t;
  if (read_ses_std(a, sizeof a, t) != PdsStatus::kOk) std::abort();
  if (write_ses_std(t, b, sizeof b) != kSesStdBytes || std::memcmp(a, b, sizeof a) != 0)
    std::abort();
  for (size_t i = 0; i < kSesStdBytes; ++i)
    if ((a[i] & ~data[i]) != 0) std::abort();
}

// The small and medium requests and the three responses: the same round trip.
template <class T, class Read, class Write>
void round_trip(const uint8_t* data, size_t size, size_t n, Read read, Write write) {
  T s;
  if (read(data, size, s) != oonic::wire::uet::PdsStatus::kOk) return;
  if (size < n) std::abort();
  uint8_t a[64], b[64];
  if (write(s, a, sizeof a) != n) std::abort();
  T t;
  if (read(a, n, t) != oonic::wire::uet::PdsStatus::kOk) std::abort();
  if (write(t, b, sizeof b) != n || std::memcmp(a, b, n) != 0) std::abort();
  for (size_t i = 0; i < n; ++i)
    if ((a[i] & ~data[i]) != 0) std::abort();
}

void check_ses_forms(const uint8_t* data, size_t size) {
  using namespace oonic::wire::uet;
  round_trip<SesStd>(
      data, size, kSesSmallBytes,
      [](const uint8_t* d, size_t n, SesStd& s) { return read_ses_small(d, n, s); },
      [](const SesStd& s, uint8_t* o, size_t c) { return write_ses_small(s, o, c); });
  round_trip<SesStd>(
      data, size, kSesMediumBytes,
      [](const uint8_t* d, size_t n, SesStd& s) { return read_ses_medium(d, n, s); },
      [](const SesStd& s, uint8_t* o, size_t c) { return write_ses_medium(s, o, c); });
  for (NextHdr f : {NextHdr::kResponse, NextHdr::kResponseData, NextHdr::kResponseDataSmall})
    round_trip<SesResponse>(
        data, size, ses_bytes(static_cast<uint8_t>(f)),
        [f](const uint8_t* d, size_t n, SesResponse& r) { return read_ses_response(d, n, f, r); },
        [f](const SesResponse& r, uint8_t* o, size_t c) { return write_ses_response(r, f, o, c); });
}

void check_frame(const uint8_t* data, size_t size) {
  using namespace oonic::wire::uet;
  UetView v;
  if (parse_frame(data, size, v) != UetStatus::kOk) return;
  if (v.payload < data || v.payload + v.payload_len > data + size) std::abort();
  std::vector<uint8_t> f(data, data + size);
  const size_t n = trim_frame(f.data(), f.size(), false);
  UetView t;
  if (parse_frame(f.data(), n, t) != UetStatus::kOk) std::abort();
  if (v.payload_len && (!t.trimmed || t.payload_len != 0)) std::abort();
}

void check_nic(const uint8_t* data, size_t size) {
  using namespace oonic::wire;
  PacketView v;
  if (parse_any(data, size, v, false) != ParseStatus::kOk || v.udp_dport != uet::kUetUdpPort)
    return;
  if (v.payload < data || v.payload + v.payload_len > data + size ||
      v.header_len + v.payload_len != v.frame_len || !v.info)
    std::abort();
  FrameSpec s;
  s.src_mac = v.src_mac, s.dst_mac = v.dst_mac, s.vlan = v.has_vlan, s.vlan_tci = v.vlan_tci;
  s.ip_version = v.ip_version, s.src_ip = v.src_ip, s.dst_ip = v.dst_ip;
  s.tos = v.tos, s.ttl = v.ttl, s.ip_id = v.ip_id, s.udp_sport = v.udp_sport;
  s.bth = v.bth, s.reth = v.reth, s.aeth = v.aeth, s.feedback = v.feedback;
  s.payload = v.payload, s.payload_len = v.payload_len;
  uet::UetFrameSpec u;
  std::string why;
  if (!uet::to_uet(s, 0, uet::NicWire{}, u, &why)) std::abort();
  const std::vector<uint8_t> f = uet::build_frame(u);
  PacketView w;
  if (f.empty() || parse_any(f.data(), f.size(), w, false) != ParseStatus::kOk) std::abort();
  const SchemeFeedback &a = v.feedback, &b = w.feedback;
  // An ACK whose ACK PSN (or the 64 PSNs under it) lies beyond a signed 16-bit offset
  // from its cumulative PSN goes back out as the cumulative ACK alone (uet_nic.h).
  const uint32_t cack = psn_add(v.bth.psn, -1);
  const int32_t off = psn_diff(a.psn[0], cack), sack_off = psn_diff(psn_add(a.psn[0], -64), cack);
  const bool far = a.type == SchemeFeedback::kUetAck &&
                   (off < -32768 || off > 32767 || sack_off < -32768 || sack_off > 32767);
  if (far && (b.psn[0] != cack || uet_sack_bits(b) != 0)) std::abort();
  if (!far && (a.psn[0] != b.psn[0] || uet_sack_bits(a) != uet_sack_bits(b))) std::abort();
  if (w.bth.opcode != v.bth.opcode || w.bth.psn != v.bth.psn || w.bth.dest_qp != v.bth.dest_qp ||
      w.bth.ack_req != v.bth.ack_req || w.aeth.syndrome != v.aeth.syndrome ||
      w.payload_len != v.payload_len || w.reth.va != v.reth.va || w.reth.rkey != v.reth.rkey ||
      w.reth.dma_len != v.reth.dma_len || a.type != b.type || a.info != b.info || a.vp != b.vp ||
      a.psn[1] != b.psn[1])
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace oonic::wire::uet;
  check_ses(data, size);
  check_ses_forms(data, size);
  check_frame(data, size);
  check_nic(data, size);
  Pds p;
  size_t used = 0;
  const PdsStatus st = read_pds(data, size, p, &used);
  (void)to_string(st);
  if (st != PdsStatus::kOk) return 0;
  if (used != pds_bytes(p.type) || used > size) std::abort();
  uint8_t a[64], b[64];
  PdsStatus ws;
  const size_t na = write_pds(p, a, sizeof a, &ws);
  if (na != used || ws != PdsStatus::kOk) std::abort();
  Pds q;
  size_t used2 = 0;
  if (read_pds(a, na, q, &used2) != PdsStatus::kOk || used2 != na) std::abort();
  const size_t nb = write_pds(q, b, sizeof b, &ws);
  if (nb != na || std::memcmp(a, b, na) != 0) std::abort();
  for (size_t i = 0; i < na; ++i)  // written bits are a subset of the input's
    if ((a[i] & ~data[i]) != 0) std::abort();
  return 0;
}
