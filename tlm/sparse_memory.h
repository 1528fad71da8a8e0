// Sparse byte store (pages allocated on first touch), little-endian. Plain C++;
// HostMemory wraps it as a TLM target, tests and the integrity check use it directly.
// Pages are 2 MiB anonymous mappings (huge pages where the kernel has them): the
// kernel hands them out zeroed, so a page costs no memset and few faults. Where a
// host memory holds only rings and queues (the fabric's: its data are served by
// code), set_huge_pages(false) keeps each page's resident set to the 4 KiB pages
// touched: with huge pages, 1,024 fabric hosts held 1.9 GB for a few KB each.
//
// Digest mode (host.memory.digest, for long replays): a page that has been
// written completely since it was created, and overlaps no kept range, is
// sealed: its bytes give way to a 64-bit digest (CRC-64/ECMA of the 2 MiB).
// A write to a sealed page reopens it (fresh bytes, the digest remembered);
// written completely again, it seals again. Reading, or comparing bytes in, a
// sealed or reopened page is an Error (kModel): those bytes are gone. Readers
// keep() their ranges.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

namespace oonic {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 2 * 1024 * 1024;

  void write(uint64_t addr, const uint8_t* src, uint64_t len) {
    while (len) {
      uint64_t off = addr % kPageBytes;
      uint64_t n = std::min(len, kPageBytes - off);
      if (digest_ && touched(addr / kPageBytes)) reopen(addr / kPageBytes);
      std::memcpy(page(addr, true) + off, src, n);
      if (digest_) covered(addr / kPageBytes, off, n);
      addr += n, src += n, len -= n;
    }
  }

  // ---- digest mode ----
  void enable_digest() { digest_ = true; }
  bool digest() const { return digest_; }
  // Bytes that are read back: pages overlapping them are never sealed.
  void keep(uint64_t addr, uint64_t len);
  static uint64_t digest_of(const uint8_t* page);  // CRC-64/ECMA of kPageBytes bytes
  // Sealed pages (page number -> digest of its bytes).
  const std::map<uint64_t, uint64_t>& sealed() const { return sealed_; }
  // Pages sealed once and written in part since: their other bytes are gone.
  std::vector<uint64_t> reopened() const;
  bool lost(uint64_t page_no) const { return sealed_.count(page_no) || base_.count(page_no); }
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
      if (digest_ && lost(addr / kPageBytes)) gone(addr);
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
      if (digest_ && lost(a / kPageBytes)) gone(a);
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
  // Back pages made from now on with huge pages (true: the default) or with
  // base pages only (false: resident as touched).
  void set_huge_pages(bool on) { huge_ = on; }
  bool huge_pages() const { return huge_; }

 private:
  bool touched(uint64_t pn) const { return !sealed_.empty() && sealed_.count(pn); }
  void reopen(uint64_t pn);                             // sealed -> bytes again
  void covered(uint64_t pn, uint64_t off, uint64_t n);  // may seal the page
  [[noreturn]] void gone(uint64_t addr) const;
  uint8_t* page(uint64_t addr, bool create) {
    uint64_t pn = addr / kPageBytes;
    if (last_ && pn == last_pn_) return last_;
    auto it = pages_.find(pn);
    if (it == pages_.end()) {
      if (!create) return nullptr;
      void* m = mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED) throw std::bad_alloc();
      madvise(m, kPageBytes, huge_ ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
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
  bool digest_ = false;
  bool huge_ = true;
  std::vector<std::pair<uint64_t, uint64_t>> keep_;                   // [from, to) pages
  std::unordered_map<uint64_t, std::map<uint64_t, uint64_t>> cover_;  // page -> written [from, to)
  std::map<uint64_t, uint64_t> sealed_;                               // page -> digest
  std::map<uint64_t, uint64_t> base_;                                 // reopened page -> old digest
};

}  // namespace oonic
