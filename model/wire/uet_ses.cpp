// UET SES standard request header codec (see uet_ses.h).
#include "model/wire/uet_ses.h"

#include <cstring>

#include "model/wire/bytes.h"

namespace oonic::wire::uet {

namespace {

// The first 12 bytes every request form shares; false when a value does not fit.
bool common_fits(const SesStd& s) {
  return s.opcode <= 0x3F && s.version <= 3 && s.job_id <= 0xFFFFFF && s.pid_on_fep <= 0xFFF &&
         s.resource_index <= 0xFFF;
}
void write_common(const SesStd& s, uint8_t* out) {
  out[0] = s.opcode;
  out[1] = static_cast<uint8_t>(s.version << 6 | (s.dc ? 0x20 : 0) | (s.ie ? 0x10 : 0) |
                                (s.rel ? 0x08 : 0) | (s.hd ? 0x04 : 0) | (s.eom ? 0x02 : 0) |
                                (s.som ? 0x01 : 0));
  wr16(out + 2, s.message_id);
  out[4] = s.ri_generation;
  wr24(out + 5, s.job_id);
  wr16(out + 8, s.pid_on_fep);
  wr16(out + 10, s.resource_index);
}
void read_common(const uint8_t* in, SesStd& s) {
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
}
size_t failed(PdsStatus* st, PdsStatus x) {
  if (st) *st = x;
  return 0;
}
size_t done(PdsStatus* st, size_t n) {
  if (st) *st = PdsStatus::kOk;
  return n;
}

}  // namespace

size_t ses_bytes(uint8_t next_hdr) {
  switch (static_cast<NextHdr>(next_hdr)) {
    case NextHdr::kRequestSmall:
      return kSesSmallBytes;
    case NextHdr::kRequestMedium:
      return kSesMediumBytes;
    case NextHdr::kRequestStd:
      return kSesStdBytes;
    case NextHdr::kResponse:
      return kSesResponseBytes;
    case NextHdr::kResponseData:
      return kSesResponseDataBytes;
    case NextHdr::kResponseDataSmall:
      return kSesResponseDataSmallBytes;
    default:
      return 0;
  }
}

size_t write_ses_small(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st) {
  if (cap < kSesSmallBytes) return failed(st, PdsStatus::kTruncated);
  if (!common_fits(s)) return failed(st, PdsStatus::kBadField);
  write_common(s, out);
  wr64(out + 12, s.buffer_offset);
  return done(st, kSesSmallBytes);
}

PdsStatus read_ses_small(const uint8_t* in, size_t len, SesStd& s) {
  if (len < kSesSmallBytes) return PdsStatus::kTruncated;
  read_common(in, s);
  s.buffer_offset = rd64(in + 12);
  return PdsStatus::kOk;
}

size_t write_ses_medium(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st) {
  if (cap < kSesMediumBytes) return failed(st, PdsStatus::kTruncated);
  if (!common_fits(s)) return failed(st, PdsStatus::kBadField);
  write_common(s, out);
  wr64(out + 12, s.hd ? s.header_data : s.buffer_offset);
  wr32(out + 20, s.initiator);
  wr64(out + 24, s.memory_key);
  return done(st, kSesMediumBytes);
}

PdsStatus read_ses_medium(const uint8_t* in, size_t len, SesStd& s) {
  if (len < kSesMediumBytes) return PdsStatus::kTruncated;
  read_common(in, s);
  (s.hd ? s.header_data : s.buffer_offset) = rd64(in + 12);
  s.initiator = rd32(in + 20);
  s.memory_key = rd64(in + 24);
  return PdsStatus::kOk;
}

size_t write_ses_response(const SesResponse& r, NextHdr form, uint8_t* out, size_t cap,
                          PdsStatus* st) {
  const size_t n = ses_bytes(static_cast<uint8_t>(form));
  if (form != NextHdr::kResponse && form != NextHdr::kResponseData &&
      form != NextHdr::kResponseDataSmall)
    return failed(st, PdsStatus::kBadField);
  if (cap < n) return failed(st, PdsStatus::kTruncated);
  const uint16_t len_max = form == NextHdr::kResponseData ? 0xFFF : 0x3FFF;
  if (r.list > 3 || r.opcode > 0x3F || r.version > 3 || r.return_code > 0x3F ||
      r.job_id > 0xFFFFFF || r.payload_length > len_max)
    return failed(st, PdsStatus::kBadField);
  std::memset(out, 0, n);
  out[0] = static_cast<uint8_t>(r.list << 6 | r.opcode);
  out[1] = static_cast<uint8_t>(r.version << 6 | r.return_code);
  if (form == NextHdr::kResponseDataSmall) {
    wr16(out + 2, r.payload_length);  // rsvd 2 | payload_length 14
    wr24(out + 5, r.job_id);          // after 8 reserved bits
    wr32(out + 8, r.original_request_psn);
    return done(st, n);
  }
  wr16(out + 2, r.message_id);
  out[4] = r.ri_generation;
  wr24(out + 5, r.job_id);
  if (form == NextHdr::kResponse) {
    wr32(out + 8, r.modified_length);
  } else {
    wr16(out + 8, r.read_request_message_id);
    wr16(out + 10, r.payload_length);  // rsvd 4 | payload_length 12
    wr32(out + 12, r.modified_length);
    wr32(out + 16, r.message_offset);
  }
  return done(st, n);
}

PdsStatus read_ses_response(const uint8_t* in, size_t len, NextHdr form, SesResponse& r) {
  if (form != NextHdr::kResponse && form != NextHdr::kResponseData &&
      form != NextHdr::kResponseDataSmall)
    return PdsStatus::kUnsupported;
  if (len < ses_bytes(static_cast<uint8_t>(form))) return PdsStatus::kTruncated;
  r = SesResponse{};
  r.list = in[0] >> 6;
  r.opcode = in[0] & 0x3F;
  r.version = in[1] >> 6;
  r.return_code = in[1] & 0x3F;
  r.job_id = rd24(in + 5);
  if (form == NextHdr::kResponseDataSmall) {
    r.payload_length = rd16(in + 2) & 0x3FFF;
    r.original_request_psn = rd32(in + 8);
    return PdsStatus::kOk;
  }
  r.message_id = rd16(in + 2);
  r.ri_generation = in[4];
  if (form == NextHdr::kResponse) {
    r.modified_length = rd32(in + 8);
  } else {
    r.read_request_message_id = rd16(in + 8);
    r.payload_length = rd16(in + 10) & 0xFFF;
    r.modified_length = rd32(in + 12);
    r.message_offset = rd32(in + 16);
  }
  return PdsStatus::kOk;
}

size_t write_ses_std(const SesStd& s, uint8_t* out, size_t cap, PdsStatus* st) {
  auto fail = [st](PdsStatus x) -> size_t {
    if (st) *st = x;
    return 0;
  };
  if (cap < kSesStdBytes) return fail(PdsStatus::kTruncated);
  if (!common_fits(s) || (!s.som && s.payload_length > 0x3FFF)) return fail(PdsStatus::kBadField);
  std::memset(out, 0, kSesStdBytes);
  write_common(s, out);
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
  read_common(in, s);
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
