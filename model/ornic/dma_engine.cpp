#include "model/ornic/dma_engine.h"

#include "model/core/report.h"

namespace oonic::ornic {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const BlockEnv& env)
    : sc_module(name),
      dma_initiator_socket("dma_initiator_socket"),
      p_(env.p),
      clk_(env.p.nic.clock_mhz),
      writes_(env.stats.counter(std::string(this->name()) + ".writes", "descriptor",
                                "payload writes to host memory")),
      write_bytes_(env.stats.counter(std::string(this->name()) + ".write_bytes", "byte",
                                     "payload bytes written to host memory")),
      reads_(env.stats.counter(std::string(this->name()) + ".reads", "descriptor",
                               "payload reads from host memory")),
      read_bytes_(env.stats.counter(std::string(this->name()) + ".read_bytes", "byte",
                                    "payload bytes read from host memory")),
      errors_(env.stats.counter(std::string(this->name()) + ".errors", "descriptor",
                                "DMA transactions answered with a TLM error response")) {
  std::string n = this->name();
  env.stats.derived(n + ".write_stall_cycles", "cycle",
                    "cycles writes waited for the write channel",
                    [this] { return static_cast<double>(wr_.stall_cycles()); });
  p_addr_.bind(env.vcd, n + ".addr", 64);
  p_len_.bind(env.vcd, n + ".len", 16);
}

Cycle DmaEngine::transport(Cycle t, tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                           uint32_t len) {
  gp_.set_command(cmd);
  gp_.set_address(addr);
  gp_.set_data_ptr(data);
  gp_.set_data_length(len);
  gp_.set_streaming_width(len);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_dmi_allowed(false);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = clk_.until(t);
  dma_initiator_socket->b_transport(gp_, delay);
  if (gp_.is_response_error()) {
    errors_.inc();
    report_warning(msg::kModel, std::string(name()) + ": DMA " +
                                    (cmd == tlm::TLM_WRITE_COMMAND ? "write" : "read") + " at 0x" +
                                    std::to_string(addr) + " failed: " + gp_.get_response_string());
  }
  uint64_t done_ps = ClockDomain::ps_of(sc_core::sc_time_stamp() + delay);
  return clk_.ceil_cycles(done_ps);
}

Cycle DmaEngine::write(Cycle t, uint64_t addr, const uint8_t* src, uint32_t len,
                       PktBuffer* buffer) {
  uint64_t b = beats(len, p_.nic.datapath_bytes);
  Cycle g = wr_.acquire(t, p_.dma.setup_cycles + b);
  Cycle start = g + p_.dma.setup_cycles;
  if (buffer) buffer->read_out(start, len);
  writes_.inc();
  write_bytes_.inc(len);
  if (p_addr_.on()) p_addr_.set(start, addr), p_len_.set(start, len);
  return transport(start, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(src), len);
}

Cycle DmaEngine::read(Cycle t, uint64_t addr, uint8_t* dst, uint32_t len) {
  Cycle g = rd_.acquire(t, p_.dma.setup_cycles + 1);
  reads_.inc();
  read_bytes_.inc(len);
  return transport(g + p_.dma.setup_cycles, tlm::TLM_READ_COMMAND, addr, dst, len);
}

}  // namespace oonic::ornic
