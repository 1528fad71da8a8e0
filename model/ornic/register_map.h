// ORNIC's Register Manager register map, kept as data (one table): every
// register the host reaches through the AXI4-Lite-like `reg_socket`, with its
// offset, reset value, access and writable mask. Global registers sit at the
// bottom; each QP has a block of kQpStride bytes from kQpBase. The table is
// printed by `oonic registers` and in the README.
//
// RegisterFile is the plain core (no SystemC): 32-bit registers, read/write
// with the access rules; a bad access is answered with an error status and
// counted, never asserted.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/core/qp_table.h"
#include "model/core/signal.h"

namespace oonic::ornic {

enum class Access : uint8_t { kRO, kRW, kWO, kW1C };
const char* to_string(Access a);

struct RegisterDef {
  uint32_t offset;  // global: absolute; per-QP: within the QP block
  const char* name;
  uint32_t reset;
  Access access;
  uint32_t mask;  // writable bits (RW/WO/W1C); reads return value & ~0
  const char* desc;
};

constexpr uint32_t kQpBase = 0x1000;
constexpr uint32_t kQpStride = 0x40;

// Typed handles: register k of a table is table()[k]; the enum order is the table's
// (checked by the unit tests), so code names a register by a compile-checked
// enumerator, never by a string.
enum class GlobalReg : uint8_t {
  kId,
  kVersion,
  kControl,
  kStatus,
  kMaxQps,
  kPmtu,
  kDefaultOtd,
  kBadAccesses,
  kCount
};
enum class QpReg : uint8_t {
  kQpn,
  kState,
  kPeerQpn,
  kSqPsn,
  kRqEpsn,
  kOtd,
  kTimeoutCycles,
  kSqBaseLo,
  kSqBaseHi,
  kSqSize,
  kCqBaseLo,
  kCqBaseHi,
  kCqSize,
  kSqDoorbell,
  kCqConsumer,
  kPmtu,
  kCount
};

// The tables (offsets, names, resets, accesses, masks, descriptions), in enum order.
const std::vector<RegisterDef>& global_registers();
const std::vector<RegisterDef>& qp_registers();
const RegisterDef& def(GlobalReg r);
const RegisterDef& def(QpReg r);
// By name (text interfaces and tests): throws oonic::Error naming the register when unknown.
QpReg qp_register(const std::string& name);
GlobalReg global_register(const std::string& name);
// Markdown table of both, for docs.
std::string register_table_markdown(uint32_t max_qps);

enum class RegStatus : uint8_t { kOk, kAddressError, kAccessError, kAlignmentError };
const char* to_string(RegStatus s);

class RegisterFile {
 public:
  // max_qps: number of QP blocks; `reset_overrides` let the NIC put its
  // configuration (e.g. MAX_QPS, PMTU) in the reset values.
  explicit RegisterFile(uint32_t max_qps);
  void set_reset(GlobalReg r, uint32_t value);
  void reset();

  RegStatus read(uint32_t addr, uint32_t* value);
  RegStatus write(uint32_t addr, uint32_t value);

  // Called after every successful write (addr, new value): doorbells, QP setup.
  // Each call adds an observer.
  void on_write(std::function<void(uint32_t addr, uint32_t value)> f) {
    on_write_.connect(std::move(f));
  }
  // Backdoor for the NIC's blocks (no access rules, no callback).
  uint32_t peek(uint32_t addr) const;
  void poke(uint32_t addr, uint32_t value);
  static uint32_t qp_reg(uint32_t qp, uint32_t offset) { return kQpBase + qp * kQpStride + offset; }
  // Address of a register (the bus view) and the backdoor by handle.
  static uint32_t address(GlobalReg r) { return def(r).offset; }
  static uint32_t address(uint32_t qp, QpReg r) { return qp_reg(qp, def(r).offset); }
  uint32_t peek(GlobalReg r) const { return global_[static_cast<size_t>(r)]; }
  uint32_t peek(uint32_t qp, QpReg r) const;
  void poke(uint32_t qp, QpReg r, uint32_t value);
  uint32_t max_qps() const { return max_qps_; }
  uint64_t errors() const { return errors_; }

 private:
  const RegisterDef* lookup(uint32_t addr, uint32_t* index) const;
  void count_error();
  // A register by lookup()'s index: global, or a QP block's (made when first written).
  uint32_t& reg(uint32_t idx);
  uint32_t reg(uint32_t idx) const;
  uint32_t max_qps_;
  std::vector<uint32_t> global_;
  // Per QP block: its registers (qp_registers() order), made at its first write; until
  // then it reads its reset values (memory follows the QPs a host opens).
  QpTable<std::vector<uint32_t>> qp_;
  std::vector<uint32_t> global_reset_;
  Signal<uint32_t, uint32_t> on_write_;
  uint64_t errors_ = 0;
};

}  // namespace oonic::ornic
