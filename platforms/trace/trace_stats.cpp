// `oonic trace stats`: per-stream PSN order, gaps, duplicates, OOO distance and
// lateness distributions; JSON and text forms.
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

// ------------------------------------------------------------------- stats ---

namespace {

Dist make_dist(std::vector<uint32_t>& v) {
  Dist d;
  d.n = v.size();
  if (v.empty()) return d;
  double sum = 0;
  for (uint32_t x : v) sum += x, d.max = std::max<uint64_t>(d.max, x);
  d.mean = sum / static_cast<double>(v.size());
  size_t rank = static_cast<size_t>(std::ceil(0.999 * static_cast<double>(v.size())));
  rank = std::max<size_t>(rank, 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank - 1), v.end());
  d.p999 = v[rank - 1];
  return d;
}

}  // namespace

TraceStats compute_stats(const Frames& fr, const std::optional<Sidecar>& sc,
                         const std::string& dut) {
  ClassifiedFull cf = classify_full(fr, sc, dut);
  const Classified& c = cf.c;
  TraceStats s;
  s.path = fr.path;
  s.format = to_string(fr.format);
  s.dut = c.dut;
  s.dut_how = c.dut_how;
  s.frames = fr.frames.size();
  s.roce = c.roce;
  s.non_roce = s.frames - c.roce;
  s.bad_icrc = c.bad_icrc;
  s.to_dut = c.to_dut;
  s.from_dut = c.from_dut;
  s.eunomia_meta = cf.eunomia_meta;
  std::map<int, uint64_t> ops;
  for (int16_t op : cf.opcode)
    if (op >= 0) ++ops[op];
  for (const auto& [op, n] : ops) {
    const char* name = text_opcode_name(static_cast<uint8_t>(op));
    s.opcodes.push_back({name ? name : hexs(static_cast<uint64_t>(op)), n});
  }
  for (const Frame& f : fr.frames) {
    if (f.mark == Mark::kRetransmission) ++s.retransmission_marks;
    if (!f.has_time) continue;
    if (!s.timed) s.first_ps = s.last_ps = f.time_ps, s.timed = true;
    s.first_ps = std::min(s.first_ps, f.time_ps);
    s.last_ps = std::max(s.last_ps, f.time_ps);
  }

  std::vector<uint32_t> all_ood, all_late;
  for (const Stream& st : c.streams) {
    StreamStats ss;
    ss.qpn = st.qpn;
    ss.responses = st.responses;
    ss.start_psn = st.start_psn;
    ss.start_from_sidecar = st.start_from_sidecar;
    ss.packets = st.records.size();
    std::vector<uint8_t> got;
    int64_t rcv_nxt = 0, max_seen = -1, min_rel = -1;
    std::vector<uint32_t> ood, late;
    ood.reserve(st.psns.size());
    late.reserve(st.psns.size());
    for (size_t k = 0; k < st.psns.size(); ++k) {
      int64_t rel = wire::psn_diff(st.psns[k], st.start_psn);
      const int64_t span = st.span[k];
      ood.push_back(rel > rcv_nxt ? static_cast<uint32_t>(rel - rcv_nxt) : 0);
      late.push_back(max_seen > rel ? static_cast<uint32_t>(max_seen - rel) : 0);
      if (rel < 0) {
        ++ss.duplicates;  // before the start PSN: the DUT takes it for a duplicate
        continue;
      }
      if (static_cast<size_t>(rel + span) > got.size())
        got.resize(static_cast<size_t>(rel + span), 0);
      if (got[static_cast<size_t>(rel)]) {
        ++ss.duplicates;
      } else {
        for (int64_t x = rel; x < rel + span; ++x) got[static_cast<size_t>(x)] = 1;
        ++ss.distinct;
      }
      while (static_cast<size_t>(rcv_nxt) < got.size() && got[static_cast<size_t>(rcv_nxt)])
        ++rcv_nxt;
      max_seen = std::max(max_seen, rel + span - 1);
      if (min_rel < 0 || rel < min_rel) min_rel = rel;
    }
    ss.psn_min = wire::psn_add(st.start_psn, std::max<int64_t>(min_rel, 0));
    ss.psn_max = wire::psn_add(st.start_psn, std::max<int64_t>(max_seen, 0));
    for (int64_t r = 0; r <= max_seen; ++r) {
      if (got[static_cast<size_t>(r)]) continue;
      int64_t e = r;
      while (e + 1 <= max_seen && !got[static_cast<size_t>(e + 1)]) ++e;
      ss.gaps += static_cast<uint64_t>(e - r + 1);
      if (ss.gap_ranges.size() < 64)
        ss.gap_ranges.push_back({wire::psn_add(st.start_psn, r), wire::psn_add(st.start_psn, e)});
      r = e;
    }
    all_ood.insert(all_ood.end(), ood.begin(), ood.end());
    all_late.insert(all_late.end(), late.begin(), late.end());
    ss.ood = make_dist(ood);
    ss.lateness = make_dist(late);
    s.data_packets += ss.packets;
    s.duplicates += ss.duplicates;
    s.gaps += ss.gaps;
    s.streams.push_back(std::move(ss));
  }
  s.ood = make_dist(all_ood);
  s.lateness = make_dist(all_late);
  return s;
}

