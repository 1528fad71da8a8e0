// Trace loading (pcap / pcapng through libpcap, oonic text traces) and the
// classic-pcap writer. The text grammar is documented in traces/README.md.
#include "platforms/trace/trace.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/trace/text_trace.h"

namespace oonic::trace {

const char* to_string(Format f) {
  switch (f) {
    case Format::kPcap:
      return "pcap";
    case Format::kPcapNg:
      return "pcapng";
    case Format::kText:
      return "text";
  }
  return "?";
}

// ---------------------------------------------------------------- pattern ---

void fill_pattern(uint64_t addr, uint8_t* out, size_t n) {
  size_t i = 0;
  while (i < n && ((addr + i) & 7) != 0) {
    out[i] = pattern_byte(addr + i);
    ++i;
  }
  uint64_t k = (addr + i) >> 3;
  for (; i + 8 <= n; i += 8, ++k) {
    uint64_t w = splitmix64(k);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(out + i, &w, 8);
#else
    for (int b = 0; b < 8; ++b) out[i + b] = static_cast<uint8_t>(w >> (8 * b));
#endif
  }
  for (; i < n; ++i) out[i] = pattern_byte(addr + i);
}

size_t check_pattern(uint64_t addr, const uint8_t* data, size_t n) {
  size_t i = 0;
  while (i < n && ((addr + i) & 7) != 0) {
    if (data[i] != pattern_byte(addr + i)) return i;
    ++i;
  }
  uint64_t k = (addr + i) >> 3;
  for (; i + 8 <= n; i += 8, ++k) {
    uint8_t w[8];
    fill_pattern(k << 3, w, 8);
    if (std::memcmp(w, data + i, 8) != 0) break;
  }
  for (; i < n; ++i) {
    if (data[i] != pattern_byte(addr + i)) return i;
  }
  return n;
}

// ------------------------------------------------------------------- load ---

namespace {

// Ask for transparent huge pages on a large arena: a 400 MB trace otherwise
// takes ~100k page faults, which cost more than building the frames.
void advise_huge_pages(std::vector<uint8_t>& arena) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = 2u << 20;
  if (arena.capacity() < 4 * kHuge) return;
  uintptr_t b = reinterpret_cast<uintptr_t>(arena.data());
  uintptr_t e = b + arena.capacity();
  uintptr_t ab = (b + kHuge - 1) & ~(kHuge - 1);
  uintptr_t ae = e & ~(kHuge - 1);
  if (ae > ab) ::madvise(reinterpret_cast<void*>(ab), ae - ab, MADV_HUGEPAGE);  // best effort
#else
  (void)arena;
#endif
}

[[noreturn]] void fail_file(const std::string& path, const std::string& what) {
  throw Error(msg::kTrace, path + ": " + what);
}

// A mapped capture cut short while the replay reads it raises SIGBUS at the
// first page past its new end: say so, naming the file, instead of a crash. Each
// mapping has a slot (address range, message) the handler reads; a SIGBUS outside
// every mapping is not ours and takes the default action.
struct BusSlot {
  const uint8_t* base = nullptr;
  uint64_t len = 0;
  char text[1024];
  size_t text_len = 0;
};
BusSlot g_bus[8];

void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto* a = static_cast<const uint8_t*>(info->si_addr);
  for (const BusSlot& b : g_bus) {
    if (!b.base || a < b.base || a >= b.base + b.len) continue;
    (void)!::write(2, b.text, b.text_len);
    ::_exit(2);  // as for any other bad input
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void watch_mapping(const uint8_t* base, uint64_t len, const std::string& path) {
  for (BusSlot& b : g_bus) {
    if (b.base) continue;
    const std::string m = "oonic: error: " + path +
                          ": the capture became shorter during the replay (read past its end)\n";
    b.text_len = std::min(m.size(), sizeof b.text);
    std::memcpy(b.text, m.data(), b.text_len);
    b.len = len;
    b.base = base;  // last: the handler reads a slot whole or not at all
    break;
  }
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, nullptr);
}

void unwatch_mapping(const uint8_t* base) {
  for (BusSlot& b : g_bus)
    if (b.base == base) b.base = nullptr;
}

// The whole file mapped read-only, or null (every pass reads the capture's own
// bytes: nothing downstream writes into a frame it is handed).
std::shared_ptr<uint8_t> map_file(int fd, uint64_t size, const std::string& path) {
  if (fd < 0 || size == 0 || size > (uint64_t{1} << 46)) return nullptr;
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (m == MAP_FAILED) return nullptr;
  ::madvise(m, size, MADV_SEQUENTIAL);  // best effort: read ahead, drop behind
  auto* p = static_cast<uint8_t*>(m);
  watch_mapping(p, size, path);
  return std::shared_ptr<uint8_t>(p, [size](uint8_t* q) {
    unwatch_mapping(q);
    ::munmap(q, size);
  });
}

bool is_pcap_magic(const uint8_t m[4]) {
  static const uint8_t kMagics[4][4] = {{0xd4, 0xc3, 0xb2, 0xa1},
                                        {0xa1, 0xb2, 0xc3, 0xd4},
                                        {0x4d, 0x3c, 0xb2, 0xa1},
                                        {0xa1, 0xb2, 0x3c, 0x4d}};
  for (const auto& k : kMagics) {
    if (std::memcmp(m, k, 4) == 0) return true;
  }
  return false;
}

}  // namespace

