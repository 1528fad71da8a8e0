// The text trace's syntax and parser (traces/README.md "Text trace format"): the keys,
// the opcode names, and TextParser, which turns the lines of a text trace into frame
// specs that Trace::load_text builds (platforms/trace/trace.cpp). Internal to
// platforms/trace.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/core/error.h"
#include "model/wire/roce.h"

namespace oonic::trace::textfmt {

enum Key : uint8_t {
  kOp,
  kQp,
  kPsn,
  kVa,
  kRkey,
  kDmalen,
  kSyndrome,
  kMsn,
  kImm,
  kAckreq,
  kLen,
  kPayload,
  kSrc,
  kDst,
  kSmac,
  kDmac,
  kSport,
  kVlan,
  kTos,
  kTtl,
  kPkey,
  kSe,
  kFecn,
  kBecn,
  kCached,
  kBitmap,
  kRaw,
  kBadIcrc,
  kEunomiaHead,
  kEunomiaLast,
  kNumKeys
};

inline constexpr std::string_view kKeyNames[kNumKeys] = {
    "op",     "qp",     "psn", "va",      "rkey",         "dmalen",      "syndrome", "msn",
    "imm",    "ackreq", "len", "payload", "src",          "dst",         "smac",     "dmac",
    "sport",  "vlan",   "tos", "ttl",     "pkey",         "se",          "fecn",     "becn",
    "cached", "bitmap", "raw", "badicrc", "eunomia_head", "eunomia_last"};
static_assert(kNumKeys <= 32, "the parser keeps the keys seen on a line in a uint32_t");

struct OpName {
  std::string_view name;
  uint8_t opcode;
};
inline constexpr OpName kOpNames[] = {
    {"SEND_FIRST", wire::kSendFirst},
    {"SEND_MIDDLE", wire::kSendMiddle},
    {"SEND_LAST", wire::kSendLast},
    {"SEND_LAST_IMM", wire::kSendLastImm},
    {"SEND_ONLY", wire::kSendOnly},
    {"SEND_ONLY_IMM", wire::kSendOnlyImm},
    {"WRITE_FIRST", wire::kWriteFirst},
    {"WRITE_MIDDLE", wire::kWriteMiddle},
    {"WRITE_LAST", wire::kWriteLast},
    {"WRITE_LAST_IMM", wire::kWriteLastImm},
    {"WRITE_ONLY", wire::kWriteOnly},
    {"WRITE_ONLY_IMM", wire::kWriteOnlyImm},
    {"READ_REQUEST", wire::kReadRequest},
    {"READ_RESPONSE_FIRST", wire::kReadResponseFirst},
    {"READ_RESPONSE_MIDDLE", wire::kReadResponseMiddle},
    {"READ_RESPONSE_LAST", wire::kReadResponseLast},
    {"READ_RESPONSE_ONLY", wire::kReadResponseOnly},
    {"ACK", wire::kAcknowledge},
    {"ACKNOWLEDGE", wire::kAcknowledge},
    {"OOO_WRITE_FSPOT", wire::kOooWriteFSpot},
    {"OOO_WRITE_SPOT", wire::kOooWriteSpot},
    {"OOO_WRITE_LAST", wire::kOooWriteLast},
    {"OOO_WRITE_LAST_FSPOT", wire::kOooWriteLastFSpot},
    {"OOO_READ_REQUEST", wire::kOooReadRequest},
    {"OOO_READ_RESPONSE", wire::kOooReadResponse},
    {"OOO_NAK", wire::kOooNak},
    {"CNP", wire::kCnp},
};

// Canonical spelling of an opcode for messages.
std::string op_display(uint8_t opcode);
// Upper case, '-' and ' ' to '_', "RDMA_" prefix dropped. Returns false if the
// name does not fit the buffer (then it is no opcode name).
bool normalize_op(std::string_view s, char (&buf)[64], std::string_view& out);

struct Endpoints {
  uint8_t ip_version = 4;
  std::array<uint8_t, 16> src_ip{{10, 0, 0, 1}};
  std::array<uint8_t, 16> dst_ip{{10, 0, 0, 2}};
  std::array<uint8_t, 6> smac{{0x02, 0, 0, 0, 0, 0x01}};
  std::array<uint8_t, 6> dmac{{0x02, 0, 0, 0, 0, 0x02}};
};

enum class PayloadKind : uint8_t { kZero, kHex, kPat, kRaw };

// One parsed line, built into the arena in the second pass.
struct Pending {
  wire::FrameSpec spec;
  PayloadKind kind = PayloadKind::kZero;
  bool bad_icrc = false;
  bool has_time = false;
  uint64_t time_ps = 0;
  uint64_t pat_addr = 0;
  uint32_t blob_off = 0;  // hex payload / raw frame bytes in the blob
  uint32_t blob_len = 0;
  uint32_t frame_len = 0;
  uint32_t line = 0;
};

inline constexpr uint32_t kMaxLen = 65000;   // payload bytes (fits an IPv4 packet)
inline constexpr uint32_t kMaxRaw = 262144;  // raw frame bytes (the pcap snaplen)

class TextParser {
 public:
  TextParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  void run(std::vector<Pending>& out, std::vector<uint8_t>& blob);

