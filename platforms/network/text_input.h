// One strict reader for the fabric's text inputs (ns-3 HPCC's topology.txt and
// flow.txt, faults.file): whitespace-separated fields a line, one number rule
// (integers by parse_uint: decimal or 0x hex, no sign, no fraction, no wrap;
// reals decimal and finite, no hex, inf or nan), every value range-checked, and
// every error "file:line: what 'value': expected ... in [lo, hi]" (msg::kConfig,
// exit 2 at the command line). A directory or an unreadable path is refused.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace oonic::network {

class TextInput {
 public:
  // what: the kind of file for messages ("topology", "flow file", "faults.file").
  // comments: '#' starts a comment to the end of the line.
  TextInput(const std::string& path, const std::string& what, bool comments);

  // The next line with a field on it (blank and comment-only lines skipped);
  // false at the end of the file.
  bool next();
  // The next line with text on it, however long, without reading it as fields (what
  // a reader leaves unread); 0 if none.
  uint32_t rest_line();
  uint32_t line() const { return line_; }
  const std::string& path() const { return path_; }
  size_t fields() const { return fields_.size(); }
  const std::string& field(size_t i) const { return fields_.at(i); }

  // path:line: why
  [[noreturn]] void fail(const std::string& why) const;
  // The line has between lo and hi fields, else "expected FORM".
  void expect_fields(size_t lo, size_t hi, const std::string& form) const;
  uint64_t uint_at(size_t i, const std::string& name, uint64_t lo, uint64_t hi) const;
  // A real with an optional unit suffix already split off by the caller.
  double real_at(size_t i, const std::string& name, double lo, double hi) const;

 private:
  std::string path_, what_;
  bool comments_;
  std::ifstream in_;
  uint32_t line_ = 0;
  std::vector<std::string> fields_;
};

// "[lo, hi]" with numbers in their shortest form.
std::string range_text(double lo, double hi);

}  // namespace oonic::network
