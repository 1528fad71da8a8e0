// `oonic trace SUBCOMMAND`: tools around traces (traces/README.md "Trace tools").
//
//   convert IN OUT    pcap / pcapng / text, by OUT's extension (.txt, .pcap, .pcapng)
//   synth --out F     synthetic in-order traces (WRITE, READ, SEND) + sidecar
//   perturb IN OUT    in-order trace -> arrival order: windowed shuffle (as
//                     scripts/gen-trace) or multipath delays, drops with
//                     retransmissions, duplicates
//   stats IN          packets, QPs, opcodes, PSN range, out-of-order degree
//                     (MP-RDMA), duplicates, gaps
//
// The functions below are the library behind the subcommands (the unit tests
// call them directly). Problems with inputs throw oonic::Error(msg::kTrace)
// naming the file and record / line; bad command lines throw
// oonic::Error(msg::kCli).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platforms/trace/sidecar.h"
#include "platforms/trace/trace.h"

namespace CLI {
class App;
}
namespace oonic::cli {
struct Context;
}

namespace oonic::trace {

// Adds `oonic trace` and its commands under `oonic` (platforms/cli/cli.h).
void add_command(CLI::App& oonic, cli::Context& ctx);

// ------------------------------------------------------------------ frames ---

enum class Mark : uint8_t { kNone, kRetransmission, kDuplicate };

struct Frame {
  int64_t time_ps = 0;  // relative to Frames::origin_ns (pcap: the first record is 0)
  bool has_time = true;
  uint64_t offset = 0;    // in the frame bytes of the Frames
  uint32_t len = 0;       // captured bytes
  uint32_t wire_len = 0;  // bytes on the wire (> len: cut by a snaplen)
  uint32_t source = 0;    // 1-based record of the input this frame comes from
  uint32_t line = 0;      // text input: the line
  Mark mark = Mark::kNone;
};

// A trace in memory with absolute times kept: what the tools read and write.
struct Frames {
  std::string path;
  Format format = Format::kText;
  bool has_origin = false;  // origin_ns is known (captures; text with "# time-origin:")
  int64_t origin_ns = 0;    // capture time (ns since the epoch) of time 0
  std::vector<Frame> frames;
  std::vector<std::string> issues;    // e.g. a damaged pcap tail (reading stopped)
  std::shared_ptr<const void> owner;  // keeps the bytes alive (shared by derived Frames)
  const uint8_t* base = nullptr;

