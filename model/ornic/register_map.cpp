#include "model/ornic/register_map.h"

#include <sstream>

#include "model/core/error.h"

namespace oonic::ornic {

const char* to_string(Access a) {
  switch (a) {
    case Access::kRO:
      return "RO";
    case Access::kRW:
      return "RW";
    case Access::kWO:
      return "WO";
    case Access::kW1C:
      return "W1C";
  }
  return "?";
}

const char* to_string(RegStatus s) {
  switch (s) {
    case RegStatus::kOk:
      return "ok";
    case RegStatus::kAddressError:
      return "address_error";
    case RegStatus::kAccessError:
      return "access_error";
    case RegStatus::kAlignmentError:
      return "alignment_error";
  }
  return "?";
}

const std::vector<RegisterDef>& global_registers() {
  static const std::vector<RegisterDef> t = {
      {0x0000, "ID", 0x6F6F6E43, Access::kRO, 0, "identifies an oonic ORNIC NIC ('oonC')"},
      {0x0004, "VERSION", 0x00000100, Access::kRO, 0, "register map version 1.0"},
      {0x0008, "CONTROL", 0x00000000, Access::kRW, 0x00000001, "bit 0: enable the NIC"},
      {0x000C, "STATUS", 0x00000000, Access::kW1C, 0x00000001,
       "bit 0: a bad register access happened (write 1 to clear)"},
      {0x0010, "MAX_QPS", 2048, Access::kRO, 0, "QP context slots (nic.max_qps)"},
      {0x0014, "PMTU", 4096, Access::kRW, 0x00001F00, "default path MTU in bytes (256..4096)"},
      {0x0018, "DEFAULT_OTD", 64, Access::kRW, 0x003FFFFF, "OTD given to a QP at setup (PSNs)"},
      {0x001C, "BAD_ACCESSES", 0, Access::kRO, 0, "register accesses answered with an error"},
  };
  return t;
}

const std::vector<RegisterDef>& qp_registers() {
  static const std::vector<RegisterDef> t = {
      {0x00, "QPN", 0, Access::kRW, 0x00FFFFFF, "QP number (24 bit)"},
      {0x04, "STATE", 0, Access::kRW, 0x00000007, "0 reset, 1 init, 2 RTR, 3 RTS, 4 error"},
      {0x08, "PEER_QPN", 0, Access::kRW, 0x00FFFFFF, "destination QP of frames sent on this QP"},
      {0x0C, "SQ_PSN", 0, Access::kRW, 0x00FFFFFF, "next PSN the requester sends"},
      {0x10, "RQ_EPSN", 0, Access::kRW, 0x00FFFFFF, "PSN the responder expects next"},
      {0x14, "OTD", 64, Access::kRW, 0x003FFFFF, "OOO tolerance distance (PSNs, Eq. 3)"},
      {0x18, "TIMEOUT_CYCLES", 0, Access::kRW, 0xFFFFFFFF,
       "requester timeout; 0 = RTT + OTD/B from the config"},
      {0x1C, "SQ_BASE_LO", 0, Access::kRW, 0xFFFFFFC0,
       "send queue ring base, low 32 bits (64 B aligned)"},
      {0x20, "SQ_BASE_HI", 0, Access::kRW, 0xFFFFFFFF, "send queue ring base, high 32 bits"},
      {0x24, "SQ_SIZE", 0, Access::kRW, 0x0000FFFF, "send queue entries"},
      {0x28, "CQ_BASE_LO", 0, Access::kRW, 0xFFFFFFC0, "completion queue base, low 32 bits"},
      {0x2C, "CQ_BASE_HI", 0, Access::kRW, 0xFFFFFFFF, "completion queue base, high 32 bits"},
      {0x30, "CQ_SIZE", 0, Access::kRW, 0x0000FFFF, "completion queue entries"},
      {0x34, "SQ_DOORBELL", 0, Access::kWO, 0x0000FFFF, "producer index of the send queue"},
      {0x38, "CQ_CONSUMER", 0, Access::kRW, 0x0000FFFF, "consumer index of the completion queue"},
      {0x3C, "PMTU", 4096, Access::kRW, 0x00001F00, "path MTU of this QP in bytes"},
  };
  return t;
}

const RegisterDef& def(GlobalReg r) {
  return global_registers()[static_cast<size_t>(r)];
}
const RegisterDef& def(QpReg r) {
  return qp_registers()[static_cast<size_t>(r)];
}

QpReg qp_register(const std::string& name) {
  const auto& t = qp_registers();
  for (size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<QpReg>(i);
  throw Error(msg::kModel, "no QP register named '" + name + "'");
}

GlobalReg global_register(const std::string& name) {
  const auto& t = global_registers();
  for (size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<GlobalReg>(i);
  throw Error(msg::kModel, "no global register named '" + name + "'");
}

std::string register_table_markdown(uint32_t max_qps) {
  std::ostringstream os;
  os << "| offset | register | reset | access | writable mask | description |\n"
        "|---|---|---|---|---|---|\n";
  auto row = [&](const std::string& off, const RegisterDef& r) {
    os << "| " << off << " | " << r.name << " | 0x" << std::hex << r.reset << " | "
       << to_string(r.access) << " | 0x" << r.mask << std::dec << " | " << r.desc << " |\n";
  };
  for (const auto& r : global_registers()) {
    std::ostringstream o;
    o << "0x" << std::hex << r.offset;
    row(o.str(), r);
  }
  for (const auto& r : qp_registers()) {
    std::ostringstream o;
    o << "0x" << std::hex << kQpBase << " + qp x 0x" << kQpStride << " + 0x" << r.offset;
    row(o.str(), r);
  }
  os << "\nQP blocks: qp = 0 .. " << max_qps - 1 << "; addresses up to 0x" << std::hex
     << kQpBase + max_qps * kQpStride - 1 << std::dec << ".\n";
  return os.str();
}

RegisterFile::RegisterFile(uint32_t max_qps)
    : max_qps_(max_qps),
      global_(global_registers().size()),
      qp_(max_qps),
      global_reset_(global_registers().size()) {
  for (size_t i = 0; i < global_reset_.size(); ++i) global_reset_[i] = global_registers()[i].reset;
  set_reset(GlobalReg::kMaxQps, max_qps);
  reset();
}

void RegisterFile::count_error() {
  ++errors_;
  global_[static_cast<size_t>(GlobalReg::kStatus)] |= 1;  // bit 0: a bad access happened
  global_[static_cast<size_t>(GlobalReg::kBadAccesses)] = static_cast<uint32_t>(errors_);
}

void RegisterFile::set_reset(GlobalReg r, uint32_t value) {
  global_reset_[static_cast<size_t>(r)] = value;
}

uint32_t RegisterFile::peek(uint32_t qp, QpReg r) const {
  if (qp >= max_qps_) return 0;
  return qp_[qp][static_cast<size_t>(r)];
}

void RegisterFile::poke(uint32_t qp, QpReg r, uint32_t value) {
  if (qp >= max_qps_) return;
  qp_[qp][static_cast<size_t>(r)] = value;
}

void RegisterFile::reset() {
  global_ = global_reset_;
  std::vector<uint32_t> fresh;
  for (const auto& d : qp_registers()) fresh.push_back(d.reset);
  qp_ = QpTable<std::vector<uint32_t>>(max_qps_, fresh);
  errors_ = 0;
}

uint32_t& RegisterFile::reg(uint32_t idx) {
  if (idx < global_.size()) return global_[idx];
  const uint32_t i = static_cast<uint32_t>(idx - global_.size()), n = qp_registers().size();
  return qp_[i / n][i % n];
}

uint32_t RegisterFile::reg(uint32_t idx) const {
  if (idx < global_.size()) return global_[idx];
  const uint32_t i = static_cast<uint32_t>(idx - global_.size()), n = qp_registers().size();
  return qp_[i / n][i % n];
}

const RegisterDef* RegisterFile::lookup(uint32_t addr, uint32_t* index) const {
  if (addr < kQpBase) {
    const auto& g = global_registers();
    for (size_t i = 0; i < g.size(); ++i)
      if (g[i].offset == addr) return *index = static_cast<uint32_t>(i), &g[i];
    return nullptr;
  }
  uint32_t rel = addr - kQpBase, qp = rel / kQpStride, off = rel % kQpStride;
  if (qp >= max_qps_) return nullptr;
  const auto& q = qp_registers();
  for (size_t i = 0; i < q.size(); ++i)
    if (q[i].offset == off)
      return *index = static_cast<uint32_t>(global_.size() + qp * q.size() + i), &q[i];
  return nullptr;
}

RegStatus RegisterFile::read(uint32_t addr, uint32_t* value) {
  uint32_t idx = 0;
  RegStatus st = RegStatus::kOk;
  const RegisterDef* d = addr % 4 ? nullptr : lookup(addr, &idx);
  if (addr % 4)
    st = RegStatus::kAlignmentError;
  else if (!d)
    st = RegStatus::kAddressError;
  else if (d->access == Access::kWO)
    st = RegStatus::kAccessError;
  if (st != RegStatus::kOk) {
    count_error();
    *value = 0;
    return st;
  }
  *value = static_cast<const RegisterFile*>(this)->reg(idx);
  return st;
}

RegStatus RegisterFile::write(uint32_t addr, uint32_t value) {
  uint32_t idx = 0;
  RegStatus st = RegStatus::kOk;
  const RegisterDef* d = addr % 4 ? nullptr : lookup(addr, &idx);
  if (addr % 4)
    st = RegStatus::kAlignmentError;
  else if (!d)
    st = RegStatus::kAddressError;
  else if (d->access == Access::kRO)
    st = RegStatus::kAccessError;
  if (st != RegStatus::kOk) {
    count_error();
    return st;
  }
  uint32_t& r = reg(idx);
  if (d->access == Access::kW1C)
    r &= ~(value & d->mask);
  else
    r = (r & ~d->mask) | (value & d->mask);
  if (on_write_) on_write_(addr, r);
  return st;
}

uint32_t RegisterFile::peek(uint32_t addr) const {
  uint32_t idx = 0;
  if (addr % 4 || !lookup(addr, &idx)) return 0;
  return reg(idx);
}

void RegisterFile::poke(uint32_t addr, uint32_t value) {
  uint32_t idx = 0;
  if (addr % 4 || !lookup(addr, &idx)) return;
  reg(idx) = value;
}

}  // namespace oonic::ornic
