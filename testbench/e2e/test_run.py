#!/usr/bin/python3
"""`oonic run`: two NICs across a reordering, lossy network (issue: the whole ORNIC NIC).

Every bundled b2b example completes WRITE, READ and SEND WQEs, OOO and standard,
with the scoreboard clean (host memory at each destination equals the source,
one CQE per WQE, READ CQEs after their data), each under its network: none,
reordering within 63, 1% loss, and a tail burst loss only the timeout sees.
The in-order NIC and ORNIC agree with the scoreboard under reordering (only
slower); runs are deterministic for a seed; tshark dissects both wire pcaps;
bad input is an error naming the key; 2048 QPs run at once.
"""
import csv
import os
import unittest

import oonic_e2e as e2e

EXAMPLES = os.path.join(e2e.SOURCE_DIR, "examples")


def wqes(run):
    with open(run.path("wqes.csv")) as f:
        return list(csv.DictReader(f))


class RunExamples(e2e.OonicTestCase):
    def run_ok(self, config, *extra):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", config, "--out", out] + list(extra), out=out)
        self.assertOk(r)
        sb = r.stats_json["scoreboard"]
        self.assertTrue(sb["ok"], r.describe())
        self.assertEqual(sb["completed"], sb["wqes"])
        self.assertIn("scoreboard  OK", r.stdout)
        rows = wqes(r)
        self.assertEqual(len(rows), sb["wqes"])
        for row in rows:
            self.assertEqual(row["cqes"], "1", row)
            self.assertEqual(row["status"], "0", row)
        return r, rows

    def assert_every_kind(self, rows):
        kinds = {(row["opcode"], row["ooo"]) for row in rows}
        for k in [("WRITE", "1"), ("WRITE", "0"), ("READ", "1"), ("READ", "0"), ("SEND", "0")]:
            self.assertIn(k, kinds)

    def test_mixed_no_reordering(self):
        r, rows = self.run_ok(os.path.join(EXAMPLES, "b2b-mixed.yaml"))
        self.assert_every_kind(rows)
        self.assertEqual(r.stat("a.nic.tx.qp_manager.retransmitted"), 0)
        self.assertEqual(r.stat("network.ab.reordered"), 0)
        self.assertGreater(r.stat("b.nic.rx.req_processor.start_addr_cached"), 0)  # FSpot -> Spot
        # Each CQE comes after its WQE was posted.
        for row in rows:
            self.assertGreater(int(row["cqe_cycle"]), int(row["post_cycle"]))

    def test_mixed_reordered_within_63(self):
        r, rows = self.run_ok(os.path.join(EXAMPLES, "b2b-reorder.yaml"))
        self.assert_every_kind(rows)
        self.assertGreater(r.stat("network.ab.reordered"), 100)
        self.assertLess(r.stat("network.ab.max_displacement"), 63)
        self.assertGreater(r.stat("b.nic.rx.req_processor.ooo_accepted"), 0)

    def test_mixed_one_percent_loss(self):
        r, rows = self.run_ok(os.path.join(EXAMPLES, "b2b-loss.yaml"))
        self.assert_every_kind(rows)
        lost = r.stat("network.ab.dropped_random") + r.stat("network.ba.dropped_random")
        self.assertGreater(lost, 0)
        self.assertGreater(r.stat("a.nic.tx.qp_manager.retransmitted"), 0)

    def test_burst_loss_only_the_timeout_recovers(self):
        r, rows = self.run_ok(os.path.join(EXAMPLES, "b2b-burst-loss.yaml"))
        self.assert_every_kind(rows)
        self.assertEqual(r.stat("network.ab.dropped_listed"), 5)
        # Nothing follows the lost tail: no NAK of either kind, the timer resends it.
        self.assertEqual(r.stat("b.nic.tx.hdr_generator.naks"), 0)
        self.assertEqual(r.stat("b.nic.tx.hdr_generator.bitmap_naks"), 0)
        self.assertEqual(r.stat("a.nic.control.rsp_manager.timeouts"), 1)
        self.assertEqual(r.stat("a.nic.tx.qp_manager.retransmitted"), 5)
        lost = [row for row in rows if row["qpn"] == str(0x1000)
                and int(row["start_psn"]) <= 80 < int(row["start_psn"]) + 64]
        self.assertEqual(len(lost), 1)
        self.assertEqual((lost[0]["opcode"], lost[0]["ooo"]), ("WRITE", "1"))

    def test_in_order_nic_and_ornic_under_reordering(self):
        gbps = {}
        for mode in ("standard", "ooo"):
            r, rows = self.run_ok("-", "--set", "workload.wqe_bytes=1M", "--set",
                                  "workload.wqes_per_qp=1", "--set", f"workload.mode={mode}",
                                  "--set", "network.ooo_distance=63", "--set", "run.pcap=false")
            gbps[mode] = float(rows[0]["gbps"])
            if mode == "standard":
                self.assertGreater(r.stat("a.nic.control.rsp_manager.go_backs"), 10)
            else:
                self.assertEqual(r.stat("a.nic.tx.qp_manager.retransmitted"), 0)
        self.assertGreater(gbps["ooo"], 3 * gbps["standard"], gbps)

    def test_deterministic_for_a_seed(self):
        cfg = os.path.join(EXAMPLES, "b2b-loss.yaml")
        def csv_text(seed):
            with open(self.run_ok(cfg, "--seed", seed)[0].path("wqes.csv")) as f:
                return f.read()
        a, b, c = csv_text("5"), csv_text("5"), csv_text("6")
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_tshark_dissects_both_directions(self):
        if e2e.tshark_bin() is None:
            raise unittest.SkipTest("tshark not installed")
        r, _ = self.run_ok(os.path.join(EXAMPLES, "b2b-mixed.yaml"))
        for name, counter in (("a_to_b.pcap", "network.ab.frames_delivered"),
                              ("b_to_a.pcap", "network.ba.frames_delivered")):
            pcap = r.path(name)
            rows = e2e.tshark_fields(pcap, ["infiniband.bth.opcode", "infiniband.bth.psn"])
            self.assertEqual(len(rows), r.stat(counter), name)
            self.assertTrue(all(row[0] for row in rows), name)  # every frame has a BTH
            p = e2e.run_tshark(["-r", pcap, "-Y", "_ws.malformed"])
            self.assertEqual(p.stdout.strip(), "", name)
            ops = {int(row[0], 0) for row in rows}
            if name == "a_to_b.pcap":
                # Standard WRITE/SEND/READ requests and ORNIC's OOO WRITE FSpot/Spot/Last, OOO READ.
                for op in (0x06, 0x0A, 0x04, 0x0C, 0x18, 0x1C):
                    self.assertIn(op, ops, hex(op))
                self.assertTrue(ops & {0x19, 0x1A}, ops)
            else:
                for op in (0x11, 0x10, 0x1D):
                    self.assertIn(op, ops, hex(op))

    def test_2048_qps_at_once(self):
        r, rows = self.run_ok("-", "--set", "workload.qps=2048", "--set", "workload.wqes_per_qp=1",
                              "--set", "workload.wqe_bytes=4K", "--set", "run.pcap=false",
                              "--set", "run.sram_csv=false")
        self.assertEqual(len({row["qpn"] for row in rows}), 2048)
        self.assertEqual(r.stat("b.nic.rx.req_processor.messages"), 2048)


