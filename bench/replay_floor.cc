// The floor under `oonic replay` (issue 30, item 4): what any replay of a capture must
// do at least, on this machine — read the capture once, check every frame's ICRC (the
// codec's parse, ISA-L), and copy each payload once into a host-memory region of the
// replay's size (the n-th payload at n x its size, wrapping), touching it as the replay's
// host memory is touched. scripts/bench prints its whole-process time beside oonic's.
// usage: replay-floor CAPTURE REGION_BYTES
#include <pcap/pcap.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/wire/roce.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: replay-floor CAPTURE REGION_BYTES\n");
    return 2;
  }
  const uint64_t region = std::strtoull(argv[2], nullptr, 10);
  if (region < 4096) {
    std::fprintf(stderr, "replay-floor: REGION_BYTES must be at least 4096\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(argv[1], err);
  if (!p) {
    std::fprintf(stderr, "replay-floor: %s: %s\n", argv[1], err);
    return 2;
  }
  std::vector<uint8_t> memory(region);  // first touched by the copies, as host memory is
  uint64_t frames = 0, bad = 0, bytes = 0, at = 0;
  pcap_pkthdr* h = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(p, &h, &data) == 1) {
    ++frames;
    oonic::wire::PacketView v;
    if (oonic::wire::parse(data, h->caplen, v, true) != oonic::wire::ParseStatus::kOk) {
      ++bad;
      continue;
    }
    if (!v.payload_len) continue;
    if (at + v.payload_len > region) at = 0;
    std::memcpy(memory.data() + at, v.payload, v.payload_len);
    at += v.payload_len, bytes += v.payload_len;
  }
  pcap_close(p);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%llu frames, %llu not RoCE or bad, %llu payload bytes copied, %.3f s\n",
              static_cast<unsigned long long>(frames), static_cast<unsigned long long>(bad),
              static_cast<unsigned long long>(bytes), s);
  return 0;
}
