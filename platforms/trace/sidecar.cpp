// Sidecar (QP / memory-region setup) loading with yaml-cpp; every value is
// checked and every error names file, line and key path.
#include "platforms/trace/sidecar.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string_view>

#include "model/core/error.h"

namespace oonic::trace {

namespace {

class Loader {
 public:
  explicit Loader(const std::string& path) : path_(path) {}
  Sidecar load();

 private:
  [[noreturn]] void fail(const YAML::Node& at, const std::string& key,
                         const std::string& what) const {
    const YAML::Mark m = at.Mark();
    std::string where = path_;
    if (m.line >= 0) where += ":" + std::to_string(m.line + 1);
    throw Error(msg::kSidecar, where + ": key '" + key + "': " + what);
  }
  static const char* kind(const YAML::Node& n) {
    switch (n.Type()) {
      case YAML::NodeType::Null:
        return "nothing";
      case YAML::NodeType::Scalar:
        return "a scalar";
      case YAML::NodeType::Sequence:
        return "a list";
      case YAML::NodeType::Map:
        return "a map";
      default:
        return "an undefined node";
    }
  }
  void expect_map(const YAML::Node& n, const std::string& key) const {
    if (!n.IsMap()) fail(n, key, std::string("expected a map, got ") + kind(n));
  }
  // Unknown keys are errors; the message lists the known ones.
  void check_keys(const YAML::Node& map, const std::string& prefix,
                  std::initializer_list<const char*> known) const;
  uint64_t number(const YAML::Node& n, const std::string& key, uint64_t max,
                  bool size_suffix = false) const;
  std::string scalar(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, std::string("expected a string, got ") + kind(n));
    return n.Scalar();
  }
  QpSetup qp(const YAML::Node& n, const std::string& key) const;

  const std::string& path_;
};

void Loader::check_keys(const YAML::Node& map, const std::string& prefix,
                        std::initializer_list<const char*> known) const {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node k = it->first;
    std::string name = k.IsScalar() ? k.Scalar() : std::string("?");
    bool ok = false;
    for (const char* kn : known) ok = ok || name == kn;
    if (!ok) {
      std::string list;
      for (const char* kn : known) list += std::string(list.empty() ? "" : ", ") + kn;
      fail(k, prefix.empty() ? name : prefix + "." + name, "unknown key (known: " + list + ")");
    }
  }
}

uint64_t Loader::number(const YAML::Node& n, const std::string& key, uint64_t max,
                        bool size_suffix) const {
  if (!n.IsScalar()) fail(n, key, std::string("expected a number, got ") + kind(n));
  const std::string& s = n.Scalar();
  std::string_view v = s;
  uint64_t mult = 1;
  if (size_suffix && !v.empty()) {
    char c = v.back();
    if (c == 'K' || c == 'k') mult = 1ull << 10;
    if (c == 'M' || c == 'm') mult = 1ull << 20;
    if (c == 'G' || c == 'g') mult = 1ull << 30;
    if (mult != 1) v.remove_suffix(1);
  }
  uint64_t x = 0;
  std::from_chars_result r{};
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    r = std::from_chars(v.data() + 2, v.data() + v.size(), x, 16);
  } else {
    r = std::from_chars(v.data(), v.data() + v.size(), x, 10);
  }
  if (v.empty() || r.ec == std::errc::invalid_argument || r.ptr != v.data() + v.size()) {
    fail(n, key,
         "expected a number" + std::string(size_suffix ? " (K/M/G suffix allowed)" : "") +
             ", got '" + s + "'");
  }
  bool overflow = r.ec == std::errc::result_out_of_range ||
                  (x != 0 && mult > std::numeric_limits<uint64_t>::max() / x);
  if (overflow || x * mult > max) {
    std::ostringstream m;
    m << "value " << s << " out of range (max 0x" << std::hex << max << ")";
    fail(n, key, m.str());
  }
  return x * mult;
}

