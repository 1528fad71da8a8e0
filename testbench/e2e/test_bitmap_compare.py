#!/usr/bin/python3
"""scripts/experiments/bitmap-compare and `oonic experiment bitmap-compare`
(ORNIC §4.3, docs/experiments/bitmap-compare.md): quick mode runs, one CSV row
per scheme x scenario, ORNIC locates every block in exactly one cycle, ORNIC holds
fewer blocks than the static bitmap's 20 without loss, LEFT+ locates no slower than
LEFT on average.

Environment (CTest sets both): OONIC_BIN (default <repo>/build/oonic, i.e.
/work/main/build/oonic in the main checkout), OONIC_SOURCE_DIR (default two
levels above this file). The script is given OONIC_BIN, so it builds nothing.
"""

import csv
import os
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "experiments", "bitmap-compare")
TIMEOUT = 120
SCENARIOS = {"no-loss", "head-loss"}
STATIC_BLOCKS = 320 // 16  # the 320-bit static bitmap in 16-bit blocks


def describe(p):
    return "exit %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (p.returncode, p.stdout, p.stderr)


def run(args, **kw):
    env = dict(os.environ)
    env["OONIC_BIN"] = OONIC_BIN
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=TIMEOUT, env=env, **kw)


def read(path):
    with open(path) as f:
        return f.read()


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class BitmapCompare(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="oonic-bitmap-compare-")
        cls.out = os.path.join(cls.tmp, "out")
        cls.proc = run([SCRIPT, "--quick", "--out", cls.out], cwd=SOURCE_DIR)
        cls.rows = []
        if cls.proc.returncode == 0:
            cls.rows = read_csv(os.path.join(cls.out, "results.csv"))
        h = run([OONIC_BIN, "experiment", "bitmap-compare", "--help"])
        m = re.search(r"--schemes LIST\s+comma-separated subset of: (\S+)", h.stdout)
        cls.available = m.group(1).split(",") if m else []

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.proc.returncode, 0, describe(self.proc))

    def row(self, scheme, scenario):
        for r in self.rows:
            if r["scheme"] == scheme and r["scenario"] == scenario:
                return r
        return None

    def need(self, *schemes):
        missing = [s for s in schemes if s not in self.available]
        if missing:
            self.skipTest("scheme(s) %s not built into oonic yet (available: %s)" %
                          (", ".join(missing), ", ".join(self.available)))

    def test_quick_mode_writes_table_and_csv(self):
        table = read(os.path.join(self.out, "table.md"))
        self.assertIn("| Scheme | Scenario |", table)
        self.assertIn(table.strip(), self.proc.stdout)  # the script prints the table
        self.assertTrue(all(r["seeds"] == "20" for r in self.rows), self.rows)

    def test_a_row_per_scheme_and_scenario(self):
        self.assertIn("ornic", self.available)
        got = sorted((r["scheme"], r["scenario"]) for r in self.rows)
        want = sorted((s, sc) for s in self.available for sc in SCENARIOS)
        self.assertEqual(got, want)
        table = read(os.path.join(self.out, "table.md"))
        self.assertEqual(len([l for l in table.splitlines() if l.startswith("| ") and
                              not l.startswith("| Scheme")]), len(want))

    def test_ornic_locates_in_one_cycle(self):
        for sc in SCENARIOS:
            r = self.row("ornic", sc)
            self.assertIsNotNone(r, sc)
            for k in ("locate_mean", "locate_min", "locate_max"):
                self.assertEqual(float(r[k]), 1.0, (sc, k, r))
            self.assertEqual(float(r["locate_std"]), 0.0, r)
            self.assertEqual(int(r["locate_runs"]), 20, r)

    def test_ornic_holds_fewer_blocks_than_static_bitmap_without_loss(self):
        r = self.row("ornic", "no-loss")
        self.assertLess(float(r["blocks_max"]), STATIC_BLOCKS, r)
        self.assertEqual(float(r["dropped_mean"]), 0.0, r)
        self.assertEqual(int(r["complete_runs"]), 20, r)
        if "static-bitmap" in self.available:
            s = self.row("static-bitmap", "no-loss")
            self.assertLess(float(r["blocks_mean"]), float(s["blocks_mean"]), (r, s))

    def test_static_bitmap_holds_its_20_blocks(self):
        self.need("static-bitmap")
        for sc in SCENARIOS:
            s = self.row("static-bitmap", sc)
            self.assertEqual(float(s["blocks_max"]), STATIC_BLOCKS, s)

    def test_left_plus_locates_no_slower_than_left(self):
        self.need("left", "left+")
        for sc in SCENARIOS:
            left, plus = self.row("left", sc), self.row("left+", sc)
            self.assertLessEqual(float(plus["locate_mean"]), float(left["locate_mean"]),
                                 (sc, left, plus))

    def test_deterministic_and_seed_dependent(self):
        def csv_of(*extra):
            p = os.path.join(self.tmp, "d.csv")
            r = run([OONIC_BIN, "experiment", "bitmap-compare", "--seeds", "3", "--packets", "400",
                     "--schemes", "ornic", "--quiet", "--csv", p] + list(extra))
            self.assertEqual(r.returncode, 0, describe(r))
            self.assertEqual(r.stdout, "")
            return read(p)

        a = csv_of()
        self.assertEqual(a, csv_of())
        self.assertNotEqual(a, csv_of("--first-seed", "7"))

    def test_no_reordering_means_no_ooo_packets(self):
        r = run([OONIC_BIN, "experiment", "bitmap-compare", "--seeds", "2", "--packets", "100",
                 "--ooo-distance", "0", "--schemes", "ornic"])
        self.assertEqual(r.returncode, 0, describe(r))
        self.assertIn("n/a", r.stdout)  # no OOO packet in A: no locate figure

    def test_other_geometry(self):
        # 8-bit blocks: 40 of them in 320 bits. Eunomia's rows are multiples of 16 bits, so
        # its core is left out with a note (and is an error when asked for by name).
        p = os.path.join(self.tmp, "g.csv")
        r = run([OONIC_BIN, "experiment", "bitmap-compare", "--seeds", "3", "--packets", "500",
                 "--block-bits", "8", "--start-psn", "0xFFFF00", "--csv", p])
        self.assertEqual(r.returncode, 0, describe(r))
        rows = read_csv(p)
        ornic = [x for x in rows if x["scheme"] == "ornic"]
        self.assertEqual(len(ornic), 2)
        for x in ornic:  # across the 24-bit PSN wrap
            self.assertEqual(float(x["locate_max"]), 1.0, x)
            self.assertLessEqual(float(x["blocks_max"]), 40, x)
        if "eunomia-hd" in self.available:
            self.assertIn("Not run", r.stdout)
            self.assertNotIn("eunomia-hd", {x["scheme"] for x in rows})
            r = run([OONIC_BIN, "experiment", "bitmap-compare", "--block-bits", "8",
                     "--schemes", "eunomia-hd"])
            self.assertEqual(r.returncode, 2, describe(r))

    def test_usage_errors(self):
        for args in (["--qp-bits", "100"], ["--seeds", "0"], ["--bogus"], ["--packets", "x"],
                     ["--schemes", "nope"], ["--arrival", "groups"], ["--group", "0"]):
            r = run([OONIC_BIN, "experiment", "bitmap-compare"] + args)
            self.assertEqual(r.returncode, 2, describe(r))
            self.assertIn("oonic: error:", r.stderr)
        r = run([OONIC_BIN, "experiment", "nope"])
        self.assertEqual(r.returncode, 2, describe(r))
        r = run([OONIC_BIN, "experiment", "--help"])
        self.assertEqual(r.returncode, 0, describe(r))
        self.assertIn("bitmap-compare", r.stdout)


