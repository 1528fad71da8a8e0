// Host memory's parameters (tlm/host_memory.h is the TLM target), apart so that the
// NIC's parameter struct stays plain C++.
#pragma once

#include "model/core/params.h"

namespace oonic {

struct HostMemoryParams {
  double access_latency_ns = 0;
  void describe(ParamTable& t) {
    t.add("host.memory.access_latency_ns", &access_latency_ns, "ns",
          "latency host memory adds to each TLM access (PCIe read latency is modelled in pcie.*)",
          0, 1e6);
  }
};

}  // namespace oonic
