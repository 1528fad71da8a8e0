// What a replay needs before the first packet: which endpoint is the device
// under test, which frames are its input, and the QPs, memory regions, receive
// buffers and outstanding READs it had set up before the trace began. Taken
// from the sidecar where it says so, otherwise derived from what the trace
// shows; every derivation is reported (notes) and written out as a sidecar.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "model/ornic/ornic_params.h"
#include "model/ornic/qp_context.h"
#include "platforms/trace/endpoint.h"
#include "platforms/trace/sidecar.h"
#include "platforms/trace/trace.h"

namespace oonic::replay {

using trace::Endpoint;

// Host memory contents the DUT had before the trace (READ responder data).
struct Prefill {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;  // empty: the documented pattern (pattern_byte)
  uint64_t len = 0;
};

struct ReplaySetup {
  Endpoint dut;
  std::string dut_how;                                     // how the DUT was chosen
  std::vector<ornic::QpContext> qps;                       // contexts to install
  std::vector<std::pair<uint32_t, ornic::ReadWqe>> reads;  // (DUT qpn, READ)
  std::vector<Prefill> prefill;
  std::vector<uint32_t> input;     // indexes into trace.records delivered to the DUT
  std::vector<uint32_t> from_dut;  // indexes of frames the DUT sent (not replayed)
  std::vector<std::string> notes;  // derivations, printed and saved
  std::string sidecar_yaml;        // the setup as a sidecar (results/qps.yaml)
};

// dut_arg: "", "mac=..", "ip=..", "qp=..", or a bare MAC / IP / QPN.
ReplaySetup make_setup(const trace::Trace& trace, const std::optional<trace::Sidecar>& sidecar,
                       const std::string& dut_arg, const ornic::OrnicParams& p);

}  // namespace oonic::replay
