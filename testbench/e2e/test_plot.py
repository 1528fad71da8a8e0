#!/usr/bin/python3
"""scripts/plot: every command writes a non-trivial PNG and SVG; bad input exits 2.

Inputs: `oonic replay traces/default.txt` into a temporary directory, a 4-point
sweep of traces/ooo-small.txt (scripts/sweep, --jobs 2) and a hand-written
comparison CSV. Environment as for the other e2e tests: OONIC_BIN (default
<repo>/build/oonic), OONIC_SOURCE_DIR.
"""

import os
import shutil
import struct
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
PLOT = os.path.join(SOURCE_DIR, "scripts", "plot")
SWEEP = os.path.join(SOURCE_DIR, "scripts", "sweep")
TIMEOUT = 60

COMPARE_CSV = """# hand-written: three schemes on two traces, two seeds on one of them
scheme,trace,seed,end_cycle [cycle],pool peak [bit],bitmap NAKs [frame],integrity
ornic,default.txt,1,13542,80,1,true
ornic,default.txt,2,13580,80,1,true
ornic,ooo-small.txt,1,819,16,0,true
reorder-buffer,default.txt,1,14010,0,0,true
reorder-buffer,default.txt,2,14100,0,0,true
reorder-buffer,ooo-small.txt,1,900,0,0,true
go-back-n,default.txt,1,30000,0,0,true
go-back-n,ooo-small.txt,1,1500,0,0,true
"""

SWEEP_SPEC = """
traces: [traces/ooo-small.txt]
params:
  nic.otd: [16, 32]
  bitmap.block_bits: [8, 16]
stats: [run.end_cycle, sram.bitmap.block_pool.peak_bits]
extra_args: [--no-packets-csv]
"""


def run(args, **kw):
    e = dict(os.environ)
    e["OONIC_BIN"] = OONIC_BIN
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          timeout=TIMEOUT, env=e, cwd=SOURCE_DIR, **kw)


def describe(p):
    return "command: %s\nexit %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
        " ".join(p.args), p.returncode, p.stdout, p.stderr)


