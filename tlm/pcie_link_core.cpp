#include "tlm/pcie_link_core.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace oonic {

namespace {
// ceil(b * ps_per_byte) for b < 8192, one table per rate in the process.
std::shared_ptr<const std::vector<uint64_t>> wire_ps_table(double ps_per_byte) {
  static std::map<double, std::weak_ptr<const std::vector<uint64_t>>> tables;
  if (auto t = tables[ps_per_byte].lock()) return t;
  auto t = std::make_shared<std::vector<uint64_t>>(8192);
  for (size_t b = 0; b < t->size(); ++b)
    (*t)[b] = static_cast<uint64_t>(std::ceil(static_cast<double>(b) * ps_per_byte));
  tables[ps_per_byte] = t;
  return t;
}
}  // namespace

void PcieParams::describe(ParamTable& t) {
  t.add("pcie.generation", &generation, "gen", "PCIe generation (1-5): 2.5/5/8/16/32 GT/s per lane",
        1, 5);
  t.add("pcie.lanes", &lanes, "lane", "link width", 1, 32);
  t.add("pcie.mps_bytes", &mps_bytes, "byte", "max payload size of a TLP", 128, 4096);
  t.add("pcie.mrrs_bytes", &mrrs_bytes, "byte", "max read request size", 128, 4096);
  t.add("pcie.tlp_overhead_bytes", &tlp_overhead_bytes, "byte",
        "bytes added per TLP (framing, sequence, header, LCRC)", 0, 64);
  t.add("pcie.read_latency_ns", &read_latency_ns, "ns",
        "from a read request leaving the NIC to its first completion arriving", 0, 1e6);
  t.add("pcie.read_tags", &read_tags, "tag", "read requests outstanding at once", 1, 1024);
}

double PcieParams::gbps() const {
  static const double gts[] = {0, 2.5, 5, 8, 16, 32};
  double enc = generation <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  return gts[std::min<uint32_t>(generation, 5)] * lanes * enc;
}

PcieLinkCore::PcieLinkCore(const PcieParams& p, const StatGroup& stats)
    : p_(p),
      ps_per_byte_(8000.0 / p.gbps()),
      write_bytes_(stats.counter("write_bytes", "byte", "DMA write payload bytes (NIC to host)")),
      read_bytes_(stats.counter("read_bytes", "byte", "DMA read payload bytes (host to NIC)")),
      tlps_up_(stats.counter("tlps_up", "TLP", "TLPs NIC to host (writes and read requests)")),
      tlps_down_(stats.counter("tlps_down", "TLP", "completion TLPs host to NIC")),
      read_requests_(stats.counter("read_requests", "request", "read request TLPs")),
      errors_(stats.counter("error_responses", "transaction",
                            "transactions answered with a TLM error response")),
      tag_wait_ps_(
          stats.counter("tag_wait_ps", "ps", "time read requests waited for a free read tag")) {
  tags_.assign(p_.read_tags, 0);
  wire_ps_table_ = wire_ps_table(ps_per_byte_);
  stats.derived("up_busy_ps", "ps", "time the NIC-to-host direction carried TLPs",
                [this] { return static_cast<double>(up_.busy_ps()); });
  stats.derived("down_busy_ps", "ps", "time the host-to-NIC direction carried TLPs",
                [this] { return static_cast<double>(down_.busy_ps()); });
  stats.derived("up_stall_ps", "ps", "time writes/requests waited for the NIC-to-host direction",
                [this] { return static_cast<double>(up_.stall_ps()); });
  stats.derived("bandwidth_gbps", "Gbit/s", "usable link bit rate after encoding",
                [this] { return p_.gbps(); });
}

uint64_t PcieLinkCore::wire_ps(uint64_t bytes) const {
  // TLP sizes repeat (MPS/MRRS chunks plus overhead): look them up.
  if (bytes < wire_ps_table_->size()) return (*wire_ps_table_)[bytes];
  return static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) * ps_per_byte_));
}

uint64_t PcieLinkCore::chunks(uint64_t addr, uint64_t len, uint64_t boundary) {
  if (len == 0) return 1;
  return (addr + len - 1) / boundary - addr / boundary + 1;
}

uint64_t PcieLinkCore::book_write(uint64_t t_ps, uint64_t addr, uint64_t len) {
  uint64_t n = chunks(addr, len, p_.mps_bytes);
  uint64_t bytes = len + n * p_.tlp_overhead_bytes;
  uint64_t dur = wire_ps(bytes);
  uint64_t g = up_.acquire(t_ps, dur);
  tlps_up_.inc(n);
  write_bytes_.inc(len);
  return g + dur;
}

uint64_t PcieLinkCore::book_read(uint64_t t_ps, uint64_t addr, uint64_t len) {
  uint64_t done = t_ps;
  uint64_t a = addr, left = len;
  const uint64_t lat = static_cast<uint64_t>(p_.read_latency_ns * 1000.0 + 0.5);
  const uint64_t req_ps = wire_ps(p_.tlp_overhead_bytes);  // a header-only request TLP
  uint64_t requests = 0, cpls = 0, tag_wait = 0;
  do {
    uint64_t n = std::min<uint64_t>(left, p_.mrrs_bytes - a % p_.mrrs_bytes);
    uint64_t& tag = tags_[tag_head_];
    const uint64_t issue = std::max(t_ps, tag);
    tag_wait += issue - t_ps;
    const uint64_t sent = up_.acquire(issue, req_ps) + req_ps;
    const uint64_t ncpl = chunks(a, n, p_.mps_bytes);
    const uint64_t cpl_ps = wire_ps(n + ncpl * p_.tlp_overhead_bytes);
    const uint64_t arrived = down_.acquire(sent + lat, cpl_ps) + cpl_ps;
    tag = arrived;
    if (++tag_head_ == tags_.size()) tag_head_ = 0;
    done = std::max(done, arrived);
    ++requests, cpls += ncpl;
    a += n, left -= n;
  } while (left);
  tag_wait_ps_.inc(tag_wait);
  tlps_up_.inc(requests), read_requests_.inc(requests), tlps_down_.inc(cpls);
  read_bytes_.inc(len);
  return done;
}

}  // namespace oonic
