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
  // Record only these signal groups (empty: all). A signal's group is its
  // block's plane: "nic0.rx.parser.psn" is rx, "nic0.rx.bitmap_manager.epsn" is
  // bitmap, "nic0.dma.addr" is dma, then control, tx (docs/VCD.md).
  void set_groups(std::vector<std::string> groups) { groups_ = std::move(groups); }
  static std::string group_of(const std::string& full_name);
  static const std::vector<std::string>& known_groups();
  // Returns -1 when the signal's group is filtered out (the probe stays off).
  int add_var(const std::string& full_name, int width);
  // Cycles up to 2^48 and up to 65536 variables: a change is packed in 16 bytes.
  void change(Cycle t, int var, uint64_t value) {
    if (changes_.capacity() == changes_.size()) changes_.reserve(changes_.size() * 2 + (1 << 16));
    changes_.push_back({(t << 16) | static_cast<uint64_t>(var), value});
  }
  // Writes the file (sorting the recorded changes in place); throws oonic::Error
  // if it cannot. Cycle window [from, to].
  void write(const std::string& path, Cycle from = 0, Cycle to = kNever);
  size_t changes() const { return changes_.size(); }

 private:
  struct Var {
    std::string name;
    int width;
    std::string code;
  };
  struct Change {
    uint64_t key;  // cycle << 16 | var
    uint64_t value;
    Cycle t() const { return key >> 16; }
    int var() const { return static_cast<int>(key & 0xFFFF); }
  };
  uint64_t period_ps_;
  std::vector<std::string> groups_;
  std::vector<Var> vars_;
  std::vector<Change> changes_;
};

// One traced value. Does nothing until bound to a Vcd.
class Probe {
 public:
  void bind(Vcd* vcd, const std::string& name, int width) {
    vcd_ = vcd;
    if (vcd_) id_ = vcd_->add_var(name, width);
    if (id_ < 0) vcd_ = nullptr;
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
