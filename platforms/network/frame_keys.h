// How the switch and its hooks read a parsed frame: an IP address as a flow-key value
// (IPv4: its 32-bit big-endian value; IPv6: the fnv1a of its 16 bytes, as PathSelect's
// hash takes them) and the frame's class by its BTH opcode.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/core/rng.h"
#include "model/wire/roce.h"

namespace oonic::network {

// The destination (dst) or source address of v.
inline uint64_t ip_key(const wire::PacketView& v, bool dst) {
  const auto& ip = dst ? v.dst_ip : v.src_ip;
  if (v.ip_version == 4)
    return uint64_t{ip[0]} << 24 | uint64_t{ip[1]} << 16 | uint64_t{ip[2]} << 8 | ip[3];
  return fnv1a(std::string_view(reinterpret_cast<const char*>(ip.data()), ip.size()));
}

// ACK, NAK, OOO NAK, scheme feedback and CNP: the control class (priority 0).
inline bool control_opcode(uint8_t op) {
  return op == wire::kAcknowledge || op == wire::kOooNak || op == wire::kSchemeFeedback ||
         op == wire::kCnp;
}

// A request that carries payload (WRITE, SEND data; not READ responses).
inline bool data_opcode(uint8_t op) {
  const wire::OpcodeInfo* i = wire::opcode_info(op);
  return i && (i->flags & wire::kHasPayload) && (i->flags & wire::kIsRequest);
}

}  // namespace oonic::network
