// The MAC block (shell): the NIC's port to the network, outside ORNIC's Figure 1.
//   mac_rx_socket  TLM target: a frame arrives with its last byte at the annotated delay;
//                  the MAC hands it to the RX plane (FrameIn) at that cycle; a PFC frame
//                  it keeps (MacCore::pause) and wakes the TX arbiter on an XON.
//   mac_tx_socket  TLM initiator: the frames the Hdr Generator built, each at the cycle
//                  its first byte goes on the wire (the core's wire-time booking).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "model/core/clock.h"
#include "model/core/link.h"
#include "model/ornic/block_env.h"
#include "model/ornic/mac_core.h"
#include "model/ornic/wake.h"

namespace oonic::ornic {

// Where received frames go (the RX plane).
class FrameIn {
 public:
  virtual ~FrameIn() = default;
  // record: the trace record it came from (sideband), or a running count.
  virtual void frame_in(Cycle arrival, const uint8_t* frame, uint32_t len, uint32_t record) = 0;
};

class Mac : public sc_core::sc_module, private FrameOut {
 public:
  tlm_utils::simple_target_socket<Mac> mac_rx_socket;
  tlm_utils::simple_initiator_socket<Mac> mac_tx_socket;

  Mac(sc_core::sc_module_name name, const BlockEnv& env);
  MacCore core;
  Link<FrameIn> rx_port{"mac.rx_port"};           // the RX plane, bound where the NIC is assembled
  Link<WakeUp> tx_wake_port{"mac.tx_wake_port"};  // the TX arbiter: a PFC XON restarts it

 private:
  void mac_rx(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void frame_out(Cycle start, const uint8_t* frame, size_t len) override;
  ClockDomain clk_;
  tlm::tlm_generic_payload tx_gp_;
  uint32_t rx_count_ = 0;
};

}  // namespace oonic::ornic
