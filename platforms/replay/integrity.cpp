#include "platforms/replay/integrity.h"

#include <algorithm>
#include <optional>
#include <queue>
#include <sstream>
#include <tuple>
#include <vector>

#include "model/wire/roce.h"

namespace oonic::replay {

namespace {

// A payload range the DUT must have placed: its bytes are the frame's at
// payload_off, read back from the trace when compared (the trace need not hold
// its frames in memory).
struct Piece {
  uint64_t addr;
  uint32_t pos;  // in trace.records
  uint32_t payload_off;
  uint32_t len;
  uint32_t record;
};

// The header fields of a frame the reference receiver reads (a PacketView is
// 248 bytes; this is kept for every input frame).
struct Hdr {
  struct {
    uint32_t psn, dest_qp;
    uint8_t opcode;
  } bth;
  struct {
    uint64_t va;
    uint32_t dma_len;
  } reth;
  decltype(wire::PacketView::flags) flags;
  uint32_t payload_len;
};

struct Pkt {
  uint32_t record;
  uint32_t pos;
  uint32_t payload_off;
  Hdr v;
};

// Packets by (QP, PSN), the first copy of each PSN kept: one sorted vector
// (48 B a packet) instead of a map per QP.
class ByQp {
 public:
  void reserve(size_t n) { v_.reserve(n); }
  void add(const Pkt& p) { v_.push_back(p); }
  void seal() {
    std::stable_sort(v_.begin(), v_.end(), [](const Pkt& a, const Pkt& b) {
      return std::tie(a.v.bth.dest_qp, a.v.bth.psn) < std::tie(b.v.bth.dest_qp, b.v.bth.psn);
    });
    v_.erase(std::unique(v_.begin(), v_.end(),
                         [](const Pkt& a, const Pkt& b) {
                           return a.v.bth.dest_qp == b.v.bth.dest_qp && a.v.bth.psn == b.v.bth.psn;
                         }),
             v_.end());
  }
  // QP q's packets in PSN order.
  std::pair<const Pkt*, const Pkt*> of(uint32_t q) const {
    auto lo = std::lower_bound(v_.begin(), v_.end(), q,
                               [](const Pkt& p, uint32_t x) { return p.v.bth.dest_qp < x; });
    auto hi = std::upper_bound(lo, v_.end(), q,
                               [](uint32_t x, const Pkt& p) { return x < p.v.bth.dest_qp; });
    return {v_.data() + (lo - v_.begin()), v_.data() + (hi - v_.begin())};
  }

