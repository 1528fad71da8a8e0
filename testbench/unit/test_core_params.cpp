// ParamTable tests: registration, text parsing per type (decimal and hex
// unsigned, doubles, bools, enums and free strings), inclusive range checks,
// error messages (key, origin, range, 'did you mean'), sources and suggest().
#include "model/core/params.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "model/core/error.h"

namespace {

using oonic::Error;
using oonic::ParamTable;

// Runs f, expects an oonic::Error with id oonic/config and returns its message.
template <typename F>
std::string config_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.id(), oonic::msg::kConfig);
    return e.what();
  }
  ADD_FAILURE() << "expected an oonic::Error";
  return "";
}

struct Fixture {
  uint32_t width = 512;
  uint64_t bytes = 7;
  double mhz = 250.0;
  bool check = true;
  std::string ports = "1R1W";
  std::string label = "hello";
  ParamTable t;
  Fixture() {
    t.add("sram.width_bits", &width, "bit", "word width", 1, 4096);
    t.add("dma.bytes", &bytes, "byte", "bytes per burst", 0, 18446744073709551615.0);
    t.add("nic.clock_mhz", &mhz, "MHz", "NIC clock", 0.5, 1000);
    t.add("rx.parser.check_icrc", &check, "check ICRC");
    t.add("sram.ports", &ports, "port configuration", {"1RW", "1R1W", "2RW"});
    t.add("out.label", &label, "free text", {});
  }
};

TEST(CoreParams, RegistrationRecordsMetadataAndDefaults) {
  Fixture f;
  ASSERT_EQ(f.t.entries().size(), 6u);
  const ParamTable::Entry* e = f.t.find("sram.width_bits");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->type, ParamTable::Type::kUInt);
  EXPECT_EQ(e->width, 32);  // registered through the uint32_t* overload
  EXPECT_EQ(e->unit, "bit");
  EXPECT_EQ(e->desc, "word width");
  EXPECT_EQ(e->min, 1);
  EXPECT_EQ(e->max, 4096);
  EXPECT_EQ(e->default_text, "512");
  EXPECT_EQ(e->source, "default");
  EXPECT_EQ(f.t.find("dma.bytes")->width, 64);
  EXPECT_EQ(f.t.find("nic.clock_mhz")->default_text, "250");
  EXPECT_EQ(f.t.find("rx.parser.check_icrc")->unit, "bool");
  EXPECT_EQ(f.t.find("rx.parser.check_icrc")->default_text, "true");
  EXPECT_EQ(f.t.find("sram.ports")->unit, "enum");   // non-empty choices
  EXPECT_EQ(f.t.find("out.label")->unit, "string");  // no choices
  EXPECT_EQ(f.t.find("sram.ports")->default_text, "1R1W");
  EXPECT_TRUE(f.t.has("sram.ports"));
  EXPECT_FALSE(f.t.has("sram"));  // a prefix is not a parameter
  EXPECT_EQ(f.t.find("nope"), nullptr);
  // Entries keep registration order.
  EXPECT_EQ(f.t.entries()[0].key, "sram.width_bits");
  EXPECT_EQ(f.t.entries()[5].key, "out.label");
}

TEST(CoreParams, DuplicateRegistrationThrows) {
  Fixture f;
  uint32_t other = 0;
  std::string m = config_error([&] { f.t.add("sram.width_bits", &other, "bit", "again", 0, 1); });
  EXPECT_NE(m.find("'sram.width_bits'"), std::string::npos) << m;
  EXPECT_NE(m.find("registered twice"), std::string::npos) << m;
}