QpSetup Loader::qp(const YAML::Node& n, const std::string& key) const {
  expect_map(n, key);
  check_keys(n, key, {"qpn", "peer_qpn", "start_psn", "pmtu", "otd", "regions", "recv_buffers"});
  QpSetup q;
  q.line = static_cast<uint32_t>(n.Mark().line + 1);
  if (!n["qpn"]) fail(n, key + ".qpn", "missing");
  q.qpn = static_cast<uint32_t>(number(n["qpn"], key + ".qpn", 0xFFFFFF));
  if (n["peer_qpn"]) {
    q.peer_qpn = static_cast<uint32_t>(number(n["peer_qpn"], key + ".peer_qpn", 0xFFFFFF));
  }
  if (!n["start_psn"]) fail(n, key + ".start_psn", "missing");
  q.start_psn = static_cast<uint32_t>(number(n["start_psn"], key + ".start_psn", 0xFFFFFF));
  if (n["pmtu"]) {
    uint64_t p = number(n["pmtu"], key + ".pmtu", 4096);
    if (p != 256 && p != 512 && p != 1024 && p != 2048 && p != 4096) {
      fail(n["pmtu"], key + ".pmtu", "must be 256, 512, 1024, 2048 or 4096");
    }
    q.pmtu = static_cast<uint32_t>(p);
  }
  if (n["otd"]) {
    uint64_t o = number(n["otd"], key + ".otd", 0xFFFFFF);
    if (o == 0) fail(n["otd"], key + ".otd", "must be at least 1");
    q.otd = static_cast<uint32_t>(o);
  }
  if (const YAML::Node rs = n["regions"]) {
    const std::string rk = key + ".regions";
    if (!rs.IsSequence() && !rs.IsNull())
      fail(rs, rk, std::string("expected a list, got ") + kind(rs));
    for (size_t i = 0; rs.IsSequence() && i < rs.size(); ++i) {
      const YAML::Node r = rs[i];
      const std::string k = rk + "[" + std::to_string(i) + "]";
      expect_map(r, k);
      check_keys(r, k, {"base", "length", "rkey"});
      for (const char* req : {"base", "length", "rkey"}) {
        if (!r[req]) fail(r, k + "." + req, "missing");
      }
      Region reg;
      reg.base = number(r["base"], k + ".base", std::numeric_limits<uint64_t>::max());
      reg.length = number(r["length"], k + ".length", std::numeric_limits<uint64_t>::max(), true);
      if (reg.length == 0) fail(r["length"], k + ".length", "must be at least 1");
      if (reg.base + reg.length < reg.base) {
        fail(r["length"], k + ".length", "base + length overflows 64 bits");
      }
      reg.rkey = static_cast<uint32_t>(number(r["rkey"], k + ".rkey", 0xFFFFFFFFu));
      q.regions.push_back(reg);
    }
  }
  if (const YAML::Node rb = n["recv_buffers"]) {
    const std::string k = key + ".recv_buffers";
    expect_map(rb, k);
    check_keys(rb, k, {"count", "bytes", "base"});
    for (const char* req : {"count", "bytes", "base"}) {
      if (!rb[req]) fail(rb, k + "." + req, "missing");
    }
    RecvBuffers b;
    b.count = static_cast<uint32_t>(number(rb["count"], k + ".count", 0xFFFFFFFFu));
    b.bytes = static_cast<uint32_t>(number(rb["bytes"], k + ".bytes", 0xFFFFFFFFu, true));
    b.base = number(rb["base"], k + ".base", std::numeric_limits<uint64_t>::max());
    if (b.count == 0) fail(rb["count"], k + ".count", "must be at least 1");
    if (b.bytes == 0) fail(rb["bytes"], k + ".bytes", "must be at least 1");
    q.recv = b;
  }
  return q;
}

bool valid_mac(const std::string& s) {
  if (s.size() != 17) return false;
  for (size_t i = 0; i < 17; ++i) {
    if (i % 3 == 2) {
      if (s[i] != ':' && s[i] != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
  }
  return true;
}

Sidecar Loader::load() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    throw Error(msg::kSidecar, path_ + ": cannot open sidecar: " + std::strerror(errno));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  YAML::Node loaded;
  try {
    loaded = YAML::Load(ss.str());
  } catch (const YAML::Exception& e) {
    std::string where = path_;
    if (e.mark.line >= 0) where += ":" + std::to_string(e.mark.line + 1);
    throw Error(msg::kSidecar, where + ": YAML syntax error: " + e.msg);
  }
  const YAML::Node& root = loaded;  // const: lookups never insert keys
  if (!root.IsMap()) {
    fail(root, "qps", std::string("the sidecar must be a map with key 'qps', got ") + kind(root));
  }
  check_keys(root, "", {"dut", "qps"});

  Sidecar sc;
  if (const YAML::Node dut = root["dut"]) {
    expect_map(dut, "dut");
    check_keys(dut, "dut", {"ip", "mac"});
    if (dut["ip"]) {
      std::string ip = scalar(dut["ip"], "dut.ip");
      unsigned char buf[16];
      if (inet_pton(AF_INET, ip.c_str(), buf) != 1 && inet_pton(AF_INET6, ip.c_str(), buf) != 1) {
        fail(dut["ip"], "dut.ip", "bad IP address '" + ip + "'");
      }
      sc.dut_ip = ip;
    }
    if (dut["mac"]) {
      std::string mac = scalar(dut["mac"], "dut.mac");
      if (!valid_mac(mac)) {
        fail(dut["mac"], "dut.mac", "bad MAC address '" + mac + "' (expected xx:xx:xx:xx:xx:xx)");
      }
      sc.dut_mac = mac;
    }
  }

  const YAML::Node qps = root["qps"];
  if (!qps) fail(root, "qps", "missing");
  if (!qps.IsSequence() && !qps.IsNull()) {
    fail(qps, "qps", std::string("expected a list, got ") + kind(qps));
  }
  for (size_t i = 0; qps.IsSequence() && i < qps.size(); ++i) {
    const std::string key = "qps[" + std::to_string(i) + "]";
    QpSetup q = qp(qps[i], key);
    for (size_t j = 0; j < sc.qps.size(); ++j) {
      if (sc.qps[j].qpn == q.qpn) {
        fail(qps[i]["qpn"], key + ".qpn",
             "QPN " + std::to_string(q.qpn) + " already set up by qps[" + std::to_string(j) + "]");
      }
    }
    sc.qps.push_back(std::move(q));
  }
  return sc;
}

}  // namespace

Sidecar load_sidecar(const std::string& path) {
  return Loader(path).load();
}

std::string default_sidecar_path(const std::string& trace_path) {
  std::filesystem::path p(trace_path);
  p.replace_extension(".qps.yaml");
  return p.string();
}

}  // namespace oonic::trace
