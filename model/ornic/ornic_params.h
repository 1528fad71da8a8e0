// Parameters of an ORNIC NIC, one struct per block (Figure 1), each mapped to
// dotted keys by describe(). The member initializers are the defaults.
#pragma once

#include <string>

#include "model/core/params.h"
#include "model/core/plugin_params.h"
#include "model/schemes/sender_policies.h"
#include "model/sender/dcqcn.h"
#include "model/sram/sram.h"

namespace oonic::ornic {

struct NicParams {  // nic.*
  double clock_mhz = 250;
  uint32_t datapath_bytes = 64;
  std::string ordering = "ornic";
  uint32_t max_qps = 2048;
  uint32_t pmtu_bytes = 4096;
  uint32_t otd = 64;
  uint32_t trim_dscp = 16;           // a request with this DSCP was trimmed (switch.trim_dscp)
  uint32_t trim_dscp_last_hop = 18;  // or this one (switch.trim_dscp_last_hop)
  std::string wire = "auto";         // roce, uet, auto (uet for the UET schemes)
};

// mac.rate_gbps's range: a fabric's host links feed it, so they are held to it too.
inline constexpr double kMacRateMinGbps = 1, kMacRateMaxGbps = 1600;

struct MacParams {  // mac.*
  double rate_gbps = 100;
};

struct RxParserParams {  // rx.parser.*
  uint32_t latency = 4;
  bool check_icrc = true;
};

struct ReqProcessorParams {  // rx.req_processor.*
  uint32_t ii_cycles = 4;
  uint32_t check_cycles = 1;
  std::string ack_policy = "every";
  bool seq_nak = true;  // send the PSN-sequence NAK (false: silent drop, the timeout recovers)
};

struct RspProcessorParams {  // rx.rsp_processor.*
  uint32_t ii_cycles = 4;
  uint32_t check_cycles = 1;
};

struct BitmapParams {  // bitmap.*
  uint32_t block_bits = 16;
  uint32_t nodes_per_qp = 20;
  uint32_t pool_blocks = 4096;
  uint32_t left_cache_threshold = 2;
  uint32_t renak_psns = 64;
  uint32_t mprdma_slots = 64;  // MP-RDMA's L
  uint64_t melo_rob_base = 0x7F0000000000ull;
  std::string impl = "core";  // core | rtl (the Verilated testbench/rtl/ornic_bitmap.v)
  std::string rtl_library;    // "": liboonic_rtl_ornic_bitmap.so next to the oonic binary
  bool rtl_check = true;      // rtl: run the C++ core in lockstep and report differences
};

struct EunomiaParams {  // eunomia.* (nic.ordering: eunomia)
  uint32_t master_array_blocks = 1024;
  uint32_t connections_per_module = 256;
  uint32_t alloc_bits_per_cycle = 64;
};

struct DmaParams {  // dma.*
  uint32_t setup_cycles = 2;
  uint32_t read_prefetch_packets = 8;
};

struct ReqManagerParams {  // control.req_manager.*
  uint32_t schedule_cycles = 1;
  uint32_t uet_nack_depth = 3;  // UET NACK PSNs a QP's feedback register holds
};

struct NotificationPointParams {  // cc.* (the receiving side of DCQCN)
  double cnp_interval_us = 50;    // 0: a CNP for every CE-marked packet
  bool cnp_on_ooo = false;        // an out-of-order arrival counts as a mark (ConWeave)
};

struct HdrGeneratorParams {  // tx.hdr_generator.*
  uint32_t ack_cycles = 4;
  uint32_t data_cycles = 4;
  std::string ip_id = "per_qp";  // per_qp | zero
};

struct QpManagerParams {  // tx.qp_manager.*
  uint32_t fetch_cycles = 2;
  uint32_t fetch_batch = 8;
  uint32_t max_outstanding_wqes = 16;
  uint32_t prefetch_packets = 8;
  uint32_t max_inflight_psns = 0;  // 0: OrnicParams::window_psns() (the receiver's span)
};

struct SenderPolicyParams {  // tx.* (the transmit seam, model/sender/)
  std::string recovery = "auto";
  std::string rate = "auto";
  double resend_holdoff_ns = 0;   // tx.resend_holdoff_ns (0: control.rsp_manager.rtt_ns)
  sender::IrnTimerParams irn;     // eunomia.sender.* (tx.recovery eunomia)
  sender::UetRecoveryParams uet;  // tx.uet.* (tx.recovery uet)
  // Each tx.rate row's own parameters (cc.dcqcn.*, cc.mprdma.*, ...), added by its row.
  PluginParamSet rates = sender::rate_params();
  // cc.dcqcn.* (THEMIS's reaction point uses the NICs' constants); defaults if absent.
  const sender::DcqcnParams& dcqcn() const {
    static const sender::DcqcnParams kDefaults;
    const sender::DcqcnParams* p = rates.find<sender::DcqcnParams>("dcqcn");
    return p ? *p : kDefaults;
  }
};

struct TxArbiterParams {  // tx.arbiter.*
  uint32_t schedule_cycles = 1;
  uint32_t lookahead_cycles = 8;
};

struct RspManagerParams {  // control.rsp_manager.*
  double rtt_ns = 90000;
  double min_timeout_us = 0;         // the timeout is at least this (commodity NICs: ms)
  uint32_t timeout_window_psns = 1;  // PSNs out after a timeout, grown per PSN acked; 0: all
};

struct CqeManagerParams {  // control.cqe_manager.*
  uint32_t schedule_cycles = 1;
};

struct RegisterManagerParams {  // reg.*
  uint32_t access_cycles = 2;
};

struct SramSet {  // sram.<instance>.*
  SramParams req_pkt_buffer{512, 2048, "1R1W", 1};
  SramParams req_hdr_buffer{512, 64, "1R1W", 1};
  SramParams rsp_pkt_buffer{512, 2048, "1R1W", 1};
  SramParams rsp_hdr_buffer{512, 64, "1R1W", 1};
  SramParams qp_context{512, 2048, "2RW", 1};
  SramParams acked_psn_mem{64, 2048, "1R1W", 1};
  SramParams wqe_cache{256, 4096, "1R1W", 1};
  SramParams cc_context{256, 2048, "1R1W", 1};  // with tx.rate dcqcn / mprdma only
};

struct OrnicParams {
  NicParams nic;
  MacParams mac;
  RxParserParams parser;
  ReqProcessorParams req_processor;
  RspProcessorParams rsp_processor;
  BitmapParams bitmap;
  EunomiaParams eunomia;
  DmaParams dma;
  ReqManagerParams req_manager;
  HdrGeneratorParams hdr_generator;
  QpManagerParams qp_manager;
  SenderPolicyParams sender;
  NotificationPointParams np;
  TxArbiterParams arbiter;
  RspManagerParams rsp_manager;
  CqeManagerParams cqe_manager;
  RegisterManagerParams reg;
  SramSet sram;

  void describe(ParamTable& t);
  // Cross-parameter checks; throws oonic::Error naming the keys.
  void validate() const;
  // tx.recovery with `auto` resolved to the recovery nic.ordering pairs with.
  std::string recovery() const;  // tx.recovery, auto resolved by nic.ordering
  // nic.wire with auto resolved: whether the NIC's frames are UET's (model/wire/uet_nic.h).
  bool uet_wire() const;
  // nic.ordering delivers in order (UET's ROD): its requests go as ROD_REQ on UET's wire.
  bool uet_ordered() const;
  // The receiver answers with UET's ACKs and NACKs (uet-rud, uet-rod): the Req Manager's
  // UET NACK register (control.uet_nack_register) exists.
  bool uet_acks() const;
  std::string rate() const;  // tx.rate, auto resolved by nic.ordering
  // The requester's PSN window: tx.qp_manager.max_inflight_psns, or with 0 the span the
  // receive scheme is sure to track from ePSN (N x M, less M - 1 for block-aligned
  // windows: ORNIC, MELO, LEFT), so the sender never sends what the receiver must drop.
  uint32_t window_psns() const;
};

}  // namespace oonic::ornic
