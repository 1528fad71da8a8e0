// Fuzz harness: the YAML configuration loader over every parameter of `oonic run`
// (NIC, network, workload, run) and of `oonic replay`. Errors name the file (and key);
// a value that loads is inside its documented range, and the resolved YAML written
// back loads again to the same values.
#include <string>

#include "model/core/config.h"
#include "platforms/b2b/b2b.h"
#include "platforms/replay/replay.h"
#include "testbench/fuzz/fuzz_common.h"

namespace {
template <class P>
void check(const std::string& path) {
  P p;
  oonic::ParamTable t;
  p.describe(t);
  try {
    oonic::apply_config_file(t, path);
  } catch (const oonic::Error& e) {
    const std::string what = e.what();
    if (what.empty() || what.find(path) == std::string::npos) {
      std::fprintf(stderr, "error does not name the file: %s\n", what.c_str());
      std::abort();
    }
    return;
  }
  for (const auto& e : t.entries()) {
    if (e.type == oonic::ParamTable::Type::kString || e.type == oonic::ParamTable::Type::kBool)
      continue;
    const double v = std::stod(t.value_text(e));
    if (v < e.min || v > e.max) std::abort();
  }
  // The resolved configuration reads back to the same values.
  const std::string yaml = oonic::resolved_yaml(t);
  oonic::fuzz::TempFile again(reinterpret_cast<const uint8_t*>(yaml.data()), yaml.size(),
                              ".resolved.yaml");
  P q;
  oonic::ParamTable u;
  q.describe(u);
  oonic::apply_config_file(u, again.path());
  for (size_t i = 0; i < t.entries().size(); ++i)
    if (t.value_text(t.entries()[i]) != u.value_text(u.entries()[i])) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oonic::fuzz::TempFile f(data, size, ".yaml");
  check<oonic::b2b::AllParams>(f.path());
  check<oonic::replay::AllParams>(f.path());
  return 0;
}
