// Fuzz harness: the UET PDS header codec (model/wire/uet_pds.h). Properties beyond
// "no crash": a header that reads kOk used exactly its type's size, inside the input;
// writing what was read and reading it again gives the same header, byte for byte
// when written once more (reserved bits are the only bytes allowed to differ from
// the input, and they are written as zero).
#include <cstdlib>
#include <cstring>

#include "model/wire/uet_pds.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace oonic::wire::uet;
  Pds p;
  size_t used = 0;
  const PdsStatus st = read_pds(data, size, p, &used);
  (void)to_string(st);
  if (st != PdsStatus::kOk) return 0;
  if (used != pds_bytes(p.type) || used > size) std::abort();
  uint8_t a[64], b[64];
  PdsStatus ws;
  const size_t na = write_pds(p, a, sizeof a, &ws);
  if (na != used || ws != PdsStatus::kOk) std::abort();
  Pds q;
  size_t used2 = 0;
  if (read_pds(a, na, q, &used2) != PdsStatus::kOk || used2 != na) std::abort();
  const size_t nb = write_pds(q, b, sizeof b, &ws);
  if (nb != na || std::memcmp(a, b, na) != 0) std::abort();
  for (size_t i = 0; i < na; ++i)  // written bits are a subset of the input's
    if ((a[i] & ~data[i]) != 0) std::abort();
  return 0;
}
