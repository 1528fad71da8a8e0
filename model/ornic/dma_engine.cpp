#include "model/ornic/dma_engine.h"

#include "model/core/report.h"

namespace oonic::ornic {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const BlockEnv& env)
    : sc_module(name),
      dma_initiator_socket("dma_initiator_socket"),
      core(core_env(env, this->name()), *this),
      clk_(env.p.nic.clock_mhz) {}

Cycle DmaEngine::transfer(Cycle start, bool write, uint64_t addr, uint8_t* data, uint32_t len,
                          bool* ok) {
  gp_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp_.set_address(addr);
  gp_.set_data_ptr(data);
  gp_.set_data_length(len);
  gp_.set_streaming_width(len);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_dmi_allowed(false);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = clk_.until(start);
  dma_initiator_socket->b_transport(gp_, delay);
  *ok = !gp_.is_response_error();
  if (!*ok)
    report_warning(msg::kModel, std::string(name()) + ": DMA " + (write ? "write" : "read") +
                                    " at 0x" + std::to_string(addr) +
                                    " failed: " + gp_.get_response_string());
  uint64_t done_ps = ClockDomain::ps_of(sc_core::sc_time_stamp() + delay);
  return clk_.ceil_cycles(done_ps);
}

bool DmaEngine::poke(uint64_t addr, const uint8_t* data, uint32_t len) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(const_cast<uint8_t*>(data));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return dma_initiator_socket->transport_dbg(gp) == len;
}

}  // namespace oonic::ornic
