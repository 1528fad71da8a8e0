// RED/ECN marking (switch.ecn, switch.kmin_bytes, switch.kmax_bytes, switch.pmax,
// switch.mark_at), as plain C++: an ECN-capable frame is marked CE with probability
// p(q): 0 if q <= kmin, pmax x (q - kmin) / (kmax - kmin) if kmin < q < kmax, 1 if
// q >= kmax, where q is its queue (port, priority) before it (mark_at enqueue) or
// left behind it (mark_at dequeue, ns-3 HPCC's switch: a mark reflects the newest
// queue). One 64-bit draw per decision, so the stream does not depend on p. The
// hook (red_ecn.cpp) writes the mark; a fault may set a port's own thresholds.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/core/params.h"
#include "model/core/rng.h"

namespace oonic::network {

struct RedParams {  // switch.ecn, kmin_bytes, kmax_bytes, pmax, mark_at (the red_ecn row's)
  bool ecn = true;
  uint64_t kmin_bytes = 400 * 1024;
  uint64_t kmax_bytes = 1600 * 1024;
  double pmax = 0.2;
  std::string mark_at = "dequeue";  // enqueue | dequeue
  void describe(ParamTable& t);
  void validate() const;  // kmin <= kmax; throws oonic::Error naming the keys
};

class RedEcn {
 public:
  // ports: the switch's; seed and name: the draw stream ("<name>.red").
  RedEcn(const RedParams& p, uint32_t ports, uint64_t seed, const std::string& name);
  bool at_enqueue() const { return enqueue_; }
  bool at_dequeue() const { return dequeue_; }
  // The marking probability at queue depth q (bytes) on port.
  double probability(uint32_t port, uint64_t q) const;
  // One decision (one draw).
  bool decide(uint32_t port, uint64_t q);
  // A port's own thresholds from now on (the ecn fault).
  void set_thresholds(uint32_t port, uint64_t kmin, uint64_t kmax);
  uint64_t marked() const { return marked_; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> k_;  // per port (kmin, kmax)
  double pmax_;
  bool enqueue_, dequeue_;  // switch.ecn with switch.mark_at (read once)
  Rng rng_;
  uint64_t marked_ = 0;
};

}  // namespace oonic::network
