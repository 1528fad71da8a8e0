#include "platforms/replay/integrity.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
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
// its frames in memory). 24 bytes; one per payload packet.
struct Piece {
  uint64_t addr;
  uint32_t pos;  // in trace.records
  uint32_t len;
  uint32_t rank;  // in piece order (later pieces win where they overlap)
  uint16_t payload_off;
  uint8_t wins;  // what of it survives: kNone, kWhole, kPart
};
enum : uint8_t { kNone, kWhole, kPart };

// The header fields of a frame the reference receiver reads, packed to 32
// bytes (a PacketView is 248; this is kept for every input frame until the
// pieces are known).
struct Pkt {
  uint32_t pos;  // in trace.records
  uint16_t payload_off;
  uint16_t flags;   // wire::HeaderFlags
  uint32_t psn_op;  // PSN (24 bits) | opcode << 24
  uint32_t dest_qp;
  uint32_t va_lo, va_hi;  // RETH / OOO address extension
  uint32_t dma_len;
  uint32_t payload_len;
  uint32_t psn() const { return psn_op & wire::kPsnMask; }
  uint8_t opcode() const { return static_cast<uint8_t>(psn_op >> 24); }
  uint64_t va() const { return uint64_t{va_hi} << 32 | va_lo; }
};
static_assert(sizeof(Pkt) == 32 && sizeof(Piece) == 24);

// The part of a piece that survives when only part of it does.
struct Part {
  uint64_t from, to;
  uint64_t addr;  // of its piece
  uint32_t pos;
  uint16_t payload_off;
};

// Packets by (QP, PSN), the first copy of each PSN kept: one sorted vector
// (32 B a packet) instead of a map per QP.
class ByQp {
 public:
  void reserve(size_t n) { v_.reserve(n); }
  void add(const Pkt& p) { v_.push_back(p); }
  void seal() {
    std::stable_sort(v_.begin(), v_.end(), [](const Pkt& a, const Pkt& b) {
      return a.dest_qp != b.dest_qp ? a.dest_qp < b.dest_qp : a.psn() < b.psn();
    });
    v_.erase(std::unique(v_.begin(), v_.end(),
                         [](const Pkt& a, const Pkt& b) {
                           return a.dest_qp == b.dest_qp && a.psn() == b.psn();
                         }),
             v_.end());
  }
  size_t size() const { return v_.size(); }
  // QP q's packets in PSN order.
  std::pair<const Pkt*, const Pkt*> of(uint32_t q) const {
    auto lo = std::lower_bound(v_.begin(), v_.end(), q,
                               [](const Pkt& p, uint32_t x) { return p.dest_qp < x; });
    auto hi =
        std::upper_bound(lo, v_.end(), q, [](uint32_t x, const Pkt& p) { return x < p.dest_qp; });
    return {v_.data() + (lo - v_.begin()), v_.data() + (hi - v_.begin())};
  }

 private:
  std::vector<Pkt> v_;
};

// The header fields of the valid RC frames for the DUT: requests and responses
// apart (an ACK shares PSNs with data), by destination QP, the first copy of
// each PSN.
void read_headers(const trace::Trace& trace, const ReplaySetup& setup, ByQp& by_qp,
                  ByQp& rsp_by_qp) {
  by_qp.reserve(setup.input.size());
  trace::Trace::Cursor cur(trace);
  for (uint32_t i : setup.input) {
    const trace::Record& r = trace.records[i];
    if (r.orig_len > r.len) continue;
    const uint8_t* f = cur.frame(r);
    wire::PacketView v;
    if (wire::parse(f, r.len, v, true) != wire::ParseStatus::kOk) continue;
    const ptrdiff_t off = v.payload ? v.payload - f : 0;
    if (off > UINT16_MAX) continue;  // no RoCE header is that long
    Pkt p{i,
          static_cast<uint16_t>(off),
          static_cast<uint16_t>(v.flags),
          (v.bth.psn & wire::kPsnMask) | uint32_t{v.bth.opcode} << 24,
          v.bth.dest_qp,
          static_cast<uint32_t>(v.reth.va),
          static_cast<uint32_t>(v.reth.va >> 32),
          v.reth.dma_len,
          v.payload_len};
    ((p.flags & wire::kIsRequest) ? by_qp : rsp_by_qp).add(p);
  }
  by_qp.seal();
  rsp_by_qp.seal();
}

void add_piece(std::vector<Piece>& pieces, uint64_t addr, const Pkt& p) {
  pieces.push_back(
      {addr, p.pos, p.payload_len, static_cast<uint32_t>(pieces.size()), p.payload_off, kNone});
}

