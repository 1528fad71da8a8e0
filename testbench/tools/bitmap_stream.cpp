// bitmap_stream: feeds a PSN stimulus file straight into ORNIC's Bitmap Manager
// (no parser, no processors) and writes oonic's VCD of it, for holding against
// the RTL oracle testbench/rtl/ornic_node.v (docs/VCD.md "Comparing with RTL").
//
// Stimulus: one packet a line, "CYCLE PSN" in decimal (the same file
// testbench/rtl/tb_ornic_node.v reads); '#' starts a comment line, blank lines
// are skipped; cycles must not decrease and start at 1 or later (cycle 0 is the
// RTL's reset edge).
//
// The manager sits at nic0.rx.bitmap_manager, as inside a NIC, so its signals
// have the names a replay's waves.vcd gives them. QP --qp is opened at cycle 0
// with start PSN --base-psn and OTD --otd (default: larger than any window, so no
// NAK costs cycles) and is the QP whose node array is traced (node<i>.*).
// Each packet is booked at its cycle: access(cycle, qp, psn). The RTL oracle
// handles one packet at a time, so by default a packet granted later than its
// cycle (port contention) is an error (status 3); --allow-contention accepts it.
// The VCD ends at last cycle + --tail with bitmap_stream.end rising, so the
// waveform spans the same cycles as the RTL testbench run (+tail=).
//
// exit status: 0 done, 2 bad input, 3 port contention
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/clock.h"
#include "model/core/error.h"
#include "model/core/params.h"
#include "model/core/report.h"
#include "model/core/stats.h"
#include "model/core/vcd.h"
#include "model/ornic/block_env.h"
#include "model/ornic/ornic_params.h"
#include "model/ornic/rx/bitmap_manager.h"

