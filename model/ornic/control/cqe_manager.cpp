#include "model/ornic/control/cqe_manager.h"

#include <algorithm>

#include "model/ornic/tx/qp_manager.h"

namespace oonic::ornic {

CqeManager::CqeManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
                       DmaEngine& dma)
    : sc_module(name),
      p_(env.p),
      qps_(qps),
      dma_(dma),
      registered_(env.stats.counter(std::string(this->name()) + ".registered", "WQE",
                                    "WQEs registered by the Hdr Generator (cached)")),
      cqes_(env.stats.counter(std::string(this->name()) + ".cqes", "CQE",
                              "CQEs written to completion queues")),
      error_cqes_(env.stats.counter(std::string(this->name()) + ".error_cqes", "CQE",
                                    "CQEs with an error status (malformed WQE, remote access "
                                    "or invalid request NAK)")),
      read_cqes_(env.stats.counter(std::string(this->name()) + ".read_cqes", "CQE",
                                   "CQEs of READ WQEs")) {}

void CqeManager::poll(Cycle t, uint32_t qi) {
  SqState& s = qpm_->sq(qi);
  while (s.active > 0) {
    TxWqe& w = s.wqes.front();
    bool complete = w.bad || (w.w.op == WqeOp::kRead ? w.data_done : w.acked);
    if (!complete) break;
    Cqe e;
    e.wr_id = w.w.wr_id;
    e.qpn = qps_.at(qi).qpn;
    e.op = w.w.op;
    e.status = w.bad ? 1 : 0;
    e.ooo = w.w.ooo;
    e.byte_len = w.w.length;
    e.start_psn = w.start_psn;
    e.encode(buf_);
    // A READ's CQE follows its data (ORNIC: READ completes when its last data is in host memory).
    Cycle from = std::max(t, w.data_done_at);
    Cycle g = sched_.acquire(from, p_.cqe_manager.schedule_cycles);
    Cycle r = qpm_->wqe_cache().read(g + p_.cqe_manager.schedule_cycles,
                                     qpm_->wqe_cache().params().width_bits);
    uint64_t addr = s.cq_base + (s.cq_pi % s.cq_size) * kCqeBytes;
    Cycle done = dma_.write(r, addr, buf_, kCqeBytes, nullptr);
    ++s.cq_pi;
    cqes_.inc();
    if (w.bad) error_cqes_.inc();
    if (w.w.op == WqeOp::kRead) read_cqes_.inc();
    last_activity_ = std::max(last_activity_, done);
    qpm_->retire(t, qi);
  }
  qpm_->kick_qp(t, qi);
}

}  // namespace oonic::ornic
