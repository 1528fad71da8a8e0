// VCD waveform writer. Blocks register probes (hierarchical names such as
// nic0.rx.req_processor.psn) and record value changes at whole cycles. Changes
// may be recorded out of cycle order (blocks book future cycles), so they are
// buffered and sorted once when the file is written; a probe whose value does
// not change writes nothing. With tracing off a probe is one pointer test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/cycles.h"

namespace oonic {

class Vcd {
 public:
  explicit Vcd(uint64_t period_ps) : period_ps_(period_ps) {}
  int add_var(const std::string& full_name, int width);
  void change(Cycle t, int var, uint64_t value) { changes_.push_back({t, seq_++, var, value}); }
  // Writes the file; throws oonic::Error if it cannot. Cycle window [from, to].
  void write(const std::string& path, Cycle from = 0, Cycle to = kNever) const;
  size_t changes() const { return changes_.size(); }

 private:
  struct Var {
    std::string name;
    int width;
    std::string code;
  };
  struct Change {
    Cycle t;
    uint64_t seq;
    int var;
    uint64_t value;
  };
  uint64_t period_ps_;
  uint64_t seq_ = 0;
  std::vector<Var> vars_;
  std::vector<Change> changes_;
};

// One traced value. Does nothing until bound to a Vcd.
class Probe {
 public:
  void bind(Vcd* vcd, const std::string& name, int width) {
    vcd_ = vcd;
    if (vcd_) id_ = vcd_->add_var(name, width);
  }
  void set(Cycle t, uint64_t v) {
    if (vcd_) vcd_->change(t, id_, v);
  }
  bool on() const { return vcd_ != nullptr; }

 private:
  Vcd* vcd_ = nullptr;
  int id_ = -1;
};

}  // namespace oonic
