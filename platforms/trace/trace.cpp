// Trace loading (pcap / pcapng through libpcap, oonic text traces) and the
// classic-pcap writer. The text grammar is documented in traces/README.md.
#include "platforms/trace/trace.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <sys/mman.h>
#include <sys/stat.h>

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

void Trace::load_pcap() {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p =
      pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!p) fail_file(path, std::string("cannot read capture: ") + errbuf);
  struct Closer {
    pcap_t* p;
    ~Closer() { pcap_close(p); }
  } closer{p};

  int dlt = pcap_datalink(p);
  if (dlt != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(dlt);
    fail_file(path, "link type " + std::to_string(dlt) +
                        (name ? std::string(" (") + name + ")" : "") +
                        " not supported (only Ethernet, LINKTYPE_ETHERNET = 1)");
  }

  // Captured bytes never exceed the file size: one reservation, no regrowth.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > 0) {
    arena_.reserve(static_cast<size_t>(st.st_size));
    advise_huge_pages(arena_);
  }

  bool have_t0 = false;
  __int128 t0_ns = 0;
  constexpr uint64_t kMaxTimePs = uint64_t{1} << 62;
  for (;;) {
    struct pcap_pkthdr* h = nullptr;
    const u_char* bytes = nullptr;
    int rc = pcap_next_ex(p, &h, &bytes);
    uint32_t index = static_cast<uint32_t>(records.size() + 1);
    if (rc == -2) break;  // end of file
    if (rc != 1) {
      std::string m = pcap_geterr(p);
      bool truncated = m.find("truncated") != std::string::npos;
      issues.push_back({index, 0, (truncated ? "truncated record: " : "read error: ") + m});
      break;
    }
    // 128-bit: a damaged header can hold any tv_sec; times are kept up to kMaxTimePs
    // after the first record, a later one is clamped and reported.
    const __int128 t_ns = static_cast<__int128>(h->ts.tv_sec) * 1000000000 + h->ts.tv_usec;
    if (!have_t0) {
      have_t0 = true;
      t0_ns = t_ns;
    }
    Record r;
    const __int128 rel_ps = t_ns > t0_ns ? (t_ns - t0_ns) * 1000 : 0;
    r.time_ps = rel_ps > kMaxTimePs ? kMaxTimePs : static_cast<uint64_t>(rel_ps);
    if (rel_ps > kMaxTimePs)
      issues.push_back({index, 0, "timestamp more than 2^62 ps after the first record: clamped"});
    r.has_time = true;
    r.offset = arena_.size();
    r.len = h->caplen;
    r.orig_len = h->len > h->caplen ? h->len : h->caplen;
    r.index = index;
    r.line = 0;
    arena_.insert(arena_.end(), bytes, bytes + h->caplen);
    records.push_back(r);
  }
}

// ------------------------------------------------------------------- text ---

