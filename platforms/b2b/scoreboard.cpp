#include "platforms/b2b/scoreboard.h"

#include <cstring>
#include <sstream>

namespace oonic::b2b {

std::string ScoreboardResult::text() const {
  std::ostringstream os;
  if (ok()) {
    os << "OK (" << completed << "/" << wqes << " WQEs, one CQE each, " << bytes_checked
       << " bytes identical at their destinations, READ CQEs after their data)";
  } else {
    os << "FAILED: " << failure_count << " problem(s)";
    for (const auto& f : failures) os << "; " << f;
  }
  return os.str();
}

ScoreboardResult check(const std::vector<host::WqeRecord>& recs,
                       const std::vector<uint64_t>& source_addr, SparseMemory& a, SparseMemory& b,
                       uint64_t bad_cqes) {
  ScoreboardResult r;
  r.wqes = recs.size();
  auto fail = [&](const host::WqeRecord& w, const std::string& why) {
    ++r.failure_count;
    if (r.failures.size() < 8)
      r.failures.push_back("WQE " + std::to_string(w.wqe.wr_id) + " (QP " + std::to_string(w.qpn) +
                           " #" + std::to_string(w.index) + " " + ornic::to_string(w.wqe.op) +
                           (w.wqe.ooo ? " OOO" : "") + " " + std::to_string(w.wqe.length) +
                           " B): " + why);
  };
  if (bad_cqes) {
    ++r.failure_count;
    r.failures.push_back(std::to_string(bad_cqes) + " CQE(s) matching no posted WQE");
  }
  std::vector<uint8_t> x(1 << 16), y(1 << 16);
  for (size_t i = 0; i < recs.size(); ++i) {
    const host::WqeRecord& w = recs[i];
    if (w.cqes == 0) {
      fail(w, w.posted ? "no CQE" : "never posted");
      continue;
    }
    ++r.completed;
    if (w.cqes > 1) fail(w, std::to_string(w.cqes) + " CQEs");
    if (w.status) fail(w, "CQE status " + std::to_string(w.status));
    bool read = w.wqe.op == ornic::WqeOp::kRead;
    if (read && (w.last_data_ps > w.cqe_ps || w.data_after_cqe))
      fail(w, "READ CQE at " + std::to_string(w.cqe_ps) + " ps before its last data at " +
                  std::to_string(w.last_data_ps) + " ps");
    SparseMemory& src = read ? b : a;
    SparseMemory& dst = read ? a : b;
    for (uint64_t off = 0; off < w.wqe.length; off += x.size()) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(x.size(), w.wqe.length - off));
      src.read(source_addr[i] + off, x.data(), n);
      dst.read(w.dest_addr + off, y.data(), n);
      if (std::memcmp(x.data(), y.data(), n) != 0) {
        size_t k = 0;
        while (x[k] == y[k]) ++k;
        fail(w, "destination differs from source at byte " + std::to_string(off + k));
        break;
      }
      r.bytes_checked += n;
    }
  }
  return r;
}

}  // namespace oonic::b2b
