// Sparse byte store (pages allocated on first touch), little-endian. Plain C++;
// HostMemory wraps it as a TLM target, tests and the integrity check use it directly.
// Pages are 2 MiB anonymous mappings (huge pages where the kernel has them): the
// kernel hands them out zeroed, so a page costs no memset and few faults.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <unordered_map>

namespace oonic {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 2 * 1024 * 1024;

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
      if (p && std::memcmp(p + off, src + done, n) == 0) {
        done += n;
        continue;  // the common case: equal, compared at memcmp speed
      }
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
      void* m = mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      madvise(m, kPageBytes, MADV_HUGEPAGE);
      it = pages_.emplace(pn, Page(static_cast<uint8_t*>(m))).first;  // zeroed by the kernel
    }
    last_pn_ = pn;
    last_ = it->second.get();
    return last_;
  }
  struct Unmap {
    void operator()(uint8_t* p) const { munmap(p, kPageBytes); }
  };
  using Page = std::unique_ptr<uint8_t, Unmap>;
  std::unordered_map<uint64_t, Page> pages_;
  uint64_t last_pn_ = 0;
  uint8_t* last_ = nullptr;
};

}  // namespace oonic
