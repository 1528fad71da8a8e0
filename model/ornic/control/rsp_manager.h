// Control plane: ORNIC's Rsp Manager. The Rsp Processor hands it every
// response (ACK, NAK, bitmap NAK, READ data); it keeps the requester state of
// each QP moving:
//   ACK            first unacknowledged PSN advances; "Start_Addr cached" turns
//                  the QP's OOO WRITE from FSpot to Spot; WQEs fully ACKed go
//                  to the CQE Manager.
//   NAK (PSN seq)  go-back-N from the PSN the responder expects (standard path).
//   bitmap NAK     selective retransmission: exactly the PSNs whose bit is 0 in
//                  the block (and were sent).
//   scheme feedback  the baselines' frames: MELO's hole NACK resends its holes
//                  (the sender's bitmap is rebuilt from them); a SACK or MP-RDMA
//                  ACK moves the cumulative PSN and resends the first hole once
//                  per first-unacknowledged PSN (IRN's selective repeat); a NACK
//                  resends that PSN.
//   READ data      a READ whose last data is placed goes to the CQE Manager; a
//                  standard READ response past the expected PSN re-requests
//                  from it (once per expected PSN); an OOO READ loss re-requests
//                  each missing run of the block.
//   timeout        per QP, RTT + OTD/B after the last send or progress: resend
//                  from the first unacknowledged PSN (go-back-N) and re-request
//                  incomplete READs from their first missing PSN. The timer is
//                  one agenda entry per busy QP, moved lazily: idle QPs cost
//                  nothing and progress costs no heap operation.
#pragma once

#include <systemc>
#include <vector>

#include "model/core/stats.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/requester_events.h"
#include "model/ornic/rx/bitmap_manager.h"

namespace oonic::eunomia {
class SenderAgent;
}

namespace oonic::ornic {

class QpManager;
class CqeManager;
struct TxWqe;

class RspManager : public sc_core::sc_module, public RequesterEvents {
 public:
  RspManager(sc_core::sc_module_name name, const BlockEnv& env, QpContextTable& qps, Agenda& agenda,
             CqeManager& cqe);
  void connect(QpManager* qpm, BitmapManager* bitmap) { qpm_ = qpm, bitmap_ = bitmap; }
  // Eunomia's sender agent (nic.ordering eunomia): SACK scoreboard, selective timeouts.
  void set_sender_agent(eunomia::SenderAgent* a) { sender_ = a; }

  void on_ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) override;
  void on_nak(Cycle t, uint32_t qi, uint8_t syndrome, uint32_t psn) override;
  void on_bitmap_nak(Cycle t, uint32_t qi, uint32_t epsn, const wire::BitmapBlock& block) override;
  void on_feedback(Cycle t, uint32_t qi, uint32_t epsn, const wire::SchemeFeedback& fb) override;
  void on_read_data(Cycle t, uint32_t qi, uint32_t read_psn, Cycle dma_done,
                    bool complete) override;
  void on_read_gap(Cycle t, uint32_t qi, uint32_t read_psn, uint32_t expected_psn) override;
  void on_read_loss(Cycle t, uint32_t qi, uint32_t read_psn, const wire::BitmapBlock& block,
                    uint32_t epsn) override;
  // The QP sent something at cycle t: (re)arm its timer.
  void sent(Cycle t, uint32_t qi);

 private:
  void ack(Cycle t, uint32_t qi, uint32_t psn, bool cached);
  void advance(Cycle t, uint32_t qi, uint32_t una);
  void timeout(Cycle t, uint32_t qi);
  TxWqe* read_wqe(uint32_t qi, uint32_t read_psn);
  void reread(uint32_t qi, uint32_t psn, uint32_t count);

  const OrnicParams& p_;
  QpContextTable& qps_;
  BitmapManager* bitmap_ = nullptr;
  Agenda& agenda_;
  QpManager* qpm_ = nullptr;
  CqeManager& cqe_;
  eunomia::SenderAgent* sender_ = nullptr;  // eunomia: a SACK starts no recovery
  static constexpr uint32_t kNoGap = ~0u;
  std::vector<uint32_t> last_gap_;
  std::vector<uint32_t> sack_resent_;      // per QP: the una a SACK already resent
  bool resend(uint32_t qi, uint32_t psn);  // false: outside [una, high) or already queued  // per
                                           // QP: expected PSN last re-requested (standard READ)
  Counter& acks_;
  Counter& naks_;
  Counter& go_backs_;
  Counter& bitmap_naks_;
  Counter& selective_psns_;
  Counter& rereads_;
  Counter& timeouts_;
  Counter& error_naks_;
  Counter& feedback_;
};

}  // namespace oonic::ornic
