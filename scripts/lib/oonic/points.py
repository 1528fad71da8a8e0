"""Points: the two kinds the scripts run.

BatchPoint: one command (argv, the whole command line) writing one directory (pdir).
It is done when pdir/done.json exists with the point's signature (written last,
atomically, by record_done: status ok or failed, the error, the command, the
backend); stdout.log and stderr.log sit beside it. batch.run_points runs them, here
or on Slurm; scripts/sweep and the experiments make them.

SweepPoint: one point of a sweep (scripts/sweep): one input (trace or config) x one
seed x one combination of parameter values, named by sweep_point_id(). The sweep
turns each into a BatchPoint (its oonic command).
"""

import hashlib
import json
import os
import time

from .quoting import safe


class BatchPoint:
    """One command: argv (the whole command line), pdir (its results directory),
    fields (recorded in done.json), sig (what must match for the point to count as
    done; default: argv without the binary)."""

    def __init__(self, id, argv, pdir, fields=None, sig=None, expect="stats.json", inputs=None):
        self.id = id
        pdir = os.path.abspath(pdir)
        self.inputs = dict(inputs or {})  # file name in pdir -> text, written before the run
        self.expect = expect  # the JSON file a successful run leaves in pdir ("" for none)
        self.argv = list(argv)
        self.pdir = pdir
        self.fields = dict(fields or {}, point=id)
        self.sig = sig if sig is not None else {"argv": self.argv[1:]}

    def done(self):
        d = read_done(self.pdir)
        return d is not None and d.get("signature") == self.sig

    def status(self):
        """ok, failed or pending."""
        d = read_done(self.pdir)
        if d is None or d.get("signature") != self.sig:
            return "pending"
        return d.get("status", "failed")

    def error(self):
        return (read_done(self.pdir) or {}).get("error", "")


def read_done(pdir):
    try:
        with open(os.path.join(pdir, "done.json")) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else None
    except (OSError, ValueError):
        return None


def write_json_atomic(path, obj):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def write_inputs(pdir, inputs):
    """A point's input files (flow lists, fault files), written into its fresh directory."""
    for name, text in (inputs or {}).items():
        with open(os.path.join(pdir, name), "w") as f:
            f.write(text)


def run_error(rc, pdir, expect="stats.json"):
    """'' for a run that finished and left a readable JSON file `expect` (none: not
    checked), else why not."""
    if rc != 0:
        error = last_line(os.path.join(pdir, "stderr.log"))
        how = ("exit status %d" % rc) if rc > 0 else ("killed by signal %d" % -rc)
        error = error or how
        if rc < 0:
            error = "%s (%s)" % (error, how) if error != how else error
        return error
    if not expect:
        return ""
    try:
        with open(os.path.join(pdir, expect)) as f:
            json.load(f)
    except (OSError, ValueError) as e:
        return "exit status 0 but no readable %s (%s)" % (expect, e)
    return ""


def record_done(pdir, fields, sig, cmd, rc, error, wall, where="local", keep_existing=False):
    """done.json, written last and atomically; the same from every backend. keep_existing:
    never replace one already there (returns None then)."""
    rec = dict(fields)
    rec.update({"status": "ok" if not error else "failed", "error": error, "returncode": rc,
                "signature": sig, "command": cmd, "wall_seconds": round(wall, 3), "backend": where,
                "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    path = os.path.join(pdir, "done.json")
    if not keep_existing:
        write_json_atomic(path, rec)
        return rec["status"]
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(rec, f, indent=2, sort_keys=True)
        f.write("\n")
    try:
        os.link(tmp, path)  # fails if the file exists: no clobbering
    except FileExistsError:
        return None
    finally:
        os.unlink(tmp)
    return rec["status"]


class SweepPoint:
    """One point of a sweep: an input, a seed and the parameters' values."""

    def __init__(self, trace, trace_path, seed, params, order):
        self.trace = trace            # as written in the spec
        self.trace_path = trace_path  # resolved
        self.seed = seed
        self.params = params          # {key: value text}
        self.order = order            # sort key
        self.id = sweep_point_id(trace, seed, params)


def sweep_point_id(trace, seed, params):
    """<input stem>-s<seed>-<short parameter summary>-<hash> (scripts/sweep --help, POINTS)."""
    ident = json.dumps([trace, seed, sorted(params.items())], separators=(",", ":"))
    digest = hashlib.sha1(ident.encode()).hexdigest()[:10]
    stem = os.path.splitext(os.path.basename(trace))[0] or "trace"
    summary = "-".join("%s%s" % (k.rsplit(".", 1)[-1], v) for k, v in sorted(params.items()))
    summary = safe(summary)[:80]
    return "-".join(x for x in (safe(stem)[:40], "s%d" % seed, summary, digest) if x)
