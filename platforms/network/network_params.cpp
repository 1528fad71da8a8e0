#include "platforms/network/network_params.h"

#include <charconv>
#include <cmath>

#include "model/core/error.h"
#include "model/wire/roce.h"

namespace oonic::network {

namespace {

constexpr const char* kDropKey = "network.drop_psns";

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

[[noreturn]] void bad_rule(const std::string& rule, const std::string& why) {
  throw Error(msg::kConfig, std::string(kDropKey) + ": bad rule '" + rule + "': " + why +
                                " (expected comma-separated ab:PSN, ab:PSN-PSN, ba:PSN or "
                                "ba:PSN-PSN, each optionally *K (the first K frames) and @QPN; "
                                "PSN 0..16777215)");
}

uint32_t parse_psn(const std::string& tok, const std::string& rule) {
  std::string t = trim(tok);
  if (t.empty()) bad_rule(rule, "missing PSN");
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 10);
  if (ec != std::errc() || p != t.data() + t.size())
    bad_rule(rule, "'" + t + "' is not a decimal PSN");
  if (v > wire::kPsnMask) bad_rule(rule, "PSN " + t + " exceeds 24 bits");
  return static_cast<uint32_t>(v);
}

}  // namespace

std::vector<DropRule> parse_drop_psns(const std::string& text) {
  std::vector<DropRule> rules;
  if (trim(text).empty()) return rules;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string rule = trim(text.substr(pos, comma == std::string::npos ? comma : comma - pos));
    if (rule.empty())
      throw Error(msg::kConfig, std::string(kDropKey) + ": empty rule in '" + text +
                                    "' (rules are separated by single commas)");
    size_t colon = rule.find(':');
    if (colon == std::string::npos) bad_rule(rule, "missing ':' after the direction");
    DropRule r;
    r.dir = trim(rule.substr(0, colon));
    if (r.dir != "ab" && r.dir != "ba") bad_rule(rule, "direction must be ab or ba");
    std::string range = rule.substr(colon + 1);
    size_t at = range.find('@');
    if (at != std::string::npos) {
      // Optional destination QPN: only frames to that QP (decimal or 0x hex).
      std::string q = trim(range.substr(at + 1));
      range = range.substr(0, at);
      try {
        size_t used = 0;
        unsigned long v = std::stoul(q, &used, 0);
        if (used != q.size() || v > wire::kPsnMask) throw std::invalid_argument(q);
        r.qpn = static_cast<int64_t>(v);
      } catch (const std::exception&) {
        bad_rule(rule, "'" + q + "' is not a 24-bit QPN");
      }
    }
    size_t star = range.find('*');
    if (star != std::string::npos) {
      // Optional count: the first K frames carrying each PSN (K >= 1).
      std::string k = trim(range.substr(star + 1));
      range = range.substr(0, star);
      uint64_t v = 0;
      auto [e, ec] = std::from_chars(k.data(), k.data() + k.size(), v, 10);
      if (k.empty() || ec != std::errc() || e != k.data() + k.size() || v < 1 || v > 1000000)
        bad_rule(rule, "'" + k + "' after '*' is not a count 1..1000000");
      r.times = static_cast<uint32_t>(v);
    }
    size_t dash = range.find('-');
    if (dash == std::string::npos) {
      r.first = r.last = parse_psn(range, rule);
    } else {
      r.first = parse_psn(range.substr(0, dash), rule);
      r.last = parse_psn(range.substr(dash + 1), rule);
      if (r.last < r.first) bad_rule(rule, "range ends before it starts");
    }
    rules.push_back(r);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return rules;
}

void NetworkParams::describe(ParamTable& t) {
  t.add("network.rate_gbps", &rate_gbps, "Gbit/s",
        "rate of each direction of the link between the NICs; a frame holds it for (frame + FCS "
        "+ preamble/IFG) bytes",
        1, 1600);
  t.add("network.propagation_ns", &propagation_ns, "ns",
        "one-way propagation delay (last byte sent to last byte received, beyond serialization)", 0,
        1e9);
  t.add("network.ooo_distance", &ooo_distance, "frame",
        "OOO emulator: no frame is overtaken by this many or more frames sent after it (0: no "
        "reordering and no added delay; 1: delay jitter, order kept)",
        0, 1u << 20);
  t.add("network.ooo_max_delay_ns", &ooo_max_delay_ns, "ns",
        "OOO emulator: each frame gets an extra delay uniform in [0, this]; 0 = ooo_distance x "
        "the serialization time of a 4 KB-payload frame",
        0, 1e9);
  t.add("network.loss_rate", &loss_rate, "fraction",
        "probability that a frame is dropped (independently, from the run seed)", 0, 1);
  t.add("network.drop_psns", &drop_psns,
        "frames dropped by PSN: comma-separated ab:PSN or ab:PSN-PSN, then optionally *K and "
        "then optionally @QPN (ba: the other direction); each PSN is dropped the first time a "
        "RoCE frame carrying it passes in that direction, on any QP (@QPN: only frames to that "
        "destination QP), or the first K times with *K (ab:20*2 loses a packet and its first "
        "retransmission)",
        {});
  t.add("network.reorder_acks", &reorder_acks,
        "ACK/NAK frames (opcodes 0x11, 0x1F) get the OOO delay too; otherwise only propagation");
  t.add("network.loss_acks", &loss_acks, "ACK/NAK frames can be lost to network.loss_rate");
}

void NetworkParams::validate() const {
  if (!(rate_gbps > 0)) throw Error(msg::kConfig, "network.rate_gbps must be positive");
  if (!(propagation_ns >= 0)) throw Error(msg::kConfig, "network.propagation_ns must be >= 0");
  if (!(ooo_max_delay_ns >= 0)) throw Error(msg::kConfig, "network.ooo_max_delay_ns must be >= 0");
  if (!(loss_rate >= 0 && loss_rate <= 1))
    throw Error(msg::kConfig, "network.loss_rate must be in [0, 1]");
  if (ooo_max_delay_ns > 0 && ooo_distance == 0)
    throw Error(msg::kConfig,
                "network.ooo_max_delay_ns (" + format_number(ooo_max_delay_ns) +
                    ") needs network.ooo_distance >= 1: distance 0 means no reordering and no "
                    "added delay (distance 1 adds delay and keeps the order)");
  parse_drop_psns(drop_psns);
}

uint64_t NetworkParams::serialization_ps(size_t frame_len) const {
  return static_cast<uint64_t>(
      std::ceil(static_cast<double>(wire::wire_bytes(frame_len)) * 8000.0 / rate_gbps));
}

uint64_t NetworkParams::propagation_ps() const {
  return static_cast<uint64_t>(std::llround(propagation_ns * 1000.0));
}

uint64_t NetworkParams::max_jitter_ps() const {
  if (ooo_distance == 0) return 0;
  if (ooo_max_delay_ns > 0) return static_cast<uint64_t>(std::llround(ooo_max_delay_ns * 1000.0));
  return uint64_t{ooo_distance} * serialization_ps(kReferenceFrameBytes);
}

}  // namespace oonic::network
