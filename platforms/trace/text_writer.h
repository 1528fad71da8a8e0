// Writing frames as an oonic text trace (traces/README.md "Trace tools"): each
// frame in field form (op= qp= psn= ... payload=...) when those fields, built
// by wire::build exactly as the text loader builds them, reproduce the frame
// byte for byte; otherwise raw=<hex>. Payloads are written as `zero` (len=),
// `pat:<addr>` when they are the address pattern, else `hex:`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace oonic::trace {

// The text trace's name of an opcode ("WRITE_FIRST", "ACK", ...), or nullptr.
const char* text_opcode_name(uint8_t opcode);

// "12.345" (ns with 3 decimals) for a time in ps.
std::string format_time_ps(uint64_t ps);

// Inverse of splitmix64 (trace.h): unsplitmix64(splitmix64(x)) == x.
uint64_t unsplitmix64(uint64_t z);

// If data[0, n) is the address pattern of addresses [addr, addr + n) for some
// addr, sets addr and returns true (n >= 8 needed: the address is recovered by
// inverting splitmix64 on one aligned word).
bool find_pattern_address(const uint8_t* data, size_t n, uint64_t& addr);

// Turns frames into text-trace lines. Keeps the @endpoints state: the first
// frame written in field form whose addresses differ from the loader's
// defaults sets them with an @endpoints line; later frames name only the
// addresses that differ (src= dst= smac= dmac=).
class TextFrameWriter {
 public:
  // Appends the line(s) of one frame to out. time_ps is written when has_time
  // (else '-'); comment (without '#') is appended as a trailing comment.
  void write(std::string& out, const uint8_t* frame, size_t len, bool has_time, uint64_t time_ps,
             const std::string& comment);
  // Only the fields of the frame ("op=... qp=..."), or "" if the frame cannot
  // be said in fields (then raw= is used). Updates no state.
  std::string fields(const uint8_t* frame, size_t len) const;

  uint64_t field_lines() const { return field_lines_; }
  uint64_t raw_lines() const { return raw_lines_; }

 private:
  struct Ep {
    uint8_t ip_version = 4;
    std::array<uint8_t, 16> src_ip{{10, 0, 0, 1}};
    std::array<uint8_t, 16> dst_ip{{10, 0, 0, 2}};
    std::array<uint8_t, 6> smac{{0x02, 0, 0, 0, 0, 0x01}};
    std::array<uint8_t, 6> dmac{{0x02, 0, 0, 0, 0, 0x02}};
  };
  std::string fields_with(const uint8_t* frame, size_t len, const Ep& ep, Ep* first) const;
  Ep ep_;
  bool ep_fixed_ = false;
  uint64_t field_lines_ = 0;
  uint64_t raw_lines_ = 0;
};

}  // namespace oonic::trace
