#include "model/ornic/rx/bitmap_manager.h"

#include "model/core/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace oonic::ornic {

namespace {

ordering::SchemeGeometry geometry(const OrnicParams& p) {
  ordering::SchemeGeometry g;
  g.block_bits = p.bitmap.block_bits;
  g.nodes_per_qp = p.bitmap.nodes_per_qp;
  g.pool_blocks = p.bitmap.pool_blocks;
  g.max_qps = p.nic.max_qps;
  g.left_cache_threshold = p.bitmap.left_cache_threshold;
  g.renak_psns = p.bitmap.renak_psns;
  g.mprdma_slots = p.bitmap.mprdma_slots;
  g.eunomia_master_blocks = p.eunomia.master_array_blocks;
  g.eunomia_connections = p.eunomia.connections_per_module;
  g.eunomia_alloc_bits_per_cycle = p.eunomia.alloc_bits_per_cycle;
  return g;
}

uint32_t id_bits(uint32_t blocks) {
  uint32_t b = 1;
  while ((1ull << b) < blocks) ++b;
  return b;
}

// The unit: the scheme's core, or for `bitmap.impl: rtl` the Verilated RTL.
std::unique_ptr<ordering::OrderingUnit> make_unit(const ordering::Scheme& s, const OrnicParams& p) {
  if (s.traits.receiver_agent) return nullptr;
  if (p.bitmap.impl != "rtl") return s.make(geometry(p));  // once
  if (std::string(s.name) != "ornic")                      // once
    throw Error(msg::kConfig,
                "bitmap.impl rtl: the RTL (testbench/rtl/ornic_bitmap.v) is ORNIC's "
                "bitmap; nic.ordering is '" +
                    std::string(s.name) + "'");
  ordering::RtlOrnicBitmap::Params rp;
  const ordering::SchemeGeometry g = geometry(p);
  rp.geometry = ordering::OrnicBitmap::Params{g.block_bits, g.nodes_per_qp, g.pool_blocks,
                                              g.max_qps, g.renak_psns};
  rp.library = p.bitmap.rtl_library;
  rp.check = p.bitmap.rtl_check;
  return std::make_unique<ordering::RtlOrnicBitmap>(rp);
}

}  // namespace

