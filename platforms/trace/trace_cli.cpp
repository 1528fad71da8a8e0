// `oonic trace`: the command line of convert, synth, perturb, stats.
#include "platforms/trace/trace_tools.h"

#include "platforms/trace/endpoint.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"
#include "platforms/trace/text_writer.h"
#include "platforms/trace/trace_util.h"

namespace oonic::trace {

// --------------------------------------------------------------------- CLI ---

namespace {

const char* kTraceUsage = R"(usage: oonic trace SUBCOMMAND [ARGS]

Tools around traces (traces/README.md "Trace tools"):
  convert IN OUT        pcap / pcapng / text trace -> format of OUT's extension
                        (.txt, .pcap, .pcapng)
  synth --out F [...]   synthetic in-order trace (WRITE, READ, SEND) and sidecar
  perturb IN OUT [...]  in-order trace -> arrival order: windowed shuffle or
                        multipath delays, drops + retransmissions, duplicates
  stats IN [--json]     packets, QPs, opcodes, PSN range, out-of-order degree,
                        duplicates, gaps
`oonic trace SUBCOMMAND --help` for each one.
)";

const char* kConvertUsage = R"(usage: oonic trace convert IN OUT

Reads IN (pcap, pcapng or oonic text trace; detected by content) and writes OUT
in the format its extension names:
  .txt     oonic text trace: each frame in field form (op= qp= psn= ...
           payload=zero|pat:ADDR|hex:...; Eunomia metadata: eunomia_head=N
           eunomia_last=1) when those fields rebuild it byte for byte, else
           raw=<hex>; times in ns with 3 decimals; a capture's
           absolute start time is kept in a "# time-origin:" line
  .pcap    classic pcap, ns timestamps, LINKTYPE_ETHERNET
  .pcapng  pcapng: one section, one Ethernet interface (if_tsresol 9), EPBs
pcap -> text -> pcap keeps every frame and timestamp (ns) as it was. Text lines
without a time ('-') are written to pcap back to back at 100 Gb/s.
)";

const char* kSynthUsage = R"(usage: oonic trace synth --out FILE [options]

Writes an in-order synthetic trace of WQEs from a peer to the DUT (format by
FILE's extension: .txt, .pcap, .pcapng) and its sidecar FILE-without-extension
.qps.yaml (QPs, regions, receive buffers). Reorder or lose packets afterwards
with `oonic trace perturb`.

options:
  --out FILE            the trace (required)
  --qps N               QPs (default 1); QP i: QPN --qpn-base + i, R_Key --rkey + i
  --qpn-base QPN        (default 0x11)
  --wqes N              WQEs per QP (default 1)
  --wqe-bytes SIZE      bytes per WQE, K/M/G suffixes (default 64K)
  --pmtu B              256 | 512 | 1024 | 2048 | 4096 (default 4096)
  --mix write=W,read=R,send=S
                        weights of the WQE kinds, each WQE drawn at random
                        (default write=100)
  --mode ooo|standard   ooo (default): OOO WRITE FSpot/Spot/Last, OOO READ;
                        standard: WRITE First/Middle/Last/Only, READ. SEND is
                        always SEND First/Middle/Last/Only
  --fspot-count F       ooo: the first F packets of a WRITE are FSpot (default 8)
  --read-role responder|requester
                        responder (default): the peer READs from the DUT (a READ
                        request to it); requester: the DUT READs from the peer
                        (its READ request, then the READ responses to it)
  --timing line-rate|gap  line-rate (default): frames back to back at --gbps;
                        gap: no times ('-', text only)
  --gbps R              (default 100)
  --start-psn PSN       every QP's first PSN (default 0)
  --va-base ADDR        QP 0's region (default 0x10000); QP i's follows QP i-1's
  --rkey RKEY           (default 0x1234)
  --payload pat|zero    pat (default): the address pattern of each packet's address
  --seed S              (default 1); Python-compatible random stream
  --eunomia-metadata    Eunomia's metadata extension (BTH byte 8 bit 5, then 8 B:
                        Head 32 | flags 8, bit 0 last | reserved 24) on every
                        packet of an OOO WRITE, as the NIC's sender agent with
                        nic.ordering: eunomia sends it: Head = the WQE's first
                        PSN, last = 1 on its last packet (text: eunomia_head=N,
                        eunomia_last=1). Only OOO WRITE packets carry it (not
                        SEND, READ or standard WRITE): needs --mode ooo
