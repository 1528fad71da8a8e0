#include "platforms/replay/setup.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "model/core/error.h"
#include "model/core/rng.h"
#include "model/wire/roce.h"

namespace oonic::replay {

namespace {

constexpr uint64_t kRecvBase = 0x7f0000000000ull;  // receive buffers the replay provisions
constexpr uint64_t kReadBase = 0x7e0000000000ull;  // local buffers of the DUT's own READs

// One address of a frame (source or destination), as Endpoint matches it.
struct Addr {
  uint8_t ip_version = 0;
  std::array<uint8_t, 16> ip{};
  std::array<uint8_t, 6> mac{};
  auto key() const { return std::tie(ip_version, ip, mac); }
  bool operator<(const Addr& o) const { return key() < o.key(); }
  bool operator==(const Addr& o) const { return key() == o.key(); }
};

// Interns the few distinct addresses of a capture, so a frame keeps two ids.
class AddrTable {
 public:
  uint32_t id(const Addr& a) {
    if (!all_.empty() && all_[last_] == a) return last_;
    auto it = index_.emplace(a, static_cast<uint32_t>(all_.size())).first;
    if (it->second == all_.size()) all_.push_back(a);
    return last_ = it->second;
  }
  const Addr& operator[](uint32_t i) const { return all_[i]; }
  size_t size() const { return all_.size(); }