TEST(CoreParams, UIntDecimalAndHex) {
  Fixture f;
  f.t.set("sram.width_bits", "42", "cfg.yaml:4");
  EXPECT_EQ(f.width, 42u);
  EXPECT_EQ(f.t.find("sram.width_bits")->source, "cfg.yaml:4");
  f.t.set("sram.width_bits", "0x1F", "x");  // 0x1F = 31
  EXPECT_EQ(f.width, 31u);
  f.t.set("sram.width_bits", "0X100", "x");  // 0x100 = 256
  EXPECT_EQ(f.width, 256u);
  f.t.set("sram.width_bits", "0xfA0", "x");  // 0xFA0 = 15*256 + 10*16 = 4000
  EXPECT_EQ(f.width, 4000u);
  f.t.set("sram.width_bits", "0010", "x");  // leading zeros stay decimal: 10
  EXPECT_EQ(f.width, 10u);
  f.t.set("sram.width_bits", "2k", "x");  // a size in bits: K = 2^10
  EXPECT_EQ(f.width, 2048u);
  f.t.set("sram.width_bits", "0x10", "x");
  EXPECT_EQ(f.width, 16u);
  // 64-bit: the full range, 2^64 - 1.
  f.t.set("dma.bytes", "0xFFFFFFFFFFFFFFFF", "x");
  EXPECT_EQ(f.bytes, UINT64_MAX);
  f.t.set("dma.bytes", "4294967296", "x");  // 2^32 does not truncate in a uint64
  EXPECT_EQ(f.bytes, 4294967296ull);
  EXPECT_EQ(f.t.value_text(*f.t.find("dma.bytes")), "4294967296");
  EXPECT_EQ(f.t.value_text(*f.t.find("sram.width_bits")), "16");
}

TEST(CoreParams, UIntRejectsNonIntegersAndKeepsTheValue) {
  Fixture f;
  for (const char* bad : {"-1", "1.5", "", "abc", "0x", "0xg", " 5", "5 ", "+5", "12abc",
                          "99999999999999999999999" /* > 2^64 */}) {
    std::string m = config_error([&] { f.t.set("sram.width_bits", bad, "cfg.yaml:9"); });
    // width_bits is a size in bits: K/M/G are allowed, and the message says so.
    EXPECT_EQ(m, std::string("cfg.yaml:9: parameter 'sram.width_bits': expected a non-negative "
                             "integer (decimal or 0x hex; K/M/G = 2^10/2^20/2^30), got '") +
                     bad + "'")
        << bad;
  }
  EXPECT_EQ(f.width, 512u);
  EXPECT_EQ(f.t.find("sram.width_bits")->source, "default");
}

TEST(CoreParams, UIntRangeIsInclusiveAndNamed) {
  Fixture f;
  f.t.set("sram.width_bits", "1", "a");  // min, inclusive
  EXPECT_EQ(f.width, 1u);
  f.t.set("sram.width_bits", "4096", "a");  // max, inclusive
  EXPECT_EQ(f.width, 4096u);
  std::string m = config_error([&] { f.t.set("sram.width_bits", "4097", "cfg.yaml:2"); });
  EXPECT_EQ(m, "cfg.yaml:2: parameter 'sram.width_bits': value 4097 out of range [1, 4096] bit");
  m = config_error([&] { f.t.set("sram.width_bits", "0", "cfg.yaml:2"); });
  EXPECT_EQ(m, "cfg.yaml:2: parameter 'sram.width_bits': value 0 out of range [1, 4096] bit");
  // Hex is range checked on its value: 0x1001 = 4097.
  m = config_error([&] { f.t.set("sram.width_bits", "0x1001", "w"); });
  EXPECT_NE(m.find("value 0x1001 out of range [1, 4096]"), std::string::npos) << m;
  EXPECT_EQ(f.width, 4096u);
}

TEST(CoreParams, Double) {
  Fixture f;
  f.t.set("nic.clock_mhz", "322.265625", "a");
  EXPECT_DOUBLE_EQ(f.mhz, 322.265625);
  f.t.set("nic.clock_mhz", "1e3", "a");  // 1000 = max, inclusive
  EXPECT_DOUBLE_EQ(f.mhz, 1000.0);
  f.t.set("nic.clock_mhz", "0.5", "a");  // min, inclusive
  EXPECT_DOUBLE_EQ(f.mhz, 0.5);
  EXPECT_EQ(f.t.value_text(*f.t.find("nic.clock_mhz")), "0.5");
  for (const char* bad :
       {"abc", "", "inf", "nan", "1.5x", "1e999" /* ERANGE */, "0x10" /* hex */}) {
    std::string m = config_error([&] { f.t.set("nic.clock_mhz", bad, "s"); });
    EXPECT_EQ(m, std::string("s: parameter 'nic.clock_mhz': expected a number, got '") + bad + "'")
        << bad;
  }
  std::string m = config_error([&] { f.t.set("nic.clock_mhz", "1000.5", "s"); });
  EXPECT_EQ(m, "s: parameter 'nic.clock_mhz': value 1000.5 out of range [0.5, 1000] MHz");
  m = config_error([&] { f.t.set("nic.clock_mhz", "0.25", "s"); });
  EXPECT_EQ(m, "s: parameter 'nic.clock_mhz': value 0.25 out of range [0.5, 1000] MHz");
  EXPECT_DOUBLE_EQ(f.mhz, 0.5);
}

