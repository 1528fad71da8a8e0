#include "platforms/b2b/b2b.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/core/report.h"
#include "model/ornic/ornic_nic.h"
#include "model/schemes/receive_schemes.h"
#include "model/schemes/sender_policies.h"
#include "platforms/b2b/scoreboard.h"
#include "platforms/common/results.h"
#include "platforms/host/host_driver.h"
#include "platforms/host/host_node.h"
#include "platforms/network/network_link.h"
#include "platforms/system/system.h"
#include "platforms/trace/trace.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace fs = std::filesystem;

namespace oonic::b2b {

using results::fmt;
using results::write_text;

void RunParams::describe(ParamTable& t) {
  t.add("run.max_sim_ms", &max_sim_ms, "ms",
        "simulated-time limit: a run whose WQEs have not all completed by then stops and fails",
        0.001, 1e7);
  t.add("run.wqes_csv", &wqes_csv, "write wqes.csv (one row per WQE)");
  t.add("run.sram_csv", &sram_csv, "write sram.csv (occupancy change points of both NICs)");
  t.add("run.pcap", &pcap, "write a_to_b.pcap and b_to_a.pcap (frames as delivered)");
}

namespace {

// Results settle behind simulated time every this many completed WQEs.
constexpr uint64_t kSettleCompletions = 16;

// The pair's two hosts and A's driver, as the job reads them.
struct System {
  system::Host& a;
  system::Host& b;
  host::HostDriver& host;
  explicit System(system::System& s) : a(*s.hosts[0]), b(*s.hosts[1]), host(*s.hosts[0]->driver) {}
};

// The pair topology: hosts a and b, one link between them (network.*).
void pair_topology(system::System& s, const AllParams& all) {
  s.topo = network::Topology::pair(all.network.rate_gbps, all.network.propagation_ns);
  s.topo.nodes[0].name = "a", s.topo.nodes[1].name = "b";
  s.routes = std::make_unique<network::Routes>(s.topo);
  s.host_nodes = {0, 1};
  s.host_of_node = {0, 1};
}

// Host a posts the workload (its driver's stats under "host"); b answers. Both links
// are network.* (network.ab from a, network.ba from b); host memory holds the bytes.
std::vector<system::HostSpec> pair_specs(const AllParams& all) {
  std::vector<system::HostSpec> specs(2);
  for (int i = 0; i < 2; ++i) {
    system::HostSpec& sp = specs[i];
    const std::string dir = i == 0 ? "ab" : "ba";
    sp.nic = all.nic;
    sp.uplink = all.network;
    sp.uplink_name = "network_" + dir, sp.uplink_dir = dir, sp.uplink_stats = "network." + dir;
    sp.driver = i == 0, sp.driver_stats = "host";
    sp.queue_depth = all.workload.queue_depth;
    sp.flow_check = false;
  }
  return specs;
}

constexpr uint64_t kSqBase = 0x10000000;
constexpr uint64_t kCqBase = 0x40000000;
constexpr uint64_t kDataBase = 0x100000000;
constexpr uint32_t kQpnA = 0x1000, kQpnB = 0x2000;

uint64_t align(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

void fill(SparseMemory& m, uint64_t addr, uint64_t len) {
  std::vector<uint8_t> buf(1 << 16);
  for (uint64_t off = 0; off < len; off += buf.size()) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), len - off));
    trace::fill_pattern(addr + off, buf.data(), n);
    m.write(addr + off, buf.data(), n);
  }
}

ornic::QpContext make_ctx(uint32_t qpn, uint32_t peer, bool is_a, uint32_t i) {
  ornic::QpContext c;
  c.qpn = qpn;
  c.peer_qpn = peer;
  c.pmtu = 0;  // the NIC's nic.pmtu_bytes (QpContext's own default would ignore it)
  c.otd = 0;   // the NIC's nic.otd (likewise)
  wire::FrameSpec& f = c.tx_template;
  f.src_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(is_a ? 0x0A : 0x0B)};
  f.dst_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(is_a ? 0x0B : 0x0A)};
  f.src_ip = {10, 0, 0, static_cast<uint8_t>(is_a ? 1 : 2)};
  f.dst_ip = {10, 0, 0, static_cast<uint8_t>(is_a ? 2 : 1)};
  f.udp_sport = static_cast<uint16_t>(49152 + i % 16384);
  return c;
}

