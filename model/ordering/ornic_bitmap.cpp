// ORNIC bitmap core (see ornic_bitmap.h for the contract and the cost model).
//
// State per QP: a cyclic array of N nodes {block_id, valid, all_1}, header_ptr (the node
// holding ePSN), base_psn (PSN of bit 0 of the header node), ePSN, OTD, blocks held and
// the last ePSN a NAK was sent for. Blocks are aligned to the QP's start PSN: node k
// counted from header_ptr covers base_psn + k*M .. base_psn + k*M + M-1 (mod 2^24).
// Block contents live in one shared pool (M bits per block, words_per_block_ 32-bit
// words); free blocks form a stack (free_list_, top = back()).
//
// Cost accounting choices where the header leaves room (all asserted in the unit tests):
//
//  * psn < ePSN (psn_diff(psn, ePSN) < 0): kDuplicate at 0 cycles. ePSN is QP state
//    (a register next to header_ptr/base_psn), so the comparison needs no node-array or
//    block access; the header's "duplicates cost the locate" applies to duplicates at or
//    above ePSN, whose bit has to be looked up.
//  * Beyond the window ((psn - base_psn) / M >= N): kBeyondWindow at 0 cycles,
//    locate_cycles = 0. The locate's address computation already says the node index is
//    out of range, so the node array is never read ("dropped after the locate" = at the
//    locate stage, without its array access).
//  * Pool exhausted: the locate read (1 cycle) shows the node is not valid; the free
//    list's empty flag is a register, so the drop costs the locate only.
//  * Accesses vs cycles: node_accesses / block_accesses count every read and every write
//    (free-list push/pop counted as a block access); cycles follow the header's table.
//    A node write rides on the cycle of the operation that causes it (allocate, free,
//    clearing an all_1 node during the head scan), and the set-bit read-modify-write is
//    one cycle but two block accesses (a read and a write). A duplicate found in a block
//    costs the block read only (1 access, 1 cycle).
//  * A freshly allocated block is zeroed by the model at allocation (hardware writes it
//    whole); the set-bit step is still counted as the same one-cycle read-modify-write.
//  * In-order packet (psn == ePSN): the set-bit step's read-modify-write already has the
//    header block, so finding the next zero inside the header node costs nothing. If the
//    packet filled the header block, the block is freed (1 cycle) and, since header_ptr
//    moves past that node in this call, the free's node write clears the node directly
//    (valid = 0, all_1 = 0) instead of marking it all_1. Then every node examined after
//    it costs 1 cycle (1 node read; an all_1 node is also cleared: +1 node write, no
//    extra cycle; a partial node: +1 cycle / +1 block access to read its block and find
//    the first zero; an invalid node stops the scan with ePSN = its first PSN).
//  * NAK (psn - ePSN > OTD, once per ePSN value; again for the same ePSN when the packet is
//    more than renak_psns past the one that triggered the last NAK, renak_psns > 0: the
//    trigger PSN is a QP register next to the last NAK'd ePSN): decided for every packet with
//    psn >= ePSN, whatever its verdict (tracked, duplicate, beyond the window, pool
//    exhausted). The NAK block is read after this packet's own update, so a packet that
//    lands in the header node is already marked in it. Building it costs 1 cycle to read
//    the header node (+1 node access) and, if that node holds a block, 1 cycle to read the
//    block (+1 block access). The header node is never all_1 (it holds the missing ePSN);
//    an unallocated header node gives all zeros. These cycles are in `cycles`, not in
//    `locate_cycles`.
//  * close() returns the held blocks walking the array from the last node (header + N-1)
//    back to the header node, so the header node's block ends on top of the free stack.
#include "model/ordering/ornic_bitmap.h"

#include <stdexcept>