TEST(CoreParams, Bool) {
  Fixture f;
  for (const char* t : {"false", "0", "no", "off", "FALSE", "Off", "No"}) {
    f.check = true;
    f.t.set("rx.parser.check_icrc", t, "s");
    EXPECT_FALSE(f.check) << t;
  }
  for (const char* t : {"true", "1", "yes", "on", "TRUE", "On", "Yes"}) {
    f.check = false;
    f.t.set("rx.parser.check_icrc", t, "s");
    EXPECT_TRUE(f.check) << t;
  }
  EXPECT_EQ(f.t.value_text(*f.t.find("rx.parser.check_icrc")), "true");
  for (const char* bad : {"maybe", "", "2", "y", "t"}) {
    std::string m = config_error([&] { f.t.set("rx.parser.check_icrc", bad, "s"); });
    EXPECT_EQ(m, std::string("s: parameter 'rx.parser.check_icrc': expected true or false, got '") +
                     bad + "'");
  }
  EXPECT_TRUE(f.check);
}

TEST(CoreParams, EnumAndFreeString) {
  Fixture f;
  f.t.set("sram.ports", "2RW", "s");
  EXPECT_EQ(f.ports, "2RW");
  std::string m = config_error([&] { f.t.set("sram.ports", "3RW", "cfg.yaml:7"); });
  EXPECT_EQ(m, "cfg.yaml:7: parameter 'sram.ports': '3RW' is not one of: 1RW, 1R1W, 2RW");
  // Choices are case sensitive.
  config_error([&] { f.t.set("sram.ports", "1rw", "s"); });
  EXPECT_EQ(f.ports, "2RW");
  // A string without choices takes anything, including the empty string.
  f.t.set("out.label", "any thing: at all", "s");
  EXPECT_EQ(f.label, "any thing: at all");
  f.t.set("out.label", "", "s");
  EXPECT_EQ(f.label, "");
}

TEST(CoreParams, UnknownKeyNamesOriginAndSuggests) {
  Fixture f;
  // "sram.widht_bits" vs "sram.width_bits": transposition = 2 edits <= max(3, 15/4 = 3).
  std::string m = config_error([&] { f.t.set("sram.widht_bits", "4", "cfg.yaml:3"); });
  EXPECT_EQ(m,
            "cfg.yaml:3: unknown parameter 'sram.widht_bits' (did you mean 'sram.width_bits'?); "
            "`oonic params` lists them all");
  // Nothing close: no suggestion.
  m = config_error([&] { f.t.set("completely.different", "4", "cfg.yaml:3"); });
  EXPECT_EQ(m,
            "cfg.yaml:3: unknown parameter 'completely.different'; `oonic params` lists them all");
  // Empty origin: no "WHERE: " prefix.
  m = config_error([&] { f.t.set("sram.widht_bits", "4", ""); });
  EXPECT_EQ(m.rfind("unknown parameter 'sram.widht_bits'", 0), 0u) << m;
}

TEST(CoreParams, EmptyOriginRecordsSet) {
  Fixture f;
  f.t.set("sram.width_bits", "8", "");
  EXPECT_EQ(f.t.find("sram.width_bits")->source, "--set");
  f.t.set("sram.width_bits", "9", "--set");
  EXPECT_EQ(f.t.find("sram.width_bits")->source, "--set");
  f.t.set("sram.width_bits", "10", "b.yaml:1");  // the last set wins
  EXPECT_EQ(f.t.find("sram.width_bits")->source, "b.yaml:1");
  // default_text stays the registration value.
  EXPECT_EQ(f.t.find("sram.width_bits")->default_text, "512");
}

