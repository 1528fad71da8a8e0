// Linked-list bitmap core shared by MELO, MELO+, LEFT and LEFT+ (see linked_list_bitmap.h
// for the structure, the cost model and the documented choices).
#include "model/ordering/linked_list_bitmap.h"

#include <stdexcept>

namespace oonic::ordering {

namespace {
constexpr uint32_t kMaxHoleLen =
    255;  // Hole::length is 8 bits (docs/DESIGN.md "Wire format": MELO NACK)
}  // namespace

LinkedListBitmap::LinkedListBitmap(const Params& p) : p_(p) {
  if (p_.block_bits < 1 || p_.block_bits > wire::kMaxBitmapBlockBits)
    throw std::invalid_argument("LinkedListBitmap: block_bits must be 1..kMaxBitmapBlockBits");
  if (p_.pool_bits < p_.block_bits || p_.pool_bits % p_.block_bits != 0)
    throw std::invalid_argument(
        "LinkedListBitmap: pool_bits must be a positive multiple of block_bits");
  // A list must stay far inside the signed PSN distance range (2^23).
  if (p_.pool_bits >= (1u << 22))
    throw std::invalid_argument("LinkedListBitmap: pool_bits too large for 24-bit PSNs");
  if (p_.max_qps < 1) throw std::invalid_argument("LinkedListBitmap: max_qps must be >= 1");
  pool_blocks_ = p_.pool_bits / p_.block_bits;
  if (p_.max_blocks_per_qp > pool_blocks_)
    throw std::invalid_argument("LinkedListBitmap: max_blocks_per_qp exceeds the pool");
  max_blocks_ = p_.max_blocks_per_qp == 0 ? pool_blocks_ : p_.max_blocks_per_qp;
  words_per_block_ = (p_.block_bits + 31) / 32;
  qps_.resize(p_.max_qps);
  bits_.assign(static_cast<size_t>(pool_blocks_) * words_per_block_, 0u);
  next_ptr_.assign(pool_blocks_, kNoBlock);
  free_slots_.resize(pool_blocks_);
  for (uint32_t b = 0; b < pool_blocks_; ++b) free_slots_[b] = b;  // block 0 first
  avail_ptr_ = 0;
  owner_.assign(pool_blocks_, -1);
}

// ---- QP lifecycle -----------------------------------------------------------------

void LinkedListBitmap::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  (void)otd;
  if (qp >= qps_.size()) throw std::out_of_range("LinkedListBitmap::open: qp out of range");
  if (qps_[qp].open) close(qp);
  Qp& q = qps_[qp];
  q = Qp{};
  start_psn &= wire::kPsnMask;
  q.base = q.nxt = q.high = start_psn;
  q.open = true;
  on_open(qp);
}

void LinkedListBitmap::close(uint32_t qp) {
  if (qp >= qps_.size()) return;
  Qp& q = qps_[qp];
  uint32_t b = q.start_ptr;
  for (uint32_t i = 0; i < q.length; ++i) {
    const uint32_t nb = next_ptr_[b];
    push(qp, b);
    b = nb;
  }
  q = Qp{};
}

bool LinkedListBitmap::is_open(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open;
}

uint32_t LinkedListBitmap::epsn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].nxt : 0;
}

uint32_t LinkedListBitmap::blocks_held(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].length : 0;
}

uint32_t LinkedListBitmap::rcv_high(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].high : 0;
}

uint32_t LinkedListBitmap::base_psn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].base : 0;
}

uint32_t LinkedListBitmap::start_ptr(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].start_ptr : kNoBlock;
}

uint32_t LinkedListBitmap::end_ptr(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].end_ptr : kNoBlock;
}

std::vector<uint32_t> LinkedListBitmap::list_blocks(uint32_t qp) const {
  std::vector<uint32_t> v;
  if (qp >= qps_.size()) return v;
  const Qp& q = qps_[qp];
  uint32_t b = q.start_ptr;
  for (uint32_t i = 0; i < q.length && b < pool_blocks_; ++i) {
    v.push_back(b);
    b = next_ptr_[b];
  }
  return v;
}

