// `oonic compare`: one trace (replay) or one workload (run) through every
// receive-order scheme of `nic.ordering`, side by side. Each scheme runs as
// its own `oonic replay` / `oonic run` process (a SystemC simulation cannot be
// restarted in one process) into DIR/<scheme>/, and one table is printed from
// their stats.json: cycles, throughput, bitmap SRAM bits (peak, mean), control
// frames sent, drops, retransmissions, integrity / scoreboard. CSV too.
#pragma once

namespace CLI {
class App;
}
namespace oonic::cli {
struct Context;
}

namespace oonic::compare {

// Adds `oonic compare` and its options under `oonic` (platforms/cli/cli.h).
void add_command(CLI::App& oonic, cli::Context& ctx);

}  // namespace oonic::compare
