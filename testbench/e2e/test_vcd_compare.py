#!/usr/bin/python3
"""RTL oracle against oonic, through VCD: testbench/rtl/ornic_node.v (iverilog)
and oonic's Bitmap Manager (<build>/bitmap_stream) see the same PSN stream;
scripts/vcd-compare must find their waveforms equal cycle for cycle, and must
find the planted bug of testbench/rtl/fixtures/ornic_node_bug.v at the cycle
this test computes from the stimulus.

Environment (CTest): OONIC_BIN=<build>/oonic (bitmap_stream is next to it),
OONIC_SOURCE_DIR. Defaults: the repository holding this file, its build/.
Needs iverilog and vvp (skipped without them).
"""

import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("OONIC_SOURCE_DIR") or os.path.normpath(os.path.join(HERE, "..", ".."))
OONIC_BIN = os.environ.get("OONIC_BIN") or os.path.join(SOURCE_DIR, "build", "oonic")
BUILD_DIR = os.path.dirname(os.path.abspath(OONIC_BIN))
BITMAP_STREAM = os.path.join(BUILD_DIR, "bitmap_stream")
VCD_COMPARE = os.path.join(SOURCE_DIR, "scripts", "vcd-compare")
RTL_DIR = os.path.join(SOURCE_DIR, "testbench", "rtl")
MAP = os.path.join(RTL_DIR, "ornic_node_map.yaml")
TIMEOUT = 120

# The stream: one QP opened at B (near the 24-bit wrap, so node 0 wraps), block
# M = 16 bits, oonic's defaults otherwise (N = 20 nodes, 250 MHz = 4000 ps).
M = 16
NODES = 20
B = 0xFFFFF5
NODE = 1  # the RTL node, oonic's node1
PERIOD_PS = 4000
TAIL = 16
SEED = 20240611


def psn_of(k):
    """PSN at window offset k (offset from the QP's start PSN B)."""
    return (B + k) & 0xFFFFFF


def build_stimulus():
    """40 packets: [(cycle, window offset)]. Node 0 (the header) keeps a hole at
    offset 4 for the whole run, so ePSN never reaches node 1 (the RTL's rule:
    a full non-header block is freed, valid = 1, all_1 = 1)."""
    rng = random.Random(SEED)
    n1 = list(range(16, 32))
    rng.shuffle(n1)
    node0_in_order = [0, 1, 2, 3]
    node0_ooo = [5, 6, 7, 8]
    node2 = rng.sample(range(32, 48), 8)
    node3 = rng.sample(range(48, 64), 4)
    rest = n1[1:] + node0_ooo[1:] + node2[1:] + node3[1:]
    rng.shuffle(rest)
    # in-order node-0 packets at increasing positions, in order
    for k, pos in zip(node0_in_order, sorted(rng.sample(range(len(rest) + 1), 4))):
        rest.insert(pos + node0_in_order.index(k), k)
    # nodes 2, 3 and 0 take blocks 0, 1, 2 first (out of order), node 1 gets block 3
    order = [node2[0], node3[0], node0_ooo[0], n1[0]] + rest
    # duplicates: a node-1 PSN before the fill (bit already set), one after the
    # fill (node all_1), one below ePSN (offset 1), one in node 2
    fill_pos = max(order.index(k) for k in n1)
    order.insert(fill_pos, order[1] if order[1] in n1 else n1[0])
    order.append(n1[5])
    order.insert(len(order) - 3, 1)
    order.append(node2[0])
    cycles = []
    t = 10
    for i in range(len(order)):
        if i:
            t += rng.choice([3, 4, 5, 6, 9])  # >= 3: no packet here costs more
        cycles.append(t)
    return list(zip(cycles, order))


