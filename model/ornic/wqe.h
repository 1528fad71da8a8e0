// Work queue entries and completion queue entries as they sit in host memory
// (little-endian). The host driver writes WQEs into a QP's send queue ring and
// rings SQ_DOORBELL; the QP Manager fetches them by DMA read; the CQE Manager
// writes one CQE per WQE into the QP's completion queue ring by DMA write.
//
// WQE, 64 bytes:
//   0  wr_id        u64   the host's tag, echoed in the CQE
//   8  opcode       u8    0 WRITE, 1 READ, 2 SEND
//   9  flags        u8    bit 0: OOO (ORNIC OOO WRITE / OOO READ); bit 1: Sync
//                         (MP-RDMA: the WQE updates memory only after every earlier one)
//   10 reserved     u16
//   12 length       u32   bytes
//   16 local_addr   u64   source (WRITE/SEND) or destination (READ) in this host
//   24 remote_addr  u64   destination (WRITE) or source (READ) in the peer host
//   32 rkey         u32   peer's R_Key
//   36..63 reserved
// CQE, 32 bytes:
//   0  wr_id        u64
//   8  qpn          u32   (24 bit)
//   12 opcode       u8    as in the WQE
//   13 status       u8    0 success
//   14 flags        u8    bit 0: OOO
//   15 owner        u8    1 once written (the host clears it when it consumes)
//   16 byte_len     u32
//   20 start_psn    u32
//   24 reserved     u64
#pragma once

#include <cstdint>
#include <cstring>

namespace oonic::ornic {

enum class WqeOp : uint8_t { kWrite = 0, kRead = 1, kSend = 2 };
constexpr uint32_t kWqeBytes = 64;
constexpr uint32_t kCqeBytes = 32;
constexpr uint8_t kWqeFlagOoo = 0x01;
constexpr uint8_t kWqeFlagSync = 0x02;  // MP-RDMA: the synchronise flag

inline const char* to_string(WqeOp op) {
  switch (op) {
    case WqeOp::kWrite:
      return "WRITE";
    case WqeOp::kRead:
      return "READ";
    case WqeOp::kSend:
      return "SEND";
  }
  return "?";
}

struct Wqe {
  uint64_t wr_id = 0;
  WqeOp op = WqeOp::kWrite;
  bool ooo = false;
  bool sync = false;
  uint32_t length = 0;
  uint64_t local_addr = 0;
  uint64_t remote_addr = 0;
  uint32_t rkey = 0;

  void encode(uint8_t* b) const {
    std::memset(b, 0, kWqeBytes);
    std::memcpy(b + 0, &wr_id, 8);
    b[8] = static_cast<uint8_t>(op);
    b[9] = static_cast<uint8_t>((ooo ? kWqeFlagOoo : 0) | (sync ? kWqeFlagSync : 0));
    std::memcpy(b + 12, &length, 4);
    std::memcpy(b + 16, &local_addr, 8);
    std::memcpy(b + 24, &remote_addr, 8);
    std::memcpy(b + 32, &rkey, 4);
  }
  // False when the opcode is not one of the three.
  bool decode(const uint8_t* b) {
    std::memcpy(&wr_id, b + 0, 8);
    if (b[8] > 2) return false;
    op = static_cast<WqeOp>(b[8]);
    ooo = b[9] & kWqeFlagOoo;
    sync = b[9] & kWqeFlagSync;
    std::memcpy(&length, b + 12, 4);
    std::memcpy(&local_addr, b + 16, 8);
    std::memcpy(&remote_addr, b + 24, 8);
    std::memcpy(&rkey, b + 32, 4);
    return true;
  }
};

struct Cqe {
  uint64_t wr_id = 0;
  uint32_t qpn = 0;
  WqeOp op = WqeOp::kWrite;
  uint8_t status = 0;
  bool ooo = false;
  uint8_t owner = 1;
  uint32_t byte_len = 0;
  uint32_t start_psn = 0;

  void encode(uint8_t* b) const {
    std::memset(b, 0, kCqeBytes);
    std::memcpy(b + 0, &wr_id, 8);
    std::memcpy(b + 8, &qpn, 4);
    b[12] = static_cast<uint8_t>(op);
    b[13] = status;
    b[14] = ooo ? 1 : 0;
    b[15] = owner;
    std::memcpy(b + 16, &byte_len, 4);
    std::memcpy(b + 20, &start_psn, 4);
  }
  void decode(const uint8_t* b) {
    std::memcpy(&wr_id, b + 0, 8);
    std::memcpy(&qpn, b + 8, 4);
    op = static_cast<WqeOp>(b[12]);
    status = b[13];
    ooo = b[14] & 1;
    owner = b[15];
    std::memcpy(&byte_len, b + 16, 4);
    std::memcpy(&start_psn, b + 20, 4);
  }
};

}  // namespace oonic::ornic