uint32_t LinkedListBitmap::holes(uint32_t qp, std::array<Hole, 3>* out) const {
  if (qp >= qps_.size()) return 0;
  if (out) *out = qps_[qp].holes;
  return qps_[qp].nholes;
}

// ---- pool -------------------------------------------------------------------------

uint32_t LinkedListBitmap::first_zero(uint32_t block, uint32_t from) const {
  const uint32_t m = p_.block_bits;
  const uint32_t* w = words(block);
  for (uint32_t i = from / 32; i < words_per_block_; ++i) {
    uint32_t inv = ~w[i];
    if (i == from / 32) inv &= ~0u << (from % 32);
    if (inv != 0) {
      const uint32_t z = i * 32 + static_cast<uint32_t>(__builtin_ctz(inv));
      return z < m ? z : m;
    }
  }
  return m;
}

uint32_t LinkedListBitmap::pop(uint32_t qp) {
  const uint32_t b = free_slots_[avail_ptr_++];
  owner_[b] = static_cast<int32_t>(qp);
  uint32_t* w = words(b);
  for (uint32_t i = 0; i < words_per_block_; ++i) w[i] = 0;
  next_ptr_[b] = kNoBlock;
  return b;
}

void LinkedListBitmap::push(uint32_t qp, uint32_t block) {
  on_release(qp, block);
  owner_[block] = -1;
  next_ptr_[block] = kNoBlock;
  free_slots_[--avail_ptr_] = block;
}

// ---- holes (QP registers, 0 cycles) -----------------------------------------------

void LinkedListBitmap::add_hole(Qp& q, uint32_t from, uint32_t to) {
  std::array<Hole, 3> nh{};
  uint32_t n = 0;
  uint32_t top = to;
  uint32_t remaining = static_cast<uint32_t>(wire::psn_diff(to, from));
  while (remaining > 0 && n < 3) {
    const uint32_t len = remaining < kMaxHoleLen ? remaining : kMaxHoleLen;
    top = wire::psn_add(top, -static_cast<int64_t>(len));
    nh[n].start_psn = top;
    nh[n].length = static_cast<uint8_t>(len);
    ++n;
    remaining -= len;
  }
  for (uint32_t i = 0; i < q.nholes && n < 3; ++i) nh[n++] = q.holes[i];
  q.holes = nh;
  q.nholes = static_cast<uint8_t>(n);
}

void LinkedListBitmap::fill_hole(Qp& q, uint32_t psn) {
  for (uint32_t i = 0; i < q.nholes; ++i) {
    Hole& h = q.holes[i];
    const int32_t off = wire::psn_diff(psn, h.start_psn);
    if (off < 0 || off >= static_cast<int32_t>(h.length)) continue;
    const uint32_t o = static_cast<uint32_t>(off);
    if (h.length == 1) {
      for (uint32_t j = i; j + 1 < q.nholes; ++j) q.holes[j] = q.holes[j + 1];
      q.nholes -= 1;
      q.holes[q.nholes] = Hole{};
    } else if (o == 0) {
      h.start_psn = wire::psn_add(h.start_psn, 1);
      h.length -= 1;
    } else if (o + 1 == h.length) {
      h.length -= 1;
    } else {
      // Split: upper part stays in place (more recent), lower part right after it.
      const Hole lower{h.start_psn, static_cast<uint8_t>(o)};
      h.start_psn = wire::psn_add(psn, 1);
      h.length = static_cast<uint8_t>(h.length - o - 1);
      const uint32_t n = q.nholes < 3 ? q.nholes + 1u : 3u;
      for (uint32_t j = n - 1; j > i + 1; --j) q.holes[j] = q.holes[j - 1];
      if (i + 1 < 3) q.holes[i + 1] = lower;
      q.nholes = static_cast<uint8_t>(n);
    }
    return;
  }
}

void LinkedListBitmap::copy_holes(const Qp& q, Outcome& out) {
  out.holes = q.holes;
  out.nholes = q.nholes;
}