namespace oonic::ordering {

namespace {
constexpr uint32_t kNoBlock = 0xFFFFFFFFu;

inline uint32_t ctz32(uint32_t x) {
  return static_cast<uint32_t>(__builtin_ctz(x));
}
}  // namespace

OrnicBitmap::OrnicBitmap(const Params& p) : p_(p) {
  if (p_.block_bits < 1 || p_.block_bits > wire::kMaxBitmapBlockBits)
    throw std::invalid_argument("OrnicBitmap: block_bits must be 1..kMaxBitmapBlockBits");
  if (p_.nodes_per_qp < 1) throw std::invalid_argument("OrnicBitmap: nodes_per_qp must be >= 1");
  if (p_.max_qps < 1) throw std::invalid_argument("OrnicBitmap: max_qps must be >= 1");
  // The window must stay far inside the signed PSN distance range (2^23).
  if (static_cast<uint64_t>(p_.block_bits) * p_.nodes_per_qp >= (1u << 22))
    throw std::invalid_argument("OrnicBitmap: N*M window too large for 24-bit PSNs");
  words_per_block_ = (p_.block_bits + 31) / 32;
  Qp fresh;
  fresh.nodes.assign(p_.nodes_per_qp, Qp::Node{});
  qps_ = QpTable<Qp>(p_.max_qps, fresh);
}

uint32_t OrnicBitmap::pool_pop() {
  if (!free_list_.empty()) {
    const uint32_t b = free_list_.back();
    free_list_.pop_back();
    return b;
  }
  const uint32_t b = made_++;
  owner_.push_back(-1);
  pool_bits_.resize(pool_bits_.size() + words_per_block_, 0u);
  return b;
}

OrnicBitmap::~OrnicBitmap() = default;
OrnicBitmap::OrnicBitmap(OrnicBitmap&&) noexcept = default;
OrnicBitmap& OrnicBitmap::operator=(OrnicBitmap&&) noexcept = default;

void OrnicBitmap::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  if (qp >= qps_.size()) throw std::out_of_range("OrnicBitmap::open: qp out of range");
  Qp& q = qps_[qp];
  if (q.open) close(qp);
  start_psn &= wire::kPsnMask;
  for (Qp::Node& n : q.nodes) n = Qp::Node{};
  q.header_ptr = 0;
  q.base_psn = start_psn;
  q.start_psn = start_psn;
  q.epsn = start_psn;
  q.otd = otd;
  q.blocks_held = 0;
  q.last_nak_epsn = 0;
  q.last_nak_psn = 0;
  q.nak_sent = false;
  q.open = true;
}

void OrnicBitmap::close(uint32_t qp) {
  if (qp >= qps_.size()) return;
  Qp& q = qps_[qp];
  const uint32_t n = p_.nodes_per_qp;
  for (uint32_t i = n; i-- > 0;) {
    Qp::Node& node = q.nodes[(q.header_ptr + i) % n];
    if (node.valid && !node.all_1) {
      owner_[node.block_id] = -1;
      free_list_.push_back(node.block_id);
    }
    node = Qp::Node{};
  }
  q.blocks_held = 0;
  q.nak_sent = false;
  q.open = false;
}

bool OrnicBitmap::is_open(uint32_t qp) const {
  return qp < qps_.size() && qps_[qp].open;
}

void OrnicBitmap::set_otd(uint32_t qp, uint32_t otd) {
  if (qp < qps_.size()) qps_[qp].otd = otd;
}

uint32_t OrnicBitmap::epsn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].epsn : 0;
}

uint32_t OrnicBitmap::blocks_held(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].blocks_held : 0;
}

bool OrnicBitmap::has_pending(uint32_t qp) const {
  if (qp >= qps_.size() || !qps_[qp].open) return false;
  const Qp& q = qps_[qp];
  const uint32_t n = p_.nodes_per_qp, m = p_.block_bits;
  for (uint32_t i = 0; i < n; ++i) {
    const Qp::Node& nd = q.nodes[(q.header_ptr + i) % n];
    if (!nd.valid) continue;
    if (i > 0 || nd.all_1) return true;
    // Header node: bits below ePSN are set by definition; look above it.
    uint32_t from = static_cast<uint32_t>(wire::psn_diff(q.epsn, q.base_psn));
    const uint32_t* w = block_words(nd.block_id);
    for (uint32_t b = from; b < m; ++b)
      if ((w[b / 32] >> (b % 32)) & 1u) return true;
  }
  return false;
}

