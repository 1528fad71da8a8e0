// `oonic compare`: one trace (replay) or one workload (run) through every
// receive-order scheme of `nic.ordering`, side by side. Each scheme runs as
// its own `oonic replay` / `oonic run` process (a SystemC simulation cannot be
// restarted in one process) into DIR/<scheme>/, and one table is printed from
// their stats.json: cycles, throughput, bitmap SRAM bits (peak, mean), control
// frames sent, drops, retransmissions, integrity / scoreboard. CSV too.
#pragma once

#include <string>
#include <vector>

namespace oonic::compare {

int compare_command(const std::vector<std::string>& args);

}  // namespace oonic::compare
