// `oonic trace perturb`: reorder (windowed shuffle, aligned groups, multipath), drop,
// duplicate and retransmit the data packets of a trace.
#include "platforms/trace/trace_tools.h"

#include "platforms/trace/endpoint.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/common/arrival_order.h"
#include "platforms/trace/text_writer.h"
#include "platforms/trace/trace_util.h"

namespace oonic::trace {

// ----------------------------------------------------------------- perturb ---

namespace {

// Per input frame, what its stream says of it (0 for a frame in no stream).
struct RecordFacts {
  std::vector<uint32_t> psn;
  std::vector<uint8_t> last;  // 1: the last packet of its message
  std::vector<uint8_t> ooo;   // 1: an ORNIC OOO WRITE
};

RecordFacts record_facts(const ClassifiedFull& cf, size_t n) {
  const Classified& c = cf.c;
  RecordFacts r;
  r.psn.assign(n, 0);
  r.last.assign(n, 0);
  r.ooo.assign(n, 0);
  for (const Stream& s : c.streams)
    for (size_t k = 0; k < s.records.size(); ++k)
      r.psn[s.records[k]] = s.psns[k], r.last[s.records[k]] = s.last[k];
  for (size_t i = 0; i < n; ++i)
    if (c.stream_of[i] >= 0 && cf.opcode[i] >= wire::kOooWriteFSpot &&
        cf.opcode[i] <= wire::kOooWriteLastFSpot)
      r.ooo[i] = 1;
  return r;
}

// Slots: the places (and times) packets arrive at.
struct Slots {
  std::vector<int64_t> when;    // per frame: the time of its place
  std::vector<uint8_t> timed;   // per frame: 1 if that time is known
  std::vector<uint32_t> order;  // the places, in arrival order (frame indexes)
};

// ECMP on the flow: FNV-1a over IP addresses, UDP source port, dest QP.
uint64_t flow_hash(const Frames& in, const Frame& f) {
  wire::PacketView v;
  wire::parse(in.data(f), f.len, v, false);
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const uint8_t* p, size_t len) {
    for (size_t b = 0; b < len; ++b) h = (h ^ p[b]) * 0x100000001b3ull;
  };
  mix(v.src_ip.data(), 16);
  mix(v.dst_ip.data(), 16);
  uint8_t t[5] = {static_cast<uint8_t>(v.udp_sport >> 8), static_cast<uint8_t>(v.udp_sport),
                  static_cast<uint8_t>(v.bth.dest_qp >> 16),
                  static_cast<uint8_t>(v.bth.dest_qp >> 8), static_cast<uint8_t>(v.bth.dest_qp)};
  mix(t, 5);
  return h;
}

// Multipath: each frame's time (untimed frames back to back at o.gbps) plus
// its path's delay; the places are the frames stable sorted by that time.
void multipath_slots(const Frames& in, const Classified& c, const PerturbOptions& o, PyRandom& rng,
                     Slots& sl) {
  const size_t n = in.frames.size();
  const size_t k = o.multipath;
  int64_t prev = 0;
  for (size_t i = 0; i < n; ++i) {
    const Frame& f = in.frames[i];
    if (f.has_time)
      sl.when[i] = f.time_ps;
    else
      sl.when[i] = i ? prev + static_cast<int64_t>(std::llround(
                                  static_cast<double>(wire::wire_bytes(in.frames[i - 1].len)) *
                                  8000.0 / o.gbps))
                     : 0;
    prev = sl.when[i];
    sl.timed[i] = 1;
  }
  std::vector<uint64_t> rr(c.streams.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    int32_t s = c.stream_of[i];
    if (s < 0) continue;
    size_t path = 0;
    switch (o.spray) {
      case PerturbOptions::Spray::kRoundRobin:
        path = static_cast<size_t>(rr[static_cast<size_t>(s)]++ % k);
        break;
      case PerturbOptions::Spray::kRandom:
        path = static_cast<size_t>(rng.randrange(k));
        break;
      case PerturbOptions::Spray::kHash:
        path = static_cast<size_t>(flow_hash(in, in.frames[i]) % k);
        break;
    }
    sl.when[i] += static_cast<int64_t>(o.path_delays_ps[path]);
  }
  std::stable_sort(sl.order.begin(), sl.order.end(),
                   [&](uint32_t a, uint32_t b) { return sl.when[a] < sl.when[b]; });
}

// Windowed shuffle: the input's places and times. Multipath: multipath_slots.
Slots arrival_slots(const Frames& in, const Classified& c, const PerturbOptions& o, PyRandom& rng) {
  const size_t n = in.frames.size();
  Slots sl;
  sl.when.resize(n);
  sl.timed.resize(n);
  sl.order.resize(n);
  for (size_t i = 0; i < n; ++i) sl.order[i] = static_cast<uint32_t>(i);
  if (o.multipath) {
    multipath_slots(in, c, o, rng, sl);
  } else {
    for (size_t i = 0; i < n; ++i)
      sl.when[i] = in.frames[i].time_ps, sl.timed[i] = in.frames[i].has_time ? 1 : 0;
  }
  return sl;
}

// Per slot, what it delivers: the packet placed there (unless lost), its
// duplicate, then retransmissions due at that place.
using Deliveries = std::vector<std::vector<std::pair<uint32_t, Mark>>>;

// Reorders each stream's packets into its slots, losing, duplicating and
// retransmitting them; the random draws keep the order of the streams.
struct Placer {
  const PerturbOptions& o;
  const RecordFacts& rec;
  const std::set<uint32_t> drop;
  const uint32_t retx_after;
  PyRandom& rng;
  PerturbResult& res;
  Deliveries att;