BitmapManager::BitmapManager(sc_core::sc_module_name name, const BlockEnv& env)
    : sc_module(name),
      scheme_(env.p.nic.ordering),
      scheme_info_(ordering::find_scheme(scheme_)),
      owned_(make_unit(scheme_info_, env.p)),
      agent_(scheme_info_.traits.receiver_agent
                 ? std::make_unique<eunomia::ReceiverAgent>(
                       "receiver_agent", env, ordering::eunomia_params(geometry(env.p)))
                 : nullptr),
      unit_(agent_ ? static_cast<ordering::OrderingUnit*>(&agent_->core()) : owned_.get()),
      rtl_(dynamic_cast<ordering::RtlOrnicBitmap*>(unit_)),
      ornic_(rtl_ ? rtl_->reference() : dynamic_cast<ordering::OrnicBitmap*>(unit_)),
      block_bits_(env.p.bitmap.block_bits),
      qp_state_bits_(ordering::qp_state_bits(scheme_, geometry(env.p))),
      high_(env.p.nic.max_qps, 0),
      id_bits_(ordering::block_id_bits(geometry(env.p))),
      store_unit_(ordering::store_unit_bits(scheme_, geometry(env.p))),
      calls_(env.stats.counter(std::string(this->name()) + ".calls", "call",
                               "bitmap lookups by the Req and Rsp Processors")),
      naks_(env.stats.counter(std::string(this->name()) + ".loss_declared", "event",
                              "OTD violations that produced a NAK block")),
      locate_(env.stats.histogram(std::string(this->name()) + ".locate_cycles", "cycle",
                                  "cycles to locate an OOO packet's bitmap block", 1, 16)) {
  for (const ordering::SramSpec& sp : ordering::sram_layout(scheme_, geometry(env.p))) {
    const std::string n = "bitmap." + sp.name;
    srams_.push_back(std::make_unique<Sram>(n, SramParams{sp.width_bits, sp.depth, "1RW", 0},
                                            env.stats, env.sram_stat(n)));
    Sram* m = srams_.back().get();
    (sp.role == ordering::SramSpec::kState     ? state_
     : sp.role == ordering::SramSpec::kStore   ? store_
     : sp.role == ordering::SramSpec::kNextPtr ? next_
                                               : free_) = m;
  }
  // The free-slot stack starts full: every block id is on it.
  if (free_) free_->occupy(0, int64_t{env.p.bitmap.pool_blocks} * id_bits_);
  std::string n = this->name();
  env.stats.derived(
      n + ".port_stall_cycles", "cycle",
      "cycles calls waited for the manager's port (Req/Rsp contention)", [this] {
        // Eunomia: the waits for the driver's map and the controller's banks.
        if (agent_)
          return static_cast<double>(agent_->memory_controller.port_stall_cycles() +
                                     agent_->packet_driver.conn_to_module_map().stall_cycles());
        return static_cast<double>(port_.stall_cycles());
      });
  env.stats.derived(n + ".pool_peak_blocks", "block", "most pool blocks held at once", [this] {
    if (agent_)  // master_array blocks (bitmap rows and metadata)
      return static_cast<double>(agent_->memory_controller.master_array().occupancy().peak()) / 16;
    return store_ ? static_cast<double>(store_->occupancy().peak()) / block_bits_ : 0.0;
  });
  p_qp_.bind(env.vcd, n + ".qp", 16);
  p_psn_.bind(env.vcd, n + ".psn", 24);
  p_epsn_.bind(env.vcd, n + ".epsn", 24);
  p_header_ptr_.bind(env.vcd, n + ".header_ptr", 16);
  p_blocks_held_.bind(env.vcd, n + ".blocks_held", 16);
  p_pool_used_.bind(env.vcd, n + ".pool_used", 24);
  p_nak_.bind(env.vcd, n + ".nak", 1);
  if (env.vcd && ornic_) {
    // Per-node signals of the watched QP's node array (physical node index).
    const uint32_t nodes = env.p.bitmap.nodes_per_qp;
    const int id_w = static_cast<int>(id_bits(env.p.bitmap.pool_blocks));
    const int bits_w = static_cast<int>(std::min<uint32_t>(env.p.bitmap.block_bits, 64));
    p_nodes_.resize(nodes);
    for (uint32_t i = 0; i < nodes; ++i) {
      const std::string nn = n + ".node" + std::to_string(i);
      p_nodes_[i].valid.bind(env.vcd, nn + ".valid", 1);
      p_nodes_[i].all_1.bind(env.vcd, nn + ".all_1", 1);
      p_nodes_[i].block_id.bind(env.vcd, nn + ".block_id", id_w);
      p_nodes_[i].bits.bind(env.vcd, nn + ".bits", bits_w);
    }
    if (p_nodes_.empty() || !p_nodes_[0].valid.on()) {
      p_nodes_.clear();  // filtered out by the VCD's signal groups
    } else {
      node_seen_.assign(nodes, NodeState{});
      watch_bits_.assign(nodes, 0);
    }
  }
}

void BitmapManager::watch_qp(uint32_t qp) {
  watch_qp_ = qp;
  std::fill(watch_bits_.begin(), watch_bits_.end(), 0);
}

