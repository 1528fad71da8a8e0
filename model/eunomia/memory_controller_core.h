// Eunomia's memory controller (docs/DESIGN.md M2): the one
// place that stores every connection's ordering state. Plain C++, no SystemC.
//
// Storage (what the hardware has, and all the model keeps besides bookkeeping):
//   master_array          `blocks` 2-byte blocks (1024 in the reference design), kept as
//                         real bytes; every field below is written into it and read back.
//   block_alloc_bitmap    1 bit per master_array block (1 = in use).
//   metadata_start_index  per connection 3 B: 1 B connection id + 2 B start index (the
//                         DBA, dynamic bitmap address, of its metadata), direct-mapped by
//                         connection. Start index 0xFFFF (never a block index: blocks <=
//                         65535) is NULL; so is an entry whose id byte is not the connection.
//
// Allocation:
//   bitmap blocks         first fit searching FORWARD from the head (block 0) of
//                         master_array (n consecutive blocks; n = 1 for 16-bit rows).
//   connection metadata   searching BACKWARD from the tail (block blocks-1) for
//                         `metadata_blocks` consecutive free blocks (24 = 48 B in the
//                         reference); the run found nearest the tail is taken.
//   release               marks blocks free; their data is not erased.
//
// Per-connection metadata at the DBA (Eunomia Table 1 / Figure 7), little-endian fields,
// byte offsets from the DBA's first byte:
//   0  Head            4 B  first missing PSN
//   4  Tail            4 B  highest PSN the circular part can hold
//   8  Last Seq        4 B  PSN of the last packet (kLastUnknown = 0xFFFFFFFF: not known)
//   12 Head BM ID      1 B  row (of the circular part) that holds Head
//   13 Head BM Index   1 B  bit of that row that is Head
//   14 Circular BM Size 1 B rows in the circular part
//   15 Dynamic Size    1 B  rows in the linear part
//   16 + 2r            2 B  address of bitmap row r: row 0 absolute (block index), row r > 0
//                           relative to row 0 (block(r) - block(0) mod 2^16)
// A metadata run is metadata_blocks blocks: 8 blocks of fixed fields + one block per row,
// so metadata_blocks >= 8 + max rows (the HD bitmap checks it).
//
// Cost model (every operation adds to an Cost; cycles() is the sum of its parts):
//   metadata_start_index  1 cycle per entry read or write (index_accesses).
//   master_array          1 cycle per 2-byte block read or written (single port): a 4-byte
//                         field costs 2, a 1-byte field costs the 1 block it shares with
//                         its neighbour (Head BM ID + Index are one block, the two sizes
//                         another). Metadata blocks and bitmap blocks are counted apart.
//   allocation searches   the allocation bitmap is examined alloc_bits_per_cycle (W) bits a
//                         cycle: a search that examined b bits costs ceil(b / W) cycles.
//                         Forward first fit for n blocks ending at block s+n-1 examines s+n
//                         bits; the backward search that stops at run start s examines
//                         blocks - s bits; a failed search examines all `blocks` bits. (With
//                         blocks % W == 0 this equals the number of aligned W-bit words read.)
//   allocation updates    marking a run used or free is a read-modify-write of every aligned
//                         W-bit word of the allocation bitmap the run touches: 1 cycle each.
// Calls with a null Cost* are inspections (tests, invariants, VCD): uncounted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace oonic::eunomia {

// Cost of one or more memory-controller operations.
struct Cost {
  uint32_t index_accesses = 0;       // metadata_start_index entry reads + writes
  uint32_t meta_reads = 0;           // master_array metadata blocks read
  uint32_t meta_writes = 0;          // master_array metadata blocks written
  uint32_t bitmap_reads = 0;         // master_array bitmap blocks read
  uint32_t bitmap_writes = 0;        // master_array bitmap blocks written
  uint32_t alloc_bits_scanned = 0;   // allocation-bitmap bits examined by searches
  uint32_t alloc_scan_cycles = 0;    // ceil(bits / W) per search
  uint32_t alloc_update_cycles = 0;  // allocation-bitmap words rewritten (mark used / free)
  uint32_t cycles() const {
    return index_accesses + meta_reads + meta_writes + bitmap_reads + bitmap_writes +
           alloc_scan_cycles + alloc_update_cycles;
  }
  Cost& operator+=(const Cost& o);
};

