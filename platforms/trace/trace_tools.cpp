// `oonic trace`: convert, synth, perturb, stats (see trace_tools.h and
// traces/README.md "Trace tools").
#include "platforms/trace/trace_tools.h"

#include "platforms/trace/endpoint.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"
#include "platforms/trace/text_writer.h"

namespace oonic::trace {

namespace {

[[noreturn]] void fail_trace(const std::string& what) {
  throw Error(msg::kTrace, what);
}
[[noreturn]] void fail_cli(const std::string& what) {
  throw Error(msg::kCli, what);
}

std::string hexs(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// floor(a / b) for b > 0.
int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Signed ns with up to 3 decimals ("-12.5") -> ps. False if malformed.
bool parse_ns(std::string_view s, int64_t& ps) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  size_t dot = s.find('.');
  std::string_view ip = s.substr(0, dot);
  std::string_view fp = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (ip.empty() || ip.size() > 15 || (dot != std::string_view::npos && fp.empty()) ||
      fp.size() > 3)
    return false;
  int64_t v = 0;
  for (char c : ip) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  int64_t f = 0;
  for (size_t i = 0; i < 3; ++i) {
    char c = i < fp.size() ? fp[i] : '0';
    if (c < '0' || c > '9') return false;
    f = f * 10 + (c - '0');
  }
  ps = (v * 1000 + f) * (neg ? -1 : 1);
  return true;
}

std::string format_signed_ns(int64_t ps) {
  if (ps >= 0) return format_time_ps(static_cast<uint64_t>(ps));
  return "-" + format_time_ps(static_cast<uint64_t>(-ps));
}

}  // namespace

// ------------------------------------------------------------------ frames ---

Frames Frames::derived() const {
  Frames f;
  f.path = path;
  f.format = format;
  f.has_origin = has_origin;
  f.origin_ns = origin_ns;
  f.owner = owner;
  f.base = base;
  return f;
}

Frames Frames::own(std::vector<uint8_t> bytes) {
  auto p = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  Frames f;
  f.base = p->data();
  f.owner = p;
  return f;
}

namespace {

Frames read_capture(const std::string& path, Format format) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  pcap_t* p =
      pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!p) fail_trace(path + ": cannot read capture: " + errbuf);
  struct Closer {
    pcap_t* p;
    ~Closer() { pcap_close(p); }
  } closer{p};
  int dlt = pcap_datalink(p);
  if (dlt != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(dlt);
    fail_trace(path + ": link type " + std::to_string(dlt) +
               (name ? std::string(" (") + name + ")" : "") +
               " not supported (only Ethernet, LINKTYPE_ETHERNET = 1)");
  }
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > 0)
    bytes->reserve(static_cast<size_t>(st.st_size));
  Frames fr;
  fr.path = path;
  fr.format = format;
  for (;;) {
    struct pcap_pkthdr* h = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(p, &h, &data);
    uint32_t index = static_cast<uint32_t>(fr.frames.size() + 1);
    if (rc == -2) break;
    if (rc != 1) {
      fr.issues.push_back("record " + std::to_string(index) +
                          ": reading stopped: " + pcap_geterr(p));
      break;
    }
    int64_t t_ns = static_cast<int64_t>(h->ts.tv_sec) * 1000000000 + h->ts.tv_usec;
    if (!fr.has_origin) fr.has_origin = true, fr.origin_ns = t_ns;
    Frame f;
    f.time_ps = (t_ns - fr.origin_ns) * 1000;
    f.has_time = true;
    f.offset = bytes->size();
    f.len = h->caplen;
    f.wire_len = std::max(h->len, h->caplen);
    f.source = index;
    bytes->insert(bytes->end(), data, data + h->caplen);
    fr.frames.push_back(f);
  }
  fr.base = bytes->data();
  fr.owner = bytes;
  return fr;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_trace(path + ": cannot open trace: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The trailing comment of a text line (after the first token that starts with
// '#' outside quotes, as the loader tokenises), or "".
std::string_view trailing_comment(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    if (line[i] == '#') return line.substr(i + 1);
    bool quoted = false;
    while (i < line.size() && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
      if (line[i] == '"') quoted = !quoted;
      ++i;
    }
  }
  return {};
}

Frames read_text(const std::string& path) {
  auto t = std::make_shared<Trace>(Trace::load(path));
  Frames fr;
  fr.path = path;
  fr.format = Format::kText;
  fr.frames.reserve(t->records.size());
  for (const Record& r : t->records) {
    Frame f;
    f.time_ps = static_cast<int64_t>(r.time_ps);
    f.has_time = r.has_time;
    f.offset = r.offset;
    f.len = r.len;
    f.wire_len = r.orig_len;
    f.source = r.index;
    f.line = r.line;
    fr.frames.push_back(f);
  }
  Record zero;
  fr.base = t->data(zero);
  fr.owner = t;

  // Annotations this tool writes in comments.
  std::string text = read_text_file(path);
  std::vector<std::string_view> lines;
  {
    std::string_view all(text);
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t nl = all.find('\n', pos);
      if (nl == std::string_view::npos) nl = all.size();
      std::string_view l = all.substr(pos, nl - pos);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines.push_back(l);
      pos = nl + 1;
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    static constexpr std::string_view kOrigin = "# time-origin:";
    if (l.substr(0, kOrigin.size()) != kOrigin) continue;
    std::string_view v = l.substr(kOrigin.size());
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    v = v.substr(0, v.find_first_of(" \t"));
    size_t dot = v.find('.');
    bool ok = dot != std::string_view::npos && dot > 0 && v.size() - dot - 1 == 9;
    int64_t sec = 0, ns = 0;
    for (size_t k = 0; ok && k < v.size(); ++k) {
      if (k == dot) continue;
      if (v[k] < '0' || v[k] > '9')
        ok = false;
      else if (k < dot)
        sec = sec * 10 + (v[k] - '0');
      else
        ns = ns * 10 + (v[k] - '0');
    }
    if (!ok || dot > 11)
      fail_trace(path + ":" + std::to_string(i + 1) + ": bad time origin '" + std::string(v) +
                 "' (expected SECONDS.NNNNNNNNN)");
    fr.has_origin = true;
    fr.origin_ns = sec * 1000000000 + ns;
    break;
  }
  for (Frame& f : fr.frames) {
    if (f.line == 0 || f.line > lines.size()) continue;
    std::string_view c = trailing_comment(lines[f.line - 1]);
    size_t i = 0;
    while (i < c.size()) {
      while (i < c.size() && (c[i] == ' ' || c[i] == '\t')) ++i;
      size_t s = i;
      while (i < c.size() && c[i] != ' ' && c[i] != '\t') ++i;
      std::string_view tok = c.substr(s, i - s);
      auto bad = [&] {
        fail_trace(path + ":" + std::to_string(f.line) + ": bad annotation '" + std::string(tok) +
                   "' in the comment");
      };
      if (tok == "retransmission") {
        f.mark = Mark::kRetransmission;
      } else if (tok == "duplicate") {
        f.mark = Mark::kDuplicate;
      } else if (tok.substr(0, 9) == "wire_len=") {
        uint64_t n = 0;
        std::string_view d = tok.substr(9);
        if (d.empty() || d.size() > 9) bad();
        for (char ch : d) {
          if (ch < '0' || ch > '9') bad();
          n = n * 10 + static_cast<uint64_t>(ch - '0');
        }
        if (n < f.len) bad();
        f.wire_len = static_cast<uint32_t>(n);
      } else if (tok.substr(0, 5) == "time=") {
        int64_t ps = 0;
        if (!parse_ns(tok.substr(5), ps)) bad();
        f.time_ps = ps;
        f.has_time = true;
      }
    }
  }
  return fr;
}

}  // namespace

Frames read_frames(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail_trace(path + ": cannot open trace: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail_trace(path + ": cannot open trace: is a directory");
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) fail_trace(path + ": cannot open trace: " + std::strerror(errno));
  uint8_t m[4] = {0, 0, 0, 0};
  size_t got = std::fread(m, 1, 4, fp);
  std::fclose(fp);
  static const uint8_t kMagics[4][4] = {{0xd4, 0xc3, 0xb2, 0xa1},
                                        {0xa1, 0xb2, 0xc3, 0xd4},
                                        {0x4d, 0x3c, 0xb2, 0xa1},
                                        {0xa1, 0xb2, 0x3c, 0x4d}};
  static const uint8_t kNg[4] = {0x0a, 0x0d, 0x0d, 0x0a};
  if (got == 4) {
    for (const auto& k : kMagics)
      if (std::memcmp(m, k, 4) == 0) return read_capture(path, Format::kPcap);
    if (std::memcmp(m, kNg, 4) == 0) return read_capture(path, Format::kPcapNg);
  }
  return read_text(path);
}

OutFormat out_format_for(const std::string& path) {
  auto ends = [&](const char* e) {
    size_t n = std::strlen(e);
    if (path.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != e[i]) return false;
    return true;
  };
  if (ends(".txt")) return OutFormat::kText;
  if (ends(".pcapng")) return OutFormat::kPcapNg;
  if (ends(".pcap")) return OutFormat::kPcap;
  fail_cli(path + ": unknown output format (the extension decides: .txt, .pcap or .pcapng)");
}

// ----------------------------------------------------------------- writers ---

namespace {

class OutFile {
 public:
  explicit OutFile(const std::string& path) : path_(path) {
    fp_ = std::fopen(path.c_str(), "wb");
    if (!fp_) throw Error(msg::kIo, path + ": cannot write: " + std::strerror(errno));
  }
  ~OutFile() {
    if (fp_) std::fclose(fp_);
  }
  void put(const void* p, size_t n) {
    if (n && std::fwrite(p, n, 1, fp_) != 1)
      throw Error(msg::kIo, path_ + ": write error: " + std::strerror(errno));
  }
  void put(const std::string& s) { put(s.data(), s.size()); }
  void close() {
    bool bad = std::fflush(fp_) != 0 || std::ferror(fp_) != 0;
    bad = std::fclose(fp_) != 0 || bad;
    fp_ = nullptr;
    if (bad) throw Error(msg::kIo, path_ + ": write error");
  }