Without READ / SEND, the frames are those scripts/gen-trace writes with the same
options (and --ooo-distance 0; --eunomia-metadata as gen-trace's).
)";

const char* kPerturbUsage = R"(usage: oonic trace perturb IN OUT [options]

Turns an in-order trace into an arrival order. Only data packets to the DUT
(requests: WRITE / SEND / READ request / OOO WRITE; READ responses) are moved;
every other frame keeps its place. Each stream (DUT QPN, requests or READ
responses) is perturbed on its own. IN's sidecar (or --qps FILE) is copied next
to OUT (OUT-without-extension.qps.yaml). OUT's format: by extension.

reordering (one of):
  --ooo-distance D      windowed shuffle of scripts/gen-trace, per unit: the
                        window holds the not-yet-emitted packets whose in-order
                        position is at most (first not-yet-emitted position) + D;
                        each step emits one of them uniformly at random. No packet
                        arrives more than D PSNs beyond the lowest PSN not yet
                        arrived (OOD <= D) nor more than D places from its own.
                        The shuffled packets fill the stream's places in order;
                        each keeps the time of its place.
  --aligned-groups G    ORNIC 4.3's arrival model, per unit: consecutive groups of
                        G packets from the unit's first one, each a uniformly
                        random permutation (Fisher-Yates), groups in order. OOD
                        <= G - 1; with G = 64 and 16-bit bitmap blocks a group
                        touches exactly 4 blocks.
  --unit auto|qp|message
                        shuffle unit, as gen-trace: qp = the whole stream;
                        message = one message (up to its Last / Only packet);
                        auto (default): message in a stream that carries ORNIC
                        OOO WRITEs (ORNIC keeps one OOO WQE outstanding), else qp
  --multipath K --path-delays-ns d1,...,dK [--spray rr|random|hash]
                        each data packet takes a path (rr: round robin per
                        stream; random; hash: ECMP on IPs, UDP source port and
                        QP), arrives at its time + that path's delay; all frames
                        are then stable-sorted by arrival time (untimed frames
                        are timed back to back at --gbps first)
loss and duplicates (after reordering, in arrival order, per stream):
  --drop-rate P         each packet's first transmission is lost with probability P
  --drop-psn PSN,...    these PSNs' first transmissions are lost (in every stream)
  --retx-after K        the retransmission (the identical frame) arrives right
                        after the packet K places later (places counted before
                        removal), or after the unit's last packet (default D+1; G)
  --no-retx             lost packets are not retransmitted
  --duplicate-rate P    a copy of the packet arrives right after it
  --seed S              (default 1): the random stream of gen-trace (Python's
                        random.Random(S)): shuffle of a unit, then its loss draws
  --qps FILE            sidecar (DUT address, start PSNs; default IN's)
  --dut ip=ADDR|mac=MAC the device under test (default: sidecar, else the
                        endpoint receiving the most RC requests)
  --gbps R              line rate for untimed frames (multipath, default 100)
times: a frame takes the time of the place it fills (multipath: its arrival
time); inserted retransmissions and duplicates take the time of the frame they
follow; times never go backwards (a time earlier than the previous becomes it).
)";

const char* kStatsUsage =
    R"(usage: oonic trace stats IN [--json] [--qps FILE] [--dut ip=ADDR|mac=MAC]

Counts the frames of IN (pcap, pcapng or text): RoCE / other, bad ICRC, to and
from the DUT, an opcode histogram, frames carrying Eunomia's metadata
extension (eunomia_meta), and per stream of data packets to the DUT
(DUT QPN, requests or READ responses): packets, PSN range, duplicates, gaps
(PSNs between the start PSN and the highest seen that never arrive), and the
out-of-order degree.

