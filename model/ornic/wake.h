// The TX arbiter's wake-up as the blocks that book work for it see it: "something is due
// at cycle t". Implemented by the arbiter's shell (a SystemC event); a kernel-free test
// gives a recorder. Plain C++.
#pragma once

#include "model/core/cycles.h"

namespace oonic::ornic {

class WakeUp {
 public:
  virtual ~WakeUp() = default;
  virtual void wake(Cycle t) = 0;
};

}  // namespace oonic::ornic
