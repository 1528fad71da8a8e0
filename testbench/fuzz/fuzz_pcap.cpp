// Fuzz harness: the trace loader on pcap / pcapng input (libpcap underneath), as
// `oonic replay` and every trace tool open a capture. A damaged file is either
// rejected with a reason or loaded with an issue naming where reading stopped; every
// record loaded reads back (from the file, or from the arena) as the bytes libpcap
// returned for it.
#include <cstring>
#include <vector>

#include "platforms/trace/trace.h"
#include "testbench/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oonic::fuzz::TempFile f(data, size, ".pcap");
  oonic::fuzz::expect_accept_or_reason([&] {
    const oonic::trace::Trace t = oonic::trace::Trace::load(f.path());
    oonic::trace::PcapReader in(f.path());
    oonic::trace::PcapReader::Record h;
    std::vector<uint8_t> buf;
    for (const oonic::trace::Record& r : t.records) {
      if (!t.in_file() && r.offset + r.len > t.bytes()) std::abort();
      if (!in.next(h) || h.caplen != r.len) std::abort();
      if (r.len && std::memcmp(t.frame(r, buf), h.data, r.len) != 0) std::abort();
    }
    for (const oonic::trace::Issue& i : t.issues)
      if (i.reason.empty()) std::abort();
  });
  return 0;
}
