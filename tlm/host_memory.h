// Host memory as a TLM-2.0 target: sparse, little-endian, b_transport with an
// access latency. Byte enables and streaming are not supported (error
// responses). The backdoor (memory()) is for testbenches and provisioning only;
// the NIC reaches host memory through PcieLink.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <string>
#include <systemc>
#include <tlm>

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

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  HostMemoryParams p_;
  SparseMemory mem_;
  Counter& reads_;
  Counter& writes_;
  Counter& read_bytes_;
  Counter& write_bytes_;
  Counter& errors_;
};

}  // namespace oonic
