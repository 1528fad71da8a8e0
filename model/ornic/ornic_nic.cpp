#include "model/ornic/ornic_nic.h"

#include <algorithm>

#include "model/core/error.h"
#include "tlm/net_packet.h"

namespace oonic::ornic {

RxPlane::RxPlane(sc_core::sc_module_name n, const BlockEnv& env, QpContextTable& qps,
                 DmaEngine& dma, ReqManager& req_manager)
    : sc_module(n),
      req_pkt_sram("rx.req_pkt_buffer", env.p.sram.req_pkt_buffer, env.stats,
                   env.sram_stat("rx.req_pkt_buffer")),
      req_hdr_sram("rx.req_hdr_buffer", env.p.sram.req_hdr_buffer, env.stats,
                   env.sram_stat("rx.req_hdr_buffer")),
      rsp_pkt_sram("rx.rsp_pkt_buffer", env.p.sram.rsp_pkt_buffer, env.stats,
                   env.sram_stat("rx.rsp_pkt_buffer")),
      rsp_hdr_sram("rx.rsp_hdr_buffer", env.p.sram.rsp_hdr_buffer, env.stats,
                   env.sram_stat("rx.rsp_hdr_buffer")),
      req_pkt_buffer(&req_pkt_sram),
      req_hdr_buffer(&req_hdr_sram),
      rsp_pkt_buffer(&rsp_pkt_sram),
      rsp_hdr_buffer(&rsp_hdr_sram),
      parser("parser", env,
             RxBuffers{req_pkt_buffer, req_hdr_buffer, rsp_pkt_buffer, rsp_hdr_buffer}),
      bitmap_manager("bitmap_manager", env),
      req_processor("req_processor", env, qps, bitmap_manager, dma, req_manager, req_hdr_buffer,
                    req_pkt_buffer),
      rsp_processor("rsp_processor", env, qps, bitmap_manager, dma, rsp_hdr_buffer,
                    rsp_pkt_buffer) {}

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
      register_manager_("register_manager", env_),
      dma_("dma", env_),
      control_("control", env_, qps_, dma_, agenda_),
      rx_("rx", env_, qps_, dma_, control_.req_manager),
      tx_("tx", env_, qps_, register_manager_.registers(), dma_, agenda_, control_.req_manager),
      frames_in_(stats.counter(std::string(this->name()) + ".mac.frames_in", "frame",
                               "frames received from the network")),
      frames_out_(stats.counter(std::string(this->name()) + ".mac.frames_out", "frame",
                                "frames sent to the network")) {
  mac_rx_socket.register_b_transport(this, &OrnicNic::mac_rx);
  dma_.dma_initiator_socket.bind(dma_initiator_socket);
  reg_socket.bind(register_manager_.reg_socket);
  control_.req_manager.set_hdr_generator(&tx_.hdr_generator);
  control_.cqe_manager.set_qp_manager(&tx_.qp_manager);
  control_.rsp_manager.connect(&tx_.qp_manager, &rx_.bitmap_manager);
  tx_.qp_manager.set_cqe_manager(&control_.cqe_manager);
  tx_.qp_manager.set_rsp_manager(&control_.rsp_manager);
  tx_.qp_manager.set_sender_agent(tx_.sender_agent.get());
  control_.rsp_manager.set_sender_agent(tx_.sender_agent.get());
  rx_.rsp_processor.set_requester(&control_.rsp_manager);
  register_manager_.on_write([this](Cycle t, uint32_t addr, uint32_t value) {
    if (addr < kQpBase) return;
    uint32_t qi = (addr - kQpBase) / kQpStride;
    if ((addr - kQpBase) % kQpStride == def(QpReg::kSqDoorbell).offset)
      tx_.qp_manager.doorbell(t, qi, value);
  });
  tx_.hdr_generator.set_sink(
      [this](Cycle start, const uint8_t* f, size_t len) { send_frame(start, f, len); });
  drops_.push_back(&accepted_frames_);  // Drop::kNone
  for (size_t i = 1; i < static_cast<size_t>(Drop::kCount); ++i) {
    Drop d = static_cast<Drop>(i);
    drops_.push_back(&stats.counter(std::string(this->name()) + ".rx.drops." + drop_name(d),
                                    "frame", "frames dropped for this reason (README: drops)"));
  }
  std::string n = this->name();
  stats.derived(n + ".rx.drops.total", "frame", "frames dropped for any reason but duplicate",
                [this] { return static_cast<double>(drops_total()); });
}

uint32_t OrnicNic::add_qp(const QpContext& ctx) {
  QpContext c = ctx;
  if (!c.pmtu) c.pmtu = p_.nic.pmtu_bytes;
  if (!c.otd) c.otd = p_.nic.otd;
  // The QP's slot of the ACKed-PSN memory is live from now on.
  control_.req_manager.acked_psn_mem().occupy(
      0, control_.req_manager.acked_psn_mem().params().width_bits);
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
           {&qp_ctx_sram_, &control_.req_manager.acked_psn_mem(), &tx_.qp_manager.wqe_cache()});
  return v;
}