 private:
  std::string path_;
  std::FILE* fp_ = nullptr;
};

// Output times: timed frames keep theirs; an untimed frame is placed back to
// back at 100 Gb/s after the previous frame (ps, relative to the origin).
std::vector<int64_t> placed_times(const Frames& fr) {
  std::vector<int64_t> t(fr.frames.size());
  int64_t prev = 0;
  for (size_t i = 0; i < fr.frames.size(); ++i) {
    const Frame& f = fr.frames[i];
    if (f.has_time) {
      t[i] = f.time_ps;
    } else {
      t[i] = i ? prev + static_cast<int64_t>(wire::wire_bytes(fr.frames[i - 1].len)) * 80 : 0;
    }
    prev = t[i];
  }
  return t;
}

void put32(std::string& s, uint32_t v) {
  s.append(reinterpret_cast<const char*>(&v), 4);
}
void put16(std::string& s, uint16_t v) {
  s.append(reinterpret_cast<const char*>(&v), 2);
}

}  // namespace

WriteSummary write_frames(const std::string& path, OutFormat fmt, const Frames& fr,
                          const std::vector<std::string>& header) {
  WriteSummary sum;
  sum.frames = fr.frames.size();
  if (fmt == OutFormat::kText) {
    OutFile out(path);
    std::string s = "# oonic-trace v1\n";
    for (const auto& h : header) s += "# " + h + "\n";
    if (fr.has_origin) {
      char b[64];
      int64_t sec = floor_div(fr.origin_ns, 1000000000);
      std::snprintf(b, sizeof b, "%lld.%09lld", static_cast<long long>(sec),
                    static_cast<long long>(fr.origin_ns - sec * 1000000000));
      s += std::string("# time-origin: ") + b +
           " (capture time of time 0, s since the epoch; read back by oonic trace convert)\n";
    }
    TextFrameWriter w;
    bool have_prev = false;
    uint64_t prev = 0;
    for (const Frame& f : fr.frames) {
      if (f.len == 0)
        fail_trace(fr.path + ": record " + std::to_string(f.source) +
                   ": a 0-byte frame has no text form (write .pcap or .pcapng)");
      std::string comment;
      if (f.mark == Mark::kRetransmission) comment = "retransmission";
      if (f.mark == Mark::kDuplicate) comment = "duplicate";
      uint64_t t = 0;
      if (f.has_time) {
        if (f.time_ps < 0 || (have_prev && static_cast<uint64_t>(f.time_ps) < prev)) {
          t = have_prev ? prev : 0;  // a text trace's times may not go backwards
          comment +=
              std::string(comment.empty() ? "" : " ") + "time=" + format_signed_ns(f.time_ps);
        } else {
          t = static_cast<uint64_t>(f.time_ps);
        }
        have_prev = true;
        prev = t;
      }
      if (f.wire_len > f.len)
        comment +=
            std::string(comment.empty() ? "" : " ") + "wire_len=" + std::to_string(f.wire_len);
      w.write(s, fr.data(f), f.len, f.has_time, t, comment);
      if (s.size() > (4u << 20)) {
        out.put(s);
        s.clear();
      }
    }
    out.put(s);
    out.close();
    sum.field_lines = w.field_lines();
    sum.raw_lines = w.raw_lines();
    return sum;
  }

  std::vector<int64_t> t = placed_times(fr);
  bool plain = !fr.has_origin;  // PcapWriter takes ps from 0 and whole frames
  for (size_t i = 0; plain && i < fr.frames.size(); ++i) {
    const Frame& f = fr.frames[i];
    if (f.wire_len != f.len || f.len > PcapWriter::kSnaplen || t[i] < 0) plain = false;
  }
  if (fmt == OutFormat::kPcap && plain) {
    PcapWriter w(path);
    for (size_t i = 0; i < fr.frames.size(); ++i)
      w.write(static_cast<uint64_t>(t[i]), fr.data(fr.frames[i]), fr.frames[i].len);
    w.close();
    return sum;
  }
  // Absolute ns of each frame (floored to whole ns; clamped at the epoch).
  auto abs_ns = [&](size_t i) -> uint64_t {
    int64_t ns = (fr.has_origin ? fr.origin_ns : 0) + floor_div(t[i], 1000);
    return ns < 0 ? 0 : static_cast<uint64_t>(ns);
  };
  OutFile out(path);
  std::string s;
  if (fmt == OutFormat::kPcap) {
    // Classic pcap, as PcapWriter writes it (ns magic, LINKTYPE_ETHERNET), with
    // absolute times and captured / wire lengths kept.
    put32(s, 0xa1b23c4d);
    put16(s, 2);
    put16(s, 4);
    put32(s, 0);
    put32(s, 0);
    put32(s, PcapWriter::kSnaplen);
    put32(s, 1);
    for (size_t i = 0; i < fr.frames.size(); ++i) {
      const Frame& f = fr.frames[i];
      uint64_t ns = abs_ns(i);
      put32(s, static_cast<uint32_t>(ns / 1000000000ull));
      put32(s, static_cast<uint32_t>(ns % 1000000000ull));
      put32(s, f.len);
      put32(s, std::max(f.wire_len, f.len));
      s.append(reinterpret_cast<const char*>(fr.data(f)), f.len);
      if (s.size() > (4u << 20)) out.put(s), s.clear();
    }
  } else {
    // pcapng: SHB, one IDB (LINKTYPE_ETHERNET, if_tsresol 9 = ns), EPBs.
    put32(s, 0x0A0D0D0A);
    put32(s, 28);
    put32(s, 0x1A2B3C4D);
    put16(s, 1);
    put16(s, 0);
    put32(s, 0xffffffffu);  // section length: unknown (-1)
    put32(s, 0xffffffffu);
    put32(s, 28);
    put32(s, 1);   // IDB
    put32(s, 32);  // 16 + if_tsresol option (8) + opt_endofopt (4) + trailer (4)
    put16(s, 1);   // LINKTYPE_ETHERNET
    put16(s, 0);
    put32(s, PcapWriter::kSnaplen);
    put16(s, 9);  // if_tsresol
    put16(s, 1);
    s.push_back(9);  // 10^-9 s
    s.append(3, '\0');
    put32(s, 0);  // opt_endofopt
    put32(s, 32);
    for (size_t i = 0; i < fr.frames.size(); ++i) {
      const Frame& f = fr.frames[i];
      uint64_t ns = abs_ns(i);
      uint32_t padded = (f.len + 3u) & ~3u;
      uint32_t total = 32 + padded;
      put32(s, 6);  // EPB
      put32(s, total);
      put32(s, 0);  // interface 0
      put32(s, static_cast<uint32_t>(ns >> 32));
      put32(s, static_cast<uint32_t>(ns));
      put32(s, f.len);
      put32(s, std::max(f.wire_len, f.len));
      s.append(reinterpret_cast<const char*>(fr.data(f)), f.len);
      s.append(padded - f.len, '\0');
      put32(s, total);
      if (s.size() > (4u << 20)) out.put(s), s.clear();
    }
  }
  out.put(s);
  out.close();
  return sum;
}

// ------------------------------------------------------- Python's random ---

PyRandom::PyRandom(uint64_t seed) {
  // init_genrand(19650218), then init_by_array(key) with key = the seed's
  // 32-bit words, least significant first ([0] for seed 0).
  constexpr int N = 624;
  mt_[0] = 19650218u;
  for (int i = 1; i < N; ++i)
    mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  int klen = (seed >> 32) ? 2 : 1;
  int i = 1, j = 0;
  for (int k = std::max(N, klen); k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] +
             static_cast<uint32_t>(j);
    ++i, ++j;
    if (i >= N) mt_[0] = mt_[N - 1], i = 1;
    if (j >= klen) j = 0;
  }
  for (int k = N - 1; k; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= N) mt_[0] = mt_[N - 1], i = 1;
  }
  mt_[0] = 0x80000000u;
  mti_ = N;
}

