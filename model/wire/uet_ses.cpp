// UET SES standard request header codec (see uet_ses.h).
#include "model/wire/uet_ses.h"

#include <cstring>

#include "model/wire/bytes.h"

namespace oonic::wire::uet {

size_t write_ses_std(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st) {
  auto fail = [st](PdsStatus x) -> size_t {
    if (st) *st = x;
    return 0;
  };
  if (cap < kSesStdBytes) return fail(PdsStatus::kTruncated);
  if (s.opcode > 0x3F || s.version > 3 || s.job_id > 0xFFFFFF || s.pid_on_fep > 0xFFF ||
      s.resource_index > 0xFFF || (!s.som && s.payload_length > 0x3FFF))
    return fail(PdsStatus::kBadField);
  std::memset(out, 0, kSesStdBytes);
  out[0] = s.opcode;
  out[1] = static_cast<uint8_t>(s.version << 6 | (s.dc ? 0x20 : 0) | (s.ie ? 0x10 : 0) |
                                (s.rel ? 0x08 : 0) | (s.hd ? 0x04 : 0) | (s.eom ? 0x02 : 0) |
                                (s.som ? 0x01 : 0));
  wr16(out + 2, s.message_id);
  out[4] = s.ri_generation;
  wr24(out + 5, s.job_id);
  wr16(out + 8, s.pid_on_fep);
  wr16(out + 10, s.resource_index);
  wr64(out + 12, s.buffer_offset);
  wr32(out + 20, s.initiator);
  wr64(out + 24, s.memory_key);
  if (s.som) {
    wr64(out + 32, s.header_data);
  } else {
    wr32(out + 32, s.payload_length);  // rsvd 18 | payload_length 14
    wr32(out + 36, s.message_offset);
  }
  wr32(out + 40, s.request_length);
  if (st) *st = PdsStatus::kOk;
  return kSesStdBytes;
}

PdsStatus read_ses_std(const uint8_t* in, size_t len, SesStd& s) {
  if (len < kSesStdBytes) return PdsStatus::kTruncated;
  s = SesStd{};
  s.opcode = in[0] & 0x3F;
  s.version = in[1] >> 6;
  s.dc = in[1] & 0x20;
  s.ie = in[1] & 0x10;
  s.rel = in[1] & 0x08;
  s.hd = in[1] & 0x04;
  s.eom = in[1] & 0x02;
  s.som = in[1] & 0x01;
  s.message_id = rd16(in + 2);
  s.ri_generation = in[4];
  s.job_id = rd24(in + 5);
  s.pid_on_fep = rd16(in + 8) & 0xFFF;
  s.resource_index = rd16(in + 10) & 0xFFF;
  s.buffer_offset = rd64(in + 12);
  s.initiator = rd32(in + 20);
  s.memory_key = rd64(in + 24);
  if (s.som) {
    s.header_data = rd64(in + 32);
  } else {
    s.payload_length = static_cast<uint16_t>(rd32(in + 32) & 0x3FFF);
    s.message_offset = rd32(in + 36);
  }
  s.request_length = rd32(in + 40);
  return PdsStatus::kOk;
}

}  // namespace oonic::wire::uet