class RunBadInput(e2e.OonicTestCase):
    def test_errors_name_the_problem(self):
        d = self.mkdtemp()
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write("workload:\n  qps: 2\n  mixx: write\n")
        self.assertError(e2e.run_oonic(["run", bad, "--out", d]), "workload.mixx", "bad.yaml:3")
        self.assertError(e2e.run_oonic(["run", "-", "--set", "workload.mix=write:1,copy:2",
                                        "--out", d]), "workload.mix", "copy")
        self.assertError(e2e.run_oonic(["run", "-", "--set", "workload.wqe_bytes=12Q",
                                        "--out", d]), "workload.wqe_bytes", "12Q")
        self.assertError(e2e.run_oonic(["run", "-", "--set", "workload.qps=4000", "--out", d]),
                         "workload.qps", "nic.max_qps")
        self.assertError(e2e.run_oonic(["run", "-", "--set", "network.drop_psns=xy:5",
                                        "--out", d]), "network.drop_psns")
        self.assertError(e2e.run_oonic(["run", os.path.join(d, "missing.yaml")]), "missing.yaml")
        self.assertError(e2e.run_oonic(["run"]), "no CONFIG")
        self.assertError(e2e.run_oonic(["run", "-", "--bogus"]), "--bogus")

    def test_help(self):
        r = e2e.run_oonic(["run", "--help"])
        self.assertOk(r)
        for k in ("--set", "--out", "--vcd", "--seed", "scoreboard", "wqes.csv"):
            self.assertIn(k, r.stdout)


if __name__ == "__main__":
    unittest.main()
