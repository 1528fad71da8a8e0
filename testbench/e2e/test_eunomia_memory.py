#!/usr/bin/python3
"""scripts/experiments/eunomia-memory (and its tool <build>/eunomia_memory): the quick
mode runs and writes a CSV with the documented columns, one row per
reordered-fraction x degree, a table and a PNG; 0 % reordering costs Eunomia no bitmap
(static: 20 x 32 B); Eunomia stays at or below the static bitmap at low reordering.

Environment as for the other e2e tests: OONIC_BIN (default <repo>/build/oonic; the tool
is dirname(OONIC_BIN)/eunomia_memory), OONIC_SOURCE_DIR. Nothing is built here.
"""

import csv
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
TOOL = os.path.join(os.path.dirname(os.path.abspath(OONIC_BIN)), "eunomia_memory")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "experiments", "eunomia-memory")
TIMEOUT = 120

COLUMNS = [
    "reordered_pct", "degree_pct", "reordered_connections", "ooo_distance", "connections",
    "packets_per_connection", "seeds", "eunomia_bitmap_bytes", "eunomia_metadata_bytes",
    "eunomia_total_bytes", "eunomia_index_bytes", "eunomia_bitmap_bytes_max",
    "eunomia_total_bytes_max", "static_bitmap_bytes", "static_total_bytes", "ooo_arrival_pct",
    "nacks",
]
QUICK_FRACTIONS = [0, 20, 40, 60, 80, 100]
QUICK_DEGREES = [10, 40, 70, 100]


def run(args, **kw):
    env = dict(os.environ, OONIC_BIN=OONIC_BIN)
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=TIMEOUT, env=env, cwd=SOURCE_DIR, **kw)


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


class EunomiaMemoryQuick(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(TOOL, os.X_OK):
            raise AssertionError("no %s (build the project: scripts/build)" % TOOL)
        cls.tmp = tempfile.mkdtemp(prefix="eunomia-memory-")
        cls.out = os.path.join(cls.tmp, "out")
        cls.r = run(["/usr/bin/python3", SCRIPT, "--quick", "--out", cls.out])
        cls.fields, cls.rows = (None, [])
        if cls.r.returncode == 0:
            cls.fields, cls.rows = read_rows(os.path.join(cls.out, "results.csv"))
        cls.by = {(int(r["reordered_pct"]), int(r["degree_pct"])): r for r in cls.rows}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_quick_mode_runs_and_reports(self):
        self.assertEqual(self.r.returncode, 0, self.r.stderr)
        self.assertIn("Bitmap-only bytes", self.r.stdout)
        self.assertIn("wrote %s" % os.path.join(self.out, "results.csv"), self.r.stdout)

    def test_csv_columns_and_rows(self):
        self.assertEqual(self.fields, COLUMNS)
        self.assertEqual(len(self.rows), len(QUICK_FRACTIONS) * len(QUICK_DEGREES))
        self.assertEqual(sorted(self.by), sorted((f, d) for f in QUICK_FRACTIONS
                                                 for d in QUICK_DEGREES))
        for r in self.rows:
            self.assertEqual(r["connections"], "20")
            self.assertEqual(r["packets_per_connection"], "300")
            self.assertEqual(r["seeds"], "1")
            f, d = int(r["reordered_pct"]), int(r["degree_pct"])
            self.assertEqual(int(r["reordered_connections"]), round(f * 20 / 100))
            # D = round(d x 255): the documented degree -> distance rule.
            self.assertEqual(int(r["ooo_distance"]), int(d * 255 / 100 + 0.5))

    def test_no_reordering_costs_no_bitmap(self):
        for d in QUICK_DEGREES:
            r = self.by[(0, d)]
            for k in ("eunomia_bitmap_bytes", "eunomia_metadata_bytes", "eunomia_total_bytes",
                      "eunomia_bitmap_bytes_max", "eunomia_total_bytes_max", "nacks"):
                self.assertEqual(float(r[k]), 0.0, k)
            self.assertEqual(int(r["static_bitmap_bytes"]), 20 * 32)
            self.assertEqual(int(r["static_total_bytes"]), 20 * 41)

    def test_eunomia_below_static_at_low_reordering(self):
        for (f, d), r in self.by.items():
            eb, et = float(r["eunomia_bitmap_bytes"]), float(r["eunomia_total_bytes"])
            sb, st = float(r["static_bitmap_bytes"]), float(r["static_total_bytes"])
            n = int(r["reordered_connections"])
            # Structural bounds: a reordered connection holds at most 16 rows (32 B) and
            # 48 B of metadata; the others hold nothing.
            self.assertLessEqual(eb, n * 32, (f, d))
            self.assertLessEqual(float(r["eunomia_metadata_bytes"]), n * 48, (f, d))
            self.assertLessEqual(eb, sb, (f, d))
            if f <= 20:
                self.assertLessEqual(et, st, (f, d))
                if f > 0:
                    self.assertGreater(et, 0, (f, d))
        # Reordered connections do cost something, more with a larger degree.
        self.assertGreater(float(self.by[(20, 10)]["eunomia_bitmap_bytes"]), 0)
        self.assertGreater(float(self.by[(100, 100)]["eunomia_bitmap_bytes"]),
                           float(self.by[(100, 10)]["eunomia_bitmap_bytes"]))
        self.assertGreater(float(self.by[(100, 10)]["ooo_arrival_pct"]), 0)

    def test_table_and_png(self):
        with open(os.path.join(self.out, "table.md")) as f:
            md = f.read()
        self.assertIn("| 0% (0) | 0 | 0 | 0 | 0 | 640 |", md)
        png = os.path.join(self.out, "eunomia-memory.png")
        with open(png, "rb") as f:
            head = f.read(8)
        self.assertEqual(head, b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(png), 10000)


class EunomiaMemoryCli(unittest.TestCase):
    def test_help(self):
        r = run(["/usr/bin/python3", SCRIPT, "--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("windowed shuffle", r.stdout)
        self.assertIn("D = round(d x (256 - 1))", r.stdout)
        r = run([TOOL, "--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("round(d/100 * (max_bitmap_bits - 1))", r.stdout)

    def test_bad_arguments_exit_2(self):
        for args in (["--fractions", "0,101"], ["--packets", "x"], ["--bogus"],
                     ["--metadata-bytes", "20"], ["--block-bits", "24"]):
            r = run([TOOL] + args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertTrue(r.stderr.startswith("eunomia_memory: "), r.stderr)
        r = run(["/usr/bin/python3", SCRIPT, "--fraction-step", "0"])
        self.assertEqual(r.returncode, 2)
        r = run(["/usr/bin/python3", SCRIPT, "--tool", "/nonexistent/eunomia_memory"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("no executable", r.stderr)

    def test_tool_is_deterministic(self):
        args = [TOOL, "--packets", "200", "--seeds", "2", "--fractions", "50",
                "--degrees", "30,90"]
        a, b = run(args), run(args)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertEqual(len(a.stdout.strip().splitlines()), 3)


if __name__ == "__main__":
    unittest.main()
