// uet_pds_codec: reads UET PDS headers as hex, one a line, from stdin, and writes
// for each a JSON line with the status, every field the codec read, and the header
// written back from those fields ("hex"). A line "ses:HEX" is an SES standard
// request header instead, "sesN:HEX" the SES form of PDS next_hdr N (1 small, 2 medium,
// 3 standard request, 4 response, 5 with data, 6 with small data); "frame:HEX" a whole frame
// (uet_frame.h), printed as its outer fields, PDS type and PSN, SES offsets and payload length;
// "trim:HEX" and "trimlast:HEX" a frame to trim as a switch would, printed as the trimmed frame.
// The scapy oracle (e2e.test_uet_pds) builds headers with its own layer definitions and holds them
// against this. exit status: 0 (a header that does not read is a line with its status), 2 bad hex
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/wire/uet_frame.h"
#include "model/wire/uet_pds.h"
#include "model/wire/uet_ses.h"

namespace {

std::string hex_of(const uint8_t* b, size_t n) {
  std::string hex;
  char h[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(h, sizeof h, "%02x", b[i]);
    hex += h;
  }
  return hex;
}

// form: the PDS next_hdr of the SES header in b (1 small, 2 medium, 3 standard request;
// 4, 5, 6 the responses).
void print_ses(const std::vector<uint8_t>& b, oonic::wire::uet::NextHdr form) {
  using namespace oonic::wire::uet;
  nlohmann::json j;
  uint8_t out[64];
  if (form == NextHdr::kResponse || form == NextHdr::kResponseData ||
      form == NextHdr::kResponseDataSmall) {
    SesResponse r;
    const PdsStatus st = read_ses_response(b.data(), b.size(), form, r);
    j["status"] = to_string(st);
    if (st == PdsStatus::kOk) {
      j["list"] = r.list;
      j["opcode"] = r.opcode;
      j["version"] = r.version;
      j["return_code"] = r.return_code;
      j["message_id"] = r.message_id;
      j["ri_generation"] = r.ri_generation;
      j["job_id"] = r.job_id;
      j["modified_length"] = r.modified_length;
      j["read_request_message_id"] = r.read_request_message_id;
      j["payload_length"] = r.payload_length;
      j["message_offset"] = r.message_offset;
      j["original_request_psn"] = r.original_request_psn;
      j["hex"] = hex_of(out, write_ses_response(r, form, out, sizeof out));
    }
    std::cout << j.dump() << "\n";
    return;
  }
  SesStd s;
  const PdsStatus st = form == NextHdr::kRequestSmall    ? read_ses_small(b.data(), b.size(), s)
                       : form == NextHdr::kRequestMedium ? read_ses_medium(b.data(), b.size(), s)
                                                         : read_ses_std(b.data(), b.size(), s);
  j["status"] = to_string(st);
  if (st == PdsStatus::kOk) {
    j["opcode"] = s.opcode;
    j["version"] = s.version;
    j["dc"] = s.dc;
    j["ie"] = s.ie;
    j["rel"] = s.rel;
    j["hd"] = s.hd;
    j["eom"] = s.eom;
    j["som"] = s.som;
    j["message_id"] = s.message_id;
    j["ri_generation"] = s.ri_generation;
    j["job_id"] = s.job_id;
    j["pid_on_fep"] = s.pid_on_fep;
    j["resource_index"] = s.resource_index;
    j["buffer_offset"] = s.buffer_offset;
    j["initiator"] = s.initiator;
    j["memory_key"] = s.memory_key;
    j["header_data"] = s.header_data;
    j["payload_length"] = s.payload_length;
    j["message_offset"] = s.message_offset;
    j["request_length"] = s.request_length;
    const size_t n = form == NextHdr::kRequestSmall    ? write_ses_small(s, out, sizeof out)
                     : form == NextHdr::kRequestMedium ? write_ses_medium(s, out, sizeof out)
                                                       : write_ses_std(s, out, sizeof out);
    j["hex"] = hex_of(out, n);
  }
  std::cout << j.dump() << "\n";
}

void print_frame(std::vector<uint8_t>& b, int trim) {
  using namespace oonic::wire::uet;
  nlohmann::json j;
  if (trim) {
    const size_t n = trim_frame(b.data(), b.size(), trim == 2);
    j["hex"] = hex_of(b.data(), n);
    std::cout << j.dump() << "\n";
    return;
  }
  UetView v;
  const UetStatus st = parse_frame(b.data(), b.size(), v);
  j["status"] = to_string(st);
  if (st == UetStatus::kOk) {
    j["entropy"] = v.outer.udp_sport;
    j["ip_version"] = v.outer.ip_version;
    j["tos"] = v.outer.tos;
    j["type"] = static_cast<int>(v.pds.type);
    j["psn"] = v.pds.psn;
    j["has_ses"] = v.has_ses;
    j["has_response"] = v.has_response;
    j["response_opcode"] = v.response.opcode;
    j["message_id"] = v.ses.message_id;
    j["message_offset"] = v.ses.message_offset;
    j["payload_length"] = v.ses.payload_length;
    j["payload_len"] = v.payload_len;
    j["payload"] = hex_of(v.payload, v.payload_len);
    j["trimmed"] = v.trimmed;
    j["trimmed_last_hop"] = v.trimmed_last_hop;
  }
  std::cout << j.dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace oonic::wire::uet;
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: uet_pds_codec < HEXLINES\n"
                 "Reads UET PDS headers (hex, one a line; \"ses:HEX\": an SES standard\n"
                 "request header; \"sesN:HEX\": the SES form of next_hdr N (1 small, 2\n"
                 "medium, 3 standard request, 4 response, 5 with data, 6 with small data);\n"
                 "\"frame:HEX\": a whole frame; \"trim:HEX\",\n"
                 "\"trimlast:HEX\": a frame to trim) and prints each as JSON.\n");
    return std::string(argv[1]) == "--help" ? 0 : 2;
  }
  std::string line;
  int n = 0;
  while (std::getline(std::cin, line)) {
    ++n;
    if (line.empty()) continue;
    // "ses:" (standard request), "ses1:" .. "ses6:" (the SES form of that next_hdr).
    bool ses = false;
    NextHdr form = NextHdr::kRequestStd;
    if (line.rfind("ses:", 0) == 0) {
      ses = true, line = line.substr(4);
    } else if (line.size() > 4 && line.rfind("ses", 0) == 0 && line[4] == ':' && line[3] >= '1' &&
               line[3] <= '6') {
      ses = true, form = static_cast<NextHdr>(line[3] - '0'), line = line.substr(5);
    }
    int frame = 0;  // 1 parse, 2 trim, 3 trim at the last hop
    for (const auto& [prefix, kind] :
         {std::pair<const char*, int>{"frame:", 1}, {"trim:", 2}, {"trimlast:", 3}})
      if (line.rfind(prefix, 0) == 0) {
        line = line.substr(std::strlen(prefix));
        frame = kind;
      }
    if (line.size() % 2) {
      std::fprintf(stderr, "uet_pds_codec: line %d: odd number of hex digits\n", n);
      return 2;
    }
    std::vector<uint8_t> b;
    for (size_t i = 0; i < line.size(); i += 2) {
      try {
        b.push_back(static_cast<uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
      } catch (const std::exception&) {
        std::fprintf(stderr, "uet_pds_codec: line %d: not hex at column %zu\n", n, i + 1);
        return 2;
      }
    }
    if (ses) {
      print_ses(b, form);
      continue;
    }
    if (frame) {
      print_frame(b, frame - 1);
      continue;
    }
    Pds p;
    size_t used = 0;
    const PdsStatus st = read_pds(b.data(), b.size(), p, &used);
    nlohmann::json j;
    j["status"] = to_string(st);
    if (st == PdsStatus::kOk) {
      j["type"] = static_cast<int>(p.type);
      j["next_hdr"] = p.next_hdr;
      j["flags"] = p.flags;
      j["used"] = used;
      j["psn"] = p.psn;
      j["spdcid"] = p.spdcid;
      j["dpdcid"] = p.dpdcid;
      j["clear_psn_offset"] = p.clear_psn_offset;
      j["use_rsv_pdc"] = p.use_rsv_pdc;
      j["psn_offset"] = p.psn_offset;
      j["ccc_id"] = p.ccc_id;
      j["credit_target"] = p.credit_target;
      j["ack_psn_offset"] = p.ack_psn_offset;
      j["cc_type"] = static_cast<int>(p.cc_type);
      j["cc_flags"] = p.cc_flags;
      j["mpr"] = p.mpr;
      j["sack_psn_offset"] = p.sack_psn_offset;
      j["sack_bitmap"] = p.sack_bitmap;
      j["service_time"] = p.service_time;
      j["restore_cwnd"] = p.restore_cwnd;
      j["rcv_cwnd_pend"] = p.rcv_cwnd_pend;
      j["rcvd_bytes"] = p.rcvd_bytes;
      j["credit"] = p.credit;
      j["ooo_count"] = p.ooo_count;
      j["nack_code"] = p.nack_code;
      j["vendor_code"] = p.vendor_code;
      j["payload"] = p.payload;
      uint8_t out[64];
      j["hex"] = hex_of(out, write_pds(p, out, sizeof out));
    }
    std::cout << j.dump() << "\n";
  }
  return 0;
}
