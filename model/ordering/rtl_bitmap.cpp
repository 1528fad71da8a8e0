// RTL in the loop behind the ordering seam (see rtl_bitmap.h).
#include "model/ordering/rtl_bitmap.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <sstream>

#include "model/core/error.h"

namespace oonic::ordering {

namespace {
// A call that takes more edges than this is an RTL that never answers.
constexpr uint64_t kMaxEdges = 1u << 20;

const char* verdict_name(uint32_t v) {
  return v <= static_cast<uint32_t>(Verdict::kUntrackable) ? to_string(static_cast<Verdict>(v))
                                                           : "?";
}
}  // namespace

std::string RtlOrnicBitmap::default_library() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string dir = ".";
  if (n > 0) {
    buf[n] = 0;
    dir = buf;
    dir = dir.substr(0, dir.rfind('/'));
  }
  const std::string name = "liboonic_rtl_ornic_bitmap.so";
  for (const std::string& cand : {dir + "/" + name, dir + "/../lib/oonic/" + name})
    if (::access(cand.c_str(), R_OK) == 0) return cand;
  return dir + "/" + name;
}

RtlOrnicBitmap::RtlOrnicBitmap(const Params& p)
    : p_(p), path_(p.library.empty() ? default_library() : p.library) {
  const std::string key = p.library.empty() ? "bitmap.impl rtl" : "bitmap.rtl_library";
  lib_ = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_)
    throw Error(msg::kConfig,
                key + ": cannot load the Verilated bitmap " + path_ + ": " + ::dlerror() +
                    (p.library.empty() ? " (it is built with oonic when Verilator is installed: "
                                         "scripts/install-deps, then scripts/build)"
                                       : ""));
  auto sym = [&](const char* s) {
    void* f = ::dlsym(lib_, s);
    if (!f) {
      ::dlclose(lib_);
      lib_ = nullptr;
      throw Error(msg::kConfig, key + ": " + path_ + " has no " + s +
                                    " (not a bitmap RTL library: model/ordering/rtl_bitmap_abi.h)");
    }
    return f;
  };
  auto abi = reinterpret_cast<AbiFn>(sym("oonic_rtl_bitmap_abi"));
  auto create = reinterpret_cast<CreateFn>(sym("oonic_rtl_bitmap_create"));
  destroy_ = reinterpret_cast<DestroyFn>(sym("oonic_rtl_bitmap_destroy"));
  eval_ = reinterpret_cast<StepFn>(sym("oonic_rtl_bitmap_eval"));
  tick_ = reinterpret_cast<StepFn>(sym("oonic_rtl_bitmap_tick"));
  if (abi() != OONIC_RTL_BITMAP_ABI_VERSION) {
    const int v = abi();
    ::dlclose(lib_);
    lib_ = nullptr;
    throw Error(msg::kConfig, key + ": " + path_ + " speaks ABI " + std::to_string(v) +
                                  ", oonic speaks " + std::to_string(OONIC_RTL_BITMAP_ABI_VERSION) +
                                  " (rebuild it)");
  }
  if (p.geometry.block_bits > 32 * OONIC_RTL_BITMAP_MAX_WORDS)
    throw Error(msg::kConfig, "bitmap.block_bits: the RTL ABI carries at most " +
                                  std::to_string(32 * OONIC_RTL_BITMAP_MAX_WORDS) + " bits");
  char err[256] = {0};
  model_ = create(p.geometry.block_bits, p.geometry.nodes_per_qp, p.geometry.pool_blocks,
                  p.geometry.max_qps, p.geometry.renak_psns, err, sizeof err);
  if (!model_) {
    ::dlclose(lib_);
    lib_ = nullptr;
    throw Error(msg::kConfig, std::string("bitmap.impl rtl: ") + path_ + " cannot hold " + err);
  }
  if (p.check) ref_ = std::make_unique<OrnicBitmap>(p.geometry);
}

RtlOrnicBitmap::~RtlOrnicBitmap() {
  if (model_) destroy_(model_);
  if (lib_) ::dlclose(lib_);
}

void RtlOrnicBitmap::query(uint32_t qp) const {
  io_.in_valid = 0;
  io_.q_qp = qp;
  io_.q_node = 0;
  eval_(model_, &io_);
}

// open / close / set_otd: one request, clocked until done (not timed by the model).
void RtlOrnicBitmap::command(uint32_t op, uint32_t qp, uint32_t psn, uint32_t otd) {
  io_.in_valid = 1, io_.in_op = op, io_.in_qp = qp, io_.in_psn = psn & wire::kPsnMask,
  io_.in_otd = otd;
  eval_(model_, &io_);
  uint64_t n = 0;
  do {
    tick_(model_, &io_);
    io_.in_valid = 0;
    eval_(model_, &io_);
    ++edges_;
  } while (!io_.done && ++n < kMaxEdges);
  if (!io_.done)
    throw Error(msg::kModel, "bitmap RTL " + path_ + ": operation " + std::to_string(op) +
                                 " on qp " + std::to_string(qp) + " never finished");
}

