// SystemC testbench around one ORNIC NIC: frames injected at chosen cycles on
// its mac_rx_socket, frames it sends captured with their start cycle, its DMA
// through a PcieLink into HostMemory, every packet record kept.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/ornic/ornic_nic.h"
#include "platforms/host/host_node.h"
#include "testbench/common/frame_write.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace oonic::test {

struct SentFrame {
  Cycle cycle;
  std::vector<uint8_t> bytes;
  wire::PacketView v;  // parsed (points into bytes)
};

class FramePort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<FramePort> mac_tx_socket;
  tlm_utils::simple_target_socket<FramePort> mac_rx_socket;
  std::vector<std::pair<Cycle, std::vector<uint8_t>>> script;  // frames to inject
  std::vector<std::unique_ptr<SentFrame>> sent;

  FramePort(sc_core::sc_module_name n, const ClockDomain& clk)
      : sc_module(n), mac_tx_socket("mac_tx_socket"), mac_rx_socket("mac_rx_socket"), clk_(clk) {
    mac_rx_socket.register_b_transport(this, &FramePort::receive);
    SC_THREAD(run);
  }

 private:
  SC_HAS_PROCESS(FramePort);
  void run() {
    for (auto& [c, f] : script) {
      clk_.wait_until(c);
      write_frame(mac_tx_socket, f.data(), f.size());
    }
  }
  void receive(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    auto f = std::make_unique<SentFrame>();
    f->cycle = clk_.floor_cycles(ClockDomain::ps_of(sc_core::sc_time_stamp() + d));
    f->bytes.assign(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length());
    wire::parse(f->bytes.data(), f->bytes.size(), f->v, true);
    sent.push_back(std::move(f));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  ClockDomain clk_;
};

// The registry first: the host node's modules register their stats in it.
struct NicBenchStats {
  Stats stats;
};

// The system: nic0, pcie0, host0 (platforms/host/host_node.h) and the frame port,
// bound by name.
struct NicBench : NicBenchStats, host::HostNode {
  FramePort port;
  std::vector<ornic::PacketRecord> records;

  explicit NicBench(const ornic::OrnicParams& p)
      : HostNode({"nic0", "pcie0", "host0"}, p, PcieParams{}, HostMemoryParams{}, stats, nullptr),
        port("port", nic.clock()) {
    port.mac_tx_socket.bind(nic.mac_rx_socket);
    nic.mac_tx_socket.bind(port.mac_rx_socket);
    nic.set_packet_observer([this](const ornic::PacketRecord& r) { records.push_back(r); });
  }
  // A QP 0x11 (peer 0x22) with one region [0x10000, +1 MiB) rkey 0x1234.
  static ornic::QpContext qp(uint32_t start_psn, uint32_t pmtu, uint32_t otd) {
    ornic::QpContext c;
    c.qpn = 0x11;
    c.peer_qpn = 0x22;
    c.epsn = start_psn;
    c.pmtu = pmtu;
    c.otd = otd;
    c.regions.push_back({0x10000, 1 << 20, 0x1234});
    return c;
  }
  void inject(Cycle c, const wire::FrameSpec& s) { port.script.push_back({c, wire::build(s)}); }
};

// A request frame to QP 0x11 with `len` payload bytes of value `fill`.
inline wire::FrameSpec request(uint8_t opcode, uint32_t psn, uint32_t len, uint64_t va = 0,
                               uint32_t dma_len = 0) {
  static std::vector<uint8_t> payload(8192, 0xA5);
  wire::FrameSpec s;
  std::swap(s.src_mac, s.dst_mac);  // peer -> NIC
  std::swap(s.src_ip, s.dst_ip);
  s.bth.opcode = opcode;
  s.bth.dest_qp = 0x11;
  s.bth.psn = psn;
  s.reth.va = va;
  s.reth.rkey = 0x1234;
  s.reth.dma_len = dma_len;
  s.payload = payload.data();
  s.payload_len = len;
  return s;
}

}  // namespace oonic::test