namespace {

enum Key : uint8_t {
  kOp,
  kQp,
  kPsn,
  kVa,
  kRkey,
  kDmalen,
  kSyndrome,
  kMsn,
  kImm,
  kAckreq,
  kLen,
  kPayload,
  kSrc,
  kDst,
  kSmac,
  kDmac,
  kSport,
  kVlan,
  kTos,
  kTtl,
  kPkey,
  kSe,
  kFecn,
  kBecn,
  kCached,
  kBitmap,
  kRaw,
  kBadIcrc,
  kEunomiaHead,
  kEunomiaLast,
  kNumKeys
};

constexpr std::string_view kKeyNames[kNumKeys] = {
    "op",     "qp",     "psn", "va",      "rkey",         "dmalen",      "syndrome", "msn",
    "imm",    "ackreq", "len", "payload", "src",          "dst",         "smac",     "dmac",
    "sport",  "vlan",   "tos", "ttl",     "pkey",         "se",          "fecn",     "becn",
    "cached", "bitmap", "raw", "badicrc", "eunomia_head", "eunomia_last"};
static_assert(kNumKeys <= 32, "the parser keeps the keys seen on a line in a uint32_t");

struct OpName {
  std::string_view name;
  uint8_t opcode;
};
constexpr OpName kOpNames[] = {
    {"SEND_FIRST", wire::kSendFirst},
    {"SEND_MIDDLE", wire::kSendMiddle},
    {"SEND_LAST", wire::kSendLast},
    {"SEND_LAST_IMM", wire::kSendLastImm},
    {"SEND_ONLY", wire::kSendOnly},
    {"SEND_ONLY_IMM", wire::kSendOnlyImm},
    {"WRITE_FIRST", wire::kWriteFirst},
    {"WRITE_MIDDLE", wire::kWriteMiddle},
    {"WRITE_LAST", wire::kWriteLast},
    {"WRITE_LAST_IMM", wire::kWriteLastImm},
    {"WRITE_ONLY", wire::kWriteOnly},
    {"WRITE_ONLY_IMM", wire::kWriteOnlyImm},
    {"READ_REQUEST", wire::kReadRequest},
    {"READ_RESPONSE_FIRST", wire::kReadResponseFirst},
    {"READ_RESPONSE_MIDDLE", wire::kReadResponseMiddle},
    {"READ_RESPONSE_LAST", wire::kReadResponseLast},
    {"READ_RESPONSE_ONLY", wire::kReadResponseOnly},
    {"ACK", wire::kAcknowledge},
    {"ACKNOWLEDGE", wire::kAcknowledge},
    {"OOO_WRITE_FSPOT", wire::kOooWriteFSpot},
    {"OOO_WRITE_SPOT", wire::kOooWriteSpot},
    {"OOO_WRITE_LAST", wire::kOooWriteLast},
    {"OOO_WRITE_LAST_FSPOT", wire::kOooWriteLastFSpot},
    {"OOO_READ_REQUEST", wire::kOooReadRequest},
    {"OOO_READ_RESPONSE", wire::kOooReadResponse},
    {"OOO_NAK", wire::kOooNak},
    {"CNP", wire::kCnp},
};

// Canonical spelling of an opcode for messages.
std::string op_display(uint8_t opcode) {
  for (const auto& o : kOpNames) {
    if (o.opcode == opcode) return std::string(o.name);
  }
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", opcode);
  return b;
}

// Upper case, '-' and ' ' to '_', "RDMA_" prefix dropped. Returns false if the
// name does not fit the buffer (then it is no opcode name).
bool normalize_op(std::string_view s, char (&buf)[64], std::string_view& out) {
  if (s.size() >= sizeof buf) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '-' || c == ' ') c = '_';
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    buf[i] = c;
  }
  out = std::string_view(buf, s.size());
  if (out.substr(0, 5) == "RDMA_") out.remove_prefix(5);
  return true;
}

struct Endpoints {
  uint8_t ip_version = 4;
  std::array<uint8_t, 16> src_ip{{10, 0, 0, 1}};
  std::array<uint8_t, 16> dst_ip{{10, 0, 0, 2}};
  std::array<uint8_t, 6> smac{{0x02, 0, 0, 0, 0, 0x01}};
  std::array<uint8_t, 6> dmac{{0x02, 0, 0, 0, 0, 0x02}};
};

enum class PayloadKind : uint8_t { kZero, kHex, kPat, kRaw };

// One parsed line, built into the arena in the second pass.
struct Pending {
  wire::FrameSpec spec;
  PayloadKind kind = PayloadKind::kZero;
  bool bad_icrc = false;
  bool has_time = false;
  uint64_t time_ps = 0;
  uint64_t pat_addr = 0;
  uint32_t blob_off = 0;  // hex payload / raw frame bytes in the blob
  uint32_t blob_len = 0;
  uint32_t frame_len = 0;
  uint32_t line = 0;
};

constexpr uint32_t kMaxLen = 65000;   // payload bytes (fits an IPv4 packet)
constexpr uint32_t kMaxRaw = 262144;  // raw frame bytes (the pcap snaplen)

class TextParser {
 public:
  TextParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  void run(std::vector<Pending>& out, std::vector<uint8_t>& blob);

