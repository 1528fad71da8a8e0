// What the Rsp Processor tells the requester side of the NIC about responses
// (implemented by the Rsp Manager). Each call is made when the Rsp Processor
// books the packet, with the cycle t at which it takes effect (QP context
// written back); the implementation defers the work to t.
#pragma once

#include <cstdint>

#include "model/core/cycles.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

class RequesterEvents {
 public:
  virtual ~RequesterEvents() = default;
  // ACK covering every PSN up to psn; cached: the "Start_Addr cached" flag.
  virtual void on_ack(Cycle t, uint32_t qi, uint32_t psn, bool cached) = 0;
  // NAK (AETH syndrome) for psn: PSN sequence error = responder expects psn.
  virtual void on_nak(Cycle t, uint32_t qi, uint8_t syndrome, uint32_t psn) = 0;
  // OOO NAK: the responder expects epsn; block says which PSNs it holds.
  virtual void on_bitmap_nak(Cycle t, uint32_t qi, uint32_t epsn,
                             const wire::BitmapBlock& block) = 0;
  // A baseline scheme's feedback (Scheme Feedback frame): the responder expects epsn.
  virtual void on_feedback(Cycle t, uint32_t qi, uint32_t epsn, const wire::SchemeFeedback& fb) = 0;
  // A READ response packet of the READ starting at read_psn was placed; its
  // DMA is done at dma_done; complete: every packet of the READ is placed.
  virtual void on_read_data(Cycle t, uint32_t qi, uint32_t read_psn, Cycle dma_done,
                            bool complete) = 0;
  // A standard READ response arrived past the expected PSN (a response was lost).
  virtual void on_read_gap(Cycle t, uint32_t qi, uint32_t read_psn, uint32_t expected_psn) = 0;
  // The requester's bitmap asks for the PSNs of block (bit 0) in an OOO READ's responses;
  // sack: it is a SACK's first hole (some schemes take that as information only).
  virtual void on_read_loss(Cycle t, uint32_t qi, uint32_t read_psn, const wire::BitmapBlock& block,
                            uint32_t epsn, bool sack) = 0;
  // A response acknowledging up to psn carried an INT stack (HPCC's echo), told before
  // the response itself.
  virtual void on_int(Cycle t, uint32_t qi, uint32_t psn, const wire::IntStack& stack) {}
};

}  // namespace oonic::ornic
