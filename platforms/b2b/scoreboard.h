// The b2b scoreboard, run after every `oonic run`: each WQE got exactly one
// CQE, with success status; its destination bytes equal its source bytes
// (WRITE: A's buffer in B's memory, READ: B's buffer in A's, SEND: A's buffer
// in the receive buffer B consumed for it); no READ CQE arrived before the
// READ's last data was in host memory, and no data for it arrived after.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/host/host_driver.h"
#include "tlm/sparse_memory.h"

namespace oonic::b2b {

struct ScoreboardResult {
  uint64_t wqes = 0, completed = 0, bytes_checked = 0;
  std::vector<std::string> failures;  // first few, each naming the WQE
  uint64_t failure_count = 0;
  bool ok() const { return failure_count == 0; }
  std::string text() const;
};

// source_addr[i]: where WQE i's bytes came from (A for WRITE/SEND, B for READ).
ScoreboardResult check(const std::vector<host::WqeRecord>& recs,
                       const std::vector<uint64_t>& source_addr, SparseMemory& a, SparseMemory& b,
                       uint64_t bad_cqes);

}  // namespace oonic::b2b
