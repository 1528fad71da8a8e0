#include "model/ornic/ornic_params.h"

#include "model/core/error.h"
#include "model/schemes/receive_schemes.h"
#include "model/schemes/sender_policies.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

void OrnicParams::describe(ParamTable& t) {
  t.add("nic.clock_mhz", &nic.clock_mhz, "MHz", "NIC clock; every NIC latency is in these cycles",
        1, 2000);
  t.add("nic.datapath_bytes", &nic.datapath_bytes, "byte",
        "datapath width: a B-byte packet takes ceil(B/width) beats", 8, 1024);
  t.add(
      "nic.ordering", &nic.ordering,
      "receive-order scheme of the Bitmap Manager for OOO WQEs (model/schemes/receive_schemes.h): "
      "ornic (block node array, OTD, NAK with bitmap), gbn, irn, static, melo, melo+, left, "
      "left+, mprdma, uet-rud, uet-rod (UET's RUD and ROD receivers), eunomia (eunomia.*); each "
      "gets the QP window "
      "nodes_per_qp x block_bits",
      ordering::scheme_names());
  t.add("nic.max_qps", &nic.max_qps, "QP", "QP context slots (ORNIC reference: 2048)", 1, 65536);
  t.add("nic.pmtu_bytes", &nic.pmtu_bytes, "byte",
        "path MTU: payload bytes of every data packet but a message's last (Eq. 1)", 256, 4096);
  t.add("nic.otd", &nic.otd, "PSN",
        "default OOO tolerance distance per QP (Eq. 3); psn - ePSN > OTD declares a loss", 1,
        1u << 22);
  t.add("nic.trim_dscp", &nic.trim_dscp, "DSCP",
        "a request data frame arriving with this DSCP and no payload was trimmed by a switch "
        "(switch.trim): not placed, NACKed at once in the scheme's form (a bitmap NAK for "
        "ornic, a PDS NACK on UET's wire, else a Scheme Feedback NACK); match "
        "switch.trim_dscp",
        0, 63);
  t.add("nic.trim_dscp_last_hop", &nic.trim_dscp_last_hop, "DSCP",
        "as nic.trim_dscp, for a frame trimmed at its last hop (switch.trim_dscp_last_hop)", 0, 63);
  t.add("nic.wire", &nic.wire,
        "the frames the NIC sends: roce (RoCEv2, UDP 4791), uet (UET's PDS and SES headers over "
        "UDP 4793, docs/DESIGN.md \"UET's wire\"; nic.ordering uet-rud or uet-rod, WRITE and "
        "SEND only), auto (uet with nic.ordering uet-rud or uet-rod, else roce). The NIC reads "
        "both",
        {"auto", "roce", "uet"});
  t.add("mac.rate_gbps", &mac.rate_gbps, "Gbit/s",
        "MAC line rate; a frame holds the MAC for (frame + FCS + preamble/IFG) bytes",
        kMacRateMinGbps, kMacRateMaxGbps);
  t.add("rx.parser.latency", &parser.latency, "cycle",
        "cycles after a frame's last beat until its header is classified and its ICRC checked", 0,
        1000);
  t.add("rx.parser.check_icrc", &parser.check_icrc, "verify the ICRC of every frame (drop if bad)");
  t.add("rx.req_processor.ii_cycles", &req_processor.ii_cycles, "cycle",
        "initiation interval: a new request header every ii cycles", 1, 1000);
  t.add("rx.req_processor.check_cycles", &req_processor.check_cycles, "cycle",
        "transport checks (PSN, opcode, R_Key, Eq. 1/2) after the QP context read", 0, 1000);
  t.add("rx.req_processor.ack_policy", &req_processor.ack_policy,
        "when the Req Processor registers ACK work: every packet that advances the ACKed PSN "
        "(ORNIC Figure 8), or only AckReq/last packets and the Start_Addr-cached announcement",
        {"every", "ackreq"});
  t.add("rx.req_processor.seq_nak", &req_processor.seq_nak,
        "in-order receivers (standard WQEs, nic.ordering gbn): a packet past ePSN is dropped and "
        "a PSN-sequence NAK sent, once per ePSN (RoCE); false: dropped silently and only the "
        "requester timeout recovers (a NIC that does not NAK)");
  t.add("rx.rsp_processor.ii_cycles", &rsp_processor.ii_cycles, "cycle",
        "initiation interval: a new response header every ii cycles", 1, 1000);
  t.add("rx.rsp_processor.check_cycles", &rsp_processor.check_cycles, "cycle",
        "response checks after the QP context read", 0, 1000);
  t.add("bitmap.block_bits", &bitmap.block_bits, "bit", "M: bits per bitmap block in the pool", 1,
        wire::kMaxBitmapBlockBits);
  t.add("bitmap.nodes_per_qp", &bitmap.nodes_per_qp, "node",
        "N: block nodes in each QP's cyclic array (QP bitmap width = N x M)", 1, 4096);
  t.add("bitmap.pool_blocks", &bitmap.pool_blocks, "block",
        "blocks in the shared bitmap block pool (reference 2048 x 2)", 1, 1u << 24);
  t.add("bitmap.left_cache_threshold", &bitmap.left_cache_threshold, "hop",
        "LEFT/LEFT+: a walk of at least this many next_ptr hops moves the cache pointer", 1,
        1u << 20);
  t.add("bitmap.renak_psns", &bitmap.renak_psns, "PSN",
        "ORNIC: re-declare a hole that persists (a lost NAK or a lost retransmission): with ePSN "
        "unchanged since its NAK, a packet more than this many PSNs past the packet that "
        "triggered that NAK sends the NAK again, keeping recovery selective (MECHANISMS.md "
        "§1, open; default the default OTD); 0: one NAK per ePSN, the timeout recovers the "
        "rest",
        0, 1u << 22);
  t.add("bitmap.mprdma_slots", &bitmap.mprdma_slots, "slot",
        "L: MP-RDMA's two-bit tracking slots per QP (nic.ordering mprdma; a packet at or past "
        "rcv_nxt + L is dropped and NACKed); 0: the QP window N x M, as the other schemes",
        0, 1u << 22);
  t.add("bitmap.melo_rob_base", &bitmap.melo_rob_base, "address",
        "MELO/MELO+: host address of the re-order buffers (QP i: base + i x window x PMTU); "
        "out-of-order data lands there and is copied to its destination when ePSN passes it",
        0, 1.8e19);
  t.add("bitmap.impl", &bitmap.impl,
        "what computes ORNIC's bitmap (nic.ordering ornic): core, the C++ core "
        "(model/ordering/ornic_bitmap.h); rtl, the Verilated RTL testbench/rtl/ornic_bitmap.v "
        "clocked call by call (model/ordering/rtl_bitmap.h; built when Verilator is installed)",
        {"core", "rtl"});
  t.add("bitmap.rtl_library", &bitmap.rtl_library,
        "bitmap.impl rtl: the Verilated library to load (ABI model/ordering/rtl_bitmap_abi.h); "
        "empty: liboonic_rtl_ornic_bitmap.so beside the oonic binary (or in ../lib/oonic)",
        {});
  t.add("bitmap.rtl_check", &bitmap.rtl_check,
        "bitmap.impl rtl: run the C++ core in lockstep and compare every call (verdict, ePSN, "
        "NAK block, blocks held, accesses, cycles); a replay that differs reports the first "
        "differing packet and cycle and exits 1");
  t.add("eunomia.master_array_blocks", &eunomia.master_array_blocks, "block",
        "Eunomia: 2-byte blocks of each HD bitmap module's master_array (bitmap rows and "
        "metadata)",
        1, 65535);
  t.add("eunomia.connections_per_module", &eunomia.connections_per_module, "QP",
        "Eunomia: connections one HD bitmap module serves (its metadata_start_index; the "
        "packet driver maps QP q to module q / this)",
        1, 256);
  t.add("eunomia.alloc_bits_per_cycle", &eunomia.alloc_bits_per_cycle, "bit",
        "Eunomia: block_alloc_bitmap bits the memory controller examines per cycle when it "
        "searches for free blocks",
        1, 65536);
  t.add("dma.setup_cycles", &dma.setup_cycles, "cycle",
        "DMA Engine cycles to take a descriptor before its first beat", 0, 1000);
  t.add("dma.read_prefetch_packets", &dma.read_prefetch_packets, "packet",
        "READ-response payload fetches issued ahead of transmission", 1, 1024);
  t.add("control.req_manager.schedule_cycles", &req_manager.schedule_cycles, "cycle",
        "register-scheduler cycles to pop a QP and read its latest ACKed PSN", 0, 1000);
  t.add("control.req_manager.uet_nack_depth", &req_manager.uet_nack_depth, "PSN",
        "UET NACKs (trimmed PSNs) one QP's feedback register holds until they are sent; one "
        "more is lost (uet_nacks_lost). 3 fit one Scheme Feedback frame (RoCEv2's wire); more "
        "leave as further frames (on UET's wire every PSN is its own NACK frame anyway)",
        1, 1024);
  t.add("tx.hdr_generator.ack_cycles", &hdr_generator.ack_cycles, "cycle",
        "Hdr Generator cycles to build an ACK/NAK frame", 1, 1000);
  t.add("tx.hdr_generator.data_cycles", &hdr_generator.data_cycles, "cycle",
        "Hdr Generator cycles to build a data header (WRITE/SEND/READ request, READ response)", 1,
        1000);
  t.add("tx.hdr_generator.ip_id", &hdr_generator.ip_id,
        "IPv4 identification of the frames the NIC sends: per_qp, a counter per QP incremented "
        "for every frame (data, resends, ACKs), as real NICs count (MP-RDMA's lossy-path "
        "experiment drops on it); zero, every frame 0",
        {"per_qp", "zero"});
  t.add("tx.qp_manager.fetch_cycles", &qp_manager.fetch_cycles, "cycle",
        "QP Manager cycles to parse one fetched WQE before writing it into the WQE cache", 0, 1000);
  t.add("tx.qp_manager.fetch_batch", &qp_manager.fetch_batch, "WQE",
        "WQEs fetched from the send queue by one DMA read (at most)", 1, 1024);
  t.add("tx.qp_manager.max_outstanding_wqes", &qp_manager.max_outstanding_wqes, "WQE",
        "WQEs of one QP held in the WQE cache and pipelined (standard WQEs; an OOO WQE is always "
        "alone)",
        1, 65536);
  t.add("tx.qp_manager.prefetch_packets", &qp_manager.prefetch_packets, "packet",
        "data packets whose payload the QP Manager fetches by DMA read ahead of the TX arbiter", 1,
        1024);
  t.add("tx.qp_manager.max_inflight_psns", &qp_manager.max_inflight_psns, "PSN",
        "send window: no new packet at or past first unacknowledged PSN + this (keeps data inside "
        "the receiver's bitmap, Eq. 5); 0: the span the receive scheme is sure to track from "
        "ePSN, bitmap.nodes_per_qp x bitmap.block_bits, less block_bits - 1 for ORNIC, MELO and "
        "LEFT (their window starts at the block holding ePSN): 305 at the defaults, 320 for "
        "the others",
        0, 1u << 22);
  t.add("tx.recovery", &sender.recovery,
        "loss-recovery core of the transmit seam (model/sender/): auto (the one nic.ordering "
        "pairs with), go-back-n, ornic (bitmap NAK), selective-repeat (IRN SACK), hole-list "
        "(MELO NACK), eunomia (sender agent), mprdma (MP-RDMA recovery mode, cc.mprdma.*), uet "
        "(UET's SACK-driven selective retransmission, tx.uet.*)",
        sender::recovery_choices());
  t.add("tx.rate", &sender.rate,
        "rate/pacing core of the transmit seam (model/sender/): auto (the one nic.ordering pairs "
        "with: mprdma for mprdma, else none), none (line rate), dcqcn (DCQCN reaction point, "
        "cc.dcqcn.*), mprdma (MP-RDMA's window and ACK clocking, cc.mprdma.*), hpcc (HPCC's "
        "window from the switches' INT, cc.hpcc.*), nscc (UET's NSCC window from delay and ECN, "
        "cc.nscc.*)",
        sender::rate_choices());
  t.add("tx.resend_holdoff_ns", &sender.resend_holdoff_ns, "ns",
        "a PSN resent on feedback (NAK, bitmap NAK, hole NACK, SACK) is not resent again on "
        "further feedback until this long has passed with the hole still open (its first "
        "resend is in flight; MELO's rule, applied to every selective core); the timeout's "
        "resends are never held off. 0: control.rsp_manager.rtt_ns",
        0, 1e9);
  t.add("eunomia.sender.rto_low_us", &sender.irn.rto_low_us, "us",
        "tx.recovery eunomia: the timeout while at most eunomia.sender.rto_low_packets PSNs "
        "are outstanding (IRN's RTO_low, 100 us)",
        0.001, 1e6);
  t.add("eunomia.sender.rto_high_us", &sender.irn.rto_high_us, "us",
        "tx.recovery eunomia: the timeout otherwise (IRN's RTO_high, 320 us)", 0.001, 1e6);
  t.add("eunomia.sender.rto_low_packets", &sender.irn.rto_low_packets, "PSN",
        "tx.recovery eunomia: IRN's N, the outstanding PSNs up to which RTO_low applies", 0,
        1u << 22);
  t.add("eunomia.sender.sack_loss_threshold", &sender.irn.sack_loss_threshold, "PSN",
        "tx.recovery eunomia: a SACK more than this many PSNs past an un-SACKed outstanding PSN "
        "resends it (loss inferred from SACKs, beyond the paper); 0: off, losses wait for the "
        "timeout as published",
        0, 1u << 22);
  sender.uet.describe(t);
  sender.rates.describe(t);
  t.add("cc.cnp_interval_us", &np.cnp_interval_us, "us",
        "notification point: a QP that receives a CE-marked packet sends its peer a CNP, at "
        "most one per this interval (0: one per marked packet, as ns-3 HPCC; 50: the DCQCN "
        "paper and ConWeave's NICs)",
        0, 1e6);
  t.add("cc.cnp_on_ooo", &np.cnp_on_ooo,
        "notification point: an out-of-order arrival asks for a CNP too, as a CE mark does "
        "(how ConWeave models commodity NICs)");
  t.add("tx.arbiter.schedule_cycles", &arbiter.schedule_cycles, "cycle",
        "TX arbiter cycles to grant a data packet (then the WQE cache read)", 0, 1000);
  t.add("tx.arbiter.lookahead_cycles", &arbiter.lookahead_cycles, "cycle",
        "the arbiter grants the next frame when the MAC is free within this many cycles (keeps "
        "the MAC busy without queueing frames behind it)",
        0, 100000);
  t.add("control.rsp_manager.rtt_ns", &rsp_manager.rtt_ns, "ns",
        "RTT in the requester timeout RTT + OTD/B (OTD x PMTU x 8 / mac.rate_gbps); default: "
        "ORNIC's reference RTT (Eq. 6); a QP's TIMEOUT_CYCLES register overrides",
        1, 1e9);
  t.add("control.rsp_manager.min_timeout_us", &rsp_manager.min_timeout_us, "us",
        "the requester timeout is at least this (a recovery core's own timeout too; "
        "TIMEOUT_CYCLES aside): commodity NICs time out in milliseconds (ConnectX's "
        "local_ack_timeout: 4.096 us x 2^k); 0: no minimum",
        0, 1e9);
  t.add("control.rsp_manager.timeout_window_psns", &rsp_manager.timeout_window_psns, "PSN",
        "after a requester timeout at most this many PSNs past the first unacknowledged one "
        "may be out, the limit growing by one per PSN acknowledged (doubling each round trip) "
        "until it reaches the QP's window: a timeout after a lost tail ACK then resends one "
        "PSN, not a window (TCP's loss window after RTO, RFC 5681 3.1); 0: the whole window at "
        "once, as commodity RoCE NICs go back N (docs/experiments/melo-loss.md)",
        0, 1u << 23);
  t.add("control.cqe_manager.schedule_cycles", &cqe_manager.schedule_cycles, "cycle",
        "CQE Manager register-scheduler cycles per CQE (then WQE cache read, DMA write)", 0, 1000);
  t.add("reg.access_cycles", &reg.access_cycles, "cycle",
        "cycles a register access through reg_socket takes", 0, 1000);
  sram.req_pkt_buffer.describe(t, "sram.rx.req_pkt_buffer",
                               "the Req Pkt Buffer (request payloads)");
  sram.req_hdr_buffer.describe(t, "sram.rx.req_hdr_buffer", "the Req Hdr Buffer (request headers)");
  sram.rsp_pkt_buffer.describe(t, "sram.rx.rsp_pkt_buffer",
                               "the Rsp Pkt Buffer (response payloads)");
  sram.rsp_hdr_buffer.describe(t, "sram.rx.rsp_hdr_buffer",
                               "the Rsp Hdr Buffer (response headers)");
  sram.qp_context.describe(t, "sram.qp.context", "the QP context table (one word per QP)");
  sram.acked_psn_mem.describe(t, "sram.control.acked_psn_mem",
                              "the Req Manager's ACKed-PSN memory (one word per QP)");
  sram.wqe_cache.describe(t, "sram.tx.wqe_cache",
                          "the Hdr Generator's WQE cache (one word per cached WQE)");
  sram.cc_context.describe(t, "sram.cc.context",
                           "the rate core's per-QP state (tx.rate dcqcn: Rc, Rt, alpha, timers, "
                           "counters, live from its first CNP; tx.rate mprdma: the window and "
                           "recovery state, 647 bits read and written per event, live from the "
                           "QP's first send; one entry per QP)");
}

