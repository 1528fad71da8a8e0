// The switch's two plug-in seams in a whole fabric run (system::run of the fabric's job):
//  * a hook (switch_hook.h): docs/DESIGN.md's worked example, a hook that drops every
//    Nth data frame of each flow a switch admits, with its own parameter
//    (switch.drop_nth.n), added as one class and one registry row;
//  * a switch model (switch_node.h): a user's own switch module, made by the factory
//    for `switch.model: store_forward` and bound where the built-in one is.
// Each run must still deliver every byte (the fabric's scoreboard checks host memory
// against what was sent) and complete every flow.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cmath>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "model/core/clock.h"
#include "model/core/error.h"
#include "model/core/params.h"
#include "model/core/stats.h"
#include "model/wire/roce.h"
#include "platforms/fabric/fabric.h"
#include "platforms/network/switch_hook.h"
#include "platforms/network/switch_node.h"
#include "testbench/common/test_paths.h"

namespace oonic::test {
namespace {

// ---- the worked example (docs/DESIGN.md "Adding a switch hook") ----
struct DropNthParams {  // switch.drop_nth.*
  uint32_t n = 0;       // 0: off
  void describe(ParamTable& t) {
    t.add("switch.drop_nth.n", &n, "frame",
          "drop every Nth data frame of each flow a switch admits (0: off)", 0, 1e6);
  }
};

class DropNth : public network::SwitchHook {
 public:
  DropNth(network::SwitchPipe& pipe, const network::SwitchBuild& b, uint32_t n)
      : pipe_(pipe),
        n_(n),
        dropped_(b.stats->counter(b.name + ".drop_nth.dropped", "frame",
                                  "data frames dropped by the drop_nth hook")) {}
  uint32_t stages() const override { return kAdmission; }
  bool admission(network::PipeFrame& f, uint64_t) override {
    if (!f.roce || f.fr.prio == 0) return false;  // RoCE data only (priority 1)
    const wire::PacketView& v = *f.view;
    const uint64_t flow = uint64_t{v.bth.dest_qp} << 16 | v.udp_sport;
    if (++seen_[flow] % n_ != 0) return false;
    dropped_.inc();
    pipe_.release(f.slot);  // taken: the frame goes no further
    return true;
  }

 private:
  network::SwitchPipe& pipe_;
  uint32_t n_;
  Counter& dropped_;
  std::unordered_map<uint64_t, uint64_t> seen_;  // frames admitted per flow
};

DropNthParams& drop_nth_params() {
  static DropNthParams params;  // one set per process, bound into the run's table
  return params;
}

void add_drop_nth_row() {
  static bool added = false;  // a row is added once per process
  if (added) return;
  added = true;
  DropNthParams& params = drop_nth_params();
  network::add_switch_hook({"drop_nth",
                            "drops every Nth data frame of each flow (switch.drop_nth.n)",
                            [&params](network::SwitchPipe& pipe, const network::SwitchBuild& b)
                                -> std::unique_ptr<network::SwitchHook> {
                              if (params.n == 0) return nullptr;
                              return std::make_unique<DropNth>(pipe, b, params.n);
                            },
                            [&params](ParamTable& t) { params.describe(t); },
                            {}});  // no row-owned params type: the static above
}
// ---- end of the worked example ----

// A user's own switch: store and forward at one fixed latency, no queues and no
// serialization (an ideal crossbar), first equal-cost port. It keeps nothing of the
// built-in switch but the factory's interface.
class StoreForward : public sc_core::sc_module, public network::SwitchNode {
 public:
  using Target = tlm_utils::simple_target_socket_tagged<StoreForward>;
  using Initiator = tlm_utils::simple_initiator_socket_tagged<StoreForward>;
  StoreForward(sc_core::sc_module_name name, const network::SwitchBuild& b)
      : sc_module(name),
        b_(b),
        forwarded_(b.stats->counter(b.name + ".forwarded", "frame", "frames forwarded")) {
    const network::Topology& t = *b.topology;
    const size_t np = t.ports[b.node].size();
    frames_.assign(np, 0), bytes_.assign(np, 0), out_.resize(np);
    for (uint32_t k = 0; k < np; ++k) {
      rx_.push_back(std::make_unique<Target>(("rx_socket_" + std::to_string(k)).c_str()));
      tx_.push_back(std::make_unique<Initiator>(("tx_socket_" + std::to_string(k)).c_str()));
      rx_.back()->register_b_transport(this, &StoreForward::receive, static_cast<int>(k));
      const auto& l = t.links[t.ports[b.node][k].link];
      delay_.push_back(sc_core::sc_time(l.delay_ns + 100, sc_core::SC_NS));
    }
    SC_METHOD(send);
    sensitive << due_;
    dont_initialize();
  }
  sc_core::sc_module& module() override { return *this; }
  tlm::tlm_target_socket<>& rx(uint32_t port) override { return *rx_.at(port); }
  tlm::tlm_initiator_socket<>& tx(uint32_t port) override { return *tx_.at(port); }
  void apply_fault(const network::PortFault&) override {
    throw Error(msg::kConfig, std::string(name()) + ": store_forward takes no faults");
  }
  const std::vector<uint64_t>& port_frames_out() const override { return frames_; }
  const std::vector<uint64_t>& port_bytes_out() const override { return bytes_; }
  network::SwitchTotals totals() const override { return {}; }

