// Parameters of the network between two NICs (network.*): link rate, one-way
// propagation, ORNIC-testbed-style out-of-order emulation (bounded reordering
// distance), random loss and loss of listed PSNs. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"

namespace oonic::network {

// Frame whose serialization time scales the derived OOO delay: a 4 KB-payload
// RoCE frame, 4096 + 58 + 4 bytes (4182 B on the wire).
constexpr size_t kReferenceFrameBytes = 4096 + 58 + 4;

// One rule of network.drop_psns: drop PSNs [first, last] in direction dir, the first
// `times` frames carrying each (1: the first transmission; 2: it and its first resend).
struct DropRule {
  std::string dir;  // "ab" (NIC a -> NIC b) or "ba"
  uint32_t first = 0, last = 0;
  int64_t qpn = -1;    // destination QP the rule is limited to (-1: any)
  uint32_t times = 1;  // ab:PSN*K
};

// Parse "ab:5,ab:10-12*2,ba:7" (whitespace around rules and tokens allowed; ""
// = no rules). Throws oonic::Error (msg::kConfig) naming network.drop_psns and
// the bad rule.
std::vector<DropRule> parse_drop_psns(const std::string& text);

struct NetworkParams {  // network.*
  double rate_gbps = 100;
  double propagation_ns = 1000;
  uint32_t ooo_distance = 0;    // 0: no reordering (and no jitter)
  double ooo_max_delay_ns = 0;  // 0: derived from ooo_distance
  double loss_rate = 0;
  std::string drop_psns;
  bool reorder_acks = true;
  bool loss_acks = true;

  void describe(ParamTable& t);
  // Cross checks (and the drop_psns syntax); throws oonic::Error (msg::kConfig).
  void validate() const;

  // Time a frame of frame_len bytes (no FCS) holds the link:
  // ceil(wire::wire_bytes(frame_len) x 8 / rate_gbps) ns, in ps.
  uint64_t serialization_ps(size_t frame_len) const;
  uint64_t propagation_ps() const;
  // D: the largest random extra delay a frame gets (0 when ooo_distance is 0).
  uint64_t max_jitter_ps() const;
};

}  // namespace oonic::network
