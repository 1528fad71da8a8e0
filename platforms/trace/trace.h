// Trace input/output for the replay: pcap / pcapng (libpcap) and oonic's text
// trace (one packet a line, traces/README.md); and a buffered classic-pcap
// writer (nanosecond timestamps) for the frames the NIC sends (tx.pcap).
//
// A capture's frames stay in the file: loading keeps each record's time,
// lengths and the file offset of its bytes (40 B a record), and frame() finds
// them there when the replay needs them, so memory does not hold the capture.
// The file is mapped (read back without a copy; a Cursor lets go of the pages
// behind it, so the pages resident stay a few MB whatever the capture's size);
// where it cannot be mapped, frames are read back through libpcap or pread.
// A text trace's frames are built once, into one contiguous arena.
//
// Errors (missing file, unsupported link type, bad text line) throw
// oonic::Error (msg::kTrace / msg::kIo) naming the file (and line and field for
// text traces). A damaged pcap tail is not an error: the records read so far
// are kept and an Issue says why reading stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "model/core/rng.h"
#include "platforms/trace/pcap_io.h"

namespace oonic::trace {

enum class Format { kPcap, kPcapNg, kText };
const char* to_string(Format f);  // "pcap", "pcapng", "text"

struct Record {
  // pcap/pcapng: capture time relative to the first record (records before
  // the first one in time get 0; times need not be monotonic).
  // text: the time column as written (ns since the start of the replay).
  uint64_t time_ps = 0;
  bool has_time = false;  // false for a text line whose time is '-'
  uint64_t offset = 0;    // of the frame: in the capture file, or in the arena
  uint32_t len = 0;       // captured bytes in the arena
  uint32_t orig_len = 0;  // bytes on the wire (> len: cut by the snaplen)
  uint32_t index = 0;     // 1-based record number in the file
  uint32_t line = 0;      // text: source line; pcap: 0
};

struct Issue {
  uint32_t index;  // record number the issue is about (1-based)
  uint32_t line;   // text line, or 0
  std::string reason;
};

class Trace {
 public:
  // Detects the format by magic number (pcap: a1b2c3d4 / a1b23c4d in either
  // byte order; pcapng: 0a0d0d0a), anything else is a text trace.
  static Trace load(const std::string& path);

  Format format = Format::kText;
  std::string path;
  std::vector<Record> records;
  std::vector<Issue> issues;

  // The bytes of r's frame (r.len of them): in the arena, or read from the
  // capture into buf (valid until buf changes). Throws Error(kTrace) if the
  // capture can no longer be read there.
  const uint8_t* frame(const Record& r, std::vector<uint8_t>& buf) const;
  size_t bytes() const { return arena_.size(); }  // frame bytes held in memory

  // Frames in record order, each read once: a capture is streamed through
  // libpcap (no system call per frame), a text trace's are in the arena. Ask
  // for records in increasing order; the ones between are skipped. Out of
  // order, it reads the one frame back (Trace::frame).
  class Cursor {
   public:
    explicit Cursor(const Trace& t);
    ~Cursor();
    const uint8_t* frame(const Record& r);  // r.len bytes, valid until the next call

   private:
    const Trace* t_;
    std::unique_ptr<PcapReader> in_;
    uint32_t at_ = 0;  // index of the record the reader returned last
    std::vector<uint8_t> buf_;
    uint64_t kept_from_ = 0;  // mapped: the first file byte whose pages may be resident
  };
  bool in_file() const { return file_ != nullptr; }  // frames read back from the capture
  bool mapped() const { return map_ != nullptr; }    // ... through a mapping of it

 private:
  void load_pcap();
  void load_text();
  std::vector<uint8_t> arena_;
  std::shared_ptr<const int> file_;  // the capture's descriptor (closed with the last copy)
  std::shared_ptr<uint8_t> map_;     // the capture mapped (unmapped with the last copy)
  uint64_t map_len_ = 0;
};

// The deterministic payload pattern of `payload=pat:<addr>` (traces/README.md):
// the byte at address a is (splitmix64(a >> 3) >> (8 * (a & 7))) & 0xff, i.e.
// the aligned 8-byte word at address 8k holds splitmix64(k) little-endian.
// splitmix64(x) is the first output of the standard SplitMix64 generator
// seeded with x: z = x + 0x9e3779b97f4a7c15; z = (z ^ (z >> 30)) *
// 0xbf58476d1ce4e5b9; z = (z ^ (z >> 27)) * 0x94d049bb133111eb; z ^ (z >> 31).
using oonic::pattern_byte;  // model/core/rng.h
using oonic::splitmix64;
// Writes the pattern bytes of addresses [addr, addr + n) to out.
void fill_pattern(uint64_t addr, uint8_t* out, size_t n);
// Index of the first byte of [data, data + n) that is not the pattern of
// address addr + i, or n if all match (for host-memory checks).
size_t check_pattern(uint64_t addr, const uint8_t* data, size_t n);

// Classic pcap writer: nanosecond magic 0xa1b23c4d (host byte order),
// LINKTYPE_ETHERNET, snaplen 262144, buffered. Frames longer than the snaplen
// are cut (orig_len keeps the length).
// PcapWriter: platforms/trace/pcap_io.h.

}  // namespace oonic::trace
