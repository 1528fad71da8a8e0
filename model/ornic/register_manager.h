// ORNIC's Register Manager (Figure 1): every configurable register, visible to
// the host through an AXI4-Lite-like TLM target (`reg_socket`, 32-bit
// accesses) and to the NIC's blocks through the RegisterFile backdoor. The map
// is data (model/ornic/register_map.h). A bad access gets a TLM error response
// and is counted: misaligned or unmapped address -> TLM_ADDRESS_ERROR_RESPONSE,
// write to a read-only / read of a write-only register ->
// TLM_COMMAND_ERROR_RESPONSE, not 4 bytes -> TLM_BURST_ERROR_RESPONSE, byte
// enables -> TLM_BYTE_ENABLE_ERROR_RESPONSE. Each access takes
// reg.access_cycles NIC cycles (added to the b_transport delay).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <systemc>
#include <tlm>

#include "model/core/clock.h"
#include "model/core/signal.h"
#include "model/ornic/block_env.h"
#include "model/ornic/register_map.h"

namespace oonic::ornic {

class RegisterManager : public sc_core::sc_module {
 public:
  // May stay unbound: a replay has no host driver on the register bus.
  tlm_utils::simple_target_socket_optional<RegisterManager> reg_socket;

  RegisterManager(sc_core::sc_module_name name, const BlockEnv& env);
  RegisterFile& registers() { return regs_; }
  // Called after every successful write through reg_socket with the cycle it
  // takes effect (after reg.access_cycles): doorbells. Each call adds an observer.
  void on_write(std::function<void(Cycle, uint32_t addr, uint32_t value)> f) {
    on_write_.connect(std::move(f));
  }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  ClockDomain clk_;
  uint32_t access_cycles_;
  RegisterFile regs_;
  Signal<Cycle, uint32_t, uint32_t> on_write_;
  Cycle access_cycle_ = 0;
  Counter& reads_;
  Counter& writes_;
  Counter& errors_;
};

}  // namespace oonic::ornic
