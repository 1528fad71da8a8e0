#include "platforms/host/flow_check.h"

#include <algorithm>
#include <cstring>

#include "platforms/trace/trace.h"

namespace oonic::host {

uint64_t FlowData::covered_bytes() const {
  uint64_t n = 0;
  for (const auto& [a, b] : covered) n += b - a;
  return n;
}

uint32_t FlowCheck::add_dest(uint64_t dest, uint64_t len, uint64_t source) {
  FlowData d;
  d.dest = dest, d.len = len, d.source = source;
  flows_.push_back(std::move(d));
  return static_cast<uint32_t>(flows_.size() - 1);
}

bool FlowCheck::read(uint64_t addr, uint8_t* dst, uint64_t len) {
  if (addr >= kSourceBase && addr + len <= kSourceEnd) {
    trace::fill_pattern(addr, dst, len);
    return true;
  }
  ++bad_reads_;  // destinations are not kept: nothing may read them back
  return false;
}

bool FlowCheck::write(uint64_t addr, const uint8_t* src, uint64_t len) {
  // The flow written last first (a packet's writes, a flow's packets), then a search.
  if (last_ >= flows_.size() || addr < flows_[last_].dest ||
      addr >= flows_[last_].dest + flows_[last_].len) {
    auto it = std::upper_bound(flows_.begin(), flows_.end(), addr,
                               [](uint64_t a, const FlowData& f) { return a < f.dest; });
    if (it == flows_.begin()) {
      ++stray_;
      return false;
    }
    last_ = static_cast<size_t>(std::prev(it) - flows_.begin());
  }
  if (addr + len > flows_[last_].dest + flows_[last_].len) {
    ++stray_;
    return false;
  }
  FlowData& f = flows_[last_];
  const uint64_t off = addr - f.dest;
  uint8_t want[4096];
  for (uint64_t k = 0; k < len; k += sizeof want) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof want, len - k));
    trace::fill_pattern(f.source + off + k, want, n);
    if (std::memcmp(want, src + k, n) != 0) {
      size_t i = 0;
      while (want[i] == src[k + i]) ++i;
      f.mismatch_at = std::min(f.mismatch_at, off + k + i);
      break;
    }
  }
  f.written += len;
  landed_ += len;
  // Merge [off, off + len) into the covered ranges.
  uint64_t a = off, b = off + len;
  auto c = f.covered.upper_bound(a);
  if (c != f.covered.begin() && std::prev(c)->second >= a) {
    // Touching the range before it and short of the next (in order: the common case):
    // that range grows in place.
    auto p = std::prev(c);
    if (c == f.covered.end() || c->first > b) {
      p->second = std::max(p->second, b);
      return true;
    }
    c = p;
  }
  while (c != f.covered.end() && c->first <= b) {
    a = std::min(a, c->first), b = std::max(b, c->second);
    c = f.covered.erase(c);
  }
  f.covered.emplace(a, b);
  return true;
}

}  // namespace oonic::host
