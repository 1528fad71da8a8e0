// packets.csv: one row per frame the NIC's MAC received, with the cycle it
// reached each stage. Buffered; off entirely when not wanted (no cost but a
// pointer test per packet).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/core/cycles.h"
#include "model/ornic/drop_reason.h"

namespace oonic::ornic {

// What the receive side did with a packet (packets.csv's verdict column). An enum,
// not text, so that no block compares strings per packet.
enum class RecordVerdict : uint8_t { kNone, kAccepted, kOoo, kDuplicate, kDropped, kCnp, kSkipped };
// "", "accepted", "ooo", "duplicate", "dropped", "cnp", "skipped"
const char* to_string(RecordVerdict v);

struct PacketRecord {
  uint32_t index = 0;  // trace record number (1-based)
  Cycle arrival = 0, parsed = 0, processed = 0, dma_done = 0;
  uint32_t qpn = 0, psn = 0;
  int opcode = -1;
  uint32_t payload = 0;
  RecordVerdict verdict = RecordVerdict::kNone;
  Drop drop = Drop::kNone;
  uint32_t locate_cycles = 0, bitmap_cycles = 0, blocks_held = 0;
  bool bitmap = false;
};

class PacketLog {
 public:
  explicit PacketLog(const std::string& path);
  ~PacketLog();
  void write(const PacketRecord& r);

 private:
  FILE* f_;
  char* buf_;
};

}  // namespace oonic::ornic
