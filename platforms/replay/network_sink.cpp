#include "platforms/replay/network_sink.h"

#include "model/core/error.h"
#include "model/wire/roce.h"

namespace oonic::replay {

NetworkSink::NetworkSink(sc_core::sc_module_name name, const ClockDomain& clk,
                         const std::string& pcap_path, const std::string& csv_path)
    : sc_module(name), mac_rx_socket("mac_rx_socket"), clk_(clk) {
  mac_rx_socket.register_b_transport(this, &NetworkSink::b_transport);
  pcap_ = std::make_unique<trace::PcapWriter>(pcap_path);
  csv_ = std::fopen(csv_path.c_str(), "w");
  if (!csv_) throw Error(msg::kIo, csv_path + ": cannot write");
  std::fputs(
      "frame,cycle,time_ps,opcode,opcode_name,dest_qp,psn,syndrome,msn,start_addr_cached,bytes\n",
      csv_);
}

NetworkSink::~NetworkSink() {
  close();
}

void NetworkSink::close() {
  if (pcap_) pcap_->close(), pcap_.reset();
  if (csv_) std::fclose(csv_), csv_ = nullptr;
}

void NetworkSink::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  uint64_t ps = ClockDomain::ps_of(sc_core::sc_time_stamp() + delay);
  const uint8_t* f = gp.get_data_ptr();
  unsigned len = gp.get_data_length();
  pcap_->write(ps, f, len);
  ++frames_;
  wire::PacketView v;
  wire::parse(f, len, v, false);
  std::fprintf(csv_, "%llu,%llu,%llu,0x%02x,%s,0x%x,%u,", static_cast<unsigned long long>(frames_),
               static_cast<unsigned long long>(clk_.floor_cycles(ps)),
               static_cast<unsigned long long>(ps), v.bth.opcode, v.info ? v.info->name : "?",
               v.bth.dest_qp, v.bth.psn);
  if (v.flags & wire::kHasAeth)
    std::fprintf(csv_, "0x%02x,%u,", v.aeth.syndrome, v.aeth.msn);
  else
    std::fputs(",,", csv_);
  std::fprintf(csv_, "%d,%u\n", (v.bth.resv7 & wire::kBthStartAddrCachedBit) ? 1 : 0, len);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace oonic::replay
