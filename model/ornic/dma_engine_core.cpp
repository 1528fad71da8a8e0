#include "model/ornic/dma_engine_core.h"

#include "model/core/cycles.h"
#include "model/ornic/rx/pkt_buffer.h"

namespace oonic::ornic {

DmaEngineCore::DmaEngineCore(const CoreEnv& env, HostBus& bus)
    : p_(env.p),
      bus_(bus),
      writes_(env.stats.counter("writes", "descriptor", "payload writes to host memory")),
      write_bytes_(
          env.stats.counter("write_bytes", "byte", "payload bytes written to host memory")),
      reads_(env.stats.counter("reads", "descriptor", "payload reads from host memory")),
      read_bytes_(env.stats.counter("read_bytes", "byte", "payload bytes read from host memory")),
      errors_(env.stats.counter("errors", "descriptor",
                                "DMA transactions answered with a TLM error response")) {
  env.stats.derived("write_stall_cycles", "cycle", "cycles writes waited for the write channel",
                    [this] { return static_cast<double>(wr_.stall_cycles()); });
  env.probe(p_addr_, "addr", 64);
  env.probe(p_len_, "len", 16);
}

Cycle DmaEngineCore::transfer(Cycle start, bool write, uint64_t addr, uint8_t* data, uint32_t len) {
  bool ok = true;
  const Cycle done = bus_.transfer(start, write, addr, data, len, &ok);
  if (!ok) errors_.inc();
  return done;
}

Cycle DmaEngineCore::write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len,
                           PktBuffer* buffer) {
  uint64_t b = beats(len, p_.nic.datapath_bytes);
  Cycle g = wr_.acquire(t, p_.dma.setup_cycles + b);
  Cycle start = g + p_.dma.setup_cycles;
  if (buffer) buffer->read_out(start, len);
  writes_.inc();
  write_bytes_.inc(len);
  if (p_addr_.on()) p_addr_.set(start, addr), p_len_.set(start, len);
  return transfer(start, true, addr, const_cast<uint8_t*>(src), len);
}

void DmaEngineCore::poke(uint64_t addr, const uint8_t* src, uint32_t len) {
  if (!bus_.poke(addr, src, len)) errors_.inc();
}

Cycle DmaEngineCore::read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len) {
  Cycle g = rd_.acquire(t, p_.dma.setup_cycles + 1);
  reads_.inc();
  read_bytes_.inc(len);
  return transfer(g + p_.dma.setup_cycles, false, addr, dst, len);
}

}  // namespace oonic::ornic
