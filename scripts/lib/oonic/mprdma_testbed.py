"""MP-RDMA's section 5 testbed on oonic's fabric, shared by scripts/experiments/mprdma-*
(docs/experiments/mprdma.md).

kpaths: 2 ToRs (tor0, tor1) joined by 4 spines (spine0..spine3 = paths 1..4), 5 hosts a
ToR (h0..h4 under tor0 = T0, h5..h9 under tor1 = T1), 40 Gbit/s everywhere,
link_delay_ns 1500 (base RTT 12 us: 4 hops each way), PFC on, RED (Pmax, Kmin, Kmax) =
(1.0, 20 KB, 20 KB), PMTU 1 KB. MP-RDMA: nic.ordering mprdma (its window and recovery:
tx.rate / tx.recovery auto), initial window one BDP, delta 32, L 64, WQEs out of order,
ECMP over its virtual paths. The single-path baseline: DCQCN with go-back-N
(nic.ordering gbn, tx.rate dcqcn, in-order WQEs), ECMP.
"""
import csv
import json
import os
import struct
import sys

from . import batch as B, results
from .points import BatchPoint

PATHS = ["spine0", "spine1", "spine2", "spine3"]

TESTBED = ["topology.kind=kpaths", "topology.paths=4", "topology.hosts_per_leaf=5",
           "topology.host_gbps=40", "topology.fabric_gbps=40", "topology.link_delay_ns=1500",
           "nic.pmtu_bytes=1024", "switch.pfc=true", "switch.pmax=1", "switch.kmin_bytes=20K",
           "switch.kmax_bytes=20K", "routing.mode=ecmp", "run.max_sim_ms=2000"]
# (label, settings) of each sender/receiver pairing the experiments run.
SYSTEMS = {
    "mprdma": ("MP-RDMA", ["nic.ordering=mprdma", "flows.mode=ooo", "cc.mprdma.rtt_us=12",
                           "cc.mprdma.delta_psns=32", "bitmap.mprdma_slots=64",
                           "control.rsp_manager.rtt_ns=1000000"]),
    "dcqcn": ("DCQCN + go-back-N (single path)", ["nic.ordering=gbn", "tx.rate=dcqcn",
                                                  "flows.mode=standard"]),
    # MP-RDMA's multipath window into other receivers, with their own loss recovery.
    "mp-ornic": ("MP-RDMA window + ORNIC receiver", ["nic.ordering=ornic", "tx.rate=mprdma",
                                                     "flows.mode=ooo", "cc.mprdma.rtt_us=12"]),
    "mp-eunomia": ("MP-RDMA window + Eunomia receiver", ["nic.ordering=eunomia",
                                                         "tx.rate=mprdma", "flows.mode=ooo",
                                                         "cc.mprdma.rtt_us=12"]),
    # Ultra Ethernet's sender on RoCEv2 frames (issue 31): NSCC's window, every packet
    # sprayed round robin over entropy values, into ORNIC's receiver and its recovery; with
    # ORNIC's default OTD (64) and with OTD 16, under NSCC's window (about a BDP: 63
    # packets of 1 KB here), so that a loss is declared before the timeout
    # (docs/experiments/uet.md measures both).
    "nscc-spray": ("NSCC + spraying (UET's sender) + ORNIC receiver",
                   ["nic.ordering=ornic", "tx.rate=nscc", "cc.nscc.spray=rr", "flows.mode=ooo"]),
    "nscc-spray-otd16": ("NSCC + spraying + ORNIC receiver, OTD 16",
                         ["nic.ordering=ornic", "tx.rate=nscc", "cc.nscc.spray=rr",
                          "flows.mode=ooo", "nic.otd=16"]),
    # NSCC with MP-RDMA's receiver: an ACK per packet naming its entropy value and ECN (as
    # UET's ACK does), so NSCC avoids the values ECN penalised (cc.nscc.spray avoid); L =
    # 256 slots, above NSCC's window (the receiver drops beyond rcv_nxt + L). A lost packet
    # is not NACKed (the testbed's switches do not trim): it waits for the timeout
    # (docs/experiments/uet.md).
    "nscc-avoid": ("NSCC + spraying with path avoidance, per-packet ACKs (MP-RDMA receiver)",
                   ["nic.ordering=mprdma", "tx.rate=nscc", "cc.nscc.spray=avoid",
                    "flows.mode=ooo", "bitmap.mprdma_slots=256",
                    "control.rsp_manager.rtt_ns=1000000"]),
    # UET's transport on UET's own frames (nic.wire auto): NSCC spraying round robin (or with
    # path avoidance), UET's RUD receiver with its ACKs (SACK bitmap, OOO count, entropy
    # value, ECN; coalesced every 4 packets), and UET's SACK-driven recovery (tx.recovery
    # uet, the pairing uet-rud takes): loss is declared by the receiver's out-of-order
    # count, 1.5 windows, not by a PSN distance.
    "uet": ("UET: NSCC + spraying, RUD receiver, SACK recovery",
            ["nic.ordering=uet-rud", "tx.rate=nscc", "cc.nscc.spray=rr", "flows.mode=ooo"]),
    "uet-avoid": ("UET with path avoidance",
                  ["nic.ordering=uet-rud", "tx.rate=nscc", "cc.nscc.spray=avoid",
                   "flows.mode=ooo"]),
}


