#!/usr/bin/python3
"""scripts/sweep over `oonic run`, on the local backend and on a real Slurm.

The Slurm is Debian's (slurmctld, slurmd, munge), started by this test on this
machine through scripts/slurm-local in a temporary directory and stopped at the
end, whatever happens. A sweep of 2 parameters x 2 seeds over a fabric run runs
with --backend local and --backend slurm; the tables must be identical, and must
hold what each point's own files say. Then: a Slurm task that is cancelled is
recorded as failed with its state, a failing run is recorded with its error,
resume submits nothing, and the spec checks that are new with `command: run`.

Environment (CTest sets both): OONIC_BIN, OONIC_SOURCE_DIR.
"""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
SWEEP = os.path.join(SOURCE_DIR, "scripts", "sweep")
SLURM_LOCAL = os.path.join(SOURCE_DIR, "scripts", "slurm-local")
CONFIG = os.path.join(SOURCE_DIR, "examples", "fabric-kpaths.yaml")
TIMEOUT = 240

SPEC = """
command: run
configs: [%s]
seeds: [1, 2]
params:
  routing.mode: [ecmp, spray]
  nic.ordering: [ornic, gbn]
stats:
  - run.last_cqe_ns
  - fct.flows
  - fct.slowdown.mean
  - fct.slowdown.p99
  - h3.nic.mac.frames_out
  - spine2.frames_in
  - scoreboard.ok
slurm:
  poll_seconds: 0.5
  chunk: 3
""" % CONFIG


def load(path):
    with open(path) as f:
        return json.load(f)


def text(path):
    with open(path) as f:
        return f.read()


