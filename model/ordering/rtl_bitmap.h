// ORNIC's bitmap computed by RTL: the Verilated testbench/rtl/ornic_bitmap.v (or any
// library with its ports, model/ordering/rtl_bitmap_abi.h), loaded at run time and
// clocked call by call behind the ordering seam (`bitmap.impl: rtl`). The RTL's
// own clock edges are the call's cycles; its outputs are the verdict, ePSN, NAK
// block, access counts and blocks held. With check on, the C++ core (OrnicBitmap)
// runs in lockstep and every call's outcome is compared field by field; the first
// difference is kept (what an architect wants when a block's RTL arrives).
// Plain C++: no SystemC.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/ordering/ornic_bitmap.h"
#include "model/ordering/rtl_bitmap_abi.h"

namespace oonic::ordering {

class RtlOrnicBitmap : public OrderingUnit {
 public:
  struct Params {
    OrnicBitmap::Params geometry;
    std::string library;  // path of the shared library; "" = default_library()
    bool check = true;    // lockstep C++ core
  };
  // Loads the library and builds the model; throws oonic::Error (msg::kConfig) naming
  // bitmap.rtl_library or the geometry key the RTL cannot hold.
  explicit RtlOrnicBitmap(const Params& p);
  ~RtlOrnicBitmap() override;
  RtlOrnicBitmap(const RtlOrnicBitmap&) = delete;
  RtlOrnicBitmap& operator=(const RtlOrnicBitmap&) = delete;

  // liboonic_rtl_ornic_bitmap.so beside the running executable, else in ../lib/oonic.
  static std::string default_library();

  const char* name() const override { return "ornic"; }
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;
  using OrderingUnit::receive;
  Outcome receive(uint32_t qp, uint32_t psn) override;
  uint32_t epsn(uint32_t qp) const override;
  uint32_t blocks_held(uint32_t qp) const override;
  // The lockstep core's invariants (true without check), and the RTL's pool count
  // against the core's.
  bool check_invariants(std::string* why) const override;

  struct Mismatch {
    uint64_t call = 0;  // 1-based receive() call
    uint32_t qp = 0, psn = 0;
    std::string what;  // "cycles: rtl 4, core 3; ..."
  };
  uint64_t calls() const { return calls_; }
  uint64_t mismatches() const { return mismatches_; }
  const Mismatch* first_mismatch() const { return mismatches_ ? &first_ : nullptr; }
  // The lockstep core (nullptr with check off): the VCD's node view.
  const OrnicBitmap* reference() const { return ref_.get(); }
  const std::string& library() const { return path_; }
  uint64_t rtl_edges() const { return edges_; }

 private:
  using AbiFn = int (*)();
  using CreateFn = void* (*)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, char*, size_t);
  using DestroyFn = void (*)(void*);
  using StepFn = void (*)(void*, oonic_rtl_bitmap_io*);

  Params p_;
  std::string path_;
  void* lib_ = nullptr;
  void* model_ = nullptr;
  DestroyFn destroy_ = nullptr;
  StepFn eval_ = nullptr, tick_ = nullptr;
  mutable oonic_rtl_bitmap_io io_{};
  std::unique_ptr<OrnicBitmap> ref_;
  uint64_t calls_ = 0, mismatches_ = 0, edges_ = 0;
  Mismatch first_;

  void query(uint32_t qp) const;
  void command(uint32_t op, uint32_t qp, uint32_t psn, uint32_t otd);
};

}  // namespace oonic::ordering
