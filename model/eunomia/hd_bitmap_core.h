// Eunomia's hybrid-dynamic (HD) bitmap module (docs/DESIGN.md M2, Eunomia Figure 6) as an
// OrderingUnit ("eunomia"). The module is stateless logic: every connection's bitmap and
// its metadata live in an MemoryControllerCore (master_array, Figure 7 layout); per
// connection the unit keeps only transport state (open, ePSN, whether the first packet
// was seen) and conn_module_valid (a bitmap exists: mirrors a non-NULL DBA), which the
// packet driver would hold.
//
// Bitmap (a logical table of rows of B = block_bits bits; a row is B/16 consecutive
// master_array blocks found by one first-fit allocation):
//  * Created on a connection's first out-of-order packet (psn ahead of ePSN; ePSN from
//    transport state, or from the packet's Head metadata when it is the very first packet
//    the connection receives): metadata allocated backward from the tail, row 0 forward
//    from the head; one circular row, Head = ePSN, Tail = Head + B - 1.
//  * Circular part: C rows used as a ring; Head sits at ring position Head BM ID * B + Head
//    BM Index; PSN p in [Head, Tail] is the bit at ring position (head pos + p - Head) mod
//    C*B. Without a linear part the ring slides with Head: Tail = Head + C*B - 1.
//  * PSN beyond Tail: linear rows (Dynamic Size L of them, address entries C..C+L-1) map
//    Tail+1 to their first bit; a PSN that fits an existing linear row uses it, otherwise
//    rows are added (no remapping) up to the one that holds it. While a linear part exists
//    Tail is frozen (the ring no longer slides).
//  * Cap: at most R = max_bitmap_bits / B rows (C + L <= R). A packet whose row would be
//    past the R-th is dropped and NACKed (kBeyondWindow, Feedback::kNack); so is a first
//    out-of-order packet with psn - ePSN >= R*B (no bitmap is created for it). Note: with
//    a frozen Tail the reachable span from Head is Tail + (R-C)*B - Head + 1, which can be
//    less than R*B: ring bits behind Head are not reused until the merge.
//  * psn == Head: consecutive ones from Head are cleared and Head moves to the first
//    missing PSN (crossing from the ring into the linear part if Head passes Tail).
//  * Merge: when the circular part is fully flushed (Head > Tail) and a linear part exists,
//    the linear rows join the ring after the circular rows, in address-array order (no
//    data moves): C += L, L = 0, Head BM ID/Index = ring position of Head, Tail = Head +
//    C*B - 1. Rows are never returned before garbage collection.
//  * Garbage collection: Last Seq = the highest PSN seen with the "last" bit on a tracked
//    packet (PacketMeta::last). When Head moves past a known Last Seq and the bitmap holds
//    no ones (nothing of a later message is pending), the rows and the metadata are freed
//    and the DBA goes back to NULL; with ones still pending, Last Seq becomes unknown (the
//    later message's own last packet sets it again).
//  * Feedback: kAck for an in-order packet (and for a duplicate below ePSN: re-ACK), kSack
//    for a tracked out-of-order packet (also for a duplicate of one: its bit was already
//    set), kNack when the packet could not be tracked (beyond the cap, or master_array full:
//    kPoolExhausted) and was dropped.
//
// Cost (Outcome): the controller's Cost of the call: 1 cycle per index access, per
// master_array block read or written, plus allocation search/update cycles.
//   node_accesses  = index accesses + metadata block reads/writes
//   block_accesses = bitmap block reads/writes
//   cycles         = node_accesses + block_accesses + allocation cycles
//   locate_cycles  = index read (1) + header read (Head 2, Tail 2, Head BM 1, sizes 1) +
//                    the row's address: row 0's absolute entry (1), other rows their
//                    relative entry + row 0's (2); row 0's entry is read at most once a
//                    call. A packet needing a new row: index + header + row 0's entry (to
//                    make the new entry relative) = 8. A packet past the cap: index +
//                    header = 7 (dropped before any address read). Creation: 0
//                    (conn_module_valid says there is no bitmap; everything is allocation
//                    and initialisation).
//   blocks_held    = master_array blocks the connection holds (bitmap rows + metadata).
// In-order packets of a connection without a bitmap and duplicates below ePSN cost 0
// cycles (transport state only). The exact access sequence of every path is in the .cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/eunomia/memory_controller_core.h"
#include "model/ordering/ordering_unit.h"

