// `oonic trace synth`: a synthetic RoCEv2 trace and its QP sidecar.
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

// ------------------------------------------------------------------- synth ---

namespace {

enum Kind { kWrite, kRead, kSend };

// One packet of a QP's stream, before it is built into a frame.
struct Pkt {
  uint8_t op;
  uint32_t psn;
  uint64_t va = 0;
  uint32_t rkey = 0, dmalen = 0, len = 0, msn = 0;
  uint64_t pat = 0;
  bool ackreq = false, from_dut = false;
  bool eunomia = false, eunomia_last = false;  // Eunomia metadata (OOO WRITE)
  uint32_t eunomia_head = 0;
};

constexpr uint64_t kPeerOffset = 0x100000000000ull;  // the peer's buffers (DUT's READs)

// One QP's packets, WQE by WQE, with its PSN spaces: psn for the peer's
// requests (and the responses a READ takes), dpsn for the DUT's own READs.
struct QpPackets {
  const SynthOptions& o;
  const uint64_t pkts;  // packets per WQE
  const uint32_t q, rkey;
  std::vector<Pkt>& st;
  uint32_t psn, dpsn;
  uint32_t reads = 0, sends = 0;  // DUT READs, SENDs (receive buffers)

  uint32_t wlen() const { return static_cast<uint32_t>(o.wqe_bytes); }
  uint32_t plen(uint64_t k) const {
    return static_cast<uint32_t>(std::min<uint64_t>(o.pmtu, o.wqe_bytes - k * o.pmtu));
  }

  void write(uint64_t wqe_base) {
    const uint32_t head = psn;  // the WQE's first PSN: Eunomia's Head
    for (uint64_t k = 0; k < pkts; ++k) {
      Pkt p;
      bool last = k + 1 == pkts;
      uint64_t addr = wqe_base + k * o.pmtu;
      p.psn = psn;
      psn = wire::psn_add(psn, 1);
      p.len = plen(k);
      p.pat = addr;
      p.ackreq = last;
      if (o.ooo) {
        bool fspot = k < o.fspot_count;
        p.op = last ? (fspot ? wire::kOooWriteLastFSpot : wire::kOooWriteLast)
                    : (fspot ? wire::kOooWriteFSpot : wire::kOooWriteSpot);
        if (fspot) p.va = addr, p.rkey = rkey, p.dmalen = wlen();
        // Eunomia's sender agent (model/ornic/tx/qp_manager.cpp): OOO WRITE only.
        if (o.eunomia_meta) p.eunomia = true, p.eunomia_head = head, p.eunomia_last = last;
      } else {
        p.op = pkts == 1 ? wire::kWriteOnly
               : k == 0  ? wire::kWriteFirst
               : last    ? wire::kWriteLast
                         : wire::kWriteMiddle;
        if (k == 0) p.va = wqe_base, p.rkey = rkey, p.dmalen = wlen();
      }
      st.push_back(p);
    }
  }

  void send(uint64_t wqe_base) {
    ++sends;
    for (uint64_t k = 0; k < pkts; ++k) {
      Pkt p;
      bool last = k + 1 == pkts;
      p.psn = psn;
      psn = wire::psn_add(psn, 1);
      p.len = plen(k);
      p.pat = wqe_base + k * o.pmtu;
      p.ackreq = last;
      p.op = pkts == 1 ? wire::kSendOnly
             : k == 0  ? wire::kSendFirst
             : last    ? wire::kSendLast
                       : wire::kSendMiddle;
      st.push_back(p);
    }
  }

  // The peer READs the WQE's buffer from the DUT.
  void read_from_dut(uint64_t wqe_base) {
    Pkt p;
    p.op = o.ooo ? wire::kOooReadRequest : wire::kReadRequest;
    p.psn = psn;
    p.va = wqe_base, p.rkey = rkey, p.dmalen = wlen();
    psn = wire::psn_add(psn, static_cast<int64_t>(pkts));  // the responses' PSNs
    st.push_back(p);
  }

