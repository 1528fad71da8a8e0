// Host memory's parameters (tlm/host_memory.h is the TLM target), apart so that the
// NIC's parameter struct stays plain C++.
#pragma once

#include "model/core/params.h"

namespace oonic {

struct HostMemoryParams {
  double access_latency_ns = 0;
  bool digest = false;
  void describe(ParamTable& t) {
    t.add("host.memory.digest", &digest,
          "long replays: a 2 MiB page the NIC has written completely, and nothing reads back, "
          "is kept as a 64-bit digest (CRC-64) instead of its bytes; the integrity check "
          "compares digests (a mismatch names the page, not the byte). oonic replay only");
    t.add("host.memory.access_latency_ns", &access_latency_ns, "ns",
          "latency host memory adds to each TLM access (PCIe read latency is modelled in pcie.*)",
          0, 1e6);
  }
};

}  // namespace oonic