uint32_t PyRandom::genrand() {
  constexpr int N = 624, M = 397;
  constexpr uint32_t kUpper = 0x80000000u, kLower = 0x7fffffffu, kA = 0x9908b0dfu;
  if (mti_ >= N) {
    int kk = 0;
    for (; kk < N - M; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + M] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    }
    for (; kk < N - 1; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + (M - N)] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    }
    uint32_t y = (mt_[N - 1] & kUpper) | (mt_[0] & kLower);
    mt_[N - 1] = mt_[M - 1] ^ (y >> 1) ^ ((y & 1u) ? kA : 0u);
    mti_ = 0;
  }
  uint32_t y = mt_[mti_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

uint64_t PyRandom::getrandbits(int k) {
  if (k <= 32) return genrand() >> (32 - k);
  uint64_t lo = genrand();  // CPython fills 32-bit words least significant first
  uint64_t hi = genrand() >> (64 - k);
  return lo | (hi << 32);
}

uint64_t PyRandom::randrange(uint64_t n) {
  int k = 0;
  while (k < 64 && (n >> k)) ++k;  // n.bit_length()
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

double PyRandom::random() {
  uint32_t a = genrand() >> 5, b = genrand() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

std::vector<uint32_t> windowed_shuffle(uint32_t n, uint32_t distance, PyRandom& rng) {
  std::vector<uint32_t> out;
  out.reserve(n);
  if (distance == 0 || n < 2) {
    for (uint32_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::vector<uint32_t> window;  // not-yet-emitted positions, ascending
  uint64_t nxt = 0;
  while (out.size() < n) {
    uint64_t low = window.empty() ? nxt : window[0];
    while (nxt < n && nxt <= low + distance) window.push_back(static_cast<uint32_t>(nxt++));
    size_t pick = static_cast<size_t>(rng.randrange(window.size()));
    out.push_back(window[pick]);
    window.erase(window.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  return out;
}

// ---------------------------------------------------- stream classification ---

namespace {

bool is_data(const wire::PacketView& v) {
  if (!v.info) return false;
  uint16_t f = v.info->flags;
  return (f & wire::kIsRequest) || ((f & wire::kIsResponse) && (f & wire::kHasPayload));
}

struct ClassifiedFull {
  Classified c;
  std::vector<int16_t> opcode;  // per frame: BTH opcode, or -1 (not RoCE)
  std::vector<uint8_t> bad;     // per frame: 1 = bad ICRC
  uint64_t eunomia_meta = 0;    // valid RC frames carrying Eunomia's metadata extension
};

ClassifiedFull classify_full(const Frames& fr, const std::optional<Sidecar>& sc,
                             const std::string& dut_arg) {
  ClassifiedFull out;
  Classified& c = out.c;
  const size_t n = fr.frames.size();
  std::vector<wire::PacketView> views(n);
  std::vector<wire::ParseStatus> st(n);
  out.opcode.assign(n, -1);
  out.bad.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Frame& f = fr.frames[i];
    st[i] = wire::parse(fr.data(f), f.len, views[i], true);
    if (st[i] == wire::ParseStatus::kOk || st[i] == wire::ParseStatus::kBadIcrc ||
        st[i] == wire::ParseStatus::kUdOrCnp) {
      out.opcode[i] = views[i].bth.opcode;
      ++c.roce;
    }
    if (st[i] == wire::ParseStatus::kBadIcrc) out.bad[i] = 1, ++c.bad_icrc;
  }
  auto valid = [&](size_t i) { return st[i] == wire::ParseStatus::kOk && views[i].info; };
  for (size_t i = 0; i < n; ++i)
    if (valid(i) && (views[i].flags & wire::kHasEunomiaMeta)) ++out.eunomia_meta;

  std::vector<const wire::PacketView*> rc_views;
  for (size_t i = 0; i < n; ++i)
    if (valid(i)) rc_views.push_back(&views[i]);
  DutChoice choice = choose_dut(dut_arg, sc, rc_views, fr.path);
  const Endpoint& dut = choice.dut;
  c.dut_how = choice.how;
  c.dut = dut.text();

  c.stream_of.assign(n, -1);
  std::unordered_map<uint32_t, int32_t> index;  // qpn << 1 | responses
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i) && st[i] != wire::ParseStatus::kBadIcrc && st[i] != wire::ParseStatus::kUdOrCnp)
      continue;
    const auto& v = views[i];
    bool to = dut.is_dst(v);
    if (to) ++c.to_dut;
    if (!to && dut.is_src(v)) ++c.from_dut;
    if (!to || !valid(i) || !is_data(v)) continue;
    bool resp = (v.info->flags & wire::kIsResponse) != 0;
    uint32_t key = (v.bth.dest_qp << 1) | (resp ? 1u : 0u);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int32_t>(c.streams.size())).first;
      Stream s;
      s.qpn = v.bth.dest_qp;
      s.responses = resp;
      c.streams.push_back(s);
    }
    Stream& s = c.streams[static_cast<size_t>(it->second)];
    c.stream_of[i] = it->second;
    s.records.push_back(static_cast<uint32_t>(i));
    s.psns.push_back(v.bth.psn);
    s.last.push_back((v.info->flags & wire::kIsLast) ? 1 : 0);
    bool read = v.bth.opcode == wire::kReadRequest || v.bth.opcode == wire::kOooReadRequest;
    s.span.push_back(read ? std::max<uint32_t>(v.reth.dma_len, 1) : 0);  // DMA length for now
  }
  // The connection's PMTU shows in any First / Middle packet.
  uint32_t trace_pmtu = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    uint8_t op = views[i].bth.opcode;
    if (op == wire::kWriteFirst || op == wire::kWriteMiddle || op == wire::kSendFirst ||
        op == wire::kSendMiddle || op == wire::kReadResponseFirst ||
        op == wire::kReadResponseMiddle || op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot)
      trace_pmtu = std::max(trace_pmtu, views[i].payload_len);
  }
  if (trace_pmtu != 256 && trace_pmtu != 512 && trace_pmtu != 1024 && trace_pmtu != 2048 &&
      trace_pmtu != 4096)
    trace_pmtu = 4096;
  for (Stream& s : c.streams) {
    bool from_sc = false;
    s.pmtu = trace_pmtu;
    if (sc) {
      for (const QpSetup& q : sc->qps) {
        if (q.qpn != s.qpn) continue;
        if (!s.responses) s.start_psn = q.start_psn, from_sc = true;
        if (q.pmtu) s.pmtu = *q.pmtu;
      }
    }
    for (uint32_t& sp : s.span) sp = sp ? (sp + s.pmtu - 1) / s.pmtu : 1;
    if (!from_sc) {
      uint32_t base = s.psns[0];
      int32_t lo = 0;
      for (uint32_t p : s.psns) lo = std::min(lo, wire::psn_diff(p, base));
      s.start_psn = wire::psn_add(base, lo);
    }
    s.start_from_sidecar = from_sc;
  }
  return out;
}

}  // namespace

Classified classify(const Frames& fr, const std::optional<Sidecar>& sc, const std::string& dut) {
  return classify_full(fr, sc, dut).c;
}

// ------------------------------------------------------------------- stats ---

namespace {

Dist make_dist(std::vector<uint32_t>& v) {
  Dist d;
  d.n = v.size();
  if (v.empty()) return d;
  double sum = 0;
  for (uint32_t x : v) sum += x, d.max = std::max<uint64_t>(d.max, x);
  d.mean = sum / static_cast<double>(v.size());
  size_t rank = static_cast<size_t>(std::ceil(0.999 * static_cast<double>(v.size())));
  rank = std::max<size_t>(rank, 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank - 1), v.end());
  d.p999 = v[rank - 1];
  return d;
}

}  // namespace

TraceStats compute_stats(const Frames& fr, const std::optional<Sidecar>& sc,
                         const std::string& dut) {
  ClassifiedFull cf = classify_full(fr, sc, dut);
  const Classified& c = cf.c;
  TraceStats s;
  s.path = fr.path;
  s.format = to_string(fr.format);
  s.dut = c.dut;
  s.dut_how = c.dut_how;
  s.frames = fr.frames.size();
  s.roce = c.roce;
  s.non_roce = s.frames - c.roce;
  s.bad_icrc = c.bad_icrc;
  s.to_dut = c.to_dut;
  s.from_dut = c.from_dut;
  s.eunomia_meta = cf.eunomia_meta;
  std::map<int, uint64_t> ops;
  for (int16_t op : cf.opcode)
    if (op >= 0) ++ops[op];
  for (const auto& [op, n] : ops) {
    const char* name = text_opcode_name(static_cast<uint8_t>(op));
    s.opcodes.push_back({name ? name : hexs(static_cast<uint64_t>(op)), n});
  }
  for (const Frame& f : fr.frames) {
    if (f.mark == Mark::kRetransmission) ++s.retransmission_marks;
    if (!f.has_time) continue;
    if (!s.timed) s.first_ps = s.last_ps = f.time_ps, s.timed = true;
    s.first_ps = std::min(s.first_ps, f.time_ps);
    s.last_ps = std::max(s.last_ps, f.time_ps);
  }

  std::vector<uint32_t> all_ood, all_late;
  for (const Stream& st : c.streams) {
    StreamStats ss;
    ss.qpn = st.qpn;
    ss.responses = st.responses;
    ss.start_psn = st.start_psn;
    ss.start_from_sidecar = st.start_from_sidecar;
    ss.packets = st.records.size();
    std::vector<uint8_t> got;
    int64_t rcv_nxt = 0, max_seen = -1, min_rel = -1;
    std::vector<uint32_t> ood, late;
    ood.reserve(st.psns.size());
    late.reserve(st.psns.size());
    for (size_t k = 0; k < st.psns.size(); ++k) {
      int64_t rel = wire::psn_diff(st.psns[k], st.start_psn);
      const int64_t span = st.span[k];
      ood.push_back(rel > rcv_nxt ? static_cast<uint32_t>(rel - rcv_nxt) : 0);
      late.push_back(max_seen > rel ? static_cast<uint32_t>(max_seen - rel) : 0);
      if (rel < 0) {
        ++ss.duplicates;  // before the start PSN: the DUT takes it for a duplicate
        continue;
      }
      if (static_cast<size_t>(rel + span) > got.size())
        got.resize(static_cast<size_t>(rel + span), 0);
      if (got[static_cast<size_t>(rel)]) {
        ++ss.duplicates;
      } else {
        for (int64_t x = rel; x < rel + span; ++x) got[static_cast<size_t>(x)] = 1;
        ++ss.distinct;
      }
      while (static_cast<size_t>(rcv_nxt) < got.size() && got[static_cast<size_t>(rcv_nxt)])
        ++rcv_nxt;
      max_seen = std::max(max_seen, rel + span - 1);
      if (min_rel < 0 || rel < min_rel) min_rel = rel;
    }
    ss.psn_min = wire::psn_add(st.start_psn, std::max<int64_t>(min_rel, 0));
    ss.psn_max = wire::psn_add(st.start_psn, std::max<int64_t>(max_seen, 0));
    for (int64_t r = 0; r <= max_seen; ++r) {
      if (got[static_cast<size_t>(r)]) continue;
      int64_t e = r;
      while (e + 1 <= max_seen && !got[static_cast<size_t>(e + 1)]) ++e;
      ss.gaps += static_cast<uint64_t>(e - r + 1);
      if (ss.gap_ranges.size() < 64)
        ss.gap_ranges.push_back({wire::psn_add(st.start_psn, r), wire::psn_add(st.start_psn, e)});
      r = e;
    }
    all_ood.insert(all_ood.end(), ood.begin(), ood.end());
    all_late.insert(all_late.end(), late.begin(), late.end());
    ss.ood = make_dist(ood);
    ss.lateness = make_dist(late);
    s.data_packets += ss.packets;
    s.duplicates += ss.duplicates;
    s.gaps += ss.gaps;
    s.streams.push_back(std::move(ss));
  }
  s.ood = make_dist(all_ood);
  s.lateness = make_dist(all_late);
  return s;
}

