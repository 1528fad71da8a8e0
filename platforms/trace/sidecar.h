// The sidecar of a replay: the QPs and memory regions the DUT has set up
// before the trace starts (YAML, traces/README.md "Sidecar"):
//
//   dut: {ip: 10.0.0.2, mac: "02:00:00:00:00:02"}   # optional
//   qps:
//     - qpn: 0x11          # the DUT's QPN (dest QP of packets to the DUT)
//       peer_qpn: 0x11     # optional
//       start_psn: 100     # expected PSN of the first packet
//       pmtu: 4096         # optional (default from config)
//       otd: 64            # optional (default from config)
//       regions: [{base: 0x10000, length: 65536, rkey: 0x1234}]
//       recv_buffers: {count: 16, bytes: 4096, base: 0x800000}   # optional
//
// Errors (unknown key, wrong type, out of range) throw
// oonic::Error(msg::kSidecar, "<file>:<line>: key 'qps[0].start_psn': <what>").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace oonic::trace {

struct Region {
  uint64_t base = 0;
  uint64_t length = 0;
  uint32_t rkey = 0;
};

struct RecvBuffers {
  uint32_t count = 0;
  uint32_t bytes = 0;
  uint64_t base = 0;
};

struct QpSetup {
  uint32_t qpn = 0;                  // 24 bit
  std::optional<uint32_t> peer_qpn;  // default: derived by the replay, else = qpn
  uint32_t start_psn = 0;            // 24 bit
  std::optional<uint32_t> pmtu;      // 256, 512, 1024, 2048 or 4096
  std::optional<uint32_t> otd;       // >= 1
  std::vector<Region> regions;
  std::optional<RecvBuffers> recv;
  uint32_t line = 0;  // 1-based line of the entry in the file (for messages)
};

struct Sidecar {
  std::optional<std::string> dut_ip;   // validated IPv4 / IPv6 text
  std::optional<std::string> dut_mac;  // validated xx:xx:xx:xx:xx:xx
  std::vector<QpSetup> qps;
};

Sidecar load_sidecar(const std::string& path);

// The trace path with its extension replaced by ".qps.yaml"
// ("traces/default.txt" -> "traces/default.qps.yaml").
std::string default_sidecar_path(const std::string& trace_path);

}  // namespace oonic::trace