def png_size(path):
    """(width, height) from the PNG header; fails unless the file is a PNG."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % path
    assert head[12:16] == b"IHDR", "%s: no IHDR" % path
    return struct.unpack(">II", head[16:24])


class Plots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="oonic-plot-")
        cls.results = os.path.join(cls.dir, "default")
        p = run([OONIC_BIN, "replay", os.path.join(SOURCE_DIR, "traces", "default.txt"),
                 "--out", cls.results, "--quiet"])
        assert p.returncode == 0, describe(p)
        spec = os.path.join(cls.dir, "tiny.yaml")
        with open(spec, "w") as f:
            f.write(SWEEP_SPEC)
        cls.sweep_out = os.path.join(cls.dir, "sweep")
        p = run(["/usr/bin/python3", SWEEP, spec, "--jobs", "2", "--out", cls.sweep_out])
        assert p.returncode == 0, describe(p)
        cls.compare_csv = os.path.join(cls.dir, "schemes.csv")
        with open(cls.compare_csv, "w") as f:
            f.write(COMPARE_CSV)
        # the plots run at once (most of their time is importing matplotlib)
        out = os.path.join(cls.dir, "out")
        table = os.path.join(cls.sweep_out, "results.csv")
        cls.jobs = {
            "sram": (os.path.join(out, "sram"), ["sram", cls.results, "--out", os.path.join(out, "sram")]),
            "sram_default": (os.path.join(cls.results, "sram"),
                             ["sram", cls.results, "--instances", "rx.req_pkt_buffer", "--full-scale"]),
            "latency": (os.path.join(out, "latency"), ["latency", cls.results, "--out", os.path.join(out, "latency")]),
            "compare": (os.path.join(out, "compare"),
                        ["compare", cls.compare_csv, "--out", os.path.join(out, "compare")]),
            "lines": (os.path.join(out, "lines"),
                      ["sweep", table, "--x", "nic.otd", "--y", "run.end_cycle", "--by", "block_bits",
                       "--out", os.path.join(out, "lines")]),
            "heatmap": (os.path.join(out, "heatmap"),
                        ["sweep", table, "--heatmap", "nic.otd", "bitmap.block_bits",
                         "--z", "sram.bitmap.block_pool.peak_bits", "--out", os.path.join(out, "heatmap")]),
        }
        procs = {k: subprocess.Popen(["/usr/bin/python3", PLOT] + a, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, universal_newlines=True, cwd=SOURCE_DIR)
                 for k, (_, a) in cls.jobs.items()}
        cls.done = {}
        for k, p in procs.items():
            so, se = p.communicate(timeout=TIMEOUT)
            cls.done[k] = subprocess.CompletedProcess(p.args, p.returncode, so, se)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def plot(self, *args):
        return run(["/usr/bin/python3", PLOT] + list(args))

    def assertPlots(self, prefix, p):
        self.assertEqual(p.returncode, 0, describe(p))
        png, svg = prefix + ".png", prefix + ".svg"
        self.assertEqual(p.stdout.split(), [png, svg], describe(p))
        self.assertGreater(os.path.getsize(png), 10 * 1024, png)
        w, h = png_size(png)
        self.assertGreater(w, 300, png)
        self.assertGreater(h, 300, png)
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.image
        img = matplotlib.image.imread(png)
        self.assertEqual(img.shape[:2], (h, w))
        self.assertGreater(img.std(), 0.02, "%s looks blank" % png)  # not a blank canvas
        self.assertGreater(os.path.getsize(svg), 10 * 1024, svg)
        with open(svg) as f:
            text = f.read()
        self.assertIn("<svg", text)
        self.assertIn("</svg>", text)
        return text

    def result(self, name):
        prefix, _ = self.jobs[name]
        return self.assertPlots(prefix, self.done[name])

    def test_sram(self):
        svg = self.result("sram")
        # one subplot per instance with activity, titled with its name; idle ones left out
        for name in ("rx.req_pkt_buffer", "rx.req_hdr_buffer", "bitmap.block_pool"):
            self.assertIn(name, svg)
        self.assertNotIn("rx.rsp_pkt_buffer", svg)
        self.assertIn("NIC cycle", svg)
        self.assertIn("used (bits)", svg)
        self.assertIn("capacity", svg)

    def test_sram_default_prefix(self):
        self.result("sram_default")  # RESULTS_DIR/sram.png, .svg

    def test_latency(self):
        svg = self.result("latency")
        self.assertIn("latency (cycles)", svg)
        self.assertIn("DMA done", svg)

    def test_compare(self):
        svg = self.result("compare")
        for s in ("ornic", "reorder-buffer", "go-back-n", "end_cycle (cycle)", "pool peak (bit)"):
            self.assertIn(s, svg)

    def test_sweep_lines(self):
        svg = self.result("lines")
        self.assertIn("nic.otd [PSN]", svg)          # units from sweep.json
        self.assertIn("run.end_cycle [cycle]", svg)

    def test_sweep_heatmap(self):
        svg = self.result("heatmap")
        self.assertIn("bitmap.block_bits [bit]", svg)

    def test_bad_input_exits_2(self):
        empty = os.path.join(self.dir, "empty")
        os.makedirs(empty, exist_ok=True)
        p = self.plot("sram", empty)
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn(os.path.join(empty, "stats.json"), p.stderr)
        p = self.plot("sweep", os.path.join(self.sweep_out, "results.csv"), "--x", "nic.otd", "--y", "no_such")
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("no_such", p.stderr)
        bad = os.path.join(self.dir, "bad.csv")
        with open(bad, "w") as f:
            f.write("name,x\na,1\n")
        p = self.plot("compare", bad)
        self.assertEqual(p.returncode, 2, describe(p))
        self.assertIn("'scheme'", p.stderr)
        self.assertIn(bad, p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