Trace Trace::load(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    fail_file(path, std::string("cannot open trace: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) fail_file(path, "cannot open trace: is a directory");
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) fail_file(path, std::string("cannot open trace: ") + std::strerror(errno));
  uint8_t magic[4] = {0, 0, 0, 0};
  size_t got = std::fread(magic, 1, 4, fp);
  std::fclose(fp);

  Trace t;
  t.path = path;
  static const uint8_t kPcapNg[4] = {0x0a, 0x0d, 0x0d, 0x0a};
  if (got == 4 && is_pcap_magic(magic)) {
    t.format = Format::kPcap;
  } else if (got == 4 && std::memcmp(magic, kPcapNg, 4) == 0) {
    t.format = Format::kPcapNg;
  } else {
    t.format = Format::kText;
  }
  if (t.format == Format::kText) {
    t.load_text();
  } else {
    t.load_pcap();
  }
  return t;
}

// ------------------------------------------------------------------- pcap ---

namespace {

// Reads n bytes at off; false on a short read or an error.
bool read_at(int fd, uint64_t off, uint8_t* out, size_t n) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, static_cast<off_t>(off));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got, off += static_cast<uint64_t>(got), n -= static_cast<size_t>(got);
  }
  return true;
}

uint32_t load32(const uint8_t* b, bool big) {
  return big ? (uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3])
             : (uint32_t{b[3]} << 24 | uint32_t{b[2]} << 16 | uint32_t{b[1]} << 8 | b[0]);
}

// pcapng: where a record's bytes start in the file, given where libpcap's read
// of it ended: inside the packet block that ends there (Enhanced / obsolete
// Packet Block: 28 bytes in; Simple: 12), found from the block's trailing
// length. -1 when that cannot be shown. (Classic pcap: PcapReader counts it.)
int64_t ng_data_offset(int fd, bool big, int64_t end, uint32_t caplen) {
  if (end < 0) return -1;
  uint8_t t[4];
  if (end < 32 || !read_at(fd, static_cast<uint64_t>(end) - 4, t, 4)) return -1;
  const uint32_t len = load32(t, big);
  if (len < 16 || len % 4 || len > static_cast<uint64_t>(end)) return -1;
  const uint64_t start = static_cast<uint64_t>(end) - len;
  uint8_t h[8];
  if (!read_at(fd, start, h, 8) || load32(h + 4, big) != len) return -1;
  const uint32_t type = load32(h, big);
  const uint32_t at = type == 6 || type == 2 ? 28 : type == 3 ? 12 : 0;
  if (!at || uint64_t{at} + caplen + 4 > len) return -1;
  return static_cast<int64_t>(start + at);
}

}  // namespace

const uint8_t* Trace::frame(const Record& r, std::vector<uint8_t>& buf) const {
  if (!file_) return arena_.data() + r.offset;
  if (map_ && r.offset + r.len <= map_len_) return map_.get() + r.offset;
  buf.resize(r.len);
  if (!read_at(*file_, r.offset, buf.data(), r.len))
    fail_file(path, "cannot read record " + std::to_string(r.index) +
                        " again (did the file change during the replay?)");
  return buf.data();
}

