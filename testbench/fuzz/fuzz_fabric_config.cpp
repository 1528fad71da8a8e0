// Fuzz harness: the YAML configuration of a fabric run (`oonic run` with a topology
// section) through everything checked before a system is built: the parameters and
// their cross-checks (validate), then read_inputs (the topology, generated or a file,
// the flows, the faults, and the keys naming parts of them). Errors name the file,
// a key or a file:line; a configuration that passes gives a fabric of at least two
// hosts with flows, every value inside its documented range.
#include <filesystem>
#include <string>

#include "model/core/config.h"
#include "platforms/fabric/fabric.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oonic::fuzz::TempFile f(data, size, ".fabric.yaml");
  oonic::fabric::AllParams all;
  oonic::ParamTable t;
  all.describe(t);
  oonic::fabric::Inputs in;
  try {
    oonic::apply_config_file(t, f.path());
    t.apply_presets();
    all.nic.validate();
    all.sw.validate();
    // Generated workloads are bounded here so that one input stays small.
    in = oonic::fabric::read_inputs(all, std::filesystem::path(f.path()).parent_path().string(), 1,
                                    20000);
  } catch (const oonic::Error& e) {
    const std::string what = e.what();
    bool named = what.find(f.path()) != std::string::npos;
    // A key, its section ("flows: ..."), or a file an input key names (file:line).
    for (const auto& en : t.entries()) {
      named = named || what.find(en.key) != std::string::npos ||
              what.rfind(en.key.substr(0, en.key.find('.')) + ":", 0) == 0;
      const bool file_key =
          en.key.size() > 5 &&
          (en.key.compare(en.key.size() - 5, 5, ".file") == 0 || en.key == "flows.cdf");
      if (file_key) {
        const std::string v = t.value_text(en);
        named = named || (!v.empty() && what.find(std::filesystem::path(v).filename().string() +
                                                  ":") != std::string::npos);
      }
    }
    if (what.empty() || !named) {
      std::fprintf(stderr, "error names no file or key: %s\n", what.c_str());
      std::abort();
    }
    return 0;
  }
  for (const auto& e : t.entries()) {
    if (e.type == oonic::ParamTable::Type::kString || e.type == oonic::ParamTable::Type::kBool)
      continue;
    const double v = std::stod(t.value_text(e));
    if (v < e.min || v > e.max) std::abort();
  }
  if (in.host_nodes.size() < 2 || in.flows.empty()) std::abort();
  // Small fabrics are routed too (a larger one would take this input past its time).
  if (in.host_nodes.size() * in.topo.nodes.size() <= (1u << 16)) {
    try {
      oonic::network::Routes routes(in.topo);
    } catch (const oonic::Error& e) {
      if (std::string(e.what()).empty()) std::abort();
    }
  }
  return 0;
}
