#include "model/eunomia/receiver_agent.h"

namespace oonic::eunomia {

namespace {
Counter* hd_counter(const BlockEnv& env, const std::string& agent, const char* stat, StatText unit,
                    StatText desc) {
  return &env.stats.counter(agent + ".hd_bitmap." + stat, unit, desc);
}
}  // namespace

ReceiverAgent::ReceiverAgent(sc_core::sc_module_name name, const BlockEnv& env,
                             const eunomia::PacketDriverCore::Params& p)
    : sc_module(name),
      core_(std::make_unique<eunomia::PacketDriverCore>(p)),
      packet_driver("packet_driver", env, *core_),
      memory_controller("memory_controller", env, *core_),
      packets_(env.stats.counter(std::string(this->name()) + ".packets", "packet",
                                 "data packets the packet driver handled")),
      bypassed_(env.stats.counter(
          std::string(this->name()) + ".driver_only", "packet",
          "packets that cost no module cycle (in order with no bitmap, below Head, or a "
          "connection's first out-of-order packet already past the cap)")) {
  const std::string n = this->name();
  hd_stats_.creations = hd_counter(env, n, "creations", "event",
                                   "bitmaps created (first out-of-order packet of a connection)");
  hd_stats_.linear_rows =
      hd_counter(env, n, "linear_rows_added", "row", "linear rows added on growth");
  hd_stats_.merges = hd_counter(env, n, "merges", "event",
                                "linear parts merged into the circular part (circular flushed)");
  hd_stats_.garbage_collections =
      hd_counter(env, n, "garbage_collections", "event",
                 "bitmaps freed with their metadata once Head passed Last Seq");
  hd_stats_.sacks = hd_counter(env, n, "sacks", "packet", "out-of-order packets tracked (SACK)");
  hd_stats_.nacks = hd_counter(env, n, "nacks", "packet",
                               "packets that could not be tracked and were dropped (NACK)");
  for (uint32_t i = 0; i < core_->modules(); ++i)
    hd_bitmaps.push_back(std::make_unique<HdBitmap>(("hd_bitmap_" + std::to_string(i)).c_str(),
                                                    core_->module(i), hd_stats_));
  p_verdict_.bind(env.vcd, n + ".verdict", 3);
}

ReceiverAgent::~ReceiverAgent() = default;

std::vector<Sram*> ReceiverAgent::srams() {
  std::vector<Sram*> v{&packet_driver.conn_to_module_map()};
  for (Sram* s : memory_controller.srams()) v.push_back(s);
  return v;
}

void ReceiverAgent::open(Cycle t, uint32_t qp, uint32_t start_psn) {
  (void)t;
  core_->open(qp, start_psn, 0);
}

void ReceiverAgent::close(Cycle t, uint32_t qp) {
  if (!core_->is_open(qp)) return;
  core_->close(qp);  // frees what the connection held (reset on completion)
  memory_controller.sync(t, core_->module_of(qp));
  packet_driver.update_valid(t, qp, false);
}

ReceiverAgent::Result ReceiverAgent::receive(Cycle t, uint32_t qp, uint32_t psn,
                                             const ordering::PacketMeta& meta) {
  Result r;
  packets_.inc();
  const Cycle known = packet_driver.lookup(t, qp, &r.grant);
  r.out = core_->receive(qp, psn, meta);
  if (!core_->is_open(qp)) {
    r.done = known;
    return r;
  }
  const uint32_t m = core_->module_of(qp);
  const eunomia::Cost& cost = core_->module(m).last_detail().cost;
  const Cycle c = cost.cycles();
  if (c) {
    r.done = memory_controller.serve(known, m, cost) + c;
    memory_controller.sync(r.done, m);
  } else {
    r.done = known;
    bypassed_.inc();
  }
  hd_bitmaps[m]->note(r.out);
  packet_driver.update_valid(r.done, qp, core_->module(m).blocks_held(core_->local(qp)) > 0);
  p_verdict_.set(r.done, static_cast<uint64_t>(r.out.verdict));
  return r;
}

}  // namespace oonic::eunomia