uint32_t OrnicBitmap::pool_free() const {
  return static_cast<uint32_t>(free_list_.size()) + (p_.pool_blocks - made_);
}

uint32_t OrnicBitmap::pool_used() const {
  return made_ - static_cast<uint32_t>(free_list_.size());
}

OrnicBitmap::NodeView OrnicBitmap::node(uint32_t qp, uint32_t i_from_header) const {
  if (qp >= qps_.size() || i_from_header >= p_.nodes_per_qp)
    return NodeView{kNoBlock, false, false};
  const Qp& q = qps_[qp];
  const Qp::Node& n = q.nodes[(q.header_ptr + i_from_header) % p_.nodes_per_qp];
  return NodeView{n.valid && !n.all_1 ? n.block_id : kNoBlock, n.valid, n.all_1};
}

uint32_t OrnicBitmap::header_ptr(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].header_ptr : 0;
}

uint32_t OrnicBitmap::base_psn(uint32_t qp) const {
  return qp < qps_.size() ? qps_[qp].base_psn : 0;
}

// ---- block helpers ----------------------------------------------------------------

uint32_t* OrnicBitmap::block_words(uint32_t block) {
  return &pool_bits_[static_cast<size_t>(block) * words_per_block_];
}

const uint32_t* OrnicBitmap::block_words(uint32_t block) const {
  return &pool_bits_[static_cast<size_t>(block) * words_per_block_];
}

uint32_t OrnicBitmap::last_word_mask() const {
  const uint32_t r = p_.block_bits % 32;
  return r == 0 ? 0xFFFFFFFFu : ((1u << r) - 1u);
}

// First zero bit in [0, M), or M if the block is all ones.
uint32_t OrnicBitmap::first_zero(uint32_t block) const {
  const uint32_t* w = block_words(block);
  for (uint32_t i = 0; i < words_per_block_; ++i) {
    uint32_t inv = ~w[i];
    if (i + 1 == words_per_block_) inv &= last_word_mask();
    if (inv != 0) return i * 32 + ctz32(inv);
  }
  return p_.block_bits;
}

// ---- receive ----------------------------------------------------------------------