// An OOO WRITE WQE from req[k] up to its Last: each packet at Start_Addr (from
// any FSpot, Eq. 2) plus its PSN's offset. Returns the index past the WQE;
// expect moves past its last PSN.
size_t ooo_write_pieces(const std::vector<const Pkt*>& req, size_t k, const ornic::QpContext& c,
                        uint32_t& expect, std::vector<Piece>& pieces) {
  uint32_t start = expect;
  size_t j = k;
  bool have_start = false;
  uint64_t start_addr = 0;
  for (; j < req.size(); ++j) {
    const Pkt& w = *req[j];
    uint8_t o = w.opcode();
    if (o < wire::kOooWriteFSpot || o > wire::kOooWriteLastFSpot) break;
    if ((w.flags & wire::kHasOooAddr) && !have_start) {
      start_addr = w.va() - uint64_t(uint32_t(wire::psn_diff(w.psn(), start))) * c.pmtu;
      have_start = true;
    }
    if (o == wire::kOooWriteLast || o == wire::kOooWriteLastFSpot) {
      ++j;
      break;
    }
  }
  uint32_t last_psn = start;
  for (size_t m = k; m < j; ++m) {
    const Pkt& w = *req[m];
    last_psn = w.psn();
    if (have_start && w.payload_len)
      add_piece(pieces, start_addr + uint64_t(uint32_t(wire::psn_diff(w.psn(), start))) * c.pmtu,
                *req[m]);
  }
  expect = wire::psn_add(last_psn, 1);
  return j;
}

// The pieces of QP c's requests, in PSN order from its start PSN.
void request_pieces(const ornic::QpContext& c, const ByQp& by_qp, std::vector<Piece>& pieces) {
  const auto [qb, qe] = by_qp.of(c.qpn);
  if (qb == qe) return;
  std::vector<const Pkt*> req;
  for (const Pkt* p = qb; p != qe; ++p)
    if ((p->flags & wire::kIsRequest) && wire::psn_diff(p->psn(), c.epsn) >= 0) req.push_back(p);
  std::sort(req.begin(), req.end(), [&](const Pkt* a, const Pkt* b) {
    return wire::psn_diff(a->psn(), c.epsn) < wire::psn_diff(b->psn(), c.epsn);
  });
  uint32_t expect = c.epsn;
  bool gap = false;              // standard: past a hole nothing is placed
  uint64_t cursor = 0, end = 0;  // standard message
  bool in_msg = false;
  uint32_t recv_used = 0;
  for (size_t k = 0; k < req.size(); ++k) {
    const Pkt& v = *req[k];
    const uint8_t op = v.opcode();
    if (op >= wire::kOooWriteFSpot && op <= wire::kOooWriteLastFSpot) {
      k = ooo_write_pieces(req, k, c, expect, pieces) - 1;
      continue;
    }
    if (gap) break;
    if (v.psn() != expect) {
      gap = true;
      break;
    }
    if (op == wire::kReadRequest) {
      uint32_t n = std::max<uint32_t>(1, (v.dma_len + c.pmtu - 1) / c.pmtu);
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
        cursor = v.va(), end = v.va() + v.dma_len;
      }
      in_msg = true;
    }
    if (!in_msg) break;
    if (v.payload_len && cursor + v.payload_len <= end) add_piece(pieces, cursor, *req[k]);
    cursor += v.payload_len;
    if (v.flags & wire::kIsLast) in_msg = false;
    expect = wire::psn_add(expect, 1);
  }
}

// READ responses to the DUT's own READs.
void read_response_pieces(const ReplaySetup& setup, const ByQp& rsp_by_qp,
                          std::vector<Piece>& pieces) {
  for (const auto& [qpn, rw] : setup.reads) {
    const auto [rb, re] = rsp_by_qp.of(qpn);
    if (rb == re) continue;
    uint32_t pmtu = 4096;
    for (const auto& c : setup.qps)
      if (c.qpn == qpn) pmtu = c.pmtu;
    uint32_t packets = std::max<uint32_t>(1, (rw.length + pmtu - 1) / pmtu);
    for (const Pkt* q = rb; q != re; ++q) {
      const Pkt& p = *q;
      int32_t d = wire::psn_diff(p.psn(), rw.start_psn);
      if (!(p.flags & wire::kIsResponse) || p.opcode() == wire::kAcknowledge || d < 0 ||
          static_cast<uint32_t>(d) >= packets || !p.payload_len)
        continue;
      add_piece(pieces, rw.local_addr + uint64_t(uint32_t(d)) * pmtu, p);
    }
  }
}

