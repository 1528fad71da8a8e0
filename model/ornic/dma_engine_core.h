// ORNIC's DMA Engine, the core: moves request/response payload from the RX Pkt Buffers
// into host memory and fetches payload from it. One write channel and one read channel,
// each busy setup_cycles + one cycle per beat per descriptor (a read: setup + 1). The
// payload is read out of its Pkt Buffer beat by beat (the buffer words are free once
// read); the transfer itself goes through HostBus (the shell's dma_initiator_socket to
// the PCIe link), which says when it is done. This is the one copy of a payload: the
// write into host memory. Plain C++.
#pragma once

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"

namespace oonic::ornic {

// The bus behind the DMA Engine (the PCIe link): a transfer issued at cycle `start`
// returns the cycle it is done; false in *ok on an error response.
class HostBus {
 public:
  virtual ~HostBus() = default;
  virtual Cycle transfer(Cycle start, bool write, uint64_t addr, uint8_t* data, uint32_t len,
                         bool* ok) = 0;
  // Untimed write (debug transport): false on an error response.
  virtual bool poke(uint64_t addr, const uint8_t* data, uint32_t len) { return false; }
};

class DmaEngineCore final : public DmaPort {
 public:
  DmaEngineCore(const CoreEnv& env, HostBus& bus);
  Cycle write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len, PktBuffer* buffer) override;
  Cycle read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len) override;
  Cycle write_free_at() const override { return wr_.free_at(); }
  void poke(uint64_t addr, const uint8_t* src, uint32_t len) override;
  uint64_t errors() const { return errors_.value; }

 private:
  Cycle transfer(Cycle start, bool write, uint64_t addr, uint8_t* data, uint32_t len);
  const OrnicParams& p_;
  HostBus& bus_;
  Resource wr_, rd_;
  Counter& writes_;
  Counter& write_bytes_;
  Counter& reads_;
  Counter& read_bytes_;
  Counter& errors_;
  Probe p_addr_, p_len_;
};

}  // namespace oonic::ornic
