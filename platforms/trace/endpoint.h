// An endpoint of a capture (IP and/or MAC) and the choice of the device under
// test, shared by the replay and the trace tools.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/wire/roce.h"
#include "platforms/trace/sidecar.h"

namespace oonic::trace {

struct Endpoint {
  bool has_ip = false;
  uint8_t ip_version = 4;
  std::array<uint8_t, 16> ip{};
  bool has_mac = false;
  std::array<uint8_t, 6> mac{};

  bool empty() const { return !has_ip && !has_mac; }
  std::string text() const;  // "ip 10.0.0.2, mac 02:00:00:00:00:02"
  // Matched by IP when both sides have one, else by MAC.
  bool is_src(const wire::PacketView& v) const;
  bool is_dst(const wire::PacketView& v) const;
  static Endpoint receiver_of(const wire::PacketView& v);
};

bool parse_ip(const std::string& s, Endpoint& e);   // IPv4 or IPv6 text
bool parse_mac(const std::string& s, Endpoint& e);  // xx:xx:xx:xx:xx:xx

struct DutChoice {
  Endpoint dut;
  std::string how;  // printed with the choice
};

// What choosing the device under test needs of a capture's RC frames, taken
// one frame at a time (so nobody keeps a view of every frame): receivers in
// order of first appearance with their request counts, the receiver of the
// first RC frame, and the first receiver of each destination QP.
class DutCensus {
 public:
  void add(const wire::PacketView& v);  // an RC frame, in trace order

 private:
  friend DutChoice choose_dut(const std::string&, const std::optional<Sidecar>&, const DutCensus&,
                              const std::string&);
  struct Receiver {
    Endpoint who;
    uint64_t requests = 0;
  };
  std::vector<Receiver> receivers_;               // in order of first request
  std::map<std::vector<uint8_t>, size_t> index_;  // receiver key -> receivers_
  std::vector<uint8_t> last_key_, key_;           // the previous frame's (most are alike)
  size_t last_ = 0;
  std::optional<Endpoint> first_;       // receiver of the first RC frame
  std::map<uint32_t, Endpoint> by_qp_;  // dest QP -> its first frame's receiver
};

// The device under test: `--dut` (mac=.., ip=.., qp=N, or a bare MAC/IP/QPN),
// else the sidecar's dut, else the endpoint receiving the most RC requests (the
// first such on a tie), else the receiver of the first RC frame. Throws
// oonic::Error (msg::kCli) on a bad --dut.
DutChoice choose_dut(const std::string& dut_arg, const std::optional<Sidecar>& sidecar,
                     const DutCensus& rc, const std::string& trace_path);

}  // namespace oonic::trace
