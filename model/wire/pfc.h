// IEEE 802.1Qbb priority flow control (PFC) frames: a MAC Control frame
// (EtherType 0x8808, opcode 0x0101) to 01:80:C2:00:00:01 carrying a
// class-enable vector and one pause time (in quanta of 512 bit times at the
// link's rate) per priority 0..7; quanta 0 resumes the priority (XON). The
// frame is 60 bytes without FCS (padded), so it holds a link for
// wire_bytes(60) = 84 bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace oonic::wire {

inline constexpr uint16_t kMacControlEtherType = 0x8808;
inline constexpr uint16_t kPfcOpcode = 0x0101;
inline constexpr size_t kPfcFrameBytes = 60;  // without FCS

struct Pfc {
  uint8_t enable = 0;                // bit c: quanta[c] applies
  std::array<uint16_t, 8> quanta{};  // pause time per priority
};

// Writes a PFC frame (kPfcFrameBytes) from `src` into out.
void build_pfc(const Pfc& p, const std::array<uint8_t, 6>& src, uint8_t* out);
// A MAC Control frame with the PFC opcode: fills p and returns true. Any other
// frame (or a short one) returns false and leaves p alone.
bool parse_pfc(const uint8_t* f, size_t len, Pfc& p);

}  // namespace oonic::wire
