#!/usr/bin/python3
"""Same trace, same seed, same options -> byte-identical results; timing modes differ
only where they should. Where the seed matters (`oonic run`: the workload's draws, the
network's jitter and losses; `oonic trace perturb`), the same seed gives byte-identical
results and another seed different ones."""

import os
import re
import unittest

import oonic_e2e as e2e
from oonic_e2e import num

TRACE = e2e.trace_path("default.txt")
FILES = ("stats.json", "packets.csv", "tx.pcap", "tx.csv", "sram.csv", "waves.vcd",
         "config.yaml", "qps.yaml")


class Determinism(e2e.OonicTestCase):
    def test_two_runs_are_byte_identical(self):
        d = self.mkdtemp()
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        # same working directory so run.trace (as given) is the same string
        ra = e2e.replay(TRACE, a, "--vcd", "--seed", "7", cwd=d)
        rb = e2e.replay(TRACE, b, "--vcd", "--seed", "7", cwd=d)
        self.assertOk(ra)
        self.assertOk(rb)
        for f in FILES:
            with self.subTest(file=f):
                fa, fb = os.path.join(a, f), os.path.join(b, f)
                self.assertTrue(os.path.getsize(fa) > 0, fa)
                self.assertEqual(e2e.read_bytes(fa), e2e.read_bytes(fb), f)
        self.assertEqual(ra.stats_json["run"]["seed"], 7)
        # the summaries differ at most in the results path and the wall time
        strip = lambda s: [l for l in s.splitlines() if not l.strip().startswith("results")]
        self.assertEqual(strip(ra.stdout), strip(rb.stdout))

    def test_replay_path_has_no_randomness(self):
        # The replay makes no random choice: another seed changes only run.seed.
        d = self.mkdtemp()
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        self.assertOk(e2e.replay(TRACE, a, "--seed", "1", cwd=d))
        self.assertOk(e2e.replay(TRACE, b, "--seed", "2", cwd=d))
        for f in ("packets.csv", "tx.pcap", "sram.csv"):
            self.assertEqual(e2e.read_bytes(os.path.join(a, f)), e2e.read_bytes(os.path.join(b, f)), f)

    def test_vcd_is_a_vcd(self):
        r = self.replay_ok(TRACE, "--vcd")
        text = e2e.read_bytes(r.path("waves.vcd")).decode()
        self.assertIn("$timescale", text)
        self.assertIn("$enddefinitions", text)
        self.assertIn("$scope module nic0", text)
        # times are whole NIC cycles (4000 ps at 250 MHz) and never go back
        period = round(1e6 / r.stats_json["run"]["clock_mhz"])
        times = [int(l[1:]) for l in text.splitlines() if l.startswith("#")]
        self.assertTrue(times)
        self.assertEqual(times, sorted(times))
        self.assertTrue(all(t % period == 0 for t in times))
        self.assertLessEqual(times[-1], r.stats_json["run"]["end_cycle"] * period)

    def test_no_vcd_without_flag(self):
        r = self.replay_ok(TRACE)
        self.assertFalse(os.path.exists(r.path("waves.vcd")))

    def test_config_and_qps_round_trip(self):
        # config.yaml / qps.yaml written by a run, passed back, give the same results
        r1 = self.replay_ok(TRACE, "--set", "nic.otd=48")
        r2 = self.replay_ok(TRACE, "--config", r1.path("config.yaml"), "--qps", r1.path("qps.yaml"))
        for f in ("packets.csv", "tx.csv", "tx.pcap", "sram.csv"):
            self.assertEqual(e2e.read_bytes(r1.path(f)), e2e.read_bytes(r2.path(f)), f)
        self.assertEqual(r1.stats_json["stats"], r2.stats_json["stats"])

    def test_gap_timing_differs_from_captured(self):
        base = self.replay_ok(TRACE)
        gap = self.replay_ok(TRACE, "--timing", "gap:200")
        self.assertEqual(gap.stats_json["run"]["timing"], "gap:200")
        self.assertNotEqual(gap.stats_json["run"]["end_cycle"], base.stats_json["run"]["end_cycle"])
        # gap:N puts consecutive arrivals N NIC cycles apart
        arr = [num(r["arrival_cycle"]) for r in gap.packets()]
        self.assertEqual({b - a for a, b in zip(arr, arr[1:])}, {200})
        # 160 packets 200 cycles apart: the last arrives 159 * 200 cycles after the first
        self.assertGreaterEqual(gap.stats_json["run"]["end_cycle"], arr[0] + 159 * 200)
        # the data itself is unaffected by the timing
        self.assertTrue(gap.stats_json["integrity"]["ok"])
        self.assertEqual(gap.stats_json["integrity"]["bytes"], base.stats_json["integrity"]["bytes"])

    def test_captured_times_are_line_rate(self):
        # default.txt was generated with --timing line-rate at 100 Gbit/s: its time column
        # is the back-to-back start of each frame, so the replay's arrivals are 83-84
        # cycles (4158 B + 24 B on the wire at 100 Gbit/s = 334.56 ns) apart
        r = self.replay_ok(TRACE)
        arr = [num(x["arrival_cycle"]) for x in r.packets()]
        ns = 4182 * 8 / 100.0
        cyc = ns * r.stats_json["run"]["clock_mhz"] / 1000.0
        for a, b in zip(arr, arr[1:]):
            self.assertLessEqual(abs((b - a) - cyc), 1.0, (a, b))


