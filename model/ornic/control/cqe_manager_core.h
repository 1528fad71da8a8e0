// Control plane: ORNIC's CQE Manager, the core. The QP Manager registers each WQE it
// caches; a WQE completes when an ACK covers its last PSN (WRITE, SEND) or when its last
// READ data is in host memory (READ), and completions leave in SQ order.
// Register-scheduler shape (Figure 8): per CQE schedule_cycles, a WQE cache read
// (wr_id, length) and a 32-byte DMA write into the QP's CQ ring; a READ's CQE write
// starts no earlier than its last data write finished. Plain C++.
#pragma once

#include "model/core/link.h"
#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/block_interfaces.h"
#include "model/ornic/qp_context.h"

namespace oonic::ornic {

class CqeManagerCore final : public CompletionWork {
 public:
  CqeManagerCore(const CoreEnv& env, const QpContextTable& qps, DmaPort& dma);
  // The QP Manager's send queues (built after the control plane).
  Link<CompletionSource> send_queues_port{"control.cqe_manager.send_queues_port"};
  void registered() override { registered_.inc(); }
  void poll(Cycle t, uint32_t qi) override;
  Cycle last_activity() const { return last_activity_; }
  uint64_t cqes() const { return cqes_.value; }
  uint64_t stall_cycles() const { return sched_.stall_cycles(); }

 private:
  const OrnicParams& p_;
  const QpContextTable& qps_;
  DmaPort& dma_;
  Resource sched_;
  Cycle last_activity_ = 0;
  uint8_t buf_[32];
  Counter& registered_;
  Counter& cqes_;
  Counter& error_cqes_;
  Counter& read_cqes_;
};

}  // namespace oonic::ornic