def flows_text(flows):
    """ns-3 HPCC flow file: (src, dst, bytes) at time 0."""
    return "%d\n" % len(flows) + "".join("%d %d 3 100 %d 0\n" % (s, d, n) for s, d, n in flows)


def add_args(ap):
    """-j and the batch backend options (oonic.batch) of an experiment."""
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="runs at once on this machine (default: the cores)")
    B.add_backend_args(ap)


class Batch:
    """The runs of an experiment, run together on the backend its options name
    (--backend local|slurm, --slurm KEY=VALUE, -j): add() each, run(), then result()."""

    def __init__(self, oonic, args, name):
        self.oonic, self.name = oonic, name
        self.backend, self.jobs = args.backend, max(1, args.jobs)
        try:
            self.slurm = B.parse_slurm_sets(args.slurm)
        except ValueError as e:
            sys.stderr.write("%s: error: %s\n" % (name, e))
            sys.exit(2)
        self.points, self.meta = [], {}

    def add(self, d, system, seed, flows, faults=(), extra=()):
        """Queues one `oonic run -` writing d (with its flow and fault files, flows.in and faults.in)."""
        fl = os.path.join(d, "flows.in")
        inputs = {"flows.in": flows_text(flows)}
        args = [self.oonic, "run", "-", "--quiet", "--seed", str(seed), "--out", d]
        for s in TESTBED + SYSTEMS[system][1] + ["flows.file=" + fl] + list(extra):
            args += ["--set", s]
        if faults:
            inputs["faults.in"] = "".join(ln + "\n" for ln in faults)
            args += ["--set", "faults.file=" + os.path.join(d, "faults.in")]
        self.points.append(BatchPoint(os.path.basename(d), args, d, {"system": system, "seed": seed},
                                     inputs=inputs))
        self.meta[d] = (self.points[-1], system, seed)

    def run(self):
        if not self.points:
            return
        try:
            stopped, _ = B.run_points(self.points, os.path.dirname(self.points[0].pdir), self.backend,
                                      self.jobs, self.slurm, name=self.name, prog=self.name)
        except B.SlurmError as e:
            sys.stderr.write("%s: error: slurm backend: %s\n" % (self.name, e))
            sys.exit(1)
        if stopped is not None:
            sys.stderr.write("%s: interrupted\n" % self.name)
            sys.exit(130)

    def result(self, d):
        """(result dict, error or None) of the run that wrote d."""
        point, system, seed = self.meta[d]
        return load(point, system, seed)


def run(oonic, d, system, seed, flows, faults=(), extra=(), args=None):
    """One `oonic run -` at once, here; returns (result dict, error or None)."""
    class Local:
        backend, jobs, slurm = "local", 1, None
    b = Batch(oonic, args or Local(), "mprdma")
    b.add(d, system, seed, flows, faults, extra)
    b.run()
    return b.result(d)


