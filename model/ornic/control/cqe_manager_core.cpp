#include "model/ornic/control/cqe_manager_core.h"

#include <algorithm>

#include "model/ornic/wqe.h"

namespace oonic::ornic {

CqeManagerCore::CqeManagerCore(const CoreEnv& env, const QpContextTable& qps, DmaPort& dma)
    : p_(env.p),
      qps_(qps),
      dma_(dma),
      registered_(
          env.stats.counter("registered", "WQE", "WQEs registered by the Hdr Generator (cached)")),
      cqes_(env.stats.counter("cqes", "CQE", "CQEs written to completion queues")),
      error_cqes_(env.stats.counter("error_cqes", "CQE",
                                    "CQEs with an error status (malformed WQE, remote access "
                                    "or invalid request NAK)")),
      read_cqes_(env.stats.counter("read_cqes", "CQE", "CQEs of READ WQEs")) {}

void CqeManagerCore::poll(Cycle t, uint32_t qi) {
  CompletedWqe w;
  while (send_queues_port->head_completed(qi, &w)) {
    Cqe e;
    e.wr_id = w.wr_id;
    e.qpn = qps_.at(qi).qpn;
    e.op = static_cast<WqeOp>(w.op);
    e.status = w.bad ? 1 : 0;
    e.ooo = w.ooo;
    e.byte_len = w.length;
    e.start_psn = w.start_psn;
    e.encode(buf_);
    // A READ's CQE follows its data (ORNIC: READ completes when its last data is in host memory).
    Cycle from = std::max(t, w.data_done_at);
    Cycle g = sched_.acquire(from, p_.cqe_manager.schedule_cycles);
    Cycle r = send_queues_port->read_wqe_cache(g + p_.cqe_manager.schedule_cycles);
    Cycle done = dma_.write(r, w.cq_addr, buf_, kCqeBytes, nullptr);
    cqes_.inc();
    if (w.bad) error_cqes_.inc();
    if (e.op == WqeOp::kRead) read_cqes_.inc();
    last_activity_ = std::max(last_activity_, done);
    send_queues_port->retire(t, qi);
  }
  send_queues_port->kick_qp(t, qi);
}

}  // namespace oonic::ornic
