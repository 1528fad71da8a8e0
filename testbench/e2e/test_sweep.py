#!/usr/bin/python3
"""scripts/sweep: the table, failing points, interrupt and resume, bad specs.

Environment (CTest sets both): OONIC_BIN (default <repo>/build/oonic, i.e.
/work/main/build/oonic in the main checkout), OONIC_SOURCE_DIR (default two
levels above this file). Every sweep runs with --jobs 2 on the small bundled
traces; the whole file takes a few seconds.
"""

import csv
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
SWEEP = os.path.join(SOURCE_DIR, "scripts", "sweep")
TIMEOUT = 60

sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "lib"))
from oonic import results as R  # noqa: E402


def env(binary=None):
    e = dict(os.environ)
    e["OONIC_BIN"] = binary or OONIC_BIN
    return e


def run_sweep(spec, *args, binary=None, cwd=None):
    p = subprocess.run(["/usr/bin/python3", SWEEP, spec] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=TIMEOUT,
                       env=env(binary), cwd=cwd or SOURCE_DIR)
    return p


def read_table(out):
    with open(os.path.join(out, "results.csv"), newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


def config_value(cfg, key):
    v = cfg
    for part in key.split("."):
        v = v[part]
    return v


def describe(p):
    return "exit %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (p.returncode, p.stdout, p.stderr)


class SweepTestCase(unittest.TestCase):
    def setUp(self):
        if not os.access(OONIC_BIN, os.X_OK):
            self.fail("oonic binary %s missing (set OONIC_BIN or run scripts/build)" % OONIC_BIN)
        self.dir = tempfile.mkdtemp(prefix="oonic-sweep-")

    def tearDown(self):
        shutil.rmtree(self.dir, True)

    def spec(self, text, name="spec.yaml"):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p


class Table(SweepTestCase):
    """2 params x 1 zip group (2 keys) x 2 traces x 2 seeds = 32 points."""

    SPEC = """
traces: [traces/ooo-small.txt, traces/inorder-write.txt]
seeds: [1, 2]
params:
  nic.otd: [16, 32]
  bitmap.block_bits: [8, 16]
zip:
  - rx.parser.latency: [4, 6]
    dma.setup_cycles: [2, 3]
stats:
  - run.end_cycle
  - nic0.rx.req_processor.accepted
  - stats.nic0.rx.req_processor.accepted.value
  - sram.bitmap.block_pool.peak_bits
  - nic0.sram.rx.req_pkt_buffer.used_bits.peak
  - integrity.ok
extra_args: [--no-packets-csv]
"""
    PARAMS = ["nic.otd", "bitmap.block_bits", "rx.parser.latency", "dma.setup_cycles"]
    STATS = ["run.end_cycle", "nic0.rx.req_processor.accepted", "stats.nic0.rx.req_processor.accepted.value",
             "sram.bitmap.block_pool.peak_bits", "nic0.sram.rx.req_pkt_buffer.used_bits.peak", "integrity.ok"]

    def test_table(self):
        out = os.path.join(self.dir, "out")
        p = run_sweep(self.spec(self.SPEC), "--jobs", "2", "--out", out)
        self.assertEqual(p.returncode, 0, describe(p))
        cols, rows = read_table(out)
        self.assertEqual(cols, ["point", "trace", "seed"] + self.PARAMS + self.STATS + ["status", "error"])
        self.assertEqual(len(rows), 2 * 2 * 2 * 2 * 2)
        # rows in spec order: trace, params (product, zip last), seed
        expect = []
        for trace in ("traces/ooo-small.txt", "traces/inorder-write.txt"):
            for otd, bb, (lat, setup) in itertools.product(("16", "32"), ("8", "16"), (("4", "2"), ("6", "3"))):
                for seed in ("1", "2"):
                    expect.append((trace, otd, bb, lat, setup, seed))
        got = [(r["trace"], r["nic.otd"], r["bitmap.block_bits"], r["rx.parser.latency"],
                r["dma.setup_cycles"], r["seed"]) for r in rows]
        self.assertEqual(got, expect)
        self.assertEqual(len(set(r["point"] for r in rows)), len(rows))
        for r in rows:
            self.assertEqual(r["status"], "ok", r)
            self.assertEqual(r["error"], "", r)
            pdir = os.path.join(out, "points", r["point"])
            import yaml
            with open(os.path.join(pdir, "config.yaml")) as f:
                cfg = yaml.safe_load(f)
            for k in self.PARAMS:
                self.assertEqual(str(config_value(cfg, k)), r[k], (r["point"], k))
            stats = R.load_json(os.path.join(pdir, "stats.json"))
            self.assertEqual(stats["run"]["seed"], int(r["seed"]))
            self.assertTrue(stats["run"]["trace"].endswith(r["trace"]), stats["run"]["trace"])
            self.assertEqual(r["run.end_cycle"], str(stats["run"]["end_cycle"]))
            self.assertEqual(r["nic0.rx.req_processor.accepted"],
                             str(stats["stats"]["nic0.rx.req_processor.accepted"]["value"]))
            self.assertEqual(r["nic0.rx.req_processor.accepted"], r["stats.nic0.rx.req_processor.accepted.value"])
            self.assertEqual(r["sram.bitmap.block_pool.peak_bits"],
                             str(stats["sram"]["bitmap.block_pool"]["peak_bits"]))
            self.assertEqual(r["nic0.sram.rx.req_pkt_buffer.used_bits.peak"],
                             str(stats["stats"]["nic0.sram.rx.req_pkt_buffer.used_bits"]["peak"]))
            self.assertEqual(r["integrity.ok"], "true")
            self.assertFalse(os.path.exists(os.path.join(pdir, "packets.csv")), "extra_args not passed")
            with open(os.path.join(pdir, "done.json")) as f:
                self.assertEqual(json.load(f)["status"], "ok")
        meta = R.load_json(os.path.join(out, "sweep.json"))
        self.assertEqual(meta["params"], self.PARAMS)
        self.assertEqual(meta["units"]["nic.otd"], "PSN")
        self.assertEqual(meta["units"]["run.end_cycle"], "cycle")

        # a rerun skips every point and writes the same table
        with open(os.path.join(out, "results.csv")) as f:
            before = f.read()
        p = run_sweep(self.spec(self.SPEC), "--jobs", "2", "--out", out)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertIn("ran 0; 32 already done", p.stderr)
        with open(os.path.join(out, "results.csv")) as f:
            self.assertEqual(f.read(), before)

    def test_point_ids_stable_and_dry_run(self):
        out = os.path.join(self.dir, "out")
        p1 = run_sweep(self.spec(self.SPEC), "--out", out, "--dry-run")
        self.assertEqual(p1.returncode, 0, describe(p1))
        self.assertIn("32 points", p1.stdout)
        self.assertFalse(os.path.exists(out), "a dry run wrote results")
        # the same points whatever the spec's key order
        reordered = self.SPEC.replace("  nic.otd: [16, 32]\n  bitmap.block_bits: [8, 16]\n",
                                      "  bitmap.block_bits: [8, 16]\n  nic.otd: [16, 32]\n")
        self.assertNotEqual(reordered, self.SPEC)
        p2 = run_sweep(self.spec(reordered, "other.yaml"), "--out", out, "--dry-run")
        ids = lambda s: sorted(l.split()[1] for l in s.splitlines() if l.startswith("run "))
        self.assertEqual(len(ids(p1.stdout)), 32)
        self.assertEqual(ids(p1.stdout), ids(p2.stdout))


class Failures(SweepTestCase):
    def test_failing_point_recorded_others_ok(self):
        spec = self.spec("""
traces: [traces/ooo-small.txt]
seeds: [1, 2]
params:
  nic.otd: [64, 0]          # 0 is out of range [1, ...]: oonic exits 2
stats: [run.end_cycle, integrity.ok]
extra_args: [--no-packets-csv]
""")
        out = os.path.join(self.dir, "out")
        p = run_sweep(spec, "--jobs", "2", "--out", out)
        self.assertEqual(p.returncode, 1, describe(p))
        cols, rows = read_table(out)
        self.assertEqual(len(rows), 4)
        for r in rows:
            if r["nic.otd"] == "0":
                self.assertEqual(r["status"], "failed", r)
                self.assertIn("nic.otd", r["error"])
                self.assertIn("out of range", r["error"])
                self.assertEqual(r["run.end_cycle"], "")
                with open(os.path.join(out, "points", r["point"], "done.json")) as f:
                    d = json.load(f)
                self.assertEqual(d["status"], "failed")
                self.assertEqual(d["returncode"], 2)
                self.assertIn("out of range", d["error"])
            else:
                self.assertEqual(r["status"], "ok", r)
                self.assertEqual(r["error"], "")
                self.assertGreater(int(r["run.end_cycle"]), 0)
                self.assertEqual(r["integrity.ok"], "true")
        self.assertIn("failed", p.stderr)

    def test_missing_stat_is_empty_with_warning(self):
        spec = self.spec("traces: [traces/ooo-small.txt]\nstats: [run.end_cycle, sram.no_such_sram.peak_bits]\n"
                         "extra_args: [--no-packets-csv]\n")
        out = os.path.join(self.dir, "out")
        p = run_sweep(spec, "--out", out, "--jobs", "1")
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertIn("sram.no_such_sram.peak_bits", p.stderr)
        _, rows = read_table(out)
        self.assertEqual(rows[0]["sram.no_such_sram.peak_bits"], "")
        self.assertEqual(rows[0]["status"], "ok")


SLOW_OONIC = """#!/bin/sh
# oonic, but each run starts 0.5 s late (so a sweep can be interrupted midway)
echo $$ >> "%(pids)s"
sleep 0.5
exec "%(bin)s" "$@"
"""


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


class InterruptResume(SweepTestCase):
    def test_sigint_then_resume(self):
        pids = os.path.join(self.dir, "pids")
        slow = os.path.join(self.dir, "slow-oonic")
        with open(slow, "w") as f:
            f.write(SLOW_OONIC % {"pids": pids, "bin": OONIC_BIN})
        os.chmod(slow, 0o755)
        spec = self.spec("""
traces: [traces/ooo-small.txt, traces/psn-gap.txt]
seeds: [1, 2]
params: {nic.otd: [16, 32]}
extra_args: [--no-packets-csv]
""")
        out = os.path.join(self.dir, "out")
        proc = subprocess.Popen(["/usr/bin/python3", SWEEP, spec, "--jobs", "2", "--out", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                env=env(slow), cwd=SOURCE_DIR)
        points = os.path.join(out, "points")
        # interrupt once a point is done and a later one has started: the first two
        # points start (and may end) together, the third starts when one of them is
        # done and then sleeps 0.5 s in the wrapper, so the window is wide
        deadline = time.time() + 30
        first = dirs = []
        while time.time() < deadline and proc.poll() is None:
            if os.path.isdir(points):
                dirs = os.listdir(points)
                first = [d for d in dirs if os.path.exists(os.path.join(points, d, "done.json"))]
                if first and len(dirs) > 2:
                    break
            time.sleep(0.005)
        self.assertTrue(first, "no done.json appeared")
        self.assertGreater(len(dirs), 2, "no third point started")
        self.assertIsNone(proc.poll(), "the sweep finished before it could be interrupted")
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
        self.assertEqual(proc.returncode, 130, stderr)
        self.assertIn("interrupted", stderr)

        # every child is gone, and none finishes later
        with open(pids) as f:
            started = [int(l) for l in f if l.strip()]
        for pid in started:
            self.assertFalse(alive(pid), "child %d still running" % pid)
        done = {d: os.stat(os.path.join(points, d, "done.json")).st_mtime_ns
                for d in os.listdir(points) if os.path.exists(os.path.join(points, d, "done.json"))}
        self.assertGreaterEqual(len(done), 1)
        self.assertLess(len(done), 8, "nothing was left to interrupt")
        unfinished = [d for d in os.listdir(points) if d not in done]
        self.assertTrue(unfinished, "no point was running when interrupted")
        time.sleep(0.8)  # a surviving child would write its results now
        for d in unfinished:
            self.assertFalse(os.path.exists(os.path.join(points, d, "done.json")), d)
        _, rows = read_table(out)  # the partial table
        self.assertEqual(len(rows), 8)
        self.assertEqual(sum(r["status"] == "pending" for r in rows), 8 - len(done))

        # resume: only the pending points run; done ones keep their done.json
        p = run_sweep(spec, "--jobs", "2", "--out", out)
        self.assertEqual(p.returncode, 0, describe(p))
        self.assertIn("ran %d; %d already done" % (8 - len(done), len(done)), p.stderr)
        for d, mtime in done.items():
            self.assertEqual(os.stat(os.path.join(points, d, "done.json")).st_mtime_ns, mtime, d)
        _, rows = read_table(out)
        self.assertEqual(len(rows), 8)
        self.assertTrue(all(r["status"] == "ok" for r in rows), rows)
        self.assertEqual(sorted(os.listdir(points)), sorted(r["point"] for r in rows))


class BadSpecs(SweepTestCase):
    CASES = [
        # (spec text, strings the error must contain)
        ("traces: [traces/ooo-small.txt]\nparms: {nic.otd: [16]}\n", ["'parms'", "unknown key"]),
        ("traces: traces/ooo-small.txt\n", ["'traces'", "list"]),
        ("traces: [traces/ooo-small.txt]\nparams: {nic.otd: 16}\n", ["'params.nic.otd'", "list"]),
        ("traces: [traces/ooo-small.txt]\nseeds: [1, two]\n", ["'seeds[1]'", "integer"]),
        ("traces: [traces/ooo-small.txt]\nzip:\n  - {nic.otd: [16, 32], bitmap.block_bits: [8, 16, 32]}\n",
         ["zip[0]", "unequal length", "bitmap.block_bits"]),
        ("traces: [traces/ooo-small.txt]\nparams: {nic.otdd: [16]}\n", ["'params.nic.otdd'", "unknown parameter"]),
        ("traces: [traces/ooo-small.txt]\nparams: {nic.otd: [16]}\nzip: [{nic.otd: [32]}]\n",
         ["zip[0].nic.otd", "twice"]),
        ("traces: [traces/ooo-small.txt]\nstats: [nic0.rx.req_processor.acepted]\n",
         ["'stats[0]'", "unknown stat"]),
        ("traces: [traces/ooo-small.txt]\nextra_args: [--out, x]\n", ["'extra_args[0]'", "--out"]),
        ("traces: [traces/no-such-trace.txt]\n", ["'traces[0]'", "not found"]),
        ("seeds: [1]\n", ["'traces'", "missing"]),
        ("traces: [traces/ooo-small.txt]\njobs: 0\n", ["'jobs'", "positive"]),
        ("traces: [traces/ooo-small.txt\n", ["not valid YAML"]),
    ]

    def test_bad_specs_exit_2_naming_the_key(self):
        out = os.path.join(self.dir, "out")
        for i, (text, needles) in enumerate(self.CASES):
            with self.subTest(spec=text):
                spec = self.spec(text, "bad%d.yaml" % i)
                p = run_sweep(spec, "--out", out)
                self.assertEqual(p.returncode, 2, describe(p))
                self.assertIn("bad%d.yaml" % i, p.stderr)
                for n in needles:
                    self.assertIn(n, p.stderr)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                self.assertFalse(os.path.exists(out))


class StatPaths(unittest.TestCase):
    DOC = {"run": {"end_cycle": 10}, "integrity": {"ok": True},
           "sram": {"bitmap.block_pool": {"peak_bits": 80}},
           "stats": {"nic0.rx.req_processor.accepted": {"value": 8, "unit": "packet"},
                     "nic0.sram.rx.req_pkt_buffer.used_bits": {"peak": 5, "mean": 2.5, "final": 0, "unit": "bit"}}}

    def test_lookup(self):
        L = R.lookup_stat
        self.assertEqual(L(self.DOC, "run.end_cycle"), 10)
        self.assertEqual(L(self.DOC, "integrity.ok"), True)
        self.assertEqual(L(self.DOC, "sram.bitmap.block_pool.peak_bits"), 80)
        self.assertEqual(L(self.DOC, "nic0.rx.req_processor.accepted"), 8)
        self.assertEqual(L(self.DOC, "stats.nic0.rx.req_processor.accepted"), 8)
        self.assertEqual(L(self.DOC, "stats.nic0.rx.req_processor.accepted.value"), 8)
        self.assertEqual(L(self.DOC, "nic0.sram.rx.req_pkt_buffer.used_bits.mean"), 2.5)
        with self.assertRaisesRegex(R.LookupFailed, "name a field"):
            L(self.DOC, "nic0.sram.rx.req_pkt_buffer.used_bits")
        with self.assertRaisesRegex(R.LookupFailed, "did you mean"):
            L(self.DOC, "run.end_cycles")
        self.assertEqual(R.stat_unit(self.DOC, "nic0.rx.req_processor.accepted"), "packet")
        self.assertEqual(R.stat_unit(self.DOC, "run.end_cycle"), "cycle")
        self.assertEqual(R.format_value(True), "true")
        self.assertEqual(R.format_value(2.5), "2.5")


if __name__ == "__main__":
    unittest.main(verbosity=2)