// Every payload range the DUT must have placed, in piece order. The headers
// read for them are freed on return, before the bytes are read.
std::vector<Piece> collect_pieces(const trace::Trace& trace, const ReplaySetup& setup) {
  ByQp by_qp, rsp_by_qp;
  read_headers(trace, setup, by_qp, rsp_by_qp);
  std::vector<Piece> pieces;
  pieces.reserve(by_qp.size() + rsp_by_qp.size());
  for (const ornic::QpContext& c : setup.qps) request_pieces(c, by_qp, pieces);
  read_response_pieces(setup, rsp_by_qp, pieces);
  return pieces;
}

// Which piece wins where: the last in piece order that covers a byte.
struct Claims {
  std::map<uint64_t, uint64_t> claimed;  // from -> to, disjoint, not adjacent
  std::vector<Part> parts;               // of the pieces that survive in part
  bool overlap = false;
};

// Swept from the last piece back, each keeps what no later piece claimed; the
// claimed ranges, merged, stay as few as the buffers written. Sets each
// piece's wins.
Claims claim(std::vector<Piece>& pieces) {
  Claims cl;
  std::map<uint64_t, uint64_t>& claimed = cl.claimed;
  for (size_t k = pieces.size(); k-- > 0;) {
    Piece& p = pieces[k];
    const uint64_t a = p.addr, b = p.addr + p.len;
    auto it = claimed.upper_bound(a);
    if (it != claimed.begin() && std::prev(it)->second >= a) --it;  // touches [a, b)
    uint64_t at = a, kept = 0;
    size_t first_part = cl.parts.size();
    auto keep = [&](uint64_t from, uint64_t to) {
      if (from >= to) return;
      kept += to - from;
      cl.parts.push_back({from, to, p.addr, p.pos, p.payload_off});
    };
    uint64_t lo = a, hi = b;
    auto head = claimed.end();  // a range from at or before a: widened in place
    while (it != claimed.end() && it->first <= b) {
      keep(at, std::min(it->first, b));
      at = std::max(at, it->second);
      lo = std::min(lo, it->first), hi = std::max(hi, it->second);
      if (head == claimed.end() && it->first <= a)
        head = it++;
      else
        it = claimed.erase(it);
    }
    keep(at, b);
    if (head != claimed.end())
      head->second = hi;
    else
      claimed.emplace(lo, hi);
    if (kept == p.len) {
      p.wins = kWhole;
      cl.parts.resize(first_part);
    } else {
      cl.overlap = true;
      p.wins = kept ? kPart : kNone;
    }
  }
  return cl;
}

// The mismatch reported: of the earliest piece in piece order, its lowest address.
struct Bad {
  uint32_t rank;
  uint64_t addr;
  uint8_t expected;
  bool page;  // a whole page kept as a digest differs
};

// Digest mode: the expected bytes of a digest page, gathered until complete.
struct Open {
  std::unique_ptr<uint8_t[]> buf;  // not zeroed: compared only once filled
  uint64_t filled = 0;
  uint32_t rank = UINT32_MAX;
};

// Compares the pieces (sorted in trace order) with host memory and keeps the
// mismatch to report; with host.memory.digest, pages kept as a digest are
// compared by digest once all their bytes are known.
class Comparer {
 public:
  Comparer(const trace::Trace& trace, const SparseMemory& host, const std::vector<Piece>& pieces)
      : trace_(trace), host_(host), pieces_(pieces) {}

  // No overlaps: each piece compared as the trace is read (one streamed pass).
  void streamed() {
    trace::Trace::Cursor cur(trace_);
    for (const Piece& p : pieces_) {
      const bool later = first_ && first_->rank < p.rank;
      const bool any_lost = host_.digest() && (lost(p.addr) || lost(p.addr + p.len - 1));
      if (later && !any_lost) continue;
      const uint8_t* d = cur.frame(trace_.records[p.pos]) + p.payload_off;
      by_page(p.addr, p.len, [&](uint64_t a, uint64_t off, uint64_t n) {
        if (lost(a)) {
          gather(a, d + off, n, p.rank);
          return;
        }
        if (later) return;
        int64_t bad = host_.first_difference(a, d + off, n);
        if (bad >= 0)
          consider(Bad{p.rank, static_cast<uint64_t>(bad), d[off + static_cast<uint64_t>(bad) - a],
                       false});
      });
    }
    for (const auto& [pn, o] : open_) unverified_ += o.filled;  // pages the pieces do not fill
  }

