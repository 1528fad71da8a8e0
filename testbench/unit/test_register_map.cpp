// The Register Manager's map as data: reset values, access rules and masks,
// error statuses (never a crash) and the write callback.
#include <gtest/gtest.h>

#include <set>

#include "model/core/error.h"
#include "model/ornic/register_map.h"

namespace oonic::ornic {
namespace {

uint32_t addr_of(const char* name) {
  for (const auto& r : global_registers())
    if (std::string(r.name) == name) return r.offset;
  for (const auto& r : qp_registers())
    if (std::string(r.name) == name) return kQpBase + r.offset;
  ADD_FAILURE() << name;
  return 0;
}

// The typed handles index the tables: every enumerator names its own row, and a name
// that is not in the map is an error, never offset 0.
TEST(RegisterMap, TypedHandlesMatchTheTables) {
  ASSERT_EQ(global_registers().size(), static_cast<size_t>(GlobalReg::kCount));
  ASSERT_EQ(qp_registers().size(), static_cast<size_t>(QpReg::kCount));
  const char* globals[] = {"ID",      "VERSION", "CONTROL",     "STATUS",
                           "MAX_QPS", "PMTU",    "DEFAULT_OTD", "BAD_ACCESSES"};
  for (size_t i = 0; i < std::size(globals); ++i) {
    EXPECT_STREQ(def(static_cast<GlobalReg>(i)).name, globals[i]);
    EXPECT_EQ(global_register(globals[i]), static_cast<GlobalReg>(i));
  }
  const char* qps[] = {"QPN",        "STATE",       "PEER_QPN",       "SQ_PSN",
                       "RQ_EPSN",    "OTD",         "TIMEOUT_CYCLES", "SQ_BASE_LO",
                       "SQ_BASE_HI", "SQ_SIZE",     "CQ_BASE_LO",     "CQ_BASE_HI",
                       "CQ_SIZE",    "SQ_DOORBELL", "CQ_CONSUMER",    "PMTU"};
  for (size_t i = 0; i < std::size(qps); ++i) {
    EXPECT_STREQ(def(static_cast<QpReg>(i)).name, qps[i]);
    EXPECT_EQ(qp_register(qps[i]), static_cast<QpReg>(i));
  }
  EXPECT_EQ(RegisterFile::address(3, QpReg::kSqDoorbell), kQpBase + 3 * kQpStride + 0x34);
  EXPECT_THROW(qp_register("SQ_DORBELL"), Error);
  EXPECT_THROW(global_register("nope"), Error);
  RegisterFile f(4);
  ASSERT_EQ(f.write(RegisterFile::address(2, QpReg::kSqSize), 77), RegStatus::kOk);
  EXPECT_EQ(f.peek(2, QpReg::kSqSize), 77u);
  EXPECT_EQ(f.peek(1, QpReg::kSqSize), 0u);
  f.poke(2, QpReg::kOtd, 9);
  EXPECT_EQ(f.peek(RegisterFile::address(2, QpReg::kOtd)), 9u);
  EXPECT_EQ(f.peek(GlobalReg::kMaxQps), 4u);
}

TEST(RegisterMap, ResetValuesAndReadOnly) {
  RegisterFile f(4);
  uint32_t v = 0;
  EXPECT_EQ(f.read(addr_of("ID"), &v), RegStatus::kOk);
  EXPECT_EQ(v, 0x6F6F6E43u);
  EXPECT_EQ(f.read(addr_of("MAX_QPS"), &v), RegStatus::kOk);
  EXPECT_EQ(v, 4u);  // the reset value follows the NIC's configuration
  EXPECT_EQ(f.write(addr_of("ID"), 1), RegStatus::kAccessError);
  EXPECT_EQ(f.read(addr_of("ID"), &v), RegStatus::kOk);
  EXPECT_EQ(v, 0x6F6F6E43u);
  EXPECT_EQ(f.errors(), 1u);
}

TEST(RegisterMap, MasksAndWriteOneToClear) {
  RegisterFile f(2);
  uint32_t v = 0;
  // QPN is 24 bits: the top byte is not writable.
  ASSERT_EQ(f.write(RegisterFile::qp_reg(1, 0x00), 0xFF123456), RegStatus::kOk);
  EXPECT_EQ(f.peek(RegisterFile::qp_reg(1, 0x00)), 0x123456u);
  // A bad access sets STATUS bit 0 and counts in BAD_ACCESSES; writing 1 clears the bit.
  EXPECT_EQ(f.read(0x0FFC, &v), RegStatus::kAddressError);
  EXPECT_EQ(f.peek(addr_of("STATUS")), 1u);
  EXPECT_EQ(f.peek(addr_of("BAD_ACCESSES")), 1u);
  ASSERT_EQ(f.write(addr_of("STATUS"), 1), RegStatus::kOk);
  EXPECT_EQ(f.peek(addr_of("STATUS")), 0u);
}

TEST(RegisterMap, BadAddressesAndWriteOnly) {
  RegisterFile f(2);
  uint32_t v = 7;
  EXPECT_EQ(f.read(0x2, &v), RegStatus::kAlignmentError);
  EXPECT_EQ(v, 0u);
  EXPECT_EQ(f.read(RegisterFile::qp_reg(2, 0), &v), RegStatus::kAddressError);  // QP 2 of 2
  EXPECT_EQ(f.read(0xFFFFFFFC, &v), RegStatus::kAddressError);
  EXPECT_EQ(f.read(RegisterFile::qp_reg(0, 0x34), &v), RegStatus::kAccessError);  // doorbell is WO
  EXPECT_EQ(f.errors(), 4u);
}

TEST(RegisterMap, WriteCallbackSeesDoorbells) {
  RegisterFile f(2);
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  f.on_write([&](uint32_t a, uint32_t v) { seen.push_back({a, v}); });
  ASSERT_EQ(f.write(RegisterFile::qp_reg(1, 0x34), 0x10005), RegStatus::kOk);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, RegisterFile::qp_reg(1, 0x34));
  EXPECT_EQ(seen[0].second, 5u);  // 16-bit producer index
  EXPECT_EQ(f.write(0x0FFC, 1), RegStatus::kAddressError);
  EXPECT_EQ(seen.size(), 1u);  // no callback for a refused write
}

TEST(RegisterMap, TableIsConsistent) {
  std::set<uint32_t> offs;
  for (const auto& r : global_registers()) {
    EXPECT_EQ(r.offset % 4, 0u) << r.name;
    EXPECT_LT(r.offset, kQpBase) << r.name;
    EXPECT_TRUE(offs.insert(r.offset).second) << r.name;
  }
  offs.clear();
  for (const auto& r : qp_registers()) {
    EXPECT_EQ(r.offset % 4, 0u) << r.name;
    EXPECT_LT(r.offset, kQpStride) << r.name;
    EXPECT_TRUE(offs.insert(r.offset).second) << r.name;
    if (r.access == Access::kRO) {
      EXPECT_EQ(r.mask, 0u) << r.name;
    }
  }
  EXPECT_NE(register_table_markdown(2048).find("SQ_DOORBELL"), std::string::npos);
}

}  // namespace
}  // namespace oonic::ornic
