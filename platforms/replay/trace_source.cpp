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
      timing_(timing),
      ps_per_byte_(8000.0 / link_gbps),
      progress_(progress),
      frames_(stats.counter(std::string(this->name()) + ".frames", "frame",
                            "trace frames delivered to the NIC")) {
  // first_ and last_ are known before the run: one pass over the records' times.
  for (size_t k = 0; k < input.size(); ++k) {
    Cycle c = arrival(k, trace.records[input[k]]);
    if (k == 0) first_ = c;
    last_ = c;
  }
  end_ps_ = 0;
  SC_METHOD(run);  // runs at initialization: books the first frame
}

Cycle TraceSource::arrival(size_t k, const trace::Record& r) {
  uint64_t w = static_cast<uint64_t>(std::ceil(wire::wire_bytes(r.orig_len) * ps_per_byte_));
  if (timing_.mode == Timing::Mode::kGap)
    return k == 0 ? clk_.ceil_cycles(w) : first_ + k * timing_.gap_cycles;
  uint64_t e = end_ps_ + w;
  if (timing_.mode == Timing::Mode::kCaptured && r.has_time) e = std::max(e, r.time_ps + w);
  end_ps_ = e;
  return clk_.ceil_cycles(e);
}

void TraceSource::log_skipped_before(uint32_t idx) {
  if (!skipped_) return;
  for (; skip_ < skipped_->size() && (*skipped_)[skip_] < idx; ++skip_)
    if (on_skip_) on_skip_((*skipped_)[skip_]);
}

void TraceSource::run() {
  if (!started_) {  // the first run, at initialization
    started_ = true;
    t0_ = std::chrono::steady_clock::now();
    if (!input_.empty()) next_at_ = arrival(0, trace_.records[input_[0]]);
  }
  while (next_ < input_.size()) {
    const sc_core::sc_time d = clk_.until(next_at_);
    if (d != sc_core::SC_ZERO_TIME) {  // the next frame is not due yet: wake then
      next_trigger(d);
      return;
    }
    const size_t k = next_;
    const trace::Record& r = trace_.records[input_[k]];
    const Cycle at = next_at_;
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
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    mac_tx_socket->b_transport(gp_, zero);
    gp_.clear_extension(&meta_);
    frames_.inc();
    if (every_ && (k + 1) % every_ == 0 && on_every_) on_every_(at);
    if (progress_ && (k & 4095) == 4095) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
      if (s > 1.0) {
        std::fprintf(stderr, "\roonic replay: %zu/%zu frames (%.0f%%), %.2f Mframe/s   ", k + 1,
                     input_.size(), 100.0 * (k + 1) / input_.size(), (k + 1) / s / 1e6);
        shown_ = true;
      }
    }
    if (++next_ < input_.size()) next_at_ = arrival(next_, trace_.records[input_[next_]]);
  }
  log_skipped_before(~0u);
  if (shown_) std::fprintf(stderr, "\r%70s\r", "");
}

}  // namespace oonic::replay
