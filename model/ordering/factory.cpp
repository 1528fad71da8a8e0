#include "model/ordering/factory.h"

#include "model/core/error.h"
#include "model/ordering/eunomia_packet_driver.h"
#include "model/ordering/gbn.h"
#include "model/ordering/irn.h"
#include "model/ordering/left.h"
#include "model/ordering/melo.h"
#include "model/ordering/mprdma.h"
#include "model/ordering/ornic_bitmap.h"
#include "model/ordering/static_bitmap.h"

namespace oonic::ordering {

namespace {
uint32_t id_bits(uint32_t n) {
  uint32_t b = 1;
  while ((1ull << b) < n) ++b;
  return b;
}
template <class T>
std::unique_ptr<OrderingUnit> make_list(const SchemeGeometry& g) {
  typename T::Params p;
  p.pool_bits = g.pool_blocks * g.block_bits;
  p.block_bits = g.block_bits;
  p.max_qps = g.max_qps;
  p.max_blocks_per_qp = g.nodes_per_qp;
  return std::make_unique<T>(p);
}
}  // namespace

const std::vector<std::string>& scheme_names() {
  static const std::vector<std::string> n = {"ornic", "gbn",  "irn",   "static", "melo",
                                             "melo+", "left", "left+", "mprdma", "eunomia"};
  return n;
}

std::unique_ptr<OrderingUnit> make_unit(const std::string& scheme, const SchemeGeometry& g) {
  const uint32_t window = g.nodes_per_qp * g.block_bits;
  if (scheme == "ornic") {
    OrnicBitmap::Params p;
    p.block_bits = g.block_bits;
    p.nodes_per_qp = g.nodes_per_qp;
    p.pool_blocks = g.pool_blocks;
    p.max_qps = g.max_qps;
    return std::make_unique<OrnicBitmap>(p);
  }
  if (scheme == "gbn") {
    Gbn::Params p;
    p.max_qps = g.max_qps;
    return std::make_unique<Gbn>(p);
  }
  if (scheme == "irn") {
    Irn::Params p;
    p.bitmap_bits = window;
    p.block_bits = g.block_bits;
    p.max_qps = g.max_qps;
    return std::make_unique<Irn>(p);
  }
  if (scheme == "static") {
    StaticBitmap::Params p;
    p.window_bits = window;
    p.block_bits = g.block_bits;
    p.max_qps = g.max_qps;
    return std::make_unique<StaticBitmap>(p);
  }
  if (scheme == "melo") return make_list<Melo>(g);
  if (scheme == "melo+") return make_list<MeloPlus>(g);
  if (scheme == "left" || scheme == "left+") {
    Left::Params p;
    p.pool_bits = g.pool_blocks * g.block_bits;
    p.block_bits = g.block_bits;
    p.max_qps = g.max_qps;
    p.max_blocks_per_qp = g.nodes_per_qp;
    p.cache_threshold = g.left_cache_threshold;
    if (scheme == "left+") return std::make_unique<LeftPlus>(p);
    return std::make_unique<Left>(p);
  }
  if (scheme == "mprdma") {
    MpRdma::Params p;
    p.slots = window;
    p.max_qps = g.max_qps;
    p.block_bits = g.block_bits;
    p.head_advance = MpRdma::HeadAdvance::kPerPacket;
    return std::make_unique<MpRdma>(p);
  }
  if (scheme == "eunomia") return std::make_unique<EunomiaPacketDriver>(eunomia_params(g));
  std::string all;
  for (const auto& n : scheme_names()) all += (all.empty() ? "" : ", ") + n;
  throw Error(msg::kConfig, "nic.ordering: unknown scheme '" + scheme + "' (" + all + ")");
}

EunomiaPacketDriver::Params eunomia_params(const SchemeGeometry& g) {
  const uint32_t window = g.nodes_per_qp * g.block_bits;
  EunomiaPacketDriver::Params p;
  p.max_qps = g.max_qps;
  p.connections_per_module = g.eunomia_connections;
  p.module.block_bits = g.block_bits;
  p.module.max_bitmap_bits = window;
  p.module.memory.blocks = g.eunomia_master_blocks;
  p.module.memory.metadata_blocks = 8 + window / g.block_bits;
  p.module.memory.alloc_bits_per_cycle = g.eunomia_alloc_bits_per_cycle;
  return p;
}

uint32_t block_id_bits(const SchemeGeometry& g) {
  return id_bits(g.pool_blocks);
}

uint32_t store_unit_bits(const std::string& scheme, const SchemeGeometry& g) {
  return scheme == "eunomia" ? 16 : g.block_bits;
}

std::vector<SramSpec> sram_layout(const std::string& scheme, const SchemeGeometry& g) {
  const uint32_t id = id_bits(g.pool_blocks);
  const uint32_t window = g.nodes_per_qp * g.block_bits;
  auto words = [](uint64_t bits, uint32_t w) { return static_cast<uint32_t>((bits + w - 1) / w); };
  if (scheme == "ornic")
    return {{SramSpec::kState, "node_array", id + 2, g.max_qps * g.nodes_per_qp},
            {SramSpec::kStore, "block_pool", g.block_bits, g.pool_blocks},
            {SramSpec::kFreeList, "free_list", id, g.pool_blocks}};
  const uint32_t state_w = static_cast<uint32_t>(qp_state_bits(scheme, g));
  if (scheme == "gbn") return {{SramSpec::kState, "qp_state", state_w, g.max_qps}};
  if (scheme == "irn" || scheme == "static")
    return {{SramSpec::kState, "qp_state", state_w, g.max_qps},
            {SramSpec::kStore, "qp_bitmaps", 64, g.max_qps * words(window, 64)}};
  if (scheme == "mprdma")
    return {{SramSpec::kState, "qp_state", state_w, g.max_qps},
            {SramSpec::kStore, "slots", 64, g.max_qps * words(2ull * window, 64)}};
  if (scheme == "eunomia") return {};  // the receiver agent's (model/eunomia)
  // melo, melo+, left, left+
  return {{SramSpec::kState, "qp_state", state_w, g.max_qps},
          {SramSpec::kStore, "block_pool", g.block_bits, g.pool_blocks},
          {SramSpec::kNextPtr, "next_ptr", id, g.pool_blocks},
          {SramSpec::kFreeList, "free_list", id, g.pool_blocks}};
}

uint64_t qp_state_bits(const std::string& scheme, const SchemeGeometry& g) {
  const uint32_t id = id_bits(g.pool_blocks);
  if (scheme == "ornic") return uint64_t{g.nodes_per_qp} * (id + 2);
  if (scheme == "melo" || scheme == "melo+") return 2 * id + 48;  // start/end ptr, RCV.NXT/HIGH
  if (scheme == "left" || scheme == "left+") return 3 * id + 48;  // + cache pointer
  if (scheme == "gbn") return 25;                                 // ePSN + NAK-sent flag
  if (scheme == "eunomia") return 8;  // metadata_start_index entry (+ ePSN in the driver)
  return 24;                          // ePSN / rcv_nxt
}

}  // namespace oonic::ordering