Trace::Cursor::Cursor(const Trace& t) : t_(&t) {
  if (t.in_file() && !t.mapped()) in_ = std::make_unique<PcapReader>(t.path);
}

Trace::Cursor::~Cursor() = default;

const uint8_t* Trace::Cursor::frame(const Record& r) {
  if (t_->mapped()) {
    // Records come in file order: the pages well before this one are not read
    // again by this cursor; let them go (they stay in the page cache).
    constexpr uint64_t kWindow = 2u << 20;
    if (r.offset >= kept_from_ + 2 * kWindow) {
      const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
      const uint64_t from = kept_from_ / page * page;
      const uint64_t to = (r.offset - kWindow) / page * page;
      if (to > from) ::madvise(t_->map_.get() + from, to - from, MADV_DONTNEED);
      kept_from_ = to;
    }
    return t_->frame(r, buf_);
  }
  if (!in_) return t_->frame(r, buf_);
  PcapReader::Record h;
  while (in_ && at_ < r.index) {
    if (!in_->next(h)) {
      in_.reset();  // the file changed under us: read the frame back
      break;
    }
    ++at_;
  }
  if (in_ && at_ == r.index && h.caplen == r.len) return h.data;
  return t_->frame(r, buf_);
}

void Trace::load_pcap() {
  PcapReader in(path);
  // The capture stays on disk: records point into it. A second descriptor
  // reads frames back; if an offset cannot be shown to hold the bytes libpcap
  // returned, every frame is copied into the arena instead (as for text).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  bool big = false;
  if (fd >= 0 && format == Format::kPcapNg) {
    uint8_t shb[12];
    if (read_at(fd, 0, shb, 12)) big = load32(shb + 8, true) == 0x1A2B3C4D;
  }
  bool by_offset = fd >= 0;
  std::vector<uint8_t> check;
  struct stat fst {};
  const int64_t file_size = fd >= 0 && ::fstat(fd, &fst) == 0 ? fst.st_size : -1;

  bool have_t0 = false;
  i128 t0_ns = 0;
  constexpr uint64_t kMaxTimePs = uint64_t{1} << 62;
  PcapReader::Record h;
  for (;;) {
    uint32_t index = static_cast<uint32_t>(records.size() + 1);
    if (!in.next(h)) {
      if (!in.error().empty()) {
        const std::string& m = in.error();
        bool truncated = m.find("truncated") != std::string::npos;
        issues.push_back({index, 0, (truncated ? "truncated record: " : "read error: ") + m});
      }
      break;
    }
    // 128-bit: a damaged header can hold any tv_sec; times are kept up to kMaxTimePs
    // after the first record, a later one is clamped and reported.
    const i128 t_ns = static_cast<i128>(h.sec) * 1000000000 + h.nsec;
    if (!have_t0) {
      have_t0 = true;
      t0_ns = t_ns;
    }
    Record r;
    const i128 rel_ps = t_ns > t0_ns ? (t_ns - t0_ns) * 1000 : 0;
    r.time_ps = rel_ps > kMaxTimePs ? kMaxTimePs : static_cast<uint64_t>(rel_ps);
    if (rel_ps > kMaxTimePs)
      issues.push_back({index, 0, "timestamp more than 2^62 ps after the first record: clamped"});
    r.has_time = true;
    r.len = h.caplen;
    r.orig_len = h.len > h.caplen ? h.len : h.caplen;
    r.index = index;
    r.line = 0;
    if (by_offset) {
      const int64_t off =
          format == Format::kPcap ? h.data_offset : ng_data_offset(fd, big, h.end_offset, h.caplen);
      // Shown on the first record, every 1024th and the last: the bytes there are
      // libpcap's (a counted offset that drifted stays off, so a sample finds it).
      if (off >= 0 && ((records.size() & 1023) == 0 || h.end_offset == file_size)) {
        check.resize(h.caplen);
        if (!read_at(fd, static_cast<uint64_t>(off), check.data(), h.caplen) ||
            (h.caplen && std::memcmp(check.data(), h.data, h.caplen) != 0))
          by_offset = false;
      }
      if (off < 0) by_offset = false;
      if (!by_offset) {
        // Fall back: copy what was skipped so far, then every frame.
        std::vector<uint8_t> tmp;
        for (Record& old : records) {
          tmp.resize(old.len);
          if (!read_at(fd, old.offset, tmp.data(), old.len))
            fail_file(path, "cannot read record " + std::to_string(old.index) + " again");
          old.offset = arena_.size();
          arena_.insert(arena_.end(), tmp.begin(), tmp.end());
        }
      } else {
        r.offset = static_cast<uint64_t>(off);
      }
    }
    if (!by_offset) {
      r.offset = arena_.size();
      arena_.insert(arena_.end(), h.data, h.data + h.caplen);
    }
    records.push_back(r);
  }
  if (by_offset) {
    file_ = std::shared_ptr<const int>(new int(fd), [](const int* p) {
      ::close(*p);
      delete p;
    });
    // Mapped only if every record lies inside the file as it is now.
    uint64_t end = 0;
    for (const Record& r : records) end = std::max(end, r.offset + r.len);
    if (file_size > 0 && end <= static_cast<uint64_t>(file_size)) {
      map_ = map_file(fd, static_cast<uint64_t>(file_size), path);
      if (map_) map_len_ = static_cast<uint64_t>(file_size);
    }
  } else if (fd >= 0) {
    ::close(fd);
  }
}

