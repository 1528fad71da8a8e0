// Faults as data: rules that lose frames by their BTH PSN or their IPv4 identification (a
// fabric's faults.file drop_psn_mod, drop_ipid_mod), shared by the switch's egress ports
// and the host uplinks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"

namespace oonic::network {

struct PsnRule {
  uint32_t n = 1, r = 0;  // the field mod n == r
  bool ip_id = false;     // the field: the IPv4 identification (else the BTH PSN)
};

// Whether the frame is an RC RoCE frame (ICRC not checked) whose BTH PSN (or IPv4
// identification) one of the rules names. Parses only when there are rules.
inline bool psn_rule_hit(const uint8_t* f, size_t len, const std::vector<PsnRule>& rules) {
  if (rules.empty()) return false;
  wire::PacketView v;
  const wire::ParseStatus st = wire::parse_any(f, len, v, false);
  if (st != wire::ParseStatus::kOk && st != wire::ParseStatus::kBadIcrc) return false;
  for (const PsnRule& x : rules) {
    if (x.ip_id && v.ip_version != 4) continue;  // IPv6 has no identification
    if ((x.ip_id ? uint32_t{v.ip_id} : v.bth.psn) % x.n == x.r) return true;
  }
  return false;
}

}  // namespace oonic::network
