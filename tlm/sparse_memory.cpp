#include "tlm/sparse_memory.h"

#include <isa-l/crc64.h>

#include <sstream>

#include "model/core/error.h"

namespace oonic {

uint64_t SparseMemory::digest_of(const uint8_t* page) {
  return crc64_ecma_refl(0, page, kPageBytes);
}

void SparseMemory::keep(uint64_t addr, uint64_t len) {
  if (!len) return;
  keep_.push_back({addr / kPageBytes, (addr + len - 1) / kPageBytes + 1});
}

std::vector<uint64_t> SparseMemory::reopened() const {
  std::vector<uint64_t> v;
  for (const auto& [pn, d] : base_) v.push_back(pn);
  return v;
}

void SparseMemory::reopen(uint64_t pn) {
  // The old bytes are gone: the page starts again from zeros, its digest kept.
  base_[pn] = sealed_.at(pn);
  sealed_.erase(pn);
  cover_[pn].clear();
}

void SparseMemory::covered(uint64_t pn, uint64_t off, uint64_t n) {
  auto& c = cover_[pn];
  uint64_t lo = off, hi = off + n;
  auto it = c.upper_bound(lo);
  if (it != c.begin() && std::prev(it)->second >= lo) --it;
  while (it != c.end() && it->first <= hi) {
    lo = std::min(lo, it->first), hi = std::max(hi, it->second);
    it = c.erase(it);
  }
  c.emplace(lo, hi);
  if (lo != 0 || hi != kPageBytes) return;
  for (const auto& [from, to] : keep_)
    if (pn >= from && pn < to) return;
  // Written completely: the digest replaces the bytes.
  auto pg = pages_.find(pn);
  sealed_[pn] = digest_of(pg->second.get());
  base_.erase(pn);
  cover_.erase(pn);
  if (last_pn_ == pn) last_ = nullptr;
  pages_.erase(pg);
}

void SparseMemory::gone(uint64_t addr) const {
  std::ostringstream os;
  os << "host memory 0x" << std::hex << addr << std::dec
     << " is in a page kept only as a digest (host.memory.digest): its bytes cannot be read; "
        "keep the range, or replay without host.memory.digest";
  throw Error(msg::kModel, os.str());
}

}  // namespace oonic