// ------------------------------------------------------------------- text ---

using namespace textfmt;  // NOLINT: the parser's types, in this file only

void Trace::load_text() {
  std::string text;
  {
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp) fail_file(path, std::string("cannot open trace: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fileno(fp), &st) == 0 && st.st_size > 0) {
      text.resize(static_cast<size_t>(st.st_size));
      size_t n = std::fread(text.data(), 1, text.size(), fp);
      text.resize(n);
    }
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, fp)) > 0;) text.append(buf, n);
    bool err = std::ferror(fp) != 0;
    std::fclose(fp);
    if (err) fail_file(path, "read error");
  }

  std::vector<Pending> pending;
  pending.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  std::vector<uint8_t> blob;
  TextParser(path, text).run(pending, blob);

  // Second pass: one reservation, each frame built in place.
  size_t total = 0;
  uint32_t max_zero = 0;
  uint32_t max_pat = 0;
  for (const auto& p : pending) {
    total += p.frame_len;
    if (p.kind == PayloadKind::kZero) max_zero = std::max(max_zero, p.spec.payload_len);
    if (p.kind == PayloadKind::kPat) max_pat = std::max(max_pat, p.spec.payload_len);
  }
  arena_.reserve(total);
  advise_huge_pages(arena_);
  records.reserve(pending.size());
  const std::vector<uint8_t> zeros(max_zero + 1, 0);
  std::vector<uint8_t> pat(max_pat + 1);  // the pattern of one packet, reused
  for (auto& p : pending) {
    size_t off = arena_.size();
    arena_.resize(off + p.frame_len);
    uint8_t* dst = arena_.data() + off;
    if (p.kind == PayloadKind::kRaw) {
      std::memcpy(dst, blob.data() + p.blob_off, p.blob_len);
    } else {
      wire::FrameSpec& s = p.spec;
      if (p.kind == PayloadKind::kHex) {
        s.payload = blob.data() + p.blob_off;
      } else if (p.kind == PayloadKind::kPat) {
        fill_pattern(p.pat_addr, pat.data(), s.payload_len);
        s.payload = pat.data();
      } else {
        s.payload = zeros.data();
      }
      size_t n = wire::build(s, dst, p.frame_len);
      if (n != p.frame_len) {
        throw Error(msg::kTrace, path + ":" + std::to_string(p.line) +
                                     ": internal error: frame_size " + std::to_string(p.frame_len) +
                                     " != built " + std::to_string(n));
      }
      if (p.bad_icrc) {
        for (size_t b = 0; b < wire::kIcrcBytes; ++b) dst[p.frame_len - 1 - b] ^= 0xff;
      }
    }
    Record r;
    r.time_ps = p.time_ps;
    r.has_time = p.has_time;
    r.offset = off;
    r.len = p.frame_len;
    r.orig_len = p.frame_len;
    r.index = static_cast<uint32_t>(records.size() + 1);
    r.line = p.line;
    records.push_back(r);
  }
}

}  // namespace oonic::trace