Cycle OrnicNic::last_activity() const {
  return std::max({last_rx_, rx_.req_processor.last_dma_done(), rx_.rsp_processor.last_dma_done(),
                   control_.req_manager.last_activity(), control_.cqe_manager.last_activity(),
                   tx_.qp_manager.last_activity()});
}

uint64_t OrnicNic::payload_bytes_placed() const {
  return rx_.req_processor.payload_bytes_accepted() + rx_.rsp_processor.payload_bytes_accepted();
}

uint64_t OrnicNic::drops_total() const {
  uint64_t n = 0;
  for (size_t i = 1; i < drops_.size(); ++i)
    if (static_cast<Drop>(i) != Drop::kDuplicate) n += drops_[i]->value;
  return n;
}

void OrnicNic::mac_rx(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  frames_in_.inc();
  Cycle a = clk_.now() + clk_.ceil_cycles(ClockDomain::ps_of(delay));
  PacketRecord rec;
  auto* meta = gp.get_extension<NetPacketMeta>();
  rec.index = meta ? meta->record : ++rx_count_;
  rec.arrival = a;
  RxParser::Result r = rx_.parser.receive(a, gp.get_data_ptr(), gp.get_data_length(), view_);
  rec.parsed = r.ready;
  if (r.drop != Drop::kNone) {
    rec.verdict = "dropped";
    rec.drop = r.drop;
    if (r.drop == Drop::kBadIcrc || r.drop == Drop::kUdOrCnp || r.drop >= Drop::kReqPktBufferFull) {
      rec.opcode = view_.bth.opcode, rec.qpn = view_.bth.dest_qp, rec.psn = view_.bth.psn;
      rec.payload = view_.payload_len;
    }
  } else {
    rec.opcode = view_.bth.opcode, rec.qpn = view_.bth.dest_qp, rec.psn = view_.bth.psn;
    rec.payload = view_.payload_len;
    if (r.request)
      rx_.req_processor.process(r.ready, view_, rec);
    else
      rx_.rsp_processor.process(r.ready, view_, rec);
  }
  drops_[static_cast<size_t>(rec.drop)]->inc();
  last_rx_ = std::max({last_rx_, rec.parsed, rec.processed, rec.dma_done});
  if (log_) log_->write(rec);
  if (observer_) observer_(rec);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void OrnicNic::send_frame(Cycle start, const uint8_t* frame, size_t len) {
  frames_out_.inc();
  tx_gp_.set_command(tlm::TLM_WRITE_COMMAND);
  tx_gp_.set_address(0);
  tx_gp_.set_data_ptr(const_cast<uint8_t*>(frame));
  tx_gp_.set_data_length(static_cast<unsigned>(len));
  tx_gp_.set_streaming_width(static_cast<unsigned>(len));
  tx_gp_.set_byte_enable_ptr(nullptr);
  tx_gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time d = clk_.until(start);
  mac_tx_socket->b_transport(tx_gp_, d);
}

}  // namespace oonic::ornic
