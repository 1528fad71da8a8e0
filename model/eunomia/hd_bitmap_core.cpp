// Eunomia HD bitmap module (see hd_bitmap_core.h for the behaviour and the cost
// summary). Access sequence of every path (each item is counted by the controller; these
// are the numbers the unit tests derive their expectations from):
//
//  * Not open: kQpClosed, 0 cycles.
//  * psn < ePSN: kDuplicate + kAck, 0 cycles (ePSN is transport state).
//  * No bitmap, psn == ePSN: kInOrder + kAck, ePSN + 1, 0 cycles (packet driver fast path:
//    conn_module_valid = 0).
//  * No bitmap, psn > ePSN (creation):
//      psn - ePSN >= R*B: kBeyondWindow + kNack, 0 cycles, nothing created.
//      alloc_metadata: backward search (ceil(bits/W)) + mark (words) + index write (1)
//      alloc row 0: forward search + mark; write address entry 0 (1 metadata write)
//      row 0: B/16 bitmap writes (zeroes; the packet's word written with its bit set, no
//      read: the row is fresh). psn beyond Tail: rows grown as below (row 0's address is
//      known: no read).
//      header write: Head 2 + Tail 2 + Last Seq 2 + Head BM 1 + sizes 1 = 8 metadata writes.
//      Failure (no metadata run / no row): what was allocated in this call is freed again
//      (charged), kPoolExhausted + kNack.
//  * Bitmap exists, psn > Head (out of order):
//      locate: index read 1 + Head 2 + Tail 2 + Head BM 1 + sizes 1 + row address (1 for
//      row 0, 2 for another row: its relative entry + row 0's entry).
//      existing row: read the packet's bitmap block (1); bit already set -> kDuplicate +
//      kSack; else write it back (1) -> kOutOfOrder + kSack.
//      new row(s) (psn past the linear part): the row past the cap -> kBeyondWindow + kNack
//      after index + header (7 cycles, no address read). Otherwise row 0's entry is read
//      (1, part of locate), every new row is allocated (forward search + mark), then each
//      gets its relative address entry written (1) and its B/16 blocks written (zeroes, the
//      packet's block with its bit: no read); sizes block written back (1).
//      PacketMeta::last on a tracked packet: Last Seq read (2); written (2) when unknown or
//      below psn.
//  * Bitmap exists, psn == Head (in order): locate as above for Head's row; then the scan:
//      every bitmap block visited is read once (1) and written back (1) only if a one was
//      cleared in it (the packet's own bit is not stored: it is set and cleared at once);
//      a block of another row needs that row's address (1 read for its relative entry; row
//      0's entry at most once a call). The scan ends at the first zero, or without a read
//      at the first PSN past the tracked span (Tail with no linear part, else past the last
//      linear row).
//      last bit: as above. Then Last Seq is needed (2 reads unless already read): Head
//      past a known Last Seq -> emptiness check of all rows in address order (each row's
//      address as above + its blocks read until a non-zero one); empty -> GC: every row
//      freed (mark words), metadata freed (mark words) + index write (1), no header write;
//      not empty -> Last Seq := unknown (2 writes).
//      header write-back: Head 2, Head BM 1, Tail 2 (when it moved: no linear part, or a
//      merge), sizes 1 (merge), Last Seq 2 (when changed).
//  Write-back: only the fields the call changed; a 4-byte field is written whole (2).
#include "model/eunomia/hd_bitmap_core.h"

#include <algorithm>
#include <stdexcept>

#include "model/wire/roce.h"