// The parameters: defaults, the config file, --set, the presets; then what a
// two-NIC run asks of them.
void read_params(const RunOptions& o, AllParams& all, ParamTable& table) {
  all.describe(table);
  apply_config(table, o.config, o.sets);
  all.nic.validate();
  all.network.validate();
  all.workload.validate();
  // A rate core's base RTT left at 0 (HPCC's T, NSCC's network_rtt): the two links' round
  // trip.
  const char* rtt_key = sender::find_rate(all.nic.rate()).base_rtt_key;
  if (rtt_key && std::stod(table.value_text(*table.find(rtt_key))) == 0)
    table.set(rtt_key, results::fmt(2 * all.network.propagation_ns / 1000.0, 6),
              "twice network.propagation_ns");
  if (all.workload.qps > all.nic.nic.max_qps)
    throw Error(msg::kConfig, "workload.qps (" + std::to_string(all.workload.qps) +
                                  ") exceeds nic.max_qps (" + std::to_string(all.nic.nic.max_qps) +
                                  ")");
  if (all.host.digest)
    throw Error(msg::kConfig,
                "host.memory.digest is for oonic replay: the run's scoreboard reads every "
                "destination byte back");
}

// The results directory, with the resolved config written.
std::string prepare_results_dir(const RunOptions& o, const ParamTable& table) {
  std::string dir = o.out.empty()
                        ? "results/" + (o.config.empty() ? std::string("run")
                                                         : fs::path(o.config).stem().string())
                        : o.out;
  fs::create_directories(dir);
  for (const char* f :
       {"wqes.csv", "sram.csv", "waves.vcd", "stats.json", "a_to_b.pcap", "b_to_a.pcap"})
    fs::remove(fs::path(dir) / f);
  write_text(dir + "/config.yaml", resolved_yaml(table));
  return dir;
}

// A WQE's buffers: where its bytes come from and where they land.
struct Buf {
  uint64_t src, dst;
};

// Connections, buffers and the WQEs: each QP of the workload set up on both
// NICs, its buffers laid out on both hosts (sources filled with the pattern),
// its WQEs posted.
struct Connector {
  System& sys;
  const AllParams& all;
  SparseMemory& ma;
  SparseMemory& mb;
  uint64_t next_a = kDataBase, next_b = kDataBase;
  std::vector<uint64_t> source;  // per WQE: its source buffer (for the scoreboard)

  Connector(System& s, const AllParams& p)
      : sys(s), all(p), ma(s.a.memory.memory()), mb(s.b.memory.memory()) {}

  // Buffers of this QP's WRITEs (dest) and READs (source) on B; SENDs land in
  // B's receive buffers in order.
  std::vector<Buf> buffers(const std::vector<host::WqeSpec>& list, uint64_t recv_base,
                           uint64_t recv_bytes) {
    const auto& wl = all.workload;
    std::vector<Buf> bufs;
    uint64_t send_k = 0;
    uint64_t max_len = 1;
    for (const auto& w : list) max_len = std::max(max_len, w.bytes);
    Buf shared[3];
    bool have_shared[3] = {false, false, false};
    for (const auto& w : list) {
      Buf b{};
      uint64_t len = std::max<uint64_t>(w.bytes, 1);
      int op = static_cast<int>(w.op);
      if (wl.reuse_buffers && have_shared[op]) {
        b = shared[op];
        if (w.op == ornic::WqeOp::kSend) b.dst = recv_base + send_k++ * recv_bytes;
        bufs.push_back(b);
        continue;
      }
      if (wl.reuse_buffers) len = max_len, have_shared[op] = true;
      if (w.op == ornic::WqeOp::kRead) {
        b.src = next_b, next_b = align(next_b + len, 4096);
        b.dst = next_a, next_a = align(next_a + len, 4096);
        fill(mb, b.src, len);
      } else {
        b.src = next_a, next_a = align(next_a + len, 4096);
        if (w.op == ornic::WqeOp::kSend)
          b.dst = recv_base + send_k++ * recv_bytes;
        else
          b.dst = next_b, next_b = align(next_b + len, 4096);
        fill(ma, b.src, len);
      }
      if (wl.reuse_buffers) shared[op] = b;
      bufs.push_back(b);
    }
    return bufs;
  }