  // Overlaps: paint the winning bytes in trace order, then compare what was
  // written (the claimed ranges) with host memory; only on a difference is each
  // piece looked at, for the verdict of piece order.
  void painted(const std::map<uint64_t, uint64_t>& claimed, std::vector<Part>& parts) {
    SparseMemory expected;
    paint(expected, parts);
    std::map<uint64_t, uint64_t> lost_cover;  // digest page -> claimed bytes in it
    const bool same = claimed_same(expected, claimed, lost_cover);
    const std::map<uint64_t, bool> page_bad = digest_pages_bad(expected, lost_cover);
    bool any_page_bad = false;
    for (const auto& [pn, b] : page_bad) any_page_bad |= b;
    if (same && !any_page_bad) return;
    find_first_bad(expected, page_bad);
  }

  void report(IntegrityResult& res) const {
    res.unverified_bytes = unverified_;
    if (!first_) return;
    res.ok = false;
    res.first_bad_addr = first_->addr;
    res.expected = first_->expected;
    res.digest_page = first_->page;
    if (!first_->page) host_.read(first_->addr, &res.actual, 1);
    for (const Piece& p : pieces_)
      if (p.rank == first_->rank) res.record = trace_.records[p.pos].index;
  }

 private:
  static constexpr uint64_t kPage = SparseMemory::kPageBytes;

  bool lost(uint64_t a) const { return host_.digest() && host_.lost(a / kPage); }

  // Calls f(addr, offset in the range, n) for each page's part of [addr, addr + len).
  template <typename F>
  static void by_page(uint64_t addr, uint64_t len, F f) {
    for (uint64_t at = addr; at < addr + len;) {
      uint64_t n = std::min(addr + len, (at / kPage + 1) * kPage) - at;
      f(at, at - addr, n);
      at += n;
    }
  }

  void consider(const Bad& b) {
    if (!first_ || std::tie(b.rank, b.addr) < std::tie(first_->rank, first_->addr)) first_ = b;
  }

  void page_verdict(uint64_t pn, const uint8_t* bytes, uint32_t rank) {
    auto s = host_.sealed().find(pn);
    if (s == host_.sealed().end())  // reopened: the bytes around the new ones are gone
      unverified_ += kPage;
    else if (SparseMemory::digest_of(bytes) != s->second)
      consider(Bad{rank, pn * kPage, 0, true});
  }

  // n expected bytes at a, in a digest page: compared once the page is full.
  void gather(uint64_t a, const uint8_t* src, uint64_t n, uint32_t rank) {
    Open& o = open_[a / kPage];
    if (!o.buf) {
      if (spare_.empty()) spare_.emplace_back(new uint8_t[kPage]);
      o.buf = std::move(spare_.back());
      spare_.pop_back();
    }
    std::memcpy(o.buf.get() + a % kPage, src, n);
    o.filled += n, o.rank = std::min(o.rank, rank);
    if (o.filled == kPage) {
      page_verdict(a / kPage, o.buf.get(), o.rank);
      spare_.push_back(std::move(o.buf));
      open_.erase(a / kPage);
    }
  }

  // The winning bytes, whole pieces and surviving parts, in trace order.
  void paint(SparseMemory& expected, std::vector<Part>& parts) const {
    std::sort(parts.begin(), parts.end(), [](const Part& x, const Part& y) {
      return x.pos != y.pos ? x.pos < y.pos : x.from < y.from;
    });
    trace::Trace::Cursor cur(trace_);
    size_t j = 0;
    auto paint_parts_before = [&](uint32_t pos) {
      for (; j < parts.size() && parts[j].pos < pos; ++j) {
        const Part& q = parts[j];
        const uint8_t* d = cur.frame(trace_.records[q.pos]) + q.payload_off;
        expected.write(q.from, d + (q.from - q.addr), q.to - q.from);
      }
    };
    for (const Piece& p : pieces_) {
      if (p.wins != kWhole) continue;
      paint_parts_before(p.pos + 1);
      expected.write(p.addr, cur.frame(trace_.records[p.pos]) + p.payload_off, p.len);
    }
    paint_parts_before(UINT32_MAX);
  }