 private:
  std::vector<Addr> all_;
  std::map<Addr, uint32_t> index_;
  uint32_t last_ = 0;
};

constexpr uint32_t kNoReth = ~0u;

// What the setup needs of one frame: 32 bytes instead of a whole PacketView,
// so the first pass over a long capture stays small.
struct Seen {
  uint32_t src = 0, dst = 0;  // AddrTable ids
  uint32_t dest_qp = 0, psn = 0, payload_len = 0;
  uint32_t reth = kNoReth;  // index into the RETHs / OOO address extensions
  uint16_t flags = 0, udp_sport = 0;
  uint8_t opcode = 0;
  bool rc = false;  // parsed as an RC frame (ICRC good or not)
};

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
  const Seen* peer_frame = nullptr;  // a frame from the peer on this QP
  std::vector<const Seen*> fspots;   // OOO FSpot frames (region from Eq. 2)
};

// What the setup keeps of every frame, from one pass over them (Seen, RETHs,
// addresses, the census for the DUT), never the frames themselves.
struct Scan {
  std::vector<Seen> seen;
  std::vector<wire::Reth> reths;
  AddrTable addrs;
  trace::DutCensus census;
  const wire::Reth& reth(const Seen& x) const {
    static const wire::Reth kNone{};
    return x.reth == kNoReth ? kNone : reths[x.reth];
  }
};

void scan_frames(const trace::Trace& trace, Scan& sc) {
  const auto& recs = trace.records;
  sc.seen.resize(recs.size());
  trace::Trace::Cursor cur(trace);
  wire::PacketView v;
  for (size_t i = 0; i < recs.size(); ++i) {
    v = wire::PacketView{};
    wire::ParseStatus st = wire::parse(cur.frame(recs[i]), recs[i].len, v, false);
    Seen& x = sc.seen[i];
    x.rc = st == wire::ParseStatus::kOk || st == wire::ParseStatus::kBadIcrc;
    x.src = sc.addrs.id({v.ip_version, v.src_ip, v.src_mac});
    x.dst = sc.addrs.id({v.ip_version, v.dst_ip, v.dst_mac});
    x.dest_qp = v.bth.dest_qp, x.psn = v.bth.psn, x.payload_len = v.payload_len;
    x.flags = v.flags, x.udp_sport = v.udp_sport, x.opcode = v.bth.opcode;
    if (v.flags & (wire::kHasReth | wire::kHasOooAddr)) {
      x.reth = static_cast<uint32_t>(sc.reths.size());
      sc.reths.push_back(v.reth);
    }
    if (x.rc) sc.census.add(v);
  }
}

// Input frames and what the DUT sent: endpoint matching per distinct
// address, then per frame by id.
void split_input(const Scan& sc, ReplaySetup& out) {
  const AddrTable& addrs = sc.addrs;
  std::vector<uint8_t> dut_src(addrs.size()), dut_dst(addrs.size());
  for (uint32_t k = 0; k < addrs.size(); ++k) {
    wire::PacketView pv;
    pv.ip_version = addrs[k].ip_version;
    pv.src_ip = pv.dst_ip = addrs[k].ip;
    pv.src_mac = pv.dst_mac = addrs[k].mac;
    dut_src[k] = out.dut.is_src(pv);
    dut_dst[k] = out.dut.is_dst(pv);
  }
  for (uint32_t i = 0; i < sc.seen.size(); ++i) {
    const Seen& x = sc.seen[i];
    if ((out.dut.has_ip || out.dut.has_mac) && dut_src[x.src] && !dut_dst[x.dst])
      out.from_dut.push_back(i);
    else
      out.input.push_back(i);
  }
}

// What the trace shows of the DUT's QPs and of their peers.
struct Observed {
  std::map<uint32_t, QpObs> obs;                           // DUT qpn -> observations
  std::vector<uint32_t> order;                             // the DUT QPNs in order of first frame
  uint32_t trace_pmtu = 0;                                 // the largest First / Middle payload
  std::map<std::string, std::set<uint32_t>> dut_sent_qps;  // peer ip text -> dest QPNs
  std::map<std::string, uint16_t> dut_sport;               // peer ip text -> UDP source port
};

void observe_qps(const Scan& sc, const ReplaySetup& out, Observed& ob) {
  for (uint32_t i : out.input) {
    const Seen& x = sc.seen[i];
    if (!x.rc) continue;
    uint32_t q = x.dest_qp;
    if (!ob.obs.count(q)) ob.order.push_back(q);
    QpObs& o = ob.obs[q];
    if (!o.peer_frame) o.peer_frame = &x;
    if (!(x.flags & wire::kIsRequest)) continue;
    if (!o.any_request) o.any_request = true, o.first_psn = x.psn;
    o.min_rel = std::min(o.min_rel, wire::psn_diff(x.psn, o.first_psn));
    uint8_t op = x.opcode;
    bool first_or_middle = op == wire::kWriteFirst || op == wire::kWriteMiddle ||
                           op == wire::kSendFirst || op == wire::kSendMiddle ||
                           op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot;
    if (first_or_middle) o.max_first_middle = std::max(o.max_first_middle, x.payload_len);
    if (x.flags & wire::kHasReth) {
      auto& r = o.rkeys[sc.reth(x).rkey];
      uint64_t lo = sc.reth(x).va, hi = sc.reth(x).va + sc.reth(x).dma_len;
      if (r.first == r.second) r = {lo, hi};
      r.first = std::min(r.first, lo), r.second = std::max(r.second, hi);
    }
    if (x.flags & wire::kHasOooAddr) o.fspots.push_back(&x);
    if (op <= wire::kSendOnlyImm) {
      if (x.flags & wire::kIsFirst) o.send_cur = 0, ++o.send_messages;
      o.send_cur += x.payload_len;
      o.send_bytes_max = std::max(o.send_bytes_max, o.send_cur);
    }
  }
}

void observe(const Scan& sc, const ReplaySetup& out, Observed& ob) {
  observe_qps(sc, out, ob);
  // The connection's PMTU shows in any First/Middle packet, either direction.
  for (const Seen& x : sc.seen) {
    if (!x.rc) continue;
    uint8_t op = x.opcode;
    if (op == wire::kWriteFirst || op == wire::kWriteMiddle || op == wire::kSendFirst ||
        op == wire::kSendMiddle || op == wire::kReadResponseFirst ||
        op == wire::kReadResponseMiddle || op == wire::kOooWriteFSpot || op == wire::kOooWriteSpot)
      ob.trace_pmtu = std::max(ob.trace_pmtu, x.payload_len);
  }
  // Peer QPN: the QP the DUT's own frames to that peer address.
  for (uint32_t i : out.from_dut) {
    const Seen& x = sc.seen[i];
    if (!x.rc) continue;
    const Addr& to = sc.addrs[x.dst];
    std::string peer = wire::format_ip(to.ip_version, to.ip);
    ob.dut_sent_qps[peer].insert(x.dest_qp);
    ob.dut_sport.emplace(peer, x.udp_sport);
  }
}

// Builds the QP contexts (sidecar, else derived) into out.qps and writes
// them as a sidecar.
struct QpBuilder {
  const Scan& sc;
  Observed& ob;
  const ornic::OrnicParams& p;
  ReplaySetup& out;
  std::ostringstream yaml;
  std::set<uint32_t> installed;