  // QP i's WQEs, posted on A (queue index qa).
  void post(uint32_t i, uint32_t qa, const std::vector<host::WqeSpec>& list,
            const std::vector<Buf>& bufs) {
    for (size_t k = 0; k < list.size(); ++k) {
      ornic::Wqe w;
      w.op = list[k].op;
      // Eunomia and MP-RDMA carry SENDs out of order too (Head / iPSN metadata).
      w.ooo = list[k].ooo || (list[k].ooo_mode && w.op == ornic::WqeOp::kSend &&
                              ordering::find_scheme(all.nic.nic.ordering).traits.ooo_send);
      w.sync = list[k].sync;
      w.length = static_cast<uint32_t>(list[k].bytes);
      w.local_addr = w.op == ornic::WqeOp::kRead ? bufs[k].dst : bufs[k].src;
      w.remote_addr = w.op == ornic::WqeOp::kRead ? bufs[k].src : bufs[k].dst;
      w.rkey = 0x100u + i;
      sys.host.add_wqe(qa, w, bufs[k].dst);
      source.push_back(bufs[k].src);
    }
  }

  void connect(uint32_t i, const std::vector<host::WqeSpec>& list) {
    const auto& wl = all.workload;
    uint64_t max_send = 0, sends = 0;
    for (const auto& w : list)
      if (w.op == ornic::WqeOp::kSend) max_send = std::max(max_send, w.bytes), ++sends;
    ornic::QpContext ca = make_ctx(kQpnA + i, kQpnB + i, true, i);
    ornic::QpContext cb = make_ctx(kQpnB + i, kQpnA + i, false, i);
    ca.epsn = cb.epsn = wl.start_psn;
    uint64_t recv_bytes = align(std::max<uint64_t>(max_send, 64), 64);
    cb.recv_base = next_b;
    cb.recv_count = static_cast<uint32_t>(sends);
    cb.recv_bytes = static_cast<uint32_t>(recv_bytes);
    next_b = align(next_b + sends * recv_bytes, 4096);
    uint64_t region_base = next_b;
    const std::vector<Buf> bufs = buffers(list, cb.recv_base, recv_bytes);
    cb.regions.push_back(
        ornic::MemoryRegion{region_base, std::max<uint64_t>(next_b - region_base, 1), 0x100u + i});
    uint32_t qa = sys.a.nic.add_qp(ca);
    sys.b.nic.add_qp(cb);
    host::HostDriver::QpSetup s;
    s.qi = qa, s.qpn = ca.qpn, s.peer_qpn = ca.peer_qpn, s.sq_psn = wl.start_psn;
    s.sq_base = kSqBase + uint64_t{i} * align(uint64_t{wl.sq_entries} * ornic::kWqeBytes, 4096);
    s.cq_base = kCqBase + uint64_t{i} * align(uint64_t{wl.cq_entries} * ornic::kCqeBytes, 4096);
    s.sq_entries = wl.sq_entries, s.cq_entries = wl.cq_entries;
    sys.host.add_qp(s);
    post(i, qa, list, bufs);
  }
};

// What a run measured once the simulation stopped.
struct Measured {
  bool finished = false;
  ScoreboardResult sb;
  Cycle end = 0;
  uint64_t total_bytes = 0;
  double gbps = 0;  // first doorbell to last CQE
};

