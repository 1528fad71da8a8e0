"""Results of oonic runs, shared by scripts/sweep and scripts/plot (standard library only).

- run_listings(), parse_params_listing(), parse_stats_listing(): `oonic params` /
  `oonic stats` output and as dicts
- lookup_stat(doc, path): a dotted path into a stats.json document
- stat_unit(doc, path): the unit of that path, where one can be told
- format_value(v): a value as written to --set and to results.csv
- load_json(path)
- sum_stat(stats, suffix): the values of every counter whose name ends with suffix, summed
  (stats: a stats.json document's "stats")
"""

import difflib
import json
import subprocess

# Top-level sections of stats.json; a stat path starting with anything else is the
# short form of stats.<name>.value.
SECTIONS = ("run", "stats", "sram", "integrity", "scoreboard", "setup", "trace_issues")


def sum_stat(stats, suffix):
    return sum(v["value"] for k, v in stats.items()
               if k.endswith(suffix) and isinstance(v, dict) and "value" in v)


class LookupFailed(Exception):
    """A stat path that does not resolve in one stats.json."""


def run_listings(binary, commands):
    """{command: stdout or None} for several listings, run at once."""
    procs = {}
    for c in commands:
        try:
            procs[c] = subprocess.Popen([binary, c], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        universal_newlines=True)
        except OSError:
            procs[c] = None
    out = {}
    for c, p in procs.items():
        if p is None:
            out[c] = None
            continue
        try:
            so, _ = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            so = None
        out[c] = so if p.returncode == 0 else None
    return out


def parse_params_listing(text):
    """`oonic params` -> {key: {"default": str, "unit": str, "range": str, "desc": str}}.

    Line format: `key = default [unit] range R`, then an indented description line."""
    params = {}
    last = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[:1].isspace():
            if last is not None:
                params[last]["desc"] = (params[last]["desc"] + " " + line.strip()).strip()
            continue
        if " = " not in line:
            continue
        key, rest = line.split(" = ", 1)
        key = key.strip()
        unit = rng = ""
        default = rest
        if " [" in rest:
            default, tail = rest.split(" [", 1)
            if "]" in tail:
                unit, tail = tail.split("]", 1)
                tail = tail.strip()
                if tail.startswith("range "):
                    rng = tail[len("range "):].strip()
        params[key] = {"default": default.strip(), "unit": unit.strip(), "range": rng, "desc": ""}
        last = key
    return params


def parse_stats_listing(text):
    """`oonic stats` -> {name: {"unit": str, "kind": str, "desc": str}}.

    Line format: `name [unit, kind] description`."""
    stats = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or " [" not in line:
            continue
        name, rest = line.split(" [", 1)
        if "]" not in rest:
            continue
        inside, desc = rest.split("]", 1)
        unit, _, kind = inside.partition(",")
        stats[name.strip()] = {"unit": unit.strip(), "kind": kind.strip(), "desc": desc.strip()}
    return stats


def _walk(obj, parts):
    """Resolve parts in nested dicts whose keys may themselves contain dots
    ("nic0.rx.req_processor.accepted", "bitmap.block_pool"): the longest key that
    matches wins, shorter ones are tried if the rest does not resolve."""
    if not parts:
        return obj
    if isinstance(obj, list):
        try:
            i = int(parts[0])
        except ValueError:
            raise LookupFailed(parts[0])
        if not -len(obj) <= i < len(obj):
            raise LookupFailed(parts[0])
        return _walk(obj[i], parts[1:])
    if not isinstance(obj, dict):
        raise LookupFailed(parts[0])
    for n in range(len(parts), 0, -1):
        key = ".".join(parts[:n])
        if key in obj:
            try:
                return _walk(obj[key], parts[n:])
            except LookupFailed:
                continue
    raise LookupFailed(parts[0])


def canonical_path(path):
    """The long form of a stat path: short names become stats.<name>."""
    head = path.split(".", 1)[0]
    return path if head in SECTIONS else "stats." + path


def lookup_stat(doc, path):
    """Value at a dotted path of a stats.json document.

    "run.end_cycle", "sram.bitmap.block_pool.peak_bits", "integrity.ok",
    "stats.nic0.rx.req_processor.accepted.value" are taken as written; a path not
    starting with a section name is a stat name: "nic0.rx.req_processor.accepted"
    is stats.<that>.value, "nic0.sram.rx.req_pkt_buffer.used_bits.peak" a field of it.
    A path that ends on a stat (a dict with "value") gives its value.
    Raises LookupFailed with a hint when the path does not resolve or ends on a
    dict without a value (a gauge or histogram: name a field)."""
    full = canonical_path(path)
    try:
        v = _walk(doc, full.split("."))
    except LookupFailed:
        raise LookupFailed("'%s' not found%s" % (path, _hint(doc, full)))
    if isinstance(v, dict):
        if "value" in v:
            return v["value"]
        fields = sorted(k for k in v if k not in ("desc", "unit"))
        raise LookupFailed("'%s' has no single value; name a field: %s" % (
            path, ", ".join(path + "." + f for f in fields[:8])))
    return v


def _hint(doc, full):
    names = []
    for sec in SECTIONS:
        part = doc.get(sec)
        if isinstance(part, dict):
            for k, v in part.items():
                names.append(sec + "." + k)
                if isinstance(v, dict):
                    names.extend(sec + "." + k + "." + f for f in v if f not in ("desc",))
    close = difflib.get_close_matches(full, names, n=3, cutoff=0.6)
    return " (did you mean %s?)" % ", ".join(close) if close else ""


def stat_unit(doc, path):
    """Unit of a stat path where stats.json or the key's name tells it, else ''."""
    full = canonical_path(path)
    parts = full.split(".")
    if parts[0] == "stats":
        stats = doc.get("stats", {})
        for n in range(len(parts), 1, -1):
            name = ".".join(parts[1:n])
            if name in stats and isinstance(stats[name], dict):
                rest = parts[n:]
                if rest and rest[0] in ("count",):
                    return "samples"
                return stats[name].get("unit", "")
        return ""
    last = parts[-1]
    if parts[0] == "sram":
        if last.endswith("_bits"):
            return "bit"
        if last == "stall_cycles":
            return "cycle"
        if last in ("reads", "writes"):
            return "access"
        return ""
    if parts[0] == "integrity":
        return {"ok": "bool", "bytes": "byte", "ranges": "range"}.get(last, "")
    for suffix, unit in (("_cycle", "cycle"), ("_cycles", "cycle"), ("_mhz", "MHz"),
                         ("_frames", "frame"), ("_bytes", "byte"), ("_bits", "bit")):
        if last.endswith(suffix):
            return unit
    return {"records": "record", "seed": ""}.get(last, "")


def format_value(v, integral_floats=False):
    """A parameter or stat value as text: YAML/oonic spelling for bools, shortest
    round-trip for floats (integral_floats: 65536.0 -> 65536, for stats.json's
    derived stats, which are doubles even when they count), JSON for lists and
    dicts, '' for None."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if integral_floats and v.is_integer() and abs(v) < 2 ** 53:
            return str(int(v))
        return repr(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"), sort_keys=True)
    return str(v)


def load_json(path):
    with open(path) as f:
        return json.load(f)
