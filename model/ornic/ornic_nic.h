// An ORNIC NIC (Figure 1) as a SystemC module: the Register Manager, the DMA Engine,
// the MAC, the Control, RX and TX planes, the QP context table, and the sender policy
// of the transmit seam (docs/DESIGN.md "Seams"), between a network port and a DMA port.
//   mac_rx_socket         TLM target: frames arriving from the network (the MAC's)
//   mac_tx_socket         TLM initiator: frames the NIC sends (the MAC's)
//   dma_initiator_socket  TLM initiator: to the PCIe link / host memory (the DMA Engine's)
//   reg_socket            TLM target: the host's register bus (the Register Manager's)
// The blocks meet through the interfaces of block_interfaces.h, bound here once. The
// receive path runs in the caller's thread when a frame arrives: each block books its
// whole schedule for the packet at that moment (docs/DESIGN.md "Timing model"), so a
// packet costs no process wake inside the NIC; the TX arbiter is the one process that
// wakes, when booked work falls due or the MAC frees.
#pragma once

#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/clock.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/control/control_plane.h"
#include "model/ornic/dma_engine.h"
#include "model/ornic/mac.h"
#include "model/ornic/packet_log.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_manager.h"
#include "model/ornic/rx/rx_plane.h"
#include "model/ornic/tx/tx_plane.h"
#include "model/schemes/sender_policies.h"

namespace oonic::ornic {

class OrnicNic : public sc_core::sc_module {
 public:
  tlm::tlm_target_socket<> mac_rx_socket;
  tlm::tlm_initiator_socket<> mac_tx_socket;
  tlm::tlm_initiator_socket<> dma_initiator_socket;
  // The Register Manager's, for the host's register bus (may stay unbound).
  tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>
      reg_socket;

  OrnicNic(sc_core::sc_module_name name, const OrnicParams& p, Stats& stats, Vcd* vcd);

  // QP setup (the Register Manager's job once it exists; here a backdoor used
  // by platforms before the simulation starts). Returns the context index.
  uint32_t add_qp(const QpContext& ctx);
  void add_read_wqe(uint32_t qpn, const ReadWqe& rw);
  void set_packet_log(PacketLog* log) { rx_.set_packet_log(log); }
  // Called with every packet's record (testbenches, the fabric's arrival order);
  // each call adds an observer.
  void set_packet_observer(std::function<void(const PacketRecord&)> f) {
    rx_.set_packet_observer(std::move(f));
  }
  PacketLog* packet_log() { return rx_.packet_log(); }

  // Every SRAM instance of the NIC, for reports.
  std::vector<Sram*> srams();
  const ClockDomain& clock() const { return clk_; }
  const OrnicParams& params() const { return p_; }
  QpContextTable& qps() { return qps_; }
  // Last cycle with activity (arrival processed, DMA done, frame sent).
  Cycle last_activity() const;
  uint64_t payload_bytes_placed() const;
  const Counter& drops(Drop d) const { return rx_.drops(d); }
  uint64_t drops_total() const { return rx_.drops_total(); }
  RxPlane& rx() { return rx_; }
  const RxPlane& rx() const { return rx_; }
  RegisterManager& register_manager() { return register_manager_; }
  ControlPlane& control() { return control_; }
  TxPlane& tx() { return tx_; }
  const MacCore& mac() const { return mac_.core; }
  sender::LossRecovery& recovery() { return *policy_.recovery; }
  sender::RateControl& rate_control() { return *policy_.rate; }

 private:
  void end_of_elaboration() override;

  OrnicParams p_;
  ClockDomain clk_;
  BlockEnv env_;
  Sram qp_ctx_sram_;
  QpContextTable qps_;
  std::unique_ptr<Sram> cc_ctx_sram_;  // with a rate core that keeps per-QP state
  Agenda agenda_;
  sender::SenderPolicy policy_;
  RegisterManager register_manager_;
  DmaEngine dma_;
  Mac mac_;
  ControlPlane control_;
  RxPlane rx_;
  TxPlane tx_;
};

}  // namespace oonic::ornic