namespace oonic::eunomia {

namespace {
using Mc = MemoryControllerCore;
constexpr uint32_t kWordBits = 16;  // bits of one master_array block
}  // namespace

struct HdBitmapCore::Call {
  uint32_t dba = Mc::kNullDba;
  uint32_t head = 0, tail = 0, last = Mc::kLastUnknown;
  uint8_t hid = 0, hidx = 0, circ = 0, dyn = 0;
  bool last_loaded = false;
  bool d_head = false, d_tail = false, d_last = false, d_hbm = false, d_sizes = false;
  int64_t addr0 = -1;  // row 0's block once read (or allocated) in this call
  Cost* cost = nullptr;
};

HdBitmapCore::HdBitmapCore(const Params& p)
    : p_(p), owned_(std::make_unique<Mc>(p.memory)), mc_(owned_.get()) {
  validate();
}

HdBitmapCore::HdBitmapCore(const Params& p, MemoryControllerCore& shared) : p_(p), mc_(&shared) {
  p_.memory = shared.params();
  validate();
}

HdBitmapCore::~HdBitmapCore() = default;

void HdBitmapCore::validate() {
  const uint32_t b = p_.block_bits;
  if (b < kWordBits || b > 256 || b % kWordBits != 0)
    throw std::invalid_argument("HdBitmapCore: block_bits must be a multiple of 16 in 16..256");
  if (p_.max_bitmap_bits < b || p_.max_bitmap_bits % b != 0)
    throw std::invalid_argument(
        "HdBitmapCore: max_bitmap_bits must be a positive multiple of block_bits");
  rows_cap_ = p_.max_bitmap_bits / b;
  if (rows_cap_ > 255)
    throw std::invalid_argument("HdBitmapCore: more than 255 rows (1-byte sizes)");
  if (p_.max_bitmap_bits >= (1u << 22))
    throw std::invalid_argument("HdBitmapCore: max_bitmap_bits too large for 24-bit PSNs");
  if (mc_->params().metadata_blocks < Mc::kFixedMetaBlocks + rows_cap_)
    throw std::invalid_argument(
        "HdBitmapCore: metadata_blocks < 8 + max rows (one address entry per row)");
  words_per_row_ = b / kWordBits;
  conns_.assign(mc_->params().max_connections, Conn{});
}

// ---- OrderingUnit basics -------------------------------------------------------------

void HdBitmapCore::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  (void)otd;
  if (qp >= conns_.size()) throw std::out_of_range("HdBitmapCore::open: qp out of range");
  if (conns_[qp].open) close(qp);
  Conn& c = conns_[qp];
  c = Conn{};
  c.open = true;
  c.epsn = start_psn & wire::kPsnMask;
}

void HdBitmapCore::close(uint32_t qp) {
  if (qp >= conns_.size()) return;
  if (conns_[qp].module_valid) release(qp, nullptr);
  conns_[qp].module_valid = false;
  conns_[qp].open = false;
}

bool HdBitmapCore::is_open(uint32_t qp) const {
  return qp < conns_.size() && conns_[qp].open;
}

uint32_t HdBitmapCore::epsn(uint32_t qp) const {
  return qp < conns_.size() ? conns_[qp].epsn : 0;
}

uint32_t HdBitmapCore::bitmap_blocks_held(uint32_t qp) const {
  if (qp >= conns_.size() || !conns_[qp].module_valid) return 0;
  const uint32_t dba = mc_->read_dba(qp, nullptr);
  uint8_t circ = 0, dyn = 0;
  mc_->read_sizes(dba, &circ, &dyn, nullptr);
  return (static_cast<uint32_t>(circ) + dyn) * words_per_row_;
}

uint32_t HdBitmapCore::metadata_blocks_held(uint32_t qp) const {
  if (qp >= conns_.size() || !conns_[qp].module_valid) return 0;
  return mc_->params().metadata_blocks;
}

uint32_t HdBitmapCore::blocks_held(uint32_t qp) const {
  return bitmap_blocks_held(qp) + metadata_blocks_held(qp);
}

// ---- helpers -------------------------------------------------------------------------

uint32_t HdBitmapCore::row_block(Call& c, uint32_t r) {
  if (c.addr0 < 0) c.addr0 = mc_->read_row_addr(c.dba, 0, c.cost);
  if (r == 0) return static_cast<uint32_t>(c.addr0);
  const uint16_t rel = mc_->read_row_addr(c.dba, r, c.cost);
  return (static_cast<uint32_t>(c.addr0) + rel) & 0xFFFFu;
}