  QpBuilder(const Scan& s, Observed& o, const ornic::OrnicParams& params, ReplaySetup& setup)
      : sc(s), ob(o), p(params), out(setup) {
    yaml << "# QP setup of this replay (pass it back with --qps to change it)\n";
    yaml << "dut: {";
    if (out.dut.has_ip) yaml << "ip: " << wire::format_ip(out.dut.ip_version, out.dut.ip);
    if (out.dut.has_mac)
      yaml << (out.dut.has_ip ? ", " : "") << "mac: \"" << wire::format_mac(out.dut.mac) << "\"";
    yaml << "}\nqps:\n";
  }

  // A QP's context as the trace's addresses and the DUT's own frames show it.
  ornic::QpContext ctx(uint32_t qpn) {
    ornic::QpContext c;
    c.qpn = qpn;
    c.peer_qpn = qpn;
    c.pmtu = pow2_pmtu(ob.trace_pmtu, p.nic.pmtu_bytes);
    c.otd = p.nic.otd;
    wire::FrameSpec& t = c.tx_template;
    if (out.dut.has_mac) t.src_mac = out.dut.mac;
    if (out.dut.has_ip) t.ip_version = out.dut.ip_version, t.src_ip = out.dut.ip;
    auto it = ob.obs.find(qpn);
    if (it != ob.obs.end() && it->second.peer_frame) {
      const Addr& from = sc.addrs[it->second.peer_frame->src];
      const Addr& to = sc.addrs[it->second.peer_frame->dst];
      t.dst_mac = from.mac;
      t.ip_version = from.ip_version;
      t.dst_ip = from.ip;
      if (!out.dut.has_ip) t.src_ip = to.ip;
      if (!out.dut.has_mac) t.src_mac = to.mac;
      std::string peer = wire::format_ip(from.ip_version, from.ip);
      auto s = ob.dut_sent_qps.find(peer);
      if (s != ob.dut_sent_qps.end() && !s->second.empty()) {
        c.peer_qpn = s->second.size() == 1  ? *s->second.begin()
                     : s->second.count(qpn) ? qpn
                                            : *s->second.begin();
        t.udp_sport = ob.dut_sport[peer];
      }
    }
    return c;
  }

  // Installs the context and writes it to the sidecar.
  void add(const ornic::QpContext& c) {
    out.qps.push_back(c);
    installed.insert(c.qpn);
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
  }

  void from_sidecar(const trace::Sidecar& sidecar) {
    for (const trace::QpSetup& s : sidecar.qps) {
      ornic::QpContext c = ctx(s.qpn);
      if (s.peer_qpn) c.peer_qpn = *s.peer_qpn;
      c.epsn = s.start_psn;
      if (s.pmtu) c.pmtu = *s.pmtu;
      if (s.otd) c.otd = *s.otd;
      for (const auto& r : s.regions) c.regions.push_back({r.base, r.length, r.rkey});
      if (s.recv)
        c.recv_base = s.recv->base, c.recv_count = s.recv->count, c.recv_bytes = s.recv->bytes;
      add(c);
    }
    out.notes.push_back("QPs: " + std::to_string(out.qps.size()) + " from the sidecar");
  }

