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
constexpr uint32_t kSqDoorbellOffset = 0x34;  // SQ_DOORBELL within a QP block

// The tables (offsets, names, resets, accesses, masks, descriptions).
const std::vector<RegisterDef>& global_registers();
const std::vector<RegisterDef>& qp_registers();
// Markdown table of both, for docs.
std::string register_table_markdown(uint32_t max_qps);

enum class RegStatus : uint8_t { kOk, kAddressError, kAccessError, kAlignmentError };
const char* to_string(RegStatus s);

class RegisterFile {
 public:
  // max_qps: number of QP blocks; `reset_overrides` let the NIC put its
  // configuration (e.g. MAX_QPS, PMTU) in the reset values.
  explicit RegisterFile(uint32_t max_qps);
  void set_reset(const std::string& name, uint32_t value);  // global register by name
  void reset();

  RegStatus read(uint32_t addr, uint32_t* value);
  RegStatus write(uint32_t addr, uint32_t value);

  // Called after every successful write (addr, new value): doorbells, QP setup.
  void on_write(std::function<void(uint32_t addr, uint32_t value)> f) { on_write_ = std::move(f); }
  // Backdoor for the NIC's blocks (no access rules, no callback).
  uint32_t peek(uint32_t addr) const;
  void poke(uint32_t addr, uint32_t value);
  static uint32_t qp_reg(uint32_t qp, uint32_t offset) { return kQpBase + qp * kQpStride + offset; }
  uint32_t max_qps() const { return max_qps_; }
  uint64_t errors() const { return errors_; }

 private:
  const RegisterDef* lookup(uint32_t addr, uint32_t* index) const;
  void count_error();
  size_t status_idx_ = 0, bad_idx_ = 0;
  uint32_t max_qps_;
  std::vector<uint32_t> global_;
  std::vector<uint32_t> qp_;  // max_qps * qp_registers().size()
  std::vector<uint32_t> global_reset_;
  std::function<void(uint32_t, uint32_t)> on_write_;
  uint64_t errors_ = 0;
};

}  // namespace oonic::ornic
