// The command line: one CLI11 parser for `oonic` and every subcommand (the
// dispatcher). Options are defined with platforms/common/cli_options.h, here for
// replay, run, params, stats and registers, next to what they run for the others;
// help is generated from those definitions.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "platforms/common/cli_options.h"

namespace oonic::cli {

// The commands, each added under `oonic` (commands.cpp: replay and run; params,
// stats and registers; the others next to what they run).
void add_simulation_commands(CLI::App& oonic, Context& ctx);
void add_listing_commands(CLI::App& oonic, Context& ctx);

// The whole command tree under `oonic` (what dispatch parses against).
void build(CLI::App& oonic, Context& ctx);

// The --help text of one command of that tree.
std::string help_text(const CLI::App& app);

// Parses `args` (without the program name) against the whole command tree and
// runs the command; returns its exit status. Help goes to stdout. Throws
// oonic::Error on bad input (the caller prints it and exits 2).
int dispatch(const std::vector<std::string>& args);

}  // namespace oonic::cli