  // A QP the trace sends requests to: start PSN, PMTU, regions and receive
  // buffers from what its requests show.
  ornic::QpContext derived(uint32_t q, const QpObs& o, uint32_t qindex) {
    ornic::QpContext c = ctx(q);
    c.epsn = wire::psn_add(o.first_psn, o.min_rel);
    if (o.max_first_middle) c.pmtu = pow2_pmtu(o.max_first_middle, c.pmtu);
    for (const auto& [rkey, r] : o.rkeys) {
      uint64_t lo = r.first & ~0xFFFull, hi = (r.second + 0xFFF) & ~0xFFFull;
      c.regions.push_back({lo, std::max<uint64_t>(hi - lo, 4096), rkey});
    }
    // OOO WRITE: the WQE's buffer by Eq. 2 from an FSpot, whatever its arrival order.
    for (const Seen* f : o.fspots) {
      const wire::Reth& rt = sc.reth(*f);
      uint64_t off = uint64_t(uint32_t(std::max(0, wire::psn_diff(f->psn, c.epsn)))) * c.pmtu;
      if (rt.va < off) continue;
      uint64_t lo = (rt.va - off) & ~0xFFFull;
      uint64_t hi = (rt.va - off + rt.dma_len + 0xFFF) & ~0xFFFull;
      bool merged = false;
      for (auto& r : c.regions)
        if (r.rkey == rt.rkey) {
          uint64_t a = std::min(r.base, lo), b = std::max(r.base + r.length, hi);
          r.base = a, r.length = b - a, merged = true;
        }
      if (!merged) c.regions.push_back({lo, hi - lo, rt.rkey});
    }
    if (o.send_messages) {
      c.recv_count = o.send_messages + 16;
      c.recv_bytes =
          static_cast<uint32_t>(std::max<uint64_t>(4096, (o.send_bytes_max + 4095) & ~4095ull));
      c.recv_base = kRecvBase + (uint64_t{qindex} << 32);
    }
    return c;
  }

  void derive_all() {
    uint32_t qindex = 0;
    for (uint32_t q : ob.order) {
      if (installed.count(q)) continue;
      const QpObs& o = ob.obs[q];
      if (!o.any_request) continue;  // responses only: set up below with its READs
      ornic::QpContext c = derived(q, o, qindex);
      ++qindex;
      std::ostringstream n;
      n << "derived QP " << hex(q) << ": start_psn " << c.epsn << ", pmtu " << c.pmtu
        << ", peer_qpn " << hex(c.peer_qpn) << ", " << c.regions.size() << " region(s)";
      for (const auto& r : c.regions)
        n << " [" << hex(r.base) << " +" << r.length << " rkey " << hex(r.rkey) << "]";
      if (c.recv_count)
        n << ", " << c.recv_count << " receive buffers of " << c.recv_bytes << " B at "
          << hex(c.recv_base);
      out.notes.push_back(n.str());
      add(c);
    }
  }

