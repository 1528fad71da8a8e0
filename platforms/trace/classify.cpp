// Stream classification: which frames are RoCE, which node is the DUT, and the streams
// (QP, direction) of data packets that perturb reorders and stats measures.
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

// ---------------------------------------------------- stream classification ---

bool is_data(const wire::PacketView& v) {
  if (!v.info) return false;
  uint16_t f = v.info->flags;
  return (f & wire::kIsRequest) || ((f & wire::kIsResponse) && (f & wire::kHasPayload));
}

ClassifiedFull classify_full(const Frames& fr, const std::optional<Sidecar>& sc,
                             const std::string& dut_arg) {
  ClassifiedFull out;
  Classified& c = out.c;
  const size_t n = fr.frames.size();
  std::vector<wire::PacketView> views(n);
  std::vector<wire::ParseStatus> st(n);
  out.opcode.assign(n, -1);
  out.bad.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Frame& f = fr.frames[i];
    st[i] = wire::parse(fr.data(f), f.len, views[i], true);
    if (st[i] == wire::ParseStatus::kOk || st[i] == wire::ParseStatus::kBadIcrc ||
        st[i] == wire::ParseStatus::kUdOrCnp) {
      out.opcode[i] = views[i].bth.opcode;
      ++c.roce;
    }
    if (st[i] == wire::ParseStatus::kBadIcrc) out.bad[i] = 1, ++c.bad_icrc;
  }
  auto valid = [&](size_t i) { return st[i] == wire::ParseStatus::kOk && views[i].info; };
  for (size_t i = 0; i < n; ++i)
    if (valid(i) && (views[i].flags & wire::kHasEunomiaMeta)) ++out.eunomia_meta;

  DutCensus census;
  for (size_t i = 0; i < n; ++i)
    if (valid(i)) census.add(views[i]);
  DutChoice choice = choose_dut(dut_arg, sc, census, fr.path);
  const Endpoint& dut = choice.dut;
  c.dut_how = choice.how;
  c.dut = dut.text();

  c.stream_of.assign(n, -1);
  std::unordered_map<uint32_t, int32_t> index;  // qpn << 1 | responses
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i) && st[i] != wire::ParseStatus::kBadIcrc && st[i] != wire::ParseStatus::kUdOrCnp)
      continue;
    const auto& v = views[i];
    bool to = dut.is_dst(v);
    if (to) ++c.to_dut;
    if (!to && dut.is_src(v)) ++c.from_dut;
    if (!to || !valid(i) || !is_data(v)) continue;
    bool resp = (v.info->flags & wire::kIsResponse) != 0;
    uint32_t key = (v.bth.dest_qp << 1) | (resp ? 1u : 0u);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int32_t>(c.streams.size())).first;
      Stream s;
      s.qpn = v.bth.dest_qp;
      s.responses = resp;
      c.streams.push_back(s);
    }
    Stream& s = c.streams[static_cast<size_t>(it->second)];
    c.stream_of[i] = it->second;
    s.records.push_back(static_cast<uint32_t>(i));
    s.psns.push_back(v.bth.psn);
    s.last.push_back((v.info->flags & wire::kIsLast) ? 1 : 0);
    bool read = v.bth.opcode == wire::kReadRequest || v.bth.opcode == wire::kOooReadRequest;
    s.span.push_back(read ? std::max<uint32_t>(v.reth.dma_len, 1) : 0);  // DMA length for now
  }
  // The connection's PMTU shows in any First / Middle packet.
  uint32_t trace_pmtu = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    uint8_t op = views[i].bth.opcode;
    if (op == wire::kWriteFirst || op == wire::kWriteMiddle || op == wire::kSendFirst ||
        op == wire::kSendMiddle || op == wire::kReadResponseFirst ||
        op == wire::kReadResponseMiddle || op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot)
      trace_pmtu = std::max(trace_pmtu, views[i].payload_len);
  }
  if (trace_pmtu != 256 && trace_pmtu != 512 && trace_pmtu != 1024 && trace_pmtu != 2048 &&
      trace_pmtu != 4096)
    trace_pmtu = 4096;
  for (Stream& s : c.streams) {
    bool from_sc = false;
    s.pmtu = trace_pmtu;
    if (sc) {
      for (const QpSetup& q : sc->qps) {
        if (q.qpn != s.qpn) continue;
        if (!s.responses) s.start_psn = q.start_psn, from_sc = true;
        if (q.pmtu) s.pmtu = *q.pmtu;
      }
    }
    for (uint32_t& sp : s.span) sp = sp ? (sp + s.pmtu - 1) / s.pmtu : 1;
    if (!from_sc) {
      uint32_t base = s.psns[0];
      int32_t lo = 0;
      for (uint32_t p : s.psns) lo = std::min(lo, wire::psn_diff(p, base));
      s.start_psn = wire::psn_add(base, lo);
    }
    s.start_from_sidecar = from_sc;
  }
  return out;
}

Classified classify(const Frames& fr, const std::optional<Sidecar>& sc, const std::string& dut) {
  return classify_full(fr, sc, dut).c;
}

}  // namespace oonic::trace