namespace oonic::eunomia {

class HdBitmapCore : public ordering::OrderingUnit {
 public:
  struct Params {
    uint32_t block_bits = 16;             // B: bits per row (multiple of 16, 16..256)
    uint32_t max_bitmap_bits = 256;       // cap: R = max_bitmap_bits / B rows (1..255)
    MemoryControllerCore::Params memory;  // of the controller the unit owns
  };
  // Owns its controller (built from p.memory).
  explicit HdBitmapCore(const Params& p);
  // Uses a controller shared with other modules (p.memory ignored); the modules must
  // serve disjoint connections.
  HdBitmapCore(const Params& p, MemoryControllerCore& shared);
  ~HdBitmapCore() override;
  const char* name() const override { return "eunomia"; }

  // open: start_psn is the transport's ePSN (otd ignored). Reopening closes first.
  void open(uint32_t qp, uint32_t start_psn, uint32_t otd) override;
  // Frees the connection's bitmap and metadata (uncounted).
  void close(uint32_t qp) override;
  bool is_open(uint32_t qp) const override;
  ordering::Outcome receive(uint32_t qp, uint32_t psn) override;
  ordering::Outcome receive(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta) override;
  uint32_t epsn(uint32_t qp) const override;
  uint32_t blocks_held(uint32_t qp) const override;
  uint32_t bitmap_blocks_held(uint32_t qp) const;
  uint32_t metadata_blocks_held(uint32_t qp) const;
  // Everything: the controller's invariants, every connection's state, no leaked row.
  bool check_invariants(std::string* why) const override;
  // The controller's invariants and one connection's state (cheaper; for per-call checks).
  bool check_invariants(uint32_t qp, std::string* why) const;

  // What the last receive() did, in detail (its cost and structural events).
  struct Detail {
    Cost cost;
    bool created = false;     // the bitmap was created by this packet
    uint32_t rows_added = 0;  // linear rows added
    bool merged = false;      // linear part merged into the circular part
    bool gc = false;          // bitmap and metadata freed
  };
  const Detail& last_detail() const { return last_; }
  // Counters since construction.
  uint64_t creations() const { return creations_; }
  uint64_t merges() const { return merges_; }
  // Merges at which the instrumented condition failed: Head not past Tail, no linear
  // part, or a bit of the circular part still set. Always 0 unless the logic is broken.
  uint64_t merge_violations() const { return merge_violations_; }
  uint64_t garbage_collections() const { return gcs_; }

  // Uncounted view of a connection's state as stored in master_array.
  struct View {
    bool has_bitmap = false;
    uint32_t dba = MemoryControllerCore::kNullDba;
    uint32_t head = 0, tail = 0, last_seq = MemoryControllerCore::kLastUnknown;
    uint8_t head_bm_id = 0, head_bm_index = 0, circ_rows = 0, dyn_rows = 0;
    std::vector<uint32_t> row_blocks;  // absolute first block of each row (0..C+L-1)
  };
  View view(uint32_t qp) const;
  // PSNs whose bit is set (received out of order, not yet passed by Head), ascending
  // from Head.
  std::vector<uint32_t> pending_psns(uint32_t qp) const;
  uint32_t max_rows() const { return rows_cap_; }
  const Params& params() const { return p_; }
  MemoryControllerCore& controller() { return *mc_; }
  const MemoryControllerCore& controller() const { return *mc_; }

 private:
  struct Conn {
    bool open = false;
    bool started = false;       // a packet was received since open()
    bool module_valid = false;  // conn_module_valid: a bitmap exists
    uint32_t epsn = 0;
  };
  struct Call;  // per-call registers (loaded header, dirty flags, cached row 0 address)

  Params p_;
  std::unique_ptr<MemoryControllerCore> owned_;
  MemoryControllerCore* mc_ = nullptr;
  uint32_t words_per_row_ = 1;  // B / 16
  uint32_t rows_cap_ = 16;      // R
  std::vector<Conn> conns_;
  Detail last_;
  uint64_t creations_ = 0, merges_ = 0, merge_violations_ = 0, gcs_ = 0;

  void validate();
  ordering::Outcome finish(ordering::Outcome out, uint32_t qp, uint32_t held_before);
  void create(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta, ordering::Outcome* out);
  void track(uint32_t qp, uint32_t psn, const ordering::PacketMeta& meta, ordering::Outcome* out);
  bool grow(uint32_t qp, Call& c, uint32_t psn, ordering::Outcome* out);
  void advance(uint32_t qp, Call& c, uint32_t psn, const ordering::PacketMeta& meta,
               ordering::Outcome* out);
  uint32_t row_block(Call& c, uint32_t r);
  bool map(const Call& c, uint32_t psn, uint32_t* row, uint32_t* bit) const;
  void load_last(Call& c);
  void write_back(Call& c);
  void release(uint32_t qp, Cost* cost);
  bool check_conn(uint32_t qp, std::string* why, uint32_t* bitmap_blocks) const;
};

}  // namespace oonic::eunomia
