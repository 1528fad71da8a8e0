// Go-back-N receiver core (see gbn.h for the contract, the cost model and the choices).
#include "model/ordering/gbn.h"

#include <stdexcept>

#include "model/wire/roce.h"

namespace oonic::ordering {

Gbn::Gbn(const Params& p) : p_(p) {
  if (p_.max_qps < 1) throw std::invalid_argument("Gbn: max_qps must be >= 1");
  qps_.resize(p_.max_qps);
}

void Gbn::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  (void)otd;
  if (qp >= qps_.size()) throw std::out_of_range("Gbn::open: qp out of range");
  Qp& q = qps_[qp];
  q.epsn = start_psn & wire::kPsnMask;
  q.nak_sent = false;
  q.open = true;
}

void Gbn::close(uint32_t qp) {
  if (qp >= qps_.size()) return;
  qps_[qp] = Qp{};
}

bool Gbn::is_open(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open;
}

uint32_t Gbn::epsn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].epsn : 0;
}

uint32_t Gbn::blocks_held(uint32_t qp) const {
  (void)qp;
  return 0;
}

bool Gbn::nak_outstanding(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open && qps_[qp].nak_sent;
}

Outcome Gbn::receive(uint32_t qp, uint32_t psn) {
  Outcome out;
  if (qp >= qps_.size() || !qps_[qp].open) {
    out.verdict = Verdict::kQpClosed;
    return out;
  }
  Qp& q = qps_[qp];
  psn &= wire::kPsnMask;
  const int32_t d = wire::psn_diff(psn, q.epsn);
  if (d == 0) {
    out.verdict = Verdict::kInOrder;
    out.feedback = Feedback::kAck;
    out.head_advanced = true;
    q.epsn = wire::psn_add(q.epsn, 1);
    q.nak_sent = false;  // a new ePSN re-arms the NAK
  } else if (d < 0) {
    out.verdict = Verdict::kDuplicate;
    out.feedback = Feedback::kAck;
  } else {
    out.verdict = Verdict::kUntrackable;
    if (!q.nak_sent) {
      q.nak_sent = true;
      out.feedback = Feedback::kNak;
    }
  }
  out.epsn = q.epsn;
  return out;
}

bool Gbn::check_invariants(std::string* why) const {
  for (uint32_t qi = 0; qi < qps_.size(); ++qi) {
    const Qp& q = qps_[qi];
    const char* bad = nullptr;
    if (q.epsn > wire::kPsnMask) bad = "ePSN wider than 24 bits";
    if (!q.open && q.nak_sent) bad = "closed QP has a NAK outstanding";
    if (!q.open && q.epsn != 0) bad = "closed QP keeps an ePSN";
    if (bad) {
      if (why) *why = "qp " + std::to_string(qi) + ": " + bad;
      return false;
    }
  }
  return true;
}

}  // namespace oonic::ordering
