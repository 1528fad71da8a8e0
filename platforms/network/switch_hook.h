// The switch pipeline's plug-in seam (docs/DESIGN.md "The switch pipeline"). A frame
// crosses a switch (platforms/network/switch.h) through fixed stages; at each named
// point the switch calls every hook that implements it, in registry order:
//
//   arrival:   ingress    (before parsing: may take the frame, e.g. a PFC PAUSE)
//              [route: destination address -> egress port, PathSelect]
//              admission  (routed, before the buffer: may take it, e.g. THEMIS holding it)
//              [buffer: SwitchCore::enqueue, the MMU's admission and PFC accounting]
//              buffered   (the buffer's answer, taken or not: e.g. an XOFF to send)
//              mark       (MarkPoint::kEnqueue, frames taken: e.g. RED decides CE)
//              [CE written into the frame; queue observers]
//   departure: [SwitchCore::start_next]
//              mark       (MarkPoint::kDequeue)
//              [CE written; port counters; queue observers]
//              dequeued   (the departure: e.g. an XON to send)
//              egress     (the frame on the wire: may lose it, e.g. faults, random loss)
//              [the far end gets it after the link's delay]
//   timers:    timer      (a time the hook booked with SwitchPipe::book)
//   faults:    fault      (faults.file's events for a port of this switch)
//
// A feature is one hook class plus one row in switch_hook_registry() (hooks/*.cpp):
// the row's make() builds it for a switch (or returns nothing when the feature is
// off there), its describe() adds its own parameters to the run's table.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/core/params.h"
#include "model/core/plugin_params.h"
#include "model/core/stats.h"
#include "model/sender/dcqcn.h"
#include "platforms/network/path_select.h"
#include "platforms/network/switch_core.h"
#include "platforms/network/themis.h"
#include "platforms/network/topology.h"
#include "tlm/net_packet.h"

namespace oonic::wire {
struct PacketView;
}

