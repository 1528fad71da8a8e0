// Copies of frames in flight, by slot number (a link's or a switch's tag): the
// sender may reuse its buffer once b_transport returns. Freed slots are reused,
// so memory follows the frames in flight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tlm/net_packet.h"

namespace oonic::network {

class FrameSlots {
 public:
  // A slot holding a copy of [f, f + n).
  uint32_t put(const uint8_t* f, size_t n) {
    const uint32_t s = take();
    bufs_[s].assign(f, f + n);
    return s;
  }
  // A slot holding v's bytes, taken by swapping buffers (v gets the slot's old one).
  uint32_t adopt(std::vector<uint8_t>& v) {
    const uint32_t s = take();
    bufs_[s].swap(v);
    return s;
  }
  std::vector<uint8_t>& operator[](uint32_t s) { return bufs_[s]; }
  // The slot's descriptor (tlm/net_packet.h), kept by whoever fills the slot.
  FrameDesc& desc(uint32_t s) { return descs_[s]; }
  void release(uint32_t s) { free_.push_back(s); }

 private:
  uint32_t take() {  // a free slot (a new one if none)
    if (free_.empty()) {
      bufs_.emplace_back();
      descs_.emplace_back();
      return static_cast<uint32_t>(bufs_.size() - 1);
    }
    const uint32_t s = free_.back();
    free_.pop_back();
    return s;
  }
  std::vector<std::vector<uint8_t>> bufs_;
  std::vector<FrameDesc> descs_;
  std::vector<uint32_t> free_;
};

}  // namespace oonic::network
