// Data-integrity check of a replay: host memory must equal the bytes the trace
// sent. A reference receiver, independent of the NIC model, walks each QP's
// valid request packets in PSN order (not arrival order; the first copy of each
// PSN) and says where each payload byte belongs: standard WRITE at its RETH
// address onwards, SEND into the replay's receive buffers in order, OOO WRITE
// by Eq. 1 from the WQE's FSpot, READ responses at the READ's local buffer.
// A standard message stops at its first missing PSN (an in-order receiver can
// place nothing past a gap that was never filled). The expected bytes are
// painted in PSN order (later writes win) and compared with host memory. With
// host.memory.digest, pages host memory keeps as a digest are compared by
// digest, page by page.
#pragma once

#include <cstdint>
#include <string>

#include "platforms/replay/setup.h"
#include "tlm/sparse_memory.h"

namespace oonic::replay {

struct IntegrityResult {
  bool checked = false;  // anything to check
  bool ok = true;
  uint64_t bytes = 0;   // bytes compared
  uint64_t ranges = 0;  // payload ranges compared
  uint64_t first_bad_addr = 0;
  uint8_t expected = 0, actual = 0;
  uint32_t record = 0;  // trace record whose byte differs
  // host.memory.digest: the mismatch is a whole page kept as a digest
  // (first_bad_addr is its first byte; expected and actual are not known).
  bool digest_page = false;
  // host.memory.digest: bytes that could not be compared (a digest page the
  // payloads do not fill, or one rewritten in part after it was sealed).
  uint64_t unverified_bytes = 0;
  std::string text() const;
};

IntegrityResult check_integrity(const trace::Trace& trace, const ReplaySetup& setup,
                                const SparseMemory& host);

}  // namespace oonic::replay
