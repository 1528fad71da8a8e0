// The C ABI between oonic and a Verilated bitmap RTL (`bitmap.impl: rtl`): a shared
// library, loaded at run time, that wraps one Verilated model of the ports of
// testbench/rtl/ornic_bitmap.v. oonic never links Verilator; a library built from
// another RTL with the same ports (a block under development, a planted-bug
// fixture) drops in through `bitmap.rtl_library`. testbench/rtl/rtl_bitmap_shim.cpp
// implements it; model/ordering/rtl_bitmap.h uses it.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

#define OONIC_RTL_BITMAP_ABI_VERSION 2  // 2: create() takes renak_psns
#define OONIC_RTL_BITMAP_MAX_WORDS 16   // 512-bit NAK block, 32-bit words

// Inputs (set before eval/tick) and outputs (valid after them) of the model's ports.
struct oonic_rtl_bitmap_io {
  // inputs
  uint32_t in_valid, in_op, in_qp, in_psn, in_otd;  // in_op: 1 open, 2 close, 3 set_otd, 4 receive
  uint32_t q_qp, q_node;
  // outputs
  uint32_t done, verdict, located, head_advanced, nak, nak_base, node_acc, block_acc, freed;
  uint32_t nak_words[OONIC_RTL_BITMAP_MAX_WORDS];
  uint32_t q_open, q_epsn, q_blocks_held, q_header_ptr, q_base_psn;
  uint32_t qn_valid, qn_all_1, qn_block_id, pool_free;
};

// ABI version of the library (OONIC_RTL_BITMAP_ABI_VERSION it was built with).
int oonic_rtl_bitmap_abi(void);
// A model with this geometry, reset. nullptr with a message in err when the geometry
// exceeds what the RTL was built for.
// renak_psns: bitmap.renak_psns (re-declaration of a persisting hole; 0: never).
void* oonic_rtl_bitmap_create(uint32_t block_bits, uint32_t nodes_per_qp, uint32_t pool_blocks,
                              uint32_t max_qps, uint32_t renak_psns, char* err, size_t err_len);
void oonic_rtl_bitmap_destroy(void* model);
// Drive the inputs and settle the combinational logic; outputs updated.
void oonic_rtl_bitmap_eval(void* model, struct oonic_rtl_bitmap_io* io);
// One clock cycle (rising then falling edge) with the inputs; outputs updated.
void oonic_rtl_bitmap_tick(void* model, struct oonic_rtl_bitmap_io* io);
}