class MemoryControllerCore {
 public:
  struct Params {
    uint32_t blocks = 1024;              // master_array blocks (2 B each), 1..65535
    uint32_t max_connections = 256;      // metadata_start_index entries (1-byte id: <= 256)
    uint32_t metadata_blocks = 24;       // blocks of one connection's metadata (48 B)
    uint32_t alloc_bits_per_cycle = 64;  // W: allocation-bitmap bits examined per cycle
  };
  static constexpr uint32_t kBlockBytes = 2;
  static constexpr uint32_t kNullDba = 0xFFFF;  // "no metadata" (never a valid block index)
  static constexpr uint32_t kLastUnknown = 0xFFFFFFFFu;
  // Byte offsets of the Figure 7 fields from the DBA.
  static constexpr uint32_t kOffHead = 0, kOffTail = 4, kOffLastSeq = 8, kOffHeadBmId = 12,
                            kOffHeadBmIndex = 13, kOffCircSize = 14, kOffDynSize = 15,
                            kOffRowAddr = 16;
  static constexpr uint32_t kFixedMetaBlocks = kOffRowAddr / kBlockBytes;  // 8

  explicit MemoryControllerCore(const Params& p);
  const Params& params() const { return p_; }

  // ---- allocation (counted) --------------------------------------------------------
  // New connection metadata: backward search from the tail for metadata_blocks consecutive
  // free blocks, mark them used, write conn's metadata_start_index entry (1 index write).
  // False (nothing changed; the failed search is still counted) when no run is free or
  // conn already has metadata.
  bool alloc_metadata(uint32_t conn, uint32_t* dba, Cost* cost);
  // New bitmap block(s): first fit of n consecutive free blocks searching forward from
  // the head; marks them used (owner conn, for bookkeeping). False when none fits.
  bool alloc_bitmap(uint32_t conn, uint32_t n, uint32_t* first, Cost* cost);
  // Reset on completion: mark blocks free (data kept).
  void free_bitmap(uint32_t first, uint32_t n, Cost* cost);
  // Frees conn's metadata run and invalidates its index entry (1 index write).
  void free_metadata(uint32_t conn, Cost* cost);

  // ---- metadata_start_index --------------------------------------------------------
  // conn's DBA or kNullDba; 1 index read when counted.
  uint32_t read_dba(uint32_t conn, Cost* cost) const;
  bool has_metadata(uint32_t conn) const { return read_dba(conn, nullptr) != kNullDba; }

  // ---- master_array access: one counted access per 2-byte block --------------------
  uint16_t read_block(uint32_t block, bool metadata, Cost* cost) const;
  void write_block(uint32_t block, uint16_t v, bool metadata, Cost* cost);

  // Figure 7 field accessors (metadata blocks; dba = first block of the run).
  uint32_t read_head(uint32_t dba, Cost* c) const { return read_u32(dba, kOffHead, c); }
  void write_head(uint32_t dba, uint32_t v, Cost* c) { write_u32(dba, kOffHead, v, c); }
  uint32_t read_tail(uint32_t dba, Cost* c) const { return read_u32(dba, kOffTail, c); }
  void write_tail(uint32_t dba, uint32_t v, Cost* c) { write_u32(dba, kOffTail, v, c); }
  uint32_t read_last_seq(uint32_t dba, Cost* c) const { return read_u32(dba, kOffLastSeq, c); }
  void write_last_seq(uint32_t dba, uint32_t v, Cost* c) { write_u32(dba, kOffLastSeq, v, c); }
  // Head BM ID (low byte) and Head BM Index (high byte) share one block.
  void read_head_bm(uint32_t dba, uint8_t* id, uint8_t* index, Cost* c) const;
  void write_head_bm(uint32_t dba, uint8_t id, uint8_t index, Cost* c);
  // Circular BM Size (low byte) and Dynamic Size (high byte) share one block.
  void read_sizes(uint32_t dba, uint8_t* circ, uint8_t* dyn, Cost* c) const;
  void write_sizes(uint32_t dba, uint8_t circ, uint8_t dyn, Cost* c);
  // The raw 2-byte address entry of row r (absolute for r = 0, relative otherwise).
  uint16_t read_row_addr(uint32_t dba, uint32_t r, Cost* c) const;
  void write_row_addr(uint32_t dba, uint32_t r, uint16_t v, Cost* c);