// Row and bit of psn (psn >= Head) in the bitmap described by c; false when psn lies past
// everything the bitmap tracks (past Tail without a linear part, or past the last row).
bool HdBitmapCore::map(const Call& c, uint32_t psn, uint32_t* row, uint32_t* bit) const {
  const uint32_t b = p_.block_bits;
  const int32_t past_tail = wire::psn_diff(psn, c.tail);
  if (past_tail <= 0) {
    const uint32_t ring = static_cast<uint32_t>(c.circ) * b;
    const uint32_t off = static_cast<uint32_t>(wire::psn_diff(psn, c.head));
    const uint32_t pos = (static_cast<uint32_t>(c.hid) * b + c.hidx + off) % ring;
    *row = pos / b;
    *bit = pos % b;
    return true;
  }
  const uint32_t j = static_cast<uint32_t>(past_tail) - 1;
  if (j >= static_cast<uint32_t>(c.dyn) * b) return false;
  *row = c.circ + j / b;
  *bit = j % b;
  return true;
}

void HdBitmapCore::load_last(Call& c) {
  if (c.last_loaded) return;
  c.last = mc_->read_last_seq(c.dba, c.cost);
  c.last_loaded = true;
}

void HdBitmapCore::write_back(Call& c) {
  if (c.d_head) mc_->write_head(c.dba, c.head, c.cost);
  if (c.d_tail) mc_->write_tail(c.dba, c.tail, c.cost);
  if (c.d_last) mc_->write_last_seq(c.dba, c.last, c.cost);
  if (c.d_hbm) mc_->write_head_bm(c.dba, c.hid, c.hidx, c.cost);
  if (c.d_sizes) mc_->write_sizes(c.dba, c.circ, c.dyn, c.cost);
}

// Frees every row and the metadata of qp's bitmap; the DBA becomes NULL.
void HdBitmapCore::release(uint32_t qp, Cost* cost) {
  const uint32_t dba = mc_->read_dba(qp, nullptr);
  if (dba == Mc::kNullDba) return;
  uint8_t circ = 0, dyn = 0;
  mc_->read_sizes(dba, &circ, &dyn, nullptr);
  const uint32_t a0 = mc_->read_row_addr(dba, 0, nullptr);
  for (uint32_t r = 0; r < static_cast<uint32_t>(circ) + dyn; ++r) {
    const uint32_t blk = r == 0 ? a0 : ((a0 + mc_->read_row_addr(dba, r, nullptr)) & 0xFFFFu);
    mc_->free_bitmap(blk, words_per_row_, cost);
  }
  mc_->free_metadata(qp, cost);
  if (qp < conns_.size()) conns_[qp].module_valid = false;
}

ordering::Outcome HdBitmapCore::finish(ordering::Outcome out, uint32_t qp, uint32_t held_before) {
  const Cost& k = last_.cost;
  out.cycles = k.cycles();
  out.node_accesses = k.index_accesses + k.meta_reads + k.meta_writes;
  out.block_accesses = k.bitmap_reads + k.bitmap_writes;
  out.epsn = conns_[qp].epsn;
  out.blocks_held = blocks_held(qp);
  out.blocks_delta = static_cast<int32_t>(out.blocks_held) - static_cast<int32_t>(held_before);
  return out;
}

// ---- receive -------------------------------------------------------------------------

ordering::Outcome HdBitmapCore::receive(uint32_t qp, uint32_t psn) {
  return receive(qp, psn, ordering::PacketMeta{});
}