[[maybe_unused]] static const bool kNoBanner = [] {
  return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

namespace {

using oonic::Cycle;

const char* kUsage = R"(usage: bitmap_stream STIMULUS --vcd OUT.vcd [options]

Drives oonic's Bitmap Manager (nic0.rx.bitmap_manager) with a PSN stream and
writes its VCD. STIMULUS: one packet a line, "CYCLE PSN" (decimal), '#'
comments; cycles non-decreasing, >= 1.

options:
  --vcd FILE          VCD to write (required)
  --base-psn N        start PSN of the QP (default 0)
  --qp N              QP index to open, drive and trace (default 0)
  --otd N             the QP's OTD (default 8388607: no NAK)
  --tail N            cycles after the last packet the VCD spans (default 16)
  --set KEY=VALUE     model parameter, e.g. bitmap.block_bits=16 (repeatable)
  --log FILE          per packet: cycle psn verdict grant done cycles epsn (TSV)
  --allow-contention  accept packets granted after their cycle
  -h, --help          this text

exit status: 0 done, 2 bad input, 3 port contention (a packet granted late)
)";

struct Packet {
  Cycle cycle;
  uint32_t psn;
  unsigned line;
};

bool parse_u64(const std::string& s, uint64_t* v) {
  if (s.empty() || s[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *v = x;
  return true;
}

std::vector<Packet> read_stimulus(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw oonic::Error(oonic::msg::kIo, path + ": cannot read stimulus");
  std::vector<Packet> pk;
  std::string line;
  unsigned n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::istringstream ls(line);
    std::string a, b, extra;
    if (!(ls >> a) || a[0] == '#') continue;
    uint64_t c = 0, p = 0;
    if (!(ls >> b) || (ls >> extra) || !parse_u64(a, &c) || !parse_u64(b, &p))
      throw oonic::Error(
          oonic::msg::kTrace,
          path + ":" + std::to_string(n) + ": expected 'CYCLE PSN' (decimal), got '" + line + "'");
    if (p > oonic::wire::kPsnMask)
      throw oonic::Error(oonic::msg::kTrace,
                         path + ":" + std::to_string(n) + ": PSN " + b + " exceeds 24 bits");
    if (c == 0)
      throw oonic::Error(oonic::msg::kTrace, path + ":" + std::to_string(n) +
                                                 ": cycle 0 is the RTL reset edge; start at 1");
    if (!pk.empty() && c < pk.back().cycle)
      throw oonic::Error(oonic::msg::kTrace,
                         path + ":" + std::to_string(n) + ": cycle " + a + " goes backwards");
    pk.push_back({c, static_cast<uint32_t>(p), n});
  }
  if (pk.empty()) throw oonic::Error(oonic::msg::kTrace, path + ": no packets");
  return pk;
}

struct Options {
  std::string stimulus, vcd, log;
  uint32_t base_psn = 0, qp = 0, otd = 0x7FFFFF;
  Cycle tail = 16;
  bool allow_contention = false;
  std::vector<std::string> sets;
};

// nic0.rx.bitmap_manager, as inside an OrnicNic, plus the driving thread.
struct Rx : sc_core::sc_module {
  oonic::ornic::BitmapManager bitmap_manager;
  Rx(sc_core::sc_module_name n, const oonic::ornic::BlockEnv& env)
      : sc_module(n), bitmap_manager("bitmap_manager", env) {}
};

struct Nic : sc_core::sc_module {
  SC_HAS_PROCESS(Nic);
  Nic(sc_core::sc_module_name n, const oonic::ornic::OrnicParams& p, oonic::Stats& stats,
      oonic::Vcd* vcd, const Options& o, const std::vector<Packet>& pk, std::FILE* log)
      : sc_module(n),
        clk_(p.nic.clock_mhz),
        env_{p, stats, vcd, std::string(this->name())},
        rx("rx", env_),
        o_(o),
        pk_(pk),
        log_(log) {
    end_.bind(vcd, "bitmap_stream.end", 1);
    SC_THREAD(drive);
  }
  void drive() {
    oonic::ornic::BitmapManager& bm = rx.bitmap_manager;
    bm.watch_qp(o_.qp);
    bm.open(0, o_.qp, o_.base_psn, o_.otd);
    for (const Packet& k : pk_) {
      clk_.wait_until(k.cycle);
      oonic::ornic::BitmapManager::Result r = bm.access(k.cycle, o_.qp, k.psn, {});
      if (log_)
        std::fprintf(log_, "%llu\t%u\t%s\t%llu\t%llu\t%u\t%u\n",
                     static_cast<unsigned long long>(k.cycle), k.psn,
                     oonic::ordering::to_string(r.out.verdict),
                     static_cast<unsigned long long>(r.grant),
                     static_cast<unsigned long long>(r.done), r.out.cycles, r.out.epsn);
      if (r.grant != k.cycle) {
        ++contended;
        if (!o_.allow_contention)
          std::fprintf(stderr,
                       "bitmap_stream: %s:%u: packet at cycle %llu (PSN %u) granted at %llu: "
                       "the port was busy (the RTL oracle needs one packet at a time; space "
                       "the stimulus or pass --allow-contention)\n",
                       o_.stimulus.c_str(), k.line, static_cast<unsigned long long>(k.cycle), k.psn,
                       static_cast<unsigned long long>(r.grant));
      }
      last_done = std::max(last_done, r.done);
    }
    end_cycle = pk_.back().cycle + o_.tail;
    end_.set(end_cycle, 1);
    sc_core::sc_stop();
  }

  oonic::ClockDomain clk_;
  oonic::ornic::BlockEnv env_;
  Rx rx;
  const Options& o_;
  const std::vector<Packet>& pk_;
  std::FILE* log_;
  oonic::Probe end_;
  uint64_t contended = 0;
  Cycle last_done = 0, end_cycle = 0;
};

int run(int argc, char* argv[]) {
  Options o;
  std::vector<std::string> a(argv + 1, argv + argc);
  auto need = [&](size_t& i, const std::string& opt) -> std::string {
    if (i + 1 >= a.size()) throw oonic::Error(oonic::msg::kCli, opt + " needs a value");
    return a[++i];
  };
  auto num = [&](const std::string& opt, const std::string& v) {
    uint64_t x = 0;
    if (!parse_u64(v, &x) || x > 0xFFFFFFFFull)
      throw oonic::Error(oonic::msg::kCli, opt + " '" + v + "': expected a number");
    return x;
  };
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string& s = a[i];
    if (s == "-h" || s == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (s == "--vcd") {
      o.vcd = need(i, s);
    } else if (s == "--log") {
      o.log = need(i, s);
    } else if (s == "--base-psn") {
      o.base_psn = static_cast<uint32_t>(num(s, need(i, s)));
      if (o.base_psn > oonic::wire::kPsnMask)
        throw oonic::Error(oonic::msg::kCli, "--base-psn exceeds 24 bits");
    } else if (s == "--qp") {
      o.qp = static_cast<uint32_t>(num(s, need(i, s)));
    } else if (s == "--otd") {
      o.otd = static_cast<uint32_t>(num(s, need(i, s)));
    } else if (s == "--tail") {
      o.tail = num(s, need(i, s));
    } else if (s == "--set") {
      o.sets.push_back(need(i, s));
    } else if (s == "--allow-contention") {
      o.allow_contention = true;
    } else if (!s.empty() && s[0] == '-') {
      throw oonic::Error(oonic::msg::kCli, "unknown option '" + s + "' (see --help)");
    } else if (o.stimulus.empty()) {
      o.stimulus = s;
    } else {
      throw oonic::Error(oonic::msg::kCli, "more than one STIMULUS given");
    }
  }
  if (o.stimulus.empty()) throw oonic::Error(oonic::msg::kCli, "no STIMULUS given (see --help)");
  if (o.vcd.empty()) throw oonic::Error(oonic::msg::kCli, "--vcd FILE is required");

  oonic::ornic::OrnicParams p;
  {
    oonic::ParamTable t;
    p.describe(t);
    for (const std::string& kv : o.sets) {
      auto eq = kv.find('=');
      if (eq == std::string::npos)
        throw oonic::Error(oonic::msg::kCli, "--set '" + kv + "': expected KEY=VALUE");
      t.set(kv.substr(0, eq), kv.substr(eq + 1), "--set");
    }
  }
  p.validate();
  if (o.qp >= p.nic.max_qps)
    throw oonic::Error(oonic::msg::kCli, "--qp " + std::to_string(o.qp) + " >= nic.max_qps");
  const std::vector<Packet> pk = read_stimulus(o.stimulus);

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> log(nullptr, &std::fclose);
  if (!o.log.empty()) {
    log.reset(std::fopen(o.log.c_str(), "w"));
    if (!log) throw oonic::Error(oonic::msg::kIo, o.log + ": cannot write");
    std::fputs("cycle\tpsn\tverdict\tgrant\tdone\tcycles\tepsn\n", log.get());
  }
  oonic::Stats stats;
  oonic::ClockDomain clk(p.nic.clock_mhz);
  oonic::Vcd vcd(clk.period_ps());
  Nic nic("nic0", p, stats, &vcd, o, pk, log.get());
  sc_core::sc_start();
  vcd.write(o.vcd);
  std::fprintf(stderr,
               "bitmap_stream: %zu packets, last done at cycle %llu, VCD to cycle %llu "
               "(period %llu ps): %s\n",
               pk.size(), static_cast<unsigned long long>(nic.last_done),
               static_cast<unsigned long long>(nic.end_cycle),
               static_cast<unsigned long long>(clk.period_ps()), o.vcd.c_str());
  if (nic.contended && !o.allow_contention) return 3;
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  oonic::install_report_handler();
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bitmap_stream: error: %s\n", e.what());
    return 2;
  }
}