// Records the watched QP's nodes whose value differs from what was last recorded.
// Calls finish in call order (the port grants in booking order), so recording at
// max(t, last) keeps the waveform in the core's order.
void BitmapManager::record_nodes(Cycle t, uint32_t qp) {
  t = std::max(t, watch_last_);
  watch_last_ = t;
  const uint32_t nodes = static_cast<uint32_t>(p_nodes_.size());
  const uint32_t hp = ornic_->header_ptr(qp);
  for (uint32_t i = 0; i < nodes; ++i) {
    const uint32_t p = (hp + i) % nodes;
    const ordering::OrnicBitmap::NodeView v = ornic_->node(qp, i);
    const bool holds = v.valid && !v.all_1;
    if (!holds) watch_bits_[p] = 0;
    const NodeState now{v.valid, v.all_1, holds ? v.block_id : 0u, watch_bits_[p]};
    NodeState& seen = node_seen_[p];
    NodeProbes& pr = p_nodes_[p];
    if (now.valid != seen.valid) pr.valid.set(t, now.valid);
    if (now.all_1 != seen.all_1) pr.all_1.set(t, now.all_1);
    if (now.block_id != seen.block_id) pr.block_id.set(t, now.block_id);
    if (now.bits != seen.bits) pr.bits.set(t, now.bits);
    seen = now;
  }
}

void BitmapManager::open(Cycle t, uint32_t qp, uint32_t start_psn, uint32_t otd) {
  if (unit_->is_open(qp)) return;
  high_[qp] = start_psn;
  if (agent_) return agent_->open(t, qp, start_psn);
  unit_->open(qp, start_psn, otd);
  // The QP's state words become live (ORNIC: its N node words); a scheme with a
  // static per-QP bitmap holds its blocks from now on.
  state_->occupy(t, static_cast<int64_t>(qp_state_bits_));
  blocks(t, unit_->blocks_held(qp));
  if (!p_nodes_.empty() && qp == watch_qp_) {
    std::fill(watch_bits_.begin(), watch_bits_.end(), 0);
    record_nodes(t, qp);
  }
}

void BitmapManager::close(Cycle t, uint32_t qp) {
  if (!unit_->is_open(qp)) return;
  if (agent_) return agent_->close(t, qp);
  uint32_t held = unit_->blocks_held(qp);
  unit_->close(qp);
  state_->occupy(t, -static_cast<int64_t>(qp_state_bits_));
  blocks(t, -static_cast<int64_t>(held));
  if (!p_nodes_.empty() && qp == watch_qp_) record_nodes(t, qp);
}

// Blocks taken (delta > 0) or returned: the store holds them, lists keep a next
// pointer per block, and their ids leave (join) the free-slot stack.
void BitmapManager::blocks(Cycle t, int64_t delta) {
  if (!delta) return;
  pool_used_ += delta;
  if (store_) store_->occupy(t, delta * store_unit_);
  if (next_) next_->occupy(t, delta * id_bits_);
  if (free_) free_->occupy(t, -delta * id_bits_);
}

std::vector<Sram*> BitmapManager::srams() {
  if (agent_) return agent_->srams();
  std::vector<Sram*> v;
  for (auto& m : srams_) v.push_back(m.get());
  return v;
}

Sram& BitmapManager::block_pool() {
  if (agent_) return agent_->memory_controller.master_array();
  if (!store_) throw Error(msg::kModel, "the '" + scheme_ + "' scheme keeps no bits in SRAM");
  return *store_;
}

const ordering::OrnicBitmap& BitmapManager::core() const {
  if (!ornic_) throw Error(msg::kModel, "the Bitmap Manager runs '" + scheme_ + "', not ornic");
  return *ornic_;
}

bool BitmapManager::has_pending(uint32_t qp) const {
  return unit_->is_open(qp) && wire::psn_diff(high_[qp], unit_->epsn(qp)) > 0;
}