RUN_FILES = ("stats.json", "wqes.csv", "sram.csv", "a_to_b.pcap", "b_to_a.pcap", "waves.vcd",
             "config.yaml")
WALL = re.compile(rb'"wall_s": [-0-9.e+]+')


class RunDeterminism(e2e.OonicTestCase):
    """`oonic run` draws WQE sizes and opcodes, reorders and drops with the seed."""

    ARGS = ["run", e2e.os.path.join(e2e.SOURCE_DIR, "examples", "b2b-mixed.yaml"), "--vcd",
            "--set", "network.ooo_distance=31", "--set", "network.loss_rate=0.01"]

    def run_seed(self, seed):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(self.ARGS + ["--seed", str(seed), "--out", out], out=out)
        self.assertOk(r)
        files = {}
        for f in RUN_FILES:
            data = e2e.read_bytes(os.path.join(out, f))
            self.assertGreater(len(data), 0, f)
            files[f] = WALL.sub(b'"wall_s": X', data)  # wall-clock seconds differ by run
        return r, files

    def test_same_seed_byte_identical_other_seed_differs(self):
        r1, a = self.run_seed(11)
        r2, b = self.run_seed(11)
        r3, c = self.run_seed(12)
        for f in RUN_FILES:
            self.assertEqual(a[f], b[f], f)
        self.assertEqual(r1.stats_json["run"]["seed"], 11)
        # another seed: other losses and reordering on the wire, other cycle counts
        for f in ("a_to_b.pcap", "wqes.csv", "stats.json"):
            self.assertNotEqual(a[f], c[f], f)
        self.assertTrue(r3.stats_json["scoreboard"]["ok"])


class PerturbDeterminism(e2e.OonicTestCase):
    def test_perturb_seed(self):
        d = self.mkdtemp()
        src = e2e.trace_path("inorder-write.txt")

        def perturb(seed, sub):
            # the output records its command line: same file name in separate directories
            os.makedirs(os.path.join(d, sub))
            out = os.path.join(d, sub, "p.txt")
            r = e2e.run_oonic(["trace", "perturb", src, out, "--ooo-distance", "4",
                               "--drop-rate", "0.3", "--seed", str(seed)])
            self.assertOk(r)
            return e2e.read_bytes(out).replace(("/%s/" % sub).encode(), b"/RUN/")

        a = perturb(5, "run1")
        self.assertEqual(a, perturb(5, "run2"))
        self.assertNotEqual(a, perturb(6, "run3"))


if __name__ == "__main__":
    unittest.main()
