// UET's choice of entropy value (EV) per packet, as plain C++ (issue 31, item 3,
// first part): the EV goes in the UDP source port, so the switches' ECMP hash sends
// each EV down its own path. Four modes, as htsim's UEC model names them:
//   oblivious  a new random EV for every packet (plain spraying);
//   rr         round robin over the EVs;
//   avoid      round robin, skipping EVs with a penalty ("path avoidance", htsim's
//              BITMAP): an ECN-marked ACK on an EV adds 1, a NACK 4, a timeout sets 15
//              (the cap); a NACK for a packet trimmed at the last hop counts as a good
//              ACK (htsim's PATH_GOOD: the path was not the cause; mixed takes the EV
//              again). Each EV skipped while choosing loses 1 of its
//              penalty only if it is the first skipped, so penalties drain as the round
//              robin passes; when every EV has a penalty the next one is taken anyway.
//   mixed      htsim's default (MIXED): an EV an unmarked ACK came back on is used again
//              (recycled, first in first out, REPS's legacy rule), else avoid's choice.
// EVs are `paths` values (a power of two) spread over the 16-bit space by a fixed
// random upper part, drawn once per sender.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "model/core/rng.h"

namespace oonic::uet {

enum class EvMode : uint8_t { kOblivious, kRoundRobin, kAvoid, kMixed };

struct EntropyParams {
  uint32_t paths = 64;  // distinct EVs (a power of two, 1..65536)
  EvMode mode = EvMode::kAvoid;
};

class EntropyCore {
 public:
  static constexpr uint8_t kEcnPenalty = 1, kNackPenalty = 4, kMaxPenalty = 15;
  EntropyCore(const EntropyParams& p, Rng rng);
  uint16_t next();  // the EV for the next packet
  void on_ecn(uint16_t ev) { add(ev, kEcnPenalty); }
  // An ACK without ECN on ev (mixed: ev is recycled).
  void on_good(uint16_t ev) {
    if (mode_ == EvMode::kMixed) recycled_.push_back(ev);
  }
  // A NACK for a packet sent on ev; one trimmed at its last hop says the path was good
  // (htsim's UecSrc::processNack: PATH_GOOD; its ECN echo on a NACK is not carried here).
  void on_nack(uint16_t ev, bool trimmed_last_hop) {
    if (trimmed_last_hop)
      on_good(ev);
    else
      add(ev, kNackPenalty);
  }
  void on_timeout(uint16_t ev) { penalty_[index(ev)] = kMaxPenalty; }
  uint8_t penalty(uint16_t ev) const { return penalty_[index(ev)]; }
  uint64_t skipped() const { return skipped_; }  // EVs passed over (avoid)
  uint64_t reused() const { return reused_; }    // recycled EVs taken (mixed)

 private:
  uint32_t index(uint16_t ev) const { return ev & mask_; }
  uint16_t ev_of(uint32_t i) const { return static_cast<uint16_t>(upper_ | i); }
  void add(uint16_t ev, uint8_t p);
  EvMode mode_;
  uint32_t mask_;
  uint16_t upper_;  // the EVs' fixed random upper bits
  uint32_t next_ = 0;
  std::vector<uint8_t> penalty_;
  Rng rng_;
  std::deque<uint16_t> recycled_;  // mixed: EVs acknowledged unmarked, oldest first
  uint64_t skipped_ = 0, reused_ = 0;
};

}  // namespace oonic::uet
