// A host's data-path scoreboard in a fabric, plain C++. A host's data addresses
// are served by code, not bytes (HostMemory::Backing):
//   [kSourceBase, kSourceEnd)  a flow's source: reads return the address
//                              pattern (trace::fill_pattern), writes are errors
//   [kDestBase, kDestEnd)      a flow's destination: every DMA write is compared
//                              with the pattern of the flow's source at the same
//                              offset when it lands, and the bytes it covers are
//                              recorded; the bytes are not kept
// Each flow has its own source and destination ranges, so the pattern a flow
// carries differs from every other flow's: bytes of one flow written into
// another's buffer are a mismatch. A flow's data is correct when its
// destination is covered exactly and no write differed; a write outside every
// flow's destination is counted (stray) and answered with an address error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tlm/host_memory.h"

namespace oonic::host {

constexpr uint64_t kSourceBase = 0x1000000000ull;  // 64 GiB
constexpr uint64_t kSourceEnd = 0x2000000000ull;
constexpr uint64_t kDestBase = 0x2000000000ull;
constexpr uint64_t kDestEnd = 0x3000000000ull;

// What one flow's destination received.
struct FlowData {
  uint64_t dest = 0, len = 0, source = 0;  // destination, length, source address
  std::map<uint64_t, uint64_t> covered;    // merged [start, end) of bytes written
  uint64_t written = 0;                    // bytes written, repeats included
  uint64_t mismatch_at = ~uint64_t{0};     // first differing byte offset (none: max)
  uint64_t covered_bytes() const;
  bool complete() const { return covered_bytes() == len; }
};

class FlowCheck : public HostMemory::Backing {
 public:
  // A destination [dest, dest + len) for bytes read from `source` (the
  // sender's source address); ranges must be added in increasing order.
  // Returns the index for data().
  uint32_t add_dest(uint64_t dest, uint64_t len, uint64_t source);
  bool read(uint64_t addr, uint8_t* dst, uint64_t len) override;
  bool write(uint64_t addr, const uint8_t* src, uint64_t len) override;
  const FlowData& data(uint32_t i) const { return flows_[i]; }
  uint64_t stray_writes() const { return stray_; }
  uint64_t bad_reads() const { return bad_reads_; }
  // Bytes written into destinations so far (the run's progress measure).
  uint64_t landed_bytes() const { return landed_; }

 private:
  std::vector<FlowData> flows_;  // by destination address
  uint64_t stray_ = 0, bad_reads_ = 0, landed_ = 0;
  size_t last_ = 0;  // the flow written last
};

}  // namespace oonic::host
