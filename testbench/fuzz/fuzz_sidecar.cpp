// Fuzz harness: the replay's QP sidecar (YAML, traces/README.md "Sidecar"). Errors
// name the file; what loads respects the documented ranges.
#include <string>

#include "platforms/trace/sidecar.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oonic::fuzz::TempFile f(data, size, ".qps.yaml");
  try {
    const oonic::trace::Sidecar s = oonic::trace::load_sidecar(f.path());
    for (const auto& q : s.qps) {
      if (q.qpn > 0xFFFFFF || q.start_psn > 0xFFFFFF) std::abort();
      if (q.pmtu && (*q.pmtu < 256 || *q.pmtu > 4096 || (*q.pmtu & (*q.pmtu - 1)))) std::abort();
    }
  } catch (const oonic::Error& e) {
    const std::string what = e.what();
    if (what.empty() || what.find(f.path()) == std::string::npos) {
      std::fprintf(stderr, "error does not name the file: %s\n", what.c_str());
      std::abort();
    }
  }
  return 0;
}