namespace oonic::network {

// Host addresses: (IP version, address bytes, IPv4 in the first 4) -> host node.
using AddressMap = std::map<std::pair<uint8_t, std::array<uint8_t, 16>>, uint32_t>;

// A frame inside the pipeline.
struct PipeFrame {
  uint32_t slot = 0;  // its bytes: SwitchPipe::bytes(slot); SwitchCore's tag
  uint32_t out_port = 0;
  SwitchCore::Frame fr;  // as the buffer sees it (len, prio, ECT, in_port)
  // Parsed headers, at admission and at the mark at enqueue of the same arrival only
  // (null for a frame a hook puts back with SwitchPipe::enqueue, at departure, and when
  // no hook of the switch reads_view()); its tos is the frame's as it arrived.
  const wire::PacketView* view = nullptr;
  bool roce = false;  // a RoCEv2 frame (BTH parsed); set on arrival only
  bool ce = false;    // mark stage: write CE into the frame
  // THEMIS's note from its admission to its mark at enqueue (one arrival); a user hook
  // that needs a note of its own keeps it in the hook, by slot.
  uint32_t scratch = 0;
};

enum class MarkPoint : uint8_t { kEnqueue, kDequeue };

// A fault (faults.file) on one egress port of the switch.
struct PortFault {
  enum class Kind : uint8_t { kRate, kDown, kUp, kLoss, kEcn, kPsnRule };
  Kind kind = Kind::kRate;
  uint32_t port = 0;
  double value = 0;       // kRate: Gbit/s; kLoss: probability
  uint64_t a = 0, b = 0;  // kEcn: kmin, kmax bytes; kPsnRule: n, r
  bool ip_id = false;     // kPsnRule: on the IPv4 identification
};

// What a switch offers its hooks.
class SwitchPipe {
 public:
  virtual ~SwitchPipe() = default;
  virtual const char* pipe_name() const = 0;
  virtual SwitchCore& buffer() = 0;  // queues, MMU, serialization
  virtual uint32_t node() const = 0;
  virtual const std::array<uint8_t, 6>& mac() const = 0;
  // The frame's bytes, to read or write (the switch describes it again afterwards).
  virtual std::vector<uint8_t>& bytes(uint32_t slot) = 0;
  // What the pipeline reads of the frame (tlm/net_packet.h), without touching its bytes.
  virtual const FrameDesc& desc(uint32_t slot) = 0;
  virtual void release(uint32_t slot) = 0;
  // A frame the switch makes out of port at its next frame boundary, ahead of the
  // queues (egress hooks see it with control = true); returns its first byte's time.
  virtual uint64_t send_ahead(uint32_t port, const uint8_t* f, uint32_t len, uint64_t now) = 0;
  // Calls hook->timer(arg, t) at t (ps).
  virtual void book(class SwitchHook* hook, uint64_t t, uint32_t arg) = 0;
  // A frame a hook took at admission goes on into the buffer (buffered, mark, ...).
  virtual void enqueue(PipeFrame& f, uint64_t now) = 0;
  // The port may start a frame (its pauses changed).
  virtual void wake_port(uint32_t port, uint64_t now) = 0;
  // The host with this address (4 or 16 bytes of ip, by version); nullopt: none.
  virtual std::optional<uint32_t> host_of(uint8_t ip_version, const uint8_t* ip) const = 0;
  // The egress port towards host for a frame of 5-tuple key; nullopt: no route.
  virtual std::optional<uint32_t> port_to_host(const FlowKey& key, uint32_t host, uint64_t now) = 0;
  // PFC observers (pfc.csv): a PAUSE sent (at its first byte) or received.
  virtual void pfc_seen(uint64_t ps, uint32_t port, uint8_t prio, uint32_t quanta, bool sent) = 0;
};

class SwitchHook {
 public:
  enum Stage : uint32_t {
    kIngress = 1,
    kAdmission = 2,
    kBuffered = 4,
    kMark = 8,
    kDequeued = 16,
    kEgress = 32,
    kFault = 64,
  };
  virtual ~SwitchHook() = default;
  // A hook may book timers once built (not from its constructor); what it keeps of the
  // SwitchBuild it was made from, it copies.
  // The stages this hook implements (a mask of Stage): the switch calls only those.
  virtual uint32_t stages() const = 0;
  // Whether it reads PipeFrame::view (the frame's parsed headers at admission and at the
  // mark at enqueue); a switch whose hooks do not parses no frame's bytes.
  virtual bool reads_view() const { return true; }
  // A frame (slot) arrived on port. true: the hook took it (and released the slot).
  virtual bool ingress(uint32_t /*port*/, uint32_t /*slot*/, uint64_t /*now*/) { return false; }
  // A routed frame arriving on f.fr.in_port for f.out_port. true: the hook took it.
  virtual bool admission(PipeFrame& /*f*/, uint64_t /*now*/) { return false; }
  virtual void buffered(PipeFrame& /*f*/, const SwitchCore::Admit& /*a*/, uint64_t /*now*/) {}
  // Set or clear f.ce. queue_bytes: the frame's queue before it (kEnqueue) or left
  // behind it (kDequeue).
  virtual void mark(PipeFrame& /*f*/, MarkPoint /*at*/, uint64_t /*queue_bytes*/,
                    uint64_t /*now*/) {}
  virtual void dequeued(PipeFrame& /*f*/, const SwitchCore::Departure& /*d*/, uint64_t /*now*/) {}
  // The frame (slot) goes onto port's wire. true: lost there (the switch releases it).
  // control: a frame the switch made (PFC, a THEMIS CNP).
  virtual bool egress(uint32_t /*port*/, uint32_t /*slot*/, uint8_t /*prio*/, bool /*control*/,
                      uint64_t /*now*/) {
    return false;
  }
  // A time the hook booked (at, ps) has come (now >= at).
  virtual void timer(uint32_t /*arg*/, uint64_t /*at*/, uint64_t /*now*/) {}
  // true: this hook applied the fault.
  virtual bool fault(const PortFault& /*f*/) { return false; }
};

// An inter-DC flow as the fabric set it up: the data sender's and receiver's IPv4
// addresses, the UDP source port both directions use, and the sender's QPN (what a
// CNP to it names).
struct ThemisFlow {
  uint32_t sender_ip = 0, receiver_ip = 0;
  uint16_t sport = 0;
  uint32_t sender_qpn = 0;
};

// THEMIS on this switch (a DC's external switch), when the fabric asks for it.
struct ThemisSetup {
  const ThemisParams* params = nullptr;
  const sender::DcqcnParams* dcqcn = nullptr;
  uint32_t wan_port = 0;  // the long-haul port
  uint64_t rtt_ps = 0;    // twice the long haul's delay
  // The inter-DC flows (themis.np_flows table fills the notification point's table
  // from them); null: none known.
  const std::vector<ThemisFlow>* flows = nullptr;
};

// Everything a switch (the built-in one or a user's) is built from.
struct SwitchBuild {
  std::string name;
  const SwitchParams* sp = nullptr;
  const RoutingParams* rp = nullptr;
  const Topology* topology = nullptr;
  const Routes* routes = nullptr;
  uint32_t node = 0;  // this switch in topology
  const AddressMap* hosts = nullptr;
  uint64_t seed = 1;
  Stats* stats = nullptr;
  std::optional<ThemisSetup> themis;
  // The hosts' rate core sends INT stacks (tx.rate hpcc): switch.int_stamp auto turns on.
  bool senders_int = false;
  // Switch node of t named after it, without THEMIS.
  static SwitchBuild of(const SwitchParams& sp, const RoutingParams& rp, const Topology& t,
                        const Routes& routes, uint32_t node, const AddressMap& hosts, uint64_t seed,
                        Stats& stats) {
    SwitchBuild b;
    b.name = t.nodes[node].name;
    b.sp = &sp, b.rp = &rp, b.topology = &t, b.routes = &routes, b.node = node;
    b.hosts = &hosts, b.seed = seed, b.stats = &stats;
    return b;
  }
};

struct SwitchHookRow {
  const char* name;
  const char* doc;  // one line: what the hook does
  // The hook for this switch, or null when the feature is off there.
  std::function<std::unique_ptr<SwitchHook>(SwitchPipe&, const SwitchBuild&)> make;
  // The hook's own parameters (optional): added to the run's table. A user's row may keep
  // them in a static it describes here...
  std::function<void(ParamTable&)> describe;
  // ...or name a params type: SwitchParams::hooks holds one per row, by value (a copy of
  // the switch's params copies them); make() finds them in b.sp->hooks by the row's name.
  std::function<std::unique_ptr<PluginParams>()> params;
};

// Built-in rows first (pfc, red_ecn, themis, int_stamp, port_faults, wire_loss, trim), then
// those added.
std::vector<SwitchHookRow>& switch_hook_registry();
// Adds a row (before the switches are built); throws Error(kConfig) on a name in use.
void add_switch_hook(SwitchHookRow row);
// Every row's describe() into t.
void describe_switch_hooks(ParamTable& t);

}  // namespace oonic::network