  // The stream's shuffle units, [a, b) in its slots: its messages (up to a
  // Last / Only packet) or the whole stream (PerturbOptions::unit).
  std::vector<std::pair<size_t, size_t>> units(const std::vector<uint32_t>& sl) const {
    std::vector<std::pair<size_t, size_t>> u;
    bool by_message = o.unit == PerturbOptions::Unit::kMessage;
    if (o.unit == PerturbOptions::Unit::kAuto)
      for (uint32_t r : sl) by_message = by_message || rec.ooo[r];
    if (by_message && !o.multipath) {
      size_t a = 0;
      for (size_t i = 0; i < sl.size(); ++i)
        if (rec.last[sl[i]] || i + 1 == sl.size()) u.push_back({a, i + 1}), a = i + 1;
    } else if (!sl.empty()) {
      u.push_back({0, sl.size()});
    }
    return u;
  }

  void place_unit(uint32_t stream, const std::vector<uint32_t>& sl, size_t a, size_t b) {
    const uint32_t m = static_cast<uint32_t>(b - a);
    std::vector<uint32_t> perm = o.multipath ? arrival::windowed_shuffle(m, 0, rng)
                                 : o.aligned_group
                                     ? arrival::aligned_groups(m, o.aligned_group, rng)
                                     : arrival::windowed_shuffle(m, o.ooo_distance, rng);
    std::deque<std::pair<uint64_t, uint32_t>> due;  // (position after which, record)
    for (uint32_t i = 0; i < m; ++i) {
      const uint32_t slot = sl[a + i];
      const uint32_t item = sl[a + perm[i]];
      bool lost =
          drop.count(rec.psn[item]) != 0 || (o.drop_rate > 0.0 && rng.random() < o.drop_rate);
      if (lost) {
        ++res.dropped;
        res.dropped_psns.push_back({stream, rec.psn[item]});
        if (!o.no_retx) due.push_back({uint64_t{i} + retx_after, item});
      } else {
        att[slot].push_back({item, Mark::kNone});
        if (o.duplicate_rate > 0.0 && rng.random() < o.duplicate_rate) {
          att[slot].push_back({item, Mark::kDuplicate});
          ++res.duplicated;
          res.duplicated_psns.push_back({stream, rec.psn[item]});
        }
      }
      while (!due.empty() && due.front().first <= i) {
        att[slot].push_back({due.front().second, Mark::kRetransmission});
        ++res.retransmitted;
        due.pop_front();
      }
    }
    for (const auto& d : due) {  // past the end of the unit: after its last slot
      att[sl[b - 1]].push_back({d.second, Mark::kRetransmission});
      ++res.retransmitted;
    }
  }

  // Per stream: its slots in arrival order; its packets, reordered, fill them.
  void place(const Classified& c, const Slots& slots) {
    std::vector<std::vector<uint32_t>> stream_slots(c.streams.size());
    for (uint32_t r : slots.order)
      if (c.stream_of[r] >= 0) stream_slots[static_cast<size_t>(c.stream_of[r])].push_back(r);
    for (size_t s = 0; s < c.streams.size(); ++s) {
      const std::vector<uint32_t>& sl = stream_slots[s];
      for (const auto& [a, b] : units(sl)) place_unit(static_cast<uint32_t>(s), sl, a, b);
    }
  }
};

// Assemble; times never go backwards (a frame takes its slot's time, at
// least the previous frame's).
void assemble(const Frames& in, const Classified& c, const Slots& slots, const Deliveries& att,
              PerturbResult& res) {
  res.out.frames.reserve(in.frames.size() + res.duplicated);
  bool have_prev = false;
  int64_t prev = 0;
  auto emit = [&](uint32_t rec, Mark mark, int64_t t, bool has_time) {
    Frame f = in.frames[rec];
    if (mark != Mark::kNone) f.mark = mark;
    f.has_time = has_time;
    if (has_time) {
      if (have_prev && t < prev) t = prev;
      f.time_ps = t;
      prev = t;
      have_prev = true;
    }
    res.out.frames.push_back(f);
  };
  for (uint32_t r : slots.order) {
    if (c.stream_of[r] < 0) {
      emit(r, Mark::kNone, slots.when[r], slots.timed[r] != 0);
      continue;
    }
    for (const auto& [item, mark] : att[r]) emit(item, mark, slots.when[r], slots.timed[r] != 0);
  }
}

}  // namespace

PerturbResult perturb(const Frames& in, const PerturbOptions& o, const std::optional<Sidecar>& sc) {
  ClassifiedFull cf = classify_full(in, sc, o.dut);
  const Classified& c = cf.c;
  const size_t n = in.frames.size();
  PyRandom rng(o.seed);
  PerturbResult res;
  res.out = in.derived();
  res.streams = c.streams.size();
  for (const Stream& s : c.streams) res.data_packets += s.records.size();
  const RecordFacts facts = record_facts(cf, n);
  const Slots slots = arrival_slots(in, c, o, rng);
  Placer placer{o,
                facts,
                std::set<uint32_t>(o.drop_psns.begin(), o.drop_psns.end()),
                o.retx_after.value_or(o.aligned_group ? o.aligned_group : o.ooo_distance + 1),
                rng,
                res,
                Deliveries(n)};
  placer.place(c, slots);
  assemble(in, c, slots, placer.att, res);
  return res;
}

}  // namespace oonic::trace
