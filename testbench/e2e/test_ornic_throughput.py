#!/usr/bin/python3
"""scripts/experiments/ornic-throughput (ORNIC's throughput evaluation, Eq. 7,
docs/experiments/ornic-throughput.md): --quick (sizes 1M and 4M) runs and
writes one CSV row per series x configuration x size, every scoreboard is clean, OOO
WRITE is faster at 4M than at 1M, ORNIC's WRITE in the OOO network is more than 3x the
in-order (go-back-N) NIC's, the three PNGs exist. A run whose scoreboard fails makes
the script exit 1 naming the point (checked with a wrapper around oonic that spoils
READ runs' stats.json).

Environment (CTest sets both): OONIC_BIN (default <repo>/build/oonic), OONIC_SOURCE_DIR
(default two levels above this file). Nothing is built here.
"""

import csv
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
SCRIPT = os.path.join(SOURCE_DIR, "scripts", "experiments", "ornic-throughput")
TIMEOUT = 120

COLUMNS = ["series", "scheme", "opcode", "network", "ooo_distance", "bytes", "gbps",
           "t_completion_ns", "retransmitted", "go_backs", "naks", "wall_s", "scoreboard_ok"]
QUICK_SIZES = [1 << 20, 4 << 20]
# (series, scheme, opcode, network, ooo_distance) of every configuration in the CSV.
CONFIGS = [
    ("ooo-write-read", "ornic", "WRITE", "ooo", 63),
    ("ooo-write-read", "ornic", "READ", "ooo", 63),
    ("ornic-vs-inorder", "ornic", "WRITE", "sequential", 0),
    ("ornic-vs-inorder", "ornic", "WRITE", "ooo", 63),
    ("ornic-vs-inorder", "inorder", "WRITE", "sequential", 0),
    ("ornic-vs-inorder", "inorder", "WRITE", "ooo", 63),
]
PNGS = ["ooo-write-read.png", "ornic-vs-inorder.png", "ornic-throughput.png"]

# Runs the real oonic, then, for READ runs only, marks the scoreboard failed and exits 1
# (what oonic does when a WQE's bytes differ).
SPOILER = """#!/bin/sh
"%s" "$@" || exit $?
case "$*" in *workload.mix=read*) ;; *) exit 0 ;; esac
prev=
for a in "$@"; do [ "$prev" = "--out" ] && out=$a; prev=$a; done
/usr/bin/python3 - "$out/stats.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["scoreboard"]["ok"] = False
d["scoreboard"]["text"] = "FAILED (spoiled by the test)"
json.dump(d, open(sys.argv[1], "w"))
EOF
echo "oonic: scoreboard FAILED (spoiled by the test)" >&2
exit 1
"""


def describe(p):
    return "exit %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (p.returncode, p.stdout, p.stderr)


def run(args, binary=OONIC_BIN):
    env = dict(os.environ, OONIC_BIN=binary)
    return subprocess.run(["/usr/bin/python3", SCRIPT] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=TIMEOUT,
                          env=env, cwd=SOURCE_DIR)


