#include "model/ornic/packet_log.h"

#include "model/core/error.h"

namespace oonic::ornic {

const char* to_string(RecordVerdict v) {
  switch (v) {
    case RecordVerdict::kNone:
      return "";
    case RecordVerdict::kAccepted:
      return "accepted";
    case RecordVerdict::kOoo:
      return "ooo";
    case RecordVerdict::kDuplicate:
      return "duplicate";
    case RecordVerdict::kDropped:
      return "dropped";
    case RecordVerdict::kCnp:
      return "cnp";
    case RecordVerdict::kSkipped:
      return "skipped";
  }
  return "";
}

PacketLog::PacketLog(const std::string& path) : f_(std::fopen(path.c_str(), "w")), buf_(nullptr) {
  if (!f_) throw Error(msg::kIo, path + ": cannot write");
  buf_ = new char[1 << 20];
  std::setvbuf(f_, buf_, _IOFBF, 1 << 20);
  std::fputs(
      "record,arrival_cycle,parsed_cycle,processed_cycle,dma_done_cycle,qpn,psn,opcode,payload_"
      "bytes,verdict,drop_reason,locate_cycles,bitmap_cycles,blocks_held\n",
      f_);
}

PacketLog::~PacketLog() {
  std::fclose(f_);
  delete[] buf_;
}

void PacketLog::write(const PacketRecord& r) {
  auto c = [](Cycle x) { return static_cast<unsigned long long>(x); };
  if (r.drop == Drop::kNotForDut) {  // never reached the NIC: no cycles
    std::fprintf(f_, "%u,,,,,,,,,%s,%s,,,\n", r.index, to_string(r.verdict), drop_name(r.drop));
    return;
  }
  if (r.opcode < 0) {
    std::fprintf(f_, "%u,%llu,%llu,,,,,,,%s,%s,,,\n", r.index, c(r.arrival), c(r.parsed),
                 to_string(r.verdict), drop_name(r.drop));
    return;
  }
  std::fprintf(f_, "%u,%llu,%llu,", r.index, c(r.arrival), c(r.parsed));
  if (r.processed) std::fprintf(f_, "%llu", c(r.processed));
  std::fputc(',', f_);
  if (r.dma_done) std::fprintf(f_, "%llu", c(r.dma_done));
  std::fprintf(f_, ",0x%x,%u,0x%02x,%u,%s,%s,", r.qpn, r.psn, r.opcode, r.payload,
               to_string(r.verdict), r.drop == Drop::kNone ? "" : drop_name(r.drop));
  if (r.bitmap)
    std::fprintf(f_, "%u,%u,%u\n", r.locate_cycles, r.bitmap_cycles, r.blocks_held);
  else
    std::fputs(",,\n", f_);
}

}  // namespace oonic::ornic
