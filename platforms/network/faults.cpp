#include "platforms/network/faults.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "model/core/params.h"
#include "platforms/network/text_input.h"

namespace oonic::network {

std::vector<Fault> read_faults(const std::string& path, const Topology& t, const FaultLimits& lim) {
  std::vector<Fault> v;
  if (path.empty()) return v;
  TextInput in(path, "faults.file", true);
  std::unordered_map<std::string, uint32_t> node;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) node[t.nodes[i].name] = i;
  const std::string form = "<time_us> <what> <a> <b> ...";
  while (in.next()) {
    Fault x;
    x.line = in.line();
    in.expect_fields(4, 6, form);
    x.at_us = in.real_at(0, "time_us", 0, std::numeric_limits<double>::max());
    if (x.at_us > lim.max_us)
      in.fail("time_us '" + in.field(0) + "' is after the latest time the run can reach (" +
              format_number(lim.max_us) +
              " us: the last flow's start plus run.max_sim_ms); it could never apply");
    x.what = in.field(1);
    // Each kind's fields after the two nodes.
    static const std::pair<const char*, const char*> kKinds[] = {
        {"down", ""},
        {"up", ""},
        {"rate", " <gbps>"},
        {"loss", " <p>"},
        {"ecn", " <kmin_bytes> <kmax_bytes>"},
        {"drop_psn_mod", " <n> <r>"},
        {"drop_ipid_mod", " <n> <r>"}};
    const char* tail = nullptr;
    for (const auto& [k, rest] : kKinds)
      if (x.what == k) tail = rest;
    if (!tail)
      in.fail("unknown fault '" + x.what +
              "' (rate, down, up, loss, ecn, drop_psn_mod, drop_ipid_mod)");
    const std::string rest = tail;
    const size_t want = static_cast<size_t>(std::count(rest.begin(), rest.end(), '<'));
    const std::string f = "<time_us> " + x.what + " <a> <b>" + rest;
    in.expect_fields(4 + want, 4 + want, f);
    for (size_t k : {2, 3})
      if (!node.count(in.field(k))) in.fail("no node '" + in.field(k) + "' in the topology");
    x.a = node[in.field(2)], x.b = node[in.field(3)];
    bool linked = false;
    for (const auto& p : t.ports[x.a]) linked = linked || p.peer == x.b;
    if (!linked) in.fail("no link between " + in.field(2) + " and " + in.field(3));
    const bool host_end = t.is_host(x.a) || t.is_host(x.b);
    if (x.what == "rate") {
      if (host_end)
        in.fail(
            "rate changes apply to switch-to-switch links (a NIC's MAC rate is fixed for a run)");
      x.value = in.real_at(4, "rate", lim.gbps_min, lim.gbps_max);
    } else if (x.what == "loss") {
      if (host_end)
        in.fail("loss applies to switch-to-switch links (network.loss_rate covers host links)");
      x.value = in.real_at(4, "loss probability", 0, 1);
    } else if (x.what == "ecn") {
      if (t.is_host(x.a) && t.is_host(x.b)) in.fail("ecn applies to a switch's egress port");
      x.n = in.uint_at(4, "kmin_bytes", 0, static_cast<uint64_t>(lim.kmax_bytes));
      x.r = in.uint_at(5, "kmax_bytes", x.n, static_cast<uint64_t>(lim.kmax_bytes));
    } else if (x.what == "drop_psn_mod" || x.what == "drop_ipid_mod") {
      // A PSN has 24 bits, an IPv4 identification 16.
      const uint64_t max_n = x.what == "drop_psn_mod" ? uint64_t{1} << 24 : uint64_t{1} << 16;
      x.n = in.uint_at(4, "n", 1, max_n);
      x.r = in.uint_at(5, "r", 0, x.n - 1);
    }
    v.push_back(x);
  }
  std::stable_sort(v.begin(), v.end(),
                   [](const Fault& x, const Fault& y) { return x.at_us < y.at_us; });
  return v;
}

}  // namespace oonic::network
