#!/usr/bin/python3
"""MP-RDMA's transport end to end (docs/DESIGN.md M6, docs/experiments/mprdma.md).

* kpaths permutation with nic.ordering mprdma (tx.rate / tx.recovery auto): every flow
  completes with host memory equal to the bytes sent, its packets spread over all four
  spines on their virtual paths (UDP source ports), arrive out of order, and the run is
  the same twice for a seed.
* a slow path is pruned: one connection with path 4 at 5 Gbit/s; MP-RDMA's ACKs from
  it fall below snd_ool, and the traffic moves to the other three paths.
* tshark dissects what an MP-RDMA NIC sends (data with the metadata extension, the
  per-packet ACKs) with nothing malformed.
* the four experiment scripts run on small inputs and write their CSV, table and plot.
"""
import os
import shutil
import subprocess
import unittest

import oonic_e2e as e2e

SRC = e2e.SOURCE_DIR
KPATHS = ["--set", "topology.kind=kpaths", "--set", "topology.paths=4",
          "--set", "topology.hosts_per_leaf=5", "--set", "topology.host_gbps=40",
          "--set", "topology.fabric_gbps=40", "--set", "topology.link_delay_ns=1500",
          "--set", "nic.pmtu_bytes=1024", "--set", "nic.ordering=mprdma",
          "--set", "cc.mprdma.rtt_us=12"]
PI_ERROR = 0x00800000


def text(path):
    with open(path) as f:
        return f.read()


