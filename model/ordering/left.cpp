// LEFT / LEFT+ middle access with the cache pointer (see left.h and linked_list_bitmap.h).
#include "model/ordering/left.h"

namespace oonic::ordering {

Left::Left(const Params& p, bool from_cache)
    : LinkedListBitmap(p), threshold_(p.cache_threshold), from_cache_(from_cache) {
  cache_.resize(p.max_qps);
}

int32_t Left::cache_index(uint32_t qp) const {
  if (qp >= cache_.size() || !cache_[qp].valid) return -1;
  return wire::psn_diff(cache_[qp].psn, base_psn(qp)) / static_cast<int32_t>(block_bits());
}

uint32_t Left::cache_block(uint32_t qp) const {
  return qp < cache_.size() && cache_[qp].valid ? cache_[qp].block : kNoBlock;
}

uint32_t Left::locate_middle(uint32_t qp, uint32_t k, Outcome& out) {
  Cache& c = cache_[qp];
  const uint32_t m = block_bits();
  uint32_t ck = 0;
  if (c.valid) ck = static_cast<uint32_t>(wire::psn_diff(c.psn, base_psn(qp))) / m;
  if (c.valid && ck == k) {
    reach(out, true);  // hit: cache_ptr
    return c.block;
  }
  uint32_t b, hops;
  if (from_cache_ && c.valid && ck < k) {
    b = c.block;  // LEFT+: walk from the cache pointer
    hops = k - ck;
  } else {
    b = start_block(qp);
    hops = k;
  }
  reach(out, true);
  for (uint32_t i = 0; i < hops; ++i) {
    b = next_block(b);
    reach(out, true);
  }
  if (hops >= threshold_) {
    c.valid = true;
    c.block = b;
    c.psn = wire::psn_add(base_psn(qp), static_cast<int64_t>(k) * m);
  }
  return b;
}

void Left::on_release(uint32_t qp, uint32_t block) {
  if (cache_[qp].valid && cache_[qp].block == block) cache_[qp] = Cache{};
}

void Left::on_open(uint32_t qp) {
  cache_[qp] = Cache{};
}

bool Left::check_scheme_invariants(uint32_t qp, const std::vector<uint32_t>& list,
                                   std::string* why) const {
  const Cache& c = cache_[qp];
  if (!c.valid) return true;
  auto fail = [why, qp](const std::string& msg) {
    if (why) *why = "qp " + std::to_string(qp) + ": " + msg;
    return false;
  };
  const int32_t off = wire::psn_diff(c.psn, base_psn(qp));
  const int32_t m = static_cast<int32_t>(block_bits());
  if (off < 0 || off % m != 0) return fail("cache PSN not on a block of the list");
  const uint32_t idx = static_cast<uint32_t>(off / m);
  if (idx >= list.size()) return fail("cache index beyond the list");
  if (list[idx] != c.block) return fail("cache block is not the list's block at its index");
  return true;
}

}  // namespace oonic::ordering