 private:
  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    throw Error(msg::kTrace, path_ + ":" + std::to_string(line_) + ": " + what + ", field '" +
                                 std::string(key) + "'");
  }
  uint64_t number(std::string_view key, std::string_view v, uint64_t max) const;
  bool flag(std::string_view key, std::string_view v) const {
    if (v == "0") return false;
    if (v == "1") return true;
    fail(key, "expected 0 or 1, got '" + std::string(v) + "'");
  }
  uint8_t ip(std::string_view key, std::string_view v, std::array<uint8_t, 16>& out) const;
  void mac(std::string_view key, std::string_view v, std::array<uint8_t, 6>& out) const;
  void hex(std::string_view key, std::string_view v, std::vector<uint8_t>& blob) const;
  void time(std::string_view tok, Pending& p) const;
  void bitmap(std::string_view key, std::string_view v, wire::BitmapBlock& b) const;
  uint8_t opcode(std::string_view key, std::string_view v) const;
  void directive(const std::vector<std::pair<std::string_view, std::string_view>>& kv,
                 std::string_view name);
  void endpoint(std::string_view key, std::string_view v, std::array<uint8_t, 16>& ip_out,
                uint8_t& version, std::array<uint8_t, 6>& mac_out);

  const std::string& path_;
  std::string_view text_;
  uint32_t line_ = 0;
  Endpoints ep_;
  bool have_last_time_ = false;
  uint64_t last_time_ps_ = 0;
};

uint64_t TextParser::number(std::string_view key, std::string_view v, uint64_t max) const {
  uint64_t x = 0;
  std::from_chars_result r{};
  const char* b = v.data();
  const char* e = v.data() + v.size();
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    r = std::from_chars(b + 2, e, x, 16);
  } else {
    r = std::from_chars(b, e, x, 10);
  }
  if (v.empty() || r.ec == std::errc::invalid_argument || r.ptr != e) {
    fail(key, "bad number '" + std::string(v) + "'");
  }
  if (r.ec == std::errc::result_out_of_range || x > max) {
    char m[32];
    std::snprintf(m, sizeof m, "0x%llx", static_cast<unsigned long long>(max));
    fail(key, "value " + std::string(v) + " out of range (max " + m + ")");
  }
  return x;
}

