#include "platforms/trace/endpoint.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "model/core/error.h"

namespace oonic::trace {

std::string Endpoint::text() const {
  std::string s;
  if (has_ip) s += "ip " + wire::format_ip(ip_version, ip);
  if (has_mac) s += std::string(s.empty() ? "" : ", ") + "mac " + wire::format_mac(mac);
  return s.empty() ? "(none)" : s;
}

bool Endpoint::is_src(const wire::PacketView& v) const {
  if (has_ip && v.ip_version) return v.ip_version == ip_version && v.src_ip == ip;
  if (has_mac) return v.src_mac == mac;
  return false;
}

bool Endpoint::is_dst(const wire::PacketView& v) const {
  if (has_ip && v.ip_version) return v.ip_version == ip_version && v.dst_ip == ip;
  if (has_mac) return v.dst_mac == mac;
  return false;
}

Endpoint Endpoint::receiver_of(const wire::PacketView& v) {
  Endpoint e;
  e.has_mac = true, e.mac = v.dst_mac;
  if (v.ip_version) e.has_ip = true, e.ip_version = v.ip_version, e.ip = v.dst_ip;
  return e;
}

bool parse_ip(const std::string& s, Endpoint& e) {
  e.ip.fill(0);
  if (inet_pton(AF_INET, s.c_str(), e.ip.data()) == 1)
    return e.has_ip = true, e.ip_version = 4, true;
  if (inet_pton(AF_INET6, s.c_str(), e.ip.data()) == 1)
    return e.has_ip = true, e.ip_version = 6, true;
  return false;
}

bool parse_mac(const std::string& s, Endpoint& e) {
  unsigned b[6];
  char tail;
  if (std::sscanf(s.c_str(), "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                  &tail) != 6)
    return false;
  for (int i = 0; i < 6; ++i) {
    if (b[i] > 255) return false;
    e.mac[i] = static_cast<uint8_t>(b[i]);
  }
  return e.has_mac = true;
}

namespace {
// Bytes that tell receivers apart exactly as Endpoint::text() does.
void receiver_key(const wire::PacketView& v, std::vector<uint8_t>& k) {
  k.assign(v.dst_mac.begin(), v.dst_mac.end());
  k.push_back(v.ip_version);
  if (v.ip_version)
    k.insert(k.end(), v.dst_ip.begin(), v.dst_ip.begin() + (v.ip_version == 4 ? 4 : 16));
}
}  // namespace

void DutCensus::add(const wire::PacketView& v) {
  if (!first_) first_ = Endpoint::receiver_of(v);
  if (!by_qp_.count(v.bth.dest_qp)) by_qp_.emplace(v.bth.dest_qp, Endpoint::receiver_of(v));
  if (!(v.flags & wire::kIsRequest)) return;
  receiver_key(v, key_);
  if (receivers_.empty() || key_ != last_key_) {
    auto it = index_.find(key_);
    if (it == index_.end()) {
      it = index_.emplace(key_, receivers_.size()).first;
      receivers_.push_back({Endpoint::receiver_of(v), 0});
    }
    last_ = it->second;
    last_key_ = key_;
  }
  ++receivers_[last_].requests;
}

DutChoice choose_dut(const std::string& dut_arg, const std::optional<Sidecar>& sidecar,
                     const DutCensus& rc, const std::string& trace_path) {
  DutChoice c;
  std::optional<uint32_t> qp;
  if (!dut_arg.empty()) {
    std::string kind, val = dut_arg;
    auto eq = dut_arg.find('=');
    if (eq != std::string::npos) kind = dut_arg.substr(0, eq), val = dut_arg.substr(eq + 1);
    bool ok = false;
    if (kind == "mac" || (kind.empty() && std::count(val.begin(), val.end(), ':') == 5 &&
                          val.find('.') == std::string::npos && val.size() == 17)) {
      ok = parse_mac(val, c.dut);
    } else if (kind == "ip" || (kind.empty() && (val.find('.') != std::string::npos ||
                                                 val.find(':') != std::string::npos))) {
      ok = parse_ip(val, c.dut);
    } else if (kind == "qp" || kind.empty()) {
      char* end = nullptr;
      unsigned long q = std::strtoul(val.c_str(), &end, 0);
      if (end && *end == 0 && !val.empty() && q <= wire::kPsnMask) qp = q, ok = true;
    }
    if (!ok)
      throw Error(msg::kCli,
                  "--dut '" + dut_arg + "': expected mac=XX:XX:XX:XX:XX:XX, ip=ADDR or qp=N");
    if (!qp) {
      c.how = "--dut " + dut_arg;
      return c;
    }
  } else if (sidecar && (sidecar->dut_ip || sidecar->dut_mac)) {
    if (sidecar->dut_ip) parse_ip(*sidecar->dut_ip, c.dut);
    if (sidecar->dut_mac) parse_mac(*sidecar->dut_mac, c.dut);
    c.how = "from the sidecar";
    return c;
  }
  const Endpoint* pick = nullptr;
  if (qp) {
    auto it = rc.by_qp_.find(*qp);
    if (it == rc.by_qp_.end())
      throw Error(msg::kCli,
                  "--dut qp=" + std::to_string(*qp) + ": no RC frame to that QP in " + trace_path);
    pick = &it->second;
    c.how = "the receiver of frames to QP " + std::to_string(*qp);
  } else {
    uint64_t best = 0;
    for (const auto& r : rc.receivers_)
      if (r.requests > best) best = r.requests, pick = &r.who;
    c.how = "inferred: the endpoint receiving the most RC requests";
    if (!pick && rc.first_)
      pick = &*rc.first_, c.how = "inferred: the receiver of the first RC frame";
    if (!pick) c.how = "no RC frame in the trace: every frame is input";
  }
  if (pick) c.dut = *pick;
  return c;
}

}  // namespace oonic::trace