TEST(CoreParams, SuggestThreshold) {
  Fixture f;
  // Threshold is max(3, key.size() / 4).
  // "nic.clock_mh" (12 chars, threshold 3): 1 deletion from "nic.clock_mhz".
  EXPECT_EQ(f.t.suggest("nic.clock_mh"), "nic.clock_mhz");
  // "nic.cluck_mhx" (13 chars, threshold 3): 2 substitutions.
  EXPECT_EQ(f.t.suggest("nic.cluck_mhx"), "nic.clock_mhz");
  // "dma.b" (5 chars, threshold 3): "dma.bytes" is 4 insertions away; every other key is
  // further (e.g. "out.label" shares little) -> nothing.
  EXPECT_EQ(f.t.suggest("dma.b"), "");
  // "dma.by" (threshold 3): "dma.bytes" is 3 insertions away -> suggested.
  EXPECT_EQ(f.t.suggest("dma.by"), "dma.bytes");
  // Long key: "rx.parser.check_icrc_enable_xx" is 30 chars, threshold 30/4 = 7;
  // "rx.parser.check_icrc" is 10 deletions away -> nothing; with "_enabl" (26 chars,
  // threshold 6) it is 6 deletions away -> suggested.
  EXPECT_EQ(f.t.suggest("rx.parser.check_icrc_enable_xx"), "");
  EXPECT_EQ(f.t.suggest("rx.parser.check_icrc_enabl"), "rx.parser.check_icrc");
  // An exact key suggests itself (distance 0).
  EXPECT_EQ(f.t.suggest("sram.ports"), "sram.ports");
  ParamTable empty;
  EXPECT_EQ(empty.suggest("anything"), "");
}

TEST(CoreParams, SuggestTieGoesToFirstRegistered) {
  uint32_t a = 0, b = 0;
  ParamTable t;
  t.add("x.ab", &a, "", "", 0, 1);
  t.add("x.ac", &b, "", "", 0, 1);
  // "x.aa" is 1 substitution from both; the first registered wins.
  EXPECT_EQ(t.suggest("x.aa"), "x.ab");
}

TEST(CoreParams, Uint32AtFullRange) {
  uint32_t v = 0;
  ParamTable t;
  t.add("v", &v, "", "", 0, 4294967295.0);
  t.set("v", "4294967295", "s");  // 2^32 - 1
  EXPECT_EQ(v, 4294967295u);
  t.set("v", "0xffffffff", "s");
  EXPECT_EQ(v, 4294967295u);
  std::string m = config_error([&] { t.set("v", "4294967296", "s"); });  // 2^32
  EXPECT_NE(m.find("out of range [0, 4294967295]"), std::string::npos) << m;
  EXPECT_EQ(v, 4294967295u);
}

}  // namespace

TEST(CoreParams, APresetFillsOnlyTheKeysLeftAtTheirDefaults) {
  ParamTable t;
  std::string preset = "a";
  double x = 1, y = 2;
  uint32_t z = 3;
  t.add("p.preset", &preset, "which defaults", {"a", "b"});
  t.add("p.x", &x, "ratio", "x", 0, 100);
  t.add("p.y", &y, "ratio", "y", 0, 100);
  t.add("p.z", &z, "count", "z", 0, 100);
  t.add_preset("p.preset", "b", {{"p.x", "10"}, {"p.y", "20"}, {"p.z", "30"}});
  t.apply_presets();  // preset a: nothing changes
  EXPECT_EQ(x, 1);
  t.set("p.preset", "b", "cfg.yaml:1");
  t.set("p.y", "5", "--set");  // explicit: wins over the preset
  t.apply_presets();
  EXPECT_EQ(x, 10);
  EXPECT_EQ(y, 5);
  EXPECT_EQ(z, 30u);
  EXPECT_EQ(t.find("p.x")->source, "preset p.preset=b");
  EXPECT_EQ(t.find("p.y")->source, "--set");
}