Outcome OrnicBitmap::receive(uint32_t qp, uint32_t psn) {
  Outcome out;
  if (qp >= qps_.size() || !qps_[qp].open) {
    out.verdict = Verdict::kQpClosed;
    return out;
  }
  Qp& q = qps_[qp];
  psn &= wire::kPsnMask;
  const uint32_t m = p_.block_bits;
  const uint32_t n = p_.nodes_per_qp;
  const uint32_t held_before = q.blocks_held;

  const int32_t d = wire::psn_diff(psn, q.epsn);
  if (d < 0) {
    // Below ePSN: known from QP state, no array access (0 cycles).
    out.verdict = Verdict::kDuplicate;
  } else {
    // base_psn <= ePSN <= psn, so the offset is non-negative.
    const uint32_t off = static_cast<uint32_t>(wire::psn_diff(psn, q.base_psn));
    const uint32_t k = off / m;
    const uint32_t bit = off % m;
    if (k >= n) {
      // Beyond the window: decided by the locate's address arithmetic, 0 cycles.
      out.verdict = Verdict::kBeyondWindow;
    } else {
      const uint32_t idx = (q.header_ptr + k) % n;
      Qp::Node& node = q.nodes[idx];
      // Locate: one node array read.
      out.locate_cycles = 1;
      out.cycles += 1;
      out.node_accesses += 1;
      bool tracked = false;
      if (node.all_1) {
        out.verdict = Verdict::kDuplicate;
      } else if (!node.valid) {
        if (pool_empty()) {
          out.verdict = Verdict::kPoolExhausted;
        } else {
          // Allocate: pop the free list + node write, 1 cycle.
          const uint32_t b = pool_pop();
          owner_[b] = static_cast<int32_t>(qp);
          uint32_t* w = block_words(b);
          for (uint32_t i = 0; i < words_per_block_; ++i) w[i] = 0;
          node.block_id = b;
          node.valid = true;
          node.all_1 = false;
          q.blocks_held += 1;
          out.cycles += 1;
          out.block_accesses += 1;
          out.node_accesses += 1;
          // Set the bit: read-modify-write, 1 cycle.
          w[bit / 32] |= 1u << (bit % 32);
          out.cycles += 1;
          out.block_accesses += 2;
          tracked = true;
        }
      } else {
        // Read the block (1 cycle); the write of the read-modify-write shares it.
        uint32_t* w = block_words(node.block_id);
        out.cycles += 1;
        out.block_accesses += 1;
        if ((w[bit / 32] >> (bit % 32)) & 1u) {
          out.verdict = Verdict::kDuplicate;
        } else {
          w[bit / 32] |= 1u << (bit % 32);
          out.block_accesses += 1;
          tracked = true;
        }
      }

      if (tracked) {
        out.verdict = d == 0 ? Verdict::kInOrder : Verdict::kOutOfOrder;
        const uint32_t fz = first_zero(node.block_id);
        const bool full = fz == m;
        if (full) {
          // Free the full block: push + node write, 1 cycle.
          owner_[node.block_id] = -1;
          free_list_.push_back(node.block_id);
          q.blocks_held -= 1;
          out.cycles += 1;
          out.block_accesses += 1;
          out.node_accesses += 1;
          if (d == 0) {
            // The header node (only it can hold ePSN) is left behind in this call:
            // the free's node write clears it directly.
            node = Qp::Node{};
          } else {
            node.block_id = kNoBlock;
            node.all_1 = true;
          }
        }
        if (d == 0) {
          out.head_advanced = true;
          if (!full) {
            // Next zero of the header block, known from the read-modify-write.
            q.epsn = wire::psn_add(q.base_psn, fz);
          } else {
            // Scan the nodes after the header node.
            for (;;) {
              q.header_ptr = (q.header_ptr + 1) % n;
              q.base_psn = wire::psn_add(q.base_psn, m);
              Qp::Node& h = q.nodes[q.header_ptr];
              out.cycles += 1;
              out.node_accesses += 1;
              if (h.all_1) {
                h = Qp::Node{};
                out.node_accesses += 1;
                continue;
              }
              if (h.valid) {
                out.cycles += 1;
                out.block_accesses += 1;
                q.epsn = wire::psn_add(q.base_psn, first_zero(h.block_id));
              } else {
                q.epsn = q.base_psn;
              }
              break;
            }
          }
        }
      }
    }

    // OTD loss detection (after this packet's update; d > 0 here, ePSN unchanged).
    const bool same_hole = q.nak_sent && q.last_nak_epsn == q.epsn;
    const bool redeclare =
        same_hole && p_.renak_psns &&
        wire::psn_diff(psn, q.last_nak_psn) > static_cast<int32_t>(p_.renak_psns);
    if (static_cast<uint32_t>(d) > q.otd && (!same_hole || redeclare)) {
      q.nak_sent = true;
      q.last_nak_epsn = q.epsn;
      q.last_nak_psn = psn;
      out.nak = true;
      out.nak_block = wire::BitmapBlock{};
      out.nak_block.base_psn = q.base_psn;
      out.nak_block.nbits = static_cast<uint16_t>(m);
      const Qp::Node& h = q.nodes[q.header_ptr];
      out.cycles += 1;  // header node read
      out.node_accesses += 1;
      if (h.valid && !h.all_1) {
        const uint32_t* w = block_words(h.block_id);
        for (uint32_t i = 0; i < words_per_block_; ++i) out.nak_block.words[i] = w[i];
        out.cycles += 1;  // header block read
        out.block_accesses += 1;
      }
    }
  }

  out.epsn = q.epsn;
  out.blocks_held = q.blocks_held;
  out.blocks_delta = static_cast<int32_t>(q.blocks_held) - static_cast<int32_t>(held_before);
  return out;
}