ordering::Outcome HdBitmapCore::receive(uint32_t qp, uint32_t psn,
                                        const ordering::PacketMeta& meta) {
  last_ = Detail{};
  ordering::Outcome out;
  if (qp >= conns_.size() || !conns_[qp].open) {
    out.verdict = ordering::Verdict::kQpClosed;
    return out;
  }
  Conn& cn = conns_[qp];
  psn &= wire::kPsnMask;
  // The very first packet of the connection tells where it starts (Head metadata).
  if (!cn.started && meta.has_head && !cn.module_valid) cn.epsn = meta.head & wire::kPsnMask;
  cn.started = true;
  const uint32_t held_before = blocks_held(qp);

  const int32_t d = wire::psn_diff(psn, cn.epsn);
  if (d < 0) {
    out.verdict = ordering::Verdict::kDuplicate;
    out.feedback = ordering::Feedback::kAck;
  } else if (!cn.module_valid && d == 0) {
    cn.epsn = wire::psn_add(cn.epsn, 1);
    out.verdict = ordering::Verdict::kInOrder;
    out.feedback = ordering::Feedback::kAck;
    out.head_advanced = true;
  } else if (!cn.module_valid) {
    create(qp, psn, meta, &out);
  } else {
    track(qp, psn, meta, &out);
  }
  return finish(out, qp, held_before);
}

void HdBitmapCore::create(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta,
                          ordering::Outcome* out) {
  Conn& cn = conns_[qp];
  const uint32_t b = p_.block_bits;
  const uint32_t off = static_cast<uint32_t>(wire::psn_diff(psn, cn.epsn));
  if (off >= rows_cap_ * b) {
    out->verdict = ordering::Verdict::kBeyondWindow;
    out->feedback = ordering::Feedback::kNack;
    return;
  }
  Cost* cost = &last_.cost;
  uint32_t dba = 0, blk0 = 0;
  if (!mc_->alloc_metadata(qp, &dba, cost)) {
    out->verdict = ordering::Verdict::kPoolExhausted;
    out->feedback = ordering::Feedback::kNack;
    return;
  }
  if (!mc_->alloc_bitmap(qp, words_per_row_, &blk0, cost)) {
    mc_->free_metadata(qp, cost);
    out->verdict = ordering::Verdict::kPoolExhausted;
    out->feedback = ordering::Feedback::kNack;
    return;
  }
  Call c;
  c.cost = cost;
  c.dba = dba;
  c.head = cn.epsn;
  c.tail = wire::psn_add(cn.epsn, b - 1);
  c.last = Mc::kLastUnknown;
  c.circ = 1;
  c.dyn = 0;
  c.hid = 0;
  c.hidx = 0;
  c.addr0 = blk0;
  c.last_loaded = true;
  c.d_head = c.d_tail = c.d_last = c.d_hbm = c.d_sizes = true;
  cn.module_valid = true;  // rows grown below belong to a connection with metadata
  mc_->write_row_addr(dba, 0, static_cast<uint16_t>(blk0), cost);
  const bool in_ring = off < b;
  for (uint32_t w = 0; w < words_per_row_; ++w) {
    uint16_t v = 0;
    if (in_ring && off / kWordBits == w) v = static_cast<uint16_t>(1u << (off % kWordBits));
    mc_->write_block(blk0 + w, v, false, cost);
  }
  if (!in_ring && !grow(qp, c, psn, out)) {
    // Roll back: row 0 and the metadata (pool exhausted while growing).
    mc_->free_bitmap(blk0, words_per_row_, cost);
    mc_->free_metadata(qp, cost);
    cn.module_valid = false;
    return;
  }
  if (meta.last) c.last = psn;
  write_back(c);
  last_.created = true;
  ++creations_;
  out->verdict = ordering::Verdict::kOutOfOrder;
  out->feedback = ordering::Feedback::kSack;
  out->sack_psn = psn;
}

