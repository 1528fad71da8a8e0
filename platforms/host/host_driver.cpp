#include "platforms/host/host_driver.h"

#include <algorithm>
#include <cstdio>

#include "model/ornic/register_map.h"

namespace oonic::host {

namespace {
uint64_t now_ps() {
  return ClockDomain::ps_of(sc_core::sc_time_stamp());
}
}  // namespace

HostDriver::HostDriver(sc_core::sc_module_name name, HostMemory& mem, PcieLink& pcie,
                       uint32_t queue_depth, Stats& stats, const std::string& stat_prefix)
    : sc_module(name),
      reg_initiator_socket("reg_initiator_socket"),
      mem_(mem),
      depth_(queue_depth),
      wqes_posted_(stats.counter(prefix(stat_prefix) + ".wqes_posted", "WQE",
                                 "WQEs written into send queues")),
      doorbells_(stats.counter(prefix(stat_prefix) + ".doorbells", "write",
                               "SQ_DOORBELL register writes")),
      cqes_(stats.counter(prefix(stat_prefix) + ".cqes", "CQE",
                          "CQEs taken from completion queues")) {
  pcie.on_write([this](uint64_t ps, uint64_t a, uint64_t n) { on_write(ps, a, n); });
  SC_THREAD(run);
}

std::string HostDriver::prefix(const std::string& stat_prefix) const {
  return stat_prefix.empty() ? std::string(name()) : stat_prefix;
}

void HostDriver::add_qp(const QpSetup& q) {
  Qp x;
  x.s = q;
  cq_index_[q.cq_base] = static_cast<uint32_t>(qps_.size());
  cq_lo_ = std::min(cq_lo_, q.cq_base);
  cq_hi_ = std::max(cq_hi_, q.cq_base + uint64_t{q.cq_entries} * ornic::kCqeBytes);
  qps_.push_back(x);
}

uint64_t HostDriver::add_wqe(uint32_t qi, const ornic::Wqe& w, uint64_t dest_addr,
                             uint64_t not_before_ps) {
  WqeRecord r;
  r.qi = qi;
  r.not_before_ps = not_before_ps;
  r.wqe = w;
  r.wqe.wr_id = rec_.size();
  r.dest_addr = dest_addr;
  for (auto& q : qps_)
    if (q.s.qi == qi) {
      r.qpn = q.s.qpn;
      r.index = q.wqes.size();
      q.wqes.push_back(rec_.size());
    }
  if (w.op == ornic::WqeOp::kRead && w.length) read_dest_[dest_addr] = rec_.size();
  rec_.push_back(r);
  return rec_.size() - 1;
}

void HostDriver::on_write(uint64_t done_ps, uint64_t addr, uint64_t len) {
  // Every DMA write comes here; most are payload, outside every CQ and every
  // READ's destination, and cost two compares (no walk of the QPs' maps).
  auto c = addr >= cq_lo_ && addr < cq_hi_ ? cq_index_.upper_bound(addr) : cq_index_.begin();
  if (c != cq_index_.begin()) {
    --c;
    const Qp& q = qps_[c->second];
    if (addr < q.s.cq_base + uint64_t{q.s.cq_entries} * ornic::kCqeBytes) {
      arrivals_.push({done_ps, addr});
      cqe_event_.notify(sc_core::sc_time(static_cast<double>(done_ps - std::min(done_ps, now_ps())),
                                         sc_core::SC_PS));
      return;
    }
  }
  if (read_dest_.empty()) return;
  auto r = read_dest_.upper_bound(addr);
  if (r == read_dest_.begin()) return;
  --r;
  WqeRecord& w = rec_[r->second];
  if (addr + len <= w.dest_addr + w.wqe.length) {
    w.last_data_ps = std::max(w.last_data_ps, done_ps);
    if (w.cqes) w.data_after_cqe = true;
  }
}

void HostDriver::reg_write(uint32_t addr, uint32_t v, sc_core::sc_time& delay) {
  tlm::tlm_generic_payload& gp = gp_;  // one payload, reused: a doorbell per CQE
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  reg_initiator_socket->b_transport(gp, delay);
  if (!gp.is_response_ok()) ++reg_errors_;
}

void HostDriver::post(uint32_t slot) {
  Qp& q = qps_[slot];
  uint64_t n = 0;
  uint8_t buf[ornic::kWqeBytes];
  const uint64_t now = now_ps();
  while (q.posted < q.wqes.size() && q.posted - q.completed < depth_ &&
         q.posted - q.completed < q.s.sq_entries) {
    WqeRecord& r = rec_[q.wqes[q.posted]];
    if (r.not_before_ps > now) {  // not due yet: wake when it is
      due_.push({r.not_before_ps, slot});
      post_event_.notify(
          sc_core::sc_time(static_cast<double>(r.not_before_ps - now), sc_core::SC_PS));
      break;
    }
    r.wqe.encode(buf);
    mem_.memory().write(q.s.sq_base + (q.posted % q.s.sq_entries) * ornic::kWqeBytes, buf,
                        ornic::kWqeBytes);
    r.post_ps = now;
    r.posted = true;
    ++q.posted, ++n;
  }
  if (!n) return;
  wqes_posted_.inc(n);
  doorbells_.inc();
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  reg_write(ornic::RegisterFile::address(q.s.qi, ornic::QpReg::kSqDoorbell),
            static_cast<uint32_t>(q.posted & 0xFFFF), d);
}

void HostDriver::run() {
  // QP setup through the register bus (the accesses' latencies add up).
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  for (const Qp& q : qps_) {
    auto w = [&](ornic::QpReg reg, uint32_t v) {
      reg_write(ornic::RegisterFile::address(q.s.qi, reg), v, d);
    };
    w(ornic::QpReg::kQpn, q.s.qpn);
    w(ornic::QpReg::kPeerQpn, q.s.peer_qpn);
    w(ornic::QpReg::kSqPsn, q.s.sq_psn);
    w(ornic::QpReg::kSqBaseLo, static_cast<uint32_t>(q.s.sq_base));
    w(ornic::QpReg::kSqBaseHi, static_cast<uint32_t>(q.s.sq_base >> 32));
    w(ornic::QpReg::kSqSize, q.s.sq_entries);
    w(ornic::QpReg::kCqBaseLo, static_cast<uint32_t>(q.s.cq_base));
    w(ornic::QpReg::kCqBaseHi, static_cast<uint32_t>(q.s.cq_base >> 32));
    w(ornic::QpReg::kCqSize, q.s.cq_entries);
    w(ornic::QpReg::kState, 3);  // RTS
  }
  sc_core::wait(d);
  setup_end_ps_ = now_ps();
  for (uint32_t i = 0; i < qps_.size(); ++i) post(i);
  uint64_t shown = 0;
  while (done_ < rec_.size()) {
    sc_core::wait(cqe_event_ | post_event_);
    uint64_t t = now_ps();
    // QPs whose next WQE became due (an entry may be stale: post() re-checks).
    while (!due_.empty() && due_.top().first <= t) {
      const uint32_t slot = due_.top().second;
      due_.pop();
      post(slot);
    }
    if (!due_.empty())
      post_event_.notify(
          sc_core::sc_time(static_cast<double>(due_.top().first - t), sc_core::SC_PS));
    std::vector<uint32_t> touched;
    while (!arrivals_.empty() && arrivals_.top().first <= t) {
      auto [ps, addr] = arrivals_.top();
      arrivals_.pop();
      auto c = cq_index_.upper_bound(addr);
      --c;
      uint32_t slot = c->second;
      Qp& q = qps_[slot];
      uint8_t b[ornic::kCqeBytes];
      mem_.memory().read(addr, b, ornic::kCqeBytes);
      ornic::Cqe e;
      e.decode(b);
      b[15] = 0;  // consumed: clear the owner byte
      mem_.memory().write(addr, b, ornic::kCqeBytes);
      cqes_.inc();
      if (e.owner != 1 || e.wr_id >= rec_.size() || rec_[e.wr_id].qi != q.s.qi) {
        ++bad_cqes_;
        continue;
      }
      WqeRecord& r = rec_[e.wr_id];
      if (++r.cqes == 1) {
        r.cqe_ps = ps;
        r.status = e.status;
        r.start_psn = e.start_psn;
        ++q.completed;
        ++done_;
        last_cqe_ps_ = std::max(last_cqe_ps_, ps);
        if (every_ && done_ % every_ == 0 && on_every_) on_every_(last_cqe_ps_);
      }
      ++q.cq_ci;
      touched.push_back(slot);
    }
    if (!arrivals_.empty())
      cqe_event_.notify(
          sc_core::sc_time(static_cast<double>(arrivals_.top().first - t), sc_core::SC_PS));
    for (uint32_t s : touched) post(s);
    if (progress_ && done_ * 20 / rec_.size() != shown) {
      shown = done_ * 20 / rec_.size();
      std::fprintf(stderr, "\r  %llu/%zu WQEs complete", static_cast<unsigned long long>(done_),
                   rec_.size());
      if (done_ == rec_.size()) std::fprintf(stderr, "\n");
    }
  }
  if (on_finished_)
    on_finished_();
  else
    sc_core::sc_stop();
}

}  // namespace oonic::host
