#include "model/sender/standard_recovery.h"

namespace oonic::sender {

void OrnicRecovery::on_bitmap_nak(SendState& s, uint32_t qi, const wire::BitmapBlock& block) {
  for (uint32_t i = 0; i < block.nbits; ++i)
    if (!block.test(i)) s.resend(qi, wire::psn_add(block.base_psn, i));
}

void SelectiveRepeat::on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) {
  using F = wire::SchemeFeedback;
  if (fb.type == F::kSack || fb.type == F::kMpAck) {
    const uint32_t una = s.una(qi);
    if (qi < resent_.size() && resent_[qi] != una) {
      resent_[qi] = una;
      s.resend(qi, una);
    }
    return;
  }
  GoBackN::on_feedback(s, qi, fb);
}

void HoleList::on_feedback(SendState& s, uint32_t qi, const wire::SchemeFeedback& fb) {
  if (fb.type == wire::SchemeFeedback::kHoleNack) {
    for (uint8_t h = 0; h < fb.info && h < 3; ++h)
      for (uint32_t k = 0; k < fb.len[h]; ++k) s.resend(qi, wire::psn_add(fb.psn[h], k));
    return;
  }
  GoBackN::on_feedback(s, qi, fb);
}

}  // namespace oonic::sender
