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
#include "model/core/number.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"
#include "platforms/common/cli_options.h"
#include "platforms/trace/text_writer.h"
#include "platforms/trace/trace_util.h"

namespace oonic::trace {

// --------------------------------------------------------------------- CLI ---

namespace {

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

// ----------------------------------------------------------------- convert ---

struct ConvertArgs {
  std::string in, out;
};

int run_convert(const ConvertArgs& a, const std::string& command) {
  OutFormat fmt = out_format_for(a.out);
  Frames fr = read_frames(a.in);
  print_issues(fr);
  WriteSummary w = write_frames(
      a.out, fmt, fr,
      {"converted by: " + command, "from " + std::string(to_string(fr.format)) + " " + a.in});
  std::fprintf(stderr, "oonic trace convert: %s: %llu frames", a.out.c_str(),
               static_cast<unsigned long long>(w.frames));
  if (fmt == OutFormat::kText)
    std::fprintf(stderr, " (%llu in fields, %llu raw)",
                 static_cast<unsigned long long>(w.field_lines),
                 static_cast<unsigned long long>(w.raw_lines));
  std::fprintf(stderr, "\n");
  return 0;
}

void add_convert(CLI::App& trace, cli::Context& ctx) {
  auto a = std::make_shared<ConvertArgs>();
  CLI::App* c = cli::add_command(
      trace, "convert", "pcap / pcapng / text trace -> format of OUT's extension",
      "Reads IN (pcap, pcapng or oonic text trace; detected by content) and writes OUT\n"
      "in the format its extension names:\n"
      "  .txt     oonic text trace: each frame in field form (op= qp= psn= ...\n"
      "           payload=zero|pat:ADDR|hex:...; Eunomia metadata: eunomia_head=N\n"
      "           eunomia_last=1) when those fields rebuild it byte for byte, else\n"
      "           raw=<hex>; times in ns with 3 decimals; a capture's\n"
      "           absolute start time is kept in a \"# time-origin:\" line\n"
      "  .pcap    classic pcap, ns timestamps, LINKTYPE_ETHERNET\n"
      "  .pcapng  pcapng: one section, one Ethernet interface (if_tsresol 9), EPBs\n"
      "pcap -> text -> pcap keeps every frame and timestamp (ns) as it was. Text lines\n"
      "without a time ('-') are written to pcap back to back at 100 Gb/s.");
  cli::add_positional(c, "IN", a->in, "pcap, pcapng or text trace");
  cli::add_positional(c, "OUT", a->out, "the output: .txt, .pcap or .pcapng");
  c->callback([a, &ctx] { ctx.rc = run_convert(*a, ctx.command_line); });
}

// ------------------------------------------------------------------- synth ---

struct SynthArgs {
  SynthOptions o;
  std::string mode = "ooo", read_role = "responder", timing = "line-rate", payload = "pat";
};

void parse_mix(const CLI::App* app, const std::string& v, SynthOptions& o) {
  auto bad = [&](const std::string& what) { cli::fail(app, "--mix '" + v + "': " + what); };
  o.mix_write = o.mix_read = o.mix_send = 0;
  std::stringstream ss(v);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    std::string k = item.substr(0, eq);
    std::optional<uint64_t> w;
    if (eq != std::string::npos) w = parse_uint(item.substr(eq + 1));
    if (!w || *w > 1000000) bad("expected write=W,read=R,send=S (weights 0 .. 1000000)");
    if (k == "write")
      o.mix_write = static_cast<uint32_t>(*w);
    else if (k == "read")
      o.mix_read = static_cast<uint32_t>(*w);
    else if (k == "send")
      o.mix_send = static_cast<uint32_t>(*w);
    else
      bad("unknown kind '" + k + "' (write, read, send)");
  }
  if (o.mix_write + o.mix_read + o.mix_send == 0) bad("all weights are 0");
}

int run_synth(SynthArgs& a, bool fspot_given, const std::string& command) {
  SynthOptions& o = a.o;
  o.ooo = a.mode == "ooo";
  o.read_requester = a.read_role == "requester";
  o.line_rate = a.timing == "line-rate";
  o.payload_pattern = a.payload == "pat";
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
  o.command = command;
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

void add_synth(CLI::App& trace, cli::Context& ctx) {
  auto a = std::make_shared<SynthArgs>();
  SynthOptions& o = a->o;
  CLI::App* c = cli::add_command(
      trace, "synth", "synthetic in-order trace (WRITE, READ, SEND) and sidecar",
      "Writes an in-order synthetic trace of WQEs from a peer to the DUT (format by\n"
      "FILE's extension: .txt, .pcap, .pcapng) and its sidecar FILE-without-extension\n"
      ".qps.yaml (QPs, regions, receive buffers). Reorder or lose packets afterwards\n"
      "with `oonic trace perturb`.",
      "Without READ / SEND, the frames are those scripts/gen-trace writes with the same\n"
      "options (and --ooo-distance 0; --eunomia-metadata as gen-trace's).");
  cli::add_text(c, "--out", o.out, "FILE", "the trace (required)")->required();
  cli::add_uint(c, "--qps", o.qps, "N",
                "QPs (default 1); QP i: QPN --qpn-base + i, R_Key --rkey + i", 1, 1u << 24);
  cli::add_uint(c, "--qpn-base", o.qpn_base, "QPN", "(default 0x11)", 0, wire::kPsnMask);
  cli::add_uint(c, "--wqes", o.wqes, "N", "WQEs per QP (default 1)", 1, 1u << 30);
  cli::add_uint(c, "--wqe-bytes", o.wqe_bytes, "SIZE",
                "bytes per WQE, K/M/G suffixes (default 64K; at most 2^32-1:\nthe DMA length)", 1,
                0xffffffffull, NumberSuffix::kBinary);
  c->add_option_function<std::string>(
       "--pmtu",
       [c, &o](const std::string& v) {
         std::optional<uint64_t> x = parse_uint(v);
         if (!x || (*x != 256 && *x != 512 && *x != 1024 && *x != 2048 && *x != 4096))
           cli::fail(c, "--pmtu '" + v + "': expected 256, 512, 1024, 2048 or 4096");
         o.pmtu = static_cast<uint32_t>(*x);
       },
       "256 | 512 | 1024 | 2048 | 4096 (default 4096)")
      ->option_text("B");
  c->add_option_function<std::string>(
       "--mix", [c, &o](const std::string& v) { parse_mix(c, v, o); },
       "weights of the WQE kinds, each WQE drawn at random\n(default write=100)")
      ->option_text("write=W,read=R,send=S");
  cli::add_choice(c, "--mode", a->mode, {"ooo", "standard"},
                  "ooo (default): OOO WRITE FSpot/Spot/Last, OOO READ;\n"
                  "standard: WRITE First/Middle/Last/Only, READ. SEND is\n"
                  "always SEND First/Middle/Last/Only");
  cli::add_uint(c, "--fspot-count", o.fspot_count, "F",
                "ooo: the first F packets of a WRITE are FSpot (default 8)");
  cli::add_choice(c, "--read-role", a->read_role, {"responder", "requester"},
                  "responder (default): the peer READs from the DUT (a READ\n"
                  "request to it); requester: the DUT READs from the peer\n"
                  "(its READ request, then the READ responses to it)");
  cli::add_choice(c, "--timing", a->timing, {"line-rate", "gap"},
                  "line-rate (default): frames back to back at --gbps;\n"
                  "gap: no times ('-', text only)");
  cli::add_real(c, "--gbps", o.gbps, "R", "(default 100)", 1e-3, 1e6);
  cli::add_uint(c, "--start-psn", o.start_psn, "PSN", "every QP's first PSN (default 0)", 0,
                wire::kPsnMask);
  cli::add_uint(c, "--va-base", o.va_base, "ADDR",
                "QP 0's region (default 0x10000); QP i's follows QP i-1's");
  cli::add_uint(c, "--rkey", o.rkey, "RKEY", "(default 0x1234)");
  cli::add_choice(c, "--payload", a->payload, {"pat", "zero"},
                  "pat (default): the address pattern of each packet's address");
  cli::add_seed(c, o.seed, "Python-compatible random stream");
  cli::add_flag(c, "--eunomia-metadata", o.eunomia_meta,
                "Eunomia's metadata extension (BTH byte 8 bit 5, then 8 B:\n"
                "Head 32 | flags 8, bit 0 last | reserved 24) on every\n"
                "packet of an OOO WRITE, as the NIC's sender agent with\n"
                "nic.ordering: eunomia sends it: Head = the WQE's first\n"
                "PSN, last = 1 on its last packet (text: eunomia_head=N,\n"
                "eunomia_last=1). Only OOO WRITE packets carry it (not\n"
                "SEND, READ or standard WRITE): needs --mode ooo");
  c->callback(
      [a, c, &ctx] { ctx.rc = run_synth(*a, c->count("--fspot-count") > 0, ctx.command_line); });
}

// ----------------------------------------------------------------- perturb ---

struct PerturbArgs {
  PerturbOptions o;
  std::string in, out, qps_file, unit = "auto", spray = "rr";
  std::vector<std::string> drop_psn_lists;  // as given; parsed into o.drop_psns
};

int run_perturb(PerturbArgs& a, const CLI::App* c, const std::string& command) {
  PerturbOptions& o = a.o;
  const bool shuffle = c->count("--ooo-distance") > 0, unit = c->count("--unit") > 0,
             spray = c->count("--spray") > 0;
  o.unit = a.unit == "qp"        ? PerturbOptions::Unit::kStream
           : a.unit == "message" ? PerturbOptions::Unit::kMessage
                                 : PerturbOptions::Unit::kAuto;
  o.spray = a.spray == "random" ? PerturbOptions::Spray::kRandom
            : a.spray == "hash" ? PerturbOptions::Spray::kHash
                                : PerturbOptions::Spray::kRoundRobin;
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
  OutFormat fmt = out_format_for(a.out);
  std::string sc_path = a.qps_file.empty() ? default_sidecar_path(a.in) : a.qps_file;
  std::optional<Sidecar> sc;
  if (!a.qps_file.empty() || file_exists(sc_path))
    sc = load_sidecar(sc_path);
  else
    sc_path.clear();

  Frames in = read_frames(a.in);
  print_issues(in);
  PerturbResult r = perturb(in, o, sc);
  write_frames(a.out, fmt, r.out, {"generated by: " + command, "perturbed from " + a.in});
  std::string out_sc = default_sidecar_path(a.out);
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
      a.out.c_str(), r.out.frames.size(), static_cast<unsigned long long>(r.data_packets),
      static_cast<unsigned long long>(r.streams), static_cast<unsigned long long>(r.dropped),
      static_cast<unsigned long long>(r.retransmitted),
      static_cast<unsigned long long>(r.duplicated), static_cast<unsigned long long>(st.ood.max),
      sc_path.empty() ? "" : "; sidecar ", sc_path.empty() ? "" : out_sc.c_str());
  return 0;
}

void add_perturb(CLI::App& trace, cli::Context& ctx) {
  auto a = std::make_shared<PerturbArgs>();
  PerturbOptions& o = a->o;
  CLI::App* c = cli::add_command(
      trace, "perturb",
      "in-order trace -> arrival order: windowed shuffle or\n"
      "multipath delays, drops + retransmissions, duplicates",
      "Turns an in-order trace into an arrival order. Only data packets to the DUT\n"
      "(requests: WRITE / SEND / READ request / OOO WRITE; READ responses) are moved;\n"
      "every other frame keeps its place. Each stream (DUT QPN, requests or READ\n"
      "responses) is perturbed on its own. IN's sidecar (or --qps FILE) is copied next\n"
      "to OUT (OUT-without-extension.qps.yaml). OUT's format: by extension.\n"
      "Reordering: one of --ooo-distance, --aligned-groups, --multipath. Loss and\n"
      "duplicates come after reordering, in arrival order, per stream.",
      "times: a frame takes the time of the place it fills (multipath: its arrival\n"
      "time); inserted retransmissions and duplicates take the time of the frame they\n"
      "follow; times never go backwards (a time earlier than the previous becomes it).");
  cli::add_positional(c, "IN", a->in, "the in-order trace (pcap, pcapng or text)");
  cli::add_positional(c, "OUT", a->out, "the arrival order: .txt, .pcap or .pcapng");
  cli::add_uint(c, "--ooo-distance", o.ooo_distance, "D",
                "windowed shuffle of scripts/gen-trace, per unit: the\n"
                "window holds the not-yet-emitted packets whose in-order\n"
                "position is at most (first not-yet-emitted position) + D;\n"
                "each step emits one of them uniformly at random. No packet\n"
                "arrives more than D PSNs beyond the lowest PSN not yet\n"
                "arrived (OOD <= D) nor more than D places from its own.\n"
                "The shuffled packets fill the stream's places in order;\n"
                "each keeps the time of its place.",
                0, 1u << 23);
  cli::add_uint(c, "--aligned-groups", o.aligned_group, "G",
                "ORNIC 4.3's arrival model, per unit: consecutive groups of\n"
                "G packets from the unit's first one, each a uniformly\n"
                "random permutation (Fisher-Yates), groups in order. OOD\n"
                "<= G - 1; with G = 64 and 16-bit bitmap blocks a group\n"
                "touches exactly 4 blocks.",
                1, 1u << 23);
  cli::add_choice(c, "--unit", a->unit, {"auto", "qp", "message"},
                  "shuffle unit, as gen-trace: qp = the whole stream;\n"
                  "message = one message (up to its Last / Only packet);\n"
                  "auto (default): message in a stream that carries ORNIC\n"
                  "OOO WRITEs (ORNIC keeps one OOO WQE outstanding), else qp");
  cli::add_uint(c, "--multipath", o.multipath, "K",
                "each data packet takes one of K paths (--spray), arrives at\n"
                "its time + that path's delay (--path-delays-ns); all frames\n"
                "are then stable-sorted by arrival time (untimed frames\n"
                "are timed back to back at --gbps first)",
                1, 1u << 16);
  c->add_option_function<std::string>(
       "--path-delays-ns",
       [c, &o](const std::string& v) {
         o.path_delays_ps.clear();
         std::stringstream ss(v);
         for (std::string d; std::getline(ss, d, ',');) {
           if (d.empty()) continue;
           int64_t ps = 0;
           if (!parse_ns(d, ps) || ps < 0)
             cli::fail(c,
                       "--path-delays-ns '" + v + "': expected delays in ns (e.g. 0,1500,2000.5)");
           o.path_delays_ps.push_back(static_cast<uint64_t>(ps));
         }
       },
       "one delay per path, in ns")
      ->option_text("d1,...,dK");
  cli::add_choice(c, "--spray", a->spray, {"rr", "random", "hash"},
                  "rr (default): round robin per stream; random; hash: ECMP\n"
                  "on IPs, UDP source port and QP");
  cli::add_real(c, "--drop-rate", o.drop_rate, "P",
                "each packet's first transmission is lost with probability P", 0, 1, true);
  c->add_option("--drop-psn", a->drop_psn_lists,
                "these PSNs' first transmissions are lost (in every stream;\nrepeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text("PSN,...")
      ->each([c, &o](const std::string& v) {
        std::stringstream ss(v);
        for (std::string p; std::getline(ss, p, ',');) {
          if (p.empty()) continue;
          std::optional<uint64_t> x = parse_uint(p);
          if (!x || *x > wire::kPsnMask)
            cli::fail(c, "--drop-psn '" + p + "': expected a PSN (0 .. 2^24-1)");
          o.drop_psns.push_back(static_cast<uint32_t>(*x));
        }
      });
  c->add_option_function<std::string>(
       "--retx-after",
       [c, &o](const std::string& v) {
         std::optional<uint64_t> x = parse_uint(v);
         if (!x || *x < 1 || *x > 0xffffffffu)
           cli::fail(c, "--retx-after '" + v + "': expected a number of places, at least 1");
         o.retx_after = static_cast<uint32_t>(*x);
       },
       "the retransmission (the identical frame) arrives right\n"
       "after the packet K places later (places counted before\n"
       "removal), or after the unit's last packet (default D+1; G)")
      ->option_text("K");
  cli::add_flag(c, "--no-retx", o.no_retx, "lost packets are not retransmitted");
  cli::add_real(c, "--duplicate-rate", o.duplicate_rate, "P",
                "a copy of the packet arrives right after it", 0, 1, true);
  cli::add_seed(c, o.seed,
                "the random stream of gen-trace (Python's\n"
                "random.Random(S)): shuffle of a unit, then its loss draws");
  cli::add_text(c, "--qps", a->qps_file, "FILE", "sidecar (DUT address, start PSNs; default IN's)");
  cli::add_text(c, "--dut", o.dut, "WHO",
                "ip=ADDR or mac=MAC: the device under test (default: sidecar,\n"
                "else the endpoint receiving the most RC requests)");
  cli::add_real(c, "--gbps", o.gbps, "R", "line rate for untimed frames (multipath, default 100)",
                1e-3, 1e6);
  c->callback([a, c, &ctx] { ctx.rc = run_perturb(*a, c, ctx.command_line); });
}

// ------------------------------------------------------------------- stats ---

struct StatsArgs {
  std::string in, qps_file, dut;
  bool json = false;
};

int run_stats(const StatsArgs& a) {
  std::string sc_path = a.qps_file.empty() ? default_sidecar_path(a.in) : a.qps_file;
  std::optional<Sidecar> sc;
  if (!a.qps_file.empty() || file_exists(sc_path)) sc = load_sidecar(sc_path);
  Frames fr = read_frames(a.in);
  print_issues(fr);
  TraceStats s = compute_stats(fr, sc, a.dut);
  std::fputs(a.json ? stats_json(s).c_str() : stats_text(s).c_str(), stdout);
  return 0;
}

void add_stats(CLI::App& trace, cli::Context& ctx) {
  auto a = std::make_shared<StatsArgs>();
  CLI::App* c = cli::add_command(
      trace, "stats", "packets, QPs, opcodes, PSN range, out-of-order degree,\nduplicates, gaps",
      "Counts the frames of IN (pcap, pcapng or text): RoCE / other, bad ICRC, to and\n"
      "from the DUT, an opcode histogram, frames carrying Eunomia's metadata\n"
      "extension (eunomia_meta), and per stream of data packets to the DUT\n"
      "(DUT QPN, requests or READ responses): packets, PSN range, duplicates, gaps\n"
      "(PSNs between the start PSN and the highest seen that never arrive), and the\n"
      "out-of-order degree.",
      "OOD (MP-RDMA): for each data packet of a stream, OOD = max(0, PSN - rcv_nxt),\n"
      "rcv_nxt being the lowest PSN not received before that packet, counted from the\n"
      "stream's start PSN (the sidecar's start_psn, else the lowest PSN in the trace).\n"
      "A READ request takes its responses' PSNs too (ceil(DMA length / PMTU); PMTU from\n"
      "the sidecar, else the largest First / Middle payload, else 4096).\n"
      "Reported: max, mean, 99.9th percentile (nearest rank) over the packets. Also\n"
      "lateness = max(0, highest PSN received before - PSN).\n"
      "A windowed shuffle with distance D (perturb --ooo-distance D) gives OOD <= D and\n"
      "lateness <= D.");
  cli::add_positional(c, "IN", a->in, "pcap, pcapng or text trace");
  cli::add_flag(c, "--json", a->json, "JSON on stdout instead of the summary");
  cli::add_text(c, "--qps", a->qps_file, "FILE", "sidecar (default: IN's .qps.yaml if present)");
  cli::add_text(c, "--dut", a->dut, "WHO",
                "ip=ADDR or mac=MAC: the device under test (default: sidecar,\n"
                "else the endpoint receiving the most RC requests)");
  c->callback([a, &ctx] { ctx.rc = run_stats(*a); });
}

}  // namespace

void add_command(CLI::App& oonic, cli::Context& ctx) {
  CLI::App* t = cli::add_command(oonic, "trace", "trace tools: convert, synth, perturb, stats",
                                 "Tools around traces (traces/README.md \"Trace tools\").");
  add_convert(*t, ctx);
  add_synth(*t, ctx);
  add_perturb(*t, ctx);
  add_stats(*t, ctx);
}

}  // namespace oonic::trace
