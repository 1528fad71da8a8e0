// ORNIC's DMA Engine block (shell): the `dma_initiator_socket` to the PCIe link and host
// memory. The channels and their timing are in dma_engine_core.h; the shell carries each
// transfer over TLM-2.0 (b_transport, the issue cycle as the annotated delay) and turns
// the returned delay back into a cycle. An error response is counted and reported.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "model/core/clock.h"
#include "model/ornic/block_env.h"
#include "model/ornic/dma_engine_core.h"

namespace oonic::ornic {

class DmaEngine : public sc_core::sc_module, private HostBus {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> dma_initiator_socket;

  DmaEngine(sc_core::sc_module_name name, const BlockEnv& env);
  DmaEngineCore core;

 private:
  Cycle transfer(Cycle start, bool write, uint64_t addr, uint8_t* data, uint32_t len,
                 bool* ok) override;
  bool poke(uint64_t addr, const uint8_t* data, uint32_t len) override;
  ClockDomain clk_;
  tlm::tlm_generic_payload gp_;
};

}  // namespace oonic::ornic
