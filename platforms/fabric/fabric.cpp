#include "platforms/fabric/fabric.h"

#include <sys/resource.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include "model/core/config.h"
#include "model/core/error.h"
#include "model/core/report.h"
#include "model/ornic/ornic_nic.h"
#include "model/schemes/receive_schemes.h"
#include "model/schemes/sender_policies.h"
#include "model/sender/hpcc.h"
#include "model/sender/nscc.h"
#include "model/wire/roce.h"
#include "model/wire/uet_nic.h"
#include "platforms/common/results.h"
#include "platforms/host/flow_check.h"
#include "platforms/host/host_driver.h"
#include "platforms/host/host_node.h"
#include "platforms/network/frame_keys.h"
#include "platforms/network/hooks/int_stamp.h"
#include "platforms/network/hooks/trim.h"
#include "platforms/network/network_link.h"
#include "platforms/network/switch_node.h"
#include "platforms/network/workload.h"
#include "platforms/system/run.h"
#include "platforms/trace/pcap_io.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace fs = std::filesystem;

namespace oonic::fabric {

using network::Topology;
using results::fmt;
using results::write_text;

void TopologyParams::describe(ParamTable& t) {
  t.add("topology.kind", &kind,
        "the fabric: pair (two hosts, one link), kpaths (two ToRs joined by `paths` spines), "
        "leaf-spine, fat-tree, two-dc (two leaf-spines joined by DCI switches and one long-haul "
        "link), or file (ns-3 HPCC topology.txt, topology.file)",
        {"pair", "kpaths", "leaf-spine", "fat-tree", "two-dc", "file"});
  t.add("topology.file", &file,
        "kind file: ns-3 HPCC topology.txt (relative to the config's directory, else the "
        "current one)",
        {});
  t.add("topology.paths", &paths, "path", "kpaths: spines, one path each between the ToRs", 1, 64);
  t.add("topology.spines", &spines, "switch", "leaf-spine, two-dc (per DC): spine switches", 1,
        256);
  t.add("topology.leaves", &leaves, "switch", "leaf-spine, two-dc (per DC): leaf switches", 1, 256);
  t.add("topology.hosts_per_leaf", &hosts_per_leaf, "host",
        "kpaths (per ToR), leaf-spine and two-dc: hosts under each leaf", 1, 1024);
  t.add("topology.k", &k, "port", "fat-tree: switch radix k (even; k^3/4 hosts)", 2, 64);
  t.add("topology.host_gbps", &host_gbps, "Gbit/s",
        "host links (the NICs' mac.rate_gbps too, so its range)", ornic::kMacRateMinGbps,
        ornic::kMacRateMaxGbps);
  t.add("topology.fabric_gbps", &fabric_gbps, "Gbit/s", "switch-to-switch links", kLinkGbpsMin,
        kLinkGbpsMax);
  t.add("topology.link_delay_ns", &link_delay_ns, "ns",
        "one-way propagation delay of every generated link but the DCI one", 0, 1e9);
  t.add("topology.dci_gbps", &dci_gbps, "Gbit/s", "two-dc: the long-haul link between the DCs",
        kLinkGbpsMin, kLinkGbpsMax);
  t.add("topology.dci_delay_ns", &dci_delay_ns, "ns",
        "two-dc: one-way delay of the long-haul link (100 us ~ 20 km of fibre)", 0, kDelayNsMax);
}

Topology::Limits TopologyParams::limits() {
  return {ornic::kMacRateMinGbps, ornic::kMacRateMaxGbps, kLinkGbpsMin, kLinkGbpsMax, kDelayNsMax};
}

namespace {

// A relative name: beside the config if there, else from the current directory.
std::string resolve(const std::string& base_dir, const std::string& name) {
  if (name.empty() || fs::path(name).is_absolute() || base_dir.empty()) return name;
  fs::path p = fs::path(base_dir) / name;
  return fs::exists(p) ? p.string() : name;
}

}  // namespace

Topology TopologyParams::build(const std::string& base_dir, const Topology::Limits& lim) const {
  if (kind == "pair") return Topology::pair(host_gbps, link_delay_ns);
  if (kind == "kpaths")
    return Topology::kpaths(paths, hosts_per_leaf, host_gbps, fabric_gbps, link_delay_ns);
  if (kind == "leaf-spine")
    return Topology::leaf_spine(spines, leaves, hosts_per_leaf, host_gbps, fabric_gbps,
                                link_delay_ns);
  if (kind == "fat-tree") {
    if (k % 2)
      throw Error(msg::kConfig, "topology.k: a fat-tree needs an even k, not " + std::to_string(k));
    return Topology::fat_tree(k, host_gbps, fabric_gbps, link_delay_ns);
  }
  if (kind == "two-dc")
    return Topology::two_dc(spines, leaves, hosts_per_leaf, host_gbps, fabric_gbps, link_delay_ns,
                            dci_gbps, dci_delay_ns);
  if (file.empty()) throw Error(msg::kConfig, "topology.kind file needs topology.file");
  return Topology::read_hpcc(resolve(base_dir, file), lim);
}

void FaultParams::describe(ParamTable& t) {
  t.add("faults.file", &file,
        "faults as data: one event a line, '<time_us> rate <a> <b> <gbps>' (a switch-to-switch "
        "link's rate, both ways), '<time_us> down <a> <b>' and '... up ...' (every frame on the "
        "link lost, "
        "both ways), '<time_us> loss <a> <b> <p>' (a switch-to-switch link drops each frame "
        "with probability p, both ways), '<time_us> ecn <a> <b> <kmin_bytes> <kmax_bytes>' (RED "
        "thresholds of the "
        "switch ports on the link, both ways), '<time_us> drop_psn_mod <a> <b> <n> <r>' (frames "
        "from a to b whose BTH PSN "
        "mod n is r lost), '<time_us> drop_ipid_mod <a> <b> <n> <r>' (frames from a to b whose "
        "IPv4 identification mod n is r lost: MP-RDMA's switch rule, the NICs count the ID per "
        "QP); nodes by name (h0, leaf1, n5); empty = none",
        {});
}

namespace {
constexpr uint64_t kNoTime = ~uint64_t{0};
}  // namespace

void FlowParams::describe(ParamTable& t) {
  t.add("flows.file", &file,
        "ns-3 HPCC flow file (a count line, then `src dst priority dport bytes start_s`; hosts "
        "by node id, as ns-3 HPCC reads them); empty: flows are generated from the keys below",
        {});
  t.add("flows.cdf", &cdf,
        "size CDF file (`bytes cumulative-percent` a line; data/cdf/ has WebSearch and FB "
        "Hadoop); empty: every flow is flows.bytes",
        {});
  t.add("flows.bytes", &bytes, "byte", "size of every generated flow when flows.cdf is empty", 1,
        2147483647.0);
  t.add("flows.pattern", &pattern,
        "destinations: random (uniform per flow), permutation (a fixed derangement), incast "
        "(all to host 0), mix (two halves, flows.inter_fraction of them across)",
        {"random", "permutation", "incast", "mix"});
  t.add("flows.arrival", &arrival,
        "poisson (each host at flows.load of its link rate until flows.duration_us) or once "
        "(each sender one flow at time 0)",
        {"poisson", "once"});
  t.add("flows.load", &load, "fraction", "poisson: offered load of each host's link, in (0, 1)", 0,
        1);
  t.add("flows.duration_us", &duration_us, "us", "poisson: flows start before this time", 0, 1e9);
  t.add("flows.inter_fraction", &inter_fraction, "fraction",
        "mix: share of flows to the other half of the hosts (the other DC)", 0, 1);
  t.add("flows.opcode", &opcode,
        "the WQE of every flow: write (RDMA WRITE to the destination), send, or read (the "
        "source host READs from the destination)",
        {"write", "send", "read"});
  t.add("flows.mode", &mode,
        "ooo: WQEs carry ORNIC's out-of-order flag (placed as they arrive); standard: in-order "
        "WQEs",
        {"ooo", "standard"});
}

void FabricRunParams::describe(ParamTable& t) {
  t.add("run.max_sim_ms", &max_sim_ms, "ms",
        "simulated-time limit, counted from the last flow's start: a run whose flows have not "
        "all completed by then stops and fails, naming the flows still open (faults later than "
        "it are refused)",
        0.001, 1e7);
  t.add("run.stall_ms", &stall_ms, "ms",
        "fabric: a run in which flows are open but no byte lands at any destination and no flow "
        "completes for this long (simulated; plus a round trip of frames on the slowest links) "
        "stops and fails, reporting what is paused where (a PFC deadlock, or a network that "
        "drops everything); a pending link up, rate or loss fault holds it; 0 = never",
        0, 1e7);
  t.add("run.nic_sram_csv", &sram_csv,
        "fabric: write sram.csv (occupancy change points of every NIC's SRAMs; rows grow with "
        "packets x hosts)");
  t.add("run.queues_csv", &queues_csv,
        "fabric: write queues.csv (every change of a switch port's queued bytes)");
  t.add("run.queues_switches", &queues_switches,
        "fabric: queues.csv only for these switches (comma-separated names); empty: all", {});
  t.add("run.queues_sample_ns", &queues_sample_ns, "ns",
        "fabric: queues.csv keeps at most one change per port per this interval (the first in "
        "it); 0: every change",
        0, 1e12);
  t.add(
      "run.qps_csv", &qps_csv,
      "fabric: write qps.csv (per receiving QP: packets, out-of-order degree, bitmap blocks held)");
  t.add("run.rates_csv", &rates_csv,
        "fabric: write rates.csv (every change of a QP's sending rate by its rate core, e.g. "
        "DCQCN; rows grow with CNPs and increase events)");
  t.add("run.link_pcap", &link_pcap,
        "fabric: write h<i>_tx.pcap and h<i>_rx.pcap for every host link (frames the host sent, "
        "as delivered to its switch; frames it received, PFC frames included)");
}

bool wants_fabric(const std::string& config, const std::vector<std::string>& sets) {
  for (const auto& s : sets)
    if (s.rfind("topology.", 0) == 0) return true;
  if (config.empty()) return false;
  try {
    YAML::Node n = YAML::LoadFile(config);
    return n.IsMap() && n["topology"];
  } catch (const YAML::BadFile&) {
    throw Error(msg::kIo, config + ": cannot read");
  } catch (const YAML::Exception& e) {
    throw Error(msg::kConfig, config + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

namespace {

constexpr uint64_t kSqBase = 0x10000000;
constexpr uint32_t kSqEntries = 2, kCqEntries = 2;
constexpr uint32_t kQpnBase = 0x100;
constexpr uint64_t kSettleCompletions = 16;

uint64_t align(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// Host node n's IPv4 address, ns-3 HPCC's scheme (node_id_to_ip): 11.x.y.1.
uint32_t host_ip(uint32_t n) {
  return 0x0b000001u + (n / 256) * 0x10000u + (n % 256) * 0x100u;
}

using Host = system::Host;
using Fabric = system::System;

// A flow and everything measured about it.
struct FlowRun {
  network::Flow f;
  uint32_t id = 0;
  ornic::WqeOp op = ornic::WqeOp::kWrite;
  uint32_t requester = 0, responder = 0;  // host indexes: who posts, who answers
  uint32_t req_qpn = 0, rsp_qpn = 0;
  uint16_t sport = 0;
  uint64_t record = 0;                     // in the requester's driver
  uint32_t data_host = 0, data_index = 0;  // where the bytes land: FlowCheck entry
  uint64_t ideal_ps = 0;
  // The data's receiving QP: arrival order.
  uint64_t packets = 0, ooo_packets = 0, duplicates = 0;
  uint32_t max_psn = 0;
  bool seen = false;
  uint32_t max_ood = 0;
  uint64_t ood_sum = 0;
  std::map<uint32_t, uint64_t> ood_hist;  // OOD -> packets, OOD > 0 (the rest are 0)
  uint32_t peak_blocks = 0;
  // Frames of the flow lost on a wire or by a fault: data (requests, READ responses) and
  // control (ACK, NAK, scheme feedback, CNP).
  uint64_t lost_data = 0, lost_control = 0;
};

uint32_t p999(const std::map<uint32_t, uint64_t>& h, uint64_t n) {
  if (!n) return 0;
  const uint64_t want = n - n / 1000;  // the smallest value with >= 99.9 % at or below it
  uint64_t acc = n;                    // packets of OOD 0: those h does not hold
  for (const auto& [v, c] : h) acc -= c;
  if (acc >= want) return 0;
  for (const auto& [v, c] : h)
    if ((acc += c) >= want) return v;
  return h.empty() ? 0 : h.rbegin()->first;
}

// What the switch factory builds switch node n from.
network::SwitchBuild switch_build(const AllParams& all, const Topology& t,
                                  const network::Routes& routes, uint32_t n,
                                  const network::AddressMap& addrs, uint64_t seed, Stats& stats) {
  return network::SwitchBuild::of(all.sw, all.routing, t, routes, n, addrs, seed, stats);
}

// The path a flow's packets take (first equal-cost choice at each switch).
std::vector<uint32_t> path_links(const Fabric& fb, uint32_t src_node, uint32_t dst_node) {
  std::vector<uint32_t> links;
  uint32_t n = src_node;
  const Topology& t = fb.topo;
  links.push_back(t.ports[n][0].link);
  n = t.ports[n][0].peer;
  while (n != dst_node) {
    const auto& ps = fb.routes->next_ports(n, dst_node);
    links.push_back(t.ports[n][ps[0]].link);
    n = t.ports[n][ps[0]].peer;
  }
  return links;
}

// Header bytes of a data frame (without its payload) and of an ACK, by wire: RoCEv2 (BTH
// and ICRC; the first packet of a WRITE adds its RETH) or UET (PDS request and SES
// standard header on every packet; an ACK_CC).
struct WireHeaders {
  size_t data, first_extra, ack;
};
WireHeaders wire_headers(bool uet) {
  constexpr size_t kL2L4 = wire::kEthHeaderBytes + wire::kIpv4HeaderBytes + wire::kUdpHeaderBytes;
  if (uet)
    return {kL2L4 + wire::uet::kReqBytes + wire::uet::kSesStdBytes, 0,
            kL2L4 + wire::uet::kAckCcBytes};
  const size_t data = kL2L4 + wire::kBthBytes + wire::kIcrcBytes;
  return {data, wire::kRethBytes, data + wire::kAethBytes};
}

// The base RTT of a path for data frames of `full` payload bytes: 2 x sum(propagation) +
// sum over the links of one such frame's and one ACK's serialization; and the path's
// slowest link.
struct PathRtt {
  double ps = 0, min_gbps = 1e18;
};
PathRtt path_rtt(const Fabric& fb, const std::vector<uint32_t>& links, uint64_t full,
                 const WireHeaders& h) {
  double prop_ps = 0, ser_ps = 0;
  PathRtt r;
  for (uint32_t l : links) {
    const auto& L = fb.topo.links[l];
    prop_ps += L.delay_ns * 1000;
    ser_ps += (wire::wire_bytes(h.data + full) + wire::wire_bytes(h.ack)) * 8 / L.gbps * 1000;
    r.min_gbps = std::min(r.min_gbps, L.gbps);
  }
  r.ps = 2 * prop_ps + ser_ps;
  return r;
}

// Ideal FCT (docs/FABRIC.md): the flow alone on an idle path, as ns-3 HPCC's
// standalone_fct: base RTT + every data frame's wire bytes at the bottleneck.
//   base RTT = 2 x sum(propagation) + sum over the links of one full data
//              frame's and one ACK's serialization
uint64_t ideal_fct_ps(const Fabric& fb, const FlowRun& fr, uint32_t pmtu, const WireHeaders& h) {
  const auto links = path_links(fb, fb.host_nodes[fr.f.src], fb.host_nodes[fr.f.dst]);
  const uint64_t packets = std::max<uint64_t>(1, (fr.f.bytes + pmtu - 1) / pmtu);
  const uint64_t full = std::min<uint64_t>(fr.f.bytes, pmtu);
  const double wire_total = static_cast<double>(packets) * wire::wire_bytes(h.data) +
                            static_cast<double>(fr.f.bytes) +
                            (fr.op == ornic::WqeOp::kSend ? 0 : h.first_extra);
  const PathRtt p = path_rtt(fb, links, full, h);
  return static_cast<uint64_t>(p.ps + wire_total * 8 / p.min_gbps * 1000);
}

network::SizeCdf load_cdf(const FlowParams& p, const std::string& base) {
  if (p.cdf.empty())
    return network::SizeCdf::from_points(
        {{static_cast<double>(p.bytes), 0}, {static_cast<double>(p.bytes), 100}}, "flows.bytes");
  return network::SizeCdf::read(resolve(base, p.cdf));
}

const char* bucket_name(uint64_t b) {
  if (b < 10000) return "<10KB";
  if (b < 100000) return "10KB-100KB";
  if (b < 1000000) return "100KB-1MB";
  if (b < 10000000) return "1MB-10MB";
  return ">=10MB";
}

}  // namespace

namespace {
constexpr uint64_t kMaxRouteWork = uint64_t{1} << 31;
}  // namespace

Inputs read_inputs(const AllParams& all, const std::string& base, uint64_t seed,
                   uint64_t max_flows) {
  Inputs in;
  network::check_switch_model(all.sw.model);
  in.topo = all.topology.build(base);
  const Topology& t = in.topo;
  const std::string where = t.source.empty() ? "topology.kind " + all.topology.kind : t.source;
  in.host_of_node.assign(t.nodes.size(), -1);
  for (uint32_t n : t.hosts()) {
    if (t.ports[n].size() != 1)  // read_hpcc refuses it with the line; a generated one has 1
      throw Error(msg::kConfig, where + ": host " + t.nodes[n].name + " has " +
                                    std::to_string(t.ports[n].size()) +
                                    " links; a host has one NIC port");
    in.host_of_node[n] = static_cast<int32_t>(in.host_nodes.size());
    in.host_nodes.push_back(n);
  }
  const uint32_t nh = static_cast<uint32_t>(in.host_nodes.size());
  // Routing holds a row per host over every node and walks every link once per host:
  // bounded here, naming the keys that sized a generated fabric.
  {
    const uint64_t entries = uint64_t{nh} * t.nodes.size();
    const uint64_t work = uint64_t{nh} * (t.nodes.size() + t.links.size());
    if (entries > network::Routes::kMaxRouteEntries || work > kMaxRouteWork)
      throw Error(msg::kConfig,
                  where +
                      (t.source.empty() ? " (topology.spines, .leaves, .hosts_per_leaf, .k)"
                                        : std::string()) +
                      ": " + std::to_string(nh) + " hosts, " + std::to_string(t.nodes.size()) +
                      " nodes and " + std::to_string(t.links.size()) +
                      " links: routing would hold hosts x nodes = " + std::to_string(entries) +
                      " entries (at most " + std::to_string(network::Routes::kMaxRouteEntries) +
                      ") and walk hosts x (nodes + links) = " + std::to_string(work) +
                      " (at most " + std::to_string(kMaxRouteWork) + ")");
  }
  if (nh < 2)
    throw Error(msg::kConfig,
                where + ": " + std::to_string(nh) + " host(s); a fabric needs at least two");

  // Flows: a file names hosts by node id (ns-3 HPCC); generated ones by host index.
  if (!all.flows.file.empty()) {
    const std::string path = resolve(base, all.flows.file);
    network::FlowFileInfo info;
    in.flows = network::read_hpcc_flows(path, in.host_of_node, max_flows, &info);
    if (info.ignored_from)
      in.notes.push_back(path + ":" + std::to_string(info.ignored_from) + ": lines after the " +
                         std::to_string(in.flows.size()) + " flows of the count on line " +
                         std::to_string(info.count_line) + " are not read (as in ns-3 HPCC)");
  } else {
    network::WorkloadParams wp;
    wp.pattern = all.flows.pattern, wp.arrival = all.flows.arrival, wp.load = all.flows.load;
    wp.inter_fraction = all.flows.inter_fraction;
    wp.host_gbps = t.links[t.ports[in.host_nodes[0]][0].link].gbps;
    wp.duration_s = all.flows.duration_us * 1e-6;
    wp.seed = seed;
    wp.max_flows = max_flows;
    in.flows = network::generate_flows(wp, load_cdf(all.flows, base), nh);
    for (const auto& f : in.flows)
      if (f.bytes > network::kMaxFlowBytes)
        throw Error(msg::kConfig, (all.flows.cdf.empty() ? std::string("flows.bytes")
                                                         : "flows.cdf " + all.flows.cdf) +
                                      ": a flow of " + std::to_string(f.bytes) +
                                      " bytes; one WQE carries at most 2^31 - 1");
  }
  if (in.flows.empty())
    throw Error(msg::kConfig, all.flows.file.empty()
                                  ? "flows: the workload has no flows (raise flows.duration_us "
                                    "or flows.load)"
                                  : all.flows.file + ": no flows");
  for (const auto& f : in.flows) in.last_start_ps = std::max(in.last_start_ps, f.start_ps);

  // Faults, in the time the run can reach (the last start plus run.max_sim_ms): a later
  // one could never apply.
  network::FaultLimits fl;
  fl.gbps_min = TopologyParams::kLinkGbpsMin, fl.gbps_max = TopologyParams::kLinkGbpsMax;
  fl.kmax_bytes = 1e12;  // switch.kmax_bytes's upper end
  fl.max_us = static_cast<double>(in.last_start_ps) / 1e6 + all.run.max_sim_ms * 1e3;
  in.faults = network::read_faults(resolve(base, all.faults.file), t, fl);

  // Keys that name parts of the topology.
  {
    std::stringstream ss(all.run.queues_switches);
    for (std::string x; std::getline(ss, x, ',');) {
      if (x.empty()) continue;
      bool known = false;
      for (uint32_t n : t.switches()) known = known || t.nodes[n].name == x;
      if (!known)
        throw Error(msg::kConfig, "run.queues_switches: no switch '" + x + "' in " + where);
    }
  }
  // THEMIS: the DCs' external switches are the two ends of the one switch-to-switch link
  // with the longest delay (two-dc: the DCI switches; a topology file: its long haul).
  if (all.themis.mode != "none") {
    int64_t best = -1;
    uint32_t ties = 0;
    for (uint32_t i = 0; i < t.links.size(); ++i) {
      const Topology::Link& l = t.links[i];
      if (t.is_host(l.a) || t.is_host(l.b)) continue;
      if (best < 0 || l.delay_ns > t.links[static_cast<size_t>(best)].delay_ns)
        best = static_cast<int64_t>(i), ties = 1;
      else if (l.delay_ns == t.links[static_cast<size_t>(best)].delay_ns)
        ++ties;
    }
    if (best < 0)
      throw Error(msg::kConfig, "themis.mode " + all.themis.mode + ": " + where +
                                    " has no switch-to-switch link");
    if (ties > 1)
      throw Error(msg::kConfig,
                  "themis.mode " + all.themis.mode + ": " + where + " has " + std::to_string(ties) +
                      " switch-to-switch links of the longest delay (" +
                      fmt(t.links[static_cast<size_t>(best)].delay_ns, 3) +
                      " ns); THEMIS needs one long-haul link between two DCs (" +
                      (all.topology.kind == "two-dc"
                           ? std::string("raise topology.dci_delay_ns above topology.link_delay_ns")
                           : std::string("topology.kind two-dc, or a file with one longest link")) +
                      ")");
    in.themis_link = best;
  }
  return in;
}

// What holds a stalled run: its open flows and every PFC pause and XOFF in force.
std::string stall_report(Fabric& fb, const Topology& t, const std::vector<FlowRun>& runs,
                         uint64_t now, uint64_t since) {
  std::ostringstream s;
  size_t open = 0;
  std::string first;
  for (const FlowRun& fr : runs) {
    const host::WqeRecord& r = fb.hosts[fr.requester]->driver->records()[fr.record];
    if (!r.posted || r.cqes) continue;
    if (open++ < 3)
      first += (first.empty() ? "" : ", ") + std::string("flow ") + std::to_string(fr.id) + " (" +
               t.nodes[fb.host_nodes[fr.f.src]].name + " -> " +
               t.nodes[fb.host_nodes[fr.f.dst]].name + ")";
  }
  s << "no byte landed and no flow completed from " << fmt(since / 1e6, 3) << " us to "
    << fmt(now / 1e6, 3) << " us (run.stall_ms) with " << open << " flow(s) open: " << first
    << (open > 3 ? ", ..." : "");
  std::vector<std::string> held;
  // A cycle of paused egress ports (each switch paused by the next) is a PFC deadlock.
  std::map<uint32_t, std::vector<uint32_t>> paused_by;  // node -> nodes pausing it
  for (uint32_t n : t.switches()) {
    for (const network::PortHold& h : fb.switches[fb.switch_of_node[n]]->holds(now)) {
      const uint32_t k = h.port;
      const std::string port = t.nodes[n].name + " port " + std::to_string(k) + " (to " +
                               t.nodes[t.ports[n][k].peer].name + ") priority " +
                               std::to_string(h.prio);
      if (h.paused_until_ps > now)
        held.push_back(port + " paused until " + fmt(h.paused_until_ps / 1e6, 3) + " us with " +
                       std::to_string(h.queued_bytes) + " B queued");
      if (h.xoff)
        held.push_back(port + " holds XOFF upstream with " + std::to_string(h.ingress_bytes) +
                       " B from it");
      if (h.paused_until_ps > now && !t.is_host(t.ports[n][k].peer))
        paused_by[n].push_back(t.ports[n][k].peer);
    }
  }
  std::vector<uint32_t> cycle;
  {
    std::map<uint32_t, int> state;  // 1: on the path, 2: done
    std::vector<uint32_t> path;
    std::function<bool(uint32_t)> dfs = [&](uint32_t n) {
      state[n] = 1;
      path.push_back(n);
      for (uint32_t m : paused_by[n]) {
        if (state[m] == 1) {
          cycle.assign(std::find(path.begin(), path.end(), m), path.end());
          cycle.push_back(m);
          return true;
        }
        if (state[m] == 0 && dfs(m)) return true;
      }
      path.pop_back();
      state[n] = 2;
      return false;
    };
    for (const auto& [n, _] : paused_by)
      if (state[n] == 0 && dfs(n)) break;
  }
  if (!cycle.empty()) {
    s << "; PFC deadlock: cycle ";
    for (size_t i = 0; i < cycle.size(); ++i) s << (i ? " -> " : "") << t.nodes[cycle[i]].name;
    s << " (each switch's port to the next paused by it)";
  }
  for (auto& h : fb.hosts) {
    const Cycle until = h->nic.mac().paused_until(1);
    const Cycle at = h->nic.clock().ceil_cycles(now);
    if (until > at)
      held.push_back(std::string(h->name()) + " NIC data paused until " +
                     fmt(until * h->nic.clock().period_ps() / 1e6, 3) + " us");
  }
  if (held.empty()) {
    s << "; no PFC pause or XOFF in force (frames lost or dropped everywhere?)";
  } else {
    s << "; " << held.size() << " PFC pause(s)/XOFF(s) in force: ";
    for (size_t i = 0; i < held.size() && i < 12; ++i) s << (i ? "; " : "") << held[i];
    if (held.size() > 12) s << "; ...";
  }
  return s.str();
}

namespace {

// A rate change a NIC reported (rates.csv).
struct RateRow {
  Cycle t;
  uint32_t host, qi;
  double gbps;
};

// One fabric run's state, from its inputs to its results: the fabric job's phases
// (read, build, add flows, observe, run, check, write) share it.
struct FabricRun {
  explicit FabricRun(const b2b::RunOptions& opts) : o(opts) {}
  const b2b::RunOptions o;
  AllParams all;
  ParamTable table;
  Inputs in;
  Fabric* fb = nullptr;  // the system run() builds
  uint32_t nh = 0;       // hosts
  std::string dir;       // results
  Stats stats;
  ClockDomain clk;
  std::unique_ptr<Vcd> vcd;
  std::vector<FlowRun> runs;
  std::vector<network::ThemisFlow> themis_flows;  // the flows crossing the long haul
  std::vector<uint32_t> qps_on;                   // per host: QPs of its flows
  std::vector<std::unordered_map<uint32_t, uint32_t>> flow_of_qpn;  // data receiver's QPN
  std::vector<std::unordered_map<uint32_t, uint32_t>> flow_at;      // per host: QPN -> flow
  std::unordered_map<uint32_t, uint32_t> host_at_ip;                // IPv4 -> host index
  // Per host: QP context index -> (flow, QPN), for rates.csv.
  std::vector<std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>> qp_of_qi;
  std::vector<RateRow> rate_rows;
  std::unique_ptr<std::ofstream> qcsv, pcsv;
  std::vector<std::unique_ptr<trace::PcapWriter>> pcaps;
  std::vector<results::NamedSram> srams;
  std::unique_ptr<results::SramCsv> sram_csv;
  uint32_t drivers_left = 0;
  uint64_t done = 0;  // CQEs
  size_t faults_applied = 0;
  system::Ran ran;  // how the run loop ended
  uint64_t end_ps = 0;
  Cycle end = 0;
  bool finished = false;
};

// The parameters, from the defaults, the config file and the overrides.
void read_params(FabricRun& r) {
  const b2b::RunOptions& o = r.o;
  AllParams& all = r.all;
  all.describe(r.table);
  apply_config(r.table, o.config, o.sets);
  all.nic.validate();
  all.sw.validate();
  if (all.host.digest)
    throw Error(msg::kConfig,
                "host.memory.digest is for oonic replay: a fabric checks data as it lands");
}

// The topology, routes and host addresses from the inputs read and checked.
void take_inputs(FabricRun& r) {
  Fabric* fb = r.fb;
  fb->topo = std::move(r.in.topo);
  const Topology& t = fb->topo;
  fb->routes = std::make_unique<network::Routes>(t);
  fb->host_nodes = r.in.host_nodes;
  fb->host_of_node = r.in.host_of_node;
  for (uint32_t n : fb->host_nodes) {
    std::array<uint8_t, 16> ip{};
    const uint32_t a = host_ip(n);
    ip[0] = uint8_t(a >> 24), ip[1] = uint8_t(a >> 16), ip[2] = uint8_t(a >> 8), ip[3] = uint8_t(a);
    fb->addrs[{4, ip}] = n;
  }
  r.nh = static_cast<uint32_t>(fb->host_nodes.size());
}

// What a rate core's parameters leave to the fabric: its base RTT at 0 (HPCC's T, NSCC's
// network_rtt) becomes the largest base RTT among the flows (ns-3 HPCC's GLOBAL_T: its
// maxRtt); for HPCC (tx.rate hpcc) also the INT stack's size, the most switches on a
// flow's path, and every switch port's rate must have an INT code.
void resolve_rate_core(FabricRun& r) {
  AllParams& all = r.all;
  const sender::RateKind& row = sender::find_rate(all.nic.rate());
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  sender::HpccParams* hp =
      row.int_stack ? all.nic.sender.rates.find<sender::HpccParams>("hpcc") : nullptr;
  if (hp) {
    const network::IntParams* ip = all.sw.hooks.find<network::IntParams>("int_stamp");
    if (!ip || ip->stamp != "off")
      for (const auto& l : t.links)
        if (!t.is_host(l.a) || !t.is_host(l.b))
          if (wire::int_rate_code(l.gbps) < 0)
            throw Error(msg::kConfig, "tx.rate hpcc: the link " + t.nodes[l.a].name + " - " +
                                          t.nodes[l.b].name + " runs at " + fmt(l.gbps, 3) +
                                          " Gbit/s, which has no INT rate code "
                                          "(model/wire/roce.h kIntRatesGbps)");
  }
  const bool rtt_open =
      row.base_rtt_key && std::stod(r.table.value_text(*r.table.find(row.base_rtt_key))) == 0;
  if (!rtt_open && !hp) return;
  double rtt_ps = 0;
  uint32_t hops = 1;
  for (const network::Flow& f : r.in.flows) {
    const auto links = path_links(fb, fb.host_nodes[f.src], fb.host_nodes[f.dst]);
    rtt_ps = std::max(
        rtt_ps, path_rtt(fb, links, all.nic.nic.pmtu_bytes, wire_headers(all.nic.uet_wire())).ps);
    hops = std::max<uint32_t>(hops, static_cast<uint32_t>(links.size()) - 1);
  }
  if (rtt_open && rtt_ps > 0)
    r.table.set(row.base_rtt_key, fmt(rtt_ps / 1e6, 6), "the fabric's largest base RTT");
  if (hp && hp->int_hops == 0) {
    if (hops > wire::kMaxIntHops)
      throw Error(msg::kConfig, "tx.rate hpcc: a flow crosses " + std::to_string(hops) +
                                    " switches; an INT stack holds at most " +
                                    std::to_string(wire::kMaxIntHops));
    r.table.set("cc.hpcc.int_hops", std::to_string(hops), "the fabric's longest path");
  }
}

// NSCC's target_Qdelay at 0 under trimming switches: 0.75 x network_rtt, htsim's
// (UecSrc::initNsccParams: a trimmed packet tells of congestion before its queue's delay
// does); without trimming the rate core takes network_rtt itself.
void resolve_nscc_target(FabricRun& r) {
  if (r.all.nic.rate() != "nscc") return;
  const network::TrimParams* tp = r.all.sw.hooks.find<network::TrimParams>("trim");
  if (!tp || !tp->trim) return;
  const ParamTable::Entry* target = r.table.find("cc.nscc.target_qdelay_us");
  const ParamTable::Entry* rtt = r.table.find("cc.nscc.network_rtt_us");
  if (!target || !rtt || std::stod(r.table.value_text(*target)) != 0) return;
  const double rtt_us = std::stod(r.table.value_text(*rtt));
  if (rtt_us <= 0) return;
  r.table.set("cc.nscc.target_qdelay_us", fmt(0.75 * rtt_us, 6),
              "0.75 x network_rtt: switch.trim is on (htsim's target with trimming)");
}

// The results directory, cleared of a previous run's files, with the run's inputs.
void prepare_results(FabricRun& r) {
  const b2b::RunOptions& o = r.o;
  r.dir = o.out.empty() ? "results/" + (o.config.empty() ? std::string("fabric")
                                                         : fs::path(o.config).stem().string())
                        : o.out;
  const std::string& dir = r.dir;
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".pcap") == 0) fs::remove(e.path());
  }
  for (const char* f :
       {"fct.csv", "fct.txt", "qps.csv", "links.csv", "queues.csv", "sram.csv", "summary.txt",
        "waves.vcd", "stats.json", "flows.txt", "topology.txt", "pfc.csv", "rates.csv"})
    fs::remove(fs::path(dir) / f);
  write_text(dir + "/config.yaml", resolved_yaml(r.table));
  write_text(dir + "/flows.txt", network::hpcc_flows_text(r.in.flows, r.fb->host_nodes));
  write_text(dir + "/topology.txt", r.fb->topo.hpcc_text());
}

// How each host is built: its NIC at its link's rate, its uplink from the topology.
std::vector<system::HostSpec> host_specs(const FabricRun& r) {
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  std::vector<system::HostSpec> specs(r.nh);
  for (uint32_t h = 0; h < r.nh; ++h) {
    const Topology::Link& l = t.links[t.ports[fb.host_nodes[h]][0].link];
    system::HostSpec& sp = specs[h];
    sp.nic = r.all.nic;
    sp.nic.mac.rate_gbps = l.gbps;
    sp.uplink.rate_gbps = l.gbps, sp.uplink.propagation_ns = l.delay_ns;
    sp.uplink.loss_rate = l.error_rate;
  }
  return specs;
}

// The switch at node n, through the factory (switch.model). THEMIS: the DCs' external
// switches are the two ends of the switch-to-switch link with the longest delay
// (two-dc: the DCI switches; a topology file: its long haul).
std::unique_ptr<network::SwitchNode> make_switch(FabricRun& r, uint32_t n) {
  const AllParams& all = r.all;
  const Topology& t = r.fb->topo;
  network::SwitchBuild b = switch_build(all, t, *r.fb->routes, n, r.fb->addrs, r.o.seed, r.stats);
  b.senders_int = sender::find_rate(all.nic.rate()).int_stack;
  if (r.in.themis_link >= 0) {
    const Topology::Link& l = t.links[static_cast<uint32_t>(r.in.themis_link)];
    for (uint32_t k = 0; k < t.ports[n].size(); ++k)
      if (t.ports[n][k].link == static_cast<uint32_t>(r.in.themis_link))
        b.themis = network::ThemisSetup{
            &all.themis, &all.nic.sender.dcqcn(), k,
            static_cast<uint64_t>(std::llround(2 * l.delay_ns * 1000.0)), &r.themis_flows};
  }
  return network::make_switch(all.sw.model, b);
}

// Each flow's requester and responder QPNs and UDP source port; every host's QPs fit.
void name_flows(FabricRun& r) {
  const AllParams& all = r.all;
  const std::vector<network::Flow>& flows = r.in.flows;
  r.runs.resize(flows.size());
  r.qps_on.assign(r.nh, 0);
  const ornic::WqeOp op = all.flows.opcode == "send"   ? ornic::WqeOp::kSend
                          : all.flows.opcode == "read" ? ornic::WqeOp::kRead
                                                       : ornic::WqeOp::kWrite;
  Rng port_rng = make_rng(r.o.seed, "fabric.udp_sport");
  for (size_t i = 0; i < flows.size(); ++i) {
    FlowRun& fr = r.runs[i];
    fr.f = flows[i];
    fr.id = static_cast<uint32_t>(i);
    fr.op = op;
    fr.requester = fr.f.src, fr.responder = fr.f.dst;
    fr.req_qpn = kQpnBase + r.qps_on[fr.requester]++;
    fr.rsp_qpn = kQpnBase + r.qps_on[fr.responder]++;
    fr.sport = static_cast<uint16_t>(49152 + port_rng() % 16384);
  }
  for (uint32_t h = 0; h < r.nh; ++h)
    if (r.qps_on[h] > all.nic.nic.max_qps)
      throw Error(msg::kConfig, "host " + r.fb->topo.nodes[r.fb->host_nodes[h]].name + " needs " +
                                    std::to_string(r.qps_on[h]) +
                                    " QPs (one per flow it sends or "
                                    "receives); nic.max_qps is " +
                                    std::to_string(all.nic.nic.max_qps) +
                                    ": raise it (and sram.qp.context.depth)");
}

// THEMIS's flow table (themis.np_flows table): every flow whose data crosses the long
// haul, as the control plane knows it at connection setup.
void list_themis_flows(FabricRun& r) {
  if (r.in.themis_link < 0) return;
  const Fabric& fb = *r.fb;
  for (const FlowRun& fr : r.runs) {
    const bool read = fr.op == ornic::WqeOp::kRead;
    const uint32_t from = read ? fr.responder : fr.requester;  // the data's sender
    const uint32_t to = read ? fr.requester : fr.responder;
    const std::vector<uint32_t> links = path_links(fb, fb.host_nodes[from], fb.host_nodes[to]);
    if (std::find(links.begin(), links.end(), static_cast<uint32_t>(r.in.themis_link)) ==
        links.end())
      continue;
    r.themis_flows.push_back({host_ip(fb.host_nodes[from]), host_ip(fb.host_nodes[to]), fr.sport,
                              read ? fr.rsp_qpn : fr.req_qpn});
  }
}

// The QP context of one end of a flow: its addresses and the flow's source port.
ornic::QpContext flow_qp(const Fabric& fb, const FlowRun& fr, uint32_t self, uint32_t peer,
                         uint32_t qpn, uint32_t peer_qpn) {
  ornic::QpContext c;
  c.qpn = qpn, c.peer_qpn = peer_qpn;
  c.pmtu = 0;  // nic.pmtu_bytes
  c.otd = 0;   // nic.otd
  wire::FrameSpec& s = c.tx_template;
  const uint32_t a = host_ip(fb.host_nodes[self]), b = host_ip(fb.host_nodes[peer]);
  s.src_mac = {0x02, 0, uint8_t(self >> 16), uint8_t(self >> 8), uint8_t(self), 0};
  s.dst_mac = {0x02, 0, uint8_t(peer >> 16), uint8_t(peer >> 8), uint8_t(peer), 0};
  s.src_ip = {uint8_t(a >> 24), uint8_t(a >> 16), uint8_t(a >> 8), uint8_t(a)};
  s.dst_ip = {uint8_t(b >> 24), uint8_t(b >> 16), uint8_t(b >> 8), uint8_t(b)};
  s.udp_sport = fr.sport;
  c.epsn = 0;
  return c;
}

// One QP pair and one WQE per flow, and the bytes each must land.
void add_flows(FabricRun& r) {
  const AllParams& all = r.all;
  Fabric* fb = r.fb;
  std::vector<uint64_t> next_src(r.nh, host::kSourceBase), next_dst(r.nh, host::kDestBase);
  r.flow_of_qpn.assign(r.nh, {});
  r.flow_at.assign(r.nh, {});
  for (uint32_t h = 0; h < r.nh; ++h) r.host_at_ip[host_ip(fb->host_nodes[h])] = h;
  r.qp_of_qi.assign(r.nh, {});
  std::vector<uint32_t> slot_on(r.nh, 0);
  for (FlowRun& fr : r.runs) {
    const uint64_t len = std::max<uint64_t>(fr.f.bytes, 1);
    // Bytes move data_src -> data_dst: the requester's to the responder's
    // (WRITE, SEND), or back (READ).
    const bool read = fr.op == ornic::WqeOp::kRead;
    const uint32_t data_src = read ? fr.responder : fr.requester;
    const uint32_t data_dst = read ? fr.requester : fr.responder;
    const uint64_t src = next_src[data_src];
    next_src[data_src] = align(src + len, 4096);
    const uint64_t dst = next_dst[data_dst];
    next_dst[data_dst] = align(dst + len, 4096);
    if (next_src[data_src] > host::kSourceEnd || next_dst[data_dst] > host::kDestEnd)
      throw Error(msg::kConfig, "flows: more than 64 GiB to or from one host");
    fr.data_host = data_dst;
    fr.data_index = fb->hosts[data_dst]->check.add_dest(dst, len, src);
    r.flow_of_qpn[data_dst][read ? fr.req_qpn : fr.rsp_qpn] = fr.id;
    r.flow_at[fr.requester][fr.req_qpn] = fr.id;
    r.flow_at[fr.responder][fr.rsp_qpn] = fr.id;
    const uint32_t rkey = 0x1000u + fr.id;

    ornic::QpContext rq = flow_qp(*fb, fr, fr.requester, fr.responder, fr.req_qpn, fr.rsp_qpn);
    ornic::QpContext rs = flow_qp(*fb, fr, fr.responder, fr.requester, fr.rsp_qpn, fr.req_qpn);
    if (fr.op == ornic::WqeOp::kSend) {
      rs.recv_base = dst, rs.recv_count = 1;
      rs.recv_bytes = static_cast<uint32_t>(len);
    }
    rs.regions.push_back(ornic::MemoryRegion{read ? src : dst, len, rkey});
    Host& hq = *fb->hosts[fr.requester];
    const uint32_t qi = hq.nic.add_qp(rq);
    const uint32_t rsp_qi = fb->hosts[fr.responder]->nic.add_qp(rs);
    r.qp_of_qi[fr.requester][qi] = {fr.id, fr.req_qpn};
    r.qp_of_qi[fr.responder][rsp_qi] = {fr.id, fr.rsp_qpn};
    host::HostDriver::QpSetup s;
    const uint32_t slot = slot_on[fr.requester]++;
    s.qi = qi, s.qpn = fr.req_qpn, s.peer_qpn = fr.rsp_qpn, s.sq_psn = 0;
    const uint64_t sq_bytes =
        align(uint64_t{r.qps_on[fr.requester]} * kSqEntries * ornic::kWqeBytes, 4096);
    s.sq_base = kSqBase + uint64_t{slot} * kSqEntries * ornic::kWqeBytes;
    s.cq_base = kSqBase + sq_bytes + uint64_t{slot} * kCqEntries * ornic::kCqeBytes;
    s.sq_entries = kSqEntries, s.cq_entries = kCqEntries;
    hq.driver->add_qp(s);
    ornic::Wqe w;
    w.op = fr.op;
    w.ooo =
        all.flows.mode == "ooo" && (fr.op != ornic::WqeOp::kSend ||
                                    ordering::find_scheme(all.nic.nic.ordering).traits.ooo_send);
    w.length = static_cast<uint32_t>(len);
    w.local_addr = read ? dst : src;
    w.remote_addr = read ? src : dst;
    w.rkey = rkey;
    fr.record = hq.driver->add_wqe(qi, w, dst, fr.f.start_ps);
    fr.ideal_ps = ideal_fct_ps(*fb, fr, all.nic.nic.pmtu_bytes, wire_headers(all.nic.uet_wire()));
  }
}

// The faults due by now (faults.file), applied at both ends of their link.
void apply_faults(FabricRun& r, uint64_t now) {
  Fabric* fb = r.fb;
  const Topology& t = fb->topo;
  const std::vector<network::Fault>& faults = r.in.faults;
  auto port_to = [&](uint32_t n, uint32_t peer) {
    for (uint32_t k = 0; k < t.ports[n].size(); ++k)
      if (t.ports[n][k].peer == peer) return k;
    return 0u;
  };
  // One direction a -> b: its sender's end.
  auto end = [&](uint32_t a, uint32_t b, auto on_switch, auto on_host) {
    if (t.is_host(a))
      on_host(fb->hosts[fb->host_of_node[a]]->uplink);
    else
      on_switch(*fb->switches[fb->switch_of_node[a]], port_to(a, b));
  };
  for (; r.faults_applied < faults.size(); ++r.faults_applied) {
    const network::Fault& x = faults[r.faults_applied];
    if (static_cast<uint64_t>(std::llround(x.at_us * 1e6)) > now) break;
    using K = network::PortFault::Kind;
    for (const auto& [a, b] : {std::pair{x.a, x.b}, std::pair{x.b, x.a}}) {
      network::PortFault pf;
      if (x.what == "rate") {
        pf.kind = K::kRate, pf.value = x.value;
      } else if (x.what == "ecn") {
        pf.kind = K::kEcn, pf.a = x.n, pf.b = x.r;
      } else if (x.what == "loss") {
        pf.kind = K::kLoss, pf.value = x.value;
      } else if (x.what == "down" || x.what == "up") {
        pf.kind = x.what == "down" ? K::kDown : K::kUp;
      } else if (a == x.a) {  // drop_psn_mod, drop_ipid_mod: from a to b only
        pf.kind = K::kPsnRule, pf.a = x.n, pf.b = x.r, pf.ip_id = x.what == "drop_ipid_mod";
      } else {
        continue;
      }
      end(
          a, b,
          [&](network::SwitchNode& s, uint32_t k) {
            pf.port = k;
            s.apply_fault(pf);
          },
          [&](network::NetworkLink& l) {  // a host's uplink: down/up and rules only
            if (pf.kind == K::kDown || pf.kind == K::kUp) l.set_down(pf.kind == K::kDown);
            if (pf.kind == K::kPsnRule)
              l.add_psn_rule(static_cast<uint32_t>(pf.a), static_cast<uint32_t>(pf.b), pf.ip_id);
          });
    }
  }
}

// Each flow's data packets as its receiving NIC parses them: arrival order and OOD.
void observe_packets(FabricRun& r) {
  std::vector<FlowRun>& runs = r.runs;
  for (uint32_t h = 0; h < r.nh; ++h) {
    auto* qmap = &r.flow_of_qpn[h];
    r.fb->hosts[h]->nic.set_packet_observer([qmap, &runs](const ornic::PacketRecord& rec) {
      // Packets that carry a message's data (standard and ORNIC's OOO opcodes).
      const bool data =
          (rec.opcode >= 0 && rec.opcode <= wire::kReadResponseOnly) ||
          (rec.opcode >= wire::kOooWriteFSpot && rec.opcode <= wire::kOooReadResponse);
      if (!data) return;
      auto it = qmap->find(rec.qpn);
      if (it == qmap->end()) return;
      FlowRun& fr = runs[it->second];
      // A duplicate is a drop (Drop::kDuplicate): counted before the other drops leave.
      if (rec.drop == ornic::Drop::kDuplicate) {
        ++fr.duplicates;
        return;
      }
      if (rec.drop != ornic::Drop::kNone) return;
      if (rec.bitmap) fr.peak_blocks = std::max(fr.peak_blocks, rec.blocks_held);
      ++fr.packets;
      uint32_t ood = 0;
      if (!fr.seen) {
        fr.seen = true, fr.max_psn = rec.psn;
      } else {
        const uint32_t ahead = (rec.psn - fr.max_psn) & wire::kPsnMask;
        if (ahead && ahead < (1u << 23))
          fr.max_psn = rec.psn;
        else if (ahead)
          ood = (fr.max_psn - rec.psn) & wire::kPsnMask;
      }
      if (ood) ++fr.ooo_packets;
      fr.max_ood = std::max(fr.max_ood, ood);
      fr.ood_sum += ood;
      if (ood) ++fr.ood_hist[ood];  // most packets arrive in order: no map walk
    });
  }
}

// queues.csv: a port's queued bytes as they change (run.queues_switches,
// run.queues_sample_ns).
void observe_queues(FabricRun& r) {
  const FabricRunParams& run = r.all.run;
  r.qcsv = std::make_unique<std::ofstream>(r.dir + "/queues.csv");
  *r.qcsv << "time_ns,switch,port,bytes\n";
  std::set<std::string> only;
  {
    std::stringstream ss(run.queues_switches);
    for (std::string x; std::getline(ss, x, ',');)
      if (!x.empty()) only.insert(x);
  }
  const uint64_t sample_ps = static_cast<uint64_t>(std::llround(run.queues_sample_ns * 1000));
  std::ofstream* qcsv = r.qcsv.get();
  for (auto& sw : r.fb->switches) {
    const std::string name = sw->module().name();
    if (!only.empty() && !only.count(name)) continue;
    auto last = std::make_shared<std::vector<uint64_t>>(sw->port_frames_out().size(), kNoTime);
    sw->on_queue([qcsv, name, sample_ps, last](uint64_t ps, uint32_t port, uint64_t bytes) {
      uint64_t& l = (*last)[port];
      if (sample_ps && l != kNoTime && ps < l + sample_ps) return;
      l = ps;
      *qcsv << fmt(ps / 1000.0, 3) << "," << name << "," << port << "," << bytes << "\n";
    });
  }
}

// pfc.csv: PFC frames as they are sent and received.
void observe_pfc(FabricRun& r) {
  const Topology& t = r.fb->topo;
  r.pcsv = std::make_unique<std::ofstream>(r.dir + "/pfc.csv");
  *r.pcsv << "time_ns,switch,port,peer,priority,quanta,event\n";
  std::ofstream* pcsv = r.pcsv.get();
  for (uint32_t n : t.switches()) {
    auto& sw = *r.fb->switches[r.fb->switch_of_node[n]];
    std::vector<std::string> peers;
    for (const auto& p : t.ports[n]) peers.push_back(t.nodes[p.peer].name);
    sw.on_pfc([pcsv, name = std::string(sw.module().name()), peers](
                  uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool sent) {
      *pcsv << fmt(ps / 1000.0, 3) << "," << name << "," << port << "," << peers[port] << ","
            << int{prio} << "," << quanta << ","
            << (sent ? (quanta ? "xoff_sent" : "xon_sent")
                     : (quanta ? "pause_received" : "xon_received"))
            << "\n";
    });
  }
}

// h<i>_tx.pcap: what host i sent, as its uplink delivered it; h<i>_rx.pcap: what it
// received (its switch port's deliveries, PFC frames included, or its peer's uplink).
void capture_links(FabricRun& r) {
  Fabric* fb = r.fb;
  const Topology& t = fb->topo;
  std::vector<trace::PcapWriter*> tx(r.nh), rx_of_node(t.nodes.size(), nullptr);
  for (uint32_t h = 0; h < r.nh; ++h) {
    const std::string n = fb->hosts[h]->name();
    r.pcaps.push_back(std::make_unique<trace::PcapWriter>(r.dir + "/" + n + "_tx.pcap"));
    tx[h] = r.pcaps.back().get();
    r.pcaps.push_back(std::make_unique<trace::PcapWriter>(r.dir + "/" + n + "_rx.pcap"));
    rx_of_node[fb->host_nodes[h]] = r.pcaps.back().get();
  }
  for (uint32_t h = 0; h < r.nh; ++h) {
    trace::PcapWriter* w = tx[h];
    trace::PcapWriter* peer = rx_of_node[t.ports[fb->host_nodes[h]][0].peer];
    fb->hosts[h]->uplink.on_deliver([w, peer](uint64_t ps, const uint8_t* f, size_t n) {
      w->write(ps, f, n);
      if (peer) peer->write(ps, f, n);
    });
  }
  for (uint32_t n : t.switches()) {
    std::vector<trace::PcapWriter*> to(t.ports[n].size(), nullptr);
    for (uint32_t k = 0; k < t.ports[n].size(); ++k) to[k] = rx_of_node[t.ports[n][k].peer];
    fb->switches[fb->switch_of_node[n]]->on_deliver(
        [to](uint32_t port, uint64_t ps, const uint8_t* f, size_t len) {
          if (to[port]) to[port]->write(ps, f, len);
        });
  }
}

// Frames lost on a switch's egress wire or by a fault on a host's uplink, counted to
// their flow (its destination host's QP).
void observe_losses(FabricRun& r) {
  auto count = [&r](const uint8_t* f, size_t len) {
    wire::PacketView v;
    wire::parse_any(f, len, v, false);
    if (v.ip_version != 4) return;
    const auto h = r.host_at_ip.find(static_cast<uint32_t>(network::ip_key(v, true)));
    if (h == r.host_at_ip.end()) return;
    const auto q = r.flow_at[h->second].find(v.bth.dest_qp);
    if (q == r.flow_at[h->second].end()) return;
    FlowRun& fr = r.runs[q->second];
    if (network::control_opcode(v.bth.opcode))
      ++fr.lost_control;
    else
      ++fr.lost_data;
  };
  for (auto& sw : r.fb->switches)
    sw->on_lost([count](uint32_t, uint64_t, const uint8_t* f, size_t len) { count(f, len); });
  for (auto& h : r.fb->hosts)
    h->uplink.on_drop(
        [count](uint64_t, const uint8_t* f, size_t len, const char*) { count(f, len); });
}

// Every observer the outputs asked for.
void observe(FabricRun& r) {
  observe_packets(r);
  observe_losses(r);
  if (r.all.run.rates_csv)
    for (uint32_t h = 0; h < r.nh; ++h)
      r.fb->hosts[h]->nic.rate_control().on_rate(
          [rows = &r.rate_rows, h](uint32_t qi, Cycle t, double g) {
            rows->push_back({t, h, qi, g});
          });
  if (r.all.run.queues_csv) observe_queues(r);
  if (r.all.sw.pfc) observe_pfc(r);  // pfc.csv, when switch.pfc is on
  if (r.all.run.link_pcap) capture_links(r);
}

// Completions: progress on a terminal, sram.csv settled as the run goes, and the
// kernel stopped when every driver is done.
void on_completions(FabricRun& r) {
  r.drivers_left = r.nh;
  const bool progress = !r.o.quiet && isatty(fileno(stderr));
  for (auto& h : r.fb->hosts)
    for (Sram* s : h->nic.srams())
      r.srams.emplace_back(std::string(h->name()) + "." + s->name(), s);
  r.sram_csv =
      std::make_unique<results::SramCsv>(r.all.run.sram_csv ? r.dir + "/sram.csv" : "", r.srams);
  for (auto& hp : r.fb->hosts) {
    hp->driver->on_finished([&r] {
      if (--r.drivers_left == 0) sc_core::sc_stop();
    });
    hp->driver->every_completions(1, [&r, progress, total = r.runs.size()](uint64_t) {
      ++r.done;
      // Every NIC books at or after the present: settle behind it.
      if (r.done % kSettleCompletions == 0)
        r.sram_csv->settle(ClockDomain::ps_of(sc_core::sc_time_stamp()) / r.clk.period_ps());
      if (progress && (r.done % 64 == 0 || r.done == total)) {
        std::fprintf(stderr, "\r  %llu/%zu flows complete at %.1f us",
                     static_cast<unsigned long long>(r.done), total,
                     ClockDomain::ps_of(sc_core::sc_time_stamp()) / 1e6);
        if (r.done == total) std::fprintf(stderr, "\n");
      }
    });
  }
}

// What the stall watchdog waits beyond run.stall_ms: a frame's round trip across the
// fabric on its slowest links (2 x the hops from host 0 to the farthest host, at
// most, each at the slowest link's frame time; a link's rate is the lowest it starts
// with or a rate fault gives it), so a slow link is not taken for a stall before its
// first frame can land. Clamped to the run's length.
uint64_t stall_slack_ps(const FabricRun& r, uint64_t max_ps) {
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  uint32_t far = 0;
  for (uint32_t n : fb.host_nodes) far = std::max(far, fb.routes->hops(n, fb.host_nodes[0]));
  std::vector<double> slowest(t.links.size());
  for (size_t i = 0; i < t.links.size(); ++i) slowest[i] = t.links[i].gbps;
  for (const network::Fault& x : r.in.faults)
    if (x.what == "rate")
      for (const auto& p : t.ports[x.a])
        if (p.peer == x.b) slowest[p.link] = std::min(slowest[p.link], x.value);
  double frame_ps = 0;
  const double frame_bytes = r.all.nic.nic.pmtu_bytes + 128.0;
  for (size_t i = 0; i < t.links.size(); ++i)
    frame_ps = std::max(frame_ps, t.links[i].delay_ns * 1000 + frame_bytes * 8 / slowest[i] * 1000);
  return static_cast<uint64_t>(std::min(2.0 * 2 * far * frame_ps, static_cast<double>(max_ps)));
}

// A fault still to come holds the watchdog only if it can let frames through on a
// link that carries none now: an `up` for a link that is down, a `loss` below 1 for
// one that loses everything. Anything else (a rate, an ECN threshold, a drop rule, an
// `up` for a link that is up) cannot end a stall, however soon it comes.
class RestoringFaults {
 public:
  explicit RestoringFaults(const FabricRun& r) : r_(r) {}
  bool pending() {
    const Topology& t = r_.fb->topo;
    const std::vector<network::Fault>& faults = r_.in.faults;
    for (; upto_ < r_.faults_applied; ++upto_) {
      const network::Fault& x = faults[upto_];
      for (const auto& p : t.ports[x.a]) {
        if (p.peer != x.b) continue;
        if (x.what == "down" || (x.what == "loss" && x.value >= 1)) dead_.insert(p.link);
        if (x.what == "up" || (x.what == "loss" && x.value < 1)) dead_.erase(p.link);
      }
    }
    for (size_t i = r_.faults_applied; i < faults.size(); ++i) {
      const network::Fault& x = faults[i];
      if (x.what != "up" && !(x.what == "loss" && x.value < 1)) continue;
      for (const auto& p : t.ports[x.a])
        if (p.peer == x.b && dead_.count(p.link)) return true;
    }
    return false;
  }

 private:
  const FabricRun& r_;
  std::set<uint32_t> dead_;  // links down or at loss 1, by the faults applied so far
  size_t upto_ = 0;
};

// The stall watchdog's look between slices: progress is a byte landed, a flow
// completed, a fault that changed the network, or one still to come that can restore
// delivery.
class Watchdog {
 public:
  explicit Watchdog(const FabricRun& r) : r_(r), restoring_(r) {}
  bool progressed() {
    uint64_t landed = r_.done;
    for (auto& h : r_.fb->hosts) landed += h->check.landed_bytes();
    size_t open = 0;
    for (const FlowRun& fr : r_.runs) {
      const host::WqeRecord& rec = r_.fb->hosts[fr.requester]->driver->records()[fr.record];
      if (rec.posted && !rec.cqes) ++open;
    }
    if (landed != last_ || open == 0 || r_.faults_applied != last_faults_ || restoring_.pending()) {
      last_ = landed, last_faults_ = r_.faults_applied;
      return true;
    }
    return false;
  }

 private:
  const FabricRun& r_;
  RestoringFaults restoring_;
  uint64_t last_ = ~uint64_t{0};
  size_t last_faults_ = 0;
};

// The scoreboard: every flow one CQE with status 0, its bytes identical at their
// destination, nothing written or read where no flow's bytes are.
struct Scoreboard {
  uint64_t failures = 0, bytes_checked = 0, completed = 0;
  bool ok = false;
  std::string text;
};

Scoreboard check_flows(const FabricRun& r) {
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  Scoreboard sb;
  std::vector<std::string> fail_text;
  auto fail = [&](const FlowRun& fr, const std::string& why) {
    ++sb.failures;
    if (fail_text.size() < 8)
      fail_text.push_back("flow " + std::to_string(fr.id) + " (" +
                          t.nodes[fb.host_nodes[fr.f.src]].name + " -> " +
                          t.nodes[fb.host_nodes[fr.f.dst]].name + ", " +
                          std::to_string(fr.f.bytes) + " B): " + why);
  };
  uint64_t stray = 0, bad_reads = 0, bad_cqes = 0;
  for (auto& h : fb.hosts) {
    stray += h->check.stray_writes(), bad_reads += h->check.bad_reads();
    bad_cqes += h->driver->bad_cqes();
  }
  for (const FlowRun& fr : r.runs) {
    const host::WqeRecord& rec = fb.hosts[fr.requester]->driver->records()[fr.record];
    const host::FlowData& d = fb.hosts[fr.data_host]->check.data(fr.data_index);
    if (!rec.cqes) {
      fail(fr, rec.posted ? "no CQE (" + std::to_string(d.covered_bytes()) + " of " +
                                std::to_string(d.len) + " bytes at the destination)"
                          : "never posted");
      continue;
    }
    ++sb.completed;
    if (rec.cqes > 1) fail(fr, std::to_string(rec.cqes) + " CQEs");
    if (rec.status) fail(fr, "CQE status " + std::to_string(rec.status));
    if (d.mismatch_at != ~uint64_t{0})
      fail(fr, "destination differs from source at byte " + std::to_string(d.mismatch_at));
    else if (!d.complete())
      fail(fr, "CQE with " + std::to_string(d.covered_bytes()) + " of " + std::to_string(d.len) +
                   " bytes at the destination");
    else
      sb.bytes_checked += d.len;
    if (fr.op == ornic::WqeOp::kRead && (rec.last_data_ps > rec.cqe_ps || rec.data_after_cqe))
      fail(fr, "READ CQE before its last data");
  }
  if (stray)
    ++sb.failures, fail_text.push_back(std::to_string(stray) + " DMA write(s) outside every flow");
  if (bad_reads)
    ++sb.failures, fail_text.push_back(std::to_string(bad_reads) + " DMA read(s) of destinations");
  if (bad_cqes)
    ++sb.failures, fail_text.push_back(std::to_string(bad_cqes) + " CQE(s) matching no WQE");
  sb.ok = sb.failures == 0 && r.finished && r.ran.stall.empty();
  std::ostringstream s;
  if (sb.failures == 0)
    s << "OK (" << sb.completed << "/" << r.runs.size() << " flows, one CQE each, "
      << sb.bytes_checked << " bytes identical at their destinations)";
  else {
    s << "FAILED: " << sb.failures << " problem(s)";
    for (const auto& f : fail_text) s << "; " << f;
  }
  sb.text = s.str();
  return sb;
}

// What recovery cost a QP (its context's counts; none if it is gone).
const ornic::RecoveryCounts& recovery_of(const FabricRun& r, uint32_t host, uint32_t qpn) {
  static const ornic::RecoveryCounts kNoCounts;
  ornic::QpContextTable& q = r.fb->hosts[host]->nic.qps();
  const int64_t i = q.find(qpn);
  return i < 0 ? kNoCounts : q.at(static_cast<uint32_t>(i)).recovery;
}

// The figures the results files add up for the summary.
struct Figures {
  uint64_t last_cqe = 0, first_start = ~uint64_t{0}, payload = 0;
  std::map<uint64_t, std::vector<double>> slowdowns;  // by the size bucket's lower edge
  uint32_t max_ood = 0, peak_blocks = 0;
  uint64_t ooo_pkts = 0, pkts = 0, hops = 0;
};

constexpr uint64_t kSizeEdges[] = {0, 10000, 100000, 1000000, 10000000};

// fct.csv (every flow) and fct.txt (ns-3 HPCC's: a line per completed flow, in CQE
// order, the flow file's dport, times in ns).
void write_fct(const FabricRun& r, Figures& fig) {
  const bool uet = r.all.nic.uet_wire();  // a READ keeps RoCEv2's form (uet_nic.h)
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  std::ofstream f(r.dir + "/fct.csv");
  std::ofstream h(r.dir + "/fct.txt");
  std::vector<std::pair<uint64_t, std::string>> ns3_lines;  // (CQE time, line)
  f << "flow,src,dst,sip,dip,sport,dport,opcode,bytes,start_ns,post_ns,fct_ns,ideal_fct_ns,"
       "slowdown,completed,retransmitted,timeouts,recoveries,spurious,nic_drops,lost_data,"
       "lost_control\n";
  char ipa[16], ipb[16];
  for (const FlowRun& fr : r.runs) {
    const host::WqeRecord& rec = fb.hosts[fr.requester]->driver->records()[fr.record];
    const uint32_t a = host_ip(fb.host_nodes[fr.f.src]), b = host_ip(fb.host_nodes[fr.f.dst]);
    std::snprintf(ipa, sizeof ipa, "%08x", a);
    std::snprintf(ipb, sizeof ipb, "%08x", b);
    const double fct = rec.cqes ? (rec.cqe_ps - fr.f.start_ps) / 1000.0 : 0;
    const double ideal = fr.ideal_ps / 1000.0;
    fig.first_start = std::min(fig.first_start, fr.f.start_ps);
    if (rec.cqes) {
      fig.last_cqe = std::max(fig.last_cqe, rec.cqe_ps);
      fig.payload += fr.f.bytes;
      uint64_t e = 0;
      for (uint64_t x : kSizeEdges)
        if (fr.f.bytes >= x) e = x;
      fig.slowdowns[e].push_back(fct / ideal);
    }
    f << fr.id << "," << t.nodes[fb.host_nodes[fr.f.src]].name << ","
      << t.nodes[fb.host_nodes[fr.f.dst]].name << "," << ipa << "," << ipb << "," << fr.sport << ","
      << (uet && fr.op != ornic::WqeOp::kRead ? wire::uet::kUetUdpPort : wire::kRoceUdpPort) << ","
      << ornic::to_string(fr.op) << "," << fr.f.bytes << "," << fmt(fr.f.start_ps / 1000.0, 3)
      << "," << fmt(rec.posted ? rec.post_ps / 1000.0 : 0, 3) << "," << fmt(fct, 3) << ","
      << fmt(ideal, 3) << "," << fmt(rec.cqes ? fct / ideal : 0, 4) << "," << (rec.cqes ? 1 : 0);
    // What recovery cost the flow: the requester QP's resends, timeouts and recoveries;
    // at the QP its data arrives on, spurious resends (duplicates) and NIC drops.
    const ornic::RecoveryCounts& rq = recovery_of(r, fr.requester, fr.req_qpn);
    const ornic::RecoveryCounts& rd =
        recovery_of(r, fr.data_host, fr.op == ornic::WqeOp::kRead ? fr.req_qpn : fr.rsp_qpn);
    f << "," << rq.retransmitted << "," << rq.timeouts << "," << rq.recoveries << ","
      << rd.duplicates << "," << rd.nic_drops << "," << fr.lost_data << "," << fr.lost_control
      << "\n";
    if (rec.cqes) {
      std::ostringstream line;
      line << ipa << " " << ipb << " " << fr.sport << " " << fr.f.dport << " " << fr.f.bytes << " "
           << fr.f.start_ps / 1000 << " " << (rec.cqe_ps - fr.f.start_ps) / 1000 << " "
           << fr.ideal_ps / 1000 << "\n";
      ns3_lines.emplace_back(rec.cqe_ps, line.str());
    }
  }
  std::stable_sort(ns3_lines.begin(), ns3_lines.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [at, text] : ns3_lines) h << text;
}

// rates.csv: rate changes in time order (a lazy core reports them late).
void write_rates(FabricRun& r) {
  std::stable_sort(r.rate_rows.begin(), r.rate_rows.end(), [](const RateRow& a, const RateRow& b) {
    return a.t != b.t ? a.t < b.t : a.host != b.host ? a.host < b.host : a.qi < b.qi;
  });
  std::ofstream f(r.dir + "/rates.csv");
  f << "time_ns,host,flow,qpn,gbps\n";
  for (const RateRow& row : r.rate_rows) {
    auto it = r.qp_of_qi[row.host].find(row.qi);
    if (it == r.qp_of_qi[row.host].end()) continue;
    f << fmt(row.t * r.clk.period_ps() / 1000.0, 3) << "," << r.fb->hosts[row.host]->name() << ","
      << it->second.first << ",0x" << std::hex << it->second.second << std::dec << ","
      << fmt(row.gbps, 6) << "\n";
  }
}

// qps.csv: each flow's arrival order at its data receiver's QP.
void write_qps(const FabricRun& r) {
  std::ofstream f(r.dir + "/qps.csv");
  f << "flow,host,qpn,packets,ooo_packets,duplicates,max_ood,mean_ood,p999_ood,peak_blocks,"
       "nic_drops\n";
  for (const FlowRun& fr : r.runs) {
    f << fr.id << "," << r.fb->hosts[fr.data_host]->name() << ",0x" << std::hex
      << (fr.op == ornic::WqeOp::kRead ? fr.req_qpn : fr.rsp_qpn) << std::dec << "," << fr.packets
      << "," << fr.ooo_packets << "," << fr.duplicates << "," << fr.max_ood << ","
      << fmt(fr.packets ? static_cast<double>(fr.ood_sum) / fr.packets : 0, 3) << ","
      << p999(fr.ood_hist, fr.packets) << "," << fr.peak_blocks << ","
      << recovery_of(r, fr.data_host, fr.op == ornic::WqeOp::kRead ? fr.req_qpn : fr.rsp_qpn)
             .nic_drops
      << "\n";
  }
}

// links.csv: frames, bytes and utilisation of every link direction over the span from
// the first flow's start to the last CQE; counts the packet-hops.
void write_links(const FabricRun& r, Figures& fig) {
  const Fabric& fb = *r.fb;
  const Topology& t = fb.topo;
  const double span_ps =
      fig.last_cqe > fig.first_start ? static_cast<double>(fig.last_cqe - fig.first_start) : 1.0;
  std::ofstream f(r.dir + "/links.csv");
  f << "from,to,gbps,frames,bytes,utilisation\n";
  auto row = [&](const std::string& a, const std::string& b, double gbps, uint64_t frames,
                 uint64_t bytes) {
    fig.hops += frames;
    f << a << "," << b << "," << fmt(gbps, 3) << "," << frames << "," << bytes << ","
      << fmt(bytes * 8.0 / (gbps * span_ps / 1000.0), 4) << "\n";
  };
  for (uint32_t h = 0; h < r.nh; ++h) {
    const uint32_t n = fb.host_nodes[h];
    const auto& p = t.ports[n][0];
    const std::string pre = std::string(fb.hosts[h]->name()) + ".uplink";
    row(t.nodes[n].name, t.nodes[p.peer].name, t.links[p.link].gbps,
        r.stats.counter_value(pre + ".frames_delivered"), r.stats.counter_value(pre + ".bytes"));
  }
  for (uint32_t n : t.switches()) {
    const auto& sw = *fb.switches[fb.switch_of_node[n]];
    for (uint32_t k = 0; k < t.ports[n].size(); ++k)
      row(t.nodes[n].name, t.nodes[t.ports[n][k].peer].name, t.links[t.ports[n][k].link].gbps,
          sw.port_frames_out()[k], sw.port_bytes_out()[k]);
  }
}

// summary.txt (and stdout): what the run did, network to scoreboard.
std::string summary_text(const FabricRun& r, const Figures& fig, const Scoreboard& sb) {
  const Fabric& fb = *r.fb;
  const AllParams& all = r.all;
  auto pct = [](std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(std::ceil(p * v.size())) - 1;
    return v[std::min(i, v.size() - 1)];
  };
  uint64_t marked = 0, drops = 0, lost = 0, cnps = 0;
  for (auto& sw : fb.switches) {
    const network::SwitchTotals x = sw->totals();
    marked += x.marked, drops += x.drops, lost += x.lost;
  }
  uint64_t retx = 0, timeouts = 0, spurious = 0, nic_drops = 0;
  for (auto& h : fb.hosts) {
    const std::string n = h->name();
    cnps += r.stats.counter_value(n + ".nic.tx.hdr_generator.cnps");
    retx += r.stats.counter_value(n + ".nic.tx.qp_manager.retransmitted");
    timeouts += r.stats.counter_value(n + ".nic.control.rsp_manager.timeouts");
    spurious += h->nic.rx().drops(ornic::Drop::kDuplicate).value;
    nic_drops += h->nic.rx().drops_total();
  }
  std::ostringstream s;
  s << "oonic run " << (r.o.config.empty() ? "(defaults)" : r.o.config) << ": fabric "
    << all.topology.kind << ", " << r.nh << " hosts, " << fb.switches.size() << " switches, "
    << r.runs.size() << " flows (" << all.flows.opcode << ", " << all.nic.nic.ordering << ", "
    << "routing " << all.routing.mode << ", rate " << all.nic.rate() << ")\n";
  s << "  completed   " << sb.completed << "/" << r.runs.size() << " flows"
    << (r.finished ? "" : "  (NOT FINISHED by run.max_sim_ms)") << " by "
    << fmt(fig.last_cqe / 1e6, 3) << " us; payload " << fig.payload << " B\n";
  s << "  slowdown    size bucket      flows   mean     p50     p95     p99    (FCT / ideal FCT)\n";
  for (uint64_t e : kSizeEdges) {
    auto it = fig.slowdowns.find(e);
    if (it == fig.slowdowns.end()) continue;
    const auto& v = it->second;
    double mean = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    char line[160];
    std::snprintf(line, sizeof line, "              %-14s %7zu %7.2f %7.2f %7.2f %7.2f\n",
                  bucket_name(e), v.size(), mean, pct(v, 0.5), pct(v, 0.95), pct(v, 0.99));
    s << line;
  }
  s << "  network     " << fig.hops << " packet-hops; ECN marked " << marked << ", switch drops "
    << drops << ", lost on wires " << lost << "; CNPs " << cnps << "\n";
  s << "  recovery    retransmitted " << retx << " PSNs, spurious " << spurious << ", timeouts "
    << timeouts << "; NICs dropped " << nic_drops << " frames (not duplicates)\n";
  s << "  arrival     " << fig.ooo_pkts << " of " << fig.pkts
    << " data packets out of order at their QP; max OOD " << fig.max_ood
    << " PSNs; peak bitmap blocks of a QP " << fig.peak_blocks << "\n";
  if (all.sw.pfc) {
    uint64_t xoff = 0, xon = 0;
    for (auto& sw : fb.switches) xoff += sw->totals().xoff_sent, xon += sw->totals().xon_sent;
    double nic_paused_us = 0;
    for (auto& h : fb.hosts)
      nic_paused_us += h->nic.mac().paused_cycles(1) * r.clk.period_ps() / 1e6;
    s << "  pfc         " << xoff << " XOFF and " << xon << " XON frames sent by switches; NICs' "
      << "data paused " << fmt(nic_paused_us, 3) << " us in all (pfc.csv)\n";
  }
  if (!r.in.faults.empty()) {
    uint64_t fault_lost = 0;
    for (auto& sw : fb.switches) fault_lost += sw->totals().fault_lost;
    for (auto& h : fb.hosts)
      fault_lost += r.stats.counter_value(std::string(h->name()) + ".uplink.fault_lost");
    s << "  faults      " << r.faults_applied << " of " << r.in.faults.size()
      << " events applied (faults.file); " << fault_lost << " frames lost to them\n";
  }
  if (!r.ran.stall.empty()) s << "  STALLED     " << r.ran.stall << "\n";
  s << "  scoreboard  " << (r.finished ? "" : "INCOMPLETE; ") << sb.text << "\n";
  return s.str();
}

// stats.json (the run, every stat, SRAM occupancy, the scoreboard, the RTL check);
// returns the RTL check's complaint, if any.
std::string write_stats_json(FabricRun& r, const Figures& fig, const Scoreboard& sb) {
  const AllParams& all = r.all;
  nlohmann::json j;
  j["run"] = {{"config", r.o.config},
              {"seed", r.o.seed},
              {"system", "fabric"},
              {"topology", all.topology.kind},
              {"hosts", r.nh},
              {"switches", r.fb->switches.size()},
              {"flows", r.runs.size()},
              {"completed", sb.completed},
              {"finished", r.finished},
              {"stalled", !r.ran.stall.empty()},
              {"end_cycle", r.end},
              {"last_cqe_ns", fig.last_cqe / 1000.0},
              {"payload_bytes", fig.payload},
              {"packet_hops", fig.hops},
              {"wall_s", r.ran.wall}};
  j["sram"] = results::sram_json(r.srams, r.end);
  j["scoreboard"] = {{"ok", sb.ok},
                     {"flows", r.runs.size()},
                     {"completed", sb.completed},
                     {"bytes_checked", sb.bytes_checked},
                     {"failures", sb.failures},
                     {"text", sb.text}};
  std::string rtl_report;
  {
    std::vector<std::pair<std::string, const ornic::OrnicNic*>> nics;
    for (auto& h : r.fb->hosts) nics.emplace_back(h->name(), &h->nic);
    nlohmann::json rtl_j = results::rtl_json(nics, &rtl_report);
    if (!rtl_j.is_null()) j["rtl"] = rtl_j;
  }
  results::write_stats_json(r.dir + "/stats.json", j, r.stats, r.end);
  return rtl_report;
}

// Why a run that did not finish stopped, on stderr.
void say_why_stopped(const FabricRun& r, const Scoreboard& sb) {
  if (!r.ran.stall.empty()) std::fprintf(stderr, "oonic run: stalled: %s\n", r.ran.stall.c_str());
  if (r.ran.stall.empty() && !r.finished && r.ran.idle)
    std::fprintf(stderr,
                 "oonic run: nothing left to simulate at %s us with %zu of %zu flows complete "
                 "(no event pending: a flow waits on nothing that will happen)\n",
                 fmt(r.end_ps / 1e6, 3).c_str(), static_cast<size_t>(sb.completed), r.runs.size());
  else if (r.ran.stall.empty() && !r.finished)
    std::fprintf(stderr,
                 "oonic run: stopped at run.max_sim_ms: %s of %zu flows complete at %s us (the "
                 "last flow starts at %s us; the limit is %s ms after it)\n",
                 std::to_string(sb.completed).c_str(), r.runs.size(),
                 fmt(r.end_ps / 1e6, 3).c_str(), fmt(r.in.last_start_ps / 1e6, 3).c_str(),
                 fmt(r.all.run.max_sim_ms, 3).c_str());
}

// Every results file, and the exit status.
int write_results(FabricRun& r) {
  const Scoreboard sb = check_flows(r);
  Figures fig;
  write_fct(r, fig);
  if (r.all.run.rates_csv) write_rates(r);
  if (r.all.run.qps_csv) write_qps(r);
  for (const FlowRun& fr : r.runs) {
    fig.max_ood = std::max(fig.max_ood, fr.max_ood);
    fig.peak_blocks = std::max(fig.peak_blocks, fr.peak_blocks);
    fig.ooo_pkts += fr.ooo_packets, fig.pkts += fr.packets;
  }
  write_links(r, fig);
  const std::string summary = summary_text(r, fig, sb);
  write_text(r.dir + "/summary.txt", summary);
  const std::string rtl_report = write_stats_json(r, fig, sb);
  r.sram_csv->finish(r.end);
  if (r.vcd) r.vcd->write(r.dir + "/waves.vcd", r.o.vcd_from, r.o.vcd_to);
  say_why_stopped(r, sb);
  if (!r.o.quiet) {
    std::fputs(summary.c_str(), stdout);
    // What the run cost: the process's peak RSS, and that over the hosts (issue 30).
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    const double mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
    std::printf("  results     %s/  (simulated in %s s wall; peak RSS %s MB, %s MB a host)\n",
                r.dir.c_str(), fmt(r.ran.wall, 3).c_str(), fmt(mb, 0).c_str(),
                fmt(mb / std::max<uint32_t>(1, r.nh), 2).c_str());
  }
  if (!rtl_report.empty()) {
    std::fprintf(stderr, "oonic run: %s\n", rtl_report.c_str());
    return 1;
  }
  return sb.ok ? 0 : 1;
}

// A fabric run as a job of system::run: flows across a topology of switches.
class FabricJob : public system::Job {
 public:
  explicit FabricJob(const b2b::RunOptions& o) : r_(o) {}
  void prepare(system::System& s) override {
    r_.fb = &s;
    read_params(r_);
    // Topology, flows, faults: all read and checked before anything is built.
    const std::string base =
        r_.o.config.empty() ? std::string() : fs::path(r_.o.config).parent_path().string();
    r_.in = read_inputs(r_.all, base, r_.o.seed);
    for (const std::string& n : r_.in.notes)
      std::fprintf(stderr, "oonic run: note: %s\n", n.c_str());
    take_inputs(r_);
    resolve_rate_core(r_);
    resolve_nscc_target(r_);
    prepare_results(r_);
    name_flows(r_);
    list_themis_flows(r_);
    r_.clk = ClockDomain(r_.all.nic.nic.clock_mhz);
    r_.vcd = results::make_vcd(r_.o.vcd, r_.o.vcd_groups, r_.clk.period_ps());
  }
  std::vector<system::HostSpec> host_specs(const system::System&) override {
    return fabric::host_specs(r_);
  }
  std::unique_ptr<network::SwitchNode> make_switch(const system::System&, uint32_t node) override {
    return fabric::make_switch(r_, node);
  }
  const PcieParams& pcie() const override { return r_.all.pcie; }
  const HostMemoryParams& memory() const override { return r_.all.host; }
  Stats& stats() override { return r_.stats; }
  Vcd* vcd() override { return r_.vcd.get(); }
  uint64_t seed() const override { return r_.o.seed; }
  void start(system::System&) override {
    add_flows(r_);
    observe(r_);
    on_completions(r_);
    watchdog_ = std::make_unique<Watchdog>(r_);
  }
  // run.max_sim_ms counts from the last flow's start, so a flow file's starts (ns-3
  // HPCC's begin at 2 s) are always reached.
  uint64_t max_ps() const override {
    return r_.in.last_start_ps + static_cast<uint64_t>(std::llround(r_.all.run.max_sim_ms * 1e9));
  }
  bool done() const override { return r_.drivers_left == 0; }
  uint64_t next_change_ps() const override {
    if (r_.faults_applied == r_.in.faults.size()) return UINT64_MAX;
    return static_cast<uint64_t>(std::llround(r_.in.faults[r_.faults_applied].at_us * 1e6));
  }
  void apply_changes(uint64_t now_ps) override { apply_faults(r_, now_ps); }
  uint64_t stall_ps() const override {
    return static_cast<uint64_t>(std::llround(r_.all.run.stall_ms * 1e9));
  }
  uint64_t stall_slack_ps(uint64_t max) const override { return fabric::stall_slack_ps(r_, max); }
  bool progressed(uint64_t) override { return watchdog_->progressed(); }
  std::string stall_report(uint64_t now_ps, uint64_t since_ps) override {
    return fabric::stall_report(*r_.fb, r_.fb->topo, r_.runs, now_ps, since_ps);
  }
  int finish(system::System&, const system::Ran& ran) override {
    r_.ran = ran;
    for (auto& p : r_.pcaps) p->close();
    if (r_.qcsv) r_.qcsv->close();
    if (r_.pcsv) r_.pcsv->close();
    r_.end_ps = ran.end_ps;
    r_.end = r_.clk.ceil_cycles(r_.end_ps);
    r_.finished = r_.drivers_left == 0;
    return write_results(r_);
  }

 private:
  FabricRun r_;
  std::unique_ptr<Watchdog> watchdog_;
};

}  // namespace

std::unique_ptr<system::Job> make_job(const b2b::RunOptions& o) {
  return std::make_unique<FabricJob>(o);
}

std::string stats_listing(bool markdown, const std::vector<std::string>& sets) {
  install_report_handler();
  AllParams all;
  ParamTable table;
  all.describe(table);
  all.topology.kind = "kpaths", all.topology.paths = 1, all.topology.hosts_per_leaf = 1;
  for (const auto& s : sets) apply_override(table, s);
  all.nic.validate();
  Stats stats;
  {
    system::System s;
    s.topo = all.topology.build("");
    s.routes = std::make_unique<network::Routes>(s.topo);
    s.host_of_node.assign(s.topo.nodes.size(), -1);
    for (uint32_t n : s.topo.hosts()) {
      s.host_of_node[n] = static_cast<int32_t>(s.host_nodes.size());
      s.host_nodes.push_back(n);
    }
    std::vector<system::HostSpec> specs(s.host_nodes.size());
    for (auto& sp : specs) sp.nic = all.nic;
    bool first = true;
    system::build(
        s, specs, all.pcie, all.host,
        [&](uint32_t n) {
          network::SwitchBuild b = switch_build(all, s.topo, *s.routes, n, s.addrs, 1, stats);
          // THEMIS's stats, as a DC's external switch has them (listed under tor0).
          if (first)
            b.themis = network::ThemisSetup{&all.themis, &all.nic.sender.dcqcn(), 0, 1000000};
          first = false;
          return network::make_switch(all.sw.model, b);
        },
        1, stats, nullptr);
  }
  return stats.listing(markdown);
}

}  // namespace oonic::fabric
