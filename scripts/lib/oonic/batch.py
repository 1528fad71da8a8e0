"""Running oonic commands as points, on this machine or as a Slurm job array.

Shared by scripts/sweep and the experiments (scripts/experiments/*), so any of them
goes to Slurm unchanged. A point (points.BatchPoint) is one command (argv) writing
one directory (pdir); it is done when pdir/done.json exists with the point's
signature (written last, atomically: status ok or failed, the error, the command,
the backend). stdout.log and stderr.log sit beside it. Both backends record points
the same way, so what one started the other can finish, and a rerun skips done points.

  run_points(points, out, backend="local", jobs=N, slurm=None, name="...")
      runs the points not yet done; returns (stopped signal or None, Slurm job id or
      None). out/slurm/ holds the Slurm batch files, job.json and the task logs.

Its command line is scripts/batch (main): `scripts/batch --task BATCH.json I` is the
Slurm array task, running chunk I of a batch, one point after another. `scripts/batch
run --out DIR [--backend slurm] -- CMD...` runs one command as a point (the
experiments that are one process, bitmap-compare and eunomia-memory, go to Slurm
this way).

Slurm settings (the `slurm:` mapping of a sweep spec, or an experiment's
--slurm KEY=VALUE): partition, account, qos, time, mem, cpus_per_task (1), chunk
(points per array task, 1), max_running (array throttle), max_array_size (1000: the
array never has more tasks; chunks grow instead), sbatch_args, python
(/usr/bin/python3), oonic (the binary as the compute nodes see it), poll_seconds (2).
"""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from .paths import REPO
from .points import BatchPoint, read_done, record_done, run_error, write_inputs, write_json_atomic
from .quoting import quote, safe

# The command line of this module (main): what a Slurm array task runs.
COMMAND = os.path.join(REPO, "scripts", "batch")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
BACKENDS = ("local", "slurm")
SLURM_KEYS = ("partition", "account", "qos", "time", "mem", "cpus_per_task", "chunk", "max_running",
              "max_array_size", "sbatch_args", "python", "oonic", "poll_seconds")
SLURM_DEFAULTS = {"cpus_per_task": 1, "chunk": 1, "max_running": None, "max_array_size": 1000,
                  "sbatch_args": [], "python": "/usr/bin/python3", "oonic": None, "poll_seconds": 2}