namespace {

nlohmann::ordered_json dist_json(const Dist& d) {
  nlohmann::ordered_json j;
  j["max"] = d.max;
  j["mean"] = std::round(d.mean * 1e6) / 1e6;
  j["p999"] = d.p999;
  return j;
}

const char* kOodDefinition =
    "MP-RDMA out-of-order degree: per data packet of a stream (DUT QPN, requests or READ "
    "responses), OOD = max(0, PSN - rcv_nxt), rcv_nxt = the lowest PSN of the stream not "
    "received before that packet, counting from the stream's start PSN (sidecar start_psn, else "
    "the lowest PSN in the trace)";

}  // namespace

std::string stats_json(const TraceStats& s) {
  nlohmann::ordered_json j;
  j["file"] = s.path;
  j["format"] = s.format;
  j["frames"] = s.frames;
  j["roce"] = s.roce;
  j["non_roce"] = s.non_roce;
  j["bad_icrc"] = s.bad_icrc;
  j["dut"] = s.dut;
  j["dut_how"] = s.dut_how;
  j["to_dut"] = s.to_dut;
  j["from_dut"] = s.from_dut;
  j["data_packets"] = s.data_packets;
  j["duplicates"] = s.duplicates;
  j["gaps"] = s.gaps;
  j["retransmission_marks"] = s.retransmission_marks;
  j["eunomia_meta"] = s.eunomia_meta;
  j["ood_definition"] = kOodDefinition;
  j["ood"] = dist_json(s.ood);
  j["lateness"] = dist_json(s.lateness);
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [name, n] : s.opcodes) ops[name] = n;
  j["opcodes"] = ops;
  nlohmann::ordered_json qps = nlohmann::ordered_json::array();
  for (const StreamStats& q : s.streams) {
    nlohmann::ordered_json e;
    e["qpn"] = hexs(q.qpn);
    e["kind"] = q.responses ? "read_responses" : "requests";
    e["packets"] = q.packets;
    e["distinct"] = q.distinct;
    e["duplicates"] = q.duplicates;
    e["gaps"] = q.gaps;
    e["start_psn"] = q.start_psn;
    e["start_psn_from"] = q.start_from_sidecar ? "sidecar" : "trace";
    e["psn_min"] = q.psn_min;
    e["psn_max"] = q.psn_max;
    nlohmann::ordered_json g = nlohmann::ordered_json::array();
    for (const auto& [a, b] : q.gap_ranges) g.push_back({a, b});
    e["gap_ranges"] = g;
    e["ood"] = dist_json(q.ood);
    e["lateness"] = dist_json(q.lateness);
    qps.push_back(e);
  }
  j["qps"] = qps;
  if (s.timed) {
    j["time_first_ns"] = static_cast<double>(s.first_ps) / 1000.0;
    j["time_last_ns"] = static_cast<double>(s.last_ps) / 1000.0;
  }
  return j.dump(2) + "\n";
}

std::string stats_text(const TraceStats& s) {
  std::ostringstream o;
  char b[256];
  o << s.path << " (" << s.format << "): " << s.frames << " frames, " << s.roce << " RoCE ("
    << s.bad_icrc << " bad ICRC), " << s.non_roce << " other\n";
  o << "  DUT         " << s.dut << " (" << s.dut_how << "): " << s.to_dut << " frames to it, "
    << s.from_dut << " from it\n";
  o << "  data        " << s.data_packets << " packets in " << s.streams.size() << " stream(s), "
    << s.duplicates << " duplicate(s), " << s.gaps << " PSN(s) never seen\n";
  std::snprintf(b, sizeof b, "  OOD         max %llu, mean %.3f, p99.9 %llu (lateness max %llu)\n",
                static_cast<unsigned long long>(s.ood.max), s.ood.mean,
                static_cast<unsigned long long>(s.ood.p999),
                static_cast<unsigned long long>(s.lateness.max));
  o << b;
  o << "  opcodes    ";
  for (const auto& [name, n] : s.opcodes) o << " " << name << " " << n;
  o << "\n";
  if (s.eunomia_meta)
    o << "  eunomia     " << s.eunomia_meta << " frame(s) with Eunomia metadata (Head, last)\n";
  for (const StreamStats& q : s.streams) {
    std::snprintf(
        b, sizeof b,
        "  QP %-8s %-9s %llu pkts, PSN %u..%u (start %u from %s), %llu dup, %llu gap, "
        "OOD max %llu mean %.3f p99.9 %llu\n",
        hexs(q.qpn).c_str(), q.responses ? "READ-rsp" : "requests",
        static_cast<unsigned long long>(q.packets), q.psn_min, q.psn_max, q.start_psn,
        q.start_from_sidecar ? "sidecar" : "trace", static_cast<unsigned long long>(q.duplicates),
        static_cast<unsigned long long>(q.gaps), static_cast<unsigned long long>(q.ood.max),
        q.ood.mean, static_cast<unsigned long long>(q.ood.p999));
    o << b;
    if (!q.gap_ranges.empty()) {
      o << "    never seen:";
      for (const auto& [a, e] : q.gap_ranges) {
        if (a == e)
          o << " " << a;
        else
          o << " " << a << "-" << e;
      }
      if (q.gap_ranges.size() == 64) o << " ...";
      o << "\n";
    }
  }
  if (s.timed) {
    o << "  time        " << format_signed_ns(s.first_ps) << " .. " << format_signed_ns(s.last_ps)
      << " ns\n";
  }
  return o.str();
}

// ----------------------------------------------------------------- perturb ---

PerturbResult perturb(const Frames& in, const PerturbOptions& o, const std::optional<Sidecar>& sc) {
  ClassifiedFull cf = classify_full(in, sc, o.dut);
  const Classified& c = cf.c;
  const size_t n = in.frames.size();
  PyRandom rng(o.seed);
  PerturbResult res;
  res.out = in.derived();
  res.streams = c.streams.size();
  const uint32_t retx_after =
      o.retx_after.value_or(o.aligned_group ? o.aligned_group : o.ooo_distance + 1);
  const std::set<uint32_t> drop(o.drop_psns.begin(), o.drop_psns.end());

  std::vector<uint32_t> psn_of(n, 0);
  std::vector<uint8_t> last_of(n, 0), ooo_of(n, 0);
  for (const Stream& s : c.streams) {
    res.data_packets += s.records.size();
    for (size_t k = 0; k < s.records.size(); ++k)
      psn_of[s.records[k]] = s.psns[k], last_of[s.records[k]] = s.last[k];
  }
  for (size_t i = 0; i < n; ++i)
    if (c.stream_of[i] >= 0 && cf.opcode[i] >= wire::kOooWriteFSpot &&
        cf.opcode[i] <= wire::kOooWriteLastFSpot)
      ooo_of[i] = 1;

  // Slots: the places (and times) packets arrive at. Windowed shuffle: the
  // input's places. Multipath: each frame's time + its path's delay, stable
  // sorted.
  std::vector<int64_t> when(n);
  std::vector<uint8_t> timed(n);
  std::vector<uint32_t> slots(n);
  for (size_t i = 0; i < n; ++i) slots[i] = static_cast<uint32_t>(i);
  if (o.multipath) {
    const size_t k = o.multipath;
    int64_t prev = 0;
    for (size_t i = 0; i < n; ++i) {
      const Frame& f = in.frames[i];
      if (f.has_time)
        when[i] = f.time_ps;
      else
        when[i] = i ? prev + static_cast<int64_t>(std::llround(
                                 static_cast<double>(wire::wire_bytes(in.frames[i - 1].len)) *
                                 8000.0 / o.gbps))
                    : 0;
      prev = when[i];
      timed[i] = 1;
    }
    std::vector<uint64_t> rr(c.streams.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      int32_t s = c.stream_of[i];
      if (s < 0) continue;
      size_t path = 0;
      switch (o.spray) {
        case PerturbOptions::Spray::kRoundRobin:
          path = static_cast<size_t>(rr[static_cast<size_t>(s)]++ % k);
          break;
        case PerturbOptions::Spray::kRandom:
          path = static_cast<size_t>(rng.randrange(k));
          break;
        case PerturbOptions::Spray::kHash: {
          // ECMP on the flow: FNV-1a over IP addresses, UDP source port, dest QP.
          wire::PacketView v;
          wire::parse(in.data(in.frames[i]), in.frames[i].len, v, false);
          uint64_t h = 0xcbf29ce484222325ull;
          auto mix = [&](const uint8_t* p, size_t len) {
            for (size_t b = 0; b < len; ++b) h = (h ^ p[b]) * 0x100000001b3ull;
          };
          mix(v.src_ip.data(), 16);
          mix(v.dst_ip.data(), 16);
          uint8_t t[5] = {static_cast<uint8_t>(v.udp_sport >> 8), static_cast<uint8_t>(v.udp_sport),
                          static_cast<uint8_t>(v.bth.dest_qp >> 16),
                          static_cast<uint8_t>(v.bth.dest_qp >> 8),
                          static_cast<uint8_t>(v.bth.dest_qp)};
          mix(t, 5);
          path = static_cast<size_t>(h % k);
          break;
        }
      }
      when[i] += static_cast<int64_t>(o.path_delays_ps[path]);
    }
    std::stable_sort(slots.begin(), slots.end(),
                     [&](uint32_t a, uint32_t b) { return when[a] < when[b]; });
  } else {
    for (size_t i = 0; i < n; ++i)
      when[i] = in.frames[i].time_ps, timed[i] = in.frames[i].has_time ? 1 : 0;
  }

  // Per stream: its slots in arrival order; its packets, reordered, fill them.
  std::vector<std::vector<uint32_t>> stream_slots(c.streams.size());
  for (uint32_t r : slots)
    if (c.stream_of[r] >= 0) stream_slots[static_cast<size_t>(c.stream_of[r])].push_back(r);
  // What each slot delivers: the packet placed there (unless lost), its
  // duplicate, then retransmissions due at that place.
  std::vector<std::vector<std::pair<uint32_t, Mark>>> att(n);
  for (size_t s = 0; s < c.streams.size(); ++s) {
    const std::vector<uint32_t>& sl = stream_slots[s];
    std::vector<std::pair<size_t, size_t>> units;
    bool by_message = o.unit == PerturbOptions::Unit::kMessage;
    if (o.unit == PerturbOptions::Unit::kAuto)
      for (uint32_t r : sl) by_message = by_message || ooo_of[r];
    if (by_message && !o.multipath) {
      size_t a = 0;
      for (size_t i = 0; i < sl.size(); ++i)
        if (last_of[sl[i]] || i + 1 == sl.size()) units.push_back({a, i + 1}), a = i + 1;
    } else if (!sl.empty()) {
      units.push_back({0, sl.size()});
    }
    for (const auto& [a, b] : units) {
      const uint32_t m = static_cast<uint32_t>(b - a);
      std::vector<uint32_t> perm =
          o.multipath       ? windowed_shuffle(m, 0, rng)
          : o.aligned_group ? arrival::aligned_groups(m, o.aligned_group,
                                                      [&](uint64_t k) { return rng.randrange(k); })
                            : windowed_shuffle(m, o.ooo_distance, rng);
      std::deque<std::pair<uint64_t, uint32_t>> due;  // (position after which, record)
      for (uint32_t i = 0; i < m; ++i) {
        const uint32_t slot = sl[a + i];
        const uint32_t item = sl[a + perm[i]];
        bool lost =
            drop.count(psn_of[item]) != 0 || (o.drop_rate > 0.0 && rng.random() < o.drop_rate);
        if (lost) {
          ++res.dropped;
          res.dropped_psns.push_back({static_cast<uint32_t>(s), psn_of[item]});
          if (!o.no_retx) due.push_back({uint64_t{i} + retx_after, item});
        } else {
          att[slot].push_back({item, Mark::kNone});
          if (o.duplicate_rate > 0.0 && rng.random() < o.duplicate_rate) {
            att[slot].push_back({item, Mark::kDuplicate});
            ++res.duplicated;
            res.duplicated_psns.push_back({static_cast<uint32_t>(s), psn_of[item]});
          }
        }
        while (!due.empty() && due.front().first <= i) {
          att[slot].push_back({due.front().second, Mark::kRetransmission});
          ++res.retransmitted;
          due.pop_front();
        }
      }
      for (const auto& d : due) {  // past the end of the unit: after its last slot
        att[sl[b - 1]].push_back({d.second, Mark::kRetransmission});
        ++res.retransmitted;
      }
    }
  }

  // Assemble; times never go backwards (a frame takes its slot's time, at
  // least the previous frame's).
  res.out.frames.reserve(n + res.duplicated);
  bool have_prev = false;
  int64_t prev = 0;
  auto emit = [&](uint32_t rec, Mark mark, int64_t t, bool has_time) {
    Frame f = in.frames[rec];
    if (mark != Mark::kNone) f.mark = mark;
    f.has_time = has_time;
    if (has_time) {
      if (have_prev && t < prev) t = prev;
      f.time_ps = t;
      prev = t;
      have_prev = true;
    }
    res.out.frames.push_back(f);
  };
  for (uint32_t r : slots) {
    if (c.stream_of[r] < 0) {
      emit(r, Mark::kNone, when[r], timed[r] != 0);
      continue;
    }
    for (const auto& [item, mark] : att[r]) emit(item, mark, when[r], timed[r] != 0);
  }
  return res;
}

