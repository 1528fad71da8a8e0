// Shared by the fuzz harnesses (testbench/fuzz/fuzz_*.cpp): each harness defines
// LLVMFuzzerTestOneInput. Built two ways:
//  * with clang and -fsanitize=fuzzer,address,undefined (OONIC_FUZZ=ON, build-fuzz/,
//    scripts/fuzz): libFuzzer drives it;
//  * with the normal compiler and replay_main.cpp: every file of the harness's corpus
//    and regressions is fed once (CTest fuzz.replay.<harness>), so inputs that once
//    crashed keep being checked in every build.
// The rule every harness enforces: bad input is rejected with oonic::Error carrying a
// non-empty reason; any other exception, crash or sanitizer report is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/core/error.h"

namespace oonic::fuzz {

// Writes the input to a file the parser under test can open (tmpfs when there is one)
// and removes it when done. One file per process: harnesses run one input at a time.
class TempFile {
 public:
  TempFile(const uint8_t* data, size_t size, const char* suffix) {
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    path_ = std::string(dir) + "/oonic-fuzz-" + std::to_string(getpid()) + suffix;
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs f(); an oonic::Error is the documented rejection and must say why.
template <class F>
void expect_accept_or_reason(F&& f) {
  try {
    f();
  } catch (const oonic::Error& e) {
    if (std::string(e.what()).empty()) {
      std::fprintf(stderr, "rejected without a reason (id %s)\n", e.id().c_str());
      std::abort();
    }
  }
}

}  // namespace oonic::fuzz
