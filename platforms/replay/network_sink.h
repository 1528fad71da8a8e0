// Where the NIC's frames go in a replay: recorded into tx.pcap (nanosecond
// timestamps = the cycle the frame started on the wire) and tx.csv (one row per
// frame: what the model says it sent, for comparison with a dissector).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <cstdio>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "model/core/clock.h"
#include "platforms/trace/trace.h"

namespace oonic::replay {

class NetworkSink : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<NetworkSink> mac_rx_socket;
  NetworkSink(sc_core::sc_module_name name, const ClockDomain& clk, const std::string& pcap_path,
              const std::string& csv_path);
  ~NetworkSink() override;
  uint64_t frames() const { return frames_; }
  void close();

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  ClockDomain clk_;
  std::unique_ptr<trace::PcapWriter> pcap_;
  FILE* csv_ = nullptr;
  uint64_t frames_ = 0;
};

}  // namespace oonic::replay
