#include "model/ordering/ordering_unit.h"

namespace oonic::ordering {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kInOrder:
      return "in_order";
    case Verdict::kOutOfOrder:
      return "out_of_order";
    case Verdict::kDuplicate:
      return "duplicate";
    case Verdict::kBeyondWindow:
      return "beyond_window";
    case Verdict::kPoolExhausted:
      return "pool_exhausted";
    case Verdict::kQpClosed:
      return "qp_closed";
    case Verdict::kUntrackable:
      return "untrackable";
  }
  return "?";
}

const char* to_string(Feedback f) {
  switch (f) {
    case Feedback::kNone:
      return "none";
    case Feedback::kAck:
      return "ack";
    case Feedback::kNak:
      return "nak";
    case Feedback::kSack:
      return "sack";
    case Feedback::kNack:
      return "nack";
    case Feedback::kBitmapNak:
      return "bitmap_nak";
    case Feedback::kHoleNack:
      return "hole_nack";
  }
  return "?";
}

}  // namespace oonic::ordering
