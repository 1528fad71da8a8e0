// A packet or header buffer of the RX plane (Req/Rsp Pkt Buffer, Req/Rsp Hdr
// Buffer): an SRAM whose words are held from the cycle a frame is written until
// the cycle its reader has read it out. Admission at a cycle looks at what is
// still held then (releases are booked when the reader is scheduled).
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "model/sram/sram.h"

namespace oonic::ornic {

class PktBuffer {
 public:
  explicit PktBuffer(Sram* sram) : sram_(sram) {}
  // Words needed for `bytes`.
  uint64_t words(uint64_t bytes) const {
    uint64_t wb = sram_->params().width_bits / 8;
    return bytes == 0 ? 0 : (bytes + wb - 1) / wb;
  }
  // Room for `bytes` at cycle t (after releasing everything read out by t)?
  bool admit(Cycle t, uint64_t bytes) {
    while (!releases_.empty() && releases_.top().first <= t) {
      held_ -= releases_.top().second;
      releases_.pop();
    }
    return held_ + words(bytes) <= sram_->params().depth;
  }
  // Write `bytes` starting at t (streamed as the parser takes beats).
  Cycle write(Cycle t, uint64_t bytes) {
    uint64_t w = words(bytes);
    held_ += w;
    sram_->occupy(t, static_cast<int64_t>(w * sram_->params().width_bits));
    return w ? sram_->write(t, bytes * 8) : t;
  }
  // Read `bytes` out starting at t; the words are free once read. Returns the
  // cycle the last word's data is available.
  Cycle read_out(Cycle t, uint64_t bytes) {
    uint64_t w = words(bytes);
    if (!w) return t;
    Cycle done = sram_->read(t, bytes * 8);
    releases_.push({done, w});
    sram_->occupy(done, -static_cast<int64_t>(w * sram_->params().width_bits));
    return done;
  }
  // Free the words of a dropped frame at t without reading them.
  void discard(Cycle t, uint64_t bytes) {
    uint64_t w = words(bytes);
    if (!w) return;
    releases_.push({t, w});
    sram_->occupy(t, -static_cast<int64_t>(w * sram_->params().width_bits));
  }
  Sram& sram() { return *sram_; }

 private:
  Sram* sram_;
  uint64_t held_ = 0;
  using Rel = std::pair<Cycle, uint64_t>;
  std::priority_queue<Rel, std::vector<Rel>, std::greater<Rel>> releases_;
};

}  // namespace oonic::ornic
