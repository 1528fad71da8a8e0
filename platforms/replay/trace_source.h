// The network side of a replay: plays the trace's input frames into the NIC's
// mac_rx_socket in their arrival order. Arrival cycle (the cycle the frame's
// last byte is in, rounded up to the NIC clock) by timing mode:
//   line-rate  back to back on a net.link_gbps link: end_i = end_{i-1} + wire(i)
//   captured   the record's timestamp is its first byte: end_i = max(ts_i + wire(i),
//              end_{i-1} + wire(i)) (a capture never beats the link); text lines
//              with time '-' follow the previous frame at line rate
//   gap:N      end_0 = wire(0), then exactly N NIC cycles between arrivals
// wire(i) = (frame + FCS + preamble/IFG) bytes x 8 / rate. One wake per frame.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <chrono>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "model/core/clock.h"
#include "model/core/stats.h"
#include "platforms/trace/trace.h"
#include "tlm/net_packet.h"

namespace oonic::replay {

struct Timing {
  enum class Mode { kCaptured, kLineRate, kGap } mode = Mode::kCaptured;
  uint64_t gap_cycles = 0;
  static Timing parse(const std::string& s);  // throws oonic::Error
  std::string text() const;
};

class TraceSource : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TraceSource> mac_tx_socket;

  TraceSource(sc_core::sc_module_name name, const trace::Trace& trace,
              const std::vector<uint32_t>& input, Timing timing, double link_gbps,
              const ClockDomain& clk, Stats& stats, bool progress);
  Cycle first_arrival() const { return first_; }
  Cycle last_arrival() const { return last_; }
  // Called, in record order among the input frames, for each record that is
  // not input (frames the DUT sent), so logs stay in trace order.
  void set_skipped(const std::vector<uint32_t>* skipped, std::function<void(uint32_t)> on_skip) {
    skipped_ = skipped, on_skip_ = std::move(on_skip);
  }
  // Calls f(arrival cycle) after every n-th frame delivered: the run's results
  // settle behind it (no block books a cycle before the current one).
  void every_frames(uint32_t n, std::function<void(Cycle)> f) {
    every_ = n, on_every_ = std::move(f);
  }

 private:
  SC_HAS_PROCESS(TraceSource);
  // A method, not a thread: each wake delivers the frames due now and asks to run again
  // at the next one's arrival (no stack switch per frame).
  void run();
  void log_skipped_before(uint32_t idx);
  size_t next_ = 0;     // the next input frame
  Cycle next_at_ = 0;   // its arrival (arrival() runs once per frame, in order)
  size_t skip_ = 0;     // skipped records logged so far
  bool shown_ = false;  // progress on the terminal
  bool started_ = false;
  std::chrono::steady_clock::time_point t0_;
  Cycle arrival(size_t k, const trace::Record& r);  // of input frame k, in order
  const trace::Trace& trace_;
  trace::Trace::Cursor cursor_;  // input frames are played in record order
  const std::vector<uint32_t>& input_;
  ClockDomain clk_;
  Timing timing_;
  double ps_per_byte_;
  uint64_t end_ps_ = 0;  // the previous frame's last byte (not rounded to a cycle)
  const std::vector<uint32_t>* skipped_ = nullptr;
  std::function<void(uint32_t)> on_skip_;
  Cycle first_ = 0, last_ = 0;
  bool progress_;
  uint32_t every_ = 0;
  std::function<void(Cycle)> on_every_;
  Counter& frames_;
  tlm::tlm_generic_payload gp_;
  NetPacketMeta meta_;
};

}  // namespace oonic::replay