// ------------------------------------------------------------------- synth ---

SynthResult synth(const SynthOptions& o) {
  enum Kind { kWrite, kRead, kSend };
  struct Pkt {
    uint8_t op;
    uint32_t psn;
    uint64_t va = 0;
    uint32_t rkey = 0, dmalen = 0, len = 0, msn = 0;
    uint64_t pat = 0;
    bool ackreq = false, from_dut = false;
    bool eunomia = false, eunomia_last = false;  // Eunomia metadata (OOO WRITE)
    uint32_t eunomia_head = 0;
  };
  const uint32_t total = o.mix_write + o.mix_read + o.mix_send;
  if (total == 0) fail_cli("trace synth: --mix: all weights are 0");
  const int kinds = (o.mix_write > 0) + (o.mix_read > 0) + (o.mix_send > 0);
  PyRandom rng(o.seed);
  SynthResult res;
  const uint64_t pkts = (o.wqe_bytes + o.pmtu - 1) / o.pmtu;
  const uint64_t region = o.wqes * o.wqe_bytes;
  const uint64_t stride = (region + 0xFFF) & ~uint64_t{0xFFF};
  const uint64_t recv_bytes = std::max<uint64_t>(4096, (o.wqe_bytes + 0xFFF) & ~uint64_t{0xFFF});
  uint64_t recv_next = (o.va_base + o.qps * stride + 0xFFFFF) & ~uint64_t{0xFFFFF};
  constexpr uint64_t kPeerOffset = 0x100000000000ull;  // the peer's buffers (DUT's READs)

  std::vector<std::vector<Pkt>> streams(o.qps);
  std::ostringstream yaml;
  yaml << "dut: {ip: 10.0.0.2, mac: \"02:00:00:00:00:02\"}\nqps:\n";
  for (uint32_t q = 0; q < o.qps; ++q) {
    const uint32_t qpn = (o.qpn_base + q) & wire::kPsnMask;
    const uint32_t rkey = o.rkey + q;
    const uint64_t base = o.va_base + q * stride;
    uint32_t psn = o.start_psn, dpsn = o.start_psn, reads = 0, sends = 0;
    auto& st = streams[q];
    for (uint32_t w = 0; w < o.wqes; ++w) {
      Kind kind = o.mix_write ? kWrite : o.mix_read ? kRead : kSend;
      if (kinds > 1) {
        uint64_t r = rng.randrange(total);
        kind = r < o.mix_write ? kWrite : r < o.mix_write + o.mix_read ? kRead : kSend;
      }
      const uint64_t wqe_base = base + w * o.wqe_bytes;
      const uint32_t wlen = static_cast<uint32_t>(o.wqe_bytes);
      auto plen = [&](uint64_t k) {
        return static_cast<uint32_t>(std::min<uint64_t>(o.pmtu, o.wqe_bytes - k * o.pmtu));
      };
      if (kind == kWrite) {
        ++res.writes;
        const uint32_t head = psn;  // the WQE's first PSN: Eunomia's Head
        for (uint64_t k = 0; k < pkts; ++k) {
          Pkt p;
          bool last = k + 1 == pkts;
          uint64_t addr = wqe_base + k * o.pmtu;
          p.psn = psn;
          psn = wire::psn_add(psn, 1);
          p.len = plen(k);
          p.pat = addr;
          p.ackreq = last;
          if (o.ooo) {
            bool fspot = k < o.fspot_count;
            p.op = last ? (fspot ? wire::kOooWriteLastFSpot : wire::kOooWriteLast)
                        : (fspot ? wire::kOooWriteFSpot : wire::kOooWriteSpot);
            if (fspot) p.va = addr, p.rkey = rkey, p.dmalen = wlen;
            // Eunomia's sender agent (model/ornic/tx/qp_manager.cpp): OOO WRITE only.
            if (o.eunomia_meta) p.eunomia = true, p.eunomia_head = head, p.eunomia_last = last;
          } else {
            p.op = pkts == 1 ? wire::kWriteOnly
                   : k == 0  ? wire::kWriteFirst
                   : last    ? wire::kWriteLast
                             : wire::kWriteMiddle;
            if (k == 0) p.va = wqe_base, p.rkey = rkey, p.dmalen = wlen;
          }
          st.push_back(p);
        }
      } else if (kind == kSend) {
        ++res.sends;
        ++sends;
        for (uint64_t k = 0; k < pkts; ++k) {
          Pkt p;
          bool last = k + 1 == pkts;
          p.psn = psn;
          psn = wire::psn_add(psn, 1);
          p.len = plen(k);
          p.pat = wqe_base + k * o.pmtu;
          p.ackreq = last;
          p.op = pkts == 1 ? wire::kSendOnly
                 : k == 0  ? wire::kSendFirst
                 : last    ? wire::kSendLast
                           : wire::kSendMiddle;
          st.push_back(p);
        }
      } else if (!o.read_requester) {
        ++res.reads;
        Pkt p;  // the peer READs the WQE's buffer from the DUT
        p.op = o.ooo ? wire::kOooReadRequest : wire::kReadRequest;
        p.psn = psn;
        p.va = wqe_base, p.rkey = rkey, p.dmalen = wlen;
        psn = wire::psn_add(psn, static_cast<int64_t>(pkts));  // the responses' PSNs
        st.push_back(p);
      } else {
        ++res.reads;
        ++reads;
        Pkt rq;  // the DUT READs the peer's buffer: its request, then the responses
        rq.op = o.ooo ? wire::kOooReadRequest : wire::kReadRequest;
        rq.psn = dpsn;
        rq.va = wqe_base + kPeerOffset, rq.rkey = 0x8000 + q, rq.dmalen = wlen;
        rq.from_dut = true;
        st.push_back(rq);
        for (uint64_t k = 0; k < pkts; ++k) {
          Pkt p;
          bool last = k + 1 == pkts;
          p.psn = wire::psn_add(dpsn, static_cast<int64_t>(k));
          p.len = plen(k);
          p.pat = rq.va + k * o.pmtu;
          p.msn = reads;
          p.op = o.ooo       ? wire::kOooReadResponse
                 : pkts == 1 ? wire::kReadResponseOnly
                 : k == 0    ? wire::kReadResponseFirst
                 : last      ? wire::kReadResponseLast
                             : wire::kReadResponseMiddle;
          st.push_back(p);
        }
        dpsn = wire::psn_add(dpsn, static_cast<int64_t>(pkts));
      }
    }
    yaml << "  - qpn: " << hexs(qpn) << "\n    start_psn: " << o.start_psn
         << "\n    pmtu: " << o.pmtu << "\n    regions: [{base: " << hexs(base)
         << ", length: " << region << ", rkey: " << hexs(rkey) << "}]\n";
    if (sends) {
      yaml << "    recv_buffers: {count: " << sends << ", bytes: " << recv_bytes
           << ", base: " << hexs(recv_next) << "}\n";
      recv_next += (sends * recv_bytes + 0xFFFFF) & ~uint64_t{0xFFFFF};
    }
  }
  res.sidecar_yaml = yaml.str();

  // Round robin over the QPs, one packet at a time; frames built here.
  std::vector<uint8_t> bytes;
  std::vector<Frame> frames;
  std::vector<uint8_t> payload(o.pmtu);
  std::vector<size_t> cur(o.qps, 0);
  double acc = 0;
  const double ps_per_byte = 8000.0 / o.gbps;
  size_t left = 0;
  for (const auto& s : streams) left += s.size();
  frames.reserve(left);
  while (left) {
    for (uint32_t q = 0; q < o.qps; ++q) {
      if (cur[q] >= streams[q].size()) continue;
      const Pkt& p = streams[q][cur[q]++];
      --left;
      wire::FrameSpec s;
      if (p.from_dut) {
        std::swap(s.src_mac, s.dst_mac);
        std::swap(s.src_ip, s.dst_ip);
      }
      s.bth.opcode = p.op;
      s.bth.dest_qp = (o.qpn_base + q) & wire::kPsnMask;
      s.bth.psn = p.psn;
      s.bth.ack_req = p.ackreq;
      if (p.eunomia) {
        s.bth.resv7 |= wire::kBthEunomiaMetaBit;
        s.eunomia.head = p.eunomia_head;
        s.eunomia.last = p.eunomia_last;
      }
      s.reth.va = p.va, s.reth.rkey = p.rkey, s.reth.dma_len = p.dmalen;
      s.aeth.syndrome = wire::kAethAckNoCredit;
      s.aeth.msn = p.msn;
      s.payload_len = p.len;
      if (p.len) {
        if (o.payload_pattern)
          fill_pattern(p.pat, payload.data(), p.len);
        else
          std::fill(payload.begin(), payload.begin() + p.len, 0);
        s.payload = payload.data();
      }
      Frame f;
      f.offset = bytes.size();
      f.len = static_cast<uint32_t>(wire::frame_size(s));
      f.wire_len = f.len;
      f.source = static_cast<uint32_t>(frames.size() + 1);
      bytes.resize(f.offset + f.len);
      wire::build(s, bytes.data() + f.offset, f.len);
      f.has_time = o.line_rate;
      if (o.line_rate) {
        f.time_ps = static_cast<int64_t>(std::nearbyint(acc));  // Python's round(): half to even
        if (!p.from_dut)  // the DUT's frames use the other direction of the link
          acc += static_cast<double>(std::max<uint32_t>(f.len, 60) + wire::kFcsBytes +
                                     wire::kPreambleIfgBytes) *
                 ps_per_byte;
      }
      frames.push_back(f);
    }
  }
  res.frames = Frames::own(std::move(bytes));
  res.frames.path = o.out;
  res.frames.frames = std::move(frames);
  return res;
}