def first_block_id(stim):
    """Block id the watched node gets: the pool hands out 0, 1, 2, ... (nothing is
    freed before node 1 fills), one per other node allocated before it."""
    first = next(i for i, (_, k) in enumerate(stim) if k // M == NODE)
    return len({k // M for _, k in stim[:first]})


def node_model(stim, node=NODE):
    """The watched node under the core's cost model (ornic_bitmap.h), for packets
    of that node only: [(cycle, offset, cycles, event)], event in alloc, set,
    fill, dup_bit, dup_all_1."""
    valid = all_1 = False
    bits = 0
    out = []
    for cyc, k in stim:
        if not node * M <= k < (node + 1) * M:
            continue
        bit = k - node * M
        if all_1:
            out.append((cyc, k, 1, "dup_all_1"))
            continue
        cost = 1
        ev = "set"
        if not valid:
            valid, bits, cost, ev = True, 0, cost + 1, "alloc"
        cost += 1
        if bits >> bit & 1:
            out.append((cyc, k, cost, "dup_bit"))
            continue
        bits |= 1 << bit
        if bits == (1 << M) - 1:
            all_1, bits, cost, ev = True, 0, cost + 1, "fill"
        out.append((cyc, k, cost, ev))
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=TIMEOUT, **kw)


class VcdCompareRtl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="oonic-vcdcmp-")
        cls.stim = build_stimulus()
        cls.stim_path = os.path.join(cls.dir, "stim.txt")
        with open(cls.stim_path, "w") as f:
            f.write("# cycle psn (decimal); QP start PSN %d, M %d\n" % (B, M))
            for cyc, k in cls.stim:
                f.write("%d %d\n" % (cyc, psn_of(k)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def need_tools(self):
        for tool in ("iverilog", "vvp"):
            if not shutil.which(tool):
                self.skipTest("%s not installed" % tool)
        self.assertTrue(os.access(BITMAP_STREAM, os.X_OK),
                        "%s missing: build the project (scripts/build)" % BITMAP_STREAM)

    def rtl_vcd(self, node_v, name):
        """Compiles tb + node_v and runs it on the stimulus; returns the VCD path."""
        path = os.path.join(self.dir, name + ".vcd")
        if os.path.exists(path):
            return path
        vvp_file = os.path.join(self.dir, name + ".vvp")
        r = run(["iverilog", "-g2005", "-Wall", "-o", vvp_file,
                 "-P", "tb_ornic_node.M=%d" % M, "-P", "tb_ornic_node.B=%d" % B,
                 "-P", "tb_ornic_node.NODE=%d" % NODE,
                 "-P", "tb_ornic_node.FIRST_ID=%d" % first_block_id(self.stim),
                 "-P", "tb_ornic_node.PERIOD_PS=%d" % PERIOD_PS,
                 os.path.join(RTL_DIR, "tb_ornic_node.v"), node_v])
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        r = run(["vvp", "-n", vvp_file, "+stim=" + self.stim_path, "+vcd=" + path,
                 "+tail=%d" % TAIL], cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertNotIn("TB ERROR", r.stdout)
        self.assertIn("%d packets" % len(self.stim), r.stdout)
        self.assertIn(" 0 errors", r.stdout)
        return path

    def oonic_vcd(self):
        path = os.path.join(self.dir, "oonic.vcd")
        if os.path.exists(path):
            return path
        log = os.path.join(self.dir, "oonic.tsv")
        r = run([BITMAP_STREAM, self.stim_path, "--vcd", path, "--base-psn", str(B),
                 "--tail", str(TAIL), "--set", "bitmap.block_bits=%d" % M,
                 "--set", "bitmap.nodes_per_qp=%d" % NODES, "--log", log])
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        return path

    def oonic_log(self):
        self.oonic_vcd()
        with open(os.path.join(self.dir, "oonic.tsv")) as f:
            rows = [l.rstrip("\n").split("\t") for l in f]
        head = rows[0]
        return [dict(zip(head, r)) for r in rows[1:]]

    def compare(self, rtl, extra=()):
        return run([VCD_COMPARE, rtl, self.oonic_vcd(), "--map", MAP] + list(extra))

    # ---- the stimulus has what it claims (guards the derivations below) ----
    def test_stimulus_shape(self):
        self.assertEqual(len(self.stim), 40)
        offs = [k for _, k in self.stim]
        self.assertEqual(len(offs) - len(set(offs)), 4)  # four duplicates
        self.assertNotIn(4, offs)  # the hole that keeps ePSN in node 0
        ev = [e for *_, e in node_model(self.stim)]
        self.assertEqual(ev[0], "alloc")
        self.assertEqual(first_block_id(self.stim), 3)
        self.assertEqual(ev.count("fill"), 1)
        self.assertIn("dup_bit", ev)
        self.assertIn("dup_all_1", ev)
        self.assertEqual([k // M for _, k in self.stim[:4]], [2, 3, 0, 1])
        # out of order: some packet arrives after a higher PSN of its node
        self.assertTrue(any(offs[i] < offs[i - 1] for i in range(1, len(offs))))

    # ---- oonic follows the documented cost model for the watched node ----
    def test_oonic_costs_match_cost_model(self):
        self.need_tools()
        log = self.oonic_log()
        self.assertEqual(len(log), len(self.stim))
        for row in log:
            self.assertEqual(row["grant"], row["cycle"], row)  # no port contention
        by_cycle = {int(r["cycle"]): r for r in log}
        for cyc, k, cost, ev in node_model(self.stim):
            r = by_cycle[cyc]
            self.assertEqual(int(r["psn"]), psn_of(k))
            self.assertEqual(int(r["done"]) - cyc, cost, (ev, r))

    def test_oonic_vcd_has_node_signals(self):
        self.need_tools()
        with open(self.oonic_vcd()) as f:
            head = f.read().split("$enddefinitions")[0]
        self.assertIn("$timescale 1ps $end", head)
        scope = re.search(r"\$scope module node%d \$end(.*?)\$upscope" % (NODES - 1), head, re.S)
        self.assertIsNotNone(scope, "node%d scope missing" % (NODES - 1))
        widths = dict((n, int(w)) for w, n in
                      re.findall(r"\$var wire (\d+) \S+ (\w+) \$end", scope.group(1)))
        self.assertEqual(widths, {"valid": 1, "all_1": 1, "block_id": 12, "bits": M})

    def test_oonic_final_nodes(self):
        """Every node of the watched QP ends as the stream says: the bits the VCD
        shows (rebuilt by the shell from the tracked packets) are the PSNs received."""
        self.need_tools()
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("vcd_compare", VCD_COMPARE)
        spec = importlib.util.spec_from_loader("vcd_compare", loader)
        vc = importlib.util.module_from_spec(spec)
        loader.exec_module(vc)
        v = vc.Vcd(self.oonic_vcd(), "B")
        v.read_header()
        bm = "nic0.rx.bitmap_manager."
        names = [bm + "epsn"] + ["%snode%d.%s" % (bm, i, f) for i in range(4)
                                 for f in ("valid", "all_1", "block_id", "bits")]
        codes = {n: v.lookup(n, "test").code for n in names}
        v.read_changes(codes.values())
        final = {n: int(v.changes[c][-1][1], 2) if v.changes[c] else 0 for n, c in codes.items()}
        got = set(k for _, k in self.stim)
        self.assertEqual(final[bm + "epsn"], psn_of(4))  # the hole
        ids = {2: 0, 3: 1, 0: 2}  # allocation order of the stream's first packets
        for node in (0, 2, 3):
            want = sum(1 << (k - node * M) for k in got if k // M == node)
            self.assertEqual(final["%snode%d.bits" % (bm, node)], want, node)
            self.assertEqual(final["%snode%d.valid" % (bm, node)], 1, node)
            self.assertEqual(final["%snode%d.all_1" % (bm, node)], 0, node)
            self.assertEqual(final["%snode%d.block_id" % (bm, node)], ids[node], node)
        self.assertEqual([final["%snode1.%s" % (bm, f)] for f in ("valid", "all_1", "block_id",
                                                                  "bits")], [1, 1, 0, 0])

    # ---- the comparison ----
    def test_rtl_equals_oonic(self):
        self.need_tools()
        r = self.compare(self.rtl_vcd(os.path.join(RTL_DIR, "ornic_node.v"), "rtl"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.count(": match"), 5, r.stdout)
        self.assertIn("summary: all 5 signals match", r.stdout)
        m = re.search(r"cycles compared: (\d+)\.\.(\d+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        last = self.stim[-1][0]
        self.assertEqual((int(m.group(1)), int(m.group(2))), (0, last + TAIL), r.stdout)

    def test_planted_bug_found_at_its_cycle(self):
        self.need_tools()
        fill = [(cyc, cost) for cyc, _, cost, ev in node_model(self.stim) if ev == "fill"]
        self.assertEqual(len(fill), 1)
        expect = fill[0][0] + fill[0][1]  # all_1 rises at done; the bug one cycle later
        bug = self.rtl_vcd(os.path.join(RTL_DIR, "fixtures", "ornic_node_bug.v"), "rtl_bug")
        r = self.compare(bug)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        m = re.search(r"tb_ornic_node\.all_1 <-> \S+: first difference at cycle (\d+): "
                      r"A=(\S+) B=(\S+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertEqual(int(m.group(1)), expect, r.stdout)
        self.assertEqual((m.group(2), m.group(3)), ("0", "1"))
        self.assertIn("(A @ %d ps, B @ %d ps; 1 differing cycles)"
                      % (expect * PERIOD_PS + PERIOD_PS // 2, expect * PERIOD_PS), r.stdout)
        self.assertEqual(r.stdout.count(": match"), 4, r.stdout)
        self.assertIn("summary: 1 of 5 signals differ; first difference at cycle %d" % expect,
                      r.stdout)

    def test_bad_input(self):
        self.need_tools()
        rtl = self.rtl_vcd(os.path.join(RTL_DIR, "ornic_node.v"), "rtl")
        bad_map = os.path.join(self.dir, "bad_map.yaml")
        with open(MAP) as f:
            text = f.read()
        with open(bad_map, "w") as f:
            f.write(text.replace("node1.bits", "node1.bitz"))
        r = run([VCD_COMPARE, rtl, self.oonic_vcd(), "--map", bad_map])
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("nic0.rx.bitmap_manager.node1.bitz", r.stderr)
        r = run([VCD_COMPARE, os.path.join(self.dir, "nope.vcd"), self.oonic_vcd(), "--map", MAP])
        self.assertEqual(r.returncode, 2)
        self.assertIn("nope.vcd", r.stderr)


# ---- vcd-compare on hand-written VCDs (no build needed) ----

CLOCKED = """$timescale 1ns $end
$scope module top $end
$var wire 1 ! clk $end
$var wire 4 " v [3:0] $end
$var wire 1 # s $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
0!
bx "
x#
$end
#5
1!
b1 "
#10
0!
#15
1!
b10 "
0#
#20
0!
#25
1!
bz1 "
#30
0!
"""

PERIODIC = """$timescale 1ps $end
$scope module m $end
$var wire 8 a v $end
$var wire 1 b s $end
$upscope $end
$enddefinitions $end
#0
$dumpvars
bx a
xb
$end
#10000
b1 a
0b
#20000
b10 a
#30000
bzzzzz1 a
"""


class VcdCompareUnit(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="oonic-vcdcmp-u-")
        self.a = self.write("a.vcd", CLOCKED)
        self.b = self.write("b.vcd", PERIODIC)

    def tearDown(self):
        shutil.rmtree(self.dir, True)

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def cmp(self, map_text):
        return run([VCD_COMPARE, self.a, self.b, "--map", self.write("map.yaml", map_text)])

    def test_clock_against_period_with_x_z_and_offset(self):
        # A edges at 5, 15, 25 ns = cycles 0, 1, 2: v = 1, 2, z1 (z-extended: zzz1)
        # B at 10000 ps per cycle, offset -1: its cycle 1, 2, 3 = common 0, 1, 2:
        # v = 1, 2, zzzzz1 (8 bits: zzzzzzz1, low 4: zzz1)
        r = self.cmp("a: {clock: top.clk}\nb: {period_ps: 10000, offset_cycles: -1}\n"
                     "signals:\n  - {a: top.v, b: m.v, width: 4}\n"
                     "  - {a: top.s, b: m.s}\n")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("cycles compared: 0..2", r.stdout)
        self.assertIn("top.v <-> m.v: match", r.stdout)
        # s: A is x at edge 0 (0 from edge 1), B is 0 from its cycle 1 (common 0)
        self.assertIn("top.s <-> m.s: first difference at cycle 0: A=x B=0", r.stdout)

    def test_width_defaults_to_wider_zero_extended(self):
        r = self.cmp("a: {clock: top.clk}\nb: {period_ps: 10000, offset_cycles: -1}\n"
                     "signals:\n  - {a: top.v, b: m.v}\n")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        # cycle 2: A zzz1 (4 bits) zero-extended to 8 bits vs B zzzzzzz1
        self.assertIn("first difference at cycle 2: A=b0000zzz1 B=bzzzzzzz1", r.stdout)

    def test_bit_range_name_and_unknown_names(self):
        r = self.cmp("a: {clock: top.clk}\nb: {period_ps: 10000, offset_cycles: -1}\n"
                     "signals:\n  - {a: 'top.v[3:0]', b: m.v, width: 4}\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = self.cmp("a: {clock: top.clock}\nb: {period_ps: 10000}\n"
                     "signals:\n  - {a: top.v, b: m.v}\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn("top.clock", r.stderr)
        r = self.cmp("a: {clock: top.clk}\nb: {period_ps: 10000}\nsignals: []\n")
        self.assertEqual(r.returncode, 2)
        r = self.cmp("a: {clock: top.clk, period_ps: 5}\nb: {period_ps: 10000}\n"
                     "signals:\n  - {a: top.v, b: m.v}\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn("exactly one of clock and period_ps", r.stderr)

    def test_help(self):
        r = run([VCD_COMPARE, "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("period_ps", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
