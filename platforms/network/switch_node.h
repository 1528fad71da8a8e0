// What a fabric needs of a switch, and the factory that makes one. The fabric
// (platforms/fabric/) holds every switch as a SwitchNode, made by the row of
// switch_model_registry() that `switch.model` names; the built-in row "pipeline" is
// network::Switch (platforms/network/switch.h). A user's own switch module implements
// SwitchNode, registers a row with add_switch_model() before the run, and binds where
// the built-in one does (testbench/systemc/test_switch_plugins.cpp shows one).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "platforms/network/switch_hook.h"

namespace oonic::network {

// A priority of a port that holds traffic (the stall watchdog's report).
struct PortHold {
  uint32_t port = 0;
  uint8_t prio = 0;
  uint64_t paused_until_ps = 0;  // paused by the downstream device until (0: not)
  uint64_t queued_bytes = 0;
  bool xoff = false;           // this switch holds XOFF towards the port's upstream
  uint64_t ingress_bytes = 0;  // bytes from that upstream held here
};

// End-of-run figures the fabric's summary adds up over switches.
struct SwitchTotals {
  uint64_t marked = 0, drops = 0, lost = 0, fault_lost = 0, xoff_sent = 0, xon_sent = 0;
};

class SwitchNode {
 public:
  virtual ~SwitchNode() = default;
  virtual sc_core::sc_module& module() = 0;
  // Frames arriving on port k (TLM target) and leaving it (TLM initiator), as
  // switch.h describes for the built-in switch.
  virtual tlm::tlm_target_socket<>& rx(uint32_t port) = 0;
  virtual tlm::tlm_initiator_socket<>& tx(uint32_t port) = 0;
  // A fault on an egress port. Throws Error(kConfig) when the switch cannot apply it.
  virtual void apply_fault(const PortFault& f) = 0;
  // Frames and bytes (without FCS) that left each port, lost ones included.
  virtual const std::vector<uint64_t>& port_frames_out() const = 0;
  virtual const std::vector<uint64_t>& port_bytes_out() const = 0;
  virtual SwitchTotals totals() const = 0;
  // Port priorities paused or holding XOFF now.
  virtual std::vector<PortHold> holds(uint64_t /*now_ps*/) const { return {}; }
  // Observers (switch.h); a switch without queues or PFC never calls them.
  using QueueFn = std::function<void(uint64_t ps, uint32_t port, uint64_t bytes)>;
  using PfcFn =
      std::function<void(uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool sent)>;
  using DeliverFn = std::function<void(uint32_t port, uint64_t ps, const uint8_t* f, size_t n)>;
  virtual void on_queue(QueueFn) {}
  virtual void on_pfc(PfcFn) {}
  virtual void on_deliver(DeliverFn) {}
  // Called for every frame lost as it leaves a port (random loss, a fault), before the
  // switch lets it go (the per-flow loss counts of fct.csv).
  virtual void on_lost(DeliverFn) {}
};

using SwitchMaker = std::function<std::unique_ptr<SwitchNode>(const SwitchBuild&)>;
struct SwitchModelRow {
  std::string name;
  std::string doc;
  SwitchMaker make;
};
// "pipeline" (network::Switch) first, then those added.
const std::vector<SwitchModelRow>& switch_model_registry();
// Adds a row; throws Error(kConfig) on a name in use.
void add_switch_model(SwitchModelRow row);
// The row `switch.model` names; throws Error(kConfig) naming the key on an unknown one.
const SwitchModelRow& check_switch_model(const std::string& model);
// The switch `switch.model` names; throws Error(kConfig) naming the key on an unknown one.
std::unique_ptr<SwitchNode> make_switch(const std::string& model, const SwitchBuild& b);

}  // namespace oonic::network
