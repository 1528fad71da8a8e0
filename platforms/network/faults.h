// A fabric's faults as data (faults.file): one event a line, applied when
// simulated time reaches it. Read strictly (text_input.h): '#' comments, times
// in microseconds (decimal), nodes by name, every value range-checked; errors
// name the file and line (msg::kConfig).
//   <time_us> rate <a> <b> <gbps>              a switch-to-switch link's rate, both ways
//   <time_us> down|up <a> <b>                  every frame on the link lost, both ways
//   <time_us> loss <a> <b> <p>                 a switch-to-switch link drops with probability p
//   <time_us> ecn <a> <b> <kmin> <kmax>        RED thresholds (bytes) of the switch ports on it
//   <time_us> drop_psn_mod <a> <b> <n> <r>     frames a -> b whose BTH PSN mod n is r lost
//   <time_us> drop_ipid_mod <a> <b> <n> <r>    frames a -> b whose IPv4 ID mod n is r lost
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/network/topology.h"

namespace oonic::network {

struct Fault {
  double at_us = 0;
  std::string what;  // rate | down | up | loss | ecn | drop_psn_mod | drop_ipid_mod
  uint32_t a = 0, b = 0;
  double value = 0;       // rate: Gbit/s; loss: the probability
  uint64_t n = 0, r = 0;  // ecn: kmin, kmax bytes; drop_*_mod: n, r
  uint32_t line = 0;
};

struct FaultLimits {
  double gbps_min, gbps_max;  // a switch port's rate (topology.fabric_gbps)
  double kmax_bytes;          // switch.kmax_bytes's upper end
  double max_us;              // the latest time a run can reach
};

// Sorted by time (a stable sort: same-time events keep their file order). An empty
// path gives no faults.
std::vector<Fault> read_faults(const std::string& path, const Topology& t, const FaultLimits& lim);

}  // namespace oonic::network