Measured measure(System& sys, const ClockDomain& clk, const std::vector<uint64_t>& source) {
  Measured m;
  m.finished = sys.host.finished();
  const auto& recs = sys.host.records();
  m.sb = check(recs, source, sys.a.memory.memory(), sys.b.memory.memory(), sys.host.bad_cqes());
  m.end = clk.ceil_cycles(sys.host.last_cqe_ps());
  if (!m.finished) m.end = clk.now();
  uint64_t first_post = ~uint64_t{0};
  for (const auto& r : recs) {
    if (r.posted) first_post = std::min(first_post, r.post_ps);
    if (r.cqes) m.total_bytes += r.wqe.length;
  }
  if (first_post == ~uint64_t{0}) first_post = 0;
  double span_ps =
      static_cast<double>(sys.host.last_cqe_ps() - std::min(first_post, sys.host.last_cqe_ps()));
  m.gbps = span_ps > 0 ? m.total_bytes * 8.0 / (span_ps / 1000.0) : 0;
  return m;
}

void write_wqes_csv(const std::string& path, const std::vector<host::WqeRecord>& recs,
                    const ClockDomain& clk) {
  std::ofstream f(path);
  f << "wr_id,qp,qpn,index,opcode,ooo,bytes,start_psn,post_cycle,cqe_cycle,t_completion_ns,"
       "gbps,status,cqes\n";
  for (const auto& r : recs) {
    double tns = r.cqes ? (r.cqe_ps - r.post_ps) / 1000.0 : 0;
    f << r.wqe.wr_id << "," << r.qi << "," << r.qpn << "," << r.index << ","
      << ornic::to_string(r.wqe.op) << "," << (r.wqe.ooo ? 1 : 0) << "," << r.wqe.length << ","
      << r.start_psn << "," << clk.ceil_cycles(r.post_ps) << ","
      << (r.cqes ? clk.ceil_cycles(r.cqe_ps) : 0) << "," << fmt(tns, 3) << ","
      << fmt(tns > 0 ? r.wqe.length * 8.0 / tns : 0, 3) << "," << int(r.status) << "," << r.cqes
      << "\n";
  }
}

// A finished run, as stats.json and the summary report it.
struct Finished {
  const RunOptions& o;
  const AllParams& all;
  System& sys;
  Stats& stats;
  const Measured& m;
  double wall;
};

// Writes stats.json; returns the RTL lockstep check's complaint (empty if none).
std::string write_stats_json(const Finished& f, const std::vector<results::NamedSram>& srams,
                             const std::string& dir) {
  const Measured& m = f.m;
  nlohmann::json j;
  j["run"] = {{"config", f.o.config},
              {"seed", f.o.seed},
              {"clock_mhz", f.all.nic.nic.clock_mhz},
              {"end_cycle", m.end},
              {"finished", m.finished},
              {"wqes", f.sys.host.records().size()},
              {"completed", f.sys.host.completed()},
              {"payload_bytes", m.total_bytes},
              {"throughput_gbps", m.gbps},
              {"wall_s", f.wall}};
  j["sram"] = results::sram_json(srams, m.end);
  j["scoreboard"] = {{"ok", m.sb.ok() && m.finished},  {"wqes", m.sb.wqes},
                     {"completed", m.sb.completed},    {"bytes_checked", m.sb.bytes_checked},
                     {"failures", m.sb.failure_count}, {"text", m.sb.text()}};
  std::string rtl_report;
  nlohmann::json rtl_j = results::rtl_json({{"a", &f.sys.a.nic}, {"b", &f.sys.b.nic}}, &rtl_report);
  if (!rtl_j.is_null()) j["rtl"] = rtl_j;
  results::write_stats_json(dir + "/stats.json", j, f.stats, m.end);
  return rtl_report;
}

