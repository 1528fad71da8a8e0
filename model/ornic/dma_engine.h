// ORNIC's DMA Engine: moves request/response payload from the RX Pkt Buffers
// into host memory and fetches READ-response payload from it, through the
// `dma_initiator_socket` (to PcieLink). One write channel and one read channel,
// each busy setup_cycles + one cycle per beat per descriptor. The payload is
// read out of its Pkt Buffer beat by beat (the buffer words are free once read)
// and the PCIe link paces the rest. This is the one copy of a payload: the TLM
// write into host memory.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "model/core/clock.h"
#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/rx/pkt_buffer.h"

namespace oonic::ornic {

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> dma_initiator_socket;

  DmaEngine(sc_core::sc_module_name name, const BlockEnv& env);

  // Write `len` bytes from `src` (held in `buffer`) to host address `addr`,
  // starting at cycle t. Returns the cycle the last TLP has left the NIC.
  Cycle write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len, PktBuffer* buffer);
  // Read `len` bytes at `addr` into dst, starting at cycle t. Returns the cycle
  // the last completion has arrived.
  Cycle read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len);

 private:
  Cycle transport(Cycle t, tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len);
  OrnicParams p_;
  ClockDomain clk_;
  Resource wr_, rd_;
  tlm::tlm_generic_payload gp_;
  Counter& writes_;
  Counter& write_bytes_;
  Counter& reads_;
  Counter& read_bytes_;
  Counter& errors_;
  Probe p_addr_, p_len_;
};

}  // namespace oonic::ornic
