// Eunomia memory controller (see memory_controller_core.h for the storage, the
// allocation rules and the cost model).
//
// Choices where the design leaves room:
//  * alloc_metadata checks the connection's index entry without a counted read: the HD
//    bitmap only asks for metadata after it has read the entry as NULL (or knows it is
//    NULL from conn_module_valid), so the check is bookkeeping, not an access.
//  * A failed search leaves everything unchanged but is still charged: it examined every
//    allocation bit (ceil(blocks / W) cycles).
//  * Bookkeeping vectors (kind_, owner_) and the used/peak counters are model state for
//    occupancy reports and invariants; the hardware has only master_array, the allocation
//    bitmap and metadata_start_index.
#include "model/eunomia/memory_controller_core.h"

#include <stdexcept>

namespace oonic::eunomia {

Cost& Cost::operator+=(const Cost& o) {
  index_accesses += o.index_accesses;
  meta_reads += o.meta_reads;
  meta_writes += o.meta_writes;
  bitmap_reads += o.bitmap_reads;
  bitmap_writes += o.bitmap_writes;
  alloc_bits_scanned += o.alloc_bits_scanned;
  alloc_scan_cycles += o.alloc_scan_cycles;
  alloc_update_cycles += o.alloc_update_cycles;
  return *this;
}

MemoryControllerCore::MemoryControllerCore(const Params& p) : p_(p) {
  if (p_.blocks < 1 || p_.blocks > 0xFFFF)
    throw std::invalid_argument("MemoryControllerCore: blocks must be 1..65535");
  if (p_.max_connections < 1 || p_.max_connections > 256)
    throw std::invalid_argument("MemoryControllerCore: max_connections must be 1..256");
  if (p_.metadata_blocks < kFixedMetaBlocks || p_.metadata_blocks > p_.blocks)
    throw std::invalid_argument("MemoryControllerCore: metadata_blocks must be 8..blocks");
  if (p_.alloc_bits_per_cycle < 1)
    throw std::invalid_argument("MemoryControllerCore: alloc_bits_per_cycle must be >= 1");
  master_.assign(static_cast<size_t>(p_.blocks) * kBlockBytes, 0);
  alloc_bits_.assign((p_.blocks + 63) / 64, 0);
  index_.assign(static_cast<size_t>(p_.max_connections) * 3, 0);
  for (uint32_t c = 0; c < p_.max_connections; ++c) {
    index_[3 * c] = static_cast<uint8_t>(c);
    index_[3 * c + 1] = 0xFF;
    index_[3 * c + 2] = 0xFF;
  }
  kind_.assign(p_.blocks, Kind::kFree);
  owner_.assign(p_.blocks, -1);
}

// ---- allocation bitmap ---------------------------------------------------------------

bool MemoryControllerCore::block_in_use(uint32_t block) const {
  return (alloc_bits_[block / 64] >> (block % 64)) & 1u;
}

bool MemoryControllerCore::alloc_bitmap_empty() const {
  for (uint64_t w : alloc_bits_)
    if (w != 0) return false;
  return true;
}

uint32_t MemoryControllerCore::scan_cycles(uint32_t bits) const {
  return (bits + p_.alloc_bits_per_cycle - 1) / p_.alloc_bits_per_cycle;
}

void MemoryControllerCore::set_alloc(uint32_t first, uint32_t n, bool used, Cost* cost) {
  for (uint32_t b = first; b < first + n; ++b) {
    if (used)
      alloc_bits_[b / 64] |= uint64_t{1} << (b % 64);
    else
      alloc_bits_[b / 64] &= ~(uint64_t{1} << (b % 64));
  }
  if (cost && n > 0) {
    const uint32_t w = p_.alloc_bits_per_cycle;
    cost->alloc_update_cycles += (first + n - 1) / w - first / w + 1;
  }
}

void MemoryControllerCore::note_peaks() {
  if (bitmap_used_ > peak_bitmap_) peak_bitmap_ = bitmap_used_;
  if (meta_used_ > peak_meta_) peak_meta_ = meta_used_;
  if (used_blocks() > peak_used_) peak_used_ = used_blocks();
}

void MemoryControllerCore::reset_peaks() {
  peak_bitmap_ = bitmap_used_;
  peak_meta_ = meta_used_;
  peak_used_ = used_blocks();
}

bool MemoryControllerCore::alloc_metadata(uint32_t conn, uint32_t* dba, Cost* cost) {
  if (conn >= p_.max_connections)
    throw std::out_of_range("MemoryControllerCore::alloc_metadata: connection out of range");
  if (has_metadata(conn)) return false;
  const uint32_t k = p_.metadata_blocks;
  // Backward from the tail: the first run of k free blocks met.
  uint32_t run = 0, examined = 0;
  bool found = false;
  uint32_t start = 0;
  for (uint32_t b = p_.blocks; b-- > 0;) {
    ++examined;
    run = block_in_use(b) ? 0 : run + 1;
    if (run == k) {
      found = true;
      start = b;
      break;
    }
  }
  if (cost) {
    cost->alloc_bits_scanned += examined;
    cost->alloc_scan_cycles += scan_cycles(examined);
  }
  if (!found) return false;
  set_alloc(start, k, true, cost);
  for (uint32_t b = start; b < start + k; ++b) {
    kind_[b] = Kind::kMetadata;
    owner_[b] = static_cast<int32_t>(conn);
  }
  meta_used_ += k;
  index_[3 * conn] = static_cast<uint8_t>(conn);
  index_[3 * conn + 1] = static_cast<uint8_t>(start & 0xFF);
  index_[3 * conn + 2] = static_cast<uint8_t>(start >> 8);
  ++index_used_;
  if (cost) cost->index_accesses += 1;
  note_peaks();
  *dba = start;
  return true;
}

bool MemoryControllerCore::alloc_bitmap(uint32_t conn, uint32_t n, uint32_t* first, Cost* cost) {
  if (n < 1) throw std::invalid_argument("MemoryControllerCore::alloc_bitmap: n must be >= 1");
  uint32_t run = 0, examined = 0;
  bool found = false;
  uint32_t start = 0;
  for (uint32_t b = 0; b < p_.blocks; ++b) {
    ++examined;
    run = block_in_use(b) ? 0 : run + 1;
    if (run == n) {
      found = true;
      start = b + 1 - n;
      break;
    }
  }
  if (cost) {
    cost->alloc_bits_scanned += examined;
    cost->alloc_scan_cycles += scan_cycles(examined);
  }
  if (!found) return false;
  set_alloc(start, n, true, cost);
  for (uint32_t b = start; b < start + n; ++b) {
    kind_[b] = Kind::kBitmap;
    owner_[b] = static_cast<int32_t>(conn);
  }
  bitmap_used_ += n;
  note_peaks();
  *first = start;
  return true;
}

void MemoryControllerCore::free_bitmap(uint32_t first, uint32_t n, Cost* cost) {
  if (first + n > p_.blocks)
    throw std::out_of_range("MemoryControllerCore::free_bitmap: range out of master_array");
  for (uint32_t b = first; b < first + n; ++b) {
    if (kind_[b] != Kind::kBitmap)
      throw std::logic_error("MemoryControllerCore::free_bitmap: block " + std::to_string(b) +
                             " is not a bitmap block");
    kind_[b] = Kind::kFree;
    owner_[b] = -1;
  }
  set_alloc(first, n, false, cost);
  bitmap_used_ -= n;
}

void MemoryControllerCore::free_metadata(uint32_t conn, Cost* cost) {
  const uint32_t dba = read_dba(conn, nullptr);
  if (dba == kNullDba) return;
  const uint32_t k = p_.metadata_blocks;
  for (uint32_t b = dba; b < dba + k; ++b) {
    kind_[b] = Kind::kFree;
    owner_[b] = -1;
  }
  set_alloc(dba, k, false, cost);
  meta_used_ -= k;
  index_[3 * conn + 1] = 0xFF;
  index_[3 * conn + 2] = 0xFF;
  --index_used_;
  if (cost) cost->index_accesses += 1;
}

// ---- metadata_start_index ------------------------------------------------------------

uint32_t MemoryControllerCore::read_dba(uint32_t conn, Cost* cost) const {
  if (conn >= p_.max_connections) return kNullDba;
  if (cost) cost->index_accesses += 1;
  if (index_[3 * conn] != static_cast<uint8_t>(conn)) return kNullDba;
  return static_cast<uint32_t>(index_[3 * conn + 1]) |
         (static_cast<uint32_t>(index_[3 * conn + 2]) << 8);
}

// ---- master_array --------------------------------------------------------------------

uint16_t MemoryControllerCore::read_block(uint32_t block, bool metadata, Cost* cost) const {
  if (block >= p_.blocks) throw std::out_of_range("MemoryControllerCore: block out of range");
  if (cost) (metadata ? cost->meta_reads : cost->bitmap_reads) += 1;
  const size_t a = static_cast<size_t>(block) * kBlockBytes;
  return static_cast<uint16_t>(master_[a] | (master_[a + 1] << 8));
}

void MemoryControllerCore::write_block(uint32_t block, uint16_t v, bool metadata, Cost* cost) {
  if (block >= p_.blocks) throw std::out_of_range("MemoryControllerCore: block out of range");
  if (cost) (metadata ? cost->meta_writes : cost->bitmap_writes) += 1;
  const size_t a = static_cast<size_t>(block) * kBlockBytes;
  master_[a] = static_cast<uint8_t>(v & 0xFF);
  master_[a + 1] = static_cast<uint8_t>(v >> 8);
}

uint32_t MemoryControllerCore::meta_byte_addr(uint32_t dba, uint32_t off) const {
  if (dba >= p_.blocks || off >= p_.metadata_blocks * kBlockBytes)
    throw std::out_of_range("MemoryControllerCore: metadata field out of the run");
  return dba * kBlockBytes + off;
}

// 4-byte fields start on a block boundary: two block accesses.
uint32_t MemoryControllerCore::read_u32(uint32_t dba, uint32_t off, Cost* c) const {
  const uint32_t a = meta_byte_addr(dba, off);
  const uint32_t lo = read_block(a / kBlockBytes, true, c);
  const uint32_t hi = read_block(a / kBlockBytes + 1, true, c);
  return lo | (hi << 16);
}

void MemoryControllerCore::write_u32(uint32_t dba, uint32_t off, uint32_t v, Cost* c) {
  const uint32_t a = meta_byte_addr(dba, off);
  write_block(a / kBlockBytes, static_cast<uint16_t>(v & 0xFFFF), true, c);
  write_block(a / kBlockBytes + 1, static_cast<uint16_t>(v >> 16), true, c);
}

void MemoryControllerCore::read_head_bm(uint32_t dba, uint8_t* id, uint8_t* index, Cost* c) const {
  const uint16_t v = read_block(meta_byte_addr(dba, kOffHeadBmId) / kBlockBytes, true, c);
  *id = static_cast<uint8_t>(v & 0xFF);
  *index = static_cast<uint8_t>(v >> 8);
}

void MemoryControllerCore::write_head_bm(uint32_t dba, uint8_t id, uint8_t index, Cost* c) {
  write_block(meta_byte_addr(dba, kOffHeadBmId) / kBlockBytes,
              static_cast<uint16_t>(id | (index << 8)), true, c);
}

void MemoryControllerCore::read_sizes(uint32_t dba, uint8_t* circ, uint8_t* dyn, Cost* c) const {
  const uint16_t v = read_block(meta_byte_addr(dba, kOffCircSize) / kBlockBytes, true, c);
  *circ = static_cast<uint8_t>(v & 0xFF);
  *dyn = static_cast<uint8_t>(v >> 8);
}

void MemoryControllerCore::write_sizes(uint32_t dba, uint8_t circ, uint8_t dyn, Cost* c) {
  write_block(meta_byte_addr(dba, kOffCircSize) / kBlockBytes,
              static_cast<uint16_t>(circ | (dyn << 8)), true, c);
}

uint16_t MemoryControllerCore::read_row_addr(uint32_t dba, uint32_t r, Cost* c) const {
  return read_block(meta_byte_addr(dba, kOffRowAddr + 2 * r) / kBlockBytes, true, c);
}

void MemoryControllerCore::write_row_addr(uint32_t dba, uint32_t r, uint16_t v, Cost* c) {
  write_block(meta_byte_addr(dba, kOffRowAddr + 2 * r) / kBlockBytes, v, true, c);
}

// ---- invariants ----------------------------------------------------------------------

bool MemoryControllerCore::check_invariants(std::string* why) const {
  auto fail = [why](const std::string& msg) {
    if (why) *why = msg;
    return false;
  };
  // Index entries first: which connections have metadata.
  uint32_t entries = 0;
  std::vector<uint8_t> has_meta(p_.max_connections, 0);
  for (uint32_t c = 0; c < p_.max_connections; ++c) {
    const uint32_t dba = read_dba(c, nullptr);
    if (dba == kNullDba) continue;
    ++entries;
    has_meta[c] = 1;
    if (dba + p_.metadata_blocks > p_.blocks)
      return fail("connection " + std::to_string(c) + ": metadata run past the tail");
    // Every block of the run is this connection's metadata.
    for (uint32_t b = dba; b < dba + p_.metadata_blocks; ++b)
      if (kind_[b] != Kind::kMetadata || owner_[b] != static_cast<int32_t>(c))
        return fail("connection " + std::to_string(c) + ": metadata block " + std::to_string(b) +
                    " not its own");
  }
  if (entries != index_used_) return fail("index entry count mismatch");
  // One pass over the blocks: allocation bits vs bookkeeping, counts, owners.
  uint32_t nb = 0, nm = 0;
  for (size_t w = 0; w < alloc_bits_.size(); ++w) {
    uint64_t expect = 0;
    const uint32_t lo = static_cast<uint32_t>(w) * 64;
    const uint32_t hi = lo + 64 < p_.blocks ? lo + 64 : p_.blocks;
    for (uint32_t b = lo; b < hi; ++b) {
      const Kind k = kind_[b];
      const int32_t o = owner_[b];
      if (k == Kind::kFree) {
        if (o >= 0) return fail("block " + std::to_string(b) + ": free block with an owner");
        continue;
      }
      expect |= uint64_t{1} << (b - lo);
      if (o < 0 || static_cast<uint32_t>(o) >= p_.max_connections || !has_meta[o])
        return fail("block " + std::to_string(b) + " of a connection without metadata");
      if (k == Kind::kBitmap)
        ++nb;
      else
        ++nm;
    }
    if (alloc_bits_[w] != expect)
      return fail("allocation bitmap word " + std::to_string(w) + " disagrees with the blocks");
  }
  if (nb != bitmap_used_) return fail("bitmap block count mismatch");
  if (nm != meta_used_) return fail("metadata block count mismatch");
  // Metadata blocks are all inside the runs checked above (runs are disjoint: each block
  // has one owner), so counts match only when no metadata block lies outside a run.
  if (nm != entries * p_.metadata_blocks) return fail("metadata block outside every run");
  if (peak_bitmap_ < bitmap_used_ || peak_meta_ < meta_used_ || peak_used_ < used_blocks())
    return fail("a peak below the current occupancy");
  return true;
}

}  // namespace oonic::eunomia
