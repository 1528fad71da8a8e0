// Test helper: hands a frame to a TLM target the way the model's MACs, links and
// switches do (a write, the Ethernet frame without FCS as data, zero delay).
#pragma once

#include <cstddef>
#include <cstdint>
#include <systemc>
#include <tlm>

namespace oonic::test {

// Returns the target's response status.
template <class Socket>
tlm::tlm_response_status write_frame(Socket& s, uint8_t* data, size_t len) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_data_ptr(data);
  gp.set_data_length(static_cast<unsigned>(len));
  gp.set_streaming_width(static_cast<unsigned>(len));
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  s->b_transport(gp, d);
  return gp.get_response_status();
}

}  // namespace oonic::test
