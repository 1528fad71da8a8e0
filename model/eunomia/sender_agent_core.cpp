#include "model/eunomia/sender_agent_core.h"

#include <algorithm>

namespace oonic::eunomia {

SenderAgentCore::SenderAgentCore(const StatGroup& st, uint32_t max_qps, uint32_t window_psns,
                                 const sender::IrnTimerParams& irn)
    : irn_(irn),
      window_(sender::PsnRing::round_up(window_psns)),
      board_(max_qps, sender::PsnRing(window_psns)),
      held_psn_(max_qps, 0),
      tagged_(
          st.counter("metadata_packets", "packet", "data packets sent with Head + last metadata")),
      holds_(st.counter("last_packet_holds", "event",
                        "WRITE last packets held until all before them was ACKed")),
      sacks_(st.counter("sacks", "frame", "SACKs received (marked, no recovery)")),
      nacks_(st.counter("nacks", "frame", "NACKs received (that PSN resent)")),
      timeout_resends_(
          st.counter("timeout_resends", "packet", "PSNs resent on a timeout (not SACKed)")),
      timeout_skipped_(
          st.counter("timeout_skipped", "packet", "PSNs a timeout did not resend because SACKed")) {
  if (irn_.sack_loss_threshold) {
    inferred_to_.assign(max_qps, 0);
    inferred_ = &st.counter("sack_inferred_resends", "packet",
                            "PSNs resent because a SACK passed them by more than "
                            "eunomia.sender.sack_loss_threshold");
  }
}

void SenderAgentCore::tag(wire::FrameSpec& f, const sender::PacketTag& t) {
  f.bth.resv7 |= wire::kBthEunomiaMetaBit;
  f.eunomia.head = t.head;
  f.eunomia.last = t.last;
  tagged_.inc();
}

bool SenderAgentCore::holds(uint32_t qi, bool last_of_ooo_write, uint32_t send_psn, uint32_t una) {
  if (!last_of_ooo_write || send_psn == una) return false;
  const uint32_t key = send_psn + 1;  // 0: none counted yet
  if (qi < held_psn_.size() && held_psn_[qi] != key) {
    held_psn_[qi] = key;
    holds_.inc();
  }
  return true;
}

void SenderAgentCore::on_sack(uint32_t qi, uint32_t psn, uint32_t una) {
  sacks_.inc();
  if (qi >= board_.size()) return;
  const int32_t d = wire::psn_diff(psn, una);
  if (d < 0 || static_cast<uint32_t>(d) >= window_) return;  // passed, or outside the window
  board_[qi].mark(psn);
}

void SenderAgentCore::on_feedback(sender::SendState& s, uint32_t qi,
                                  const wire::SchemeFeedback& fb) {
  using F = wire::SchemeFeedback;
  switch (fb.type) {
    case F::kSack:
    case F::kMpAck:
      on_sack(qi, fb.psn[0], s.una(qi));
      if (irn_.sack_loss_threshold) infer_losses(s, qi, fb.psn[0]);
      break;
    case F::kNack:
      nacks_.inc();
      s.resend(qi, fb.psn[0]);
      break;
    default:
      break;  // another scheme's feedback: the timeout recovers
  }
}

void SenderAgentCore::advanced(uint32_t qi, uint32_t from, uint32_t to) {
  if (qi < board_.size()) board_[qi].clear(from, to);
}

void SenderAgentCore::infer_losses(sender::SendState& s, uint32_t qi, uint32_t psn) {
  if (qi >= inferred_to_.size()) return;
  const uint32_t una = s.una(qi);
  const int32_t span = wire::psn_diff(psn, una) - static_cast<int32_t>(irn_.sack_loss_threshold);
  if (span <= 0) return;
  // Each PSN is inferred lost once (from una on, or from where the last inference ended).
  uint32_t from = inferred_to_[qi];
  if (wire::psn_diff(from, una) < 0 || wire::psn_diff(from, s.high(qi)) > 0) from = una;
  const uint32_t to = wire::psn_add(una, static_cast<uint32_t>(span));
  for (uint32_t p = from; wire::psn_diff(p, to) < 0; p = wire::psn_add(p, 1))
    if (!sacked(qi, p) && s.in_write_or_send(qi, p) && s.resend(qi, p)) inferred_->inc();
  if (wire::psn_diff(to, from) > 0) inferred_to_[qi] = to;
}

bool SenderAgentCore::sacked(uint32_t qi, uint32_t psn) const {
  return qi < board_.size() && board_[qi].test(psn);
}

void SenderAgentCore::on_timeout(sender::SendState& s, uint32_t qi) {
  const uint32_t una = s.una(qi), high = s.high(qi);
  // Selective repeat of what no SACK marked when every outstanding PSN belongs to a
  // WRITE or SEND; READ spans go back N.
  for (uint32_t psn = una; psn != high; psn = wire::psn_add(psn, 1))
    if (!s.in_write_or_send(qi, psn)) return s.go_back(qi, una);
  // PSNs from send_psn on are sent again anyway (an earlier go-back-N moved it).
  const uint32_t end = wire::psn_diff(s.send_psn(qi), high) < 0 ? s.send_psn(qi) : high;
  uint64_t sent = 0, skipped = 0;
  for (uint32_t psn = una; psn != end; psn = wire::psn_add(psn, 1)) {
    if (sacked(qi, psn))
      ++skipped;
    else if (s.resend(qi, psn))
      ++sent;
  }
  timeout_resends_.inc(sent);
  timeout_skipped_.inc(skipped);
}

}  // namespace oonic::eunomia