void LinkedListBitmap::gbn_nak(Qp& q, Outcome& out) {
  if (q.nak_sent && q.nak_epsn == q.nxt) return;
  q.nak_sent = true;
  q.nak_epsn = q.nxt;
  out.feedback = Feedback::kNak;
}

// ---- receive ----------------------------------------------------------------------

// New data at block index k >= L (k counted from base; base = RCV.NXT when L == 0).
void LinkedListBitmap::append(uint32_t qp, Qp& q, uint32_t k, uint32_t psn, Outcome& out) {
  if (k >= max_blocks_) {
    out.verdict = Verdict::kBeyondWindow;
    gbn_nak(q, out);
    return;
  }
  const uint32_t j = k - q.length + 1;
  if (j > pool_free()) {
    out.verdict = Verdict::kPoolExhausted;
    gbn_nak(q, out);
    return;
  }
  // j pops (the locate: the packet's block is the j-th), j block writes, 1 link write.
  out.cycles += 2 * j;
  out.locate_cycles += j;
  out.block_accesses += 2 * j;
  out.node_accesses += j;
  const uint32_t first = pop(qp);
  uint32_t last = first;
  for (uint32_t i = 1; i < j; ++i) {
    const uint32_t b = pop(qp);
    next_ptr_[last] = b;
    last = b;
  }
  if (q.length == 0) {
    q.start_ptr = first;
    q.base = q.nxt;
  } else {
    next_ptr_[q.end_ptr] = first;
    out.cycles += 1;
    out.node_accesses += 1;
  }
  q.end_ptr = last;
  q.length += j;
  const uint32_t bit = static_cast<uint32_t>(wire::psn_diff(psn, q.base)) % p_.block_bits;
  set(last, bit);
  // psn > RCV.HIGH here (psn >= RCV.HIGH and a new block is needed beyond the end block
  // holding RCV.HIGH - 1, or the list was empty and psn > RCV.NXT == RCV.HIGH) unless psn is
  // exactly the first PSN of the new block following a full end block.
  if (psn != q.high) {
    add_hole(q, q.high, psn);
    out.feedback = Feedback::kHoleNack;
  } else {
    out.feedback = Feedback::kAck;
  }
  q.high = wire::psn_add(psn, 1);
  out.verdict = Verdict::kOutOfOrder;
}

// After the bit at RCV.NXT was set in the start block.
void LinkedListBitmap::advance_front(uint32_t qp, Qp& q, Outcome& out) {
  const uint32_t m = p_.block_bits;
  uint32_t z = first_zero(q.start_ptr, static_cast<uint32_t>(wire::psn_diff(q.nxt, q.base)));
  for (;;) {
    if (q.length == 1 && z >= static_cast<uint32_t>(wire::psn_diff(q.high, q.base))) {
      // Caught up with RCV.HIGH: return the last block.
      push(qp, q.start_ptr);
      out.cycles += 1;
      out.block_accesses += 1;
      q.start_ptr = q.end_ptr = kNoBlock;
      q.length = 0;
      q.nxt = q.base = q.high;
      return;
    }
    if (z < m) {
      q.nxt = wire::psn_add(q.base, z);
      return;
    }
    // Start block full and not the end: release it, reach the next one.
    const uint32_t nb = next_ptr_[q.start_ptr];
    push(qp, q.start_ptr);
    out.cycles += 1;
    out.block_accesses += 1;
    q.start_ptr = nb;
    q.base = wire::psn_add(q.base, m);
    q.length -= 1;
    reach(out, false);
    z = first_zero(nb, 0);
  }
}