uint8_t TextParser::ip(std::string_view key, std::string_view v,
                       std::array<uint8_t, 16>& out) const {
  char buf[64];
  if (v.size() >= sizeof buf) fail(key, "bad IP address '" + std::string(v) + "'");
  std::memcpy(buf, v.data(), v.size());
  buf[v.size()] = 0;
  out.fill(0);
  if (v.find(':') != std::string_view::npos) {
    if (inet_pton(AF_INET6, buf, out.data()) == 1) return 6;
  } else if (inet_pton(AF_INET, buf, out.data()) == 1) {
    return 4;
  }
  fail(key, "bad IP address '" + std::string(v) + "'");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void TextParser::mac(std::string_view key, std::string_view v, std::array<uint8_t, 6>& out) const {
  // xx:xx:xx:xx:xx:xx (or '-' separators)
  bool ok = v.size() == 17;
  for (size_t i = 0; ok && i < 6; ++i) {
    int hi = hex_digit(v[3 * i]);
    int lo = hex_digit(v[3 * i + 1]);
    if (hi < 0 || lo < 0) ok = false;
    if (i < 5 && v[3 * i + 2] != ':' && v[3 * i + 2] != '-') ok = false;
    if (ok) out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  if (!ok) fail(key, "bad MAC address '" + std::string(v) + "' (expected xx:xx:xx:xx:xx:xx)");
}

void TextParser::hex(std::string_view key, std::string_view v, std::vector<uint8_t>& blob) const {
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) v.remove_prefix(2);
  if (v.size() % 2 != 0) fail(key, "odd number of hex digits");
  size_t n = v.size() / 2;
  size_t at = blob.size();
  blob.resize(at + n);
  for (size_t i = 0; i < n; ++i) {
    int hi = hex_digit(v[2 * i]);
    int lo = hex_digit(v[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      fail(key, "bad hex digit '" + std::string(1, hi < 0 ? v[2 * i] : v[2 * i + 1]) + "'");
    }
    blob[at + i] = static_cast<uint8_t>(hi << 4 | lo);
  }
}

void TextParser::time(std::string_view tok, Pending& p) const {
  if (tok == "-") {
    p.has_time = false;
    return;
  }
  size_t dot = tok.find('.');
  std::string_view ip = tok.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view() : tok.substr(dot + 1);
  uint64_t ns = 0;
  auto r = std::from_chars(ip.data(), ip.data() + ip.size(), ns, 10);
  bool ok = !ip.empty() && r.ec == std::errc() && r.ptr == ip.data() + ip.size();
  if (dot != std::string_view::npos) ok = ok && !fp.empty();
  uint64_t frac = 0;
  for (size_t i = 0; ok && i < fp.size(); ++i) {
    if (fp[i] < '0' || fp[i] > '9') ok = false;
    if (i >= 3) {
      if (ok && fp[i] != '0') fail("time", "time '" + std::string(tok) + "' finer than 1 ps");
      continue;
    }
    frac = frac * 10 + static_cast<uint64_t>(fp[i] - '0');
  }
  if (!ok) {
    if (tok.find('=') != std::string_view::npos) {
      fail("time", "a line starts with its time in ns or '-', got '" + std::string(tok) + "'");
    }
    fail("time", "bad time '" + std::string(tok) + "' (ns, e.g. 12.5, or '-')");
  }
  for (size_t i = fp.size(); i < 3; ++i) frac *= 10;
  if (ns > (std::numeric_limits<uint64_t>::max() - 999) / 1000) {
    fail("time", "time '" + std::string(tok) + "' out of range");
  }
  p.has_time = true;
  p.time_ps = ns * 1000 + frac;
  if (have_last_time_ && p.time_ps < last_time_ps_) {
    fail("time", "time " + std::string(tok) + " ns is earlier than the previous timed line");
  }
}

void TextParser::bitmap(std::string_view key, std::string_view v, wire::BitmapBlock& b) const {
  // <base_psn>:<nbits>[:<hexword>,<hexword>,...]
  size_t c1 = v.find(':');
  if (c1 == std::string_view::npos) fail(key, "expected <base_psn>:<nbits>:<hexwords>");
  size_t c2 = v.find(':', c1 + 1);
  std::string_view base = v.substr(0, c1);
  std::string_view nb = v.substr(c1 + 1, c2 == std::string_view::npos ? v.npos : c2 - c1 - 1);
  std::string_view words = c2 == std::string_view::npos ? std::string_view() : v.substr(c2 + 1);
  b = wire::BitmapBlock{};
  b.base_psn = static_cast<uint32_t>(number(key, base, wire::kPsnMask));
  uint64_t nbits = number(key, nb, wire::kMaxBitmapBlockBits);
  if (nbits == 0) fail(key, "bitmap of 0 bits");
  b.nbits = static_cast<uint16_t>(nbits);
  size_t nwords = (nbits + 31) / 32;
  size_t i = 0;
  while (!words.empty()) {
    size_t comma = words.find(',');
    std::string_view w = words.substr(0, comma);
    words = comma == std::string_view::npos ? std::string_view() : words.substr(comma + 1);
    if (i >= nwords) {
      fail(key,
           "more than " + std::to_string(nwords) + " words for " + std::to_string(nbits) + " bits");
    }
    if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) w.remove_prefix(2);
    uint32_t x = 0;
    auto r = std::from_chars(w.data(), w.data() + w.size(), x, 16);
    if (w.empty() || r.ec != std::errc() || r.ptr != w.data() + w.size()) {
      fail(key, "bad hex word '" + std::string(w) + "'");
    }
    uint32_t valid = (i + 1) * 32 <= nbits ? 0xffffffffu : ((1u << (nbits % 32)) - 1);
    if (x & ~valid) fail(key, "bits set beyond nbits=" + std::to_string(nbits));
    b.words[i++] = x;
  }
}

uint8_t TextParser::opcode(std::string_view key, std::string_view v) const {
  uint8_t op = 0;
  bool found = false;
  if (!v.empty() && v[0] >= '0' && v[0] <= '9') {
    op = static_cast<uint8_t>(number(key, v, 0xff));
    found = true;
  } else {
    char buf[64];
    std::string_view n;
    if (normalize_op(v, buf, n)) {
      for (const auto& o : kOpNames) {
        if (n == o.name) {
          op = o.opcode;
          found = true;
          break;
        }
      }
      if (!found) {  // the names of the codec's table ("RDMA WRITE First", ...)
        for (const auto& info : wire::opcode_table()) {
          char buf2[64];
          std::string_view n2;
          if (normalize_op(info.name, buf2, n2) && n == n2) {
            op = info.opcode;
            found = true;
            break;
          }
        }
      }
    }
  }
  if (!found || wire::opcode_info(op) == nullptr) {
    fail(key, "unknown opcode '" + std::string(v) + "'");
  }
  return op;
}

void TextParser::endpoint(std::string_view key, std::string_view v, std::array<uint8_t, 16>& ip_out,
                          uint8_t& version, std::array<uint8_t, 6>& mac_out) {
  // IP[,MAC]
  size_t comma = v.find(',');
  version = ip(key, v.substr(0, comma), ip_out);
  if (comma != std::string_view::npos) mac(key, v.substr(comma + 1), mac_out);
}

void TextParser::directive(const std::vector<std::pair<std::string_view, std::string_view>>& kv,
                           std::string_view name) {
  if (name != "@endpoints") {
    fail(name, "unknown directive (known: @endpoints peer=IP[,MAC] dut=IP[,MAC])");
  }
  Endpoints e = ep_;
  uint8_t vs = 0;
  uint8_t vd = 0;
  for (const auto& [k, v] : kv) {
    if (k == "peer") {
      endpoint(k, v, e.src_ip, vs, e.smac);
    } else if (k == "dut") {
      endpoint(k, v, e.dst_ip, vd, e.dmac);
    } else {
      fail(k, "unknown @endpoints field (known: peer, dut)");
    }
  }
  uint8_t v_src = vs ? vs : ep_.ip_version;
  uint8_t v_dst = vd ? vd : ep_.ip_version;
  if (v_src != v_dst) fail(vs ? "peer" : "dut", "peer and dut must both be IPv4 or both IPv6");
  e.ip_version = v_src;
  ep_ = e;
}

void TextParser::run(std::vector<Pending>& out, std::vector<uint8_t>& blob) {
  std::vector<std::pair<std::string_view, std::string_view>> kv;
  kv.reserve(32);
  size_t pos = 0;
  while (pos < text_.size()) {
    size_t nl = text_.find('\n', pos);
    if (nl == std::string_view::npos) nl = text_.size();
    std::string_view line = text_.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    // Version header.
    if (line.rfind("# oonic-trace", 0) == 0) {
      std::string_view ver = line.substr(13);
      while (!ver.empty() && (ver.front() == ' ' || ver.front() == '\t')) ver.remove_prefix(1);
      while (!ver.empty() && (ver.back() == ' ' || ver.back() == '\t')) ver.remove_suffix(1);
      if (ver != "v1") fail("header", "unsupported trace version '" + std::string(ver) + "'");
      continue;
    }

    // Tokenise: whitespace separated, '#' starts a comment, "..." quotes spaces.
    std::string_view first;
    kv.clear();
    size_t i = 0;
    bool have_first = false;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size() || line[i] == '#') break;
      size_t start = i;
      bool quoted = false;
      while (i < line.size() && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
        if (line[i] == '"') quoted = !quoted;
        ++i;
      }
      std::string_view tok = line.substr(start, i - start);
      if (!have_first) {
        first = tok;
        have_first = true;
        continue;
      }
      size_t eq = tok.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        fail(tok, "expected key=value");
      }
      std::string_view k = tok.substr(0, eq);
      std::string_view v = tok.substr(eq + 1);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      kv.emplace_back(k, v);
    }
    if (!have_first) continue;  // blank or comment
    if (first[0] == '@') {
      directive(kv, first);
      continue;
    }

    Pending p;
    p.line = line_;
    time(first, p);
    wire::FrameSpec& s = p.spec;
    s.ip_version = ep_.ip_version;
    s.src_ip = ep_.src_ip;
    s.dst_ip = ep_.dst_ip;
    s.src_mac = ep_.smac;
    s.dst_mac = ep_.dmac;

    uint32_t seen = 0;
    uint8_t v_src = 0;
    uint8_t v_dst = 0;
    uint64_t len = 0;
    for (const auto& [k, v] : kv) {
      int key = -1;
      for (int j = 0; j < kNumKeys; ++j) {
        if (k == kKeyNames[j]) {
          key = j;
          break;
        }
      }
      if (key < 0) {
        fail(k,
             "unknown field (known: op qp psn va rkey dmalen syndrome msn imm ackreq len payload "
             "src dst smac dmac sport vlan tos ttl pkey se fecn becn cached bitmap raw badicrc "
             "eunomia_head eunomia_last)");
      }
      if (seen & (1u << key)) fail(k, "field given twice");
      seen |= 1u << key;
      switch (static_cast<Key>(key)) {
        case kOp:
          s.bth.opcode = opcode(k, v);
          break;
        case kQp:
          s.bth.dest_qp = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
          break;
        case kPsn:
          s.bth.psn = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
          break;
        case kVa:
          s.reth.va = number(k, v, std::numeric_limits<uint64_t>::max());
          break;
        case kRkey:
          s.reth.rkey = static_cast<uint32_t>(number(k, v, 0xffffffffu));
          break;
        case kDmalen:
          s.reth.dma_len = static_cast<uint32_t>(number(k, v, 0xffffffffu));
          break;
        case kSyndrome:
          s.aeth.syndrome = static_cast<uint8_t>(number(k, v, 0xff));
          break;
        case kMsn:
          s.aeth.msn = static_cast<uint32_t>(number(k, v, wire::kPsnMask));
          break;
        case kImm:
          s.immdt = static_cast<uint32_t>(number(k, v, 0xffffffffu));
          break;
        case kAckreq:
          s.bth.ack_req = flag(k, v);
          break;
        case kLen:
          len = number(k, v, kMaxLen);
          break;
        case kPayload:
          if (v == "zero") {
            p.kind = PayloadKind::kZero;
          } else if (v.rfind("hex:", 0) == 0) {
            p.kind = PayloadKind::kHex;
            p.blob_off = static_cast<uint32_t>(blob.size());
            hex(k, v.substr(4), blob);
            p.blob_len = static_cast<uint32_t>(blob.size() - p.blob_off);
            if (p.blob_len > kMaxLen) fail(k, "payload longer than 65000 bytes");
          } else if (v.rfind("pat:", 0) == 0) {
            p.kind = PayloadKind::kPat;
            p.pat_addr = number(k, v.substr(4), std::numeric_limits<uint64_t>::max());
          } else {
            fail(k, "bad payload '" + std::string(v) + "' (zero, hex:<bytes> or pat:<addr>)");
          }
          break;
        case kSrc:
          v_src = ip(k, v, s.src_ip);
          break;
        case kDst:
          v_dst = ip(k, v, s.dst_ip);
          break;
        case kSmac:
          mac(k, v, s.src_mac);
          break;
        case kDmac:
          mac(k, v, s.dst_mac);
          break;
        case kSport:
          s.udp_sport = static_cast<uint16_t>(number(k, v, 0xffff));
          break;
        case kVlan:
          s.vlan = true;
          s.vlan_tci = static_cast<uint16_t>(number(k, v, 0xffff));
          break;
        case kTos:
          s.tos = static_cast<uint8_t>(number(k, v, 0xff));
          break;
        case kTtl:
          s.ttl = static_cast<uint8_t>(number(k, v, 0xff));
          break;
        case kPkey:
          s.bth.pkey = static_cast<uint16_t>(number(k, v, 0xffff));
          break;
        case kSe:
          s.bth.se = flag(k, v);
          break;
        case kFecn:
          s.bth.fecn = flag(k, v);
          break;
        case kBecn:
          s.bth.becn = flag(k, v);
          break;
        case kCached:
          if (flag(k, v)) s.bth.resv7 |= wire::kBthStartAddrCachedBit;
          break;
        case kBitmap:
          bitmap(k, v, s.bitmap);
          break;
        case kRaw:
          p.kind = PayloadKind::kRaw;
          p.blob_off = static_cast<uint32_t>(blob.size());
          hex(k, v, blob);
          p.blob_len = static_cast<uint32_t>(blob.size() - p.blob_off);
          if (p.blob_len == 0) fail(k, "empty frame");
          if (p.blob_len > kMaxRaw) fail(k, "frame longer than 262144 bytes");
          break;
        case kBadIcrc:
          p.bad_icrc = flag(k, v);
          break;
        case kEunomiaHead:
          s.eunomia.head = static_cast<uint32_t>(number(k, v, 0xffffffffu));
          break;
        case kEunomiaLast:
          s.eunomia.last = flag(k, v);
          break;
        case kNumKeys:
          break;
      }
    }

    if (seen & (1u << kRaw)) {
      for (const auto& kvp : kv) {
        if (kvp.first != "raw") fail(kvp.first, "raw= takes no other field");
      }
      p.frame_len = p.blob_len;
      out.push_back(p);
      if (p.has_time) {
        have_last_time_ = true;
        last_time_ps_ = p.time_ps;
      }
      continue;
    }

    if (!(seen & (1u << kOp))) fail("op", "missing (every line needs op= or raw=)");
    const uint8_t op = s.bth.opcode;
    const wire::OpcodeInfo* info = wire::opcode_info(op);
    const uint16_t fl = info->flags;
    auto require = [&](Key key) {
      if (!(seen & (1u << key))) {
        fail(kKeyNames[key], "missing (required by " + op_display(op) + ")");
      }
    };
    auto forbid = [&](Key key, const char* what) {
      if (seen & (1u << key)) {
        fail(kKeyNames[key], "not carried by " + op_display(op) + " (" + what + ")");
      }
    };

    // IP version: both ends the same.
    uint8_t vs = v_src ? v_src : ep_.ip_version;
    uint8_t vd = v_dst ? v_dst : ep_.ip_version;
    if (vs != vd) fail(v_src ? "src" : "dst", "src and dst must both be IPv4 or both IPv6");
    s.ip_version = vs;

    require(kQp);
    if (op != wire::kCnp) require(kPsn);
    if (fl & (wire::kHasReth | wire::kHasOooAddr)) {
      require(kVa);
      require(kRkey);
      if (!(seen & (1u << kDmalen))) {
        if (op == wire::kWriteOnly || op == wire::kWriteOnlyImm) {
          s.reth.dma_len = static_cast<uint32_t>(
              p.kind == PayloadKind::kHex && !(seen & (1u << kLen)) ? p.blob_len : len);
        } else {
          require(kDmalen);
        }
      }
    } else {
      forbid(kVa, "no RETH / address header");
      forbid(kRkey, "no RETH / address header");
      forbid(kDmalen, "no RETH / address header");
    }
    if (fl & wire::kHasAeth) {
      if (!(seen & (1u << kSyndrome))) {
        s.aeth.syndrome = op == wire::kOooNak ? wire::kAethNakPsnSeqErr : wire::kAethAckNoCredit;
      }
    } else {
      forbid(kSyndrome, "no AETH");
      forbid(kMsn, "no AETH");
    }
    if (!(fl & wire::kHasImmDt)) forbid(kImm, "no ImmDt");
    // Eunomia's metadata extension (Head, last): data packets only (WRITE, SEND, OOO
    // WRITE), as wire::build writes it; either key sets the BTH bit and adds the header.
    constexpr uint16_t kEunomiaData = wire::kHasPayload | wire::kIsRequest;
    if ((fl & kEunomiaData) == kEunomiaData) {
      if ((seen & (1u << kEunomiaLast)) && !(seen & (1u << kEunomiaHead))) {
        fail("eunomia_head", "missing (eunomia_last needs the message's Head)");
      }
      if (seen & (1u << kEunomiaHead)) s.bth.resv7 |= wire::kBthEunomiaMetaBit;
    } else {
      forbid(kEunomiaHead, "no Eunomia metadata: WRITE, SEND and OOO WRITE data packets only");
      forbid(kEunomiaLast, "no Eunomia metadata: WRITE, SEND and OOO WRITE data packets only");
    }
    if (fl & wire::kHasBitmap) {
      require(kBitmap);
    } else {
      forbid(kBitmap, "no bitmap header");
    }
    if (fl & wire::kHasPayload) {
      if (p.kind == PayloadKind::kHex) {
        if ((seen & (1u << kLen)) && len != p.blob_len) {
          fail("len", "len=" + std::to_string(len) + " but the hex payload has " +
                          std::to_string(p.blob_len) + " bytes");
        }
        len = p.blob_len;
      } else if (p.kind == PayloadKind::kPat && !(seen & (1u << kLen))) {
        fail("len", "missing (payload=pat needs len=)");
      } else if (op == wire::kCnp && !(seen & (1u << kLen))) {
        len = 16;  // RoCEv2 CNP: 16 reserved bytes
      }
      s.payload_len = static_cast<uint32_t>(len);
    } else {
      forbid(kLen, "no payload");
      forbid(kPayload, "no payload");
    }
    p.frame_len = static_cast<uint32_t>(wire::frame_size(s));
    out.push_back(p);
    if (p.has_time) {
      have_last_time_ = true;
      last_time_ps_ = p.time_ps;
    }
  }
}

}  // namespace

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

