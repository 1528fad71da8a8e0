// SystemC tests: one executable, one test per process (gtest_discover_tests runs
// each with --gtest_filter), because a SystemC kernel cannot be restarted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

#include "model/core/report.h"

// SystemC prints its banner when its kernel starts, before sc_main; silence it
// from a static initializer so it never lands in our stdout.
[[maybe_unused]] static const bool kNoBanner = [] {
  return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  oonic::install_report_handler();
  return RUN_ALL_TESTS();
}