// Adds linear rows up to the one holding psn (psn past the last linear row, within the
// cap: the caller checked) and sets psn's bit in it. False (nothing kept) when
// master_array has no room: out says kPoolExhausted + kNack.
bool HdBitmapCore::grow(uint32_t qp, Call& c, uint32_t psn, ordering::Outcome* out) {
  const uint32_t b = p_.block_bits;
  const uint32_t j = static_cast<uint32_t>(wire::psn_diff(psn, c.tail)) - 1;
  const uint32_t lrow = j / b;  // linear row index that must exist
  std::vector<uint32_t> got;
  for (uint32_t r = c.dyn; r <= lrow; ++r) {
    uint32_t blk = 0;
    if (!mc_->alloc_bitmap(qp, words_per_row_, &blk, c.cost)) {
      for (uint32_t g : got) mc_->free_bitmap(g, words_per_row_, c.cost);
      out->verdict = ordering::Verdict::kPoolExhausted;
      out->feedback = ordering::Feedback::kNack;
      return false;
    }
    got.push_back(blk);
  }
  const uint32_t a0 = static_cast<uint32_t>(c.addr0);
  for (uint32_t i = 0; i < got.size(); ++i) {
    const uint32_t r = c.dyn + i;
    mc_->write_row_addr(c.dba, c.circ + r, static_cast<uint16_t>((got[i] - a0) & 0xFFFFu), c.cost);
    for (uint32_t w = 0; w < words_per_row_; ++w) {
      uint16_t v = 0;
      if (r == lrow && (j % b) / kWordBits == w)
        v = static_cast<uint16_t>(1u << ((j % b) % kWordBits));
      mc_->write_block(got[i] + w, v, false, c.cost);
    }
  }
  last_.rows_added += static_cast<uint32_t>(got.size());
  c.dyn = static_cast<uint8_t>(lrow + 1);
  c.d_sizes = true;
  return true;
}

void HdBitmapCore::track(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta,
                         ordering::Outcome* out) {
  Cost* cost = &last_.cost;
  Call c;
  c.cost = cost;
  // Locate: index, then the header (the fields needed to place any PSN).
  c.dba = mc_->read_dba(qp, cost);
  c.head = mc_->read_head(c.dba, cost);
  c.tail = mc_->read_tail(c.dba, cost);
  mc_->read_head_bm(c.dba, &c.hid, &c.hidx, cost);
  mc_->read_sizes(c.dba, &c.circ, &c.dyn, cost);

  if (psn == c.head) {
    advance(qp, c, psn, meta, out);
    return;
  }
  // Out of order (psn > Head: psn < ePSN == Head was a duplicate in receive()).
  uint32_t row = 0, bit = 0;
  bool tracked = false;
  if (map(c, psn, &row, &bit)) {
    const uint32_t base = row_block(c, row);
    out->locate_cycles = cost->cycles();
    const uint32_t blk = base + bit / kWordBits;
    const uint16_t m = static_cast<uint16_t>(1u << (bit % kWordBits));
    const uint16_t v = mc_->read_block(blk, false, cost);
    if (v & m) {
      out->verdict = ordering::Verdict::kDuplicate;
      out->feedback = ordering::Feedback::kSack;
      out->sack_psn = psn;
    } else {
      mc_->write_block(blk, static_cast<uint16_t>(v | m), false, cost);
      tracked = true;
    }
  } else {
    const uint32_t j = static_cast<uint32_t>(wire::psn_diff(psn, c.tail)) - 1;
    if (c.circ + j / p_.block_bits + 1 > rows_cap_) {
      out->locate_cycles = cost->cycles();
      out->verdict = ordering::Verdict::kBeyondWindow;
      out->feedback = ordering::Feedback::kNack;
      return;
    }
    row_block(c, 0);  // row 0's entry: new entries are relative to it
    out->locate_cycles = cost->cycles();
    if (!grow(qp, c, psn, out)) return;
    tracked = true;
  }
  if (tracked) {
    out->verdict = ordering::Verdict::kOutOfOrder;
    out->feedback = ordering::Feedback::kSack;
    out->sack_psn = psn;
    if (meta.last) {
      load_last(c);
      if (c.last == Mc::kLastUnknown || wire::psn_diff(psn, c.last) > 0) {
        c.last = psn;
        c.d_last = true;
      }
    }
  }
  write_back(c);
}