  // The DUT READs the peer's buffer: its request, then the responses.
  void read_by_dut(uint64_t wqe_base) {
    ++reads;
    Pkt rq;
    rq.op = o.ooo ? wire::kOooReadRequest : wire::kReadRequest;
    rq.psn = dpsn;
    rq.va = wqe_base + kPeerOffset, rq.rkey = 0x8000 + q, rq.dmalen = wlen();
    rq.from_dut = true;
    st.push_back(rq);
    for (uint64_t k = 0; k < pkts; ++k) {
      Pkt p;
      bool last = k + 1 == pkts;
      p.psn = wire::psn_add(dpsn, static_cast<int64_t>(k));
      p.len = plen(k);
      p.pat = rq.va + k * o.pmtu;
      p.msn = reads;
      p.op = o.ooo       ? wire::kOooReadResponse
             : pkts == 1 ? wire::kReadResponseOnly
             : k == 0    ? wire::kReadResponseFirst
             : last      ? wire::kReadResponseLast
                         : wire::kReadResponseMiddle;
      st.push_back(p);
    }
    dpsn = wire::psn_add(dpsn, static_cast<int64_t>(pkts));
  }
};

// Every QP's packets (the WQE kinds drawn from o.mix) and the sidecar that
// sets the QPs up.
std::vector<std::vector<Pkt>> qp_streams(const SynthOptions& o, SynthResult& res) {
  const uint32_t total = o.mix_write + o.mix_read + o.mix_send;
  if (total == 0) fail_cli("trace synth: --mix: all weights are 0");
  const int kinds = (o.mix_write > 0) + (o.mix_read > 0) + (o.mix_send > 0);
  PyRandom rng(o.seed);
  const uint64_t pkts = (o.wqe_bytes + o.pmtu - 1) / o.pmtu;
  const uint64_t region = o.wqes * o.wqe_bytes;
  const uint64_t stride = (region + 0xFFF) & ~uint64_t{0xFFF};
  const uint64_t recv_bytes = std::max<uint64_t>(4096, (o.wqe_bytes + 0xFFF) & ~uint64_t{0xFFF});
  uint64_t recv_next = (o.va_base + o.qps * stride + 0xFFFFF) & ~uint64_t{0xFFFFF};

  std::vector<std::vector<Pkt>> streams(o.qps);
  std::ostringstream yaml;
  yaml << "dut: {ip: 10.0.0.2, mac: \"02:00:00:00:00:02\"}\nqps:\n";
  for (uint32_t q = 0; q < o.qps; ++q) {
    const uint32_t qpn = (o.qpn_base + q) & wire::kPsnMask;
    const uint64_t base = o.va_base + q * stride;
    QpPackets qp{o, pkts, q, o.rkey + q, streams[q], o.start_psn, o.start_psn};
    for (uint32_t w = 0; w < o.wqes; ++w) {
      Kind kind = o.mix_write ? kWrite : o.mix_read ? kRead : kSend;
      if (kinds > 1) {
        uint64_t r = rng.randrange(total);
        kind = r < o.mix_write ? kWrite : r < o.mix_write + o.mix_read ? kRead : kSend;
      }
      const uint64_t wqe_base = base + w * o.wqe_bytes;
      if (kind == kWrite) {
        ++res.writes;
        qp.write(wqe_base);
      } else if (kind == kSend) {
        ++res.sends;
        qp.send(wqe_base);
      } else if (!o.read_requester) {
        ++res.reads;
        qp.read_from_dut(wqe_base);
      } else {
        ++res.reads;
        qp.read_by_dut(wqe_base);
      }
    }
    yaml << "  - qpn: " << hexs(qpn) << "\n    start_psn: " << o.start_psn
         << "\n    pmtu: " << o.pmtu << "\n    regions: [{base: " << hexs(base)
         << ", length: " << region << ", rkey: " << hexs(qp.rkey) << "}]\n";
    if (qp.sends) {
      yaml << "    recv_buffers: {count: " << qp.sends << ", bytes: " << recv_bytes
           << ", base: " << hexs(recv_next) << "}\n";
      recv_next += (qp.sends * recv_bytes + 0xFFFFF) & ~uint64_t{0xFFFFF};
    }
  }
  res.sidecar_yaml = yaml.str();
  return streams;
}

// The frame of QP q's packet p; its payload (if any) in payload.
wire::FrameSpec frame_spec(const SynthOptions& o, uint32_t q, const Pkt& p,
                           std::vector<uint8_t>& payload) {
  wire::FrameSpec s;
  if (p.from_dut) {
    std::swap(s.src_mac, s.dst_mac);
    std::swap(s.src_ip, s.dst_ip);
  }
  s.bth.opcode = p.op;
  s.bth.dest_qp = (o.qpn_base + q) & wire::kPsnMask;
  s.bth.psn = p.psn;
  s.bth.ack_req = p.ackreq;
  if (p.eunomia) {
    s.bth.resv7 |= wire::kBthEunomiaMetaBit;
    s.eunomia.head = p.eunomia_head;
    s.eunomia.last = p.eunomia_last;
  }
  s.reth.va = p.va, s.reth.rkey = p.rkey, s.reth.dma_len = p.dmalen;
  s.aeth.syndrome = wire::kAethAckNoCredit;
  s.aeth.msn = p.msn;
  s.payload_len = p.len;
  if (p.len) {
    if (o.payload_pattern)
      fill_pattern(p.pat, payload.data(), p.len);
    else
      std::fill(payload.begin(), payload.begin() + p.len, 0);
    s.payload = payload.data();
  }
  return s;
}

// Round robin over the QPs, one packet at a time; frames built here, timed
// back to back at o.gbps when o.line_rate.
Frames interleave(const SynthOptions& o, const std::vector<std::vector<Pkt>>& streams) {
  std::vector<uint8_t> bytes;
  std::vector<Frame> frames;
  std::vector<uint8_t> payload(o.pmtu);
  std::vector<size_t> cur(o.qps, 0);
  double acc = 0;
  const double ps_per_byte = 8000.0 / o.gbps;
  size_t left = 0;
  for (const auto& s : streams) left += s.size();
  frames.reserve(left);
  while (left) {
    for (uint32_t q = 0; q < o.qps; ++q) {
      if (cur[q] >= streams[q].size()) continue;
      const Pkt& p = streams[q][cur[q]++];
      --left;
      const wire::FrameSpec s = frame_spec(o, q, p, payload);
      Frame f;
      f.offset = bytes.size();
      f.len = static_cast<uint32_t>(wire::frame_size(s));
      f.wire_len = f.len;
      f.source = static_cast<uint32_t>(frames.size() + 1);
      bytes.resize(f.offset + f.len);
      wire::build(s, bytes.data() + f.offset, f.len);
      f.has_time = o.line_rate;
      if (o.line_rate) {
        f.time_ps = static_cast<int64_t>(std::nearbyint(acc));  // Python's round(): half to even
        if (!p.from_dut)  // the DUT's frames use the other direction of the link
          acc += static_cast<double>(std::max<uint32_t>(f.len, 60) + wire::kFcsBytes +
                                     wire::kPreambleIfgBytes) *
                 ps_per_byte;
      }
      frames.push_back(f);
    }
  }
  Frames out = Frames::own(std::move(bytes));
  out.path = o.out;
  out.frames = std::move(frames);
  return out;
}

}  // namespace

SynthResult synth(const SynthOptions& o) {
  SynthResult res;
  const std::vector<std::vector<Pkt>> streams = qp_streams(o, res);
  res.frames = interleave(o, streams);
  return res;
}

}  // namespace oonic::trace
