// A frame's descriptor (tlm/net_packet.h FrameDesc) from its bytes: what the switch
// pipeline reads of it, parsed the same way the switch parsed it per hop before.
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/wire/pfc.h"
#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"
#include "platforms/network/frame_keys.h"
#include "tlm/net_packet.h"

namespace oonic::network {

inline FrameDesc describe(const uint8_t* f, size_t len) {
  FrameDesc d;
  d.valid = true;
  d.pfc = len >= 14 && (f[12] << 8 | f[13]) == wire::kMacControlEtherType;
  wire::PacketView v;
  const wire::ParseStatus st = wire::parse_any(f, len, v, false);
  d.ip_version = v.ip_version;
  if (!v.ip_version) return d;
  d.roce = st == wire::ParseStatus::kOk || st == wire::ParseStatus::kBadIcrc ||
           st == wire::ParseStatus::kUdOrCnp;
  d.opcode = v.bth.opcode;
  d.tos = v.tos;
  d.sport = v.udp_sport, d.dport = v.udp_dport;
  d.src_key = ip_key(v, false), d.dst_key = ip_key(v, true);
  d.dst_ip = v.dst_ip;
  return d;
}

inline FrameDesc describe(const std::vector<uint8_t>& b) {
  return describe(b.data(), b.size());
}

}  // namespace oonic::network
