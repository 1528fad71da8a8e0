// The ECN bits of an Ethernet frame's IP header (optional 802.1Q tag), rewritten in
// place: the switch's CE mark, THEMIS's clearing back to ECT(0). The IPv4 header
// checksum is rewritten; the RoCEv2 ICRC masks the ECN bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace oonic::network {

// False when the frame has no IP header.
inline bool set_frame_ecn(uint8_t* f, size_t len, uint8_t ecn) {
  size_t l3 = 14;
  if (len < 14) return false;
  uint16_t type = uint16_t(f[12] << 8 | f[13]);
  if (type == 0x8100 && len >= 18) type = uint16_t(f[16] << 8 | f[17]), l3 = 18;
  if (type == 0x0800 && len >= l3 + 20) {
    f[l3 + 1] = static_cast<uint8_t>((f[l3 + 1] & 0xFC) | ecn);
    f[l3 + 10] = f[l3 + 11] = 0;
    uint32_t sum = 0;
    const size_t ihl = size_t{f[l3] & 0x0Fu} * 4;
    for (size_t i = 0; i + 1 < ihl && l3 + i + 1 < len; i += 2)
      sum += uint32_t(f[l3 + i] << 8 | f[l3 + i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    const uint16_t c = static_cast<uint16_t>(~sum);
    f[l3 + 10] = static_cast<uint8_t>(c >> 8), f[l3 + 11] = static_cast<uint8_t>(c);
    return true;
  }
  if (type == 0x86DD && len >= l3 + 40) {  // traffic class: bits 4..11 of the first word
    f[l3 + 1] = static_cast<uint8_t>((f[l3 + 1] & 0xCF) | ecn << 4);
    return true;
  }
  return false;
}

}  // namespace oonic::network
