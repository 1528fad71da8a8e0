// Control plane: ORNIC's CQE Manager. The Hdr Generator registers each WQE it
// caches; a WQE completes when an ACK covers its last PSN (WRITE, SEND) or when
// its last READ data is in host memory (READ), and completions leave in SQ
// order. Register-scheduler shape (Figure 8): per CQE schedule_cycles, a WQE
// cache read (wr_id, length) and a 32-byte DMA write into the QP's CQ ring; a
// READ's CQE write starts no earlier than its last data write finished.
#pragma once

#include <systemc>
#include <vector>

#include "model/core/resource.h"
#include "model/core/stats.h"
#include "model/ornic/block_env.h"
#include "model/ornic/dma_engine.h"
#include "model/ornic/qp_context.h"

namespace oonic::ornic {

class QpManager;

class CqeManager : public sc_core::sc_module {
 public:
  CqeManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps,
             DmaEngine& dma);
  void set_qp_manager(QpManager* q) { qpm_ = q; }
  // A WQE was cached (registration).
  void registered() { registered_.inc(); }
  // WQEs of QP qi may have completed at cycle t: write their CQEs in order.
  void poll(Cycle t, uint32_t qi);
  Cycle last_activity() const { return last_activity_; }
  uint64_t cqes() const { return cqes_.value; }

 private:
  const OrnicParams& p_;
  QpContextTable& qps_;
  DmaEngine& dma_;
  QpManager* qpm_ = nullptr;
  Resource sched_;
  Cycle last_activity_ = 0;
  uint8_t buf_[32];
  Counter& registered_;
  Counter& cqes_;
  Counter& error_cqes_;
  Counter& read_cqes_;
};

}  // namespace oonic::ornic
