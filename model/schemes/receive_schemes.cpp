#include "model/schemes/receive_schemes.h"

#include <type_traits>

#include "model/core/error.h"
#include "model/eunomia/packet_driver_core.h"
#include "model/ordering/gbn.h"
#include "model/ordering/irn.h"
#include "model/ordering/left.h"
#include "model/ordering/melo.h"
#include "model/ordering/mprdma.h"
#include "model/ordering/ornic_bitmap.h"
#include "model/ordering/static_bitmap.h"
#include "model/ordering/uet_rud.h"

namespace oonic::ordering {

namespace {

uint32_t id_bits(uint32_t n) {
  uint32_t b = 1;
  while ((1ull << b) < n) ++b;
  return b;
}
uint32_t window(const SchemeGeometry& g) {
  return g.nodes_per_qp * g.block_bits;
}
uint32_t words(uint64_t bits, uint32_t w) {
  return static_cast<uint32_t>((bits + w - 1) / w);
}

// ---- cores ----
std::unique_ptr<OrderingUnit> make_ornic(const SchemeGeometry& g) {
  OrnicBitmap::Params p;
  p.block_bits = g.block_bits;
  p.nodes_per_qp = g.nodes_per_qp;
  p.pool_blocks = g.pool_blocks;
  p.max_qps = g.max_qps;
  p.renak_psns = g.renak_psns;
  return std::make_unique<OrnicBitmap>(p);
}
std::unique_ptr<OrderingUnit> make_gbn(const SchemeGeometry& g) {
  Gbn::Params p;
  p.max_qps = g.max_qps;
  return std::make_unique<Gbn>(p);
}
std::unique_ptr<OrderingUnit> make_irn(const SchemeGeometry& g) {
  Irn::Params p;
  p.bitmap_bits = window(g);
  p.block_bits = g.block_bits;
  p.max_qps = g.max_qps;
  return std::make_unique<Irn>(p);
}
std::unique_ptr<OrderingUnit> make_uet_rud(const SchemeGeometry& g) {
  UetRud::Params p;
  p.window_bits = window(g);
  p.block_bits = g.block_bits;
  p.max_qps = g.max_qps;
  return std::make_unique<UetRud>(p);
}
std::unique_ptr<OrderingUnit> make_uet_rod(const SchemeGeometry& g) {
  UetRod::Params p;
  p.max_qps = g.max_qps;
  return std::make_unique<UetRod>(p);
}
std::unique_ptr<OrderingUnit> make_static(const SchemeGeometry& g) {
  StaticBitmap::Params p;
  p.window_bits = window(g);
  p.block_bits = g.block_bits;
  p.max_qps = g.max_qps;
  return std::make_unique<StaticBitmap>(p);
}
template <class T>
std::unique_ptr<OrderingUnit> make_list(const SchemeGeometry& g) {
  typename T::Params p;
  p.pool_bits = g.pool_blocks * g.block_bits;
  p.block_bits = g.block_bits;
  p.max_qps = g.max_qps;
  p.max_blocks_per_qp = g.nodes_per_qp;
  if constexpr (std::is_base_of_v<Left, T>) p.cache_threshold = g.left_cache_threshold;
  return std::make_unique<T>(p);
}
uint32_t mprdma_slots(const SchemeGeometry& g) {
  return g.mprdma_slots ? g.mprdma_slots : window(g);
}
std::unique_ptr<OrderingUnit> make_mprdma(const SchemeGeometry& g) {
  MpRdma::Params p;
  p.slots = mprdma_slots(g);
  p.max_qps = g.max_qps;
  p.block_bits = g.block_bits;
  p.head_advance = MpRdma::HeadAdvance::kPerPacket;
  return std::make_unique<MpRdma>(p);
}
std::unique_ptr<OrderingUnit> make_eunomia(const SchemeGeometry& g) {
  return std::make_unique<eunomia::PacketDriverCore>(eunomia_params(g));
}

// ---- per-QP state bits ----
uint64_t state_ornic(const SchemeGeometry& g) {
  return uint64_t{g.nodes_per_qp} * (id_bits(g.pool_blocks) + 2);
}
uint64_t state_melo(const SchemeGeometry& g) {
  return 2 * id_bits(g.pool_blocks) + 48;  // start/end ptr, RCV.NXT/HIGH
}
uint64_t state_left(const SchemeGeometry& g) {
  return 3 * id_bits(g.pool_blocks) + 48;  // + cache pointer
}
uint64_t state_gbn(const SchemeGeometry&) {
  return 25;  // ePSN + NAK-sent flag
}
uint64_t state_epsn(const SchemeGeometry&) {
  return 24;  // ePSN / rcv_nxt
}
uint64_t state_eunomia(const SchemeGeometry&) {
  return 8;  // metadata_start_index entry (+ ePSN in the driver)
}

// ---- SRAM layouts ----
std::vector<SramSpec> layout_ornic(const SchemeGeometry& g) {
  const uint32_t id = id_bits(g.pool_blocks);
  return {{SramSpec::kState, "node_array", id + 2, g.max_qps * g.nodes_per_qp},
          {SramSpec::kStore, "block_pool", g.block_bits, g.pool_blocks},
          {SramSpec::kFreeList, "free_list", id, g.pool_blocks}};
}
std::vector<SramSpec> layout_gbn(const SchemeGeometry& g) {
  return {{SramSpec::kState, "qp_state", static_cast<uint32_t>(state_gbn(g)), g.max_qps}};
}
std::vector<SramSpec> layout_static(const SchemeGeometry& g) {
  return {{SramSpec::kState, "qp_state", static_cast<uint32_t>(state_epsn(g)), g.max_qps},
          {SramSpec::kStore, "qp_bitmaps", 64, g.max_qps * words(window(g), 64)}};
}
std::vector<SramSpec> layout_mprdma(const SchemeGeometry& g) {
  return {{SramSpec::kState, "qp_state", static_cast<uint32_t>(state_epsn(g)), g.max_qps},
          {SramSpec::kStore, "slots", 64, g.max_qps * words(2ull * mprdma_slots(g), 64)}};
}
template <uint64_t (*State)(const SchemeGeometry&)>
std::vector<SramSpec> layout_list(const SchemeGeometry& g) {
  const uint32_t id = id_bits(g.pool_blocks);
  return {{SramSpec::kState, "qp_state", static_cast<uint32_t>(State(g)), g.max_qps},
          {SramSpec::kStore, "block_pool", g.block_bits, g.pool_blocks},
          {SramSpec::kNextPtr, "next_ptr", id, g.pool_blocks},
          {SramSpec::kFreeList, "free_list", id, g.pool_blocks}};
}
std::vector<SramSpec> layout_none(const SchemeGeometry&) {
  return {};  // the receiver agent's (model/eunomia)
}

uint32_t unit_block(const SchemeGeometry& g) {
  return g.block_bits;
}
uint32_t unit_master_block(const SchemeGeometry&) {
  return 16;
}

SchemeTraits traits(const char* recovery) {
  SchemeTraits t;
  t.recovery = recovery;
  return t;
}
SchemeTraits ornic_traits() {
  SchemeTraits t = traits("ornic");
  t.bitmap_nak = true;
  t.block_window = true;
  return t;
}
SchemeTraits mprdma_traits() {
  SchemeTraits t = traits("mprdma");
  t.rate = "mprdma";
  t.sack_as_mp_ack = true;
  t.ooo_send = true;
  return t;
}
SchemeTraits melo_traits() {
  SchemeTraits t = traits("hole-list");
  t.reorder_buffer = true;
  t.block_window = true;
  return t;
}
SchemeTraits left_traits() {
  SchemeTraits t = traits("hole-list");
  t.block_window = true;
  return t;
}
SchemeTraits uet_traits() {
  SchemeTraits t = traits("uet");  // tx.rate auto: none, as for irn (NSCC: tx.rate nscc)
  t.uet_ack = true;
  return t;
}
SchemeTraits uet_rod_traits() {
  SchemeTraits t = uet_traits();
  t.ordered_delivery = true;
  return t;
}
SchemeTraits eunomia_traits() {
  SchemeTraits t = traits("eunomia");
  t.receiver_agent = t.ooo_send = t.ack_every_in_order = true;
  return t;
}

}  // namespace

const std::vector<Scheme>& schemes() {
  static const std::vector<Scheme> s = {
      {"ornic", ornic_traits(), &make_ornic, &layout_ornic, &state_ornic, &unit_block},
      {"gbn", traits("go-back-n"), &make_gbn, &layout_gbn, &state_gbn, &unit_block},
      {"irn", traits("selective-repeat"), &make_irn, &layout_static, &state_epsn, &unit_block},
      {"static", traits("selective-repeat"), &make_static, &layout_static, &state_epsn,
       &unit_block},
      {"melo", melo_traits(), &make_list<Melo>, &layout_list<state_melo>, &state_melo, &unit_block},
      {"melo+", melo_traits(), &make_list<MeloPlus>, &layout_list<state_melo>, &state_melo,
       &unit_block},
      {"left", left_traits(), &make_list<Left>, &layout_list<state_left>, &state_left, &unit_block},
      {"left+", left_traits(), &make_list<LeftPlus>, &layout_list<state_left>, &state_left,
       &unit_block},
      {"mprdma", mprdma_traits(), &make_mprdma, &layout_mprdma, &state_epsn, &unit_block},
      {"uet-rud", uet_traits(), &make_uet_rud, &layout_static, &state_epsn, &unit_block},
      {"uet-rod", uet_rod_traits(), &make_uet_rod, &layout_gbn, &state_gbn, &unit_block},
      {"eunomia", eunomia_traits(), &make_eunomia, &layout_none, &state_eunomia,
       &unit_master_block},
  };
  return s;
}

std::vector<std::string> scheme_names() {
  std::vector<std::string> n;
  for (const Scheme& s : schemes()) n.push_back(s.name);
  return n;
}

const Scheme& find_scheme(const std::string& name) {
  for (const Scheme& s : schemes())
    if (name == s.name) return s;
  std::string all;
  for (const Scheme& s : schemes()) all += (all.empty() ? "" : ", ") + std::string(s.name);
  throw Error(msg::kConfig, "nic.ordering: unknown scheme '" + name + "' (" + all + ")");
}

std::unique_ptr<OrderingUnit> make_unit(const std::string& scheme, const SchemeGeometry& g) {
  return find_scheme(scheme).make(g);
}
uint64_t qp_state_bits(const std::string& scheme, const SchemeGeometry& g) {
  return find_scheme(scheme).qp_state_bits(g);
}
std::vector<SramSpec> sram_layout(const std::string& scheme, const SchemeGeometry& g) {
  return find_scheme(scheme).layout(g);
}
uint32_t store_unit_bits(const std::string& scheme, const SchemeGeometry& g) {
  return find_scheme(scheme).store_unit_bits(g);
}
uint32_t block_id_bits(const SchemeGeometry& g) {
  return id_bits(g.pool_blocks);
}

eunomia::PacketDriverCore::Params eunomia_params(const SchemeGeometry& g) {
  eunomia::PacketDriverCore::Params p;
  p.max_qps = g.max_qps;
  p.connections_per_module = g.eunomia_connections;
  p.module.block_bits = g.block_bits;
  p.module.max_bitmap_bits = window(g);
  p.module.memory.blocks = g.eunomia_master_blocks;
  p.module.memory.metadata_blocks = 8 + window(g) / g.block_bits;
  p.module.memory.alloc_bits_per_cycle = g.eunomia_alloc_bits_per_cycle;
  return p;
}

}  // namespace oonic::ordering
