// An observer point that takes several subscribers: connect() adds one, a call
// runs each in the order connected. A block's outputs (packet records, rate
// changes, deliveries, queue changes) are Signals, so stats, CSV writers, VCD and
// a user's own probe can all listen to the same one; none replaces another.
// Nothing connected: `if (signal)` is one branch, so an unobserved point costs
// nothing on the hot path.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace oonic {

template <class... Args>
class Signal {
 public:
  using Slot = std::function<void(Args...)>;
  // An empty function is ignored.
  void connect(Slot f) {
    if (f) slots_.push_back(std::move(f));
  }
  explicit operator bool() const { return !slots_.empty(); }
  size_t size() const { return slots_.size(); }
  void operator()(Args... args) const {
    for (const Slot& f : slots_) f(args...);
  }

 private:
  std::vector<Slot> slots_;
};

}  // namespace oonic
