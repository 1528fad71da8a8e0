// The shared-library side of model/ordering/rtl_bitmap_abi.h: one Verilated
// bitmap RTL (class Vrtl_bitmap, whatever its top module) behind the C ABI that
// `bitmap.impl: rtl` loads. Built by testbench/rtl/CMakeLists.txt once per RTL top.
#include <cstdio>
#include <memory>
#include <string>

#include "Vrtl_bitmap.h"
#include "model/ordering/rtl_bitmap_abi.h"
#include "verilated.h"

namespace {

struct Model {
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vrtl_bitmap> top;
};

void drive(Vrtl_bitmap& t, const oonic_rtl_bitmap_io& io) {
  t.in_valid = io.in_valid & 1u;
  t.in_op = io.in_op & 7u;
  t.in_qp = io.in_qp;
  t.in_psn = io.in_psn & 0xFFFFFFu;
  t.in_otd = io.in_otd;
  t.q_qp = io.q_qp;
  t.q_node = io.q_node & 0xFFFFu;
}

void sample(const Vrtl_bitmap& t, oonic_rtl_bitmap_io& io) {
  io.done = t.done, io.verdict = t.verdict, io.located = t.located;
  io.head_advanced = t.head_advanced, io.nak = t.nak, io.nak_base = t.nak_base;
  io.node_acc = t.node_acc, io.block_acc = t.block_acc, io.freed = t.freed;
  for (int i = 0; i < OONIC_RTL_BITMAP_MAX_WORDS; ++i) io.nak_words[i] = t.nak_bits[i];
  io.q_open = t.q_open, io.q_epsn = t.q_epsn, io.q_blocks_held = t.q_blocks_held;
  io.q_header_ptr = t.q_header_ptr, io.q_base_psn = t.q_base_psn;
  io.qn_valid = t.qn_valid, io.qn_all_1 = t.qn_all_1, io.qn_block_id = t.qn_block_id;
  io.pool_free = t.pool_free;
}

void edge(Model& m) {
  m.top->clk = 1;
  m.top->eval();
  m.top->clk = 0;
  m.top->eval();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int oonic_rtl_bitmap_abi(void) {
  return OONIC_RTL_BITMAP_ABI_VERSION;
}

__attribute__((visibility("default"))) void* oonic_rtl_bitmap_create(
    uint32_t block_bits, uint32_t nodes_per_qp, uint32_t pool_blocks, uint32_t max_qps,
    uint32_t renak_psns, char* err, size_t err_len) {
  auto m = std::make_unique<Model>();
  m->ctx = std::make_unique<VerilatedContext>();
  m->top = std::make_unique<Vrtl_bitmap>(m->ctx.get(), "rtl_bitmap");
  m->top->clk = 0;
  m->top->eval();
  std::string why;
  const uint64_t nodes = uint64_t{nodes_per_qp} * max_qps;
  if (block_bits < 1 || block_bits > m->top->cap_m)
    why = "bitmap.block_bits " + std::to_string(block_bits) + " (the RTL takes 1.." +
          std::to_string(m->top->cap_m) + ")";
  else if (nodes_per_qp < 1 || nodes_per_qp > 4096)
    why = "bitmap.nodes_per_qp " + std::to_string(nodes_per_qp) + " (the RTL takes 1..4096)";
  else if (max_qps < 1 || max_qps > m->top->cap_qps)
    why = "nic.max_qps " + std::to_string(max_qps) + " (the RTL takes 1.." +
          std::to_string(m->top->cap_qps) + ")";
  else if (nodes > m->top->cap_nodes)
    why = "nic.max_qps x bitmap.nodes_per_qp = " + std::to_string(nodes) +
          " nodes (the RTL's node array holds " + std::to_string(m->top->cap_nodes) + ")";
  else if (pool_blocks < 1 || pool_blocks > m->top->cap_pool)
    why = "bitmap.pool_blocks " + std::to_string(pool_blocks) + " (the RTL takes 1.." +
          std::to_string(m->top->cap_pool) + ")";
  if (!why.empty()) {
    if (err && err_len) {
      std::snprintf(err, err_len, "%s", why.c_str());
    }
    return nullptr;
  }
  m->top->cfg_m = block_bits;
  m->top->cfg_n = nodes_per_qp;
  m->top->cfg_pool = pool_blocks;
  m->top->cfg_qps = max_qps;
  m->top->cfg_renak = renak_psns;
  m->top->in_valid = 0;
  m->top->rst = 1;
  edge(*m);
  m->top->rst = 0;
  m->top->eval();
  return m.release();
}

__attribute__((visibility("default"))) void oonic_rtl_bitmap_destroy(void* model) {
  delete static_cast<Model*>(model);
}

__attribute__((visibility("default"))) void oonic_rtl_bitmap_eval(void* model,
                                                                  oonic_rtl_bitmap_io* io) {
  Model& m = *static_cast<Model*>(model);
  drive(*m.top, *io);
  m.top->eval();
  sample(*m.top, *io);
}

__attribute__((visibility("default"))) void oonic_rtl_bitmap_tick(void* model,
                                                                  oonic_rtl_bitmap_io* io) {
  Model& m = *static_cast<Model*>(model);
  drive(*m.top, *io);
  edge(m);
  sample(*m.top, *io);
}
}