// ------------------------------------------------------------- PcapWriter ---

namespace {
constexpr size_t kWriteBuffer = 1 << 20;
}

PcapWriter::PcapWriter(const std::string& path) : path_(path) {
  fp_ = std::fopen(path.c_str(), "wb");
  if (!fp_) {
    throw Error(msg::kIo, path + ": cannot write pcap: " + std::strerror(errno));
  }
  buf_.reset(new char[kWriteBuffer]);
  std::setvbuf(fp_, buf_.get(), _IOFBF, kWriteBuffer);
  struct {
    uint32_t magic;
    uint16_t major, minor;
    int32_t thiszone;
    uint32_t sigfigs, snaplen, network;
  } h{0xa1b23c4d, 2, 4, 0, 0, kSnaplen, 1 /* LINKTYPE_ETHERNET */};
  static_assert(sizeof h == 24, "pcap file header is 24 bytes");
  if (std::fwrite(&h, sizeof h, 1, fp_) != 1) {
    std::fclose(fp_);
    fp_ = nullptr;
    throw Error(msg::kIo, path + ": write error");
  }
}

PcapWriter::~PcapWriter() {
  if (fp_) std::fclose(fp_);
}

void PcapWriter::write(uint64_t time_ps, const uint8_t* data, size_t len) {
  if (!fp_) throw Error(msg::kIo, path_ + ": pcap writer is closed");
  uint32_t incl = static_cast<uint32_t>(len < kSnaplen ? len : kSnaplen);
  uint64_t ns = time_ps / 1000;
  uint32_t rec[4] = {static_cast<uint32_t>(ns / 1000000000ull),
                     static_cast<uint32_t>(ns % 1000000000ull), incl, static_cast<uint32_t>(len)};
  if (std::fwrite(rec, sizeof rec, 1, fp_) != 1 || (incl && std::fwrite(data, incl, 1, fp_) != 1)) {
    throw Error(msg::kIo, path_ + ": write error: " + std::strerror(errno));
  }
  ++frames_;
}

void PcapWriter::close() {
  if (!fp_) return;
  bool bad = std::fflush(fp_) != 0 || std::ferror(fp_) != 0;
  bad = (std::fclose(fp_) != 0) || bad;
  fp_ = nullptr;
  if (bad) throw Error(msg::kIo, path_ + ": write error");
}

}  // namespace oonic::trace
