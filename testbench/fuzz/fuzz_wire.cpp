// Fuzz harness: the RoCEv2 codec's parser (wire::parse), the one every frame from a
// trace or the network goes through. Properties beyond "no crash": a frame that
// parses with its ICRC checked also parses without; its header and payload lie inside
// the frame; rebuilding a parsed request from its fields gives a frame that parses to
// the same opcode, PSN, QP, payload, INT stack and feedback fields; trimming it (as a
// switch does) gives a frame that parses with its ICRC, or leaves it untouched.
#include <cstring>
#include <vector>

#include "model/wire/roce.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace oonic::wire;
  PacketView v;
  const ParseStatus checked = parse(data, size, v, true);
  PacketView u;
  const ParseStatus unchecked = parse(data, size, u, false);
  if (checked == ParseStatus::kOk && unchecked != ParseStatus::kOk) std::abort();
  if (unchecked != ParseStatus::kOk) return 0;
  if (u.header_len > size) std::abort();
  if (u.payload_len && (u.payload < data || u.payload + u.payload_len > data + size)) std::abort();
  (void)to_string(unchecked);
  // Rebuild what was parsed (payload copied) and parse it again.
  FrameSpec s;
  s.dst_mac = u.dst_mac, s.src_mac = u.src_mac;
  s.vlan = u.has_vlan, s.vlan_tci = u.vlan_tci;
  s.ip_version = u.ip_version;
  s.src_ip = u.src_ip, s.dst_ip = u.dst_ip;
  s.tos = u.tos;
  s.udp_sport = u.udp_sport;
  s.bth = u.bth;
  s.reth = u.reth;
  s.aeth = u.aeth;
  s.immdt = u.immdt;
  s.bitmap = u.bitmap;
  s.feedback = u.feedback;
  s.eunomia = u.eunomia;
  s.mprdma = u.mprdma;
  const IntStack stack = u.int_stack.copy();  // the INT trailer (bit 3 of BTH byte 8)
  if (u.flags & kHasInt) s.int_stack = &stack;
  s.payload = u.payload;
  s.payload_len = u.payload_len;
  const std::vector<uint8_t> f = build(s);
  if (f.empty()) return 0;
  PacketView w;
  if (parse(f.data(), f.size(), w, true) != ParseStatus::kOk) std::abort();
  if (w.bth.opcode != u.bth.opcode || w.bth.psn != u.bth.psn || w.bth.dest_qp != u.bth.dest_qp ||
      w.payload_len != u.payload_len || w.int_stack.nhop != u.int_stack.nhop ||
      w.int_stack.max_hops != u.int_stack.max_hops ||
      (u.payload_len && std::memcmp(w.payload, u.payload, u.payload_len) != 0))
    std::abort();
  if ((u.flags & kHasFeedback) &&
      (w.feedback.type != u.feedback.type || w.feedback.info != u.feedback.info ||
       w.feedback.vp != u.feedback.vp || w.feedback.psn != u.feedback.psn ||
       w.feedback.len != u.feedback.len))
    std::abort();
  // A switch's trimming of it (switch.trim): request data becomes headers that parse with
  // their ICRC, the same opcode and PSN, no payload, the trimmed DSCP; else left alone.
  std::vector<uint8_t> t = f;
  const size_t n = trim_frame(t.data(), t.size(), 16);
  if (n != t.size()) {
    PacketView x;
    if (parse(t.data(), n, x, true) != ParseStatus::kOk || x.payload_len ||
        x.bth.opcode != w.bth.opcode || x.bth.psn != w.bth.psn || !is_trimmed(x, 16, 18))
      std::abort();
  } else if (std::memcmp(t.data(), f.data(), f.size()) != 0) {
    std::abort();
  }
  return 0;
}
