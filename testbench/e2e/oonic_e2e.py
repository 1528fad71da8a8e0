"""Shared helpers of the end-to-end tests (testbench/e2e/test_*.py).

Standard library only at import time; scapy (Debian python3-scapy) is imported
lazily by the functions that need it, tshark is run as a program.

Environment (set by CTest, see testbench/CMakeLists.txt):
  OONIC_BIN         the oonic binary (default: <source>/build-e2e/oonic)
  OONIC_SOURCE_DIR  the repository root (default: two levels above this file)
"""

import csv
import glob
import json
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
TRACES_DIR = os.path.join(SOURCE_DIR, "traces")
CAPTURES_DIR = os.path.join(TRACES_DIR, "captures")
FIXTURES_DIR = os.path.join(HERE, "fixtures")

# Every oonic / tshark run is bounded: a hang is a failure, not a stuck CTest.
TIMEOUT = 60

# Things a crashed process leaves on stderr (glibc, the C++ runtime, sanitizers).
CRASH_MARKERS = ("Segmentation", "Aborted", "terminate called", "core dumped",
                 "AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
                 "free(): ", "double free", "stack smashing")


def oonic_bin():
    b = os.environ.get("OONIC_BIN")
    if b:
        return b
    return os.path.join(SOURCE_DIR, "build-e2e", "oonic")


def trace_path(name):
    return os.path.join(TRACES_DIR, name)


def capture_path(name):
    return os.path.join(CAPTURES_DIR, name)


def all_captures():
    """Every real capture bundled in traces/captures (pcap and pcapng); never empty."""
    files = glob.glob(os.path.join(CAPTURES_DIR, "*.pcap")) + glob.glob(
        os.path.join(CAPTURES_DIR, "*.pcapng"))
    if not files:
        raise AssertionError("no captures in %s" % CAPTURES_DIR)
    return sorted(files)


# ---------------------------------------------------------------------------
# Running the CLI
# ---------------------------------------------------------------------------

class Run:
    """One finished oonic invocation and (for replay) its results directory."""

    def __init__(self, args, rc, stdout, stderr, out=None, timed_out=False):
        self.args = args
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.out = out
        self.timed_out = timed_out
        self._stats = None

    def describe(self):
        return "command: %s\nexit status: %s%s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(self.args), self.rc, " (timed out)" if self.timed_out else "",
            self.stdout[-4000:], self.stderr[-4000:])

    def path(self, name):
        return os.path.join(self.out, name)

    # results
    @property
    def stats_json(self):
        if self._stats is None:
            self._stats = load_json(self.path("stats.json"))
        return self._stats

    def stat(self, name):
        """The value of a counter/derived stat (the entry itself for gauges/histograms)."""
        entry = self.stats_json["stats"][name]
        return entry["value"] if "value" in entry else entry

    def drops(self, reason):
        return self.stat("nic0.rx.drops." + reason)

    def packets(self):
        return load_csv(self.path("packets.csv"))

    def tx(self):
        return load_csv(self.path("tx.csv"))

    def sram_rows(self):
        return load_csv(self.path("sram.csv"))

    def tx_frames(self):
        return read_pcap_frames(self.path("tx.pcap"))


def run_oonic(args, timeout=TIMEOUT, cwd=None, out=None):
    """Run `oonic ARGS`; never raises on a non-zero status, hang -> rc None."""
    cmd = [oonic_bin()] + [str(a) for a in args]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           cwd=cwd, universal_newlines=True, errors="replace")
        return Run(cmd, p.returncode, p.stdout, p.stderr, out)
    except subprocess.TimeoutExpired as e:
        so = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        se = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return Run(cmd, None, so, se, out, timed_out=True)


def replay(trace, out, *extra, timeout=TIMEOUT, cwd=None):
    return run_oonic(["replay", trace, "--out", out] + list(extra), timeout=timeout, cwd=cwd,
                     out=out)


