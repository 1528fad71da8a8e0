#include "platforms/network/text_input.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>

#include "model/core/error.h"
#include "model/core/number.h"
#include "model/core/params.h"

namespace oonic::network {

TextInput::TextInput(const std::string& path, const std::string& what, bool comments)
    : path_(path), what_(what), comments_(comments) {
  // As the replay's inputs say it: "PATH: cannot open WHAT: reason".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(msg::kConfig, path + ": cannot open " + what + ": is a directory");
  errno = 0;
  in_.open(path);
  if (!in_)
    throw Error(msg::kConfig, path + ": cannot open " + what + ": " +
                                  (errno ? std::strerror(errno) : "unreadable"));
}

namespace {
// A line, without its '\n'; false at the end of the input. A line longer than
// kMaxLine (a binary file, /dev/zero) is an error, not unbounded memory.
constexpr size_t kMaxLine = size_t{1} << 20;
bool read_line(std::streambuf* sb, std::string& out, bool& too_long) {
  out.clear();
  for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
    if (c == '\n') return true;
    if (out.size() >= kMaxLine) return too_long = true, false;
    out.push_back(static_cast<char>(c));
  }
  return !out.empty();
}
}  // namespace

bool TextInput::next() {
  std::string text;
  bool too_long = false;
  while (read_line(in_.rdbuf(), text, too_long)) {
    ++line_;
    if (comments_) {
      const size_t hash = text.find('#');
      if (hash != std::string::npos) text.resize(hash);
    }
    fields_.clear();
    std::istringstream is(text);
    for (std::string f; is >> f;) fields_.push_back(f);
    if (!fields_.empty()) return true;
  }
  ++line_;
  if (too_long)
    fail("a line longer than " + std::to_string(kMaxLine) + " bytes (not a " + what_ +
         "?)");  // errors about a missing line name the one after the last
  fields_.clear();
  return false;
}

uint32_t TextInput::rest_line() {
  std::string text;
  bool too_long = false;
  while (read_line(in_.rdbuf(), text, too_long) || too_long) {
    ++line_;
    if (too_long) return line_;
    if (text.find_first_not_of(" \t\r") != std::string::npos) return line_;
  }
  return 0;
}

void TextInput::fail(const std::string& why) const {
  throw Error(msg::kConfig, path_ + ":" + std::to_string(line_) + ": " + why);
}

void TextInput::expect_fields(size_t lo, size_t hi, const std::string& form) const {
  if (fields_.size() < lo || fields_.size() > hi)
    fail("expected '" + form + "', found " + std::to_string(fields_.size()) + " field" +
         (fields_.size() == 1 ? "" : "s"));
}

uint64_t TextInput::uint_at(size_t i, const std::string& name, uint64_t lo, uint64_t hi) const {
  const std::string& f = field(i);
  const auto v = parse_uint(f);
  if (!v || *v < lo || *v > hi)
    fail(name + " '" + f + "': expected " + number_syntax(NumberSuffix::kNone) + " in [" +
         std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

double TextInput::real_at(size_t i, const std::string& name, double lo, double hi) const {
  const std::string& f = field(i);
  const std::optional<double> v = parse_real(f);
  if (!v || *v < lo || *v > hi)
    fail(name + " '" + f + "': expected a decimal number in " + range_text(lo, hi));
  return *v;
}

std::string range_text(double lo, double hi) {
  return "[" + format_number(lo) + ", " + format_number(hi) + "]";
}

}  // namespace oonic::network
