// Network side: a packet crosses a TLM socket as a generic payload whose data
// is the frame's wire bytes (Ethernet without FCS, ICRC included) and whose
// sideband is this extension: ids for logs and its capture time.
#pragma once

#include <cstdint>
#include <tlm>

namespace oonic {

struct NetPacketMeta : tlm::tlm_extension<NetPacketMeta> {
  uint32_t record = 0;      // trace record number (1-based), 0 if none
  uint64_t capture_ps = 0;  // capture timestamp relative to the trace start
  tlm::tlm_extension_base* clone() const override { return new NetPacketMeta(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    *this = static_cast<const NetPacketMeta&>(e);
  }
};

}  // namespace oonic