OOD (MP-RDMA): for each data packet of a stream, OOD = max(0, PSN - rcv_nxt),
rcv_nxt being the lowest PSN not received before that packet, counted from the
stream's start PSN (the sidecar's start_psn, else the lowest PSN in the trace).
A READ request takes its responses' PSNs too (ceil(DMA length / PMTU); PMTU from
the sidecar, else the largest First / Middle payload, else 4096).
Reported: max, mean, 99.9th percentile (nearest rank) over the packets. Also
lateness = max(0, highest PSN received before - PSN).
A windowed shuffle with distance D (perturb --ooo-distance D) gives OOD <= D and
lateness <= D.

  --json       JSON on stdout instead of the summary
  --qps FILE   sidecar (default: IN's .qps.yaml if present)
  --dut WHO    device under test (default: sidecar, else the endpoint
               receiving the most RC requests)
)";

struct Opts {
  std::string sub;
  const std::vector<std::string>& a;
  size_t i = 0;
  std::string s, val;
  Opts(std::string name, const std::vector<std::string>& args) : sub(std::move(name)), a(args) {}
  bool next() {
    if (i >= a.size()) return false;
    s = a[i++];
    return true;
  }
  bool is(const char* opt) {
    if (s == opt) {
      if (i >= a.size()) fail_cli("trace " + sub + ": " + opt + " needs a value");
      val = a[i++];
      return true;
    }
    std::string p = std::string(opt) + "=";
    if (s.rfind(p, 0) == 0) {
      val = s.substr(p.size());
      return true;
    }
    return false;
  }
  [[noreturn]] void bad(const std::string& what) const {
    fail_cli("trace " + sub + ": " + s.substr(0, s.find('=')) + " '" + val + "': " + what);
  }
  uint64_t number(uint64_t max = UINT64_MAX) const {
    const std::string& t = val;
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(t.c_str(), &end, 0);
    if (t.empty() || t[0] == '-' || *end || errno) bad("expected a number");
    if (v > max) bad("out of range (max " + std::to_string(max) + ")");
    return v;
  }
  uint64_t size() const {
    std::string t = val;
    uint64_t mult = 1;
    if (!t.empty() && std::strchr("kKmMgG", t.back())) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
      mult = c == 'k' ? 1ull << 10 : c == 'm' ? 1ull << 20 : 1ull << 30;
      t.pop_back();
    }
    char* end = nullptr;
    unsigned long long v = std::strtoull(t.c_str(), &end, 0);
    if (t.empty() || t[0] == '-' || *end || v == 0) bad("expected a size (e.g. 4096, 64K, 1M)");
    return v * mult;
  }
  double real(double lo, double hi, bool hi_open) const {
    char* end = nullptr;
    double v = std::strtod(val.c_str(), &end);
    if (val.empty() || *end || !(v >= lo) || (hi_open ? !(v < hi) : !(v <= hi)))
      bad("expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
          (hi_open ? ")" : "]"));
    return v;
  }
  std::vector<std::string> list() const {
    std::vector<std::string> out;
    size_t p = 0;
    while (p <= val.size()) {
      size_t c = val.find(',', p);
      if (c == std::string::npos) c = val.size();
      std::string item = val.substr(p, c - p);
      if (!item.empty()) out.push_back(item);
      p = c + 1;
    }
    return out;
  }
};

std::string join_args(const std::string& sub, const std::vector<std::string>& a) {
  std::string s = "oonic trace " + sub;
  for (const auto& x : a) {
    bool plain = !x.empty() && x.find_first_of(" \t'\"\\$`#") == std::string::npos;
    s += " " + (plain ? x : "'" + x + "'");
  }
  return s;
}