// --------------------------------------------------------------------- CLI ---

namespace {

const char* kTraceUsage = R"(usage: oonic trace SUBCOMMAND [ARGS]

Tools around traces (traces/README.md "Trace tools"):
  convert IN OUT        pcap / pcapng / text trace -> format of OUT's extension
                        (.txt, .pcap, .pcapng)
  synth --out F [...]   synthetic in-order trace (WRITE, READ, SEND) and sidecar
  perturb IN OUT [...]  in-order trace -> arrival order: windowed shuffle or
                        multipath delays, drops + retransmissions, duplicates
  stats IN [--json]     packets, QPs, opcodes, PSN range, out-of-order degree,
                        duplicates, gaps
`oonic trace SUBCOMMAND --help` for each one.
)";

const char* kConvertUsage = R"(usage: oonic trace convert IN OUT

Reads IN (pcap, pcapng or oonic text trace; detected by content) and writes OUT
in the format its extension names:
  .txt     oonic text trace: each frame in field form (op= qp= psn= ...
           payload=zero|pat:ADDR|hex:...; Eunomia metadata: eunomia_head=N
           eunomia_last=1) when those fields rebuild it byte for byte, else
           raw=<hex>; times in ns with 3 decimals; a capture's
           absolute start time is kept in a "# time-origin:" line
  .pcap    classic pcap, ns timestamps, LINKTYPE_ETHERNET
  .pcapng  pcapng: one section, one Ethernet interface (if_tsresol 9), EPBs
pcap -> text -> pcap keeps every frame and timestamp (ns) as it was. Text lines
without a time ('-') are written to pcap back to back at 100 Gb/s.
)";

const char* kSynthUsage = R"(usage: oonic trace synth --out FILE [options]

Writes an in-order synthetic trace of WQEs from a peer to the DUT (format by
FILE's extension: .txt, .pcap, .pcapng) and its sidecar FILE-without-extension
.qps.yaml (QPs, regions, receive buffers). Reorder or lose packets afterwards
with `oonic trace perturb`.

options:
  --out FILE            the trace (required)
  --qps N               QPs (default 1); QP i: QPN --qpn-base + i, R_Key --rkey + i
  --qpn-base QPN        (default 0x11)
  --wqes N              WQEs per QP (default 1)
  --wqe-bytes SIZE      bytes per WQE, K/M/G suffixes (default 64K)
  --pmtu B              256 | 512 | 1024 | 2048 | 4096 (default 4096)
  --mix write=W,read=R,send=S
                        weights of the WQE kinds, each WQE drawn at random
                        (default write=100)
  --mode ooo|standard   ooo (default): OOO WRITE FSpot/Spot/Last, OOO READ;
                        standard: WRITE First/Middle/Last/Only, READ. SEND is
                        always SEND First/Middle/Last/Only
  --fspot-count F       ooo: the first F packets of a WRITE are FSpot (default 8)
  --read-role responder|requester
                        responder (default): the peer READs from the DUT (a READ
                        request to it); requester: the DUT READs from the peer
                        (its READ request, then the READ responses to it)
  --timing line-rate|gap  line-rate (default): frames back to back at --gbps;
                        gap: no times ('-', text only)
  --gbps R              (default 100)
  --start-psn PSN       every QP's first PSN (default 0)
  --va-base ADDR        QP 0's region (default 0x10000); QP i's follows QP i-1's
  --rkey RKEY           (default 0x1234)
  --payload pat|zero    pat (default): the address pattern of each packet's address
  --seed S              (default 1); Python-compatible random stream
  --eunomia-metadata    Eunomia's metadata extension (BTH byte 8 bit 5, then 8 B:
                        Head 32 | flags 8, bit 0 last | reserved 24) on every
                        packet of an OOO WRITE, as the NIC's sender agent with
                        nic.ordering: eunomia sends it: Head = the WQE's first
                        PSN, last = 1 on its last packet (text: eunomia_head=N,
                        eunomia_last=1). Only OOO WRITE packets carry it (not
                        SEND, READ or standard WRITE): needs --mode ooo
Without READ / SEND, the frames are those scripts/gen-trace writes with the same
options (and --ooo-distance 0; --eunomia-metadata as gen-trace's).
)";

const char* kPerturbUsage = R"(usage: oonic trace perturb IN OUT [options]

Turns an in-order trace into an arrival order. Only data packets to the DUT
(requests: WRITE / SEND / READ request / OOO WRITE; READ responses) are moved;
every other frame keeps its place. Each stream (DUT QPN, requests or READ
responses) is perturbed on its own. IN's sidecar (or --qps FILE) is copied next
to OUT (OUT-without-extension.qps.yaml). OUT's format: by extension.

reordering (one of):
  --ooo-distance D      windowed shuffle of scripts/gen-trace, per unit: the
                        window holds the not-yet-emitted packets whose in-order
                        position is at most (first not-yet-emitted position) + D;
                        each step emits one of them uniformly at random. No packet
                        arrives more than D PSNs beyond the lowest PSN not yet
                        arrived (OOD <= D) nor more than D places from its own.
                        The shuffled packets fill the stream's places in order;
                        each keeps the time of its place.
  --aligned-groups G    ORNIC 4.3's arrival model, per unit: consecutive groups of
                        G packets from the unit's first one, each a uniformly
                        random permutation (Fisher-Yates), groups in order. OOD
                        <= G - 1; with G = 64 and 16-bit bitmap blocks a group
                        touches exactly 4 blocks.
  --unit auto|qp|message
                        shuffle unit, as gen-trace: qp = the whole stream;
                        message = one message (up to its Last / Only packet);
                        auto (default): message in a stream that carries ORNIC
                        OOO WRITEs (ORNIC keeps one OOO WQE outstanding), else qp
  --multipath K --path-delays-ns d1,...,dK [--spray rr|random|hash]
                        each data packet takes a path (rr: round robin per
                        stream; random; hash: ECMP on IPs, UDP source port and
                        QP), arrives at its time + that path's delay; all frames
                        are then stable-sorted by arrival time (untimed frames
                        are timed back to back at --gbps first)
loss and duplicates (after reordering, in arrival order, per stream):
  --drop-rate P         each packet's first transmission is lost with probability P
  --drop-psn PSN,...    these PSNs' first transmissions are lost (in every stream)
  --retx-after K        the retransmission (the identical frame) arrives right
                        after the packet K places later (places counted before
                        removal), or after the unit's last packet (default D+1; G)
  --no-retx             lost packets are not retransmitted
  --duplicate-rate P    a copy of the packet arrives right after it
  --seed S              (default 1): the random stream of gen-trace (Python's
                        random.Random(S)): shuffle of a unit, then its loss draws
  --qps FILE            sidecar (DUT address, start PSNs; default IN's)
  --dut ip=ADDR|mac=MAC the device under test (default: sidecar, else the
                        endpoint receiving the most RC requests)
  --gbps R              line rate for untimed frames (multipath, default 100)
times: a frame takes the time of the place it fills (multipath: its arrival
time); inserted retransmissions and duplicates take the time of the frame they
follow; times never go backwards (a time earlier than the previous becomes it).
)";

