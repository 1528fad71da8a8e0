// Host memory as a TLM-2.0 target: sparse, little-endian, b_transport with an
// access latency. Byte enables and streaming are not supported (error
// responses). The backdoor (memory()) is for testbenches and provisioning only;
// the NIC reaches host memory through PcieLink.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/params.h"
#include "model/core/stats.h"
#include "tlm/host_memory_params.h"
#include "tlm/sparse_memory.h"

namespace oonic {

class HostMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostMemory> target_socket;

  HostMemory(sc_core::sc_module_name name, const HostMemoryParams& p, Stats& stats);
  SparseMemory& memory() { return mem_; }

  // An address range served by code instead of stored bytes: a fabric's
  // sources (a pattern, computed when read) and destinations (checked as they
  // are written, not kept), so memory does not grow with the bytes moved.
  // A function returning false answers the access with an address error.
  class Backing {
   public:
    virtual ~Backing() = default;
    virtual bool read(uint64_t addr, uint8_t* dst, uint64_t len) = 0;
    virtual bool write(uint64_t addr, const uint8_t* src, uint64_t len) = 0;
  };
  // [base, base + len) is served by b (not owned); an access crossing the
  // range's edge is an address error.
  void back(uint64_t base, uint64_t len, Backing* b);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  struct Backed {
    uint64_t base, end;
    Backing* b;
  };
  HostMemoryParams p_;
  SparseMemory mem_;
  std::vector<Backed> backed_;
  Counter& reads_;
  Counter& writes_;
  Counter& read_bytes_;
  Counter& write_bytes_;
  Counter& errors_;
};

}  // namespace oonic
