#include "platforms/network/path_select.h"

#include <cmath>

#include "model/core/error.h"

namespace oonic::network {

void RoutingParams::describe(ParamTable& t) {
  t.add("routing.mode", &mode,
        "choice among equal-cost next hops: ecmp (5-tuple hash, UDP source port as entropy), "
        "spray (per packet), flowlet (re-hash after an idle gap), adaptive (least-loaded "
        "egress queue)",
        {"ecmp", "spray", "flowlet", "adaptive"});
  t.add("routing.spray_mode", &spray_mode,
        "spray: random (one draw a packet) or rr (round robin per destination)", {"random", "rr"});
  t.add("routing.flowlet_gap_ns", &flowlet_gap_ns, "ns",
        "flowlet: idle gap after which a flow may take another path", 0, 1e12);
}

PathSelect::PathSelect(const RoutingParams& p, uint64_t run_seed, const std::string& switch_name)
    : p_(p),
      mode_(p.mode == "spray"      ? Mode::kSpray
            : p.mode == "flowlet"  ? Mode::kFlowlet   // once
            : p.mode == "adaptive" ? Mode::kAdaptive  // once
                                   : Mode::kEcmp),
      rr_(p.spray_mode == "rr"),
      gap_ps_(static_cast<uint64_t>(std::llround(p.flowlet_gap_ns * 1000.0))),
      rng_(make_rng(run_seed, switch_name + ".routing")) {
  if (p.mode != "ecmp" && p.mode != "spray" && p.mode != "flowlet" && p.mode != "adaptive")  // once
    throw Error(msg::kConfig, "routing.mode '" + p.mode +
                                  "': expected ecmp, spray, flowlet or "
                                  "adaptive");
  seed_ = rng_();  // the switch's hash seed: the stream's first draw
}

uint64_t PathSelect::hash(const FlowKey& f, uint64_t x) const {
  const uint64_t ports = (uint64_t{f.sport} << 16 | f.dport) ^ (uint64_t{f.proto} << 32);
  return splitmix64(seed_ ^ splitmix64(f.src_ip ^ splitmix64(f.dst_ip ^ splitmix64(ports)) ^ x));
}

uint32_t PathSelect::choose(const FlowKey& f, uint32_t dst_host, const std::vector<uint32_t>& ports,
                            uint64_t now_ps, const Load& load) {
  const uint64_t n = ports.size();
  if (n == 1) return ports[0];
  switch (mode_) {
    case Mode::kEcmp:
      return ports[hash(f) % n];
    case Mode::kSpray:
      if (rr_) return ports[rr_next_[dst_host]++ % n];
      return ports[rng_() % n];
    case Mode::kFlowlet: {
      const uint64_t h = hash(f);
      auto [it, fresh] = flowlets_.try_emplace(h);
      Flowlet& fl = it->second;
      if (fresh) {
        fl.port = ports[h % n];
      } else if (now_ps > fl.last_ps && now_ps - fl.last_ps > gap_ps_) {
        ++fl.number;  // a new flowlet: re-hashed with its number
        fl.port = ports[hash(f, fl.number) % n];
      }
      fl.last_ps = now_ps;
      return fl.port;
    }
    case Mode::kAdaptive: {
      // The least-loaded ports; among several, the ECMP choice (no allocation per packet).
      uint64_t best = UINT64_MAX, ties = 0;
      for (uint32_t p : ports) {
        const uint64_t q = load ? load(p) : 0;
        if (q < best) best = q, ties = 0;
        if (q == best) ++ties;
      }
      uint64_t pick = hash(f) % ties;
      for (uint32_t p : ports)
        if ((load ? load(p) : 0) == best && pick-- == 0) return p;
      return ports[0];
    }
  }
  return ports[0];
}

}  // namespace oonic::network