// The summary on stdout.
void print_summary(const Finished& f, const std::string& dir) {
  const Measured& m = f.m;
  const auto& recs = f.sys.host.records();
  auto cnt = [&](const std::string& k) { return f.stats.counter_value(k); };
  uint64_t nw = 0, nr = 0, ns = 0, nooo = 0;
  for (const auto& r : recs) {
    (r.wqe.op == ornic::WqeOp::kWrite ? nw : r.wqe.op == ornic::WqeOp::kRead ? nr : ns)++;
    nooo += r.wqe.ooo;
  }
  std::ostringstream s;
  s << "oonic run " << (f.o.config.empty() ? "(defaults)" : f.o.config) << ": 2 NICs, "
    << f.all.workload.qps << " QP(s), " << recs.size() << " WQEs (" << nw << " WRITE, " << nr
    << " READ, " << ns << " SEND; " << nooo << " OOO)\n";
  const auto& n = f.all.network;
  s << "  network     " << fmt(n.rate_gbps, 0) << " Gbit/s, " << fmt(n.propagation_ns, 0)
    << " ns; OOO distance " << n.ooo_distance << ", loss rate " << n.loss_rate
    << (n.drop_psns.empty() ? "" : ", drop " + n.drop_psns) << "\n";
  s << "  completed   " << f.sys.host.completed() << "/" << recs.size() << " WQEs"
    << (m.finished ? "" : "  (NOT FINISHED by run.max_sim_ms)") << " by cycle " << m.end << " ("
    << fmt(f.sys.host.last_cqe_ps() / 1e6, 3) << " us at " << fmt(f.all.nic.nic.clock_mhz, 0)
    << " MHz)\n";
  s << "  throughput  " << fmt(m.gbps, 2)
    << " Gbit/s payload of both directions (WRITE/SEND a->b, READ b->a), first doorbell to "
       "last CQE ("
    << m.total_bytes << " B)\n";
  s << "  a sent      " << cnt("a.nic.tx.qp_manager.packets") << " requests ("
    << cnt("a.nic.tx.qp_manager.retransmitted") << " retransmitted); go-back-N "
    << cnt("a.nic.control.rsp_manager.go_backs") << ", selective PSNs "
    << cnt("a.nic.control.rsp_manager.selective_psns") << ", READ re-requests "
    << cnt("a.nic.control.rsp_manager.read_rerequests") << ", timeouts "
    << cnt("a.nic.control.rsp_manager.timeouts") << ", recoveries "
    << cnt("a.nic.control.rsp_manager.recoveries") << ", resends held off "
    << cnt("a.nic.control.rsp_manager.resends_held_off") << "; CQEs "
    << cnt("a.nic.control.cqe_manager.cqes") << "\n";
  s << "  b sent      ACK " << cnt("b.nic.tx.hdr_generator.acks") << ", NAK "
    << cnt("b.nic.tx.hdr_generator.naks") << ", NAK+bitmap "
    << cnt("b.nic.tx.hdr_generator.bitmap_naks") << ", READ response "
    << cnt("b.nic.tx.hdr_generator.read_responses") << "; b dropped " << f.sys.b.nic.drops_total()
    << " (duplicates " << f.sys.b.nic.drops(ornic::Drop::kDuplicate).value << ")\n";
  s << "  wire        a->b " << cnt("network.ab.frames_in") << " frames ("
    << cnt("network.ab.dropped_random") + cnt("network.ab.dropped_listed") << " lost, "
    << cnt("network.ab.reordered") << " reordered), b->a " << cnt("network.ba.frames_in")
    << " frames (" << cnt("network.ba.dropped_random") + cnt("network.ba.dropped_listed")
    << " lost, " << cnt("network.ba.reordered") << " reordered)\n";
  s << "  scoreboard  " << (m.finished ? "" : "INCOMPLETE; ") << m.sb.text() << "\n";
  s << "  results     " << dir << "/  (simulated in " << fmt(f.wall, 3) << " s wall)\n";
  std::fputs(s.str().c_str(), stdout);
}