 private:
  SC_HAS_PROCESS(StoreForward);
  void receive(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    const uint8_t* f = gp.get_data_ptr();
    const uint32_t len = gp.get_data_length();
    wire::PacketView v;
    wire::parse(f, len, v, false);
    const network::AddressMap& hosts = *b_.hosts;
    auto h = hosts.find({v.ip_version, v.dst_ip});
    if (!v.ip_version || h == hosts.end()) return;  // not routable: dropped
    const std::vector<uint32_t>& ports = b_.routes->next_ports(b_.node, h->second);
    if (ports.empty()) return;
    const uint32_t out = ports.front();
    out_[out].push_back({sc_core::sc_time_stamp() + delay_[out], {f, f + len}});
    due_.notify(delay_[out]);
  }
  void send() {  // every frame now due, port by port, in arrival order
    for (uint32_t k = 0; k < out_.size(); ++k)
      while (!out_[k].empty() && out_[k].front().at <= sc_core::sc_time_stamp()) {
        std::vector<uint8_t> f = std::move(out_[k].front().bytes);
        out_[k].pop_front();
        ++frames_[k], bytes_[k] += f.size();
        forwarded_.inc();
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_data_ptr(f.data());
        gp.set_data_length(static_cast<unsigned>(f.size()));
        gp.set_streaming_width(static_cast<unsigned>(f.size()));
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        (*tx_[k])->b_transport(gp, d);
      }
  }
  struct Pending {
    sc_core::sc_time at;
    std::vector<uint8_t> bytes;
  };
  network::SwitchBuild b_;
  Counter& forwarded_;
  std::vector<std::unique_ptr<Target>> rx_;
  std::vector<std::unique_ptr<Initiator>> tx_;
  std::vector<sc_core::sc_time> delay_;
  std::vector<std::deque<Pending>> out_;
  sc_core::sc_event_queue due_;
  std::vector<uint64_t> frames_, bytes_;
};

// Four hosts on two ToRs joined by two spines; a permutation of 256 KB WRITEs.
std::string small_fabric(const std::string& dir, const std::string& extra) {
  const std::string path = dir + "/fabric.yaml";
  std::ofstream(path) << "topology: {kind: kpaths, paths: 2, hosts_per_leaf: 2}\n"
                         "flows: {pattern: permutation, arrival: once, bytes: 256K}\n"
                         "nic: {pmtu_bytes: 1024}\n"
                      << extra;
  return path;
}

nlohmann::json run(const std::string& extra, int* status) {
  const std::string dir = scratch_dir();
  b2b::RunOptions o;
  o.config = small_fabric(dir, extra);
  o.out = dir + "/out";
  o.quiet = true;
  *status = system::run(*fabric::make_job(o));
  return nlohmann::json::parse(read_file(o.out + "/stats.json"))["stats"];
}

double sum(const nlohmann::json& stats, const std::string& suffix) {
  double s = 0;
  for (const auto& [k, v] : stats.items())
    if (k.size() > suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
      s += v["value"].get<double>();
  return s;
}

TEST(SwitchPlugins, HookDropsEveryNthFrameAndTheFabricRecovers) {
  add_drop_nth_row();
  int status = -1;
  const nlohmann::json s = run("switch: {drop_nth: {n: 50}}\n", &status);
  EXPECT_EQ(status, 0);  // every flow completed, host memory equals what was sent
  const double dropped = sum(s, ".drop_nth.dropped");
  // 256 packets a flow, 4 flows, each admitted by its ToRs and a spine (3 switches on a
  // path across, 1 within a ToR): at least 4 x floor(256 / 50) drops.
  EXPECT_GE(dropped, 4 * 5);
  // Every dropped data frame is sent again.
  EXPECT_GE(sum(s, ".nic.tx.qp_manager.retransmitted"), dropped);
  EXPECT_EQ(sum(s, ".lost") + sum(s, ".fault_lost"), 0);  // the hook is the only loss
}

TEST(SwitchPlugins, HookOffByItsOwnParameter) {
  add_drop_nth_row();
  int status = -1;
  const nlohmann::json s = run("", &status);
  EXPECT_EQ(status, 0);
  EXPECT_FALSE(s.contains("tor0.drop_nth.dropped"));  // n = 0: no hook built
  EXPECT_EQ(sum(s, ".nic.tx.qp_manager.retransmitted"), 0);
}

TEST(SwitchPlugins, UserSwitchModelBindsThroughTheFactory) {
  network::add_switch_model(
      {"store_forward", "an ideal crossbar (test)",
       [](const network::SwitchBuild& b) -> std::unique_ptr<network::SwitchNode> {
         return std::make_unique<StoreForward>(b.name.c_str(), b);
       }});
  int status = -1;
  const nlohmann::json s = run("switch: {model: store_forward}\n", &status);
  EXPECT_EQ(status, 0);
  // Every switch is the user's: the built-in one's stats are absent.
  EXPECT_FALSE(s.contains("tor0.frames_in"));
  EXPECT_GT(s["tor0.forwarded"]["value"].get<double>(), 4 * 256);
  EXPECT_GT(
      s["spine0.forwarded"]["value"].get<double>() + s["spine1.forwarded"]["value"].get<double>(),
      0);
}

TEST(SwitchPlugins, UnknownSwitchModelIsAConfigErrorNamingTheKey) {
  int status = -1;
  const std::string dir = scratch_dir();
  b2b::RunOptions o;
  o.config = small_fabric(dir, "switch: {model: nonesuch}\n");
  o.out = dir + "/out";
  o.quiet = true;
  try {
    status = system::run(*fabric::make_job(o));
    FAIL() << "ran with status " << status;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("switch.model: no switch model 'nonesuch'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace oonic::test
