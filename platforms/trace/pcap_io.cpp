#include "platforms/trace/pcap_io.h"

#include <pcap/pcap.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "model/core/error.h"

namespace oonic::trace {

namespace {
constexpr size_t kWriteBuffer = 1 << 20;

std::FILE* open_out(const std::string& path, std::unique_ptr<char[]>& buf, const char* what) {
  std::FILE* fp = std::fopen(path.c_str(), "wb");
  if (!fp) throw Error(msg::kIo, path + ": cannot write " + what + ": " + std::strerror(errno));
  buf.reset(new char[kWriteBuffer]);
  std::setvbuf(fp, buf.get(), _IOFBF, kWriteBuffer);
  return fp;
}

// Flush and close; true when anything failed.
bool close_out(std::FILE*& fp) {
  bool bad = std::fflush(fp) != 0 || std::ferror(fp) != 0;
  bad = std::fclose(fp) != 0 || bad;
  fp = nullptr;
  return bad;
}
}  // namespace

// ------------------------------------------------------------------ reader ---

PcapReader::PcapReader(const std::string& path) {
  char errbuf[PCAP_ERRBUF_SIZE] = {0};
  // Our own stream with a 1 MB buffer: stdio's default (4 KB) costs a read
  // system call per frame of a 4 KB-packet capture. libpcap closes it.
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp)
    throw Error(msg::kTrace, path + ": cannot read capture: " + std::string(std::strerror(errno)));
  // glibc ignores the size unless given the buffer; it outlives the stream
  // (pcap_close in the destructor, before the members go).
  iobuf_ = std::make_unique<char[]>(kIoBuffer);
  std::setvbuf(fp, iobuf_.get(), _IOFBF, kIoBuffer);
  // Classic pcap: records follow the 24-byte header back to back, so where one
  // ends is counted, not asked of the stream (ftell is a system call).
  uint8_t magic[4] = {0, 0, 0, 0};
  ng_ = std::fread(magic, 1, 4, fp) == 4 && magic[0] == 0x0a && magic[1] == 0x0d &&
        magic[2] == 0x0d && magic[3] == 0x0a;
  std::rewind(fp);
  p_ = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!p_) {
    std::fclose(fp);
    throw Error(msg::kTrace, path + ": cannot read capture: " + errbuf);
  }
  const int dlt = pcap_datalink(p_);
  if (dlt != DLT_EN10MB) {
    const char* name = pcap_datalink_val_to_name(dlt);
    pcap_close(p_);
    p_ = nullptr;
    throw Error(msg::kTrace, path + ": link type " + std::to_string(dlt) +
                                 (name ? std::string(" (") + name + ")" : "") +
                                 " not supported (only Ethernet, LINKTYPE_ETHERNET = 1)");
  }
  const int snap = pcap_snapshot(p_);
  snapshot_ = snap > 0 ? static_cast<uint32_t>(snap) : 0;
}

PcapReader::~PcapReader() {
  if (p_) pcap_close(p_);
}

bool PcapReader::next(Record& r) {
  struct pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  const int rc = pcap_next_ex(p_, &h, &data);
  if (rc == -2) return false;  // end of file
  if (rc != 1) {
    error_ = pcap_geterr(p_);
    return false;
  }
  r.sec = static_cast<int64_t>(h->ts.tv_sec);
  r.nsec = static_cast<uint32_t>(h->ts.tv_usec);  // nanoseconds: opened with nano precision
  r.caplen = h->caplen;
  r.len = h->len;
  r.data = data;
  // Where the record ends in the file, so a reader can find its bytes again
  // (Trace keeps offsets, not bytes). libpcap reads a savefile through stdio.
  if (ng_) {
    std::FILE* f = pcap_file(p_);
    const long pos = f ? std::ftell(f) : -1;
    r.end_offset = pos >= 0 ? static_cast<int64_t>(pos) : -1;
  } else if (pos_ < 0) {
    r.end_offset = r.data_offset = -1;  // lost count: a reader copies the bytes
  } else {
    r.data_offset = pos_ + 16;
    if (h->caplen >= snapshot_) {
      // libpcap cuts a record longer than the snapshot length and skips the rest:
      // the file position is asked of the stream (rare: only such records).
      std::FILE* f = pcap_file(p_);
      const long pos = f ? std::ftell(f) : -1;
      pos_ = pos >= 0 ? static_cast<int64_t>(pos) : -1;
    } else {
      pos_ += 16 + int64_t{h->caplen};
    }
    r.end_offset = pos_;
  }
  return true;
}

// ------------------------------------------------------------------- pcap ---