Outcome LinkedListBitmap::receive(uint32_t qp, uint32_t psn) {
  Outcome out;
  if (qp >= qps_.size() || !qps_[qp].open) {
    out.verdict = Verdict::kQpClosed;
    return out;
  }
  Qp& q = qps_[qp];
  psn &= wire::kPsnMask;
  const uint32_t held_before = q.length;
  const uint32_t m = p_.block_bits;

  const int32_t d = wire::psn_diff(psn, q.nxt);
  if (d < 0) {
    out.verdict = Verdict::kDuplicate;
    out.feedback = Feedback::kAck;
  } else if (q.length == 0) {
    if (d == 0) {
      // In order with nothing outstanding: no bitmap needed.
      q.nxt = q.high = q.base = wire::psn_add(psn, 1);
      out.verdict = Verdict::kInOrder;
      out.head_advanced = true;
      out.feedback = Feedback::kAck;
    } else {
      append(qp, q, static_cast<uint32_t>(d) / m, psn, out);
    }
  } else {
    const uint32_t off = static_cast<uint32_t>(wire::psn_diff(psn, q.base));
    const uint32_t k = off / m;
    const uint32_t bit = off % m;
    if (wire::psn_diff(psn, q.high) >= 0) {
      // New data at or after RCV.HIGH.
      if (k < q.length) {
        reach(out, true);  // end_ptr
        set(q.end_ptr, bit);
        out.cycles += 1;
        out.block_accesses += 1;
        if (psn != q.high) {
          add_hole(q, q.high, psn);
          out.feedback = Feedback::kHoleNack;
        } else {
          out.feedback = Feedback::kAck;
        }
        q.high = wire::psn_add(psn, 1);
        out.verdict = Verdict::kOutOfOrder;
      } else {
        append(qp, q, k, psn, out);
      }
    } else {
      // RCV.NXT <= psn < RCV.HIGH: front, end or middle block.
      uint32_t b;
      if (k == 0) {
        reach(out, true);  // start_ptr
        b = q.start_ptr;
      } else if (k + 1 == q.length) {
        reach(out, true);  // end_ptr
        b = q.end_ptr;
      } else {
        b = locate_middle(qp, k, out);
      }
      if (b == kNoBlock) {
        out.verdict = Verdict::kUntrackable;
      } else if (test(b, bit)) {
        out.verdict = Verdict::kDuplicate;
        out.feedback = Feedback::kAck;
      } else {
        set(b, bit);
        out.cycles += 1;
        out.block_accesses += 1;
        fill_hole(q, psn);
        out.feedback = Feedback::kAck;
        if (d == 0) {
          out.verdict = Verdict::kInOrder;
          out.head_advanced = true;
          advance_front(qp, q, out);
        } else {
          out.verdict = Verdict::kOutOfOrder;
        }
      }
    }
  }

  if (out.feedback == Feedback::kHoleNack) copy_holes(q, out);
  out.epsn = q.nxt;
  out.blocks_held = q.length;
  out.blocks_delta = static_cast<int32_t>(q.length) - static_cast<int32_t>(held_before);
  return out;
}

// ---- invariants -------------------------------------------------------------------

