#include "model/ornic/mac.h"

#include "tlm/net_packet.h"

namespace oonic::ornic {

Mac::Mac(sc_core::sc_module_name name, const BlockEnv& env)
    : sc_module(name),
      mac_rx_socket("mac_rx_socket"),
      mac_tx_socket("mac_tx_socket"),
      core(core_env(env, this->name()), *this),
      clk_(env.p.nic.clock_mhz) {
  mac_rx_socket.register_b_transport(this, &Mac::mac_rx);
}

void Mac::mac_rx(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  core.received();
  const Cycle arrival = clk_.now() + clk_.ceil_cycles(ClockDomain::ps_of(delay));
  wire::Pfc pf;
  if (wire::parse_pfc(gp.get_data_ptr(), gp.get_data_length(), pf)) {
    if (core.pause(arrival, pf)) tx_wake_port->wake(arrival);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  auto* meta = gp.get_extension<NetPacketMeta>();
  const uint32_t record = meta ? meta->record : ++rx_count_;
  rx_port->frame_in(arrival, gp.get_data_ptr(), gp.get_data_length(), record);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Mac::frame_out(Cycle start, const uint8_t* frame, size_t len) {
  tx_gp_.set_command(tlm::TLM_WRITE_COMMAND);
  tx_gp_.set_address(0);
  tx_gp_.set_data_ptr(const_cast<uint8_t*>(frame));
  tx_gp_.set_data_length(static_cast<unsigned>(len));
  tx_gp_.set_streaming_width(static_cast<unsigned>(len));
  tx_gp_.set_byte_enable_ptr(nullptr);
  tx_gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = clk_.until(start);
  mac_tx_socket->b_transport(tx_gp_, d);
}

}  // namespace oonic::ornic
