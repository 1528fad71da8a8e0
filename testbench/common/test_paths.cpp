#include "testbench/common/test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace oonic::test {

std::string source_dir() {
  return OONIC_SOURCE_DIR;
}
std::string captures_dir() {
  return std::string(OONIC_SOURCE_DIR) + "/traces/captures";
}
std::string oonic_bin() {
  return std::string(OONIC_BINARY_DIR) + "/oonic";
}

std::string scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "scratch";
  std::filesystem::path p = std::filesystem::path(OONIC_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace oonic::test