// psn == Head: clear consecutive ones, move Head, merge, garbage-collect.
void HdBitmapCore::advance(uint32_t qp, Call& c, uint32_t psn, const ordering::PacketMeta& meta,
                           ordering::Outcome* out) {
  Conn& cn = conns_[qp];
  Cost* cost = c.cost;
  const uint32_t b = p_.block_bits;
  const uint32_t head_old = c.head, tail_old = c.tail;
  uint32_t cur = psn;
  uint32_t cur_row = 0xFFFFFFFFu, row_base = 0;
  uint32_t word_blk = 0xFFFFFFFFu;
  uint16_t orig = 0, val = 0;
  bool located = false;
  for (;;) {
    uint32_t row = 0, bit = 0;
    if (!map(c, cur, &row, &bit)) break;  // past everything tracked: missing
    if (row != cur_row) {
      row_base = row_block(c, row);
      cur_row = row;
    }
    if (!located) {
      out->locate_cycles = cost->cycles();
      located = true;
    }
    const uint32_t blk = row_base + bit / kWordBits;
    if (blk != word_blk) {
      if (word_blk != 0xFFFFFFFFu && val != orig) mc_->write_block(word_blk, val, false, cost);
      orig = val = mc_->read_block(blk, false, cost);
      word_blk = blk;
    }
    const uint16_t m = static_cast<uint16_t>(1u << (bit % kWordBits));
    if (cur != psn && !(val & m)) break;  // first missing PSN
    val = static_cast<uint16_t>(val & ~m);
    cur = wire::psn_add(cur, 1);
  }
  if (word_blk != 0xFFFFFFFFu && val != orig) mc_->write_block(word_blk, val, false, cost);

  const uint32_t adv = static_cast<uint32_t>(wire::psn_diff(cur, head_old));
  c.head = cur;
  c.d_head = c.d_hbm = true;
  if (c.dyn > 0 && wire::psn_diff(cur, tail_old) > 0) {
    // The circular part is fully flushed: merge the linear part into it. Instrumented
    // check (uncounted): Head is past Tail and every bit of the circular rows is clear.
    bool ok = true;
    const uint32_t a0 =
        static_cast<uint32_t>(c.addr0 >= 0 ? c.addr0 : mc_->read_row_addr(c.dba, 0, nullptr));
    for (uint32_t r = 0; r < c.circ && ok; ++r) {
      const uint32_t base = r == 0 ? a0 : ((a0 + mc_->read_row_addr(c.dba, r, nullptr)) & 0xFFFFu);
      for (uint32_t w = 0; w < words_per_row_; ++w)
        if (mc_->read_block(base + w, false, nullptr) != 0) ok = false;
    }
    ++merges_;
    if (!ok) ++merge_violations_;
    const uint32_t j = static_cast<uint32_t>(wire::psn_diff(cur, tail_old)) - 1;
    const uint32_t circ2 = static_cast<uint32_t>(c.circ) + c.dyn;
    const uint32_t pos = (static_cast<uint32_t>(c.circ) * b + j) % (circ2 * b);
    c.circ = static_cast<uint8_t>(circ2);
    c.dyn = 0;
    c.hid = static_cast<uint8_t>(pos / b);
    c.hidx = static_cast<uint8_t>(pos % b);
    c.d_sizes = true;
    last_.merged = true;
  } else {
    const uint32_t ring = static_cast<uint32_t>(c.circ) * b;
    const uint32_t pos = (static_cast<uint32_t>(c.hid) * b + c.hidx + adv) % ring;
    c.hid = static_cast<uint8_t>(pos / b);
    c.hidx = static_cast<uint8_t>(pos % b);
  }
  if (c.dyn == 0) {
    c.tail = wire::psn_add(c.head, static_cast<int64_t>(c.circ) * b - 1);
    c.d_tail = c.tail != tail_old;
  }
  cn.epsn = c.head;
  out->verdict = ordering::Verdict::kInOrder;
  out->feedback = ordering::Feedback::kAck;
  out->head_advanced = true;

  load_last(c);
  if (meta.last && (c.last == Mc::kLastUnknown || wire::psn_diff(psn, c.last) > 0)) {
    c.last = psn;
    c.d_last = true;
  }
  if (c.last != Mc::kLastUnknown && wire::psn_diff(c.head, c.last) > 0) {
    // Everything up to Last Seq arrived in order. Free the bitmap if it holds no ones.
    std::vector<uint32_t> rows;
    bool empty = true;
    const uint32_t nrows = static_cast<uint32_t>(c.circ) + c.dyn;
    for (uint32_t r = 0; r < nrows && empty; ++r) {
      const uint32_t base = row_block(c, r);
      rows.push_back(base);
      for (uint32_t w = 0; w < words_per_row_ && empty; ++w)
        if (mc_->read_block(base + w, false, cost) != 0) empty = false;
    }
    if (empty) {
      for (uint32_t base : rows) mc_->free_bitmap(base, words_per_row_, cost);
      mc_->free_metadata(qp, cost);
      cn.module_valid = false;
      last_.gc = true;
      ++gcs_;
      return;  // state freed: nothing to write back
    }
    c.last = Mc::kLastUnknown;
    c.d_last = true;
  }
  write_back(c);
}

