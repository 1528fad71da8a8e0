// The workload of a b2b run (YAML `workload.*`): which WQEs host A posts on
// each QP. Plain C++: make_workload() turns the parameters and the run seed
// into the list of WQEs, so the same seed always gives the same work.
//   qps          QPs, each with wqes_per_qp WQEs
//   mix          "write", "read", "send", or weights "write:2,read:1,send:1"
//                (each WQE's opcode drawn with these weights)
//   mode         ooo: WRITE/READ WQEs are OOO WQEs; standard: RoCEv2 in-order
//                WQEs (go-back-N); alternate: OOO and standard in turn.
//                SEND is always standard (ORNIC has no OOO SEND).
//   wqe_bytes    one size or a comma list drawn uniformly; K/M/G suffixes
//                (powers of 1024), e.g. "4K,64K,1M"
//   queue_depth  WQEs posted and not yet completed per QP (the host posts more
//                as CQEs come back; T_completion runs from the doorbell)
//   reuse_buffers  every WQE of a QP with the same opcode uses the same buffers
//                (an application reusing its RDMA buffer; host memory stays small)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/core/params.h"
#include "model/ornic/wqe.h"

namespace oonic::host {

struct WorkloadParams {  // workload.*
  uint32_t qps = 1;
  uint32_t wqes_per_qp = 4;
  std::string mix = "write";
  std::string mode = "ooo";
  std::string wqe_bytes = "64K";
  uint32_t queue_depth = 4;
  uint32_t sq_entries = 64;
  uint32_t cq_entries = 64;
  uint32_t start_psn = 0;
  bool reuse_buffers = false;
  uint32_t sync_every = 0;  // every n-th WQE of a QP carries MP-RDMA's Sync flag; 0: none
  void describe(ParamTable& t);
  // Parse mix and wqe_bytes, check ranges across keys; throws oonic::Error naming the key.
  void validate() const;
};

struct WqeSpec {
  uint32_t qp = 0;  // QP index 0..qps-1
  ornic::WqeOp op = ornic::WqeOp::kWrite;
  bool ooo = false;       // OOO WRITE / READ (SEND: false)
  bool ooo_mode = false;  // the WQE's turn is OOO (an OOO SEND under eunomia / mprdma)
  bool sync = false;      // MP-RDMA's synchronise flag (workload.sync_every)
  uint64_t bytes = 0;
};

// Parses "64K", "1M", "4096" (bytes); throws oonic::Error naming key on bad text.
uint64_t parse_bytes(const std::string& text, const std::string& key);

// WQEs per QP, in posting order.
std::vector<std::vector<WqeSpec>> make_workload(const WorkloadParams& p, uint64_t seed);

}  // namespace oonic::host