const char* kStatsUsage =
    R"(usage: oonic trace stats IN [--json] [--qps FILE] [--dut ip=ADDR|mac=MAC]

Counts the frames of IN (pcap, pcapng or text): RoCE / other, bad ICRC, to and
from the DUT, an opcode histogram, frames carrying Eunomia's metadata
extension (eunomia_meta), and per stream of data packets to the DUT
(DUT QPN, requests or READ responses): packets, PSN range, duplicates, gaps
(PSNs between the start PSN and the highest seen that never arrive), and the
out-of-order degree.

OOD (MP-RDMA): for each data packet of a stream, OOD = max(0, PSN - rcv_nxt),
rcv_nxt being the lowest PSN not received before that packet, counted from the
stream's start PSN (the sidecar's start_psn, else the lowest PSN in the trace).
A READ request takes its responses' PSNs too (ceil(DMA length / PMTU); PMTU from
the sidecar, else the largest First / Middle payload, else 4096).
Reported: max, mean, 99.9th percentile (nearest rank) over the packets. Also
lateness = max(0, highest PSN received before - PSN).
A windowed shuffle with distance D (perturb --ooo-distance D) gives OOD <= D and
lateness <= D.

  --json       JSON on stdout instead of the summary
  --qps FILE   sidecar (default: IN's .qps.yaml if present)
  --dut WHO    device under test (default: sidecar, else the endpoint
               receiving the most RC requests)
)";

struct Opts {
  std::string sub;
  const std::vector<std::string>& a;
  size_t i = 0;
  std::string s, val;
  Opts(std::string name, const std::vector<std::string>& args) : sub(std::move(name)), a(args) {}
  bool next() {
    if (i >= a.size()) return false;
    s = a[i++];
    return true;
  }
  bool is(const char* opt) {
    if (s == opt) {
      if (i >= a.size()) fail_cli("trace " + sub + ": " + opt + " needs a value");
      val = a[i++];
      return true;
    }
    std::string p = std::string(opt) + "=";
    if (s.rfind(p, 0) == 0) {
      val = s.substr(p.size());
      return true;
    }
    return false;
  }
  [[noreturn]] void bad(const std::string& what) const {
    fail_cli("trace " + sub + ": " + s.substr(0, s.find('=')) + " '" + val + "': " + what);
  }
  uint64_t number(uint64_t max = UINT64_MAX) const {
    const std::string& t = val;
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(t.c_str(), &end, 0);
    if (t.empty() || t[0] == '-' || *end || errno) bad("expected a number");
    if (v > max) bad("out of range (max " + std::to_string(max) + ")");
    return v;
  }
  uint64_t size() const {
    std::string t = val;
    uint64_t mult = 1;
    if (!t.empty() && std::strchr("kKmMgG", t.back())) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
      mult = c == 'k' ? 1ull << 10 : c == 'm' ? 1ull << 20 : 1ull << 30;
      t.pop_back();
    }
    char* end = nullptr;
    unsigned long long v = std::strtoull(t.c_str(), &end, 0);
    if (t.empty() || t[0] == '-' || *end || v == 0) bad("expected a size (e.g. 4096, 64K, 1M)");
    return v * mult;
  }
  double real(double lo, double hi, bool hi_open) const {
    char* end = nullptr;
    double v = std::strtod(val.c_str(), &end);
    if (val.empty() || *end || !(v >= lo) || (hi_open ? !(v < hi) : !(v <= hi)))
      bad("expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
          (hi_open ? ")" : "]"));
    return v;
  }
  std::vector<std::string> list() const {
    std::vector<std::string> out;
    size_t p = 0;
    while (p <= val.size()) {
      size_t c = val.find(',', p);
      if (c == std::string::npos) c = val.size();
      std::string item = val.substr(p, c - p);
      if (!item.empty()) out.push_back(item);
      p = c + 1;
    }
    return out;
  }
};

std::string join_args(const std::string& sub, const std::vector<std::string>& a) {
  std::string s = "oonic trace " + sub;
  for (const auto& x : a) {
    bool plain = !x.empty() && x.find_first_of(" \t'\"\\$`#") == std::string::npos;
    s += " " + (plain ? x : "'" + x + "'");
  }
  return s;
}

std::string stem_sidecar(const std::string& path) {
  return default_sidecar_path(path);
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw Error(msg::kIo, from + ": cannot read: " + std::strerror(errno));
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(msg::kIo, to + ": cannot write: " + std::strerror(errno));
  out << in.rdbuf();
  if (!out) throw Error(msg::kIo, to + ": write error");
}

void print_issues(const Frames& fr) {
  for (const auto& m : fr.issues)
    std::fprintf(stderr, "oonic trace: note: %s: %s\n", fr.path.c_str(), m.c_str());
}

int cmd_convert(const std::vector<std::string>& args) {
  Opts o("convert", args);
  std::vector<std::string> pos;
  while (o.next()) {
    if (o.s == "-h" || o.s == "--help") return std::fputs(kConvertUsage, stdout), 0;
    if (!o.s.empty() && o.s[0] == '-' && o.s != "-")
      fail_cli("trace convert: unknown option '" + o.s + "' (see oonic trace convert --help)");
    pos.push_back(o.s);
  }
  if (pos.size() != 2) fail_cli("trace convert: expected IN OUT (see oonic trace convert --help)");
  OutFormat fmt = out_format_for(pos[1]);
  Frames fr = read_frames(pos[0]);
  print_issues(fr);
  WriteSummary w = write_frames(pos[1], fmt, fr,
                                {"converted by: " + join_args("convert", args),
                                 "from " + std::string(to_string(fr.format)) + " " + pos[0]});
  std::fprintf(stderr, "oonic trace convert: %s: %llu frames", pos[1].c_str(),
               static_cast<unsigned long long>(w.frames));
  if (fmt == OutFormat::kText)
    std::fprintf(stderr, " (%llu in fields, %llu raw)",
                 static_cast<unsigned long long>(w.field_lines),
                 static_cast<unsigned long long>(w.raw_lines));
  std::fprintf(stderr, "\n");
  return 0;
}

int cmd_synth(const std::vector<std::string>& args) {
  Opts a("synth", args);
  SynthOptions o;
  bool fspot_given = false;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kSynthUsage, stdout), 0;
    if (a.is("--out")) {
      o.out = a.val;
    } else if (a.is("--qps")) {
      o.qps = static_cast<uint32_t>(a.number(1u << 24));
      if (o.qps == 0) a.bad("at least 1");
    } else if (a.is("--qpn-base")) {
      o.qpn_base = static_cast<uint32_t>(a.number(wire::kPsnMask));
    } else if (a.is("--wqes")) {
      o.wqes = static_cast<uint32_t>(a.number(1u << 30));
      if (o.wqes == 0) a.bad("at least 1");
    } else if (a.is("--wqe-bytes")) {
      o.wqe_bytes = a.size();
      if (o.wqe_bytes > 0xffffffffull) a.bad("must fit 32 bits (DMA length)");
    } else if (a.is("--pmtu")) {
      o.pmtu = static_cast<uint32_t>(a.number());
      if (o.pmtu != 256 && o.pmtu != 512 && o.pmtu != 1024 && o.pmtu != 2048 && o.pmtu != 4096)
        a.bad("expected 256, 512, 1024, 2048 or 4096");
    } else if (a.is("--mix")) {
      o.mix_write = o.mix_read = o.mix_send = 0;
      for (const std::string& item : a.list()) {
        auto eq = item.find('=');
        std::string k = item.substr(0, eq);
        char* end = nullptr;
        std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
        unsigned long w = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end || v[0] == '-' || w > 1000000)
          a.bad("expected write=W,read=R,send=S (weights 0 .. 1000000)");
        if (k == "write")
          o.mix_write = static_cast<uint32_t>(w);
        else if (k == "read")
          o.mix_read = static_cast<uint32_t>(w);
        else if (k == "send")
          o.mix_send = static_cast<uint32_t>(w);
        else
          a.bad("unknown kind '" + k + "' (write, read, send)");
      }
      if (o.mix_write + o.mix_read + o.mix_send == 0) a.bad("all weights are 0");
    } else if (a.is("--mode")) {
      if (a.val != "ooo" && a.val != "standard") a.bad("expected ooo or standard");
      o.ooo = a.val == "ooo";
    } else if (a.is("--fspot-count")) {
      o.fspot_count = static_cast<uint32_t>(a.number(0xffffffffu));
      fspot_given = true;
    } else if (a.is("--read-role")) {
      if (a.val != "responder" && a.val != "requester") a.bad("expected responder or requester");
      o.read_requester = a.val == "requester";
    } else if (a.is("--timing")) {
      if (a.val != "line-rate" && a.val != "gap") a.bad("expected line-rate or gap");
      o.line_rate = a.val == "line-rate";
    } else if (a.is("--gbps")) {
      o.gbps = a.real(1e-3, 1e6, false);
    } else if (a.is("--start-psn")) {
      o.start_psn = static_cast<uint32_t>(a.number(wire::kPsnMask));
    } else if (a.is("--va-base")) {
      o.va_base = a.number();
    } else if (a.is("--rkey")) {
      o.rkey = static_cast<uint32_t>(a.number(0xffffffffu));
    } else if (a.is("--payload")) {
      if (a.val != "pat" && a.val != "zero") a.bad("expected pat or zero");
      o.payload_pattern = a.val == "pat";
    } else if (a.is("--seed")) {
      o.seed = a.number();
    } else if (a.s == "--eunomia-metadata") {
      o.eunomia_meta = true;
    } else {
      fail_cli("trace synth: unknown argument '" + a.s + "' (see oonic trace synth --help)");
    }
  }
  if (o.out.empty()) fail_cli("trace synth: --out FILE is required (see oonic trace synth --help)");
  if (uint64_t{o.qpn_base} + o.qps - 1 > wire::kPsnMask)
    fail_cli("trace synth: --qpn-base + --qps - 1 exceeds 2^24-1");
  if (o.ooo && fspot_given && o.fspot_count == 0)
    fail_cli("trace synth: --fspot-count must be at least 1 (Start_Addr must reach the DUT)");
  if (o.eunomia_meta && !o.ooo)
    fail_cli(
        "trace synth: --eunomia-metadata needs --mode ooo (Eunomia's sender agent tags OOO WRITE "
        "packets only)");
  OutFormat fmt = out_format_for(o.out);
  if (!o.line_rate && fmt != OutFormat::kText)
    fail_cli("trace synth: --timing gap writes no times: use a .txt output");
  o.command = join_args("synth", args);
  SynthResult r = synth(o);
  std::string name = o.out.substr(o.out.find_last_of('/') + 1);
  char hdr[256];
  std::snprintf(
      hdr, sizeof hdr,
      "%s, %u QP(s) x %u WQE(s) x %llu B (%llu WRITE, %llu READ, %llu SEND), PMTU %u, "
      "seed %llu%s",
      o.ooo ? "ooo" : "standard", o.qps, o.wqes, static_cast<unsigned long long>(o.wqe_bytes),
      static_cast<unsigned long long>(r.writes), static_cast<unsigned long long>(r.reads),
      static_cast<unsigned long long>(r.sends), o.pmtu, static_cast<unsigned long long>(o.seed),
      o.eunomia_meta ? ", Eunomia metadata on OOO WRITE" : "");
  write_frames(o.out, fmt, r.frames, {"generated by: " + o.command, hdr});
  std::string sc = stem_sidecar(o.out);
  {
    std::ofstream f(sc, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(msg::kIo, sc + ": cannot write: " + std::strerror(errno));
    f << "# sidecar of " << name << ", generated by: " << o.command << "\n" << r.sidecar_yaml;
    if (!f) throw Error(msg::kIo, sc + ": write error");
  }
  uint64_t last =
      r.frames.frames.empty() ? 0 : static_cast<uint64_t>(r.frames.frames.back().time_ps);
  std::fprintf(stderr, "oonic trace synth: %s: %zu frames (%s); sidecar %s\n", o.out.c_str(),
               r.frames.frames.size(),
               o.line_rate ? (format_time_ps(last) + " ns").c_str() : "no times", sc.c_str());
  return 0;
}