  // Host memory equals the painted bytes in the claimed ranges (digest pages
  // aside: their claimed bytes are counted in lost_cover).
  bool claimed_same(const SparseMemory& expected, const std::map<uint64_t, uint64_t>& claimed,
                    std::map<uint64_t, uint64_t>& lost_cover) {
    bool same = true;
    for (const auto& [from, to] : claimed) {
      by_page(from, to - from, [&](uint64_t a, uint64_t, uint64_t n) {
        if (lost(a)) {
          lost_cover[a / kPage] += n;
          return;
        }
        for (uint64_t at = a; at < a + n && same;) {
          uint64_t m = std::min<uint64_t>(a + n - at, 1u << 20);
          want_.resize(m);
          expected.read(at, want_.data(), m);
          same = host_.first_difference(at, want_.data(), m) < 0;
          at += m;
        }
      });
    }
    return same;
  }

  // Digest pages the pieces fill, compared: differ?
  std::map<uint64_t, bool> digest_pages_bad(const SparseMemory& expected,
                                            const std::map<uint64_t, uint64_t>& lost_cover) {
    std::map<uint64_t, bool> page_bad;
    for (const auto& [pn, n] : lost_cover) {
      if (n != kPage) {  // written beyond what the pieces claim: not comparable
        unverified_ += n;
        continue;
      }
      want_.resize(kPage);
      expected.read(pn * kPage, want_.data(), kPage);
      auto s = host_.sealed().find(pn);
      if (s == host_.sealed().end())
        unverified_ += kPage;
      else
        page_bad[pn] = SparseMemory::digest_of(want_.data()) != s->second;
    }
    return page_bad;
  }

  // Each piece (in piece order, up to the mismatch found) compared with the
  // painted bytes.
  void find_first_bad(const SparseMemory& expected, const std::map<uint64_t, bool>& page_bad) {
    for (const Piece& p : pieces_) {
      if (first_ && first_->rank < p.rank) continue;
      want_.resize(p.len);
      expected.read(p.addr, want_.data(), p.len);
      by_page(p.addr, p.len, [&](uint64_t a, uint64_t off, uint64_t n) {
        if (lost(a)) {
          auto b = page_bad.find(a / kPage);
          if (b != page_bad.end() && b->second) consider(Bad{p.rank, a / kPage * kPage, 0, true});
          return;
        }
        int64_t bad = host_.first_difference(a, want_.data() + off, n);
        if (bad >= 0)
          consider(Bad{p.rank, static_cast<uint64_t>(bad),
                       want_[off + static_cast<uint64_t>(bad) - a], false});
      });
    }
  }

  const trace::Trace& trace_;
  const SparseMemory& host_;
  const std::vector<Piece>& pieces_;
  std::optional<Bad> first_;
  uint64_t unverified_ = 0;
  std::map<uint64_t, Open> open_;
  std::vector<std::unique_ptr<uint8_t[]>> spare_;  // page buffers to reuse
  std::vector<uint8_t> want_;                      // painted bytes read back
};

}  // namespace

std::string IntegrityResult::text() const {
  std::ostringstream os;
  if (!checked) return "n/a (no payload for the DUT to place)";
  if (ok) {
    os << "OK (" << bytes << " bytes in " << ranges << " payload ranges";
    if (unverified_bytes) os << "; " << unverified_bytes << " bytes in digest pages not comparable";
    os << ")";
  } else if (digest_page) {
    os << "MISMATCH in the host page at 0x" << std::hex << first_bad_addr << std::dec
       << " (2 MiB, kept as a digest by host.memory.digest: replay without it for the byte)"
       << " (trace record " << record << ")";
  } else {
    os << "MISMATCH at host address 0x" << std::hex << first_bad_addr << std::dec << ": expected 0x"
       << std::hex << int(expected) << ", found 0x" << int(actual) << std::dec << " (trace record "
       << record << ")";
  }
  return os.str();
}

IntegrityResult check_integrity(const trace::Trace& trace, const ReplaySetup& setup,
                                const SparseMemory& host) {
  std::vector<Piece> pieces = collect_pieces(trace, setup);
  IntegrityResult res;
  res.checked = !pieces.empty();
  Claims cl = claim(pieces);
  // Bytes are read in trace order (one streamed pass), whatever the piece order.
  std::sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) {
    return x.pos != y.pos ? x.pos < y.pos : x.rank < y.rank;
  });
  for (const Piece& p : pieces) res.bytes += p.len, ++res.ranges;
  Comparer cmp(trace, host, pieces);
  if (!cl.overlap)
    cmp.streamed();
  else
    cmp.painted(cl.claimed, cl.parts);
  cmp.report(res);
  return res;
}

}  // namespace oonic::replay