def read_table(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


class SweepRunSlurm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="oonic-slurm-")
        cls.cluster = os.path.join(cls.tmp, "cluster")
        p = subprocess.run(["/usr/bin/python3", SLURM_LOCAL, "start", cls.cluster], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        if p.returncode != 0:
            shutil.rmtree(cls.tmp, ignore_errors=True)
            raise AssertionError("scripts/slurm-local start failed (Slurm is part of scripts/install-deps):\n"
                                 + p.stdout + p.stderr)
        cls.env = dict(os.environ, OONIC_BIN=OONIC_BIN, SLURM_CONF=os.path.join(cls.cluster, "slurm.conf"))
        cls.spec = os.path.join(cls.tmp, "spec.yaml")
        with open(cls.spec, "w") as f:
            f.write(SPEC)

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["/usr/bin/python3", SLURM_LOCAL, "stop", cls.cluster], timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def sweep(self, spec, out, *args, env=None):
        p = subprocess.run(["/usr/bin/python3", SWEEP, spec, "--out", out] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=TIMEOUT, env=env or self.env, cwd=self.tmp)
        return p

    def test_local_and_slurm_tables_equal(self):
        a, b = os.path.join(self.tmp, "local"), os.path.join(self.tmp, "slurm")
        p = self.sweep(self.spec, a, "--backend", "local", "--jobs", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        p = self.sweep(self.spec, b, "--backend", "slurm")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("submitted Slurm job", p.stderr)
        ta, tb = text(os.path.join(a, "results.csv")), text(os.path.join(b, "results.csv"))
        self.assertEqual(ta, tb)

        cols, rows = read_table(os.path.join(b, "results.csv"))
        self.assertEqual(cols[:5], ["point", "config", "seed", "routing.mode", "nic.ordering"])
        self.assertEqual(len(rows), 8)
        self.assertEqual({(r["routing.mode"], r["nic.ordering"], r["seed"]) for r in rows},
                         {(m, o, s) for m in ("ecmp", "spray") for o in ("ornic", "gbn") for s in ("1", "2")})
        for r in rows:
            self.assertEqual(r["status"], "ok", r)
            self.assertEqual(r["scoreboard.ok"], "true")
            pdir = os.path.join(b, "points", r["point"])
            done = load(os.path.join(pdir, "done.json"))
            self.assertEqual(done["backend"], "slurm")
            # The columns hold what the point's own files say.
            stats = load(os.path.join(pdir, "stats.json"))
            self.assertEqual(r["run.last_cqe_ns"], repr(stats["run"]["last_cqe_ns"]))
            self.assertEqual(int(r["h3.nic.mac.frames_out"]), stats["stats"]["h3.nic.mac.frames_out"]["value"])
            self.assertEqual(int(r["spine2.frames_in"]), stats["stats"]["spine2.frames_in"]["value"])
            cfg = text(os.path.join(pdir, "config.yaml"))
            self.assertIn('mode: "%s"  # enum, from --set' % r["routing.mode"], cfg)
            self.assertIn('ordering: "%s"  # enum, from --set' % r["nic.ordering"], cfg)
            _, flows = read_table(os.path.join(pdir, "fct.csv"))
            self.assertEqual(int(r["fct.flows"]), len(flows))
            sd = sorted(float(x["slowdown"]) for x in flows)
            self.assertAlmostEqual(float(r["fct.slowdown.mean"]), sum(sd) / len(sd), places=5)
            self.assertEqual(float(r["fct.slowdown.p99"]), sd[-1])  # 10 flows: nearest rank 99 % is the max
        # Spraying reorders packets: go-back-N suffers, ORNIC does not (mean over seeds).
        mean = lambda m, o: sum(float(r["fct.slowdown.mean"]) for r in rows
                                if r["routing.mode"] == m and r["nic.ordering"] == o) / 2
        self.assertGreater(mean("spray", "gbn"), mean("spray", "ornic"))
        # 8 points in chunks of 3: three array tasks.
        job = load(os.path.join(b, "slurm", "job.json"))
        self.assertEqual(job["tasks"], 3)
        self.assertEqual(len(os.listdir(os.path.join(b, "slurm", "logs"))), 3)

        # scripts/plot: lines over a run sweep, and CDFs pooled from the points' fct.csv.
        plot = os.path.join(SOURCE_DIR, "scripts", "plot")
        for args, svg, want in (
                (["sweep", "--x", "routing.mode", "--y", "fct.slowdown.mean", "--by", "nic.ordering"],
                 "results-fct.slowdown.mean-vs-routing.mode.svg", "gbn"),
                (["sweep-cdf", "--of", "slowdown", "--by", "nic.ordering"],
                 "results-cdf-slowdown-by-nic.ordering.svg", "ornic (40 values, 4 points)"),
                (["sweep-cdf", "--of", "ood", "--by", "routing.mode", "--where", "nic.ordering=gbn"],
                 "results-cdf-ood-by-routing.mode.svg", "spray (20 values, 2 points)")):
            p = subprocess.run(["/usr/bin/python3", plot, args[0], os.path.join(b, "results.csv")] + args[1:],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                               timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(want, text(os.path.join(b, svg)))
            self.assertTrue(os.path.getsize(os.path.join(b, svg[:-4] + ".png")) > 1000)

        # Resume: everything is done, nothing is submitted, the table is unchanged.
        p = self.sweep(self.spec, b, "--backend", "slurm")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("submitted", p.stderr)
        self.assertEqual(text(os.path.join(b, "results.csv")), ta)

    def test_cancelled_task_and_failing_run_recorded(self):
        slow = os.path.join(self.tmp, "slow-oonic")
        with open(slow, "w") as f:  # the otd 64 run first sleeps; everything else is oonic
            f.write("#!/bin/sh\ncase \"$*\" in *nic.otd=64*) sleep 60;; esac\nexec %s \"$@\"\n" % OONIC_BIN)
        os.chmod(slow, 0o755)
        spec = os.path.join(self.tmp, "bad.yaml")
        with open(spec, "w") as f:
            f.write("command: run\nconfigs: [%s]\nparams:\n  nic.otd: [0, 64]\nstats: [run.last_cqe_ns]\n"
                    "slurm: {poll_seconds: 0.5}\n" % CONFIG)
        out = os.path.join(self.tmp, "bad")
        # The otd 0 point fails in oonic's own check; the otd 64 point's task is cancelled.
        env = dict(self.env, OONIC_BIN=slow)
        proc = subprocess.Popen(["/usr/bin/python3", SWEEP, spec, "--out", out, "--backend", "slurm"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                env=env, cwd=self.tmp)
        job_file = os.path.join(out, "slurm", "job.json")
        deadline = time.time() + 60
        while not os.path.exists(job_file) and time.time() < deadline:
            time.sleep(0.2)
        self.assertTrue(os.path.exists(job_file), "no job submitted")
        batch = load(load(job_file)["batch"])
        task = [t for t, idx in enumerate(batch["chunks"])
                if batch["points"][idx[0]]["fields"]["params"]["nic.otd"] == "64"][0]
        job = load(job_file)["job"]
        while time.time() < deadline + 60:  # cancel it while it runs
            q = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i %T"], env=self.env,
                               stdout=subprocess.PIPE, universal_newlines=True)
            if "%s_%d RUNNING" % (job, task) in q.stdout:
                break
            time.sleep(0.2)
        subprocess.run(["scancel", "%s_%d" % (job, task)], env=self.env, check=True)
        so, se = proc.communicate(timeout=TIMEOUT)
        self.assertEqual(proc.returncode, 1, se)
        _, rows = read_table(os.path.join(out, "results.csv"))
        by = {r["nic.otd"]: r for r in rows}
        self.assertEqual(by["0"]["status"], "failed")
        self.assertIn("nic.otd", by["0"]["error"])
        self.assertEqual(by["64"]["status"], "failed")
        self.assertIn("CANCELLED", by["64"]["error"])
        self.assertIn("%s_%d" % (job, task), by["64"]["error"])

    def test_experiments_on_slurm_match_local(self):
        # The experiments run their points through oonic.batch (scripts/batch): the same
        # tables from a Slurm job array as from the local pool.
        exp = os.path.join(SOURCE_DIR, "scripts", "experiments")
        cases = [
            ("mprdma-permutation", ["--seeds", "1", "--bytes", "262144", "--systems", "mprdma,dcqcn"],
             ["table.md", "goodput.csv"]),
            ("melo-loss", ["--seeds", "1", "--bytes", "1048576", "--rates", "0.001,0.01",
                           "--schemes", "gbn,ornic"], ["table.md"]),
            ("bitmap-compare", ["--quick"], ["results.csv"]),
        ]
        for name, args, files in cases:
            outs = {}
            for backend in ("local", "slurm"):
                out = os.path.join(self.tmp, "exp-%s-%s" % (name, backend))
                extra = ["--backend", backend] + (["--slurm", "poll_seconds=0.5"] if backend == "slurm" else [])
                p = subprocess.run([os.path.join(exp, name), "--out", out] + args + extra,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                   timeout=TIMEOUT, env=self.env, cwd=self.tmp)
                self.assertEqual(p.returncode, 0, "%s %s\n%s" % (name, backend, p.stderr))
                outs[backend] = out
            self.assertTrue(os.path.isdir(os.path.join(outs["slurm"], "slurm", "logs"))
                            or os.path.isdir(os.path.join(outs["slurm"], "runs", "slurm", "logs")), name)
            for f in files:
                a = text(os.path.join(outs["local"], f))
                self.assertEqual(a, text(os.path.join(outs["slurm"], f)), "%s %s" % (name, f))
                self.assertTrue(a.strip())

    def test_spec_checks_for_run(self):
        cases = [
            ("command: run\ntraces: [traces/default.txt]\n", "'traces' belongs to command replay"),
            ("command: run\nconfigs: [%s]\nbase_config: x.yaml\n" % CONFIG, "base_config"),
            ("command: run\nconfigs: [%s]\nstats: [h3.nic.mac.frames_outt]\n" % CONFIG, "unknown stat"),
            ("command: run\nconfigs: [%s]\nstats: [fct.slowdown.p42]\n" % CONFIG, "unknown fct stat"),
            ("traces: [traces/default.txt]\nstats: [fct.flows]\n", "command run"),
            ("command: rerun\nconfigs: [%s]\n" % CONFIG, "expected one of replay, run"),
            ("command: run\nconfigs: [%s]\nslurm: {chunks: 2}\n" % CONFIG, "did you mean 'chunk'"),
            ("command: run\nconfigs: [%s]\nbackend: pbs\n" % CONFIG, "expected one of local, slurm"),
        ]
        for i, (text, want) in enumerate(cases):
            spec = os.path.join(self.tmp, "c%d.yaml" % i)
            with open(spec, "w") as f:
                f.write(text)
            p = self.sweep(spec, os.path.join(self.tmp, "c%d" % i), "--dry-run")
            self.assertEqual(p.returncode, 2, "%s\n%s" % (text, p.stderr))
            self.assertIn(want, p.stderr, text)
            self.assertIn(spec, p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