// ---- inspection ----------------------------------------------------------------------

HdBitmapCore::View HdBitmapCore::view(uint32_t qp) const {
  View v;
  if (qp >= conns_.size()) return v;
  v.dba = mc_->read_dba(qp, nullptr);
  if (v.dba == Mc::kNullDba) return v;
  v.has_bitmap = true;
  v.head = mc_->read_head(v.dba, nullptr);
  v.tail = mc_->read_tail(v.dba, nullptr);
  v.last_seq = mc_->read_last_seq(v.dba, nullptr);
  mc_->read_head_bm(v.dba, &v.head_bm_id, &v.head_bm_index, nullptr);
  mc_->read_sizes(v.dba, &v.circ_rows, &v.dyn_rows, nullptr);
  const uint32_t a0 = mc_->read_row_addr(v.dba, 0, nullptr);
  for (uint32_t r = 0; r < static_cast<uint32_t>(v.circ_rows) + v.dyn_rows; ++r)
    v.row_blocks.push_back(r == 0 ? a0 : ((a0 + mc_->read_row_addr(v.dba, r, nullptr)) & 0xFFFFu));
  return v;
}

std::vector<uint32_t> HdBitmapCore::pending_psns(uint32_t qp) const {
  std::vector<uint32_t> out;
  const View v = view(qp);
  if (!v.has_bitmap) return out;
  const uint32_t b = p_.block_bits;
  const uint32_t ring = static_cast<uint32_t>(v.circ_rows) * b;
  const uint32_t hpos = static_cast<uint32_t>(v.head_bm_id) * b + v.head_bm_index;
  // Ring: offsets from Head of the set bits, then the linear rows in order.
  std::vector<uint32_t> offs;
  const uint32_t nrows = static_cast<uint32_t>(v.circ_rows) + v.dyn_rows;
  for (uint32_t r = 0; r < nrows; ++r) {
    for (uint32_t w = 0; w < words_per_row_; ++w) {
      const uint16_t word = mc_->read_block(v.row_blocks[r] + w, false, nullptr);
      for (uint32_t i = 0; word != 0 && i < kWordBits; ++i) {
        if (!((word >> i) & 1u)) continue;
        const uint32_t pos = r * b + w * kWordBits + i;
        if (r < v.circ_rows)
          offs.push_back((pos + ring - hpos) % ring);
        else
          offs.push_back(ring + (pos - ring));  // linear: after every ring offset
      }
    }
  }
  std::sort(offs.begin(), offs.end());
  for (uint32_t o : offs)
    out.push_back(o < ring ? wire::psn_add(v.head, o) : wire::psn_add(v.tail, 1 + (o - ring)));
  return out;
}