std::string stem_sidecar(const std::string& path) {
  return default_sidecar_path(path);
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw Error(msg::kIo, from + ": cannot read: " + std::strerror(errno));
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(msg::kIo, to + ": cannot write: " + std::strerror(errno));
  out << in.rdbuf();
  if (!out) throw Error(msg::kIo, to + ": write error");
}

void print_issues(const Frames& fr) {
  for (const auto& m : fr.issues)
    std::fprintf(stderr, "oonic trace: note: %s: %s\n", fr.path.c_str(), m.c_str());
}

int cmd_convert(const std::vector<std::string>& args) {
  Opts o("convert", args);
  std::vector<std::string> pos;
  while (o.next()) {
    if (o.s == "-h" || o.s == "--help") return std::fputs(kConvertUsage, stdout), 0;
    if (!o.s.empty() && o.s[0] == '-' && o.s != "-")
      fail_cli("trace convert: unknown option '" + o.s + "' (see oonic trace convert --help)");
    pos.push_back(o.s);
  }
  if (pos.size() != 2) fail_cli("trace convert: expected IN OUT (see oonic trace convert --help)");
  OutFormat fmt = out_format_for(pos[1]);
  Frames fr = read_frames(pos[0]);
  print_issues(fr);
  WriteSummary w = write_frames(pos[1], fmt, fr,
                                {"converted by: " + join_args("convert", args),
                                 "from " + std::string(to_string(fr.format)) + " " + pos[0]});
  std::fprintf(stderr, "oonic trace convert: %s: %llu frames", pos[1].c_str(),
               static_cast<unsigned long long>(w.frames));
  if (fmt == OutFormat::kText)
    std::fprintf(stderr, " (%llu in fields, %llu raw)",
                 static_cast<unsigned long long>(w.field_lines),
                 static_cast<unsigned long long>(w.raw_lines));
  std::fprintf(stderr, "\n");
  return 0;
}

