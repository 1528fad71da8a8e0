// Fuzz harness: ns-3 HPCC's flow file as the fabric reads it (read_hpcc_flows) on a
// topology numbered as ns-3 HPCC's mix/ (switch 0, hosts 1..8). Errors name the file
// and line; flows that load are between two distinct hosts, 1..2^31-1 bytes, priority
// 0..7, dport 0..65535, starts never going back, and written back (hpcc_flows_text)
// they read again to the same flows.
#include <string>
#include <vector>

#include "platforms/network/workload.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using oonic::network::Flow;
  static const std::vector<int32_t> kHostOfNode = {-1, 0, 1, 2, 3, 4, 5, 6, 7};
  static const std::vector<uint32_t> kHostNodes = {1, 2, 3, 4, 5, 6, 7, 8};
  oonic::fuzz::TempFile f(data, size, ".flow.txt");
  std::vector<Flow> flows;
  try {
    flows = oonic::network::read_hpcc_flows(f.path(), kHostOfNode);
  } catch (const oonic::Error& e) {
    if (std::string(e.what()).find(f.path() + ":") == std::string::npos) {
      std::fprintf(stderr, "error does not name the file and line: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  uint64_t last = 0;
  for (const Flow& fl : flows) {
    if (fl.src == fl.dst || fl.src >= 8 || fl.dst >= 8 || fl.bytes < 1 ||
        fl.bytes > oonic::network::kMaxFlowBytes || fl.priority > 7 || fl.dport > 65535 ||
        fl.start_ps < last)
      std::abort();
    last = fl.start_ps;
  }
  const std::string text = oonic::network::hpcc_flows_text(flows, kHostNodes);
  oonic::fuzz::TempFile again(reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                              ".again.txt");
  const std::vector<Flow> back = oonic::network::read_hpcc_flows(again.path(), kHostOfNode);
  if (back.size() != flows.size()) std::abort();
  for (size_t i = 0; i < flows.size(); ++i)
    if (back[i].src != flows[i].src || back[i].dst != flows[i].dst ||
        back[i].bytes != flows[i].bytes || back[i].dport != flows[i].dport ||
        back[i].priority != flows[i].priority ||
        // written with 9 decimals of a second: within half a nanosecond
        (back[i].start_ps > flows[i].start_ps ? back[i].start_ps - flows[i].start_ps
                                              : flows[i].start_ps - back[i].start_ps) > 500)
      std::abort();
  return 0;
}
