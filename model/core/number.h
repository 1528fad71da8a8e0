// Numbers as a user types them, one rule for the command line, YAML values and
// `--set`: decimal, or hexadecimal with 0x; sizes may end in K, M or G.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace oonic {

enum class NumberSuffix {
  kNone,    // a plain count, address or id
  kBinary,  // a size: K, M, G (either case) multiply by 2^10, 2^20, 2^30
};

// An unsigned integer: "4096", "0x1000", with kBinary also "4K", "64k", "1M".
// nullopt for anything else: empty, a sign, spaces, other digits, overflow. No
// octal: a leading 0 is decimal, so "010" is ten.
std::optional<uint64_t> parse_uint(std::string_view text,
                                   NumberSuffix suffix = NumberSuffix::kNone);

// A real: decimal, the whole text, finite ("1e3", "0.5", "-2"). nullopt for
// anything else: empty, hex, inf, nan, overflow, trailing characters.
std::optional<double> parse_real(std::string_view text);

// What parse_uint accepts, for an error message: "a non-negative integer
// (decimal or 0x hex)", with kBinary "...; K/M/G = 2^10/2^20/2^30)".
const char* number_syntax(NumberSuffix suffix);

}  // namespace oonic