int cmd_synth(const std::vector<std::string>& args) {
  Opts a("synth", args);
  SynthOptions o;
  bool fspot_given = false;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kSynthUsage, stdout), 0;
    if (a.is("--out")) {
      o.out = a.val;
    } else if (a.is("--qps")) {
      o.qps = static_cast<uint32_t>(a.number(1u << 24));
      if (o.qps == 0) a.bad("at least 1");
    } else if (a.is("--qpn-base")) {
      o.qpn_base = static_cast<uint32_t>(a.number(wire::kPsnMask));
    } else if (a.is("--wqes")) {
      o.wqes = static_cast<uint32_t>(a.number(1u << 30));
      if (o.wqes == 0) a.bad("at least 1");
    } else if (a.is("--wqe-bytes")) {
      o.wqe_bytes = a.size();
      if (o.wqe_bytes > 0xffffffffull) a.bad("must fit 32 bits (DMA length)");
    } else if (a.is("--pmtu")) {
      o.pmtu = static_cast<uint32_t>(a.number());
      if (o.pmtu != 256 && o.pmtu != 512 && o.pmtu != 1024 && o.pmtu != 2048 && o.pmtu != 4096)
        a.bad("expected 256, 512, 1024, 2048 or 4096");
    } else if (a.is("--mix")) {
      o.mix_write = o.mix_read = o.mix_send = 0;
      for (const std::string& item : a.list()) {
        auto eq = item.find('=');
        std::string k = item.substr(0, eq);
        char* end = nullptr;
        std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
        unsigned long w = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end || v[0] == '-' || w > 1000000)
          a.bad("expected write=W,read=R,send=S (weights 0 .. 1000000)");
        if (k == "write")
          o.mix_write = static_cast<uint32_t>(w);
        else if (k == "read")
          o.mix_read = static_cast<uint32_t>(w);
        else if (k == "send")
          o.mix_send = static_cast<uint32_t>(w);
        else
          a.bad("unknown kind '" + k + "' (write, read, send)");
      }
      if (o.mix_write + o.mix_read + o.mix_send == 0) a.bad("all weights are 0");
    } else if (a.is("--mode")) {
      if (a.val != "ooo" && a.val != "standard") a.bad("expected ooo or standard");
      o.ooo = a.val == "ooo";
    } else if (a.is("--fspot-count")) {
      o.fspot_count = static_cast<uint32_t>(a.number(0xffffffffu));
      fspot_given = true;
    } else if (a.is("--read-role")) {
      if (a.val != "responder" && a.val != "requester") a.bad("expected responder or requester");
      o.read_requester = a.val == "requester";
    } else if (a.is("--timing")) {
      if (a.val != "line-rate" && a.val != "gap") a.bad("expected line-rate or gap");
      o.line_rate = a.val == "line-rate";
    } else if (a.is("--gbps")) {
      o.gbps = a.real(1e-3, 1e6, false);
    } else if (a.is("--start-psn")) {
      o.start_psn = static_cast<uint32_t>(a.number(wire::kPsnMask));
    } else if (a.is("--va-base")) {
      o.va_base = a.number();
    } else if (a.is("--rkey")) {
      o.rkey = static_cast<uint32_t>(a.number(0xffffffffu));
    } else if (a.is("--payload")) {
      if (a.val != "pat" && a.val != "zero") a.bad("expected pat or zero");
      o.payload_pattern = a.val == "pat";
    } else if (a.is("--seed")) {
      o.seed = a.number();
    } else if (a.s == "--eunomia-metadata") {
      o.eunomia_meta = true;
    } else {
      fail_cli("trace synth: unknown argument '" + a.s + "' (see oonic trace synth --help)");
    }
  }
  if (o.out.empty()) fail_cli("trace synth: --out FILE is required (see oonic trace synth --help)");
  if (uint64_t{o.qpn_base} + o.qps - 1 > wire::kPsnMask)
    fail_cli("trace synth: --qpn-base + --qps - 1 exceeds 2^24-1");
  if (o.ooo && fspot_given && o.fspot_count == 0)
    fail_cli("trace synth: --fspot-count must be at least 1 (Start_Addr must reach the DUT)");
  if (o.eunomia_meta && !o.ooo)
    fail_cli(
        "trace synth: --eunomia-metadata needs --mode ooo (Eunomia's sender agent tags OOO WRITE "
        "packets only)");
  OutFormat fmt = out_format_for(o.out);
  if (!o.line_rate && fmt != OutFormat::kText)
    fail_cli("trace synth: --timing gap writes no times: use a .txt output");
  o.command = join_args("synth", args);
  SynthResult r = synth(o);
  std::string name = o.out.substr(o.out.find_last_of('/') + 1);
  char hdr[256];
  std::snprintf(
      hdr, sizeof hdr,
      "%s, %u QP(s) x %u WQE(s) x %llu B (%llu WRITE, %llu READ, %llu SEND), PMTU %u, "
      "seed %llu%s",
      o.ooo ? "ooo" : "standard", o.qps, o.wqes, static_cast<unsigned long long>(o.wqe_bytes),
      static_cast<unsigned long long>(r.writes), static_cast<unsigned long long>(r.reads),
      static_cast<unsigned long long>(r.sends), o.pmtu, static_cast<unsigned long long>(o.seed),
      o.eunomia_meta ? ", Eunomia metadata on OOO WRITE" : "");
  write_frames(o.out, fmt, r.frames, {"generated by: " + o.command, hdr});
  std::string sc = stem_sidecar(o.out);
  {
    std::ofstream f(sc, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(msg::kIo, sc + ": cannot write: " + std::strerror(errno));
    f << "# sidecar of " << name << ", generated by: " << o.command << "\n" << r.sidecar_yaml;
    if (!f) throw Error(msg::kIo, sc + ": write error");
  }
  uint64_t last =
      r.frames.frames.empty() ? 0 : static_cast<uint64_t>(r.frames.frames.back().time_ps);
  std::fprintf(stderr, "oonic trace synth: %s: %zu frames (%s); sidecar %s\n", o.out.c_str(),
               r.frames.frames.size(),
               o.line_rate ? (format_time_ps(last) + " ns").c_str() : "no times", sc.c_str());
  return 0;
}

