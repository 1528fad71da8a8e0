#include "model/wire/pfc.h"

#include <cstring>

namespace oonic::wire {

void build_pfc(const Pfc& p, const std::array<uint8_t, 6>& src, uint8_t* out) {
  static constexpr uint8_t kDst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
  std::memset(out, 0, kPfcFrameBytes);
  std::memcpy(out, kDst, 6);
  std::memcpy(out + 6, src.data(), 6);
  out[12] = kMacControlEtherType >> 8, out[13] = kMacControlEtherType & 0xFF;
  out[14] = kPfcOpcode >> 8, out[15] = kPfcOpcode & 0xFF;
  out[16] = 0, out[17] = p.enable;
  for (size_t c = 0; c < 8; ++c) {
    out[18 + 2 * c] = static_cast<uint8_t>(p.quanta[c] >> 8);
    out[19 + 2 * c] = static_cast<uint8_t>(p.quanta[c]);
  }
}

bool parse_pfc(const uint8_t* f, size_t len, Pfc& p) {
  if (len < 34) return false;
  if ((f[12] << 8 | f[13]) != kMacControlEtherType || (f[14] << 8 | f[15]) != kPfcOpcode)
    return false;
  p.enable = f[17];
  for (size_t c = 0; c < 8; ++c)
    p.quanta[c] = static_cast<uint16_t>(f[18 + 2 * c] << 8 | f[19 + 2 * c]);
  return true;
}

}  // namespace oonic::wire