def load(point, system, seed):
    d = point.pdir
    if point.status() != "ok" or not os.path.isfile(os.path.join(d, "fct.csv")):
        return None, "%s (seed %d) in %s: %s" % (system, seed, d, point.error() or "did not finish")
    res = {"dir": d, "fct": list(csv.DictReader(open(os.path.join(d, "fct.csv")))),
           "qps": list(csv.DictReader(open(os.path.join(d, "qps.csv")))),
           "links": list(csv.DictReader(open(os.path.join(d, "links.csv"))))}
    st = json.load(open(os.path.join(d, "stats.json")))
    res["stats"] = st["stats"]
    res["scoreboard_ok"] = bool(st["scoreboard"]["ok"])
    err = None if res["scoreboard_ok"] else "%s (seed %d) in %s: scoreboard failed" % (system, seed, d)
    return res, err


def stat(res, name):
    v = res["stats"].get(name)
    return v["value"] if isinstance(v, dict) else 0


def sum_stat(res, suffix):
    return results.sum_stat(res["stats"], suffix)


# What loss recovery cost a run, summed over its flows (fct.csv's columns) and its switches:
# the experiments' CSVs carry these beside their own figures.
RECOVERY_COLUMNS = ["lost_wire", "lost_fault", "recoveries", "spurious", "nic_drops"]


def recovery(res):
    """{lost_wire, lost_fault, recoveries, spurious, nic_drops} of a loaded run."""
    f = res["fct"]
    return {"lost_wire": int(sum_stat(res, ".lost")),
            "lost_fault": int(sum_stat(res, ".fault_lost")),
            "recoveries": sum(int(x.get("recoveries") or 0) for x in f),
            "spurious": sum(int(x.get("spurious") or 0) for x in f),
            "nic_drops": sum(int(x.get("nic_drops") or 0) for x in f)}


def spine_of_flow(res, src_tor="tor0"):
    """The spine that carried the most bytes from src_tor (the single-path flow's path)."""
    best = max((r for r in res["links"] if r["from"] == src_tor and r["to"].startswith("spine")),
               key=lambda r: int(r["bytes"]))
    return best["to"]


def data_psns_over_time(pcap, bin_ns):
    """Unique data PSNs (per QP) delivered to a host per time bin, from its h<i>_rx.pcap
    (nanosecond pcap): {bin: packets}. Data = RoCE opcodes 0x00-0x0B (SEND/WRITE) and
    0x18-0x1B (OOO WRITE)."""
    seen, bins = set(), {}
    with open(pcap, "rb") as f:
        head = f.read(24)
        magic = struct.unpack("<I", head[:4])[0]
        nano = magic == 0xA1B23C4D
        while True:
            h = f.read(16)
            if len(h) < 16:
                break
            sec, frac, incl, _ = struct.unpack("<IIII", h)
            b = f.read(incl)
            t = sec * 1e9 + (frac if nano else frac * 1000)
            if len(b) < 14 + 20 + 8 + 12 or b[12:14] != b"\x08\x00" or b[23] != 17:
                continue
            ihl = (b[14] & 15) * 4
            u = 14 + ihl
            if struct.unpack(">H", b[u + 2:u + 4])[0] != 4791:
                continue
            bth = u + 8
            op = b[bth]
            if not (op <= 0x0B or 0x18 <= op <= 0x1B):
                continue
            qp = int.from_bytes(b[bth + 5:bth + 8], "big")
            psn = int.from_bytes(b[bth + 9:bth + 12], "big")
            if (qp, psn) in seen:
                continue
            seen.add((qp, psn))
            k = int(t // bin_ns)
            bins[k] = bins.get(k, 0) + 1
    return bins


def progress(prog, i, n):
    if sys.stderr.isatty():
        sys.stderr.write("\r  %s: %d/%d runs" % (prog, i, n) + ("\n" if i == n else ""))


def plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as p
    return p