class OonicTestCase(unittest.TestCase):
    """unittest.TestCase with temp dirs and checked oonic runs."""

    maxDiff = 4000

    def mkdtemp(self):
        d = tempfile.mkdtemp(prefix="oonic-e2e-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def assertNoCrash(self, run):
        """Exit status 0 or 2, not killed by a signal, no crash text, no hang."""
        self.assertFalse(run.timed_out, "hang (no exit within %ds)\n%s" % (TIMEOUT, run.describe()))
        self.assertGreaterEqual(run.rc, 0, "killed by signal %s\n%s" % (
            _signame(-run.rc), run.describe()))
        self.assertIn(run.rc, (0, 2), run.describe())
        for m in CRASH_MARKERS:
            self.assertNotIn(m, run.stderr, run.describe())

    def assertOk(self, run):
        self.assertNoCrash(run)
        self.assertEqual(run.rc, 0, run.describe())
        self.assertEqual(run.stderr.count("oonic: error"), 0, run.describe())

    def assertError(self, run, *needles):
        """Exit status 2 with one `oonic: error: ...` line holding every needle."""
        self.assertNoCrash(run)
        self.assertEqual(run.rc, 2, run.describe())
        self.assertIn("oonic: error: ", run.stderr, run.describe())
        for n in needles:
            self.assertIn(n, run.stderr, run.describe())

    def assertSprayedIntact(self, run, flows, spines=("spine0", "spine1", "spine2", "spine3"),
                            min_frames=500):
        """A fabric run's flows all complete intact, tor0 sent each spine at least
        min_frames frames (one QP's packets spread over every path), and some packets
        arrived out of order at their QP."""
        self.assertTrue(run.stats_json["scoreboard"]["ok"])
        fct = load_csv(run.path("fct.csv"))
        self.assertEqual(len(fct), flows)
        self.assertTrue(all(f["completed"] == "1" for f in fct))
        links = {(l["from"], l["to"]): int(l["frames"]) for l in load_csv(run.path("links.csv"))}
        for sp in spines:
            self.assertGreater(links[("tor0", sp)], min_frames, sp)
        qps = load_csv(run.path("qps.csv"))
        self.assertGreater(sum(int(q["ooo_packets"]) for q in qps), 0)

    def replay_ok(self, trace, *extra, out=None, cwd=None):
        out = out or os.path.join(self.mkdtemp(), "results")
        r = replay(trace, out, *extra, cwd=cwd)
        self.assertOk(r)
        return r


def _signame(n):
    try:
        return signal.Signals(n).name
    except (ValueError, TypeError):
        return str(n)


# ---------------------------------------------------------------------------
# Results files
# ---------------------------------------------------------------------------

def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(s):
    """A CSV cell as int ('0x1f' and '31' both work); '' -> None."""
    if s is None or s == "":
        return None
    return int(s, 0)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# ---------------------------------------------------------------------------
# Text traces (parsed here independently of the model's loader)
# ---------------------------------------------------------------------------

def parse_text_trace(path):
    """Packet lines of an oonic text trace as dicts {'time': str, key: value}."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line or line.startswith("@"):
                continue
            toks = line.split()
            d = {"time": toks[0]}
            for t in toks[1:]:
                k, v = t.split("=", 1)
                d[k] = v
            rows.append(d)
    return rows


# ---------------------------------------------------------------------------
# RoCEv2 frames (decoded here, independently of the model's codec)
# ---------------------------------------------------------------------------

# Bytes of the extended transport headers after the BTH of the standard RC opcodes
# (IBTA): RETH 16, AETH 4, ImmDt 4.
RC_EXT_BYTES = {
    0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4,
    0x06: 16, 0x07: 0, 0x08: 0, 0x09: 4, 0x0A: 16, 0x0B: 20,
    0x0C: 16, 0x0D: 4, 0x0E: 0, 0x0F: 4, 0x10: 4, 0x11: 4,
}
SEND_OPCODES = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05}
READ_RESPONSE_OPCODES = {0x0D, 0x0E, 0x0F, 0x10}
ACK = 0x11
OOO_NAK = 0x1F


def stat_sum(stats, suffix):
    """The values of every counter in stats (a stats.json's "stats") whose name ends with
    suffix, summed (over NICs, switches, ...)."""
    return sum(v["value"] for k, v in stats.items()
               if k.endswith(suffix) and isinstance(v, dict) and "value" in v)


def read_pcap_frames(path):
    """Frames (bytes) of a pcap/pcapng file, read with scapy."""
    import importlib
    for m in ("scapy.layers.l2", "scapy.layers.inet"):  # LINKTYPE_ETHERNET -> Ether, IP
        importlib.import_module(m)
    from scapy.utils import rdpcap  # lazy: scapy is slow to import
    return [bytes(p) for p in rdpcap(path)]


def decode_roce(frame):
    """A RoCEv2 (IPv4/IPv6, optional 802.1Q, UDP 4791) frame as a dict, else None.

    Keys: src_mac dst_mac src_ip dst_ip sport opcode padcnt dest_qp ackreq psn
    ext (bytes after the BTH up to the payload, for standard opcodes), payload,
    icrc (4 bytes as carried), udp (the UDP datagram bytes).
    """
    try:
        return _decode_roce(frame)
    except (struct.error, IndexError):
        return None


def _decode_roce(frame):
    if len(frame) < 14:
        return None
    eth_type = struct.unpack("!H", frame[12:14])[0]
    off = 14
    if eth_type == 0x8100:
        if len(frame) < 18:
            return None
        eth_type = struct.unpack("!H", frame[16:18])[0]
        off = 18
    if eth_type == 0x0800:
        ihl = (frame[off] & 0x0F) * 4
        if frame[off + 9] != 17:
            return None
        src_ip = ".".join(str(b) for b in frame[off + 12:off + 16])
        dst_ip = ".".join(str(b) for b in frame[off + 16:off + 20])
        l4 = off + ihl
    elif eth_type == 0x86DD:
        if frame[off + 6] != 17:
            return None
        src_ip = frame[off + 8:off + 24].hex()
        dst_ip = frame[off + 24:off + 40].hex()
        l4 = off + 40
    else:
        return None
    sport, dport, ulen = struct.unpack("!HHH", frame[l4:l4 + 6])
    if dport != 4791:
        return None
    udp = frame[l4:l4 + ulen]
    if ulen < 8 + 12 + 4 or len(udp) < ulen:
        return None
    bth = udp[8:20]
    opcode = bth[0]
    padcnt = (bth[1] >> 4) & 3
    d = {
        "src_mac": ":".join("%02x" % b for b in frame[6:12]),
        "dst_mac": ":".join("%02x" % b for b in frame[0:6]),
        "src_ip": src_ip, "dst_ip": dst_ip, "sport": sport,
        "opcode": opcode, "padcnt": padcnt,
        "dest_qp": int.from_bytes(bth[5:8], "big"),
        "ackreq": bool(bth[8] & 0x80),
        "resv7": bth[8] & 0x7F,
        "psn": int.from_bytes(bth[9:12], "big"),
        "icrc": udp[-4:], "udp": udp,
    }
    n = RC_EXT_BYTES.get(opcode)
    if n is not None:
        d["ext"] = udp[20:20 + n]
        d["payload"] = udp[20 + n:len(udp) - 4 - padcnt]
    return d


def reth(ext):
    """(va, rkey, dmalen) of a RETH at the start of ext."""
    return struct.unpack("!QII", ext[:16])


def aeth(ext_or_bytes):
    """(syndrome, msn) of a 4-byte AETH."""
    b = ext_or_bytes[-4:] if len(ext_or_bytes) >= 4 else ext_or_bytes
    return b[0], int.from_bytes(b[1:4], "big")


def is_rc_request(opcode):
    return opcode <= 0x0C or 0x18 <= opcode <= 0x1C


def expected_icrc(frame):
    """The ICRC scapy.contrib.roce computes for this IPv4 RoCEv2 frame (4 bytes as on the wire)."""
    from scapy.layers.l2 import Ether  # noqa: lazy
    from scapy.contrib.roce import BTH  # noqa: lazy (binds UDP 4791 -> BTH)
    p = Ether(frame)
    if BTH not in p:
        return None
    return p[BTH].compute_icrc(None)


def psn_diff(a, b):
    """a - b on the 24-bit PSN circle, in [-2^23, 2^23)."""
    d = (a - b) & 0xFFFFFF
    return d - (1 << 24) if d >= (1 << 23) else d


# ---------------------------------------------------------------------------
# The address pattern of traces/README.md ("Payloads"), implemented from the text
# ---------------------------------------------------------------------------

_M64 = (1 << 64) - 1


def splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def pattern(addr, n):
    """n bytes of the address pattern starting at address addr."""
    a0 = addr & ~7
    words = (addr + n - a0 + 7) // 8
    b = b"".join(struct.pack("<Q", splitmix64((a0 >> 3) + k)) for k in range(words))
    return b[addr - a0:addr - a0 + n]


# ---------------------------------------------------------------------------
# tshark
# ---------------------------------------------------------------------------

def tshark_bin():
    return shutil.which("tshark")


def run_tshark(args, timeout=TIMEOUT):
    """Run tshark; returns CompletedProcess (stderr holds the 'Running as root' note: ignore it)."""
    return subprocess.run([tshark_bin()] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, universal_newlines=True,
                          errors="replace")


def tshark_fields(pcap, fields, extra=()):
    """Rows of `tshark -T fields` (one list of strings per frame, '' for absent fields)."""
    args = ["-r", pcap, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a",
            "-E", "aggregator=,"] + list(extra)
    for f in fields:
        args += ["-e", f]
    p = run_tshark(args)
    if p.returncode != 0:
        raise AssertionError("tshark failed (%d): %s" % (p.returncode, p.stderr))
    rows = []
    for line in p.stdout.splitlines():
        cells = line.split("\t")
        cells += [""] * (len(fields) - len(cells))
        rows.append(cells)
    return rows
