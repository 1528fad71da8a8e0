#include "platforms/replay/setup.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "model/core/error.h"
#include "model/core/rng.h"
#include "model/wire/roce.h"

namespace oonic::replay {

namespace {

constexpr uint64_t kRecvBase = 0x7f0000000000ull;  // receive buffers the replay provisions
constexpr uint64_t kReadBase = 0x7e0000000000ull;  // local buffers of the DUT's own READs

struct Parsed {
  wire::ParseStatus st;
  wire::PacketView v;
};

bool is_src(const Endpoint& e, const Parsed& p) {
  return e.is_src(p.v);
}
bool is_dst(const Endpoint& e, const Parsed& p) {
  return e.is_dst(p.v);
}

bool rc(const Parsed& p) {
  return p.st == wire::ParseStatus::kOk || p.st == wire::ParseStatus::kBadIcrc;
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

uint32_t pow2_pmtu(uint32_t bytes, uint32_t dflt) {
  for (uint32_t m : {256u, 512u, 1024u, 2048u, 4096u})
    if (bytes == m) return m;
  return dflt;
}

struct QpObs {  // what the trace shows of one DUT QP
  bool any_request = false;
  uint32_t first_psn = 0;
  int32_t min_rel = 0;
  uint32_t max_first_middle = 0;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> rkeys;  // rkey -> [lo, hi)
  uint32_t send_messages = 0;
  uint64_t send_bytes_max = 0, send_cur = 0;
  const Parsed* peer_frame = nullptr;  // a frame from the peer on this QP
  std::vector<const Parsed*> fspots;   // OOO FSpot frames (region from Eq. 2)
};

}  // namespace

ReplaySetup make_setup(const trace::Trace& trace, const std::optional<trace::Sidecar>& sidecar,
                       const std::string& dut_arg, const ornic::OrnicParams& p) {
  ReplaySetup out;
  const auto& recs = trace.records;
  std::vector<Parsed> parsed(recs.size());
  std::vector<uint8_t> buf;
  {
    // Headers only are kept: a view's payload pointer is not valid past its frame.
    trace::Trace::Cursor cur(trace);
    for (size_t i = 0; i < recs.size(); ++i) {
      parsed[i].st = wire::parse(cur.frame(recs[i]), recs[i].len, parsed[i].v, false);
      parsed[i].v.payload = nullptr;
    }
  }

  // ---- the device under test ----
  std::vector<const wire::PacketView*> rc_views;
  for (const Parsed& x : parsed)
    if (rc(x)) rc_views.push_back(&x.v);
  trace::DutChoice choice = trace::choose_dut(dut_arg, sidecar, rc_views, trace.path);
  out.dut = choice.dut;
  out.dut_how = choice.how;
  out.notes.push_back("device under test: " + out.dut.text() + " (" + out.dut_how + ")");

  // ---- input frames and what the DUT sent ----
  for (uint32_t i = 0; i < recs.size(); ++i) {
    if ((out.dut.has_ip || out.dut.has_mac) && is_src(out.dut, parsed[i]) &&
        !is_dst(out.dut, parsed[i]))
      out.from_dut.push_back(i);
    else
      out.input.push_back(i);
  }

  // ---- QPs: sidecar, else derived ----
  std::map<uint32_t, QpObs> obs;  // DUT qpn -> observations
  std::vector<uint32_t> order;
  for (uint32_t i : out.input) {
    const Parsed& x = parsed[i];
    if (!rc(x)) continue;
    uint32_t q = x.v.bth.dest_qp;
    if (!obs.count(q)) order.push_back(q);
    QpObs& o = obs[q];
    if (!o.peer_frame) o.peer_frame = &x;
    if (!(x.v.flags & wire::kIsRequest)) continue;
    if (!o.any_request) o.any_request = true, o.first_psn = x.v.bth.psn;
    o.min_rel = std::min(o.min_rel, wire::psn_diff(x.v.bth.psn, o.first_psn));
    uint8_t op = x.v.bth.opcode;
    bool first_or_middle = op == wire::kWriteFirst || op == wire::kWriteMiddle ||
                           op == wire::kSendFirst || op == wire::kSendMiddle ||
                           op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot;
    if (first_or_middle) o.max_first_middle = std::max(o.max_first_middle, x.v.payload_len);
    if (x.v.flags & wire::kHasReth) {
      auto& r = o.rkeys[x.v.reth.rkey];
      uint64_t lo = x.v.reth.va, hi = x.v.reth.va + x.v.reth.dma_len;
      if (r.first == r.second) r = {lo, hi};
      r.first = std::min(r.first, lo), r.second = std::max(r.second, hi);
    }
    if (x.v.flags & wire::kHasOooAddr) o.fspots.push_back(&x);
    if (op <= wire::kSendOnlyImm) {
      if (x.v.flags & wire::kIsFirst) o.send_cur = 0, ++o.send_messages;
      o.send_cur += x.v.payload_len;
      o.send_bytes_max = std::max(o.send_bytes_max, o.send_cur);
    }
  }
  // The connection's PMTU shows in any First/Middle packet, either direction.
  uint32_t trace_pmtu = 0;
  for (const Parsed& x : parsed) {
    if (!rc(x)) continue;
    uint8_t op = x.v.bth.opcode;
    if (op == wire::kWriteFirst || op == wire::kWriteMiddle || op == wire::kSendFirst ||
        op == wire::kSendMiddle || op == wire::kReadResponseFirst ||
        op == wire::kReadResponseMiddle || op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot)
      trace_pmtu = std::max(trace_pmtu, x.v.payload_len);
  }
  // Peer QPN: the QP the DUT's own frames to that peer address.
  std::map<std::string, std::set<uint32_t>> dut_sent_qps;  // peer ip text -> dest QPNs
  std::map<std::string, uint16_t> dut_sport;
  for (uint32_t i : out.from_dut) {
    const Parsed& x = parsed[i];
    if (!rc(x)) continue;
    std::string peer = wire::format_ip(x.v.ip_version, x.v.dst_ip);
    dut_sent_qps[peer].insert(x.v.bth.dest_qp);
    dut_sport.emplace(peer, x.v.udp_sport);
  }

  auto make_ctx = [&](uint32_t qpn) {
    ornic::QpContext c;
    c.qpn = qpn;
    c.peer_qpn = qpn;
    c.pmtu = pow2_pmtu(trace_pmtu, p.nic.pmtu_bytes);
    c.otd = p.nic.otd;
    wire::FrameSpec& t = c.tx_template;
    if (out.dut.has_mac) t.src_mac = out.dut.mac;
    if (out.dut.has_ip) t.ip_version = out.dut.ip_version, t.src_ip = out.dut.ip;
    auto it = obs.find(qpn);
    if (it != obs.end() && it->second.peer_frame) {
      const wire::PacketView& v = it->second.peer_frame->v;
      t.dst_mac = v.src_mac;
      t.ip_version = v.ip_version;
      t.dst_ip = v.src_ip;
      if (!out.dut.has_ip) t.src_ip = v.dst_ip;
      if (!out.dut.has_mac) t.src_mac = v.dst_mac;
      std::string peer = wire::format_ip(v.ip_version, v.src_ip);
      auto s = dut_sent_qps.find(peer);
      if (s != dut_sent_qps.end() && !s->second.empty()) {
        c.peer_qpn = s->second.size() == 1  ? *s->second.begin()
                     : s->second.count(qpn) ? qpn
                                            : *s->second.begin();
        t.udp_sport = dut_sport[peer];
      }
    }
    return c;
  };

  std::ostringstream yaml;
  yaml << "# QP setup of this replay (pass it back with --qps to change it)\n";
  yaml << "dut: {";
  if (out.dut.has_ip) yaml << "ip: " << wire::format_ip(out.dut.ip_version, out.dut.ip);
  if (out.dut.has_mac)
    yaml << (out.dut.has_ip ? ", " : "") << "mac: \"" << wire::format_mac(out.dut.mac) << "\"";
  yaml << "}\nqps:\n";
  auto emit_yaml = [&](const ornic::QpContext& c) {
    yaml << "  - qpn: " << hex(c.qpn) << "\n    peer_qpn: " << hex(c.peer_qpn)
         << "\n    start_psn: " << c.epsn << "\n    pmtu: " << c.pmtu << "\n    otd: " << c.otd
         << "\n    regions: [";
    for (size_t i = 0; i < c.regions.size(); ++i)
      yaml << (i ? ", " : "") << "{base: " << hex(c.regions[i].base)
           << ", length: " << c.regions[i].length << ", rkey: " << hex(c.regions[i].rkey) << "}";
    yaml << "]\n";
    if (c.recv_count)
      yaml << "    recv_buffers: {count: " << c.recv_count << ", bytes: " << c.recv_bytes
           << ", base: " << hex(c.recv_base) << "}\n";
  };

  std::set<uint32_t> installed;
  if (sidecar && !sidecar->qps.empty()) {
    for (const trace::QpSetup& s : sidecar->qps) {
      ornic::QpContext c = make_ctx(s.qpn);
      if (s.peer_qpn) c.peer_qpn = *s.peer_qpn;
      c.epsn = s.start_psn;
      if (s.pmtu) c.pmtu = *s.pmtu;
      if (s.otd) c.otd = *s.otd;
      for (const auto& r : s.regions) c.regions.push_back({r.base, r.length, r.rkey});
      if (s.recv)
        c.recv_base = s.recv->base, c.recv_count = s.recv->count, c.recv_bytes = s.recv->bytes;
      out.qps.push_back(c);
      installed.insert(s.qpn);
      emit_yaml(c);
    }
    out.notes.push_back("QPs: " + std::to_string(out.qps.size()) + " from the sidecar");
  }
  // A sidecar says which QPs exist: frames to any other QP are unknown_qp.
  const bool derive = !sidecar || sidecar->qps.empty();
  uint32_t qindex = 0;
  for (uint32_t q : order) {
    if (!derive || installed.count(q)) continue;
    const QpObs& o = obs[q];
    if (!o.any_request) continue;  // responses only: set up below with its READs
    ornic::QpContext c = make_ctx(q);
    c.epsn = wire::psn_add(o.first_psn, o.min_rel);
    if (o.max_first_middle) c.pmtu = pow2_pmtu(o.max_first_middle, c.pmtu);
    for (const auto& [rkey, r] : o.rkeys) {
      uint64_t lo = r.first & ~0xFFFull, hi = (r.second + 0xFFF) & ~0xFFFull;
      c.regions.push_back({lo, std::max<uint64_t>(hi - lo, 4096), rkey});
    }
    // OOO WRITE: the WQE's buffer by Eq. 2 from an FSpot, whatever its arrival order.
    for (const Parsed* f : o.fspots) {
      uint64_t off = uint64_t(uint32_t(std::max(0, wire::psn_diff(f->v.bth.psn, c.epsn)))) * c.pmtu;
      if (f->v.reth.va < off) continue;
      uint64_t lo = (f->v.reth.va - off) & ~0xFFFull;
      uint64_t hi = (f->v.reth.va - off + f->v.reth.dma_len + 0xFFF) & ~0xFFFull;
      bool merged = false;
      for (auto& r : c.regions)
        if (r.rkey == f->v.reth.rkey) {
          uint64_t a = std::min(r.base, lo), b = std::max(r.base + r.length, hi);
          r.base = a, r.length = b - a, merged = true;
        }
      if (!merged) c.regions.push_back({lo, hi - lo, f->v.reth.rkey});
    }
    if (o.send_messages) {
      c.recv_count = o.send_messages + 16;
      c.recv_bytes =
          static_cast<uint32_t>(std::max<uint64_t>(4096, (o.send_bytes_max + 4095) & ~4095ull));
      c.recv_base = kRecvBase + (uint64_t{qindex} << 32);
    }
    ++qindex;
    std::ostringstream n;
    n << "derived QP " << hex(q) << ": start_psn " << c.epsn << ", pmtu " << c.pmtu << ", peer_qpn "
      << hex(c.peer_qpn) << ", " << c.regions.size() << " region(s)";
    for (const auto& r : c.regions)
      n << " [" << hex(r.base) << " +" << r.length << " rkey " << hex(r.rkey) << "]";
    if (c.recv_count)
      n << ", " << c.recv_count << " receive buffers of " << c.recv_bytes << " B at "
        << hex(c.recv_base);
    out.notes.push_back(n.str());
    out.qps.push_back(c);
    installed.insert(q);
    emit_yaml(c);
  }

  // ---- READs the DUT issued (it is the requester): place their responses ----
  uint64_t read_next = kReadBase;
  for (uint32_t i : out.from_dut) {
    const Parsed& rq = parsed[i];
    if (!rc(rq) ||
        (rq.v.bth.opcode != wire::kReadRequest && rq.v.bth.opcode != wire::kOooReadRequest))
      continue;
    // The DUT's QP is the destination of the responses that follow.
    const Parsed* resp = nullptr;
    for (uint32_t j : out.input) {
      const Parsed& x = parsed[j];
      if (!rc(x) || !(x.v.flags & wire::kIsResponse) || x.v.bth.opcode == wire::kAcknowledge)
        continue;
      int32_t d = wire::psn_diff(x.v.bth.psn, rq.v.bth.psn);
      if (d >= 0 && d < 65536) {
        resp = &x;
        break;
      }
    }
    if (!resp) continue;
    uint32_t q = resp->v.bth.dest_qp;
    if (!installed.count(q)) {
      if (!derive) continue;
      ornic::QpContext c = make_ctx(q);
      c.peer_qpn = rq.v.bth.dest_qp;
      out.qps.push_back(c);
      installed.insert(q);
      emit_yaml(c);
    }
    ornic::ReadWqe rw;
    rw.start_psn = rq.v.bth.psn;
    rw.length = rq.v.reth.dma_len;
    rw.local_addr = read_next;
    rw.ooo = rq.v.bth.opcode == wire::kOooReadRequest;
    read_next += (uint64_t{rw.length} + 0xFFFF) & ~0xFFFFull;
    out.reads.push_back({q, rw});
    out.notes.push_back("READ issued by the DUT on QP " + hex(q) + ": PSN " +
                        std::to_string(rw.start_psn) + ", " + std::to_string(rw.length) +
                        " B, responses placed at " + hex(rw.local_addr));
  }

  // ---- host memory a READ responder serves: what the capture shows, else the pattern ----
  for (uint32_t i : out.input) {
    const Parsed& rq = parsed[i];
    if (!rc(rq) ||
        (rq.v.bth.opcode != wire::kReadRequest && rq.v.bth.opcode != wire::kOooReadRequest))
      continue;
    Prefill pf;
    pf.addr = rq.v.reth.va;
    pf.len = rq.v.reth.dma_len;
    uint32_t pmtu = p.nic.pmtu_bytes;
    for (const auto& c : out.qps)
      if (c.qpn == rq.v.bth.dest_qp) pmtu = c.pmtu;
    // Captured responses of the DUT to this READ, if the capture has them.
    std::vector<uint8_t> bytes(pf.len, 0);
    uint64_t seen = 0;
    for (uint32_t j : out.from_dut) {
      const Parsed& x = parsed[j];
      if (!rc(x) || x.v.bth.opcode < wire::kReadResponseFirst ||
          x.v.bth.opcode > wire::kReadResponseOnly)
        continue;
      int32_t d = wire::psn_diff(x.v.bth.psn, rq.v.bth.psn);
      uint64_t off = uint64_t(uint32_t(std::max(d, 0))) * pmtu;
      if (d < 0 || off >= pf.len) continue;
      uint64_t n = std::min<uint64_t>(x.v.payload_len, pf.len - off);
      wire::PacketView again;  // the frame read back, for its payload
      if (wire::parse(trace.frame(recs[j], buf), recs[j].len, again, false) !=
          wire::ParseStatus::kOk)
        continue;
      std::memcpy(bytes.data() + off, again.payload, n);
      seen += n;
    }
    if (seen) pf.bytes = std::move(bytes);
    out.notes.push_back("READ served by the DUT: " + std::to_string(pf.len) + " B at " +
                        hex(pf.addr) +
                        (seen ? " provisioned from the READ responses in the capture"
                              : " provisioned with the documented pattern"));
    out.prefill.push_back(std::move(pf));
  }
  out.sidecar_yaml = yaml.str();
  return out;
}

}  // namespace oonic::replay
