// Capture files, the one reader and the writers of oonic: pcap and pcapng are read through
// libpcap (pcap_open_offline, nanosecond timestamps); pcap is written through libpcap
// (pcap_dump, nanosecond magic 0xa1b23c4d, LINKTYPE_ETHERNET, snaplen 262144); pcapng,
// which libpcap cannot write, by PcapNgWriter (SHB, one Ethernet IDB with if_tsresol
// 10^-9, EPBs). Errors are oonic::Error naming the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

struct pcap;
struct pcap_dumper;

namespace oonic::trace {

// Capture times in ns since the epoch times 1000 overflow 64 bits on damaged headers.
__extension__ using i128 = __int128;

class PcapReader {
 public:
  // Opens path (pcap or pcapng); throws Error(kTrace) "path: cannot read capture: ..."
  // or "path: link type N (...) not supported" for anything but Ethernet.
  explicit PcapReader(const std::string& path);
  ~PcapReader();
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;

  struct Record {
    int64_t sec = 0;                // capture time: seconds since the epoch
    uint32_t nsec = 0;              // and nanoseconds
    uint32_t caplen = 0;            // bytes captured (at data)
    uint32_t len = 0;               // bytes on the wire
    const uint8_t* data = nullptr;  // valid until the next call
    int64_t end_offset = -1;        // file position just past the record (-1: unknown;
                                    // classic pcap: counted, so a reader checks it)
    int64_t data_offset = -1;       // classic pcap: where the record's bytes start in the
                                    // file (-1: unknown; pcapng: not set)
  };
  // The next record: true; false at the end or when reading stopped (error() says why:
  // empty at a clean end).
  bool next(Record& r);
  const std::string& error() const { return error_; }

 private:
  pcap* p_ = nullptr;
  std::string error_;
  static constexpr size_t kIoBuffer = 1 << 20;
  std::unique_ptr<char[]> iobuf_;  // the stream's buffer
  bool ng_ = false;                // pcapng (else classic pcap)
  int64_t pos_ = 24;               // classic: file offset past the last record read
  uint32_t snapshot_ = 0;          // the file's snapshot length (libpcap cuts records to it)
};

class PcapWriter {
 public:
  static constexpr uint32_t kSnaplen = 262144;
  explicit PcapWriter(const std::string& path);  // throws Error(kIo) naming path
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;
  ~PcapWriter();  // flushes and closes (errors ignored; call close() to see them)

  // A frame at time_ps (from 0); longer than the snaplen: cut, its length kept.
  void write(uint64_t time_ps, const uint8_t* data, size_t len);
  // A frame at an absolute time (ns since the epoch) with its captured and wire lengths.
  void write_ns(uint64_t ns, const uint8_t* data, uint32_t caplen, uint32_t wire_len);
  void close();  // throws on I/O error
  uint64_t frames() const { return frames_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* fp_ = nullptr;
  pcap* dead_ = nullptr;
  pcap_dumper* d_ = nullptr;
  std::unique_ptr<char[]> buf_;
  uint64_t frames_ = 0;
};

class PcapNgWriter {
 public:
  explicit PcapNgWriter(const std::string& path);  // throws Error(kIo) naming path
  PcapNgWriter(const PcapNgWriter&) = delete;
  PcapNgWriter& operator=(const PcapNgWriter&) = delete;
  ~PcapNgWriter();
  void write_ns(uint64_t ns, const uint8_t* data, uint32_t caplen, uint32_t wire_len);
  void close();

 private:
  void put(const void* p, size_t n);
  std::string path_;
  std::FILE* fp_ = nullptr;
  std::unique_ptr<char[]> buf_;
};

}  // namespace oonic::trace
