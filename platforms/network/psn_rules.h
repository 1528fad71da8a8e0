// Faults as data: rules that lose frames by their BTH PSN (a fabric's faults.file
// drop_psn_mod), shared by the switch's egress ports and the host uplinks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/wire/roce.h"

namespace oonic::network {

using PsnRule = std::pair<uint32_t, uint32_t>;  // (n, r): PSN mod n == r

// Whether the frame is an RC RoCE frame (ICRC not checked) whose BTH PSN one of
// the rules names. Parses only when there are rules.
inline bool psn_rule_hit(const uint8_t* f, size_t len, const std::vector<PsnRule>& rules) {
  if (rules.empty()) return false;
  wire::PacketView v;
  const wire::ParseStatus st = wire::parse(f, len, v, false);
  if (st != wire::ParseStatus::kOk && st != wire::ParseStatus::kBadIcrc) return false;
  for (const auto& [n, r] : rules)
    if (v.bth.psn % n == r) return true;
  return false;
}

}  // namespace oonic::network
