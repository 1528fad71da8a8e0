// What a receive-order call's Outcome asks the receiver to tell the sender, in the two
// wire forms (docs/DESIGN.md "Wire format"). Plain C++.
#pragma once

#include <cstdint>

#include "model/ordering/ordering_unit.h"
#include "model/schemes/receive_schemes.h"
#include "model/wire/roce.h"

namespace oonic::ornic {

// As the block of an OOO NAK (bit = 0: resend): ORNIC's NAK block; a SACK (IRN, MP-RDMA)
// asks for ePSN; MELO's NACK for its holes; a NACK (beyond the window) for that PSN.
// False when the call needs none (or a go-back-N NAK: Outcome::feedback kNak).
bool selective_feedback(const ordering::Outcome& o, uint32_t psn, wire::BitmapBlock* block);

// In the scheme's own wire format (Scheme Feedback frame: MELO hole NACK, IRN SACK,
// NACK, MP-RDMA ACK when the scheme's traits say so), for the schemes that do not send
// ORNIC's bitmap NAK, about data packet v. False when the call needs none.
// MP-RDMA (traits.sack_as_mp_ack): every packet the unit SACKs (in order, out of order,
// duplicate) gets an MP-RDMA ACK (mp_ack); its NACK names the lost PSN the unit reports
// (Outcome::sack_psn), not the dropped packet's, and echoes the VP.
// UET (traits.uet_ack): every ACK the unit asks for (kSack) is UET's ACK (uet_ack); its
// NACK echoes the entropy value too.
bool scheme_feedback(const ordering::Outcome& o, const wire::PacketView& v,
                     const ordering::SchemeTraits& traits, wire::SchemeFeedback* fb);
// MP-RDMA's per-packet ACK of data packet v: AACK, SACK, the VP (UDP source port) it
// came on, ECE (it was CE-marked) and the ReTx echo (it carried ReTx).
void mp_ack(uint32_t aack, uint32_t sack, const wire::PacketView& v, wire::SchemeFeedback* fb);
// UET's ACK (traits.uet_ack) of data packet v with PSN psn: the receiver's out-of-order
// count, its SACK bitmap below psn, the packets it covers, the entropy value (UDP source
// port) v came on, and ECE (v was CE-marked). The OOO count saturates at 2^24 - 2
// (kUetOooUnknown, 2^24 - 1, means not known; 0xFFFF on UET's wire) and the coalesced
// count at 63.
void uet_ack(uint32_t psn, uint32_t ooo, uint64_t sack_bits, uint32_t coalesced,
             const wire::PacketView& v, wire::SchemeFeedback* fb);

}  // namespace oonic::ornic
