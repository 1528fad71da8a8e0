// Helpers shared by the trace tool files (platforms/trace/*.cpp): errors, number and
// time formatting, and the per-frame classification perturb and stats both use. Internal:
// not part of the trace tools' interface (trace_tools.h).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/trace/trace_tools.h"

namespace oonic::trace {

[[noreturn]] inline void fail_trace(const std::string& what) {
  throw Error(msg::kTrace, what);
}
[[noreturn]] inline void fail_cli(const std::string& what) {
  throw Error(msg::kCli, what);
}

inline std::string hexs(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

inline bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// floor(a / b) for b > 0.
inline int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Signed ns with up to 3 decimals ("-12.5") -> ps. False if malformed.
inline bool parse_ns(std::string_view s, int64_t& ps) {
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

inline std::string format_signed_ns(int64_t ps) {
  if (ps >= 0) return format_time_ps(static_cast<uint64_t>(ps));
  return "-" + format_time_ps(static_cast<uint64_t>(-ps));
}

// A data packet: a request, or a response that carries payload.
bool is_data(const wire::PacketView& v);

struct ClassifiedFull {
  Classified c;
  std::vector<int16_t> opcode;  // per frame: BTH opcode, or -1 (not RoCE)
  std::vector<uint8_t> bad;     // per frame: 1 = bad ICRC
  uint64_t eunomia_meta = 0;    // valid RC frames carrying Eunomia's metadata extension
};
ClassifiedFull classify_full(const Frames& fr, const std::optional<Sidecar>& sc,
                             const std::string& dut_arg);

}  // namespace oonic::trace
