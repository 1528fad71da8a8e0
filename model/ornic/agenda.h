// Work the NIC's blocks booked for a later cycle (an ACK that takes effect when
// the Rsp Processor has written the QP context, a WQE usable once its DMA read
// is done, a requester timeout). Entries run in cycle order, then booking order,
// from the TX arbiter's process, which sleeps until the earliest entry: nothing
// wakes while the agenda is empty. Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "model/core/cycles.h"
#include "model/core/link.h"
#include "model/ornic/wake.h"

namespace oonic::ornic {

class Agenda {
 public:
  using Fn = std::function<void(Cycle)>;
  // The TX arbiter's process, roused for every entry added (bound where the NIC is
  // assembled).
  Link<WakeUp> wake_port{"agenda.wake_port"};
  // Run f(t) at cycle t (not before the current cycle of the caller).
  void at(Cycle t, Fn f) {
    q_.push(Entry{t, seq_++, std::move(f)});
    wake_port->wake(t);
  }
  // Run every entry due at or before now, including ones they add for now.
  void run_due(Cycle now) {
    while (!q_.empty() && q_.top().t <= now) {
      Entry e = std::move(const_cast<Entry&>(q_.top()));
      q_.pop();
      e.f(e.t);
    }
  }
  Cycle next() const { return q_.empty() ? kNever : q_.top().t; }
  bool empty() const { return q_.empty(); }

 private:
  struct Entry {
    Cycle t;
    uint64_t seq;
    Fn f;
    bool operator>(const Entry& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> q_;
  uint64_t seq_ = 0;
};

}  // namespace oonic::ornic