void RtlOrnicBitmap::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  command(1, qp, start_psn, otd);
  if (ref_) ref_->open(qp, start_psn, otd);
}

void RtlOrnicBitmap::close(uint32_t qp) {
  command(2, qp, 0, 0);
  if (ref_) ref_->close(qp);
}

bool RtlOrnicBitmap::is_open(uint32_t qp) const {
  query(qp);
  return io_.q_open;
}

uint32_t RtlOrnicBitmap::epsn(uint32_t qp) const {
  query(qp);
  return io_.q_epsn;
}

uint32_t RtlOrnicBitmap::blocks_held(uint32_t qp) const {
  query(qp);
  return io_.q_blocks_held;
}

Outcome RtlOrnicBitmap::receive(uint32_t qp, uint32_t psn) {
  ++calls_;
  query(qp);
  uint32_t held_before = io_.q_blocks_held;
  Outcome out;
  io_.in_valid = 1, io_.in_op = 4, io_.in_qp = qp, io_.in_psn = psn & wire::kPsnMask;
  eval_(model_, &io_);
  uint32_t cycles = 0;
  if (!io_.done) {
    // The edge that takes the request is the first cycle; then one per edge until done.
    tick_(model_, &io_);
    io_.in_valid = 0;
    eval_(model_, &io_);
    cycles = 1;
    while (!io_.done) {
      if (cycles >= kMaxEdges)
        throw Error(msg::kModel, "bitmap RTL " + path_ + ": receive of qp " + std::to_string(qp) +
                                     " psn " + std::to_string(psn) + " never finished");
      tick_(model_, &io_);
      ++cycles;
    }
    edges_ += cycles;
  }
  out.verdict = static_cast<Verdict>(io_.verdict);
  out.head_advanced = io_.head_advanced;
  out.locate_cycles = io_.located;
  out.cycles = cycles;
  out.node_accesses = io_.node_acc;
  out.block_accesses = io_.block_acc;
  out.nak = io_.nak;
  if (out.nak) {
    out.nak_block.base_psn = io_.nak_base;
    out.nak_block.nbits = static_cast<uint16_t>(p_.geometry.block_bits);
    const uint32_t words = (p_.geometry.block_bits + 31) / 32;
    for (uint32_t i = 0; i < words; ++i) out.nak_block.words[i] = io_.nak_words[i];
  }
  io_.in_valid = 0;
  query(qp);
  if (out.verdict == Verdict::kQpClosed) {  // the core reports nothing of a closed QP
    out.epsn = 0, io_.q_blocks_held = held_before = 0;
  } else {
    out.epsn = io_.q_epsn;
  }
  out.blocks_held = io_.q_blocks_held;
  out.blocks_delta = static_cast<int32_t>(out.blocks_held) - static_cast<int32_t>(held_before);

  if (ref_) {
    const Outcome c = ref_->receive(qp, psn);
    std::ostringstream d;
    auto field = [&](const char* name, uint64_t r, uint64_t k) {
      if (r != k) d << (d.tellp() > 0 ? "; " : "") << name << ": rtl " << r << ", core " << k;
    };
    if (out.verdict != c.verdict)
      d << "verdict: rtl " << verdict_name(io_.verdict) << ", core " << to_string(c.verdict);
    field("cycles", out.cycles, c.cycles);
    field("locate_cycles", out.locate_cycles, c.locate_cycles);
    field("epsn", out.epsn, c.epsn);
    field("head_advanced", out.head_advanced, c.head_advanced);
    field("nak", out.nak, c.nak);
    if (out.nak && c.nak) {
      field("nak base_psn", out.nak_block.base_psn, c.nak_block.base_psn);
      for (uint32_t i = 0; i < (p_.geometry.block_bits + 31) / 32; ++i)
        field(("nak word " + std::to_string(i)).c_str(), out.nak_block.words[i],
              c.nak_block.words[i]);
    }
    field("node_accesses", out.node_accesses, c.node_accesses);
    field("block_accesses", out.block_accesses, c.block_accesses);
    field("blocks_held", out.blocks_held, c.blocks_held);
    if (d.tellp() > 0) {
      if (!mismatches_) first_ = Mismatch{calls_, qp, psn & wire::kPsnMask, d.str()};
      ++mismatches_;
    }
  }
  return out;
}

bool RtlOrnicBitmap::check_invariants(std::string* why) const {
  if (!ref_) return true;
  if (!ref_->check_invariants(why)) return false;
  io_.in_valid = 0;
  eval_(model_, &io_);
  if (io_.pool_free != ref_->pool_free()) {
    if (why)
      *why = "RTL pool_free " + std::to_string(io_.pool_free) + " != core " +
             std::to_string(ref_->pool_free());
    return false;
  }
  return true;
}

}  // namespace oonic::ordering
