// Sparse byte store (pages allocated on first touch), little-endian. Plain C++;
// HostMemory wraps it as a TLM target, tests and the integrity check use it directly.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace oonic {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 64 * 1024;

  void write(uint64_t addr, const uint8_t* src, uint64_t len) {
    while (len) {
      uint64_t off = addr % kPageBytes;
      uint64_t n = std::min(len, kPageBytes - off);
      std::memcpy(page(addr, true) + off, src, n);
      addr += n, src += n, len -= n;
    }
  }
  void fill(uint64_t addr, uint8_t (*byte_at)(uint64_t), uint64_t len) {
    for (uint64_t i = 0; i < len; ++i) {
      uint8_t b = byte_at(addr + i);
      write(addr + i, &b, 1);
    }
  }
  // Untouched bytes read as zero.
  void read(uint64_t addr, uint8_t* dst, uint64_t len) const {
    while (len) {
      uint64_t off = addr % kPageBytes;
      uint64_t n = std::min(len, kPageBytes - off);
      const uint8_t* p = const_cast<SparseMemory*>(this)->page(addr, false);
      if (p)
        std::memcpy(dst, p + off, n);
      else
        std::memset(dst, 0, n);
      addr += n, dst += n, len -= n;
    }
  }
  // First address in [addr, addr+len) whose byte differs from src, or -1.
  int64_t first_difference(uint64_t addr, const uint8_t* src, uint64_t len) const {
    uint64_t done = 0;
    while (done < len) {
      uint64_t a = addr + done;
      uint64_t off = a % kPageBytes;
      uint64_t n = std::min(len - done, kPageBytes - off);
      const uint8_t* p = const_cast<SparseMemory*>(this)->page(a, false);
      for (uint64_t i = 0; i < n; ++i) {
        uint8_t have = p ? p[off + i] : 0;
        if (have != src[done + i]) return static_cast<int64_t>(a + i);
      }
      done += n;
    }
    return -1;
  }
  size_t pages() const { return pages_.size(); }

 private:
  uint8_t* page(uint64_t addr, bool create) {
    uint64_t pn = addr / kPageBytes;
    if (last_ && pn == last_pn_) return last_;
    auto it = pages_.find(pn);
    if (it == pages_.end()) {
      if (!create) return nullptr;
      it = pages_.emplace(pn, std::make_unique<uint8_t[]>(kPageBytes)).first;  // zeroed
    }
    last_pn_ = pn;
    last_ = it->second.get();
    return last_;
  }
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  uint64_t last_pn_ = 0;
  uint8_t* last_ = nullptr;
};

}  // namespace oonic
