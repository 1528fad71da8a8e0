// Paths tests use: the source tree, the build tree, the bundled real captures
// (traces/captures), and a fresh scratch directory per test.
#pragma once

#include <string>

namespace oonic::test {

std::string source_dir();
std::string captures_dir();
std::string oonic_bin();
// A new empty directory under the build tree named after the running test.
std::string scratch_dir();
std::string read_file(const std::string& path);

}  // namespace oonic::test
