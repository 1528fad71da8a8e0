// DCQCN's reaction point as a rate core of the transmit seam (tx.rate dcqcn),
// plain C++. The Mellanox (CX4) behaviour ns-3 HPCC models and most published
// DCQCN results use; every constant a parameter (cc.dcqcn.*). Per QP:
//   first CNP:  alpha = 1, Rt = Rc = rate_on_first_cnp x Rc; the alpha and
//               decrease timers start
//   alpha timer (every alpha_interval): alpha = (1 - g) alpha + g if a CNP came
//               since the last tick, else (1 - g) alpha
//   decrease check (every decrease_interval), if a CNP came since the last:
//               Rt = Rc (unless clamp_target is off and no increase has
//               happened since the last decrease); Rc = max(min_rate,
//               Rc (1 - alpha / 2)); stage = 0; the increase timer restarts
//   increase events: the timer (every rate_timer after a decrease) and, with
//               byte_counter_bytes B > 0, every B bytes the QP sent since the
//               decrease (the paper's byte counter). With T timer and C byte
//               events so far (C = T when B = 0), an event does
//               max(T, C) < F:  Rc = (Rc + Rt) / 2                       (fast recovery)
//               min(T, C) > F:  Rt = min(line, Rt + HAI); Rc = (Rc + Rt) / 2 (hyper)
//               otherwise:      Rt = min(line, Rt + AI); Rc = (Rc + Rt) / 2 (additive)
//               then counts itself (T or C + 1); a decrease zeroes T, C and the bytes
// Timers are evaluated lazily, in time order, when the QP next sends or gets a
// CNP (nothing wakes for them); at one cycle the order is alpha, decrease,
// increase. A QP that never got a CNP is not paced. Pacing: a packet may start
// when the previous one's bytes (payload + pacing_overhead_bytes) have gone at
// Rc, booked when the TX path asks (it asks a few packets ahead) and pushed
// back if the packet left later; a rate change moves that time as ns-3 HPCC
// does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/params.h"
#include "model/core/qp_table.h"
#include "model/core/stats.h"
#include "model/sender/rate_control.h"
#include "model/sram/sram.h"

namespace oonic::sender {

struct DcqcnParams {  // cc.dcqcn.*
  double g = 1.0 / 256;
  double rai_mbps = 50;
  double rhai_mbps = 100;
  double rate_timer_us = 900;
  double alpha_interval_us = 1;
  double decrease_interval_us = 4;
  uint32_t fast_recovery_stages = 1;
  double min_rate_mbps = 100;
  bool clamp_target = false;
  double rate_on_first_cnp = 1.0;
  uint32_t pacing_overhead_bytes = 62;
  uint64_t byte_counter_bytes = 0;  // 0: timer only (ns-3 HPCC, CX4); the paper: 10 MB
  uint64_t window_bytes = 0;        // 0: no window (ns-3 HPCC's HAS_WIN 0)
  bool window_scales = true;        // the window x Rc / line rate (ns-3 HPCC's VAR_WIN)
  std::string preset = "hpcc";      // hpcc | paper (cc.dcqcn.preset)
  void describe(ParamTable& t);
};

class Dcqcn final : public RateControl {
 public:
  // line_gbps: the port rate (Rc starts there, Rt is capped there).
  // mem: the cc.context SRAM its per-QP state lives in (accesses and occupancy are
  // counted; the state is read and written in the cycle the TX path asks, its
  // latency hidden behind the QP Manager's pipeline), or null.
  Dcqcn(const DcqcnParams& p, double clock_mhz, double line_gbps, uint32_t max_qps,
        const StatGroup& stats, Sram* mem = nullptr, uint32_t pmtu_bytes = 1024);
  const char* name() const override { return "dcqcn"; }
  Cycle earliest(uint32_t qi, Cycle now, uint32_t bytes) override;
  void sent(uint32_t qi, Cycle start, uint32_t bytes) override;
  void on_cnp(uint32_t qi, Cycle t) override;
  bool ecn_capable() const override { return true; }
  // cc.dcqcn.window_bytes: a QP with a window's worth of bytes unacknowledged (PSNs sent
  // past the first unacknowledged one x PMTU) waits for an ACK (kNever); the window is
  // window_bytes x Rc / line rate with window_scales, as ns-3 HPCC's rate-scaled window.
  Cycle send_at(uint32_t qi, Cycle now, const SendState& s, bool sync_first) override;
  bool on_ack(uint32_t qi, Cycle t, uint32_t acked_psns) override;

  // For tests and results: the QP's state after its timers up to t.
  double rate_gbps(uint32_t qi, Cycle t);
  double target_gbps(uint32_t qi, Cycle t);
  double alpha(uint32_t qi, Cycle t);

 private:
  struct Qp {
    bool active = false;  // a CNP has come
    double rc = 0, rt = 0, alpha = 1;
    uint32_t stage = 0;       // T: timer increase events since the last decrease
    uint32_t byte_stage = 0;  // C: byte-counter events since then
    uint64_t bytes = 0;       // sent since the last byte-counter event
    bool alpha_cnp = false, decrease_cnp = false, increase_on = false;
    Cycle next_alpha = 0, next_decrease = 0, next_increase = 0;
    Cycle next_avail = 0;  // pacing: earliest start of the next packet
    uint32_t last_bytes = 0;
  };
  Qp& qp(uint32_t qi);
  void touch(Cycle t, bool write);            // one access to the QP's cc.context word
  void advance(uint32_t qi, Qp& q, Cycle t);  // every timer tick at or before t
  void set_rate(uint32_t qi, Qp& q, double rc, Cycle t);
  void increase(uint32_t qi, Qp& q, bool timer, Cycle t);  // one increase event
  Cycle tx_cycles(double gbps, uint32_t bytes) const;

  DcqcnParams p_;
  uint32_t pmtu_;  // bytes a PSN counts in the window
  double mhz_, line_;
  Cycle alpha_cyc_, decrease_cyc_, rate_cyc_;
  QpTable<Qp> qps_;
  Sram* mem_;
  Counter &cnps_, &decreases_, &fast_recoveries_, &additive_, &hyper_, &paced_;
};

}  // namespace oonic::sender