class Progress:
    """The progress line on stderr (terminal only)."""

    def __init__(self, total, what="sweep"):
        self.total, self.what = total, what
        self.tty = sys.stderr.isatty()
        self.t0 = time.time()
        self._last_state, self._last_draw = None, 0.0

    def clear(self):
        if self.tty:
            sys.stderr.write("\r\033[K")

    def draw(self, ok, failed, running, extra=""):
        """Redraw when something changed, else twice a second."""
        if not self.tty:
            return
        done = ok + failed
        now = time.time()
        state = (done, running, extra)
        if state == self._last_state and now - self._last_draw < 0.5:
            return
        self._last_state, self._last_draw = state, now
        width = 30
        fill = int(width * done / self.total) if self.total else width
        el = int(now - self.t0)
        eta = ""
        if done and done < self.total:
            left = int((now - self.t0) / done * (self.total - done))
            eta = "  eta %d:%02d" % (left // 60, left % 60)
        sys.stderr.write("\r\033[K%s [%s%s] %d/%d  ok %d  failed %d  running %d  %d:%02d%s%s" % (
            self.what, "#" * fill, "." * (width - fill), done, self.total, ok, failed, running,
            el // 60, el % 60, eta, extra))
        sys.stderr.flush()


class Runner:
    """The local backend: N processes at a time on this machine."""

    def __init__(self, jobs, prog="oonic"):
        self.prog = prog
        self.jobs = jobs
        self.stop = None  # the signal that asked us to stop
        self.running = {}  # pid -> (point, Popen, start time, cmd, pdir, [files])
        self.ok = self.failed = 0
        self.progress = None

    def on_signal(self, signum, frame):
        self.stop = signum

    def start(self, point):
        pdir = point.pdir
        if os.path.isdir(pdir):  # leftovers of an interrupted run
            shutil.rmtree(pdir)
        os.makedirs(pdir)
        write_inputs(pdir, point.inputs)
        cmd = point.argv
        so = open(os.path.join(pdir, "stdout.log"), "w")
        se = open(os.path.join(pdir, "stderr.log"), "w")
        try:
            # own session: a terminal's Ctrl-C reaches only the sweep, which then
            # kills the children itself (and knows they were interrupted).
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                 start_new_session=True)
        except OSError as e:
            so.close()
            se.close()
            self.finish_record(point, pdir, cmd, None, "cannot run %s: %s" % (cmd[0], e.strerror), 0.0)
            return
        self.running[p.pid] = (point, p, time.time(), cmd, pdir, [so, se])

    def reap(self):
        done_any = False
        for pid in list(self.running):
            point, p, t0, cmd, pdir, files = self.running[pid]
            rc = p.poll()
            if rc is None:
                continue
            done_any = True
            del self.running[pid]
            for f in files:
                f.close()
            if self.stop is not None and rc != 0:
                continue  # killed by the interruption: no done.json, rerun next time
            self.finish_record(point, pdir, cmd, rc, run_error(rc, pdir, point.expect), time.time() - t0)
        return done_any

    def finish_record(self, point, pdir, cmd, rc, error, wall):
        status = record_done(pdir, point.fields, point.sig, cmd, rc, error, wall)
        if status == "ok":
            self.ok += 1
        else:
            self.failed += 1
            if self.progress:
                self.progress.clear()
            sys.stderr.write("%s: point %s failed: %s\n" % (self.prog, point.id, error))

    def kill_all(self):
        for pid, (point, p, *_rest) in list(self.running.items()):
            try:
                os.killpg(pid, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.time() + 3.0
        while self.running and time.time() < deadline:
            self.reap()
            time.sleep(0.01)
        for pid, (point, p, *_rest) in list(self.running.items()):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
        self.reap()

    def run(self, todo):
        self.progress = Progress(len(todo))
        pending = list(reversed(todo))
        old = {s: signal.signal(s, self.on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            while (pending or self.running) and self.stop is None:
                while pending and len(self.running) < self.jobs and self.stop is None:
                    self.start(pending.pop())
                if not self.reap():
                    self.progress.draw(self.ok, self.failed, len(self.running))
                    time.sleep(0.01)
            if self.stop is not None:
                self.kill_all()
        finally:
            self.progress.clear()
            for s, h in old.items():
                signal.signal(s, h)
        return self.stop


# ---------------------------------------------------------------------------
# Slurm
# ---------------------------------------------------------------------------

class SlurmError(Exception):
    pass


def slurm_cmd(args, check=True):
    """Run a Slurm client command; SlurmError with its message if it fails."""
    try:
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                           timeout=120)
    except OSError as e:
        raise SlurmError("cannot run %s: %s (Debian: slurm-client; scripts/install-deps)" % (args[0], e.strerror))
    except subprocess.TimeoutExpired:
        raise SlurmError("%s did not answer in 120 s" % " ".join(args[:2]))
    if check and r.returncode != 0:
        raise SlurmError("%s failed (exit %d): %s" % (" ".join(args[:2]), r.returncode,
                                                     (r.stderr or r.stdout).strip()))
    return r


def job_active(job):
    """Array tasks of `job` squeue still lists: {task index or None: state}; {} when the
    job is gone (squeue: an invalid job id); None when squeue could not say (a busy or
    unreachable controller: ask again)."""
    try:
        r = slurm_cmd(["squeue", "-h", "-r", "-j", str(job), "-o", "%i %T"], check=False)
    except SlurmError:
        return None
    if r.returncode != 0:
        return {} if "invalid job id" in (r.stderr + r.stdout).lower() else None
    tasks = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) != 2:
            continue
        jid, state = parts
        idx = jid.split("_", 1)[1] if "_" in jid else None
        tasks[idx] = state
    return tasks


def task_states(job):
    """{array task index: (state, exit code)} of a finished job: sacct, else scontrol."""
    states = {}
    r = slurm_cmd(["sacct", "-n", "-P", "-X", "-j", str(job), "-o", "JobID,State,ExitCode"], check=False)
    if r.returncode == 0 and r.stdout.strip():
        for line in r.stdout.splitlines():
            f = line.split("|")
            if len(f) >= 3 and "_" in f[0]:
                states[f[0].split("_", 1)[1]] = (f[1].split()[0], f[2])
        if states:
            return states, "sacct"
    r = slurm_cmd(["scontrol", "-o", "show", "job", str(job)], check=False)
    for line in r.stdout.splitlines():
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        ids = fields.get("ArrayTaskId", "").split("%")[0]
        for part in ids.split(","):  # tasks never started are listed as one range, e.g. 3-7
            lo, _, hi = part.partition("-")
            if lo.isdigit() and (not hi or hi.isdigit()):
                for t in range(int(lo), int(hi or lo) + 1):
                    states[str(t)] = (fields.get("JobState", "?"), fields.get("ExitCode", "?"))
    return states, "scontrol"


class SlurmBackend:
    """The slurm backend: one job array over the points still to run."""

    def __init__(self, out, cfg, name, prog="oonic"):
        self.sdir = os.path.join(out, "slurm")
        self.cfg = dict(SLURM_DEFAULTS, **(cfg or {}))
        self.name = name  # the job name's tail
        self.prog = prog
        self.stop = None

    def on_signal(self, signum, frame):
        self.stop = signum

    def job_file(self):
        return os.path.join(self.sdir, "job.json")

    def recorded_job(self):
        try:
            with open(self.job_file()) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def submit(self, todo):
        os.makedirs(os.path.join(self.sdir, "logs"), exist_ok=True)
        n = 1 + max([int(m.group(1)) for m in (re.match(r"batch-(\d+)\.json$", f) for f in os.listdir(self.sdir))
                     if m] or [0])
        batch = os.path.join(self.sdir, "batch-%d.json" % n)
        # Slurm refuses arrays longer than its MaxArraySize (1001 by default): larger chunks.
        chunk = max(self.cfg["chunk"], -(-len(todo) // self.cfg["max_array_size"]))
        recs = []
        for p in todo:
            argv = list(p.argv)
            if self.cfg.get("oonic") and os.path.basename(argv[0]) == "oonic":
                argv[0] = self.cfg["oonic"]  # the binary as the compute nodes see it
            recs.append({"fields": p.fields, "pdir": os.path.abspath(p.pdir), "command": argv,
                         "signature": p.sig, "expect": p.expect, "inputs": p.inputs})
        chunks = [list(range(i, min(i + chunk, len(recs)))) for i in range(0, len(recs), chunk)]
        write_json_atomic(batch, {"points": recs, "chunks": chunks})
        script = os.path.join(self.sdir, "task-%d.sh" % n)
        with open(script, "w") as f:
            f.write("#!/bin/sh\n# One array task of scripts/sweep: runs chunk $SLURM_ARRAY_TASK_ID of %s\n"
                    "exec %s %s --task %s \"$SLURM_ARRAY_TASK_ID\"\n" % (
                        batch, quote(self.cfg["python"]), quote(COMMAND), quote(batch)))
        os.chmod(script, 0o755)
        array = "0-%d" % (len(chunks) - 1)
        if self.cfg["max_running"]:
            array += "%%%d" % self.cfg["max_running"]
        args = ["sbatch", "--parsable", "--array=" + array, "--job-name=oonic-" + safe(self.name),
                "--output=" + os.path.join(os.path.abspath(self.sdir), "logs", "%A_%a.out"),
                "--cpus-per-task=%d" % self.cfg["cpus_per_task"], "--chdir=" + os.getcwd()]
        for k, flag in (("partition", "--partition"), ("account", "--account"), ("qos", "--qos"),
                        ("time", "--time"), ("mem", "--mem")):
            if self.cfg.get(k):
                args.append("%s=%s" % (flag, self.cfg[k]))
        args += self.cfg["sbatch_args"] + [script]
        r = slurm_cmd(args)
        job = r.stdout.strip().split(";")[0]
        if not re.match(r"^\d+$", job):
            raise SlurmError("sbatch printed no job id: %r" % r.stdout.strip())
        write_json_atomic(self.job_file(), {"job": job, "batch": batch, "tasks": len(chunks),
                                            "points": len(recs), "command": args,
                                            "submitted": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
        sys.stderr.write("%s: submitted Slurm job %s: %d array task(s), %d point(s); logs in %s\n" % (
            self.prog, job, len(chunks), len(recs), os.path.join(self.sdir, "logs")))
        return job, batch

    def wait(self, job, batch):
        """Poll squeue until the job is gone; then record the points no task recorded."""
        with open(batch) as f:
            recs = json.load(f)["points"]
        progress = Progress(len(recs), "slurm %s" % job)
        poll = float(self.cfg["poll_seconds"])
        next_poll = 0.0
        tasks, unanswered = {}, 0
        while True:
            if self.stop is not None:
                progress.clear()
                sys.stderr.write("%s: cancelling Slurm job %s\n" % (self.prog, job))
                slurm_cmd(["scancel", str(job)], check=False)
                deadline = time.time() + 30
                while job_active(job) != {} and time.time() < deadline:
                    time.sleep(0.5)
                return
            now = time.time()
            if now >= next_poll:
                got = job_active(job)
                next_poll = now + poll
                if got is None:  # squeue failed: keep the last answer, ask again
                    unanswered += 1
                    if unanswered * poll > 600:
                        raise SlurmError("squeue has not answered for job %s in 10 min; the job may "
                                         "still run: rerun the same command to wait for it" % job)
                else:
                    unanswered, tasks = 0, got
                    if not tasks:
                        break
            ok = failed = 0
            for r in recs:
                d = read_done(r["pdir"])
                if d is not None and d.get("signature") == r["signature"]:
                    ok += d.get("status") == "ok"
                    failed += d.get("status") != "ok"
            running = sum(1 for s in tasks.values() if s in ("RUNNING", "COMPLETING"))
            progress.draw(ok, failed, running, "  queued %d" % sum(1 for s in tasks.values() if s == "PENDING"))
            time.sleep(0.2)
        progress.clear()
        for r in recs:
            d = read_done(r["pdir"])
            if d is not None and d.get("signature") == r["signature"] and d.get("status") != "ok":
                sys.stderr.write("%s: point %s failed: %s\n" % (self.prog, r["fields"]["point"], d.get("error", "")))
        missing = [r for r in recs if not (read_done(r["pdir"]) or {}).get("signature") == r["signature"]]
        if missing:  # a shared filesystem may show a task's last files late: look again
            time.sleep(min(5.0, 2 * poll))
            missing = [r for r in missing
                       if not (read_done(r["pdir"]) or {}).get("signature") == r["signature"]]
        if missing:
            with open(batch) as f:
                ntasks = len(json.load(f)["chunks"])
            for _ in range(5):  # the controller may take a moment to report the last tasks
                states, how = task_states(job)
                if len(states) >= ntasks:
                    break
                time.sleep(1)
            with open(batch) as f:
                chunks = json.load(f)["chunks"]
            task_of = {i: t for t, idx in enumerate(chunks) for i in idx}
            for i, r in enumerate(recs):
                if r not in missing:
                    continue
                t = str(task_of.get(i, "?"))
                state, code = states.get(t, ("unknown", "?"))
                log = os.path.join(self.sdir, "logs", "%s_%s.out" % (job, t))
                err = "slurm task %s_%s ended %s (exit %s, from %s) without recording this point; log %s" % (
                    job, t, state, code, how, log)
                os.makedirs(r["pdir"], exist_ok=True)
                if not record_done(r["pdir"], r["fields"], r["signature"], r["command"], None, err, 0.0,
                                   "slurm", keep_existing=True):
                    continue  # the task's own record arrived meanwhile
                sys.stderr.write("%s: point %s failed: %s\n" % (self.prog, r["fields"]["point"], err))

    def run(self, points, no_wait=False):
        old = {s: signal.signal(s, self.on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            rec = self.recorded_job()
            if rec and job_active(rec["job"]):
                sys.stderr.write("%s: Slurm job %s of this sweep is still queued or running: %s\n" % (
                    self.prog, rec["job"], "leaving it" if no_wait else "waiting for it"))
                if no_wait:
                    return None, rec["job"]
                self.wait(rec["job"], rec["batch"])
                if self.stop is not None:
                    return self.stop, rec["job"]
            todo = [p for p in points if not p.done()]
            if not todo:
                return None, rec["job"] if rec else None
            job, batch = self.submit(todo)
            if no_wait:
                return None, job
            self.wait(job, batch)
            return self.stop, job
        finally:
            for s, h in old.items():
                signal.signal(s, h)


def run_task(batch_path, index):
    """One Slurm array task: run the points of chunk `index` of the batch, one after
    another, each recorded as the local backend records it."""
    try:
        with open(batch_path) as f:
            batch = json.load(f)
        chunk = batch["chunks"][int(index)]
    except (OSError, ValueError, KeyError, IndexError) as e:
        sys.stderr.write("scripts/batch --task: cannot read chunk %s of %s: %s\n" % (index, batch_path, e))
        return EXIT_USAGE
    current = {"proc": None}

    def on_term(signum, frame):  # scancel, time limit: kill the run, record nothing
        p = current["proc"]
        if p is not None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except OSError:
                pass
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    failed = 0
    for i in chunk:
        r = batch["points"][i]
        pdir = r["pdir"]
        sig = r["signature"]
        d = read_done(pdir)
        if d is not None and d.get("signature") == sig:
            continue
        if os.path.isdir(pdir):
            shutil.rmtree(pdir)
        os.makedirs(pdir)
        write_inputs(pdir, r.get("inputs"))
        t0 = time.time()
        with open(os.path.join(pdir, "stdout.log"), "w") as so, open(os.path.join(pdir, "stderr.log"), "w") as se:
            try:
                current["proc"] = subprocess.Popen(r["command"], stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                                   start_new_session=True)
                rc = current["proc"].wait()
                if rc is not None and -rc in (signal.SIGTERM, signal.SIGKILL, signal.SIGINT):
                    # Slurm signals every process of a cancelled or timed-out task: the run
                    # was interrupted, not failed. Record nothing; the poller says why.
                    sys.exit(128 + (-rc))
                error = run_error(rc, pdir, r.get("expect", "stats.json"))
            except OSError as e:
                rc, error = None, "cannot run %s: %s" % (r["command"][0], e.strerror)
            current["proc"] = None
        status = record_done(pdir, r["fields"], sig, r["command"], rc, error, time.time() - t0, "slurm")
        failed += status != "ok"
        print("%s %s%s" % (status, r["fields"]["point"], (": " + error) if error else ""), flush=True)
    return EXIT_FAILED if failed else EXIT_OK


def parse_slurm_sets(sets):
    """--slurm KEY=VALUE options (an experiment's) -> a settings mapping; ValueError names the key."""
    cfg = {}
    for kv in sets or []:
        if "=" not in kv:
            raise ValueError("--slurm %s: expected KEY=VALUE (keys: %s)" % (kv, ", ".join(SLURM_KEYS)))
        k, v = kv.split("=", 1)
        if k not in SLURM_KEYS:
            raise ValueError("--slurm %s: unknown key '%s' (keys: %s)" % (kv, k, ", ".join(SLURM_KEYS)))
        if k in ("cpus_per_task", "chunk", "max_running", "max_array_size"):
            if not v.isdigit() or int(v) < 1:
                raise ValueError("--slurm %s: expected a positive integer" % kv)
            v = int(v)
        elif k == "poll_seconds":
            try:
                v = float(v)
            except ValueError:
                raise ValueError("--slurm %s: expected seconds" % kv)
            if v <= 0:
                raise ValueError("--slurm %s: expected positive seconds" % kv)
        elif k == "sbatch_args":
            v = v.split()
        cfg[k] = v
    return cfg


def run_points(points, out, backend="local", jobs=None, slurm=None, name="batch", prog="oonic",
               no_wait=False):
    """Runs the points not yet done. Returns (the signal that stopped it or None, the Slurm
    job id or None). Raises SlurmError when Slurm cannot be used."""
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    if backend == "local":
        try:
            with open(os.path.join(out, "slurm", "job.json")) as f:
                job = json.load(f)["job"]
        except (OSError, ValueError, KeyError):
            job = None
        if job and job_active(job):  # its tasks write these points' directories
            raise SlurmError("Slurm job %s of these points is still queued or running; wait for it "
                             "(--backend slurm) or scancel it first" % job)
        todo = [p for p in points if not p.done()]
        return Runner(jobs or os.cpu_count() or 1, prog).run(todo), None
    if backend != "slurm":
        raise ValueError("backend must be one of %s" % ", ".join(BACKENDS))
    return SlurmBackend(out, slurm, name, prog).run(points, no_wait)


def run_experiment_points(points, runs_dir, args, slurm, prog):
    """run_points for a script under scripts/experiments/ (args: its --backend and -j):
    the script's exit status when it cannot go on (1: Slurm unusable, 130: interrupted),
    with the reason on stderr; None when every point ran."""
    try:
        stopped, _ = run_points(points, runs_dir, args.backend, max(1, args.jobs), slurm,
                                name=prog, prog=prog)
    except SlurmError as e:
        sys.stderr.write("%s: error: slurm backend: %s\n" % (prog, e))
        return 1
    if stopped is not None:
        sys.stderr.write("%s: interrupted\n" % prog)
        return 130
    return None


def load_fabric_run(point):
    """(its stats.json document, its fct.csv rows) of a finished fabric run, or (None, why
    it has none)."""
    fct = os.path.join(point.pdir, "fct.csv")
    if point.status() != "ok" or not os.path.isfile(fct):
        return None, point.error() or "did not finish"
    with open(os.path.join(point.pdir, "stats.json")) as f:
        doc = json.load(f)
    with open(fct, newline="") as f:
        rows = list(csv.DictReader(f))
    return (doc, rows), None


def add_backend_args(ap):
    """--backend, --slurm KEY=VALUE for an experiment script."""
    ap.add_argument("--backend", choices=BACKENDS, default="local",
                    help="where the runs go: local (a process pool here, default) or slurm (a job array "
                         "through sbatch; SLURM_CONF picks the cluster; scripts/sweep --help, SLURM)")
    ap.add_argument("--slurm", action="append", metavar="KEY=VALUE",
                    help="a Slurm setting (repeatable): partition, account, qos, time, mem, chunk, "
                         "max_running, sbatch_args, python, oonic, poll_seconds")


def run_one(argv):
    """`scripts/batch run --out DIR [--backend B] [--slurm K=V]... [--expect FILE] -- CMD...`:
    one command as a point (for the single-process experiments' shell scripts). Its
    stdout and stderr are passed on at the end; the exit status is the command's (1 when
    it never finished, e.g. a Slurm task killed)."""
    import argparse
    ap = argparse.ArgumentParser(prog="scripts/batch run", description=run_one.__doc__)
    ap.add_argument("--out", required=True, help="the point's directory (done.json, stdout.log, stderr.log)")
    ap.add_argument("--name", default="run", help="the Slurm job name's tail")
    ap.add_argument("--expect", default="", help="a JSON file the command leaves in --out")
    add_backend_args(ap)
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command")
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command after --")
    try:
        slurm = parse_slurm_sets(a.slurm)
    except ValueError as e:
        ap.error(str(e))
    out = os.path.abspath(a.out)
    point = BatchPoint(a.name, cmd, out, sig={"argv": cmd}, expect=a.expect)
    if os.path.isdir(out):  # a fresh run each time, as the scripts' own runs were
        shutil.rmtree(out)
    try:
        stopped, _ = run_points([point], os.path.dirname(out) or ".", a.backend, 1, slurm, name=a.name,
                                prog=a.name)
    except SlurmError as e:
        sys.stderr.write("%s: error: slurm backend: %s\n" % (a.name, e))
        return EXIT_FAILED
    if stopped is not None:
        return 130
    for name, stream in (("stdout.log", sys.stdout), ("stderr.log", sys.stderr)):
        try:
            with open(os.path.join(out, name)) as f:
                stream.write(f.read())
        except OSError:
            pass
    d = read_done(out) or {}
    rc = d.get("returncode")
    if rc is None:
        sys.stderr.write("%s: %s\n" % (a.name, d.get("error", "did not run")))
        return EXIT_FAILED
    return rc if rc >= 0 else EXIT_FAILED


USAGE = ("usage: scripts/batch --task BATCH.json INDEX (a Slurm array task)\n"
         "       scripts/batch run --out DIR [--backend local|slurm] [--slurm KEY=VALUE] -- CMD...\n")


def main(argv):
    """scripts/batch: a Slurm array task (--task) or one command as a point (run)."""
    if len(argv) == 3 and argv[0] == "--task":
        return run_task(argv[1], argv[2])
    if len(argv) >= 1 and argv[0] == "run":
        return run_one(argv[1:])
    if argv in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return EXIT_OK
    sys.stderr.write(USAGE)
    return EXIT_USAGE