 private:
  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    throw Error(msg::kTrace, path_ + ":" + std::to_string(line_) + ": " + what + ", field '" +
                                 std::string(key) + "'");
  }
  uint64_t number(std::string_view key, std::string_view v, uint64_t max) const;
  bool flag(std::string_view key, std::string_view v) const {
    if (v == "0") return false;
    if (v == "1") return true;
    fail(key, "expected 0 or 1, got '" + std::string(v) + "'");
  }
  uint8_t ip(std::string_view key, std::string_view v, std::array<uint8_t, 16>& out) const;
  void mac(std::string_view key, std::string_view v, std::array<uint8_t, 6>& out) const;
  void hex(std::string_view key, std::string_view v, std::vector<uint8_t>& blob) const;
  void time(std::string_view tok, Pending& p) const;
  void bitmap(std::string_view key, std::string_view v, wire::BitmapBlock& b) const;
  uint8_t opcode(std::string_view key, std::string_view v) const;
  void directive(const std::vector<std::pair<std::string_view, std::string_view>>& kv,
                 std::string_view name);
  void endpoint(std::string_view key, std::string_view v, std::array<uint8_t, 16>& ip_out,
                uint8_t& version, std::array<uint8_t, 6>& mac_out);

  using KeyValues = std::vector<std::pair<std::string_view, std::string_view>>;
  // One frame line as read, before the checks its opcode asks for.
  struct FrameLine {
    Pending p;
    uint32_t seen = 0;             // a bit per Key given
    uint8_t v_src = 0, v_dst = 0;  // IP version of src= / dst= (0: not given)
    uint64_t len = 0;              // len=
    bool has(Key k) const { return (seen & (1u << k)) != 0; }
  };
  // The "# oonic-trace v1" line: true if the line is one.
  bool version_header(std::string_view line) const;
  // The first token and the key=value pairs; false for a blank or comment line.
  bool tokenize(std::string_view line, std::string_view& first, KeyValues& kv) const;
  void frame_line(std::string_view first, const KeyValues& kv, std::vector<Pending>& out,
                  std::vector<uint8_t>& blob);
  void field(std::string_view k, std::string_view v, FrameLine& l, std::vector<uint8_t>& blob);
  bool header_field(Key key, std::string_view k, std::string_view v, wire::FrameSpec& s) const;
  void frame_field(Key key, std::string_view k, std::string_view v, FrameLine& l,
                   std::vector<uint8_t>& blob) const;
  void check_fields(FrameLine& l) const;
  void check_headers(FrameLine& l) const;
  void check_payload(FrameLine& l) const;
  void require(const FrameLine& l, Key key) const;
  void forbid(const FrameLine& l, Key key, const char* what) const;

  const std::string& path_;
  std::string_view text_;
  uint32_t line_ = 0;
  Endpoints ep_;
  bool have_last_time_ = false;
  uint64_t last_time_ps_ = 0;
};

}  // namespace oonic::trace::textfmt