  // READs the DUT issued (it is the requester): place their responses.
  // derive: no sidecar QPs, so a QP only the responses show is set up.
  void dut_reads(bool derive) {
    uint64_t read_next = kReadBase;
    for (uint32_t i : out.from_dut) {
      const Seen& rq = sc.seen[i];
      if (!rq.rc || (rq.opcode != wire::kReadRequest && rq.opcode != wire::kOooReadRequest))
        continue;
      // The DUT's QP is the destination of the responses that follow.
      const Seen* resp = nullptr;
      for (uint32_t j : out.input) {
        const Seen& x = sc.seen[j];
        if (!x.rc || !(x.flags & wire::kIsResponse) || x.opcode == wire::kAcknowledge) continue;
        int32_t d = wire::psn_diff(x.psn, rq.psn);
        if (d >= 0 && d < 65536) {
          resp = &x;
          break;
        }
      }
      if (!resp) continue;
      uint32_t q = resp->dest_qp;
      if (!installed.count(q)) {
        if (!derive) continue;
        ornic::QpContext c = ctx(q);
        c.peer_qpn = rq.dest_qp;
        add(c);
      }
      ornic::ReadWqe rw;
      rw.start_psn = rq.psn;
      rw.length = sc.reth(rq).dma_len;
      rw.local_addr = read_next;
      rw.ooo = rq.opcode == wire::kOooReadRequest;
      read_next += (uint64_t{rw.length} + 0xFFFF) & ~0xFFFFull;
      out.reads.push_back({q, rw});
      out.notes.push_back("READ issued by the DUT on QP " + hex(q) + ": PSN " +
                          std::to_string(rw.start_psn) + ", " + std::to_string(rw.length) +
                          " B, responses placed at " + hex(rw.local_addr));
    }
  }
};

// Host memory a READ responder serves: what the capture shows, else the pattern.
void prefill_reads(const trace::Trace& trace, const Scan& sc, const ornic::OrnicParams& p,
                   ReplaySetup& out) {
  const auto& recs = trace.records;
  std::vector<uint8_t> buf;
  for (uint32_t i : out.input) {
    const Seen& rq = sc.seen[i];
    if (!rq.rc || (rq.opcode != wire::kReadRequest && rq.opcode != wire::kOooReadRequest)) continue;
    Prefill pf;
    pf.addr = sc.reth(rq).va;
    pf.len = sc.reth(rq).dma_len;
    uint32_t pmtu = p.nic.pmtu_bytes;
    for (const auto& c : out.qps)
      if (c.qpn == rq.dest_qp) pmtu = c.pmtu;
    // Captured responses of the DUT to this READ, if the capture has them.
    std::vector<uint8_t> bytes(pf.len, 0);
    uint64_t shown = 0;
    for (uint32_t j : out.from_dut) {
      const Seen& x = sc.seen[j];
      if (!x.rc || x.opcode < wire::kReadResponseFirst || x.opcode > wire::kReadResponseOnly)
        continue;
      int32_t d = wire::psn_diff(x.psn, rq.psn);
      uint64_t off = uint64_t(uint32_t(std::max(d, 0))) * pmtu;
      if (d < 0 || off >= pf.len) continue;
      uint64_t n = std::min<uint64_t>(x.payload_len, pf.len - off);
      wire::PacketView again;  // the frame read back, for its payload
      if (wire::parse(trace.frame(recs[j], buf), recs[j].len, again, false) !=
          wire::ParseStatus::kOk)
        continue;
      std::memcpy(bytes.data() + off, again.payload, n);
      shown += n;
    }
    if (shown) pf.bytes = std::move(bytes);
    out.notes.push_back("READ served by the DUT: " + std::to_string(pf.len) + " B at " +
                        hex(pf.addr) +
                        (shown ? " provisioned from the READ responses in the capture"
                               : " provisioned with the documented pattern"));
    out.prefill.push_back(std::move(pf));
  }
}

}  // namespace

ReplaySetup make_setup(const trace::Trace& trace, const std::optional<trace::Sidecar>& sidecar,
                       const std::string& dut_arg, const ornic::OrnicParams& p) {
  ReplaySetup out;
  Scan sc;
  scan_frames(trace, sc);

  // ---- the device under test ----
  trace::DutChoice choice = trace::choose_dut(dut_arg, sidecar, sc.census, trace.path);
  out.dut = choice.dut;
  out.dut_how = choice.how;
  out.notes.push_back("device under test: " + out.dut.text() + " (" + out.dut_how + ")");

  split_input(sc, out);

  // ---- QPs: sidecar, else derived ----
  Observed ob;
  observe(sc, out, ob);
  QpBuilder qps(sc, ob, p, out);
  if (sidecar && !sidecar->qps.empty()) qps.from_sidecar(*sidecar);
  // A sidecar says which QPs exist: frames to any other QP are unknown_qp.
  const bool derive = !sidecar || sidecar->qps.empty();
  if (derive) qps.derive_all();
  qps.dut_reads(derive);

  prefill_reads(trace, sc, p, out);
  out.sidecar_yaml = qps.yaml.str();
  return out;
}

}  // namespace oonic::replay