int cmd_perturb(const std::vector<std::string>& args) {
  Opts a("perturb", args);
  PerturbOptions o;
  std::vector<std::string> pos;
  std::string qps_file;
  bool shuffle = false, spray = false, unit = false;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kPerturbUsage, stdout), 0;
    if (a.is("--ooo-distance")) {
      o.ooo_distance = static_cast<uint32_t>(a.number(1u << 23));
      shuffle = true;
    } else if (a.is("--aligned-groups")) {
      o.aligned_group = static_cast<uint32_t>(a.number(1u << 23));
      if (o.aligned_group == 0) a.bad("at least 1");
    } else if (a.is("--unit")) {
      if (a.val == "auto")
        o.unit = PerturbOptions::Unit::kAuto;
      else if (a.val == "qp")
        o.unit = PerturbOptions::Unit::kStream;
      else if (a.val == "message")
        o.unit = PerturbOptions::Unit::kMessage;
      else
        a.bad("expected auto, qp or message");
      unit = true;
    } else if (a.is("--multipath")) {
      o.multipath = static_cast<uint32_t>(a.number(1u << 16));
      if (o.multipath == 0) a.bad("at least 1 path");
    } else if (a.is("--path-delays-ns")) {
      o.path_delays_ps.clear();
      for (const std::string& d : a.list()) {
        int64_t ps = 0;
        if (!parse_ns(d, ps) || ps < 0) a.bad("expected delays in ns (e.g. 0,1500,2000.5)");
        o.path_delays_ps.push_back(static_cast<uint64_t>(ps));
      }
    } else if (a.is("--spray")) {
      if (a.val == "rr")
        o.spray = PerturbOptions::Spray::kRoundRobin;
      else if (a.val == "random")
        o.spray = PerturbOptions::Spray::kRandom;
      else if (a.val == "hash")
        o.spray = PerturbOptions::Spray::kHash;
      else
        a.bad("expected rr, random or hash");
      spray = true;
    } else if (a.is("--drop-rate")) {
      o.drop_rate = a.real(0, 1, true);
    } else if (a.is("--drop-psn")) {
      for (const std::string& p : a.list()) {
        Opts one("perturb", args);
        one.s = "--drop-psn", one.val = p;
        o.drop_psns.push_back(static_cast<uint32_t>(one.number(wire::kPsnMask)));
      }
    } else if (a.is("--duplicate-rate")) {
      o.duplicate_rate = a.real(0, 1, true);
    } else if (a.is("--retx-after")) {
      o.retx_after = static_cast<uint32_t>(a.number(0xffffffffu));
      if (*o.retx_after == 0) a.bad("at least 1");
    } else if (a.s == "--no-retx") {
      o.no_retx = true;
    } else if (a.is("--seed")) {
      o.seed = a.number();
    } else if (a.is("--qps")) {
      qps_file = a.val;
    } else if (a.is("--dut")) {
      o.dut = a.val;
    } else if (a.is("--gbps")) {
      o.gbps = a.real(1e-3, 1e6, false);
    } else if (!a.s.empty() && a.s[0] == '-') {
      fail_cli("trace perturb: unknown option '" + a.s + "' (see oonic trace perturb --help)");
    } else {
      pos.push_back(a.s);
    }
  }
  if (pos.size() != 2) fail_cli("trace perturb: expected IN OUT (see oonic trace perturb --help)");
  if (shuffle && o.aligned_group)
    fail_cli("trace perturb: give either --ooo-distance or --aligned-groups, not both");
  if (o.multipath) {
    if (shuffle || o.aligned_group)
      fail_cli("trace perturb: give one of --ooo-distance, --aligned-groups or --multipath");
    if (unit)
      fail_cli(
          "trace perturb: --unit goes with --ooo-distance or --aligned-groups, not --multipath");
    if (o.path_delays_ps.size() != o.multipath)
      fail_cli("trace perturb: --multipath " + std::to_string(o.multipath) + " needs " +
               std::to_string(o.multipath) + " --path-delays-ns values, got " +
               std::to_string(o.path_delays_ps.size()));
  } else if (!o.path_delays_ps.empty() || spray) {
    fail_cli("trace perturb: --path-delays-ns and --spray need --multipath K");
  }
  OutFormat fmt = out_format_for(pos[1]);
  std::string sc_path = qps_file.empty() ? default_sidecar_path(pos[0]) : qps_file;
  std::optional<Sidecar> sc;
  if (!qps_file.empty() || file_exists(sc_path))
    sc = load_sidecar(sc_path);
  else
    sc_path.clear();

  Frames in = read_frames(pos[0]);
  print_issues(in);
  PerturbResult r = perturb(in, o, sc);
  std::string cmd = join_args("perturb", args);
  write_frames(pos[1], fmt, r.out, {"generated by: " + cmd, "perturbed from " + pos[0]});
  std::string out_sc = default_sidecar_path(pos[1]);
  if (!sc_path.empty()) {
    struct stat s1 {
    }, s2{};
    bool same = ::stat(sc_path.c_str(), &s1) == 0 && ::stat(out_sc.c_str(), &s2) == 0 &&
                s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
    if (!same) copy_file(sc_path, out_sc);
  }
  TraceStats st = compute_stats(r.out, sc, o.dut);
  std::fprintf(
      stderr,
      "oonic trace perturb: %s: %zu frames, %llu data packets in %llu stream(s): %llu "
      "dropped (%llu retransmitted), %llu duplicated; OOD max %llu%s%s\n",
      pos[1].c_str(), r.out.frames.size(), static_cast<unsigned long long>(r.data_packets),
      static_cast<unsigned long long>(r.streams), static_cast<unsigned long long>(r.dropped),
      static_cast<unsigned long long>(r.retransmitted),
      static_cast<unsigned long long>(r.duplicated), static_cast<unsigned long long>(st.ood.max),
      sc_path.empty() ? "" : "; sidecar ", sc_path.empty() ? "" : out_sc.c_str());
  return 0;
}

