// MELO / MELO+ middle access (see melo.h and linked_list_bitmap.h).
#include "model/ordering/melo.h"

namespace oonic::ordering {

uint32_t Melo::locate_middle(uint32_t qp, uint32_t k, Outcome& out) {
  (void)qp;
  (void)k;
  (void)out;
  return kNoBlock;  // middle access: dropped, 0 cycles
}

uint32_t MeloPlus::locate_middle(uint32_t qp, uint32_t k, Outcome& out) {
  uint32_t b = start_block(qp);
  reach(out, true);  // start_ptr
  for (uint32_t i = 0; i < k; ++i) {
    b = next_block(b);
    reach(out, true);  // next_ptr hop
  }
  return b;
}

}  // namespace oonic::ordering