int cmd_perturb(const std::vector<std::string>& args) {
  Opts a("perturb", args);
  PerturbOptions o;
  std::vector<std::string> pos;
  std::string qps_file;
  bool shuffle = false, spray = false, unit = false;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kPerturbUsage, stdout), 0;
    if (a.is("--ooo-distance")) {
      o.ooo_distance = static_cast<uint32_t>(a.number(1u << 23));
      shuffle = true;
    } else if (a.is("--aligned-groups")) {
      o.aligned_group = static_cast<uint32_t>(a.number(1u << 23));
      if (o.aligned_group == 0) a.bad("at least 1");
    } else if (a.is("--unit")) {
      if (a.val == "auto")
        o.unit = PerturbOptions::Unit::kAuto;
      else if (a.val == "qp")
        o.unit = PerturbOptions::Unit::kStream;
      else if (a.val == "message")
        o.unit = PerturbOptions::Unit::kMessage;
      else
        a.bad("expected auto, qp or message");
      unit = true;
    } else if (a.is("--multipath")) {
      o.multipath = static_cast<uint32_t>(a.number(1u << 16));
      if (o.multipath == 0) a.bad("at least 1 path");
    } else if (a.is("--path-delays-ns")) {
      o.path_delays_ps.clear();
      for (const std::string& d : a.list()) {
        int64_t ps = 0;
        if (!parse_ns(d, ps) || ps < 0) a.bad("expected delays in ns (e.g. 0,1500,2000.5)");
        o.path_delays_ps.push_back(static_cast<uint64_t>(ps));
      }
    } else if (a.is("--spray")) {
      if (a.val == "rr")
        o.spray = PerturbOptions::Spray::kRoundRobin;
      else if (a.val == "random")
        o.spray = PerturbOptions::Spray::kRandom;
      else if (a.val == "hash")
        o.spray = PerturbOptions::Spray::kHash;
      else
        a.bad("expected rr, random or hash");
      spray = true;
    } else if (a.is("--drop-rate")) {
      o.drop_rate = a.real(0, 1, true);
    } else if (a.is("--drop-psn")) {
      for (const std::string& p : a.list()) {
        Opts one("perturb", args);
        one.s = "--drop-psn", one.val = p;
        o.drop_psns.push_back(static_cast<uint32_t>(one.number(wire::kPsnMask)));
      }
    } else if (a.is("--duplicate-rate")) {
      o.duplicate_rate = a.real(0, 1, true);
    } else if (a.is("--retx-after")) {
      o.retx_after = static_cast<uint32_t>(a.number(0xffffffffu));
      if (*o.retx_after == 0) a.bad("at least 1");
    } else if (a.s == "--no-retx") {
      o.no_retx = true;
    } else if (a.is("--seed")) {
      o.seed = a.number();
    } else if (a.is("--qps")) {
      qps_file = a.val;
    } else if (a.is("--dut")) {
      o.dut = a.val;
    } else if (a.is("--gbps")) {
      o.gbps = a.real(1e-3, 1e6, false);
    } else if (!a.s.empty() && a.s[0] == '-') {
      fail_cli("trace perturb: unknown option '" + a.s + "' (see oonic trace perturb --help)");
    } else {
      pos.push_back(a.s);
    }
  }
  if (pos.size() != 2) fail_cli("trace perturb: expected IN OUT (see oonic trace perturb --help)");
  if (shuffle && o.aligned_group)
    fail_cli("trace perturb: give either --ooo-distance or --aligned-groups, not both");
  if (o.multipath) {
    if (shuffle || o.aligned_group)
      fail_cli("trace perturb: give one of --ooo-distance, --aligned-groups or --multipath");
    if (unit)
      fail_cli(
          "trace perturb: --unit goes with --ooo-distance or --aligned-groups, not --multipath");
    if (o.path_delays_ps.size() != o.multipath)
      fail_cli("trace perturb: --multipath " + std::to_string(o.multipath) + " needs " +
               std::to_string(o.multipath) + " --path-delays-ns values, got " +
               std::to_string(o.path_delays_ps.size()));
  } else if (!o.path_delays_ps.empty() || spray) {
    fail_cli("trace perturb: --path-delays-ns and --spray need --multipath K");
  }
  OutFormat fmt = out_format_for(pos[1]);
  std::string sc_path = qps_file.empty() ? default_sidecar_path(pos[0]) : qps_file;
  std::optional<Sidecar> sc;
  if (!qps_file.empty() || file_exists(sc_path))
    sc = load_sidecar(sc_path);
  else
    sc_path.clear();

  Frames in = read_frames(pos[0]);
  print_issues(in);
  PerturbResult r = perturb(in, o, sc);
  std::string cmd = join_args("perturb", args);
  write_frames(pos[1], fmt, r.out, {"generated by: " + cmd, "perturbed from " + pos[0]});
  std::string out_sc = default_sidecar_path(pos[1]);
  if (!sc_path.empty()) {
    struct stat s1 {
    }, s2{};
    bool same = ::stat(sc_path.c_str(), &s1) == 0 && ::stat(out_sc.c_str(), &s2) == 0 &&
                s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
    if (!same) copy_file(sc_path, out_sc);
  }
  TraceStats st = compute_stats(r.out, sc, o.dut);
  std::fprintf(
      stderr,
      "oonic trace perturb: %s: %zu frames, %llu data packets in %llu stream(s): %llu "
      "dropped (%llu retransmitted), %llu duplicated; OOD max %llu%s%s\n",
      pos[1].c_str(), r.out.frames.size(), static_cast<unsigned long long>(r.data_packets),
      static_cast<unsigned long long>(r.streams), static_cast<unsigned long long>(r.dropped),
      static_cast<unsigned long long>(r.retransmitted),
      static_cast<unsigned long long>(r.duplicated), static_cast<unsigned long long>(st.ood.max),
      sc_path.empty() ? "" : "; sidecar ", sc_path.empty() ? "" : out_sc.c_str());
  return 0;
}

int cmd_stats(const std::vector<std::string>& args) {
  Opts a("stats", args);
  bool json = false;
  std::string qps_file, dut;
  std::vector<std::string> pos;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kStatsUsage, stdout), 0;
    if (a.s == "--json") {
      json = true;
    } else if (a.is("--qps")) {
      qps_file = a.val;
    } else if (a.is("--dut")) {
      dut = a.val;
    } else if (!a.s.empty() && a.s[0] == '-') {
      fail_cli("trace stats: unknown option '" + a.s + "' (see oonic trace stats --help)");
    } else {
      pos.push_back(a.s);
    }
  }
  if (pos.size() != 1) fail_cli("trace stats: expected one IN (see oonic trace stats --help)");
  std::string sc_path = qps_file.empty() ? default_sidecar_path(pos[0]) : qps_file;
  std::optional<Sidecar> sc;
  if (!qps_file.empty() || file_exists(sc_path)) sc = load_sidecar(sc_path);
  Frames fr = read_frames(pos[0]);
  print_issues(fr);
  TraceStats s = compute_stats(fr, sc, dut);
  std::fputs(json ? stats_json(s).c_str() : stats_text(s).c_str(), stdout);
  return 0;
}

}  // namespace

int trace_command(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(kTraceUsage, stdout);
    return 2;
  }
  const std::string& sub = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "-h" || sub == "--help" || sub == "help") return std::fputs(kTraceUsage, stdout), 0;
  if (sub == "convert") return cmd_convert(rest);
  if (sub == "synth") return cmd_synth(rest);
  if (sub == "perturb") return cmd_perturb(rest);
  if (sub == "stats") return cmd_stats(rest);
  fail_cli("trace: unknown subcommand '" + sub +
           "' (convert, synth, perturb, stats; see oonic trace --help)");
}

}  // namespace oonic::trace
