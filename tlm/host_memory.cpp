#include "tlm/host_memory.h"

namespace oonic {

HostMemory::HostMemory(sc_core::sc_module_name name, const HostMemoryParams& p, Stats& stats)
    : sc_module(name),
      target_socket("target_socket"),
      p_(p),
      reads_(stats.counter(std::string(this->name()) + ".reads", "transaction", "TLM reads")),
      writes_(stats.counter(std::string(this->name()) + ".writes", "transaction", "TLM writes")),
      read_bytes_(stats.counter(std::string(this->name()) + ".read_bytes", "byte", "bytes read")),
      write_bytes_(
          stats.counter(std::string(this->name()) + ".write_bytes", "byte", "bytes written")),
      errors_(stats.counter(std::string(this->name()) + ".error_responses", "transaction",
                            "transactions answered with a TLM error response")) {
  if (p.digest) mem_.enable_digest();
  target_socket.register_b_transport(this, &HostMemory::b_transport);
  target_socket.register_transport_dbg(this, &HostMemory::transport_dbg);
}

void HostMemory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.get_byte_enable_ptr()) {
    errors_.inc();
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (gp.get_streaming_width() < gp.get_data_length()) {
    errors_.inc();
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  transport_dbg(gp);
  if (!gp.is_response_ok()) return;
  if (gp.is_read())
    reads_.inc(), read_bytes_.inc(gp.get_data_length());
  else if (gp.is_write())
    writes_.inc(), write_bytes_.inc(gp.get_data_length());
  delay += sc_core::sc_time(p_.access_latency_ns, sc_core::SC_NS);
}

void HostMemory::back(uint64_t base, uint64_t len, Backing* b) {
  backed_.push_back({base, base + len, b});
}

unsigned int HostMemory::transport_dbg(tlm::tlm_generic_payload& gp) {
  uint64_t a = gp.get_address();
  unsigned len = gp.get_data_length();
  for (const Backed& r : backed_) {
    if (a + len <= r.base || a >= r.end) continue;
    bool ok = a >= r.base && a + len <= r.end &&
              (gp.is_read()    ? r.b->read(a, gp.get_data_ptr(), len)
               : gp.is_write() ? r.b->write(a, gp.get_data_ptr(), len)
                               : true);
    if (!ok) {
      errors_.inc();
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return 0;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return len;
  }
  if (gp.is_read())
    mem_.read(a, gp.get_data_ptr(), len);
  else if (gp.is_write())
    mem_.write(a, gp.get_data_ptr(), len);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

}  // namespace oonic