class AlignedGroups(unittest.TestCase):
    """ORNIC §4.3's arrival model: groups of 64 PSNs, each a random permutation, in order.
    Without loss no scheme but the static bitmap holds more than the 4 blocks a group
    spans, and ORNIC holds exactly 4 (the windowed shuffle's 65-PSN span gives 5)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="oonic-bitmap-compare-ag-")
        cls.out = os.path.join(cls.tmp, "out")
        cls.proc = run([SCRIPT, "--quick", "--arrival", "both", "--out", cls.out], cwd=SOURCE_DIR)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def rows(self, arrival):
        self.assertEqual(self.proc.returncode, 0, describe(self.proc))
        return read_csv(os.path.join(self.out, arrival, "results.csv"))

    def test_both_tables_printed(self):
        self.assertEqual(self.proc.returncode, 0, describe(self.proc))
        self.assertIn("windowed shuffle with OOO distance 64", self.proc.stdout)
        self.assertIn("aligned groups of 64", self.proc.stdout)
        for arrival in ("window", "aligned-groups"):
            self.assertEqual({r["arrival"] for r in self.rows(arrival)}, {arrival})

    def test_at_most_four_blocks_without_loss(self):
        rows = self.rows("aligned-groups")
        self.assertTrue(rows)
        for r in rows:
            self.assertEqual(r["group"], "64", r)
            self.assertEqual(r["measured_ooo_distance_max"], "63", r)
            if r["scenario"] != "no-loss":
                continue
            if r["scheme"] == "static-bitmap":
                self.assertEqual(float(r["blocks_max"]), STATIC_BLOCKS, r)
            else:
                self.assertLessEqual(float(r["blocks_max"]), 4.0, r)
                self.assertEqual(float(r["dropped_mean"]), 0.0, r)
        ornic = [r for r in rows if r["scheme"] == "ornic" and r["scenario"] == "no-loss"][0]
        self.assertEqual(float(ornic["blocks_min"]), 4.0, ornic)
        window = [r for r in self.rows("window") if r["scheme"] == "ornic"
                  and r["scenario"] == "no-loss"][0]
        self.assertEqual(float(window["blocks_max"]), 5.0, window)

    def test_trace_perturb_aligned_groups(self):
        """`oonic trace perturb --aligned-groups 16`: each group of 16 packets is a
        permutation of its own PSNs, groups in order; OOD <= 15."""
        d = self.tmp
        src, dst = os.path.join(d, "s.txt"), os.path.join(d, "p.txt")
        r = run([OONIC_BIN, "trace", "synth", "--out", src, "--wqe-bytes", "400K"])
        self.assertEqual(r.returncode, 0, describe(r))
        r = run([OONIC_BIN, "trace", "perturb", src, dst, "--aligned-groups", "16", "--seed", "3"])
        self.assertEqual(r.returncode, 0, describe(r))
        psns = [int(re.search(r"psn=(\S+)", l).group(1), 0) for l in read(dst).splitlines()
                if "psn=" in l and not l.startswith("#")]
        self.assertEqual(len(psns), 100)
        self.assertNotEqual(psns, sorted(psns))
        for g in range(0, 100, 16):
            self.assertEqual(sorted(psns[g:g + 16]), list(range(g, min(g + 16, 100))))
        r = run([OONIC_BIN, "trace", "perturb", src, dst, "--aligned-groups", "16",
                 "--ooo-distance", "4"])
        self.assertEqual(r.returncode, 2, describe(r))


if __name__ == "__main__":
    unittest.main()
