#include "platforms/system/run.h"

#include <algorithm>
#include <chrono>

#include "model/core/clock.h"
#include "model/core/report.h"

namespace oonic::system {

Ran run_loop(Job& job) {
  Ran ran;
  const uint64_t max_ps = job.max_ps();
  const uint64_t stall_ps = job.stall_ps();
  const uint64_t slack_ps = job.stall_slack_ps(max_ps);
  const uint64_t slice_ps = stall_ps ? std::max<uint64_t>(stall_ps / 4, 1) : max_ps;
  uint64_t since = 0;
  const auto w0 = std::chrono::steady_clock::now();
  job.apply_changes(0);
  for (;;) {
    const uint64_t now0 = ClockDomain::ps_of(sc_core::sc_time_stamp());
    if (now0 >= max_ps) break;
    uint64_t until = std::min(max_ps, now0 + slice_ps);
    const uint64_t next = job.next_change_ps();
    if (next != UINT64_MAX) until = std::min(until, std::max(now0 + 1, next));
    sc_core::sc_start(ClockDomain::from_ps(until - now0));
    if (sc_core::sc_get_status() == sc_core::SC_STOPPED || job.done()) break;
    const uint64_t now = ClockDomain::ps_of(sc_core::sc_time_stamp());
    job.apply_changes(now);
    if (!sc_core::sc_pending_activity() && job.next_change_ps() == UINT64_MAX) {
      ran.idle = !job.done();  // nothing left to happen, work still open
      break;
    }
    if (!stall_ps) continue;
    if (job.progressed(now)) {
      since = now;
      continue;
    }
    if (now - since < stall_ps + slack_ps) continue;
    ran.stall = job.stall_report(now, since);
    break;
  }
  ran.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  ran.end_ps = ClockDomain::ps_of(sc_core::sc_time_stamp());
  return ran;
}

int run(Job& job) {
  install_report_handler();
  System s;
  job.prepare(s);
  build(
      s, job.host_specs(s), job.pcie(), job.memory(),
      [&](uint32_t n) { return job.make_switch(s, n); }, job.seed(), job.stats(), job.vcd());
  job.start(s);
  const Ran ran = run_loop(job);
  return job.finish(s, ran);
}

}  // namespace oonic::system
