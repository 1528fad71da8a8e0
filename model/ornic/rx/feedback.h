// What a receive-order call's Outcome asks the receiver to tell the sender, in the two
// wire forms (docs/DESIGN.md "Wire format"). Plain C++.
#pragma once

#include <cstdint>

#include "model/ordering/factory.h"
#include "model/ordering/ordering_unit.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

// As the block of an OOO NAK (bit = 0: resend): ORNIC's NAK block; a SACK (IRN, MP-RDMA)
// asks for ePSN; MELO's NACK for its holes; a NACK (beyond the window) for that PSN.
// False when the call needs none (or a go-back-N NAK: Outcome::feedback kNak).
bool selective_feedback(const ordering::Outcome& o, uint32_t psn, wire::BitmapBlock* block);

// In the scheme's own wire format (Scheme Feedback frame: MELO hole NACK, IRN SACK,
// NACK, MP-RDMA ACK when the scheme's traits say so), for the schemes that do not send
// ORNIC's bitmap NAK. False when the call needs none.
bool scheme_feedback(const ordering::Outcome& o, uint32_t psn, uint16_t udp_sport,
                     const ordering::SchemeTraits& traits, wire::SchemeFeedback* fb);

}  // namespace oonic::ornic