// ---- invariants -------------------------------------------------------------------

bool OrnicBitmap::check_invariants(std::string* why) const {
  auto fail = [why](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const uint32_t m = p_.block_bits;
  const uint32_t n = p_.nodes_per_qp;
  const uint32_t mask = last_word_mask();

  if (made_ > p_.pool_blocks || owner_.size() != made_ ||
      pool_bits_.size() != size_t{made_} * words_per_block_)
    return fail("more blocks made than the pool holds");
  if (free_list_.size() > made_) return fail("free list larger than the pool");
  std::vector<uint8_t> seen(made_, 0);  // 1 = free list, 2 = held by a node
  for (uint32_t b : free_list_) {
    if (b >= made_) return fail("free list holds an out-of-range block");
    if (seen[b]) return fail("block " + std::to_string(b) + " twice in the free list");
    seen[b] = 1;
    if (owner_[b] != -1) return fail("free block " + std::to_string(b) + " has an owner");
  }

  uint64_t held_total = 0;
  for (uint32_t qi = 0; qi < qps_.size(); ++qi) {
    const Qp& q = qps_[qi];
    const std::string tag = "qp " + std::to_string(qi) + ": ";
    uint32_t held = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const Qp::Node& node = q.nodes[i];
      if (node.all_1 && !node.valid) return fail(tag + "node all_1 but not valid");
      if (!node.valid || node.all_1) continue;
      const uint32_t b = node.block_id;
      if (b >= made_) return fail(tag + "node holds an out-of-range block");
      if (seen[b] == 1) return fail(tag + "node holds a free block " + std::to_string(b));
      if (seen[b] == 2) return fail(tag + "block " + std::to_string(b) + " held twice");
      seen[b] = 2;
      if (owner_[b] != static_cast<int32_t>(qi)) return fail(tag + "block owner mismatch");
      const uint32_t* w = block_words(b);
      if ((w[words_per_block_ - 1] & ~mask) != 0) return fail(tag + "bits set beyond M");
      bool any = false;
      for (uint32_t k = 0; k < words_per_block_; ++k) any = any || w[k] != 0;
      if (!any) return fail(tag + "held block is empty");
      if (first_zero(b) == m) return fail(tag + "held block is full (should have been freed)");
      ++held;
    }
    if (held != q.blocks_held) return fail(tag + "blocks_held mismatch");
    held_total += held;
    if (!q.open) {
      if (held != 0) return fail(tag + "closed QP holds blocks");
      for (const Qp::Node& node : q.nodes)
        if (node.valid || node.all_1) return fail(tag + "closed QP has a valid node");
      continue;
    }
    if (q.header_ptr >= n) return fail(tag + "header_ptr out of range");
    const int32_t e_off = wire::psn_diff(q.epsn, q.base_psn);
    if (e_off < 0 || static_cast<uint32_t>(e_off) >= m)
      return fail(tag + "ePSN not in the header node");
    const Qp::Node& h = q.nodes[q.header_ptr];
    if (h.all_1) return fail(tag + "header node is all_1");
    if (!h.valid) {
      if (e_off != 0) return fail(tag + "header node empty but ePSN is not its first PSN");
    } else {
      const uint32_t* w = block_words(h.block_id);
      for (uint32_t k = 0; k < static_cast<uint32_t>(e_off); ++k)
        if (!((w[k / 32] >> (k % 32)) & 1u)) return fail(tag + "a bit below ePSN is clear");
      if ((w[e_off / 32] >> (e_off % 32)) & 1u) return fail(tag + "ePSN's bit is set");
    }
  }

  for (uint32_t b = 0; b < made_; ++b) {
    if (seen[b] == 0) return fail("block " + std::to_string(b) + " neither free nor held");
    if (seen[b] == 2 && owner_[b] < 0) return fail("held block without owner");
  }
  if (held_total + free_list_.size() != made_) return fail("pool accounting mismatch");
  return true;
}

}  // namespace oonic::ordering