namespace {

nlohmann::ordered_json dist_json(const Dist& d) {
  nlohmann::ordered_json j;
  j["max"] = d.max;
  j["mean"] = std::round(d.mean * 1e6) / 1e6;
  j["p999"] = d.p999;
  return j;
}

const char* kOodDefinition =
    "MP-RDMA out-of-order degree: per data packet of a stream (DUT QPN, requests or READ "
    "responses), OOD = max(0, PSN - rcv_nxt), rcv_nxt = the lowest PSN of the stream not "
    "received before that packet, counting from the stream's start PSN (sidecar start_psn, else "
    "the lowest PSN in the trace)";

}  // namespace

std::string stats_json(const TraceStats& s) {
  nlohmann::ordered_json j;
  j["file"] = s.path;
  j["format"] = s.format;
  j["frames"] = s.frames;
  j["roce"] = s.roce;
  j["non_roce"] = s.non_roce;
  j["bad_icrc"] = s.bad_icrc;
  j["dut"] = s.dut;
  j["dut_how"] = s.dut_how;
  j["to_dut"] = s.to_dut;
  j["from_dut"] = s.from_dut;
  j["data_packets"] = s.data_packets;
  j["duplicates"] = s.duplicates;
  j["gaps"] = s.gaps;
  j["retransmission_marks"] = s.retransmission_marks;
  j["eunomia_meta"] = s.eunomia_meta;
  j["ood_definition"] = kOodDefinition;
  j["ood"] = dist_json(s.ood);
  j["lateness"] = dist_json(s.lateness);
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [name, n] : s.opcodes) ops[name] = n;
  j["opcodes"] = ops;
  nlohmann::ordered_json qps = nlohmann::ordered_json::array();
  for (const StreamStats& q : s.streams) {
    nlohmann::ordered_json e;
    e["qpn"] = hexs(q.qpn);
    e["kind"] = q.responses ? "read_responses" : "requests";
    e["packets"] = q.packets;
    e["distinct"] = q.distinct;
    e["duplicates"] = q.duplicates;
    e["gaps"] = q.gaps;
    e["start_psn"] = q.start_psn;
    e["start_psn_from"] = q.start_from_sidecar ? "sidecar" : "trace";
    e["psn_min"] = q.psn_min;
    e["psn_max"] = q.psn_max;
    nlohmann::ordered_json g = nlohmann::ordered_json::array();
    for (const auto& [a, b] : q.gap_ranges) g.push_back({a, b});
    e["gap_ranges"] = g;
    e["ood"] = dist_json(q.ood);
    e["lateness"] = dist_json(q.lateness);
    qps.push_back(e);
  }
  j["qps"] = qps;
  if (s.timed) {
    j["time_first_ns"] = static_cast<double>(s.first_ps) / 1000.0;
    j["time_last_ns"] = static_cast<double>(s.last_ps) / 1000.0;
  }
  return j.dump(2) + "\n";
}

std::string stats_text(const TraceStats& s) {
  std::ostringstream o;
  char b[256];
  o << s.path << " (" << s.format << "): " << s.frames << " frames, " << s.roce << " RoCE ("
    << s.bad_icrc << " bad ICRC), " << s.non_roce << " other\n";
  o << "  DUT         " << s.dut << " (" << s.dut_how << "): " << s.to_dut << " frames to it, "
    << s.from_dut << " from it\n";
  o << "  data        " << s.data_packets << " packets in " << s.streams.size() << " stream(s), "
    << s.duplicates << " duplicate(s), " << s.gaps << " PSN(s) never seen\n";
  std::snprintf(b, sizeof b, "  OOD         max %llu, mean %.3f, p99.9 %llu (lateness max %llu)\n",
                static_cast<unsigned long long>(s.ood.max), s.ood.mean,
                static_cast<unsigned long long>(s.ood.p999),
                static_cast<unsigned long long>(s.lateness.max));
  o << b;
  o << "  opcodes    ";
  for (const auto& [name, n] : s.opcodes) o << " " << name << " " << n;
  o << "\n";
  if (s.eunomia_meta)
    o << "  eunomia     " << s.eunomia_meta << " frame(s) with Eunomia metadata (Head, last)\n";
  for (const StreamStats& q : s.streams) {
    std::snprintf(
        b, sizeof b,
        "  QP %-8s %-9s %llu pkts, PSN %u..%u (start %u from %s), %llu dup, %llu gap, "
        "OOD max %llu mean %.3f p99.9 %llu\n",
        hexs(q.qpn).c_str(), q.responses ? "READ-rsp" : "requests",
        static_cast<unsigned long long>(q.packets), q.psn_min, q.psn_max, q.start_psn,
        q.start_from_sidecar ? "sidecar" : "trace", static_cast<unsigned long long>(q.duplicates),
        static_cast<unsigned long long>(q.gaps), static_cast<unsigned long long>(q.ood.max),
        q.ood.mean, static_cast<unsigned long long>(q.ood.p999));
    o << b;
    if (!q.gap_ranges.empty()) {
      o << "    never seen:";
      for (const auto& [a, e] : q.gap_ranges) {
        if (a == e)
          o << " " << a;
        else
          o << " " << a << "-" << e;
      }
      if (q.gap_ranges.size() == 64) o << " ...";
      o << "\n";
    }
  }
  if (s.timed) {
    o << "  time        " << format_signed_ns(s.first_ps) << " .. " << format_signed_ns(s.last_ps)
      << " ns\n";
  }
  return o.str();
}

}  // namespace oonic::trace
