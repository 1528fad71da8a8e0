#include "model/ornic/tx/tx_arbiter_core.h"

#include <algorithm>

namespace oonic::ornic {

TxArbiterCore::TxArbiterCore(const CoreEnv& env, Agenda& agenda, ControlSource& control,
                             TxSource& data, const HdrGeneratorPort& hdr)
    : p_(env.p),
      agenda_(agenda),
      control_(control),
      data_(data),
      hdr_(hdr),
      data_grants_(
          env.stats.counter("data_grants", "frame", "frames granted to the QP Manager (requests)")),
      read_grants_(
          env.stats.counter("read_response_grants", "frame", "frames granted to READ responses")),
      control_grants_(
          env.stats.counter("control_grants", "frame", "frames granted to ACKs and NAKs")) {}

Cycle TxArbiterCore::turn(Cycle now) {
  Cycle next = kNever;
  for (;;) {
    agenda_.run_due(now);
    control_.apply_due(now);
    Cycle mac = hdr_.mac_free_at();
    Cycle gate =
        std::max(hdr_.free_at(),
                 mac > p_.arbiter.lookahead_cycles ? mac - p_.arbiter.lookahead_cycles : Cycle{0});
    // PFC: a class the link partner paused is not granted until the pause ends (the
    // MAC's wake restarts the turn earlier on an XON); the other class goes on.
    const Cycle control_paused = hdr_.mac_paused_until(0);
    if (control_.has_control() && control_paused <= now) {
      if (gate > now) {
        next = gate;
        break;
      }
      control_.send_control(now);
      control_grants_.inc();
      continue;
    }
    if (control_.has_control()) next = std::min(next, control_paused);
    Cycle dr = data_.head_ready(now);
    Cycle rr = control_.read_ready(now);
    bool d_ok = dr <= now, r_ok = rr <= now;
    if (!d_ok && !r_ok) {
      next = std::min(next, std::min(dr, rr));
      break;
    }
    const Cycle data_paused = hdr_.mac_paused_until(1);
    if (data_paused > now) {
      next = std::min(next, data_paused);
      break;
    }
    if (gate > now) {
      next = std::min(next, gate);
      break;
    }
    bool take_data = d_ok && (!r_ok || data_turn_);
    if (take_data) {
      if (data_.send_head(now)) {
        data_grants_.inc();
        data_turn_ = false;
      }
    } else {
      control_.send_read(now);
      read_grants_.inc();
      data_turn_ = true;
    }
  }
  return std::min({next, agenda_.next(), control_.next_pending()});
}

}  // namespace oonic::ornic
