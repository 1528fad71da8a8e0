#include "model/ornic/ornic_nic.h"

#include <algorithm>

#include "model/core/error.h"
#include "model/schemes/receive_schemes.h"

namespace oonic::ornic {

namespace {
OrnicParams checked(const OrnicParams& p) {
  p.validate();
  return p;
}
}  // namespace

OrnicNic::OrnicNic(sc_core::sc_module_name name, const OrnicParams& p, Stats& stats, Vcd* vcd)
    : sc_module(name),
      mac_rx_socket("mac_rx_socket"),
      mac_tx_socket("mac_tx_socket"),
      dma_initiator_socket("dma_initiator_socket"),
      reg_socket("reg_socket"),
      p_(checked(p)),
      clk_(p.nic.clock_mhz),
      env_{p_, stats, vcd, std::string(this->name())},
      qp_ctx_sram_("qp.context", p_.sram.qp_context, stats, env_.sram_stat("qp.context")),
      qps_(&qp_ctx_sram_, p_.nic.max_qps),
      cc_ctx_sram_(sender::find_rate(p_.rate()).context
                       ? std::make_unique<Sram>("cc.context", p_.sram.cc_context, stats,
                                                env_.sram_stat("cc.context"))
                       : nullptr),
      policy_(sender::make_sender_policy(
          p_.recovery(), p_.rate(), StatGroup(stats, std::string(this->name()) + ".tx"),
          sender::PolicyEnv{p_.nic.max_qps, p_.window_psns(), p_.nic.clock_mhz, p_.mac.rate_gbps,
                            &p_.sender.rates, cc_ctx_sram_.get(), p_.nic.pmtu_bytes, &p_.sender.irn,
                            &p_.sender.uet, p_.uet_ordered()})),
      register_manager_("register_manager", env_),
      dma_("dma", env_),
      mac_("mac", env_),
      control_("control", env_, qps_, register_manager_.registers(), dma_.core, agenda_,
               *policy_.recovery, *policy_.rate),
      rx_("rx", env_, qps_, dma_.core, control_.req_manager.core, control_.rsp_manager.core,
          *policy_.rate, agenda_),
      tx_("tx", env_, qps_, register_manager_.registers(), dma_.core, agenda_, mac_.core,
          control_.cqe_manager.core, control_.rsp_manager.core, control_.req_manager.core,
          *policy_.recovery, *policy_.rate) {
  // Sockets: the blocks' own, bound by name.
  mac_rx_socket.bind(mac_.mac_rx_socket);
  mac_.mac_tx_socket.bind(mac_tx_socket);
  dma_.dma_initiator_socket.bind(dma_initiator_socket);
  reg_socket.bind(register_manager_.reg_socket);
  // The links that point at blocks built after their owner.
  agenda_.wake_port.bind(tx_.arbiter);
  mac_.rx_port.bind(rx_);
  mac_.tx_wake_port.bind(tx_.arbiter);
  control_.req_manager.core.hdr_generator_port.bind(tx_.hdr_generator.core);
  control_.req_manager.core.wake_port.bind(tx_.arbiter);
  control_.cqe_manager.core.send_queues_port.bind(tx_.qp_manager.core);
  control_.rsp_manager.core.send_queues_port.bind(tx_.qp_manager.core);
  control_.rsp_manager.core.bitmap_port.bind(rx_.bitmap_manager);
  register_manager_.on_write([this](Cycle t, uint32_t addr, uint32_t value) {
    if (addr < kQpBase) return;
    const uint32_t qi = (addr - kQpBase) / kQpStride;
    if ((addr - kQpBase) % kQpStride == def(QpReg::kSqDoorbell).offset)
      tx_.qp_manager.core.doorbell(t, qi, value);
  });
}

void OrnicNic::end_of_elaboration() {
  agenda_.wake_port.check();
  mac_.rx_port.check();
  mac_.tx_wake_port.check();
  control_.req_manager.core.hdr_generator_port.check();
  control_.req_manager.core.wake_port.check();
  control_.cqe_manager.core.send_queues_port.check();
  control_.rsp_manager.core.send_queues_port.check();
  control_.rsp_manager.core.bitmap_port.check();
}

uint32_t OrnicNic::add_qp(const QpContext& ctx) {
  QpContext c = ctx;
  if (!c.pmtu) c.pmtu = p_.nic.pmtu_bytes;
  if (!c.otd) c.otd = p_.nic.otd;
  // The QP's slot of the ACKed-PSN memory is live from now on.
  Sram& mem = control_.req_manager.acked_psn_mem;
  mem.occupy(0, mem.params().width_bits);
  return qps_.add(0, c);
}

void OrnicNic::add_read_wqe(uint32_t qpn, const ReadWqe& rw) {
  int64_t qi = qps_.find(qpn);
  if (qi < 0) throw Error(msg::kConfig, "READ for unknown QP " + std::to_string(qpn));
  QpContext& c = qps_.at(static_cast<uint32_t>(qi));
  ReadWqe r = rw;
  r.packets = std::max<uint32_t>(1, (rw.length + c.pmtu - 1) / c.pmtu);
  r.next_psn = rw.start_psn;
  c.reads.push_back(r);
}

std::vector<Sram*> OrnicNic::srams() {
  std::vector<Sram*> v = {&rx_.req_pkt_sram, &rx_.req_hdr_sram, &rx_.rsp_pkt_sram,
                          &rx_.rsp_hdr_sram};
  for (Sram* m : rx_.bitmap_manager.srams()) v.push_back(m);
  v.insert(v.end(),
           {&qp_ctx_sram_, &control_.req_manager.acked_psn_mem, &tx_.qp_manager.wqe_cache});
  if (cc_ctx_sram_) v.push_back(cc_ctx_sram_.get());
  if (control_.req_manager.uet_nack_mem) v.push_back(control_.req_manager.uet_nack_mem.get());
  return v;
}

Cycle OrnicNic::last_activity() const {
  return std::max({rx_.last_rx(), rx_.req_processor.core.last_dma_done(),
                   rx_.rsp_processor.core.last_dma_done(),
                   control_.req_manager.core.last_activity(),
                   control_.cqe_manager.core.last_activity(), tx_.qp_manager.core.last_activity()});
}

uint64_t OrnicNic::payload_bytes_placed() const {
  return rx_.req_processor.core.payload_bytes_accepted() +
         rx_.rsp_processor.core.payload_bytes_accepted();
}

}  // namespace oonic::ornic
