// IRN receiver core (see irn.h for the contract, the feedback choices and the BDP
// arithmetic; the bitmap and its cost model are detail::CyclicBitmap, static_bitmap.h).
#include "model/ordering/irn.h"

namespace oonic::ordering {

namespace {
detail::CyclicBitmap::Geometry geometry_of(const Irn::Params& p) {
  detail::CyclicBitmap::Geometry g;
  g.window_bits = p.bitmap_bits;
  g.word_bits = p.word_bits;
  g.block_bits = p.block_bits;
  g.max_qps = p.max_qps;
  return g;
}
}  // namespace

Irn::Irn(const Params& p) : p_(p), bm_(geometry_of(p), "Irn") {}

void Irn::open(uint32_t qp, uint32_t start_psn, uint32_t otd) {
  (void)otd;
  bm_.open(qp, start_psn);
}

void Irn::close(uint32_t qp) {
  bm_.close(qp);
}

bool Irn::is_open(uint32_t qp) const {
  return bm_.is_open(qp);
}

Outcome Irn::receive(uint32_t qp, uint32_t psn) {
  Outcome out = bm_.receive(qp, psn);
  switch (out.verdict) {
    case Verdict::kInOrder:
    case Verdict::kDuplicate:
      out.feedback = Feedback::kAck;
      break;
    case Verdict::kOutOfOrder:
      out.feedback = Feedback::kSack;
      out.sack_psn = psn & wire::kPsnMask;
      break;
    case Verdict::kBeyondWindow:
      out.feedback = Feedback::kNack;
      break;
    default:
      out.feedback = Feedback::kNone;
      break;
  }
  return out;
}

uint32_t Irn::epsn(uint32_t qp) const {
  return bm_.epsn(qp);
}

uint32_t Irn::blocks_held(uint32_t qp) const {
  return bm_.blocks_held(qp);
}

bool Irn::check_invariants(std::string* why) const {
  return bm_.check_invariants(why);
}

}  // namespace oonic::ordering