  const uint8_t* data(const Frame& f) const { return base + f.offset; }
  // A new Frames over the same bytes (no frames).
  Frames derived() const;
  // Appends frame bytes to an owned buffer (only for Frames made by own()).
  static Frames own(std::vector<uint8_t> bytes);
};

// Reads a pcap / pcapng capture (libpcap, ns precision, absolute times kept;
// times before the first record are negative) or a text trace (Trace::load;
// the annotations this tool writes in comments are read back: the
// "# time-origin: SEC.NSEC" header line and per-line "wire_len=N" and
// "time=NS" trailing-comment tokens).
Frames read_frames(const std::string& path);

enum class OutFormat { kText, kPcap, kPcapNg };
// By extension: .txt -> text, .pcap -> pcap, .pcapng -> pcapng; else throws.
OutFormat out_format_for(const std::string& path);

// Writes frames in the given format. header: comment lines for text output
// (without '#'). Text: field form where the fields rebuild the frame, else
// raw=; times that would go backwards (or before 0) are written as the previous
// time with the true time in a "time=" comment token. pcap / pcapng: times are
// origin_ns + time_ps; untimed frames are placed back to back at 100 Gb/s
// after the previous frame.
struct WriteSummary {
  uint64_t frames = 0, field_lines = 0, raw_lines = 0;
};
WriteSummary write_frames(const std::string& path, OutFormat fmt, const Frames& fr,
                          const std::vector<std::string>& header = {});

// ------------------------------------------------------- Python's random ---

// The generator and the windowed shuffle are oonic::PyRandom (platforms/common/py_random.h)
// and oonic::arrival::windowed_shuffle (platforms/common/arrival_order.h).

// ---------------------------------------------------- stream classification ---

// The data packets to the device under test, grouped into streams: one per
// (DUT QPN, requests | READ responses), each its own PSN space.
struct Stream {
  uint32_t qpn = 0;
  bool responses = false;         // READ responses to the DUT (it is the requester)
  std::vector<uint32_t> records;  // indexes into Frames::frames, in file order
  std::vector<uint32_t> psns;     // PSN of each record
  std::vector<uint8_t> last;      // 1: last packet of a message (Last / Only)
  std::vector<uint32_t> span;     // PSNs the packet takes: 1, a READ request its responses'
  uint32_t start_psn = 0;
  bool start_from_sidecar = false;
  uint32_t pmtu = 4096;  // sidecar, else the largest First / Middle payload, else 4096
};
struct Classified {
  std::string dut;                 // "ip 10.0.0.2, mac ..." or "(none)"
  std::string dut_how;             // how it was chosen
  std::vector<int32_t> stream_of;  // per frame: stream index or -1
  std::vector<Stream> streams;     // in order of first packet
  uint64_t roce = 0, bad_icrc = 0, to_dut = 0, from_dut = 0;
};
// A data packet: a valid RC frame (ICRC checked) to the DUT that is a request
// (WRITE / SEND data, READ request, OOO WRITE / READ request) or a READ
// response. A READ request takes the PSNs of its responses: ceil(DMA length /
// PMTU), at least 1. dut: "" (sidecar dut, else the endpoint receiving the most RC
// requests), "ip=ADDR", "mac=XX:..", or a bare IP / MAC.
Classified classify(const Frames& fr, const std::optional<Sidecar>& sc, const std::string& dut);

// ------------------------------------------------------------------- stats ---

struct Dist {
  uint64_t n = 0;
  uint64_t max = 0;
  double mean = 0;
  uint64_t p999 = 0;  // nearest rank: the ceil(0.999 n)-th smallest
};
struct StreamStats {
  uint32_t qpn = 0;
  bool responses = false;
  uint64_t packets = 0, distinct = 0, duplicates = 0, gaps = 0;
  uint32_t start_psn = 0, psn_min = 0, psn_max = 0;
  bool start_from_sidecar = false;
  std::vector<std::pair<uint32_t, uint32_t>> gap_ranges;  // [first, last] PSNs (up to 64)
  Dist ood, lateness;
};
struct TraceStats {
  std::string path, format, dut, dut_how;
  uint64_t frames = 0, roce = 0, non_roce = 0, bad_icrc = 0, to_dut = 0, from_dut = 0;
  uint64_t data_packets = 0, duplicates = 0, gaps = 0, retransmission_marks = 0;
  uint64_t eunomia_meta = 0;  // valid RC frames carrying Eunomia's metadata extension
  std::vector<std::pair<std::string, uint64_t>> opcodes;  // name -> count (table order)
  std::vector<StreamStats> streams;
  Dist ood, lateness;
  bool timed = false;
  int64_t first_ps = 0, last_ps = 0;
};
// Out-of-order degree (MP-RDMA, docs/DESIGN.md M6): for each data packet of a
// stream, OOD = max(0, PSN - rcv_nxt), rcv_nxt being the lowest PSN of the
// stream not received before this packet (from the stream's start PSN: the
// sidecar's start_psn, else the lowest PSN in the trace). Lateness = max(0,
// highest PSN received before - PSN).
TraceStats compute_stats(const Frames& fr, const std::optional<Sidecar>& sc,
                         const std::string& dut = "");
std::string stats_json(const TraceStats& s);  // pretty JSON
std::string stats_text(const TraceStats& s);  // human summary

// ----------------------------------------------------------------- perturb ---

struct PerturbOptions {
  uint32_t ooo_distance = 0;   // windowed shuffle D
  uint32_t aligned_group = 0;  // > 0: aligned groups of this many packets instead
  // Shuffle unit (as scripts/gen-trace): kAuto = a message (up to its Last /
  // Only packet) in a stream that carries ORNIC OOO WRITEs (one OOO WQE is
  // outstanding at a time), else the whole stream.
  enum class Unit { kAuto, kStream, kMessage } unit = Unit::kAuto;
  uint32_t multipath = 0;  // K paths (0: windowed shuffle)
  std::vector<uint64_t> path_delays_ps;
  enum class Spray { kRoundRobin, kRandom, kHash } spray = Spray::kRoundRobin;
  double drop_rate = 0;
  std::vector<uint32_t> drop_psns;
  double duplicate_rate = 0;
  std::optional<uint32_t> retx_after;  // default D + 1
  bool no_retx = false;
  uint64_t seed = 1;
  double gbps = 100;  // line rate that times untimed frames (multipath)
  std::string dut;
};
struct PerturbResult {
  Frames out;
  uint64_t data_packets = 0, streams = 0, dropped = 0, retransmitted = 0, duplicated = 0;
  std::vector<std::pair<uint32_t, uint32_t>> dropped_psns;     // (stream, PSN) in drop order
  std::vector<std::pair<uint32_t, uint32_t>> duplicated_psns;  // (stream, PSN)
};
PerturbResult perturb(const Frames& in, const PerturbOptions& o,
                      const std::optional<Sidecar>& sc = std::nullopt);

// ------------------------------------------------------------------- synth ---

struct SynthOptions {
  std::string out;
  uint32_t qps = 1;
  uint32_t qpn_base = 0x11;
  uint32_t wqes = 1;
  uint64_t wqe_bytes = 64 * 1024;
  uint32_t pmtu = 4096;
  uint32_t mix_write = 100, mix_read = 0, mix_send = 0;
  bool ooo = true;
  uint32_t fspot_count = 8;
  bool read_requester = false;  // READs issued by the DUT (responses to it) instead of to it
  uint64_t seed = 1;
  bool line_rate = true;
  double gbps = 100;
  uint32_t start_psn = 0;
  uint64_t va_base = 0x10000;
  uint32_t rkey = 0x1234;
  bool payload_pattern = true;
  // Eunomia's metadata extension (BTH byte 8 bit 5 + Head / last) on every packet
  // of an OOO WRITE (ooo mode), as the NIC's sender agent with nic.ordering:
  // eunomia puts it: Head = the WQE's first PSN, last on its last packet.
  // Standard WRITE, SEND and READ packets never carry it.
  bool eunomia_meta = false;
  std::string command;  // for the comments of the trace and sidecar
};
struct SynthResult {
  Frames frames;
  std::string sidecar_yaml;
  uint64_t writes = 0, reads = 0, sends = 0;
};
SynthResult synth(const SynthOptions& o);

}  // namespace oonic::trace