  // ---- occupancy (uncounted) --------------------------------------------------------
  uint32_t used_blocks() const { return bitmap_used_ + meta_used_; }
  uint32_t bitmap_blocks_used() const { return bitmap_used_; }
  uint32_t metadata_blocks_used() const { return meta_used_; }
  uint32_t free_blocks() const { return p_.blocks - used_blocks(); }
  uint32_t used_bytes() const { return used_blocks() * kBlockBytes; }
  uint32_t bitmap_bytes_used() const { return bitmap_used_ * kBlockBytes; }
  uint32_t metadata_bytes_used() const { return meta_used_ * kBlockBytes; }
  uint32_t index_entries_used() const { return index_used_; }
  uint32_t index_bytes_used() const { return index_used_ * 3; }  // 3 B per non-NULL entry
  // Peaks since construction or reset_peaks(), each its own maximum over time.
  uint32_t peak_bitmap_blocks() const { return peak_bitmap_; }
  uint32_t peak_metadata_blocks() const { return peak_meta_; }
  uint32_t peak_used_blocks() const { return peak_used_; }
  void reset_peaks();
  // Storage sizes of the structures themselves (bytes).
  uint32_t master_array_bytes() const { return p_.blocks * kBlockBytes; }
  uint32_t alloc_bitmap_bytes() const { return (p_.blocks + 7) / 8; }
  uint32_t index_table_bytes() const { return p_.max_connections * 3; }

  bool block_in_use(uint32_t block) const;  // the allocation bit
  bool alloc_bitmap_empty() const;
  // Bookkeeping (not hardware state): kind and owner of every block, for invariants.
  enum class Kind : uint8_t { kFree, kBitmap, kMetadata };
  Kind kind(uint32_t block) const { return kind_[block]; }
  int32_t owner(uint32_t block) const { return owner_[block]; }

  // Allocation bitmap vs bookkeeping, counters, index entries point at whole metadata
  // runs of their own connection, no bitmap block without its connection's metadata.
  bool check_invariants(std::string* why) const;

 private:
  Params p_;
  std::vector<uint8_t> master_;       // blocks * 2 bytes
  std::vector<uint64_t> alloc_bits_;  // block_alloc_bitmap
  std::vector<uint8_t> index_;        // max_connections * 3 bytes (id, start lo, start hi)
  std::vector<Kind> kind_;            // bookkeeping
  std::vector<int32_t> owner_;        // bookkeeping: connection, -1 when free
  uint32_t bitmap_used_ = 0, meta_used_ = 0, index_used_ = 0;
  uint32_t peak_bitmap_ = 0, peak_meta_ = 0, peak_used_ = 0;

  void set_alloc(uint32_t first, uint32_t n, bool used, Cost* cost);
  uint32_t scan_cycles(uint32_t bits) const;
  void note_peaks();
  uint32_t read_u32(uint32_t dba, uint32_t off, Cost* c) const;
  void write_u32(uint32_t dba, uint32_t off, uint32_t v, Cost* c);
  uint32_t meta_byte_addr(uint32_t dba, uint32_t off) const;
};

}  // namespace oonic::eunomia
