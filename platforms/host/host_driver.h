// Host A's driver in a b2b run: it sets each QP up through the NIC's register
// bus (reg_initiator_socket -> the NIC's reg_socket), writes WQEs into the
// send queue rings in host memory, rings SQ_DOORBELL, and takes CQEs from the
// completion queue rings. It watches the PCIe link's writes into host memory
// (the moment a CQE's last TLP arrives is when the host sees it: polling
// costs nothing between completions) and records, per WQE, T_completion =
// CQE arrival - doorbell (ORNIC Eq. 7), plus when the last byte of a READ's
// data arrived. It posts up to workload.queue_depth WQEs per QP and posts
// more as CQEs come back; it stops the simulation after the last CQE.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/clock.h"
#include "model/core/signal.h"
#include "model/core/stats.h"
#include "model/ornic/wqe.h"
#include "tlm/host_memory.h"
#include "tlm/pcie_link.h"

namespace oonic::host {

// One WQE of the run and what happened to it.
struct WqeRecord {
  uint32_t qi = 0;         // QP index (register block) on NIC A
  uint32_t qpn = 0;        // its QPN
  uint64_t index = 0;      // position in the QP's SQ
  ornic::Wqe wqe;          // as posted (wr_id = record number)
  uint64_t dest_addr = 0;  // where the bytes must end up (B for WRITE/SEND, A for READ)
  uint64_t post_ps = 0;    // doorbell written
  uint64_t cqe_ps = 0;     // CQE arrived in host memory
  uint32_t cqes = 0;       // CQEs seen for this WQE
  uint8_t status = 0;
  uint32_t start_psn = 0;      // from the CQE
  uint64_t last_data_ps = 0;   // READ: last data write into dest arrived
  uint64_t not_before_ps = 0;  // not posted before this time (a fabric flow's start)
  bool data_after_cqe = false;
  bool posted = false;
};

class HostDriver : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<HostDriver> reg_initiator_socket;

  struct QpSetup {
    uint32_t qi = 0, qpn = 0, peer_qpn = 0, sq_psn = 0;
    uint64_t sq_base = 0, cq_base = 0;
    uint32_t sq_entries = 0, cq_entries = 0;
  };
  // Stats under stat_prefix (empty: the module's name).
  HostDriver(sc_core::sc_module_name name, HostMemory& mem, PcieLink& pcie, uint32_t queue_depth,
             Stats& stats, const std::string& stat_prefix = "");
  void add_qp(const QpSetup& q);
  // A WQE to post on QP qi (in order), not before not_before_ps (and never
  // before the QPs are set up); returns its record number (= wr_id).
  uint64_t add_wqe(uint32_t qi, const ornic::Wqe& w, uint64_t dest_addr,
                   uint64_t not_before_ps = 0);
  const std::vector<WqeRecord>& records() const { return rec_; }
  bool finished() const { return done_ == rec_.size(); }
  uint64_t completed() const { return done_; }
  uint64_t bad_cqes() const { return bad_cqes_; }
  uint64_t reg_errors() const { return reg_errors_; }
  // Simulated time of the last CQE (ps).
  uint64_t last_cqe_ps() const { return last_cqe_ps_; }
  void set_progress(bool on) { progress_ = on; }
  // Calls f(last CQE time, ps) after every n-th completion: the run's results
  // settle behind it (nothing earlier is booked once a CQE has been read).
  void every_completions(uint64_t n, std::function<void(uint64_t)> f) {
    every_ = n, on_every_ = std::move(f);
  }
  // Called once every WQE has completed (default, with no observer: sc_stop(); a
  // fabric stops when the last of its drivers is done). Each call adds an observer.
  void on_finished(std::function<void()> f) { on_finished_.connect(std::move(f)); }
  // When the QPs' register setup ended (ps; 0 before).
  uint64_t setup_end_ps() const { return setup_end_ps_; }

 private:
  SC_HAS_PROCESS(HostDriver);
  void run();
  std::string prefix(const std::string& stat_prefix) const;
  void reg_write(uint32_t addr, uint32_t v, sc_core::sc_time& delay);
  void post(uint32_t slot);
  void on_write(uint64_t done_ps, uint64_t addr, uint64_t len);

  struct Qp {
    QpSetup s;
    std::vector<uint64_t> wqes;  // record numbers in SQ order
    uint64_t posted = 0, completed = 0, cq_ci = 0;
  };
  HostMemory& mem_;
  uint32_t depth_;
  std::vector<Qp> qps_;
  std::vector<WqeRecord> rec_;
  std::map<uint64_t, uint32_t> cq_index_;  // CQ base -> slot in qps_
  // The span of every CQ: a payload write outside it needs no map lookup.
  uint64_t cq_lo_ = UINT64_MAX, cq_hi_ = 0;
  std::map<uint64_t, uint64_t> read_dest_;        // READ dest start -> record
  using Arrival = std::pair<uint64_t, uint64_t>;  // (ps, CQE address)
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> arrivals_;
  sc_core::sc_event cqe_event_;
  sc_core::sc_event post_event_;              // a QP's next WQE becomes due
  using Due = std::pair<uint64_t, uint32_t>;  // (not_before, slot)
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  Signal<> on_finished_;
  uint64_t setup_end_ps_ = 0;
  tlm::tlm_generic_payload gp_;
  uint64_t done_ = 0, bad_cqes_ = 0, reg_errors_ = 0, last_cqe_ps_ = 0;
  bool progress_ = false;
  uint64_t every_ = 0;
  std::function<void(uint64_t)> on_every_;
  Counter& wqes_posted_;
  Counter& doorbells_;
  Counter& cqes_;
};

}  // namespace oonic::host
