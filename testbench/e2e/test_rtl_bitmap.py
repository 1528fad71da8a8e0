#!/usr/bin/python3
"""`bitmap.impl: rtl`: the Verilated testbench/rtl/ornic_bitmap.v inside the Bitmap Manager.

1. Every bundled trace, and synthetic arrival orders that reach every path of the
   bitmap (OOO, duplicates, loss and OTD NAKs, PSNs beyond a small window, an
   exhausted pool, multi-word blocks, many QPs), replay with `bitmap.impl: core` and
   `rtl` to identical packets.csv, sram.csv and stats.json (but for the `rtl`
   section), and the lockstep check finds no difference.
2. The planted-bug fixture (testbench/rtl/fixtures/ornic_bitmap_bug.v: a call that
   frees a block reports done one cycle late) makes the replay exit 1 and name the
   first packet that frees a block -- derived here from the core's packets.csv --
   at the cycle the core's waveform shows that packet entering the Bitmap Manager.
3. Bad settings are errors naming the key.

Environment (CTest sets both): OONIC_BIN, OONIC_SOURCE_DIR.
"""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
BUILD = os.path.dirname(os.path.abspath(OONIC_BIN))
RTL_LIB = os.path.join(BUILD, "liboonic_rtl_ornic_bitmap.so")
BUG_LIB = os.path.join(BUILD, "liboonic_rtl_ornic_bitmap_bug.so")