BitmapManager::Result BitmapManager::access(Cycle t, uint32_t qp, uint32_t psn,
                                            const ordering::PacketMeta& meta) {
  Result r;
  if (agent_) {
    const eunomia::ReceiverAgent::Result a = agent_->receive(t, qp, psn, meta);
    r.out = a.out, r.grant = a.grant, r.done = a.done;
    if ((r.out.verdict == ordering::Verdict::kInOrder ||
         r.out.verdict == ordering::Verdict::kOutOfOrder) &&
        wire::psn_diff(wire::psn_add(psn, 1), high_[qp]) > 0)
      high_[qp] = wire::psn_add(psn, 1);
    calls_.inc();
    if (r.out.locate_cycles) locate_.add(r.out.locate_cycles);
    if (p_qp_.on()) {
      p_qp_.set(r.grant, qp);
      p_psn_.set(r.grant, psn);
      p_epsn_.set(r.done, r.out.epsn);
      p_blocks_held_.set(r.done, r.out.blocks_held);
    }
    return r;
  }
  const bool watched = !p_nodes_.empty() && qp == watch_qp_;
  const uint32_t hp0 = watched ? ornic_->header_ptr(qp) : 0;
  const uint32_t base0 = watched ? ornic_->base_psn(qp) : 0;
  const uint64_t mismatches_before = rtl_ ? rtl_->mismatches() : 0;
  r.out = unit_->receive(qp, psn, meta);
  if ((r.out.verdict == ordering::Verdict::kInOrder ||
       r.out.verdict == ordering::Verdict::kOutOfOrder) &&
      wire::psn_diff(wire::psn_add(psn, 1), high_[qp]) > 0)
    high_[qp] = wire::psn_add(psn, 1);
  calls_.inc();
  Cycle c = r.out.cycles;
  r.grant = port_.acquire(t, c ? c : 1);
  r.done = r.grant + c;
  if (rtl_ && !rtl_mismatch_.call && rtl_->mismatches() > mismatches_before) {
    const ordering::RtlOrnicBitmap::Mismatch& m = *rtl_->first_mismatch();
    rtl_mismatch_ = RtlMismatch{m.call, meta.record, m.qp, m.psn, r.grant, m.what};
  }
  // One cycle per access, as ORNIC §4.3 counts; the SRAMs keep the access counts.
  Sram* ptrs = next_ ? next_ : state_;
  for (uint32_t i = 0; i < r.out.node_accesses; ++i)
    ptrs->read(r.grant + i, ptrs->params().width_bits);
  if (store_)
    for (uint32_t i = 0; i < r.out.block_accesses; ++i) store_->read(r.grant + i, store_unit_);
  if (r.out.blocks_delta) blocks(r.done, r.out.blocks_delta);
  if (r.out.locate_cycles) locate_.add(r.out.locate_cycles);
  if (r.out.nak) naks_.inc();
  if (p_qp_.on()) {
    p_qp_.set(r.grant, qp);
    p_psn_.set(r.grant, psn);
    p_epsn_.set(r.done, r.out.epsn);
    if (ornic_) p_header_ptr_.set(r.done, ornic_->header_ptr(qp));
    p_blocks_held_.set(r.done, r.out.blocks_held);
    p_pool_used_.set(r.done, static_cast<uint64_t>(pool_used_));
    p_nak_.set(r.done, r.out.nak);
    if (r.out.nak) p_nak_.set(r.done + 1, 0);
  }
  if (watched) {
    // The core keeps block contents private: rebuild the watched QP's bits from the
    // tracked packets (the bit lands in node (header_ptr + off / M) % N, as in the core).
    if (r.out.verdict == ordering::Verdict::kInOrder ||
        r.out.verdict == ordering::Verdict::kOutOfOrder) {
      const uint32_t m = ornic_->params().block_bits;
      const auto off = static_cast<uint32_t>(wire::psn_diff(psn & wire::kPsnMask, base0));
      const uint32_t p = (hp0 + off / m) % ornic_->params().nodes_per_qp;
      if (off % m < 64) watch_bits_[p] |= uint64_t{1} << (off % m);
    }
    record_nodes(r.done, qp);
  }
  return r;
}

}  // namespace oonic::ornic