class OrnicThroughputQuick(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(OONIC_BIN, os.X_OK):
            raise AssertionError("no oonic binary at %s (build the project: scripts/build)"
                                 % OONIC_BIN)
        cls.tmp = tempfile.mkdtemp(prefix="ornic-throughput-")
        cls.out = os.path.join(cls.tmp, "out")
        cls.r = run(["--quick", "--out", cls.out])
        cls.fields, cls.rows = None, []
        path = os.path.join(cls.out, "throughput.csv")
        if os.path.exists(path):
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                cls.fields, cls.rows = reader.fieldnames, list(reader)
        cls.by = {(r["series"], r["scheme"], r["opcode"], r["network"], int(r["bytes"])): r
                  for r in cls.rows}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def gbps(self, series, scheme, opcode, network, size):
        return float(self.by[(series, scheme, opcode, network, size)]["gbps"])

    def test_quick_mode_runs_and_reports(self):
        self.assertEqual(self.r.returncode, 0, describe(self.r))
        self.assertIn("| WQE size |", self.r.stdout)
        self.assertIn("| 4M |", self.r.stdout)
        self.assertIn("wrote %s" % os.path.join(self.out, "throughput.csv"), self.r.stdout)
        self.assertEqual(self.r.stderr, "", "progress goes to a terminal only")

    def test_csv_has_every_row(self):
        self.assertEqual(self.fields, COLUMNS)
        expected = sorted((s, sc, op, net, size) for s, sc, op, net, _ in CONFIGS
                          for size in QUICK_SIZES)
        self.assertEqual(sorted(self.by), expected)
        self.assertEqual(len(self.rows), len(expected))
        for r in self.rows:
            key = (r["series"], r["scheme"], r["opcode"], r["network"])
            d = [c[4] for c in CONFIGS if c[:4] == key][0]
            self.assertEqual(int(r["ooo_distance"]), d, key)
            for col in ("gbps", "t_completion_ns"):
                self.assertGreater(float(r[col]), 0, (key, col))
            # Wall time is a measurement, not a result: only its form is checked.
            self.assertGreaterEqual(float(r["wall_s"]), 0, key)
            for col in ("retransmitted", "go_backs", "naks"):
                self.assertGreaterEqual(int(r[col]), 0, (key, col))
            # Eq. 7: Gbit/s = bytes x 8 / T_completion[ns], as wqes.csv rounds it.
            self.assertAlmostEqual(float(r["gbps"]),
                                   int(r["bytes"]) * 8 / float(r["t_completion_ns"]), places=2)

    def test_all_scoreboards_ok(self):
        self.assertTrue(self.rows)
        for r in self.rows:
            self.assertEqual(r["scoreboard_ok"], "true", r)

    def test_ooo_write_grows_with_size(self):
        self.assertGreater(self.gbps("ooo-write-read", "ornic", "WRITE", "ooo", 4 << 20),
                           self.gbps("ooo-write-read", "ornic", "WRITE", "ooo", 1 << 20))

    def test_ornic_beats_inorder_in_ooo_network(self):
        for size in QUICK_SIZES:
            ornic = self.gbps("ornic-vs-inorder", "ornic", "WRITE", "ooo", size)
            inorder = self.gbps("ornic-vs-inorder", "inorder", "WRITE", "ooo", size)
            self.assertGreater(ornic, 3 * inorder, size)
            # The in-order NIC pays with go-back-N; ORNIC needs no retransmission.
            row = self.by[("ornic-vs-inorder", "inorder", "WRITE", "ooo", size)]
            self.assertGreater(int(row["go_backs"]), 0)
            self.assertGreater(int(row["retransmitted"]), 0)
            row = self.by[("ornic-vs-inorder", "ornic", "WRITE", "ooo", size)]
            self.assertEqual(int(row["retransmitted"]), 0)
        # The shared point: panel 2's ORNIC x OOO network is panel 1's OOO WRITE.
        for size in QUICK_SIZES:
            a = self.by[("ooo-write-read", "ornic", "WRITE", "ooo", size)]
            b = self.by[("ornic-vs-inorder", "ornic", "WRITE", "ooo", size)]
            self.assertEqual(a["gbps"], b["gbps"])

    def test_pngs(self):
        for name in PNGS:
            path = os.path.join(self.out, name)
            self.assertTrue(os.path.isfile(path), path)
            self.assertGreater(os.path.getsize(path), 5000, path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)


class OrnicThroughputCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ornic-throughput-cli-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_help(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0, describe(r))
        for word in ("--quick", "--sizes", "--out", "--seed", "--jobs", "Eq. 7",
                     "throughput.csv", "go-back-N"):
            self.assertIn(word, r.stdout)

    def test_bad_arguments_exit_2(self):
        for args in (["--sizes", "1M,abc"], ["--sizes", "0"], ["--jobs", "0"],
                     ["--quick", "--sizes", "1M"], ["--bogus"]):
            r = run(args + ["--out", os.path.join(self.tmp, "o")])
            self.assertEqual(r.returncode, 2, (args, describe(r)))
            self.assertIn("ornic-throughput", r.stderr)
        r = run(["--quick", "--out", os.path.join(self.tmp, "o")], binary="/nonexistent/oonic")
        self.assertEqual(r.returncode, 2, describe(r))
        self.assertIn("no oonic binary at /nonexistent/oonic", r.stderr)

    def test_failed_scoreboard_fails_loudly(self):
        spoiler = os.path.join(self.tmp, "oonic")
        with open(spoiler, "w") as f:
            f.write(SPOILER % os.path.abspath(OONIC_BIN))
        os.chmod(spoiler, os.stat(spoiler).st_mode | stat.S_IXUSR)
        out = os.path.join(self.tmp, "out")
        r = run(["--sizes", "1M", "--out", out], binary=spoiler)
        self.assertEqual(r.returncode, 1, describe(r))
        self.assertIn("FAILED point ornic-read-ooo63-1M", r.stderr)
        self.assertIn("scoreboard not ok", r.stderr)
        self.assertNotIn("ornic-write-ooo63-1M", r.stderr)
        with open(os.path.join(out, "throughput.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(CONFIGS))
        for row in rows:
            self.assertEqual(row["scoreboard_ok"], "false" if row["opcode"] == "READ" else "true")
        self.assertFalse(os.path.exists(os.path.join(out, "ornic-throughput.png")))


if __name__ == "__main__":
    unittest.main()