bool HdBitmapCore::check_conn(uint32_t qp, std::string* why, uint32_t* bitmap_blocks) const {
  auto fail = [why](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  const uint32_t b = p_.block_bits;
  const Conn& cn = conns_[qp];
  const std::string tag = "conn " + std::to_string(qp) + ": ";
  const bool has = mc_->has_metadata(qp);
  if (!owned_ && !cn.open && !cn.module_valid) return true;  // maybe another module's
  if (has != cn.module_valid) return fail(tag + "conn_module_valid disagrees with the DBA");
  if (!cn.open && has) return fail(tag + "closed connection holds a bitmap");
  if (!has) return true;
  const View v = view(qp);
  const uint32_t nrows = static_cast<uint32_t>(v.circ_rows) + v.dyn_rows;
  if (v.circ_rows < 1) return fail(tag + "no circular row");
  if (nrows > rows_cap_) return fail(tag + "more rows than the cap");
  if (v.head_bm_id >= v.circ_rows) return fail(tag + "Head BM ID outside the circular part");
  if (v.head_bm_index >= b) return fail(tag + "Head BM Index outside a row");
  if (v.head != cn.epsn) return fail(tag + "Head differs from the transport's ePSN");
  if (v.head > wire::kPsnMask || v.tail > wire::kPsnMask) return fail(tag + "PSN over 24 bits");
  if (v.last_seq != Mc::kLastUnknown && v.last_seq > wire::kPsnMask)
    return fail(tag + "Last Seq over 24 bits");
  const int32_t span = wire::psn_diff(v.tail, v.head);
  const uint32_t ring = static_cast<uint32_t>(v.circ_rows) * b;
  if (span < 0 || static_cast<uint32_t>(span) >= ring)
    return fail(tag + "Tail - Head outside the circular part");
  if (v.dyn_rows == 0 && static_cast<uint32_t>(span) != ring - 1)
    return fail(tag + "ring not sliding with Head");
  for (size_t i = 0; i < v.row_blocks.size(); ++i) {
    const uint32_t blk = v.row_blocks[i];
    for (uint32_t w = 0; w < words_per_row_; ++w) {
      if (blk + w >= mc_->params().blocks) return fail(tag + "row outside master_array");
      if (mc_->kind(blk + w) != Mc::Kind::kBitmap ||
          mc_->owner(blk + w) != static_cast<int32_t>(qp))
        return fail(tag + "row block " + std::to_string(blk + w) + " not its bitmap block");
    }
    for (size_t k = 0; k < i; ++k)
      if (v.row_blocks[k] == blk) return fail(tag + "a row listed twice");
  }
  if (bitmap_blocks) *bitmap_blocks += nrows * words_per_row_;
  // Every set ring bit is a PSN after Head up to Tail; Head's own bit is clear.
  const uint32_t hpos = static_cast<uint32_t>(v.head_bm_id) * b + v.head_bm_index;
  for (uint32_t r = 0; r < v.circ_rows; ++r) {
    for (uint32_t w = 0; w < words_per_row_; ++w) {
      const uint16_t word = mc_->read_block(v.row_blocks[r] + w, false, nullptr);
      if (word == 0) continue;
      for (uint32_t i = 0; i < kWordBits; ++i) {
        if (!((word >> i) & 1u)) continue;
        const uint32_t pos = r * b + w * kWordBits + i;
        const uint32_t o = (pos + ring - hpos) % ring;
        if (o == 0) return fail(tag + "Head's bit is set");
        if (o > static_cast<uint32_t>(span)) return fail(tag + "a ring bit past Tail is set");
      }
    }
  }
  return true;
}

bool HdBitmapCore::check_invariants(uint32_t qp, std::string* why) const {
  if (!mc_->check_invariants(why)) return false;
  return qp >= conns_.size() || check_conn(qp, why, nullptr);
}

bool HdBitmapCore::check_invariants(std::string* why) const {
  if (!mc_->check_invariants(why)) return false;
  uint32_t mine = 0;
  for (uint32_t qp = 0; qp < conns_.size(); ++qp)
    if (!check_conn(qp, why, &mine)) return false;
  if (owned_ && mine != mc_->bitmap_blocks_used()) {
    if (why) *why = "bitmap blocks not held by any connection's rows (leak)";
    return false;
  }
  return true;
}

}  // namespace oonic::eunomia
