// An ORNIC NIC (Figure 1) as a SystemC module: RX, Control and TX planes, the
// DMA Engine and the QP context table, between a network port and a DMA port.
//   mac_rx_socket         TLM target: frames arriving from the network
//   mac_tx_socket         TLM initiator: frames the NIC sends
//   dma_initiator_socket  TLM initiator: to the PCIe link / host memory
//   reg_socket            TLM target: the host's register bus (Register Manager)
// The receive path runs in the caller's thread when a frame arrives: each block
// books its whole schedule for the packet at that moment (see README "Timing
// model"), so a packet costs no process wake inside the NIC; the TX arbiter is
// the one process that wakes, when booked work falls due or the MAC frees.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/clock.h"
#include "model/eunomia/sender_agent.h"
#include "model/ornic/agenda.h"
#include "model/ornic/block_env.h"
#include "model/ornic/control/cqe_manager.h"
#include "model/ornic/control/req_manager.h"
#include "model/ornic/control/rsp_manager.h"
#include "model/ornic/dma_engine.h"
#include "model/ornic/packet_log.h"
#include "model/ornic/qp_context.h"
#include "model/ornic/register_manager.h"
#include "model/ornic/rx/bitmap_manager.h"
#include "model/ornic/rx/pkt_buffer.h"
#include "model/ornic/rx/req_processor.h"
#include "model/ornic/rx/rsp_processor.h"
#include "model/ornic/rx/rx_parser.h"
#include "model/ornic/tx/hdr_generator.h"
#include "model/ornic/tx/qp_manager.h"
#include "model/ornic/tx/tx_arbiter.h"

namespace oonic::ornic {

class ControlPlane : public sc_core::sc_module {
 public:
  ReqManager req_manager;
  CqeManager cqe_manager;
  RspManager rsp_manager;
  ControlPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps, DmaEngine& dma,
               Agenda& agenda)
      : sc_module(n),
        req_manager("req_manager", env, qps, dma),
        cqe_manager("cqe_manager", env, qps, dma),
        rsp_manager("rsp_manager", env, qps, agenda, cqe_manager) {}
};

class TxPlane : public sc_core::sc_module {
 public:
  HdrGenerator hdr_generator;
  QpManager qp_manager;
  TxArbiter arbiter;
  // Eunomia's sender-side agent (nic.ordering eunomia only; window = the QP Manager's
  // max_inflight_psns).
  std::unique_ptr<eunomia::SenderAgent> sender_agent;
  TxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps, RegisterFile& regs,
          DmaEngine& dma, Agenda& agenda, ReqManager& rm)
      : sc_module(n),
        hdr_generator("hdr_generator", env),
        qp_manager("qp_manager", env, qps, regs, dma, hdr_generator, agenda),
        arbiter("arbiter", env, agenda, rm, qp_manager, hdr_generator),
        sender_agent(env.p.nic.ordering == "eunomia"
                         ? std::make_unique<eunomia::SenderAgent>(
                               "sender_agent", env, env.p.qp_manager.max_inflight_psns)
                         : nullptr) {}
};

class RxPlane : public sc_core::sc_module {
 public:
  Sram req_pkt_sram, req_hdr_sram, rsp_pkt_sram, rsp_hdr_sram;
  PktBuffer req_pkt_buffer, req_hdr_buffer, rsp_pkt_buffer, rsp_hdr_buffer;
  RxParser parser;
  BitmapManager bitmap_manager;
  ReqProcessor req_processor;
  RspProcessor rsp_processor;
  RxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps, DmaEngine& dma,
          ReqManager& req_manager);
};

class OrnicNic : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<OrnicNic> mac_rx_socket;
  tlm_utils::simple_initiator_socket<OrnicNic> mac_tx_socket;
  tlm::tlm_initiator_socket<> dma_initiator_socket;
  // The Register Manager's, for the host's register bus (may stay unbound).
  tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>
      reg_socket;

  OrnicNic(sc_core::sc_module_name name, const OrnicParams& p, Stats& stats, Vcd* vcd);

  // QP setup (the Register Manager's job once it exists; here a backdoor used
  // by platforms before the simulation starts). Returns the context index.
  uint32_t add_qp(const QpContext& ctx);
  void add_read_wqe(uint32_t qpn, const ReadWqe& rw);
  void set_packet_log(PacketLog* log) { log_ = log; }
  // Called with every packet's record (testbenches).
  void set_packet_observer(std::function<void(const PacketRecord&)> f) { observer_ = std::move(f); }
  PacketLog* packet_log() { return log_; }

  // Every SRAM instance of the NIC, for reports.
  std::vector<Sram*> srams();
  const ClockDomain& clock() const { return clk_; }
  const OrnicParams& params() const { return p_; }
  QpContextTable& qps() { return qps_; }
  // Last cycle with activity (arrival processed, DMA done, frame sent).
  Cycle last_activity() const;
  uint64_t payload_bytes_placed() const;
  const Counter& drops(Drop d) const { return *drops_[static_cast<size_t>(d)]; }
  uint64_t drops_total() const;
  RxPlane& rx() { return rx_; }
  RegisterManager& register_manager() { return register_manager_; }
  ControlPlane& control() { return control_; }
  TxPlane& tx() { return tx_; }

 private:
  void mac_rx(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void send_frame(Cycle start, const uint8_t* frame, size_t len);

  OrnicParams p_;
  ClockDomain clk_;
  BlockEnv env_;
  Sram qp_ctx_sram_;
  QpContextTable qps_;
  RegisterManager register_manager_;
  DmaEngine dma_;
  Agenda agenda_;
  ControlPlane control_;
  RxPlane rx_;
  TxPlane tx_;
  PacketLog* log_ = nullptr;
  std::function<void(const PacketRecord&)> observer_;
  std::vector<Counter*> drops_;
  Counter accepted_frames_;  // frames with no drop (not a registered stat)
  Counter& frames_in_;
  Counter& frames_out_;
  wire::PacketView view_;
  tlm::tlm_generic_payload tx_gp_;
  Cycle last_rx_ = 0;
  uint32_t rx_count_ = 0;
};

}  // namespace oonic::ornic
