#include "platforms/replay/integrity.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "model/wire/roce.h"

namespace oonic::replay {

namespace {

struct Piece {
  uint64_t addr;
  const uint8_t* data;
  uint32_t len;
  uint32_t record;
};

struct Pkt {
  uint32_t record;
  wire::PacketView v;
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
  std::map<uint32_t, std::map<uint32_t, Pkt>> by_qp, rsp_by_qp;
  for (uint32_t i : setup.input) {
    const trace::Record& r = trace.records[i];
    if (r.orig_len > r.len) continue;
    Pkt p{r.index, {}};
    if (wire::parse(trace.data(r), r.len, p.v, true) != wire::ParseStatus::kOk) continue;
    auto& m = (p.v.flags & wire::kIsRequest) ? by_qp : rsp_by_qp;
    m[p.v.bth.dest_qp].emplace(p.v.bth.psn, p);
  }
  for (const ornic::QpContext& c : setup.qps) {
    auto it = by_qp.find(c.qpn);
    if (it == by_qp.end()) continue;
    // Requests in PSN order from the QP's start PSN.
    std::vector<const Pkt*> req;
    for (const auto& [psn, p] : it->second)
      if ((p.v.flags & wire::kIsRequest) && wire::psn_diff(psn, c.epsn) >= 0) req.push_back(&p);
    std::sort(req.begin(), req.end(), [&](const Pkt* a, const Pkt* b) {
      return wire::psn_diff(a->v.bth.psn, c.epsn) < wire::psn_diff(b->v.bth.psn, c.epsn);
    });
    uint32_t expect = c.epsn;
    bool gap = false;              // standard: past a hole nothing is placed
    uint64_t cursor = 0, end = 0;  // standard message
    bool in_msg = false;
    uint32_t recv_used = 0;
    for (size_t k = 0; k < req.size(); ++k) {
      const wire::PacketView& v = req[k]->v;
      const uint8_t op = v.bth.opcode;
      const bool ooo = op >= wire::kOooWriteFSpot && op <= wire::kOooWriteLastFSpot;
      if (ooo) {
        // Gather the WQE: from this PSN up to its Last; Start_Addr from any FSpot (Eq. 2).
        uint32_t start = expect;
        size_t j = k;
        bool have_start = false;
        uint64_t start_addr = 0;
        for (; j < req.size(); ++j) {
          const wire::PacketView& w = req[j]->v;
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
          const wire::PacketView& w = req[m]->v;
          last_psn = w.bth.psn;
          if (have_start && w.payload_len)
            pieces.push_back(
                {start_addr + uint64_t(uint32_t(wire::psn_diff(w.bth.psn, start))) * c.pmtu,
                 w.payload, w.payload_len, req[m]->record});
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
        pieces.push_back({cursor, v.payload, v.payload_len, req[k]->record});
      cursor += v.payload_len;
      if (v.flags & wire::kIsLast) in_msg = false;
      expect = wire::psn_add(expect, 1);
    }
  }
  // READ responses to the DUT's own READs.
  for (const auto& [qpn, rw] : setup.reads) {
    auto it = rsp_by_qp.find(qpn);
    if (it == rsp_by_qp.end()) continue;
    uint32_t pmtu = 4096;
    for (const auto& c : setup.qps)
      if (c.qpn == qpn) pmtu = c.pmtu;
    uint32_t packets = std::max<uint32_t>(1, (rw.length + pmtu - 1) / pmtu);
    for (const auto& [psn, p] : it->second) {
      int32_t d = wire::psn_diff(psn, rw.start_psn);
      if (!(p.v.flags & wire::kIsResponse) || p.v.bth.opcode == wire::kAcknowledge || d < 0 ||
          static_cast<uint32_t>(d) >= packets || !p.v.payload_len)
        continue;
      pieces.push_back(
          {rw.local_addr + uint64_t(uint32_t(d)) * pmtu, p.v.payload, p.v.payload_len, p.record});
    }
  }

  IntegrityResult res;
  res.checked = !pieces.empty();
  // Later pieces win where they overlap: paint, then compare each piece's surviving bytes.
  SparseMemory expected;
  std::map<uint64_t, uint32_t> owner;  // only needed when pieces overlap
  bool overlap = false;
  {
    std::vector<std::pair<uint64_t, uint64_t>> iv;
    for (const Piece& p : pieces) iv.push_back({p.addr, p.addr + p.len});
    std::sort(iv.begin(), iv.end());
    for (size_t i = 1; i < iv.size(); ++i)
      if (iv[i].first < iv[i - 1].second) overlap = true;
  }
  if (!overlap) {
    for (const Piece& p : pieces) {
      res.bytes += p.len, ++res.ranges;
      int64_t bad = host.first_difference(p.addr, p.data, p.len);
      if (bad >= 0 && res.ok) {
        res.ok = false;
        res.first_bad_addr = static_cast<uint64_t>(bad);
        res.expected = p.data[bad - static_cast<int64_t>(p.addr)];
        host.read(static_cast<uint64_t>(bad), &res.actual, 1);
        res.record = p.record;
      }
    }
    return res;
  }
  for (const Piece& p : pieces) expected.write(p.addr, p.data, p.len);
  std::vector<uint8_t> buf;
  for (const Piece& p : pieces) {
    buf.resize(p.len);
    expected.read(p.addr, buf.data(), p.len);
    res.bytes += p.len, ++res.ranges;
    int64_t bad = host.first_difference(p.addr, buf.data(), p.len);
    if (bad >= 0 && res.ok) {
      res.ok = false;
      res.first_bad_addr = static_cast<uint64_t>(bad);
      res.expected = buf[bad - static_cast<int64_t>(p.addr)];
      host.read(static_cast<uint64_t>(bad), &res.actual, 1);
      res.record = p.record;
    }
  }
  return res;
}

}  // namespace oonic::replay
