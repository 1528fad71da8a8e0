// Control plane: the Req Manager block (shell). It owns the ACKed-PSN memory
// (`control.acked_psn_mem`) and, with UET's receivers, the UET NACK register's entries
// (`control.uet_nack_register`: 40 bits an entry, its PSN and entropy value; NACKs of
// one kind, TRIMMED or PSN_OUT_OF_WINDOW, share a frame;
// control.req_manager.uet_nack_depth a QP, for nic.max_qps QPs; its geometry follows those
// two keys); the register-schedulers are in req_manager_core.h.
#pragma once

#include <memory>
#include <systemc>

#include "model/ornic/block_env.h"
#include "model/ornic/control/req_manager_core.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

class ReqManager : public sc_core::sc_module {
 public:
  ReqManager(sc_core::sc_module_name name, const BlockEnv& env, const QpContextTable& qps,
             DmaPort& dma)
      : sc_module(name),
        acked_psn_mem("control.acked_psn_mem", env.p.sram.acked_psn_mem, env.stats,
                      env.sram_stat("control.acked_psn_mem")),
        uet_nack_mem(env.p.uet_acks() ? std::make_unique<Sram>(
                                            "control.uet_nack_register", uet_nack_geometry(env.p),
                                            env.stats, env.sram_stat("control.uet_nack_register"))
                                      : nullptr),
        core(core_env(env, this->name()), qps, acked_psn_mem, dma, uet_nack_mem.get()) {}
  static SramParams uet_nack_geometry(const OrnicParams& p) {
    SramParams g;
    g.width_bits = ReqManagerCore::kUetNackEntryBits;
    g.depth = p.nic.max_qps * p.req_manager.uet_nack_depth;
    g.ports = "1R1W";
    g.read_latency = 1;
    return g;
  }
  Sram acked_psn_mem;
  std::unique_ptr<Sram> uet_nack_mem;  // UET's receivers only
  ReqManagerCore core;
};

}  // namespace oonic::ornic
