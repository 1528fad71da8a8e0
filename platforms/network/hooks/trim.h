// Packet trimming (switch.trim; issue 31, item 4), Ultra Ethernet's way of telling
// loss from reordering: when the buffer refuses a data frame (admission would drop it),
// the switch forwards the frame's headers instead, payload cut, DSCP set to "trimmed"
// (or "trimmed at the last hop" when the egress port leads to the frame's host), out of
// the same egress port ahead of its queues; the receiver NACKs it and the sender resends
// at once. Data frames are UET's (kNackTrimmed) and the RoCEv2 requests oonic's NICs send
// (wire::trim_frame: headers and a fresh ICRC; the NIC tells them by DSCP, nic.trim_dscp,
// and NACKs them in its scheme's form). The frame itself is still counted as the buffer's
// drop; <switch>.trimmed counts the headers sent. Other frames (responses, PFC, frames
// with an INT trailer) are dropped as before. The headers go out as the switch's own control
// frames (SwitchPipe::send_ahead): an unbounded high-priority queue, where htsim's
// UEC switch bounds it (2 x the queue size); trimmed headers are few next to data. At
// every later switch a trimmed header takes the control priority (htsim's header-only
// packets use its high-priority queue at every hop).
// htsim's CompositeQueue trims, by a coin, either the arriving frame or the newest one
// already queued (which the arriving frame then replaces): switch.trim_newest_p.
#pragma once

#include <cstdint>

#include "model/core/params.h"

namespace oonic::network {

struct TrimParams {  // the trim row's: switch.trim, switch.trim_dscp, _last_hop, _newest_p
  bool trim = false;
  uint32_t dscp_trimmed = 16;  // UET 1.0 leaves the values to the operator
  uint32_t dscp_last_hop = 18;
  double newest_p = 0;  // htsim trims the newest queued frame instead with 0.5
  void describe(ParamTable& t);
  void validate() const;
};

}  // namespace oonic::network
