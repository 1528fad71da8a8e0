// Static per-QP cyclic bitmap (see static_bitmap.h for the contract, the cost model and
// the choices). detail::CyclicBitmap is shared with Irn (irn.cpp).
//
// Model storage: the W bits of a QP are kept in ceil(W / 64) uint64_t words, slot s at bit
// s % 64 of word s / 64, bits at slots >= W always zero. This is independent of
// word_bits, which only sets what the cost model counts as one memory word.
#include "model/ordering/static_bitmap.h"

#include <stdexcept>

#include "model/wire/roce.h"

namespace oonic::ordering {

namespace detail {

namespace {
inline bool test_bit(const uint64_t* r, uint32_t s) {
  return (r[s / 64] >> (s % 64)) & 1u;
}
inline void set_bit(uint64_t* r, uint32_t s) {
  r[s / 64] |= uint64_t{1} << (s % 64);
}
inline void clear_bit(uint64_t* r, uint32_t s) {
  r[s / 64] &= ~(uint64_t{1} << (s % 64));
}
}  // namespace

CyclicBitmap::CyclicBitmap(const Geometry& g, const char* who) : g_(g), who_(who) {
  const std::string w(who_);
  if (g_.window_bits < 1 || g_.window_bits >= (1u << 22))
    throw std::invalid_argument(w + ": window must be 1 .. 2^22 - 1 bits");
  if (g_.word_bits < 1) throw std::invalid_argument(w + ": word_bits must be >= 1");
  if (g_.block_bits < 1) throw std::invalid_argument(w + ": block_bits must be >= 1");
  if (g_.max_qps < 1) throw std::invalid_argument(w + ": max_qps must be >= 1");
  words_per_qp_ = (g_.window_bits + g_.word_bits - 1) / g_.word_bits;
  blocks_per_qp_ = (g_.window_bits + g_.block_bits - 1) / g_.block_bits;
  store_words_ = (g_.window_bits + 63) / 64;
  qps_.resize(g_.max_qps);
  bits_.assign(static_cast<size_t>(g_.max_qps) * store_words_, 0);
}

void CyclicBitmap::open(uint32_t qp, uint32_t start_psn) {
  if (qp >= qps_.size()) throw std::out_of_range(std::string(who_) + "::open: qp out of range");
  close(qp);
  Qp& q = qps_[qp];
  q.epsn = start_psn & wire::kPsnMask;
  q.head = 0;
  q.open = true;
}

void CyclicBitmap::close(uint32_t qp) {
  if (qp >= qps_.size()) return;
  uint64_t* r = row(qp);
  for (uint32_t i = 0; i < store_words_; ++i) r[i] = 0;
  qps_[qp] = Qp{};
}

bool CyclicBitmap::is_open(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open;
}

uint32_t CyclicBitmap::epsn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].epsn : 0;
}

uint32_t CyclicBitmap::head(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].head : 0;
}

bool CyclicBitmap::received(uint32_t qp, uint32_t psn) const {
  if (!is_open(qp)) return false;
  const Qp& q = qps_[qp];
  const int32_t d = wire::psn_diff(psn & wire::kPsnMask, q.epsn);
  if (d < 0) return true;
  if (static_cast<uint32_t>(d) >= g_.window_bits) return false;
  return test_bit(row(qp), (q.head + static_cast<uint32_t>(d)) % g_.window_bits);
}

uint32_t CyclicBitmap::blocks_held(uint32_t qp) const {
  return is_open(qp) ? blocks_per_qp_ : 0;
}

Outcome CyclicBitmap::receive(uint32_t qp, uint32_t psn) {
  Outcome out;
  if (qp >= qps_.size() || !qps_[qp].open) {
    out.verdict = Verdict::kQpClosed;
    return out;
  }
  Qp& q = qps_[qp];
  const uint32_t w = g_.window_bits;
  psn &= wire::kPsnMask;
  const int32_t d = wire::psn_diff(psn, q.epsn);
  out.blocks_held = blocks_per_qp_;
  if (d < 0) {
    out.verdict = Verdict::kDuplicate;  // ePSN register compare: 0 cycles
  } else if (static_cast<uint32_t>(d) >= w) {
    out.verdict = Verdict::kBeyondWindow;  // address arithmetic: 0 cycles
  } else {
    uint64_t* r = row(qp);
    // head < W and d < W < 2^22: no overflow.
    const uint32_t slot = (q.head + static_cast<uint32_t>(d)) % w;
    // Locate: read the word holding the slot.
    out.locate_cycles = 1;
    out.cycles = 1;
    out.block_accesses = 1;
    if (d > 0) {
      if (test_bit(r, slot)) {
        out.verdict = Verdict::kDuplicate;
      } else {
        set_bit(r, slot);  // write back
        out.cycles += 1;
        out.block_accesses += 1;
        out.verdict = Verdict::kOutOfOrder;
      }
    } else {
      // In order. The head slot's bit is clear (invariant); the "set" write clears the
      // passed bits of the first word; every further word read costs one cycle.
      out.cycles += 1;
      out.block_accesses += 1;
      const bool multi_word = w > g_.word_bits;
      uint32_t pos = q.head;
      uint32_t adv = 0;
      uint32_t extra_words = 0;
      do {
        clear_bit(r, pos);
        pos = pos + 1 == w ? 0 : pos + 1;
        ++adv;
        if (multi_word && pos % g_.word_bits == 0) ++extra_words;
      } while (test_bit(r, pos));
      q.head = pos;
      q.epsn = wire::psn_add(q.epsn, adv);
      out.cycles += extra_words;
      out.block_accesses += 2 * extra_words;
      out.head_advanced = true;
      out.verdict = Verdict::kInOrder;
    }
  }
  out.epsn = q.epsn;
  return out;
}

bool CyclicBitmap::check_invariants(std::string* why) const {
  auto fail = [why](uint32_t qi, const char* msg) {
    if (why) *why = "qp " + std::to_string(qi) + ": " + msg;
    return false;
  };
  const uint32_t w = g_.window_bits;
  const uint32_t tail_bits = w % 64;  // used bits of the last storage word (0 = all 64)
  const uint64_t tail_mask = tail_bits == 0 ? ~uint64_t{0} : ((uint64_t{1} << tail_bits) - 1);
  for (uint32_t qi = 0; qi < qps_.size(); ++qi) {
    const Qp& q = qps_[qi];
    const uint64_t* r = row(qi);
    if (!q.open) {
      for (uint32_t i = 0; i < store_words_; ++i)
        if (r[i] != 0) return fail(qi, "closed QP has bits set");
      if (q.epsn != 0 || q.head != 0) return fail(qi, "closed QP keeps state");
      continue;
    }
    if (q.epsn > wire::kPsnMask) return fail(qi, "ePSN wider than 24 bits");
    if (q.head >= w) return fail(qi, "head out of range");
    if ((r[store_words_ - 1] & ~tail_mask) != 0) return fail(qi, "bits set beyond the window");
    if (test_bit(r, q.head)) return fail(qi, "ePSN's bit is set");
  }
  return true;
}

}  // namespace detail

// ---- StaticBitmap -----------------------------------------------------------------

void StaticBitmap::set_feedback(Outcome& out, uint32_t) const {
  out.feedback = out.verdict == Verdict::kInOrder || out.verdict == Verdict::kDuplicate
                     ? Feedback::kAck
                     : Feedback::kNone;  // OOO, beyond window, closed
}

}  // namespace oonic::ordering
