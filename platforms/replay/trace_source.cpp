#include "platforms/replay/trace_source.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "model/core/error.h"
#include "model/wire/roce.h"

namespace oonic::replay {

Timing Timing::parse(const std::string& s) {
  Timing t;
  if (s == "captured") return t;
  if (s == "line-rate") return t.mode = Mode::kLineRate, t;
  if (s.rfind("gap:", 0) == 0) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(s.c_str() + 4, &end, 10);
    if (end && *end == 0 && s.size() > 4 && n > 0) return t.mode = Mode::kGap, t.gap_cycles = n, t;
  }
  throw Error(msg::kCli,
              "--timing '" + s + "': expected captured, line-rate or gap:N (N cycles > 0)");
}

std::string Timing::text() const {
  switch (mode) {
    case Mode::kCaptured:
      return "captured";
    case Mode::kLineRate:
      return "line-rate";
    case Mode::kGap:
      return "gap:" + std::to_string(gap_cycles);
  }
  return "?";
}

TraceSource::TraceSource(sc_core::sc_module_name name, const trace::Trace& trace,
                         const std::vector<uint32_t>& input, Timing timing, double link_gbps,
                         const ClockDomain& clk, Stats& stats, bool progress)
    : sc_module(name),
      mac_tx_socket("mac_tx_socket"),
      trace_(trace),
      cursor_(trace),
      input_(input),
      clk_(clk),
      progress_(progress),
      frames_(stats.counter(std::string(this->name()) + ".frames", "frame",
                            "trace frames delivered to the NIC")) {
  const double ps_per_byte = 8000.0 / link_gbps;
  uint64_t end = 0;
  arrival_.reserve(input.size());
  for (size_t k = 0; k < input.size(); ++k) {
    const trace::Record& r = trace.records[input[k]];
    uint64_t w = static_cast<uint64_t>(std::ceil(wire::wire_bytes(r.orig_len) * ps_per_byte));
    uint64_t e;
    if (timing.mode == Timing::Mode::kGap) {
      Cycle c = k == 0 ? clk.ceil_cycles(w) : arrival_.back() + timing.gap_cycles;
      arrival_.push_back(c);
      continue;
    }
    e = end + w;
    if (timing.mode == Timing::Mode::kCaptured && r.has_time) e = std::max(e, r.time_ps + w);
    end = e;
    arrival_.push_back(clk.ceil_cycles(e));
  }
  if (!arrival_.empty()) first_ = arrival_.front(), last_ = arrival_.back();
  SC_THREAD(run);
}

void TraceSource::run() {
  auto t0 = std::chrono::steady_clock::now();
  bool shown = false;
  size_t skip = 0;
  auto log_skipped_before = [&](uint32_t idx) {
    if (!skipped_) return;
    for (; skip < skipped_->size() && (*skipped_)[skip] < idx; ++skip)
      if (on_skip_) on_skip_((*skipped_)[skip]);
  };
  for (size_t k = 0; k < input_.size(); ++k) {
    const trace::Record& r = trace_.records[input_[k]];
    clk_.wait_until(arrival_[k]);
    log_skipped_before(input_[k]);
    gp_.set_command(tlm::TLM_WRITE_COMMAND);
    gp_.set_address(0);
    gp_.set_data_ptr(const_cast<uint8_t*>(cursor_.frame(r)));
    gp_.set_data_length(r.len);
    gp_.set_streaming_width(r.len);
    gp_.set_byte_enable_ptr(nullptr);
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    meta_.record = r.index;
    meta_.capture_ps = r.time_ps;
    gp_.set_extension(&meta_);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    mac_tx_socket->b_transport(gp_, d);
    gp_.clear_extension(&meta_);
    frames_.inc();
    if (progress_ && (k & 4095) == 4095) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s > 1.0) {
        std::fprintf(stderr, "\roonic replay: %zu/%zu frames (%.0f%%), %.2f Mframe/s   ", k + 1,
                     input_.size(), 100.0 * (k + 1) / input_.size(), (k + 1) / s / 1e6);
        shown = true;
      }
    }
  }
  log_skipped_before(~0u);
  if (shown) std::fprintf(stderr, "\r%70s\r", "");
}

}  // namespace oonic::replay