void OrnicParams::validate() const {
  if (uint64_t{bitmap.block_bits} * bitmap.nodes_per_qp <= nic.otd)
    throw Error(msg::kConfig,
                "bitmap.nodes_per_qp x bitmap.block_bits (" +
                    std::to_string(uint64_t{bitmap.block_bits} * bitmap.nodes_per_qp) +
                    " bits) must exceed nic.otd (" + std::to_string(nic.otd) +
                    "): the bitmap is OTD + BDP wide (Eq. 5)");
  if (sender::find_rate(rate()).context && sram.cc_context.depth < nic.max_qps)
    throw Error(msg::kConfig, "sram.cc.context.depth (" + std::to_string(sram.cc_context.depth) +
                                  ") must be at least nic.max_qps (" + std::to_string(nic.max_qps) +
                                  ") with tx.rate " + rate());
  if (sram.qp_context.depth < nic.max_qps)
    throw Error(msg::kConfig, "sram.qp.context.depth (" + std::to_string(sram.qp_context.depth) +
                                  ") must be at least nic.max_qps (" + std::to_string(nic.max_qps) +
                                  ")");
  if (uet_wire() && !ordering::find_scheme(nic.ordering).traits.uet_ack)
    throw Error(msg::kConfig,
                "nic.wire uet needs nic.ordering uet-rud or uet-rod (UET's ACK "
                "and NACK are the only feedback UET's wire carries), not " +
                    nic.ordering);
  if (uet_wire() && (recovery() == "mprdma" || recovery() == "eunomia"))
    throw Error(msg::kConfig, "nic.wire uet carries no " + recovery() +
                                  " metadata on data packets: tx.recovery " + recovery() +
                                  " needs nic.wire roce");
  if (uet_wire() && window_psns() > 32767 - 64)
    throw Error(msg::kConfig, "nic.wire uet: the PSN window (" + std::to_string(window_psns()) +
                                  ") must fit UET's 16-bit ACK offsets: at most 32703 PSNs "
                                  "(tx.qp_manager.max_inflight_psns, bitmap.nodes_per_qp x "
                                  "bitmap.block_bits)");
  if (uet_wire() && rate() == "hpcc")
    throw Error(msg::kConfig,
                "nic.wire uet carries no INT stack: tx.rate hpcc needs nic.wire roce");
  uint32_t p = nic.pmtu_bytes;
  if (p != 256 && p != 512 && p != 1024 && p != 2048 && p != 4096)
    throw Error(msg::kConfig, "nic.pmtu_bytes must be 256, 512, 1024, 2048 or 4096");
}

bool OrnicParams::uet_wire() const {
  return nic.wire == "uet" ||
         (nic.wire == "auto" && ordering::find_scheme(nic.ordering).traits.uet_ack);
}

bool OrnicParams::uet_acks() const {
  return ordering::find_scheme(nic.ordering).traits.uet_ack;
}

bool OrnicParams::uet_ordered() const {
  return ordering::find_scheme(nic.ordering).traits.ordered_delivery;
}

std::string OrnicParams::rate() const {
  return sender.rate == "auto" ? ordering::find_scheme(nic.ordering).traits.rate : sender.rate;
}

uint32_t OrnicParams::window_psns() const {
  if (qp_manager.max_inflight_psns) return qp_manager.max_inflight_psns;
  uint64_t w = uint64_t{bitmap.nodes_per_qp} * bitmap.block_bits;
  if (ordering::find_scheme(nic.ordering).traits.block_window) w -= bitmap.block_bits - 1;
  return static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(w, 1u << 22)));
}

std::string OrnicParams::recovery() const {
  return sender.recovery == "auto" ? ordering::find_scheme(nic.ordering).traits.recovery
                                   : sender.recovery;
}

}  // namespace oonic::ornic
