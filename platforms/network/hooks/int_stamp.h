// HPCC's in-band telemetry (MECHANISMS.md §9) as a switch hook: every switch a data packet
// with an INT stack (model/wire/roce.h, BTH byte 8 bit 3) leaves writes one hop record as
// the packet starts out of its egress port (ns-3 HPCC stamps at dequeue; responses carry
// an echo and are left alone): its clock (ns),
// the bytes that port sent before the packet, the bytes still queued there (every class)
// and the port's rate. The record is written only while the stack has room (the sender
// sized it, cc.hpcc.int_hops); the first switch also writes switch.int_multi into the
// stack's footer, so the sender decodes the units the switches used. The ICRC is
// rewritten (it covers the trailer). IntStamper is the plain core; the hook row builds
// it when switch.int_stamp says so (auto: when the NICs' rate core sends INT stacks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"

namespace oonic::network {

struct IntParams {             // switch.int_* (the int_stamp hook row's)
  std::string stamp = "auto";  // auto (when tx.rate's core sends INT) | on | off
  uint32_t multi = 1;          // the record's units: 128 x multi bytes, 80 x multi queued
  void describe(ParamTable& t);
};

class IntStamper {
 public:
  IntStamper(uint32_t ports, uint32_t multi) : tx_bytes_(ports, 0), multi_(multi ? multi : 1) {}
  enum class Result : uint8_t { kNone, kStamped, kFull };
  // The frame (its bytes, without FCS) starts out of port at now_ps, leaving qlen_bytes
  // queued there; the port runs at gbps. The port's byte count takes it after the stamp.
  // *approx: the rate has no INT code and the nearest was written.
  Result depart(uint8_t* frame, size_t len, uint32_t port, uint64_t now_ps, uint64_t qlen_bytes,
                double gbps, bool* approx);
  uint64_t tx_bytes(uint32_t port) const { return tx_bytes_.at(port); }

 private:
  std::vector<uint64_t> tx_bytes_;  // per port: bytes sent (frames without FCS)
  uint32_t multi_;
};

}  // namespace oonic::network