bool LinkedListBitmap::check_invariants(std::string* why) const {
  auto fail = [why](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const uint32_t m = p_.block_bits;
  const uint32_t r = m % 32;
  const uint32_t last_mask = r == 0 ? 0xFFFFFFFFu : ((1u << r) - 1u);

  if (avail_ptr_ > pool_blocks_) return fail("avail_ptr beyond the pool");
  std::vector<uint8_t> seen(pool_blocks_, 0);  // 1 = free, 2 = held
  for (uint32_t i = avail_ptr_; i < pool_blocks_; ++i) {
    const uint32_t b = free_slots_[i];
    if (b >= pool_blocks_) return fail("free slot holds an out-of-range block");
    if (seen[b]) return fail("block " + std::to_string(b) + " twice in the free slots");
    seen[b] = 1;
    if (owner_[b] != -1) return fail("free block " + std::to_string(b) + " has an owner");
  }

  uint64_t held_total = 0;
  for (uint32_t qi = 0; qi < qps_.size(); ++qi) {
    const Qp& q = qps_[qi];
    auto tag = [qi] { return "qp " + std::to_string(qi) + ": "; };
    if (!q.open) {
      if (q.length != 0 || q.nholes != 0) return fail(tag() + "closed QP holds state");
      continue;
    }
    // Walk the list.
    std::vector<uint32_t> list;
    uint32_t b = q.start_ptr;
    for (uint32_t i = 0; i < q.length; ++i) {
      if (b >= pool_blocks_) return fail(tag() + "list reaches an invalid block");
      if (seen[b] == 1) return fail(tag() + "list holds free block " + std::to_string(b));
      if (seen[b] == 2) return fail(tag() + "block " + std::to_string(b) + " in a list twice");
      seen[b] = 2;
      if (owner_[b] != static_cast<int32_t>(qi)) return fail(tag() + "block owner mismatch");
      if ((words(b)[words_per_block_ - 1] & ~last_mask) != 0)
        return fail(tag() + "bits set beyond M");
      list.push_back(b);
      if (i + 1 < q.length) b = next_ptr_[b];
    }
    held_total += q.length;
    if (q.length == 0) {
      if (q.start_ptr != kNoBlock || q.end_ptr != kNoBlock)
        return fail(tag() + "empty list with pointers");
      if (q.nxt != q.high) return fail(tag() + "empty list but RCV.NXT != RCV.HIGH");
      if (q.nholes != 0) return fail(tag() + "holes without a list");
    } else {
      if (b != q.end_ptr) return fail(tag() + "end_ptr is not the last block of the list");
      if (q.nxt == q.high) return fail(tag() + "list held with RCV.NXT == RCV.HIGH");
      const int32_t e_off = wire::psn_diff(q.nxt, q.base);
      if (e_off < 0 || static_cast<uint32_t>(e_off) >= m)
        return fail(tag() + "RCV.NXT not in the start block");
      const int32_t h_off = wire::psn_diff(q.high, q.base);
      if (h_off <= static_cast<int32_t>((q.length - 1) * m) ||
          h_off > static_cast<int32_t>(q.length * m))
        return fail(tag() + "RCV.HIGH not in the end block");
      // Bits: [base, RCV.NXT) set, RCV.NXT clear, RCV.HIGH-1 set, >= RCV.HIGH clear.
      for (uint32_t x = 0; x < static_cast<uint32_t>(e_off); ++x)
        if (!test(list[0], x)) return fail(tag() + "a bit below RCV.NXT is clear");
      if (test(list[0], static_cast<uint32_t>(e_off))) return fail(tag() + "RCV.NXT's bit is set");
      const uint32_t hl = static_cast<uint32_t>(h_off) - 1;
      if (!test(list[hl / m], hl % m)) return fail(tag() + "RCV.HIGH-1's bit is clear");
      for (uint32_t x = hl + 1; x < q.length * m; ++x)
        if (test(list[x / m], x % m)) return fail(tag() + "a bit at or above RCV.HIGH is set");
      // Holes: exact, in [RCV.NXT, RCV.HIGH), most recent first, disjoint.
      if (q.nholes > 3) return fail(tag() + "more than 3 holes");
      for (uint32_t i = 0; i < q.nholes; ++i) {
        const Hole& h = q.holes[i];
        if (h.length == 0) return fail(tag() + "empty hole");
        const int32_t s = wire::psn_diff(h.start_psn, q.nxt);
        if (s < 0 || wire::psn_diff(q.high, h.start_psn) < static_cast<int32_t>(h.length))
          return fail(tag() + "hole outside [RCV.NXT, RCV.HIGH)");
        const uint32_t ho = static_cast<uint32_t>(wire::psn_diff(h.start_psn, q.base));
        for (uint32_t x = ho; x < ho + h.length; ++x)
          if (test(list[x / m], x % m)) return fail(tag() + "a hole PSN is received");
        if (i > 0) {
          const Hole& u = q.holes[i - 1];
          if (wire::psn_diff(u.start_psn, h.start_psn) < static_cast<int32_t>(h.length))
            return fail(tag() + "holes not disjoint or not most recent first");
        }
      }
    }
    if (!check_scheme_invariants(qi, list, why)) return false;
  }

  for (uint32_t b = 0; b < pool_blocks_; ++b)
    if (seen[b] == 0) return fail("block " + std::to_string(b) + " neither free nor held");
  if (held_total + (pool_blocks_ - avail_ptr_) != pool_blocks_)
    return fail("pool accounting mismatch");
  return true;
}

}  // namespace oonic::ordering
