#include "tlm/pcie_link.h"

#include "model/core/clock.h"

namespace oonic {

PcieLink::PcieLink(sc_core::sc_module_name name, const PcieParams& p, Stats& stats)
    : sc_module(name),
      nic_target_socket("nic_target_socket"),
      host_initiator_socket("host_initiator_socket"),
      core(p, StatGroup(stats, this->name())) {
  nic_target_socket.register_b_transport(this, &PcieLink::b_transport);
  nic_target_socket.register_transport_dbg(this, &PcieLink::transport_dbg);
}

void PcieLink::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_byte_enable_ptr() || gp.get_streaming_width() < gp.get_data_length() ||
      (!gp.is_read() && !gp.is_write())) {
    core.error();
    gp.set_response_status(gp.get_byte_enable_ptr() ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                                                    : tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  uint64_t now_ps = ClockDomain::ps_of(sc_core::sc_time_stamp());
  uint64_t t_ps = now_ps + ClockDomain::ps_of(delay);
  uint64_t done = gp.is_write() ? core.book_write(t_ps, gp.get_address(), gp.get_data_length())
                                : core.book_read(t_ps, gp.get_address(), gp.get_data_length());
  sc_core::sc_time host_delay = sc_core::SC_ZERO_TIME;
  host_initiator_socket->b_transport(gp, host_delay);
  if (write_observer_ && gp.is_write() && gp.get_response_status() == tlm::TLM_OK_RESPONSE)
    write_observer_(done + ClockDomain::ps_of(host_delay), gp.get_address(), gp.get_data_length());
  delay = ClockDomain::from_ps(done - now_ps) + host_delay;
}

unsigned int PcieLink::transport_dbg(tlm::tlm_generic_payload& gp) {
  return host_initiator_socket->transport_dbg(gp);
}

}  // namespace oonic
