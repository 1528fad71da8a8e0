#include "model/core/number.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace oonic {

std::optional<uint64_t> parse_uint(std::string_view v, NumberSuffix suffix) {
  uint64_t mult = 1;
  if (suffix == NumberSuffix::kBinary && !v.empty()) {
    switch (v.back()) {
      case 'K':
      case 'k':
        mult = 1ull << 10;
        break;
      case 'M':
      case 'm':
        mult = 1ull << 20;
        break;
      case 'G':
      case 'g':
        mult = 1ull << 30;
        break;
      default:
        break;
    }
    if (mult != 1) v.remove_suffix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) v.remove_prefix(2), base = 16;
  // from_chars takes no sign and no space, but "0x" alone or "+1" must fail too.
  if (v.empty() || v[0] == '+' || v[0] == '-') return std::nullopt;
  uint64_t x = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x, base);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
  if (x != 0 && mult > std::numeric_limits<uint64_t>::max() / x) return std::nullopt;
  return x * mult;
}

std::optional<double> parse_real(std::string_view v) {
  if (v.empty()) return std::nullopt;
  // strtod would take hex floats, "inf" and "nan": only digits, sign, point, exponent.
  for (char c : v)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return std::nullopt;
  const std::string s(v);
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(x)) return std::nullopt;
  return x;
}

const char* number_syntax(NumberSuffix suffix) {
  return suffix == NumberSuffix::kBinary
             ? "a non-negative integer (decimal or 0x hex; K/M/G = 2^10/2^20/2^30)"
             : "a non-negative integer (decimal or 0x hex)";
}

}  // namespace oonic