class MpRdma(e2e.OonicTestCase):
    def run_kpaths(self, *extra):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", "-", "--out", out, "--quiet"] + KPATHS + list(extra), out=out)
        self.assertOk(r)
        return r

    def test_permutation_completes_intact_spread_over_paths_and_deterministic(self):
        args = ["--set", "flows.pattern=permutation", "--set", "flows.arrival=once",
                "--set", "flows.bytes=1M"]
        r = self.run_kpaths(*args)
        self.assertSprayedIntact(r, 10)
        st = r.stats_json["stats"]
        self.assertGreater(st["h0.nic.tx.rate.clocked_packets"]["value"], 0)
        self.assertGreater(st["h0.nic.tx.mprdma.tagged"]["value"], 0)
        # ECE rides on every ACK: no CNPs; the sender's state is in cc.context.
        self.assertEqual(sum(st["h%d.nic.tx.hdr_generator.cnps" % i]["value"] for i in range(10)), 0)
        self.assertGreater(r.stats_json["sram"]["h0.cc.context"]["peak_bits"], 0)
        again = self.run_kpaths(*args)
        for name in ("fct.csv", "qps.csv", "links.csv"):
            self.assertEqual(text(r.path(name)), text(again.path(name)), name)

    def test_a_slow_path_is_pruned_and_traffic_moves_to_the_others(self):
        d = self.mkdtemp()
        flows = os.path.join(d, "flows.txt")
        with open(flows, "w") as f:
            f.write("1\n0 5 3 100 8388608 0\n")
        faults = os.path.join(d, "faults.txt")
        with open(faults, "w") as f:
            f.write("0 rate tor0 spine3 5\n0 rate spine3 tor1 5\n")
        common = ["--set", "flows.file=" + flows, "--set", "faults.file=" + faults,
                  "--set", "control.rsp_manager.rtt_ns=1000000", "--set", "switch.pfc=true"]
        r = self.run_kpaths(*common)
        self.assertTrue(r.stats_json["scoreboard"]["ok"])
        st = r.stats_json["stats"]
        self.assertGreater(st["h0.nic.tx.rate.pruned_acks"]["value"], 0)
        links = {(l["from"], l["to"]): int(l["frames"]) for l in e2e.load_csv(r.path("links.csv"))}
        others = sum(links[("tor0", s)] for s in ("spine0", "spine1", "spine2")) / 3
        self.assertLess(links[("tor0", "spine3")], 0.2 * others)
        # Without pruning (delta unbounded) the slow path keeps its share and the
        # connection ends later.
        u = self.run_kpaths(*(common + ["--set", "cc.mprdma.delta_psns=0"]))
        self.assertEqual(u.stats_json["stats"]["h0.nic.tx.rate.pruned_acks"]["value"], 0)
        ul = {(l["from"], l["to"]): int(l["frames"]) for l in e2e.load_csv(u.path("links.csv"))}
        self.assertGreater(ul[("tor0", "spine3")], 3 * links[("tor0", "spine3")])
        fct = lambda x: float(e2e.load_csv(x.path("fct.csv"))[0]["fct_ns"])  # noqa: E731
        self.assertLess(fct(r), fct(u))

    def test_two_nic_run_with_sync_wqes_and_sends_over_a_reordering_network(self):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", os.path.join(SRC, "examples", "b2b-reorder.yaml"), "--out", out,
                           "--quiet", "--set", "nic.ordering=mprdma", "--set",
                           "workload.sync_every=2", "--set", "workload.mix=write:1,send:1",
                           "--set", "workload.mode=ooo"],
                          out=out)
        self.assertOk(r)
        self.assertTrue(r.stats_json["scoreboard"]["ok"])
        st = r.stats_json["stats"]
        self.assertGreater(st["a.nic.tx.rate.sync_delays"]["value"], 0)
        self.assertGreater(st["a.nic.tx.mprdma.tagged"]["value"], 0)
        # Every data packet (all of OOO WQEs here) is ACKed with an MP-RDMA ACK; no
        # standard ACK goes back.
        self.assertGreater(st["b.nic.tx.hdr_generator.scheme_feedback_mp_acks"]["value"], 0)
        self.assertEqual(st["b.nic.tx.hdr_generator.acks"]["value"], 0)

    def test_loss_and_ecn_faults_reject_bad_lines_naming_file_and_line(self):
        d = self.mkdtemp()
        for line, needle in (("0 loss tor0 spine0 2", "probability"),
                             ("0 loss h0 tor0 0.1", "switch-to-switch"),
                             ("0 ecn tor0 spine0 5000 100", "kmax_bytes '100'"),
                             ("0 ecn tor0 spine0", "kmin")):
            faults = os.path.join(d, "faults.txt")
            with open(faults, "w") as f:
                f.write("# comment\n" + line + "\n")
            r = e2e.run_oonic(["run", "-", "--out", os.path.join(d, "r"), "--quiet",
                               "--set", "faults.file=" + faults] + KPATHS)
            self.assertError(r, "faults.txt:2", needle)

    @unittest.skipIf(e2e.tshark_bin() is None, "tshark not installed")
    def test_tshark_dissects_mprdma_data_and_acks_without_malformed(self):
        r = self.run_kpaths("--set", "flows.pattern=permutation", "--set", "flows.arrival=once",
                            "--set", "flows.bytes=64K", "--set", "run.link_pcap=true")
        rows = e2e.tshark_fields(r.path("h0_tx.pcap"),
                                 ["infiniband.bth.opcode", "infiniband.bth.reserved7",
                                  "udp.srcport", "_ws.malformed", "_ws.expert.severity"])
        self.assertGreater(len(rows), 0)
        ops, ports = set(), set()
        for row in rows:
            self.assertEqual(row[3], "", row)
            for sev in filter(None, row[4].split(",")):
                self.assertLess(int(sev, 0), PI_ERROR, row)
            op = int(row[0], 0)
            ops.add(op)
            if 0x18 <= op <= 0x1B:  # OOO WRITE: the MP-RDMA extension bit
                self.assertEqual(int(row[1], 0) & 0x10, 0x10, row)
                ports.add(row[2])
        self.assertIn(0x1E, ops)  # per-packet MP-RDMA ACKs (Scheme Feedback)
        self.assertGreater(len(ports), 4)  # many virtual paths

    def test_experiment_scripts_run_small(self):
        env = dict(os.environ, OONIC_BIN=e2e.oonic_bin())
        exp = os.path.join(SRC, "scripts", "experiments")
        cases = [("mprdma-lossy", ["--rates", "0.01", "--bytes", "524288"], "goodput.csv"),
                 ("mprdma-permutation", ["--seeds", "1", "--bytes", "262144"], "receivers.csv"),
                 ("mprdma-ooo", ["--deltas", "32,0", "--scenarios", "normal", "--bytes", "262144"],
                  "ood.csv"),
                 ("mprdma-failure", ["--bytes", "4194304", "--step-us", "100"], "summary.csv")]
        for name, args, csvname in cases:
            out = self.mkdtemp()
            p = subprocess.run(["/usr/bin/python3", os.path.join(exp, name), "--out", out] + args,
                               capture_output=True, text=True, timeout=300, env=env)
            self.assertEqual(p.returncode, 0, name + ": " + p.stderr)
            rows = e2e.load_csv(os.path.join(out, csvname))
            self.assertGreater(len(rows), 0, name)
            for row in rows:
                if "scoreboard_ok" in row:
                    self.assertEqual(row["scoreboard_ok"], "True", (name, row))
            self.assertTrue(os.path.isfile(os.path.join(out, "table.md")), name)
            self.assertGreater(os.path.getsize(os.path.join(out, name + ".png")), 1000, name)
            shutil.rmtree(os.path.join(out, "runs"), ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