 private:
  std::vector<Pkt> v_;
};

}  // namespace

std::string IntegrityResult::text() const {
  std::ostringstream os;
  if (!checked) return "n/a (no payload for the DUT to place)";
  if (ok) {
    os << "OK (" << bytes << " bytes in " << ranges << " payload ranges)";
  } else {
    os << "MISMATCH at host address 0x" << std::hex << first_bad_addr << std::dec << ": expected 0x"
       << std::hex << int(expected) << ", found 0x" << int(actual) << std::dec << " (trace record "
       << record << ")";
  }
  return os.str();
}

IntegrityResult check_integrity(const trace::Trace& trace, const ReplaySetup& setup,
                                const SparseMemory& host) {
  std::vector<Piece> pieces;
  // Valid RC frames for the DUT, grouped by destination QP, first copy of each PSN.
  // qpn -> (psn -> packet); requests and responses apart (an ACK shares PSNs with data).
  ByQp by_qp, rsp_by_qp;
  by_qp.reserve(setup.input.size());
  trace::Trace::Cursor cur(trace);
  for (uint32_t i : setup.input) {
    const trace::Record& r = trace.records[i];
    if (r.orig_len > r.len) continue;
    const uint8_t* f = cur.frame(r);
    wire::PacketView v;
    if (wire::parse(f, r.len, v, true) != wire::ParseStatus::kOk) continue;
    Pkt p{r.index, i, static_cast<uint32_t>(v.payload ? v.payload - f : 0),
          Hdr{{v.bth.psn, v.bth.dest_qp, v.bth.opcode},
              {v.reth.va, v.reth.dma_len},
              v.flags,
              v.payload_len}};
    ((p.v.flags & wire::kIsRequest) ? by_qp : rsp_by_qp).add(p);
  }
  by_qp.seal();
  rsp_by_qp.seal();
  for (const ornic::QpContext& c : setup.qps) {
    const auto [qb, qe] = by_qp.of(c.qpn);
    if (qb == qe) continue;
    // Requests in PSN order from the QP's start PSN.
    std::vector<const Pkt*> req;
    for (const Pkt* p = qb; p != qe; ++p)
      if ((p->v.flags & wire::kIsRequest) && wire::psn_diff(p->v.bth.psn, c.epsn) >= 0)
        req.push_back(p);
    std::sort(req.begin(), req.end(), [&](const Pkt* a, const Pkt* b) {
      return wire::psn_diff(a->v.bth.psn, c.epsn) < wire::psn_diff(b->v.bth.psn, c.epsn);
    });
    uint32_t expect = c.epsn;
    bool gap = false;              // standard: past a hole nothing is placed
    uint64_t cursor = 0, end = 0;  // standard message
    bool in_msg = false;
    uint32_t recv_used = 0;
    for (size_t k = 0; k < req.size(); ++k) {
      const Hdr& v = req[k]->v;
      const uint8_t op = v.bth.opcode;
      const bool ooo = op >= wire::kOooWriteFSpot && op <= wire::kOooWriteLastFSpot;
      if (ooo) {
        // Gather the WQE: from this PSN up to its Last; Start_Addr from any FSpot (Eq. 2).
        uint32_t start = expect;
        size_t j = k;
        bool have_start = false;
        uint64_t start_addr = 0;
        for (; j < req.size(); ++j) {
          const Hdr& w = req[j]->v;
          uint8_t o = w.bth.opcode;
          if (o < wire::kOooWriteFSpot || o > wire::kOooWriteLastFSpot) break;
          if ((w.flags & wire::kHasOooAddr) && !have_start) {
            start_addr = w.reth.va - uint64_t(uint32_t(wire::psn_diff(w.bth.psn, start))) * c.pmtu;
            have_start = true;
          }
          if (o == wire::kOooWriteLast || o == wire::kOooWriteLastFSpot) {
            ++j;
            break;
          }
        }
        uint32_t last_psn = start;
        for (size_t m = k; m < j; ++m) {
          const Hdr& w = req[m]->v;
          last_psn = w.bth.psn;
          if (have_start && w.payload_len)
            pieces.push_back(
                {start_addr + uint64_t(uint32_t(wire::psn_diff(w.bth.psn, start))) * c.pmtu,
                 req[m]->pos, req[m]->payload_off, w.payload_len, req[m]->record});
        }
        expect = wire::psn_add(last_psn, 1);
        k = j - 1;
        continue;
      }
      if (gap) break;
      if (v.bth.psn != expect) {
        gap = true;
        break;
      }
      if (op == wire::kReadRequest) {
        uint32_t n = std::max<uint32_t>(1, (v.reth.dma_len + c.pmtu - 1) / c.pmtu);
        expect = wire::psn_add(expect, n);
        continue;
      }
      const bool is_send = op <= wire::kSendOnlyImm;
      if (v.flags & wire::kIsFirst) {
        if (is_send) {
          if (recv_used >= c.recv_count) break;
          cursor = c.recv_base + uint64_t{recv_used++} * c.recv_bytes;
          end = cursor + c.recv_bytes;
        } else {
          cursor = v.reth.va, end = v.reth.va + v.reth.dma_len;
        }
        in_msg = true;
      }
      if (!in_msg) break;
      if (v.payload_len && cursor + v.payload_len <= end)
        pieces.push_back({cursor, req[k]->pos, req[k]->payload_off, v.payload_len, req[k]->record});
      cursor += v.payload_len;
      if (v.flags & wire::kIsLast) in_msg = false;
      expect = wire::psn_add(expect, 1);
    }
  }
  // READ responses to the DUT's own READs.
  for (const auto& [qpn, rw] : setup.reads) {
    const auto [rb, re] = rsp_by_qp.of(qpn);
    if (rb == re) continue;
    uint32_t pmtu = 4096;
    for (const auto& c : setup.qps)
      if (c.qpn == qpn) pmtu = c.pmtu;
    uint32_t packets = std::max<uint32_t>(1, (rw.length + pmtu - 1) / pmtu);
    for (const Pkt* q = rb; q != re; ++q) {
      const Pkt& p = *q;
      int32_t d = wire::psn_diff(p.v.bth.psn, rw.start_psn);
      if (!(p.v.flags & wire::kIsResponse) || p.v.bth.opcode == wire::kAcknowledge || d < 0 ||
          static_cast<uint32_t>(d) >= packets || !p.v.payload_len)
        continue;
      pieces.push_back({rw.local_addr + uint64_t(uint32_t(d)) * pmtu, p.pos, p.payload_off,
                        p.v.payload_len, p.record});
    }
  }

  // The headers have given their pieces: free them before the bytes are read.
  by_qp = ByQp();
  rsp_by_qp = ByQp();

  IntegrityResult res;
  res.checked = !pieces.empty();
  // Later pieces win where they overlap: paint, then compare each piece's surviving bytes.
  SparseMemory expected;
  bool overlap = false;
  {
    std::vector<std::pair<uint64_t, uint64_t>> iv;
    for (const Piece& p : pieces) iv.push_back({p.addr, p.addr + p.len});
    std::sort(iv.begin(), iv.end());
    for (size_t i = 1; i < iv.size(); ++i)
      if (iv[i].first < iv[i - 1].second) overlap = true;
  }
  // The pieces' bytes are read in trace order (one pass, streamed), whatever
  // order the pieces are in; the verdict is the one of piece order.
  std::vector<uint32_t> by_pos(pieces.size());
  for (uint32_t k = 0; k < by_pos.size(); ++k) by_pos[k] = k;
  std::stable_sort(by_pos.begin(), by_pos.end(),
                   [&](uint32_t a, uint32_t b) { return pieces[a].pos < pieces[b].pos; });
  if (!overlap) {
    struct Bad {
      uint32_t rank;
      uint64_t addr;
      uint8_t expected;
    };
    std::optional<Bad> first;  // the mismatch of the earliest piece in piece order
    trace::Trace::Cursor cur2(trace);
    for (uint32_t k : by_pos) {
      const Piece& p = pieces[k];
      res.bytes += p.len, ++res.ranges;
      if (first && first->rank < k) continue;
      const uint8_t* d = cur2.frame(trace.records[p.pos]) + p.payload_off;
      int64_t bad = host.first_difference(p.addr, d, p.len);
      if (bad >= 0)
        first = Bad{k, static_cast<uint64_t>(bad), d[bad - static_cast<int64_t>(p.addr)]};
    }
    if (first) {
      res.ok = false;
      res.first_bad_addr = first->addr;
      res.expected = first->expected;
      host.read(first->addr, &res.actual, 1);
      res.record = pieces[first->rank].record;
    }
    return res;
  }
  // Overlaps: each address holds the bytes of the last piece (in piece order)
  // that covers it. Find, without the bytes, which piece wins where; then paint
  // those parts in trace order.
  struct Seg {
    uint64_t from, to;
    uint32_t winner;
  };
  std::vector<Seg> segs;
  {
    std::vector<uint64_t> bounds;
    bounds.reserve(pieces.size() * 2);
    for (const Piece& p : pieces) bounds.push_back(p.addr), bounds.push_back(p.addr + p.len);
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    std::vector<uint32_t> by_addr(pieces.size());
    for (uint32_t k = 0; k < by_addr.size(); ++k) by_addr[k] = k;
    std::sort(by_addr.begin(), by_addr.end(),
              [&](uint32_t a, uint32_t b) { return pieces[a].addr < pieces[b].addr; });
    std::priority_queue<std::pair<uint32_t, uint64_t>> active;  // (rank, end): latest on top
    size_t next = 0;
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
      const uint64_t from = bounds[b], to = bounds[b + 1];
      for (; next < by_addr.size() && pieces[by_addr[next]].addr <= from; ++next)
        active.push({by_addr[next], pieces[by_addr[next]].addr + pieces[by_addr[next]].len});
      while (!active.empty() && active.top().second <= from) active.pop();
      if (active.empty()) continue;
      const uint32_t w = active.top().first;
      if (!segs.empty() && segs.back().to == from && segs.back().winner == w)
        segs.back().to = to;
      else
        segs.push_back({from, to, w});
    }
  }
  // Each piece's winning parts, painted in trace order.
  std::vector<std::pair<uint32_t, uint32_t>> jobs;  // (rank, seg)
  jobs.reserve(segs.size());
  for (uint32_t g = 0; g < segs.size(); ++g) jobs.push_back({segs[g].winner, g});
  std::sort(jobs.begin(), jobs.end(), [&](const auto& a, const auto& b) {
    return pieces[a.first].pos != pieces[b.first].pos ? pieces[a.first].pos < pieces[b.first].pos
                                                      : a.second < b.second;
  });
  {
    trace::Trace::Cursor cur2(trace);
    uint32_t have = UINT32_MAX;
    const uint8_t* d = nullptr;
    for (const auto& [rank, g] : jobs) {
      const Piece& p = pieces[rank];
      if (p.pos != have) d = cur2.frame(trace.records[p.pos]) + p.payload_off, have = p.pos;
      const Seg& sg = segs[g];
      expected.write(sg.from, d + (sg.from - p.addr), sg.to - sg.from);
    }
  }
  std::vector<uint8_t> want;
  for (const Piece& p : pieces) {
    want.resize(p.len);
    expected.read(p.addr, want.data(), p.len);
    res.bytes += p.len, ++res.ranges;
    int64_t bad = host.first_difference(p.addr, want.data(), p.len);
    if (bad >= 0 && res.ok) {
      res.ok = false;
      res.first_bad_addr = static_cast<uint64_t>(bad);
      res.expected = want[bad - static_cast<int64_t>(p.addr)];
      host.read(static_cast<uint64_t>(bad), &res.actual, 1);
      res.record = p.record;
    }
  }
  return res;
}

}  // namespace oonic::replay
