#include "model/ornic/tx/tx_arbiter.h"

#include <algorithm>

namespace oonic::ornic {

TxArbiter::TxArbiter(sc_core::sc_module_name name, const BlockEnv& env, Agenda& agenda,
                     ReqManager& rm, QpManager& qpm, HdrGenerator& hdr)
    : sc_module(name),
      p_(env.p),
      clk_(env.p.nic.clock_mhz),
      agenda_(agenda),
      rm_(rm),
      qpm_(qpm),
      hdr_(hdr),
      wakes_(env.stats.counter(std::string(this->name()) + ".wakes", "wake",
                               "times the arbiter process woke (simulator cost, not hardware)")),
      data_grants_(env.stats.counter(std::string(this->name()) + ".data_grants", "frame",
                                     "frames granted to the QP Manager (requests)")),
      read_grants_(env.stats.counter(std::string(this->name()) + ".read_response_grants", "frame",
                                     "frames granted to READ responses")),
      control_grants_(env.stats.counter(std::string(this->name()) + ".control_grants", "frame",
                                        "frames granted to ACKs and NAKs")) {
  agenda_.set_kick([this](Cycle t) { kick(t); });
  rm_.set_kick([this](Cycle t) { kick(t); });
  SC_THREAD(run);
}

void TxArbiter::run() {
  for (;;) {
    wakes_.inc();
    running_ = true;
    armed_ = kNever;
    Cycle now = clk_.now();
    Cycle next = kNever;
    for (;;) {
      agenda_.run_due(now);
      rm_.apply_due(now);
      Cycle mac = hdr_.mac_free_at();
      Cycle gate = std::max(hdr_.free_at(), mac > p_.arbiter.lookahead_cycles
                                                ? mac - p_.arbiter.lookahead_cycles
                                                : Cycle{0});
      if (rm_.has_control()) {
        if (gate > now) {
          next = gate;
          break;
        }
        rm_.send_control(now);
        control_grants_.inc();
        continue;
      }
      Cycle dr = qpm_.head_ready(now);
      Cycle rr = rm_.read_ready(now);
      bool d_ok = dr <= now, r_ok = rr <= now;
      if (!d_ok && !r_ok) {
        next = std::min(dr, rr);
        break;
      }
      if (gate > now) {
        next = gate;
        break;
      }
      bool take_data = d_ok && (!r_ok || data_turn_);
      if (take_data) {
        if (qpm_.send_head(now)) {
          data_grants_.inc();
          data_turn_ = false;
        }
      } else {
        rm_.send_read(now);
        read_grants_.inc();
        data_turn_ = true;
      }
    }
    next = std::min({next, agenda_.next(), rm_.next_pending()});
    if (next != kNever) {
      armed_ = std::max(next, now + 1);
      wake_.notify(clk_.until(armed_));
    }
    running_ = false;
    sc_core::wait(wake_);
  }
}

}  // namespace oonic::ornic
