// oonic: the command line (platforms/cli/cli.h defines every command).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <systemc>
#include <vector>

#include "model/core/error.h"
#include "platforms/cli/cli.h"

// SystemC prints its banner when its kernel starts, before sc_main; silence it
// from a static initializer so it never lands in our stdout.
[[maybe_unused]] static const bool kNoBanner = [] {
  return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}();

int sc_main(int argc, char* argv[]) {
  try {
    return oonic::cli::dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const oonic::Error& e) {
    std::fprintf(stderr, "oonic: error: %s\n", e.what());
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::fprintf(stderr, "oonic: error: %s: %s\n", e.get_msg_type(), e.get_msg());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "oonic: error: %s\n", e.what());
    return 2;
  }
}
