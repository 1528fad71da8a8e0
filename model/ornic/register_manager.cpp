#include "model/ornic/register_manager.h"

#include <cstring>

namespace oonic::ornic {

RegisterManager::RegisterManager(sc_core::sc_module_name name, const BlockEnv& env)
    : sc_module(name),
      reg_socket("reg_socket"),
      clk_(env.p.nic.clock_mhz),
      access_cycles_(env.p.reg.access_cycles),
      regs_(env.p.nic.max_qps),
      reads_(env.stats.counter(std::string(this->name()) + ".reads", "access",
                               "register reads through reg_socket")),
      writes_(env.stats.counter(std::string(this->name()) + ".writes", "access",
                                "register writes through reg_socket")),
      errors_(env.stats.counter(std::string(this->name()) + ".errors", "access",
                                "register accesses answered with a TLM error response")) {
  regs_.set_reset(GlobalReg::kPmtu, env.p.nic.pmtu_bytes);
  regs_.set_reset(GlobalReg::kDefaultOtd, env.p.nic.otd);
  regs_.reset();
  regs_.on_write([this](uint32_t addr, uint32_t v) {
    if (on_write_) on_write_(access_cycle_, addr, v);
  });
  reg_socket.register_b_transport(this, &RegisterManager::b_transport);
  reg_socket.register_transport_dbg(this, &RegisterManager::transport_dbg);
}

void RegisterManager::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  delay += clk_.at(access_cycles_);
  access_cycle_ = clk_.now() + clk_.ceil_cycles(ClockDomain::ps_of(delay));
  if (gp.get_byte_enable_ptr()) {
    errors_.inc();
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
    errors_.inc();
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint32_t addr = static_cast<uint32_t>(gp.get_address());
  if (gp.get_address() > 0xFFFFFFFFull) {
    errors_.inc();
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  RegStatus st;
  if (gp.is_read()) {
    uint32_t v = 0;
    st = regs_.read(addr, &v);
    std::memcpy(gp.get_data_ptr(), &v, 4);  // little-endian host
    reads_.inc();
  } else if (gp.is_write()) {
    uint32_t v;
    std::memcpy(&v, gp.get_data_ptr(), 4);
    st = regs_.write(addr, v);
    writes_.inc();
  } else {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    errors_.inc();
    return;
  }
  switch (st) {
    case RegStatus::kOk:
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      break;
    case RegStatus::kAccessError:
      errors_.inc();
      gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      break;
    case RegStatus::kAddressError:
    case RegStatus::kAlignmentError:
      errors_.inc();
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      break;
  }
}

unsigned int RegisterManager::transport_dbg(tlm::tlm_generic_payload& gp) {
  if (gp.get_data_length() != 4) return 0;
  uint32_t v = 0;
  uint32_t addr = static_cast<uint32_t>(gp.get_address());
  if (gp.is_read()) {
    v = regs_.peek(addr);
    std::memcpy(gp.get_data_ptr(), &v, 4);
  } else {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    regs_.poke(addr, v);
  }
  return 4;
}

}  // namespace oonic::ornic
