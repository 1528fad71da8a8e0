// Trace frames: reading pcap, pcapng and text traces into Frames, and writing Frames
// as text, pcap or pcapng (`oonic trace convert`).
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
#include "platforms/trace/trace_util.h"

namespace oonic::trace {

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
  PcapReader in(path);
  auto bytes = std::make_shared<std::vector<uint8_t>>();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && st.st_size > 0)
    bytes->reserve(static_cast<size_t>(st.st_size));
  Frames fr;
  fr.path = path;
  fr.format = format;
  PcapReader::Record h;
  for (;;) {
    uint32_t index = static_cast<uint32_t>(fr.frames.size() + 1);
    if (!in.next(h)) {
      if (!in.error().empty())
        fr.issues.push_back("record " + std::to_string(index) + ": reading stopped: " + in.error());
      break;
    }
    // 128-bit, then clamped: a damaged record header can hold any time. Absolute times
    // stay inside int64 ns; a time more than 2^52 ns (52 days) from the first record is
    // clamped there, so times x 1000 stay inside int64 ps.
    constexpr int64_t kMaxRelNs = int64_t{1} << 52;
    const i128 t = static_cast<i128>(h.sec) * 1000000000 + h.nsec;
    const int64_t t_ns =
        static_cast<int64_t>(std::max<i128>(0, std::min<i128>(int64_t{1} << 62, t)));
    if (!fr.has_origin) fr.has_origin = true, fr.origin_ns = t_ns;
    Frame f;
    f.time_ps = std::max(-kMaxRelNs, std::min(kMaxRelNs, t_ns - fr.origin_ns)) * 1000;
    f.has_time = true;
    f.offset = bytes->size();
    f.len = h.caplen;
    f.wire_len = std::max(h.len, h.caplen);
    f.source = index;
    bytes->insert(bytes->end(), h.data, h.data + h.caplen);
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
  Record zero;  // a text trace's frames are in its arena: its start
  std::vector<uint8_t> unused;
  fr.base = t->frame(zero, unused);
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
  if (fmt == OutFormat::kPcap) {
    // Absolute times and captured / wire lengths kept.
    PcapWriter w(path);
    for (size_t i = 0; i < fr.frames.size(); ++i) {
      const Frame& f = fr.frames[i];
      w.write_ns(abs_ns(i), fr.data(f), f.len, f.wire_len);
    }
    w.close();
    return sum;
  }
  PcapNgWriter w(path);
  for (size_t i = 0; i < fr.frames.size(); ++i) {
    const Frame& f = fr.frames[i];
    w.write_ns(abs_ns(i), fr.data(f), f.len, f.wire_len);
  }
  w.close();
  return sum;
}

}  // namespace oonic::trace