// The two-NIC run as a job of system::run: the workload on the pair topology.
class PairJob : public system::Job {
 public:
  explicit PairJob(const RunOptions& o) : o_(o) {}
  void prepare(system::System& s) override {
    read_params(o_, all_, table_);
    work_ = host::make_workload(all_.workload, o_.seed);
    dir_ = prepare_results_dir(o_, table_);
    clk_ = ClockDomain(all_.nic.nic.clock_mhz);
    vcd_ = results::make_vcd(o_.vcd, o_.vcd_groups, clk_.period_ps());
    pair_topology(s, all_);
  }
  std::vector<system::HostSpec> host_specs(const system::System&) override {
    return pair_specs(all_);
  }
  std::unique_ptr<network::SwitchNode> make_switch(const system::System&, uint32_t) override {
    return nullptr;  // the pair has none
  }
  const PcieParams& pcie() const override { return all_.pcie; }
  const HostMemoryParams& memory() const override { return all_.host; }
  Stats& stats() override { return stats_; }
  Vcd* vcd() override { return vcd_.get(); }
  uint64_t seed() const override { return o_.seed; }
  void start(system::System& s) override {
    sys_ = std::make_unique<System>(s);
    sys_->host.set_progress(!o_.quiet && isatty(fileno(stderr)));
    conn_ = std::make_unique<Connector>(*sys_, all_);
    for (uint32_t i = 0; i < all_.workload.qps; ++i) conn_->connect(i, work_[i]);
    if (all_.run.pcap) {
      pab_ = std::make_unique<trace::PcapWriter>(dir_ + "/a_to_b.pcap");
      pba_ = std::make_unique<trace::PcapWriter>(dir_ + "/b_to_a.pcap");
      sys_->a.uplink.on_deliver(
          [this](uint64_t ps, const uint8_t* f, size_t n) { pab_->write(ps, f, n); });
      sys_->b.uplink.on_deliver(
          [this](uint64_t ps, const uint8_t* f, size_t n) { pba_->write(ps, f, n); });
    }
    for (Sram* m : sys_->a.nic.srams()) srams_.emplace_back("a." + m->name(), m);
    for (Sram* m : sys_->b.nic.srams()) srams_.emplace_back("b." + m->name(), m);
    sram_csv_ =
        std::make_unique<results::SramCsv>(all_.run.sram_csv ? dir_ + "/sram.csv" : "", srams_);
    // Settle behind the last CQE's cycle (rounded down: no block books earlier).
    sys_->host.every_completions(kSettleCompletions,
                                 [this](uint64_t ps) { sram_csv_->settle(ps / clk_.period_ps()); });
  }
  uint64_t max_ps() const override {
    return static_cast<uint64_t>(std::llround(all_.run.max_sim_ms * 1e9));
  }
  bool done() const override { return sys_->host.finished(); }
  int finish(system::System&, const system::Ran& ran) override {
    if (pab_) pab_->close(), pba_->close();
    const Measured m = measure(*sys_, clk_, conn_->source);
    if (all_.run.wqes_csv) write_wqes_csv(dir_ + "/wqes.csv", sys_->host.records(), clk_);
    const Finished done{o_, all_, *sys_, stats_, m, ran.wall};
    const std::string rtl_report = write_stats_json(done, srams_, dir_);
    sram_csv_->finish(m.end);
    if (vcd_) vcd_->write(dir_ + "/waves.vcd", o_.vcd_from, o_.vcd_to);
    if (!o_.quiet) print_summary(done, dir_);
    if (!rtl_report.empty()) {
      std::fprintf(stderr, "oonic run: %s\n", rtl_report.c_str());
      return 1;
    }
    return m.sb.ok() && m.finished ? 0 : 1;
  }

 private:
  const RunOptions o_;
  AllParams all_;
  ParamTable table_;
  std::vector<std::vector<host::WqeSpec>> work_;
  std::string dir_;
  Stats stats_;
  ClockDomain clk_;
  std::unique_ptr<Vcd> vcd_;
  std::unique_ptr<System> sys_;
  std::unique_ptr<Connector> conn_;
  std::unique_ptr<trace::PcapWriter> pab_, pba_;
  std::vector<results::NamedSram> srams_;
  std::unique_ptr<results::SramCsv> sram_csv_;
};

}  // namespace

std::unique_ptr<system::Job> make_job(const RunOptions& o) {
  return std::make_unique<PairJob>(o);
}

std::string stats_listing(bool markdown, const std::vector<std::string>& sets) {
  install_report_handler();
  AllParams all;
  ParamTable table;
  all.describe(table);
  for (const auto& s : sets) apply_override(table, s);
  all.nic.validate();
  Stats stats;
  {
    system::System s;
    pair_topology(s, all);
    system::build(s, pair_specs(all), all.pcie, all.host, nullptr, 1, stats, nullptr);
  }
  return stats.listing(markdown);
}

}  // namespace oonic::b2b
