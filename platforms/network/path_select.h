// How a switch picks one egress port among the equal-cost ones (Routes), as
// plain C++, one per switch:
//   ecmp      ports[H(flow) mod n], H = the flow hash below with the switch's seed
//   spray     per packet: random (one draw per packet), or round robin per
//             destination (spray_mode rr)
//   flowlet   a flow keeps its port while packets come less than flowlet_gap_ns
//             apart; after a longer gap it re-hashes with its flowlet number:
//             ports[H(flow, flowlet) mod n]
//   adaptive  the port whose egress queue holds the fewest bytes (ties: the
//             ECMP choice among them)
// The flow is the RoCEv2 5-tuple; the destination port is 4791 for every RoCE
// flow, so the UDP source port is the entropy (MP-RDMA's virtual path).
//   H(flow, x) = splitmix64(seed ^ splitmix64(src_ip ^ splitmix64(dst_ip ^
//                splitmix64(sport << 16 | dport) ^ proto << 32) ^ x))
// with IPv4 addresses as their 32-bit big-endian value (IPv6: the fnv1a of its 16
// bytes), seed = make_rng(run seed, switch name)'s first draw.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/core/params.h"
#include "model/core/rng.h"

namespace oonic::network {

struct RoutingParams {                // routing.*
  std::string mode = "ecmp";          // ecmp | spray | flowlet | adaptive
  std::string spray_mode = "random";  // random | rr
  double flowlet_gap_ns = 50000;
  void describe(ParamTable& t);
};

struct FlowKey {
  uint64_t src_ip = 0, dst_ip = 0;
  uint16_t sport = 0, dport = 4791;
  uint8_t proto = 17;
};

class PathSelect {
 public:
  // Queue bytes of an egress port (adaptive).
  using Load = std::function<uint64_t(uint32_t port)>;
  PathSelect(const RoutingParams& p, uint64_t run_seed, const std::string& switch_name);

  uint64_t hash(const FlowKey& f, uint64_t x = 0) const;
  // One of `ports` (not empty) for a packet of flow f to dst_host at now_ps.
  uint32_t choose(const FlowKey& f, uint32_t dst_host, const std::vector<uint32_t>& ports,
                  uint64_t now_ps, const Load& load = {});

 private:
  struct Flowlet {
    uint64_t last_ps = 0;
    uint64_t number = 0;
    uint32_t port = 0;
  };
  RoutingParams p_;
  enum class Mode : uint8_t { kEcmp, kSpray, kFlowlet, kAdaptive } mode_;
  bool rr_;
  uint64_t gap_ps_;
  uint64_t seed_;
  Rng rng_;
  std::unordered_map<uint32_t, uint64_t> rr_next_;  // destination -> round-robin counter
  std::unordered_map<uint64_t, Flowlet> flowlets_;  // flow hash -> state
};

}  // namespace oonic::network
