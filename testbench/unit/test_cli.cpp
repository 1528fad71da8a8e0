// The command line (platforms/cli/): one number rule, help generated from the
// option definitions, and usage errors that name the command and the option.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/core/number.h"
#include "platforms/cli/cli.h"

namespace oonic {
namespace {

TEST(Number, DecimalHexAndSizes) {
  EXPECT_EQ(parse_uint("0"), 0u);
  EXPECT_EQ(parse_uint("4096"), 4096u);
  EXPECT_EQ(parse_uint("0x1000"), 4096u);
  EXPECT_EQ(parse_uint("0X1f"), 31u);
  EXPECT_EQ(parse_uint("010"), 10u);  // no octal
  EXPECT_EQ(parse_uint("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_uint("4K", NumberSuffix::kBinary), 4096u);
  EXPECT_EQ(parse_uint("4k", NumberSuffix::kBinary), 4096u);
  EXPECT_EQ(parse_uint("3M", NumberSuffix::kBinary), 3u << 20);
  EXPECT_EQ(parse_uint("1G", NumberSuffix::kBinary), 1u << 30);
  EXPECT_EQ(parse_uint("0x10K", NumberSuffix::kBinary), 16u << 10);
  EXPECT_EQ(parse_uint("16777216G", NumberSuffix::kBinary), 1ull << 54);
}

TEST(Number, RejectsEverythingElse) {
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "0x", "0x-1", "1.5", "abc", "1e3", "4K",
                          "18446744073709551616"})
    EXPECT_FALSE(parse_uint(bad).has_value()) << bad;
  for (const char* bad : {"K", "4KB", "4T", "-4K", "17179869184G" /* 2^64 */, "0xK"})
    EXPECT_FALSE(parse_uint(bad, NumberSuffix::kBinary).has_value()) << bad;
}

// Every command of the tree, depth first.
void walk(const CLI::App* app, std::vector<const CLI::App*>& out) {
  out.push_back(app);
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; })) walk(s, out);
}

TEST(Cli, EveryHelpListsEveryOptionAndArgument) {
  CLI::App oonic;
  cli::Context ctx;
  cli::build(oonic, ctx);
  std::vector<const CLI::App*> all;
  walk(&oonic, all);
  ASSERT_GE(all.size(), 14u);  // oonic, 8 commands + help, 4 trace tools, bitmap-compare
  size_t options = 0;
  for (const CLI::App* app : all) {
    const std::string help = cli::help_text(*app);
    const std::string path = cli::path(app);
    EXPECT_EQ(help.rfind("usage: oonic" + (path.empty() ? "" : " " + path), 0), 0u) << help;
    for (const CLI::Option* o : app->get_options()) {
      for (const std::string& name : o->get_lnames()) {
        EXPECT_NE(help.find("--" + name), std::string::npos) << path << ": --" << name;
        ++options;
      }
      if (o->get_positional()) {
        EXPECT_NE(help.find("  " + o->get_name(true, false)), std::string::npos)
            << path << ": " << o->get_name(true, false);
      }
      // Every option says what it does.
      EXPECT_FALSE(o->get_description().empty()) << path << ": " << o->get_name();
    }
    for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; }))
      EXPECT_NE(help.find("\n  " + s->get_name() + " "), std::string::npos) << s->get_name();
  }
  EXPECT_GT(options, 80u);
}

