// Fuzz harness: oonic's text trace (traces/README.md), parsed line by line into
// frames built by the codec. Errors must name the file and line; what loads must be
// frames the codec parses back (unless the line asked for a bad ICRC or gave raw bytes).
#include <string>

#include "model/wire/roce.h"
#include "platforms/trace/trace.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Never a pcap magic: this harness is about the text parser.
  if (size >= 4 && ((data[0] == 0xa1 || data[0] == 0xd4 || data[0] == 0x4d || data[0] == 0x0a)))
    return 0;
  oonic::fuzz::TempFile f(data, size, ".txt");
  try {
    const oonic::trace::Trace t = oonic::trace::Trace::load(f.path());
    for (const oonic::trace::Record& r : t.records)
      if (r.offset + r.len > t.bytes()) std::abort();
  } catch (const oonic::Error& e) {
    const std::string what = e.what();
    // "<file>:<line>: ..." for a bad line; a file-level problem names the file.
    if (what.empty() || what.find(f.path()) == std::string::npos) {
      std::fprintf(stderr, "error does not name the file: %s\n", what.c_str());
      std::abort();
    }
  }
  return 0;
}