int cmd_stats(const std::vector<std::string>& args) {
  Opts a("stats", args);
  bool json = false;
  std::string qps_file, dut;
  std::vector<std::string> pos;
  while (a.next()) {
    if (a.s == "-h" || a.s == "--help") return std::fputs(kStatsUsage, stdout), 0;
    if (a.s == "--json") {
      json = true;
    } else if (a.is("--qps")) {
      qps_file = a.val;
    } else if (a.is("--dut")) {
      dut = a.val;
    } else if (!a.s.empty() && a.s[0] == '-') {
      fail_cli("trace stats: unknown option '" + a.s + "' (see oonic trace stats --help)");
    } else {
      pos.push_back(a.s);
    }
  }
  if (pos.size() != 1) fail_cli("trace stats: expected one IN (see oonic trace stats --help)");
  std::string sc_path = qps_file.empty() ? default_sidecar_path(pos[0]) : qps_file;
  std::optional<Sidecar> sc;
  if (!qps_file.empty() || file_exists(sc_path)) sc = load_sidecar(sc_path);
  Frames fr = read_frames(pos[0]);
  print_issues(fr);
  TraceStats s = compute_stats(fr, sc, dut);
  std::fputs(json ? stats_json(s).c_str() : stats_text(s).c_str(), stdout);
  return 0;
}

}  // namespace

int trace_command(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(kTraceUsage, stdout);
    return 2;
  }
  const std::string& sub = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "-h" || sub == "--help" || sub == "help") return std::fputs(kTraceUsage, stdout), 0;
  if (sub == "convert") return cmd_convert(rest);
  if (sub == "synth") return cmd_synth(rest);
  if (sub == "perturb") return cmd_perturb(rest);
  if (sub == "stats") return cmd_stats(rest);
  fail_cli("trace: unknown subcommand '" + sub +
           "' (convert, synth, perturb, stats; see oonic trace --help)");
}

}  // namespace oonic::trace