std::string cli_error(const std::vector<std::string>& args) {
  try {
    cli::dispatch(args);
  } catch (const Error& e) {
    EXPECT_EQ(e.id(), msg::kCli) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no usage error";
  return "";
}

TEST(Cli, OneSeedRuleInEveryCommand) {
  // The same words, the same message, whichever command reads --seed.
  const std::string want = "--seed '08x': expected a non-negative integer (decimal or 0x hex)";
  for (std::vector<std::string> cmd :
       std::vector<std::vector<std::string>>{{"replay", "t.txt"},
                                             {"run", "-"},
                                             {"compare", "t.txt"},
                                             {"trace", "synth", "--out", "x.txt"},
                                             {"trace", "perturb", "a.txt", "b.txt"}}) {
    const std::string head = cmd[0] == "trace" ? cmd[0] + " " + cmd[1] : cmd[0];
    cmd.insert(cmd.end(), {"--seed", "08x"});
    std::string m = cli_error(cmd);
    EXPECT_EQ(m.rfind(head + ": " + want, 0), 0u) << m;
    EXPECT_NE(m.find("(see oonic " + head + " --help)"), std::string::npos) << m;
  }
}

TEST(Cli, UsageErrorsNameTheCommandAndTheWord) {
  EXPECT_EQ(cli_error({"frobnicate"}), "unknown command 'frobnicate' (see oonic --help)");
  EXPECT_EQ(cli_error({"replay", "t.txt", "--frob"}),
            "replay: unknown option '--frob' (see oonic replay --help)");
  EXPECT_EQ(cli_error({"replay", "a.txt", "b.txt"}),
            "replay: more than one TRACE given ('a.txt' and 'b.txt') (see oonic replay --help)");
  EXPECT_EQ(cli_error({"replay"}), "replay: no TRACE given (see oonic replay --help)");
  EXPECT_EQ(cli_error({"replay", "t.txt", "--out"}),
            "replay: --out needs a value (see oonic replay --help)");
  EXPECT_EQ(cli_error({"trace", "nope"}), "trace: unknown command 'nope' (see oonic trace --help)");
  EXPECT_EQ(cli_error({"trace", "synth", "--out", "x.txt", "--wqe-bytes", "4Q"}),
            "trace synth: --wqe-bytes '4Q': expected a non-negative integer (decimal or 0x hex; "
            "K/M/G = 2^10/2^20/2^30) (see oonic trace synth --help)");
  EXPECT_EQ(cli_error({"trace", "synth", "--out", "x.txt", "--qps", "0"}),
            "trace synth: --qps '0': out of range (1 .. 16777216) (see oonic trace synth --help)");
  EXPECT_EQ(cli_error({"trace", "synth", "--out", "x.txt", "--mode", "fast"}),
            "trace synth: --mode 'fast': expected ooo or standard (see oonic trace synth --help)");
  EXPECT_EQ(cli_error({"experiment", "bitmap-compare", "--arrival", "x"}),
            "experiment bitmap-compare: --arrival 'x': expected window or aligned-groups (see "
            "oonic experiment bitmap-compare --help)");
  EXPECT_EQ(cli_error({"replay", "t.txt", "--vcd-window", "9:3"}),
            "replay: --vcd-window '9:3': expected FROM:TO cycles, FROM <= TO (see oonic replay "
            "--help)");
  EXPECT_EQ(cli_error({"help", "nope"}), "help: unknown command 'nope' (see oonic help --help)");
}

class CliSynth : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/oonic-cli-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }
  // Runs `oonic trace synth --out FILE ARGS...`; returns the trace's header lines.
  std::string synth(const std::vector<std::string>& extra) {
    std::string out = dir_ + "/s.txt";
    std::vector<std::string> args = {"trace", "synth", "--out", out, "--timing", "gap"};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(cli::dispatch(args), 0);
    std::ifstream f(out);
    std::string text, line;
    while (std::getline(f, line) && line.rfind("#", 0) == 0) text += line + "\n";
    return text;
  }
  std::string dir_;
};

TEST_F(CliSynth, NumbersAsDocumented) {
  // Decimal with a leading zero is decimal, hex with 0x, sizes with K.
  EXPECT_NE(synth({"--seed", "010"}).find("seed 10"), std::string::npos);
  EXPECT_NE(synth({"--seed", "0x10"}).find("seed 16"), std::string::npos);
  EXPECT_NE(synth({"--wqe-bytes", "8K"}).find("x 8192 B"), std::string::npos);
  // Given twice, the last one counts.
  EXPECT_NE(synth({"--qps", "2", "--qps", "3"}).find("3 QP(s)"), std::string::npos);
  // The command line as typed is recorded in the header.
  EXPECT_NE(synth({"--wqes", "2"}).find("generated by: oonic trace synth --out "),
            std::string::npos);
}

}  // namespace
}  // namespace oonic