PcapWriter::PcapWriter(const std::string& path) : path_(path) {
  fp_ = open_out(path, buf_, "pcap");
  dead_ = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, kSnaplen, PCAP_TSTAMP_PRECISION_NANO);
  d_ = dead_ ? pcap_dump_fopen(dead_, fp_) : nullptr;
  if (!d_) {
    std::fclose(fp_);
    fp_ = nullptr;
    if (dead_) pcap_close(dead_);
    dead_ = nullptr;
    throw Error(msg::kIo, path + ": cannot write pcap (libpcap)");
  }
}

PcapWriter::~PcapWriter() {
  if (d_) pcap_dump_close(d_);  // closes fp_
  if (dead_) pcap_close(dead_);
}

void PcapWriter::write_ns(uint64_t ns, const uint8_t* data, uint32_t caplen, uint32_t wire_len) {
  if (!d_) throw Error(msg::kIo, path_ + ": pcap writer is closed");
  struct pcap_pkthdr h {};
  h.ts.tv_sec = static_cast<time_t>(ns / 1000000000ull);
  h.ts.tv_usec = static_cast<suseconds_t>(ns % 1000000000ull);  // ns (nano-precision dump)
  h.caplen = std::min(caplen, kSnaplen);
  h.len = std::max(wire_len, caplen);
  pcap_dump(reinterpret_cast<u_char*>(d_), &h, data);
  if (std::ferror(fp_)) throw Error(msg::kIo, path_ + ": write error: " + std::strerror(errno));
  ++frames_;
}

void PcapWriter::write(uint64_t time_ps, const uint8_t* data, size_t len) {
  write_ns(time_ps / 1000, data, static_cast<uint32_t>(len), static_cast<uint32_t>(len));
}

void PcapWriter::close() {
  if (!d_) return;
  const bool bad = pcap_dump_flush(d_) != 0 || std::ferror(fp_) != 0;
  pcap_dump_close(d_);  // fcloses fp_
  d_ = nullptr;
  fp_ = nullptr;
  pcap_close(dead_);
  dead_ = nullptr;
  if (bad) throw Error(msg::kIo, path_ + ": write error");
}

// ----------------------------------------------------------------- pcapng ---

namespace {
void le32(uint8_t* p, uint32_t v) {
  std::memcpy(p, &v, 4);
}
void le16(uint8_t* p, uint16_t v) {
  std::memcpy(p, &v, 2);
}
}  // namespace

PcapNgWriter::PcapNgWriter(const std::string& path) : path_(path) {
  fp_ = open_out(path, buf_, "pcapng");
  uint8_t h[28 + 32] = {};
  // Section Header Block: byte-order magic, version 1.0, section length unknown (-1).
  le32(h + 0, 0x0A0D0D0A), le32(h + 4, 28), le32(h + 8, 0x1A2B3C4D);
  le16(h + 12, 1), le16(h + 14, 0), le32(h + 16, 0xffffffffu), le32(h + 20, 0xffffffffu);
  le32(h + 24, 28);
  // Interface Description Block: Ethernet, snaplen, if_tsresol = 9 (ns), opt_endofopt.
  uint8_t* i = h + 28;
  le32(i + 0, 1), le32(i + 4, 32), le16(i + 8, 1), le16(i + 10, 0);
  le32(i + 12, PcapWriter::kSnaplen);
  le16(i + 16, 9), le16(i + 18, 1), i[20] = 9;
  le32(i + 24, 0), le32(i + 28, 32);
  put(h, sizeof h);
}

PcapNgWriter::~PcapNgWriter() {
  if (fp_) std::fclose(fp_);
}

void PcapNgWriter::put(const void* p, size_t n) {
  if (n && std::fwrite(p, n, 1, fp_) != 1)
    throw Error(msg::kIo, path_ + ": write error: " + std::strerror(errno));
}

void PcapNgWriter::write_ns(uint64_t ns, const uint8_t* data, uint32_t caplen, uint32_t wire_len) {
  // Enhanced Packet Block on interface 0, the frame padded to 4 bytes.
  const uint32_t padded = (caplen + 3u) & ~3u, total = 32 + padded;
  uint8_t h[28];
  le32(h + 0, 6), le32(h + 4, total), le32(h + 8, 0);
  le32(h + 12, static_cast<uint32_t>(ns >> 32)), le32(h + 16, static_cast<uint32_t>(ns));
  le32(h + 20, caplen), le32(h + 24, std::max(wire_len, caplen));
  put(h, sizeof h);
  put(data, caplen);
  static const uint8_t kPad[4] = {0, 0, 0, 0};
  put(kPad, padded - caplen);
  put(&total, 4);
}

void PcapNgWriter::close() {
  if (fp_ && close_out(fp_)) throw Error(msg::kIo, path_ + ": write error");
}

}  // namespace oonic::trace
