// Network side: a packet crosses a TLM socket as a generic payload whose data
// is the frame's wire bytes (Ethernet without FCS, ICRC included) and whose
// sideband is this extension: ids for logs and its capture time.
#pragma once

#include <array>
#include <cstdint>
#include <tlm>
#include <vector>

namespace oonic {

struct NetPacketMeta : tlm::tlm_extension<NetPacketMeta> {
  uint32_t record = 0;      // trace record number (1-based), 0 if none
  uint64_t capture_ps = 0;  // capture timestamp relative to the trace start
  tlm::tlm_extension_base* clone() const override { return new NetPacketMeta(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    *this = static_cast<const NetPacketMeta&>(e);
  }
};

// What the switches of a fabric read of a frame, parsed once where its bytes are
// warm (a host's uplink as the NIC sends it, a switch that writes into it) and carried
// hop to hop beside the bytes (FrameDonation), so a switch routes, queues and marks
// without touching them (platforms/network/frame_desc.h makes one).
struct FrameDesc {
  bool valid = false;      // describes the bytes as they are now
  uint8_t ip_version = 0;  // 4, 6; 0: not IP
  bool roce = false;       // a RoCEv2 frame (BTH parsed)
  bool pfc = false;        // a MAC control frame (EtherType 0x8808)
  uint8_t opcode = 0;      // the BTH opcode (roce)
  uint8_t tos = 0;         // IPv4 TOS / IPv6 traffic class (ECN: the low two bits)
  uint16_t sport = 0, dport = 0;
  uint64_t src_key = 0, dst_key = 0;  // the addresses as flow-key values (frame_keys.h)
  std::array<uint8_t, 16> dst_ip{};   // the destination address (4 or 16 bytes)
  // The destination host as the first switch's address map found it (switches that
  // share that map take it without a lookup): dst_map, its identity; null: not yet.
  const void* dst_map = nullptr;
  uint32_t dst_host = 0;
};

// A sender that gives the frame away: the receiver may take `buf` (whose data is
// the payload's data pointer) by swapping it with a buffer of its own instead of
// copying the bytes; the sender drops whatever it gets back. A receiver that
// ignores it copies, as the TLM rules ask.
struct FrameDonation : tlm::tlm_extension<FrameDonation> {
  std::vector<uint8_t>* buf = nullptr;
  const FrameDesc* desc = nullptr;  // the frame described (valid), or null
  tlm::tlm_extension_base* clone() const override { return new FrameDonation(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    *this = static_cast<const FrameDonation&>(e);
  }
  // The donated buffer if it is the payload's data, else null.
  static std::vector<uint8_t>* of(tlm::tlm_generic_payload& gp) {
    auto* d = gp.get_extension<FrameDonation>();
    if (!d || !d->buf || d->buf->data() != gp.get_data_ptr() ||
        d->buf->size() != gp.get_data_length())
      return nullptr;
    return d->buf;
  }
};

}  // namespace oonic