def oonic(*args, check=True):
    p = subprocess.run([OONIC_BIN] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, cwd=SOURCE_DIR, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError("oonic %s: exit %d\n%s%s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
    return p


def text(path):
    with open(path) as f:
        return f.read()


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


class RtlBitmap(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="oonic-rtl-")
        for lib in (RTL_LIB, BUG_LIB):
            if not os.path.exists(lib):
                raise AssertionError("%s not built: Verilator missing? (scripts/install-deps, then "
                                     "scripts/build)" % lib)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def replay_both(self, name, trace, sets=()):
        """Replays with the core and the RTL; asserts identical results; returns the dirs."""
        out = {}
        for impl in ("core", "rtl"):
            d = os.path.join(self.tmp, "%s-%s" % (name, impl))
            args = ["replay", trace, "--out", d, "--quiet", "--set", "bitmap.impl=" + impl]
            for s in sets:
                args += ["--set", s]
            oonic(*args)
            out[impl] = d
        c, r = out["core"], out["rtl"]
        self.assertEqual(text(os.path.join(c, "packets.csv")), text(os.path.join(r, "packets.csv")), name)
        self.assertEqual(text(os.path.join(c, "sram.csv")), text(os.path.join(r, "sram.csv")), name)
        sc = json.loads(text(os.path.join(c, "stats.json")))
        sr = json.loads(text(os.path.join(r, "stats.json")))
        rtl = sr.pop("rtl")
        self.assertNotIn("rtl", sc)
        self.assertEqual(sc, sr, name)
        self.assertTrue(rtl["checked"])
        self.assertEqual(rtl["mismatches"], 0, rtl)
        self.assertTrue(rtl["ok"])
        self.assertEqual(rtl["library"], RTL_LIB)
        calls = sc["stats"]["nic0.rx.bitmap_manager.calls"]["value"]
        self.assertEqual(rtl["calls"], calls)
        return c, r, sc

    def test_bundled_traces_identical(self):
        traces = sorted("traces/" + f for f in os.listdir(os.path.join(SOURCE_DIR, "traces"))
                        if f.endswith(".txt"))
        traces += sorted("traces/captures/" + f for f in os.listdir(os.path.join(SOURCE_DIR, "traces", "captures"))
                         if f.endswith(".pcap"))
        self.assertGreaterEqual(len(traces), 6)
        total = 0
        for t in traces:
            _, _, s = self.replay_both(os.path.basename(t), t)
            total += s["stats"]["nic0.rx.bitmap_manager.calls"]["value"]
        self.assertGreater(total, 100)  # the bitmap was exercised, not only QP setup

    def synth(self, name, qps, wqes, wqe_bytes, perturb):
        base = os.path.join(self.tmp, name + "-in.txt")
        oonic("trace", "synth", "--out", base, "--qps", str(qps), "--wqes", str(wqes), "--wqe-bytes",
              wqe_bytes, "--pmtu", "1024", "--seed", "7")
        out = os.path.join(self.tmp, name + ".txt")
        oonic("trace", "perturb", base, out, *perturb)
        return out

    def test_every_path_identical(self):
        ooo = self.synth("ooo", 4, 2, "64K", ["--ooo-distance", "40", "--seed", "3"])
        lossy = self.synth("lossy", 2, 2, "64K", ["--ooo-distance", "24", "--drop-rate", "0.05",
                                                   "--duplicate-rate", "0.05", "--retx-after", "40", "--seed", "5"])
        cases = [
            ("ooo-m16", ooo, []),
            ("ooo-m1", ooo, ["bitmap.block_bits=1", "bitmap.nodes_per_qp=128", "nic.otd=64"]),
            ("ooo-m33", ooo, ["bitmap.block_bits=33", "bitmap.nodes_per_qp=8"]),
            ("ooo-m64-narrow", ooo, ["bitmap.block_bits=64", "bitmap.nodes_per_qp=2", "nic.otd=16"]),
            ("ooo-small-window", ooo, ["bitmap.block_bits=8", "bitmap.nodes_per_qp=3", "nic.otd=8"]),
            ("ooo-pool-exhausted", ooo, ["bitmap.pool_blocks=5", "nic.otd=16"]),
            ("lossy-otd8", lossy, ["nic.otd=8"]),
            ("lossy-m512", lossy, ["bitmap.block_bits=512", "bitmap.nodes_per_qp=2", "nic.otd=12"]),
        ]
        seen = {"dup": 0, "beyond": 0, "exhausted": 0, "nak": 0, "ooo": 0}
        for name, trace, sets in cases:
            c, _, s = self.replay_both(name, trace, sets)
            st = s["stats"]
            seen["nak"] += st["nic0.rx.bitmap_manager.loss_declared"]["value"]
            for r in rows(os.path.join(c, "packets.csv")):
                seen["ooo"] += r["verdict"] == "ooo"
                seen["dup"] += r["verdict"] == "duplicate" and r["bitmap_cycles"] not in ("",)
                seen["beyond"] += r["drop_reason"] == "beyond_window"
                seen["exhausted"] += r["drop_reason"] == "bitmap_pool_exhausted"
        # The cases reach every verdict the RTL computes.
        for k, v in seen.items():
            self.assertGreater(v, 0, "no %s packet in the cases: %s" % (k, seen))

    def test_planted_bug_reported_at_its_packet_and_cycle(self):
        core = os.path.join(self.tmp, "bug-core")
        oonic("replay", "traces/default.txt", "--out", core, "--quiet", "--vcd=bitmap")
        # Expected: the first packet whose call frees a block (blocks held falls).
        held, want = {}, None
        for r in rows(os.path.join(core, "packets.csv")):
            if not r["blocks_held"]:
                continue
            q, h = r["qpn"], int(r["blocks_held"])
            if q in held and h < held[q]:
                want = r
                break
            held[q] = h
        self.assertIsNotNone(want, "default.txt frees no block")
        # Its grant: the cycle the core's waveform shows its PSN at the manager's port.
        grant = self.vcd_change_cycle(os.path.join(core, "waves.vcd"), "nic0.rx.bitmap_manager.psn",
                                      int(want["psn"]), after=int(want["parsed_cycle"]))

        bug = os.path.join(self.tmp, "bug-rtl")
        p = oonic("replay", "traces/default.txt", "--out", bug, "--quiet", "--set", "bitmap.impl=rtl",
                  "--set", "bitmap.rtl_library=" + BUG_LIB, check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("first at nic0, packet record %s" % want["record"], p.stderr)
        self.assertIn("cycle %d" % grant, p.stderr)
        self.assertIn("cycles: rtl %d, core %s" % (int(want["bitmap_cycles"]) + 1, want["bitmap_cycles"]),
                      p.stderr)
        first = json.loads(text(os.path.join(bug, "stats.json")))["rtl"]["first"]
        self.assertEqual(first["record"], int(want["record"]))
        self.assertEqual(first["cycle"], grant)
        self.assertEqual(first["psn"], int(want["psn"]))
        # Without the lockstep check the buggy RTL just runs (its cycles are the model's).
        p = oonic("replay", "traces/default.txt", "--out", bug + "-nocheck", "--quiet", "--set",
                  "bitmap.impl=rtl", "--set", "bitmap.rtl_library=" + BUG_LIB, "--set",
                  "bitmap.rtl_check=false", check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = rows(os.path.join(bug + "-nocheck", "packets.csv"))
        self.assertEqual(int(got[int(want["record"]) - 1]["bitmap_cycles"]), int(want["bitmap_cycles"]) + 1)

    def test_runs_identical_and_checked(self):
        # A two-NIC run and a fabric run: every NIC's Bitmap Manager runs the RTL.
        for name, cfg, files in (("b2b", "examples/b2b-reorder.yaml", ("wqes.csv", "sram.csv")),
                                 ("fabric", "examples/fabric-kpaths-spray.yaml", ("fct.csv", "qps.csv"))):
            out = {}
            for impl in ("core", "rtl"):
                d = os.path.join(self.tmp, "run-%s-%s" % (name, impl))
                oonic("run", cfg, "--out", d, "--quiet", "--set", "bitmap.impl=" + impl)
                out[impl] = d
            for f in files:
                self.assertEqual(text(os.path.join(out["core"], f)), text(os.path.join(out["rtl"], f)), f)
            sc = json.loads(text(os.path.join(out["core"], "stats.json")))
            sr = json.loads(text(os.path.join(out["rtl"], "stats.json")))
            rtl = sr.pop("rtl")
            for s in (sc, sr):
                s["run"].pop("wall_s")
            self.assertEqual(sc, sr, name)
            self.assertEqual(rtl["mismatches"], 0)
            self.assertGreater(rtl["calls"], 100)
        # The planted bug in a fabric: exit 1, the first differing NIC named.
        p = oonic("run", "examples/fabric-kpaths-spray.yaml", "--out", os.path.join(self.tmp, "run-bug"),
                  "--quiet", "--set", "bitmap.impl=rtl", "--set", "bitmap.rtl_library=" + BUG_LIB, check=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"bitmap RTL differs from the C\+\+ core: first at h\d+, packet record \d+")

    @staticmethod
    def vcd_change_cycle(path, signal, value, after):
        """First cycle (4000 ps each) at or after `after` where `signal` takes `value`."""
        ident, t = None, 0
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("$var") and line.split()[4] == signal.rsplit(".", 1)[-1]:
                    # hierarchical: the scope path is checked by the name's uniqueness below
                    ident = ident or line.split()[3]
                elif line.startswith("#"):
                    t = int(line[1:])
                elif ident and line.startswith("b") and line.endswith(" " + ident):
                    if int(line[1:].split()[0], 2) == value and t // 4000 >= after:
                        return t // 4000
        raise AssertionError("%s never became %d after cycle %d" % (signal, value, after))

    def test_bad_settings_name_the_key(self):
        p = oonic("replay", "traces/default.txt", "--out", os.path.join(self.tmp, "bad1"), "--set",
                  "bitmap.impl=rtl", "--set", "bitmap.rtl_library=/nonexistent/lib.so", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bitmap.rtl_library", p.stderr)
        self.assertIn("/nonexistent/lib.so", p.stderr)
        p = oonic("replay", "traces/default.txt", "--out", os.path.join(self.tmp, "bad2"), "--set",
                  "bitmap.impl=rtl", "--set", "nic.ordering=irn", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("nic.ordering is 'irn'", p.stderr)
        p = oonic("replay", "traces/default.txt", "--out", os.path.join(self.tmp, "bad3"), "--set",
                  "bitmap.impl=rtl", "--set", "bitmap.pool_blocks=100000", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bitmap.pool_blocks 100000", p.stderr)
        p = oonic("replay", "traces/default.txt", "--out", os.path.join(self.tmp, "bad4"), "--set",
                  "bitmap.impl=verilog", check=False)
        self.assertEqual(p.returncode, 2)
        self.assertIn("bitmap.impl", p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
