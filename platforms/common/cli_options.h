// How a command defines its options, for every command of `oonic` (the dispatcher in
// platforms/cli/ and the commands next to what they run: trace, compare, experiments):
// CLI11 options with oonic's help layout; numbers follow one rule
// (model/core/number.h). Errors are oonic::Error (msg::kCli) naming the command and
// the option, so the process exits 2 with one "oonic: error:" line.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/core/number.h"

namespace oonic::cli {

// What the commands share while one command line is parsed and run.
struct Context {
  int rc = 0;                // the exit status of the command that ran
  std::string command_line;  // "oonic trace synth --out x.txt ..." (shell-quoted), for file headers
};

// A command under `parent`. `summary` is its line in the parent's command list;
// `description` comes before the options in its --help, `footer` after.
CLI::App* add_command(CLI::App& parent, const std::string& name, const std::string& summary,
                      const std::string& description, const std::string& footer = "");

// "trace synth": the command's path below `oonic`, for messages.
std::string path(const CLI::App* app);

// Throws the usage error "<path>: <what> (see oonic <path> --help)".
[[noreturn]] void fail(const CLI::App* app, const std::string& what);

// An unsigned integer option (model/core/number.h: decimal or 0x hex; with
// NumberSuffix::kBinary, K/M/G) within [min, max]. `text` is its metavariable.
CLI::Option* add_uint(CLI::App* app, const std::string& name, uint64_t& out,
                      const std::string& text, const std::string& desc, uint64_t min = 0,
                      uint64_t max = std::numeric_limits<uint64_t>::max(),
                      NumberSuffix suffix = NumberSuffix::kNone);
CLI::Option* add_uint(CLI::App* app, const std::string& name, uint32_t& out,
                      const std::string& text, const std::string& desc, uint64_t min = 0,
                      uint64_t max = std::numeric_limits<uint32_t>::max(),
                      NumberSuffix suffix = NumberSuffix::kNone);

// A real number in [lo, hi] (hi_open: [lo, hi)).
CLI::Option* add_real(CLI::App* app, const std::string& name, double& out, const std::string& text,
                      const std::string& desc, double lo, double hi, bool hi_open = false);

// One of `choices`; `out` gets the word given.
CLI::Option* add_choice(CLI::App* app, const std::string& name, std::string& out,
                        const std::vector<std::string>& choices, const std::string& desc);

// A string option given once (FILE, DIR, WHO, ...).
CLI::Option* add_text(CLI::App* app, const std::string& name, std::string& out,
                      const std::string& text, const std::string& desc);

// A comma-separated list; empty items are dropped, the list may not be empty.
CLI::Option* add_list(CLI::App* app, const std::string& name, std::vector<std::string>& out,
                      const std::string& text, const std::string& desc);

// A flag without a value.
CLI::Option* add_flag(CLI::App* app, const std::string& name, bool& out, const std::string& desc);

// The options every simulation command shares, defined once.
// --seed N: the run seed (default 1).
CLI::Option* add_seed(CLI::App* app, uint64_t& seed, const std::string& desc);
// --set KEY=VALUE, repeatable, one pair per --set.
CLI::Option* add_sets(CLI::App* app, std::vector<std::string>& sets, const std::string& desc);
// --vcd[=GROUPS] and --vcd-window A:B.
void add_vcd(CLI::App* app, bool& vcd, std::string& groups, uint64_t& from, uint64_t& to,
             const std::string& desc);

// A required positional ("TRACE", "IN", "OUT"), filled in the order defined. An
// extra word is reported as "more than one <name> given".
CLI::Option* add_positional(CLI::App* app, const std::string& name, std::string& out,
                            const std::string& desc, bool required = true);

// The help layout every command uses.
std::shared_ptr<CLI::FormatterBase> help_formatter();

}  // namespace oonic::cli
