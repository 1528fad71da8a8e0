// Eunomia's hybrid-dynamic bitmap module (docs/DESIGN.md M2, Figure 6) as a SystemC
// block: stateless logic over one bank of the memory controller. The behaviour and
// the exact access sequence of every path are in the plain C++ core
// (model/eunomia/hd_bitmap_core.h); this shell counts what each call did into
// the receiver agent's `hd_bitmap.*` stats (summed over modules).
#pragma once

#include <systemc>

#include "model/core/stats.h"
#include "model/eunomia/hd_bitmap_core.h"

namespace oonic::eunomia {

struct HdBitmapStats {
  Counter* creations = nullptr;    // bitmaps created (first OOO packet of a connection)
  Counter* linear_rows = nullptr;  // linear rows added on growth
  Counter* merges = nullptr;       // linear part merged into the circular part
  Counter* garbage_collections = nullptr;
  Counter* sacks = nullptr;  // tracked OOO packets (SACK)
  Counter* nacks = nullptr;  // packets that could not be tracked (NACK)
};

class HdBitmap : public sc_core::sc_module {
 public:
  HdBitmap(sc_core::sc_module_name name, eunomia::HdBitmapCore& core, const HdBitmapStats& stats)
      : sc_module(name), core_(core), st_(stats) {}
  // Counts the core's last call (its Outcome o).
  void note(const ordering::Outcome& o) {
    const auto& d = core_.last_detail();
    if (d.created) st_.creations->inc();
    if (d.rows_added) st_.linear_rows->inc(d.rows_added);
    if (d.merged) st_.merges->inc();
    if (d.gc) st_.garbage_collections->inc();
    if (o.feedback == ordering::Feedback::kSack) st_.sacks->inc();
    if (o.feedback == ordering::Feedback::kNack) st_.nacks->inc();
  }
  eunomia::HdBitmapCore& core() { return core_; }
  const eunomia::HdBitmapCore& core() const { return core_; }

 private:
  eunomia::HdBitmapCore& core_;
  HdBitmapStats st_;
};

}  // namespace oonic::eunomia
