#include "platforms/host/workload.h"

#include <sstream>

#include "model/core/error.h"
#include "model/core/rng.h"

namespace oonic::host {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, sep);) {
    size_t a = x.find_first_not_of(" \t"), b = x.find_last_not_of(" \t");
    if (a != std::string::npos) out.push_back(x.substr(a, b - a + 1));
  }
  return out;
}

struct Mix {
  double w[3] = {0, 0, 0};  // write, read, send
};

Mix parse_mix(const std::string& text) {
  Mix m;
  auto items = split(text, ',');
  if (items.empty()) throw Error(msg::kConfig, "workload.mix: empty");
  for (const auto& it : items) {
    auto colon = it.find(':');
    std::string name = it.substr(0, colon);
    double weight = 1;
    if (colon != std::string::npos) {
      try {
        size_t used = 0;
        weight = std::stod(it.substr(colon + 1), &used);
        if (used != it.size() - colon - 1) throw std::invalid_argument("x");
      } catch (const std::exception&) {
        throw Error(msg::kConfig, "workload.mix: bad weight in '" + it + "'");
      }
      if (!(weight >= 0))
        throw Error(msg::kConfig, "workload.mix: negative weight in '" + it + "'");
    }
    int k = name == "write" ? 0 : name == "read" ? 1 : name == "send" ? 2 : -1;
    if (k < 0)
      throw Error(msg::kConfig, "workload.mix: unknown opcode '" + name + "' (write, read, send)");
    m.w[k] += weight;
  }
  if (m.w[0] + m.w[1] + m.w[2] <= 0) throw Error(msg::kConfig, "workload.mix: all weights zero");
  return m;
}

}  // namespace

uint64_t parse_bytes(const std::string& text, const std::string& key) {
  if (text.empty()) throw Error(msg::kConfig, key + ": empty size");
  uint64_t mult = 1;
  std::string num = text;
  char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (last == 'K' || last == 'M' || last == 'G') {
    mult = last == 'K' ? 1024ull : last == 'M' ? 1024ull * 1024 : 1024ull * 1024 * 1024;
    num = text.substr(0, text.size() - 1);
  }
  if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
    throw Error(msg::kConfig, key + ": bad size '" + text + "' (bytes, or with K/M/G)");
  uint64_t v = std::stoull(num) * mult;
  if (v > (1ull << 32) - 1)
    throw Error(msg::kConfig, key + ": size '" + text + "' exceeds the 32-bit WQE length");
  return v;
}

void WorkloadParams::describe(ParamTable& t) {
  t.add("workload.qps", &qps, "QP", "QPs host A posts WQEs on (each connected to one on B)", 1,
        65536);
  t.add("workload.wqes_per_qp", &wqes_per_qp, "WQE", "WQEs posted on each QP in the run", 1,
        1u << 24);
  t.add("workload.mix", &mix,
        "opcode mix: write, read, send, or weights like write:2,read:1,send:1", {});
  t.add("workload.mode", &mode,
        "ooo: OOO WRITE/READ WQEs (ORNIC); standard: RoCEv2 in-order WQEs (go-back-N, the "
        "in-order NIC); alternate: both in turn. SEND is standard, except with nic.ordering "
        "eunomia: an OOO-mode SEND is Eunomia's out-of-order SEND (Head + last metadata, "
        "completion held until Last Seq)",
        {"ooo", "standard", "alternate"});
  t.add("workload.wqe_bytes", &wqe_bytes,
        "WQE size in bytes: one value or a comma list drawn uniformly (K/M/G = 2^10/2^20/2^30)",
        {});
  t.add("workload.queue_depth", &queue_depth, "WQE",
        "WQEs posted and not yet completed per QP (the host posts more as CQEs arrive)", 1, 65535);
  t.add("workload.sq_entries", &sq_entries, "WQE", "send queue ring entries per QP", 1, 65535);
  t.add("workload.cq_entries", &cq_entries, "CQE", "completion queue ring entries per QP", 1,
        65535);
  t.add("workload.reuse_buffers", &reuse_buffers,
        "every WQE of a QP with the same opcode reuses one source and one destination buffer "
        "(SEND still consumes a receive buffer each); default: a buffer pair per WQE");
  t.add("workload.sync_every", &sync_every, "WQE",
        "every n-th WQE of a QP (the n-th, 2n-th, ...) carries MP-RDMA's Sync flag: it updates "
        "memory only after every earlier WQE of the QP (nic.ordering mprdma); 0: none",
        0, 1u << 24);
  t.add("workload.start_psn", &start_psn, "PSN", "first PSN of every QP (SQ_PSN / RQ_EPSN)", 0,
        0xFFFFFF);
}

void WorkloadParams::validate() const {
  parse_mix(mix);
  auto sizes = split(wqe_bytes, ',');
  if (sizes.empty()) throw Error(msg::kConfig, "workload.wqe_bytes: empty");
  for (const auto& s : sizes) parse_bytes(s, "workload.wqe_bytes");
  if (queue_depth > sq_entries)
    throw Error(msg::kConfig, "workload.queue_depth (" + std::to_string(queue_depth) +
                                  ") must not exceed workload.sq_entries (" +
                                  std::to_string(sq_entries) + ")");
  if (cq_entries < queue_depth)
    throw Error(msg::kConfig, "workload.cq_entries (" + std::to_string(cq_entries) +
                                  ") must be at least workload.queue_depth (" +
                                  std::to_string(queue_depth) + ")");
}

std::vector<std::vector<WqeSpec>> make_workload(const WorkloadParams& p, uint64_t seed) {
  p.validate();
  Mix m = parse_mix(p.mix);
  std::vector<uint64_t> sizes;
  for (const auto& s : split(p.wqe_bytes, ','))
    sizes.push_back(parse_bytes(s, "workload.wqe_bytes"));
  Rng rng = make_rng(seed, "workload");
  std::uniform_real_distribution<double> u(0, m.w[0] + m.w[1] + m.w[2]);
  std::vector<std::vector<WqeSpec>> out(p.qps);
  for (uint32_t q = 0; q < p.qps; ++q) {
    for (uint32_t i = 0; i < p.wqes_per_qp; ++i) {
      WqeSpec w;
      w.qp = q;
      double x = u(rng);
      w.op = x < m.w[0]            ? ornic::WqeOp::kWrite
             : x < m.w[0] + m.w[1] ? ornic::WqeOp::kRead
                                   : ornic::WqeOp::kSend;
      if (m.w[0] + m.w[1] + m.w[2] == m.w[0]) w.op = ornic::WqeOp::kWrite;
      w.bytes = sizes.size() == 1 ? sizes[0] : sizes[rng() % sizes.size()];
      bool ooo = p.mode == "ooo" || (p.mode == "alternate" && i % 2 == 0);
      w.ooo = ooo && w.op != ornic::WqeOp::kSend;
      w.ooo_mode = ooo;
      w.sync = p.sync_every && (i + 1) % p.sync_every == 0;
      out[q].push_back(w);
    }
  }
  return out;
}

}  // namespace oonic::host
