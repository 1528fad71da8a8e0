#!/usr/bin/python3
"""No bad fabric input passes silently (issue 27), through `oonic run`:

* every input a hostile user tried (topology, flow and fault files, fabric YAML)
  exits 2 with a `file:line` or key message, or runs correctly; the crash (a
  topology of switches only), the hangs (huge node counts, a fault too late to
  ever apply) and the silently wrong results (wrapped sizes, 1e-300 Gbit/s links)
  are among them, each from its exact input;
* a run that never finishes says why on stderr: stalled (also when only faults
  that cannot restore delivery are still to come), or stopped at run.max_sim_ms;
  a slow link is not taken for a stall;
* ns-3 HPCC's formats as ns-3 means them: flows name node ids (switches numbered
  first), flows start at 2 s with the defaults, fct.txt carries the flow file's
  dport, one line per flow as it completes.
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oonic_e2e as e2e  # noqa: E402

LEAF_SPINE = ["--set", "topology.kind=leaf-spine", "--set", "topology.spines=2", "--set",
              "topology.leaves=2", "--set", "topology.hosts_per_leaf=2", "--set",
              "flows.bytes=4K", "--set", "flows.duration_us=2"]
def text(path):
    with open(path) as f:
        return f.read()


# Two hosts under switch 2 (a valid file to vary one line of).
TOPO_OK = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n"


class FabricInputs(e2e.OonicTestCase):
    def run_fabric(self, *args, config="-", timeout=120):
        out = os.path.join(self.mkdtemp(), "r")
        return e2e.run_oonic(["run", config, "--out", out, "--quiet"] + list(args), out=out,
                             timeout=timeout)

    def write(self, name, text):
        path = os.path.join(self.mkdtemp(), name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def topology(self, text, *extra):
        path = self.write("topology.txt", text)
        return path, self.run_fabric("--set", "topology.kind=file", "--set",
                                     "topology.file=" + path, "--set", "flows.bytes=4K",
                                     "--set", "flows.duration_us=2", *extra)

    def test_topology_files_are_read_strictly(self):
        cases = [
            # The crash: every node a switch, flows generated (was SIGSEGV, nothing printed).
            ("3 3 2\n0 1 2\n0 1 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n", ":1:",
             "a fabric needs at least two hosts"),
            # Huge headers: refused before anything is allocated (was ~25 s, bad_alloc).
            ("200000 1 65\n", ":1:", "links '65'"),
            ("3000000000 1 65\n", ":1:", "nodes '3000000000'"),
            ("3 1 2 7\n2\n", ":1:", "found 4 fields"),
            # Host links outside the NIC's mac.rate_gbps range.
            (TOPO_OK.replace("0 2 100Gbps", "0 2 1601Gbps"), ":3:", "'1601Gbps'"),
            (TOPO_OK.replace("0 2 100Gbps", "0 2 1bps"), ":3:", "'1bps'"),
            (TOPO_OK.replace("0 2 100Gbps", "0 2 inf"), ":3:", "'inf'"),
            (TOPO_OK.replace("0 2 100Gbps", "0 2 1e99Gbps"), ":3:", "'1e99Gbps'"),
            (TOPO_OK.replace("0 2 100Gbps", "0 2 1e-300Gbps"), ":3:", "'1e-300Gbps'"),
            # Delays and error rates.
            (TOPO_OK.replace("1000ns 0\n1", "1e99ns 0\n1"), ":3:", "delay '1e99ns'"),
            (TOPO_OK.replace("1000ns 0\n1", "infns 0\n1"), ":3:", "delay 'infns'"),
            (TOPO_OK.replace("1000ns 0\n1", "18446744073709551616ns 0\n1"), ":3:", "delay"),
            (TOPO_OK.replace("1000ns 0\n1", "1000ns nan\n1"), ":3:", "error rate 'nan'"),
            (TOPO_OK.replace("1000ns 0\n1", "1000ns inf\n1"), ":3:", "error rate 'inf'"),
            (TOPO_OK.replace("1000ns 0\n1", "1000ns abc\n1"), ":3:", "error rate 'abc'"),
            (TOPO_OK.replace("1000ns 0\n1", "1000ns 0 x\n1"), ":3:", "found 6 fields"),
            (TOPO_OK.replace("1000ns 0\n1", "1000ns 0.5x\n1"), ":3:", "error rate '0.5x'"),
            # Switch ids: extra, duplicate.
            ("3 1 2\n2 1\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n", ":2:",
             "more switch ids than the header's 1"),
            ("4 2 3\n2 2\n", ":2:", "switch id 2 listed twice"),
        ]
        for text, line, what in cases:
            path, r = self.topology(text)
            self.assertError(r, path + line, what)
        # An unreachable host names the file and its link's line (was "topology: host ...").
        path, r = self.topology("6 2 4\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n"
                                "2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n")
        self.assertError(r, path + ":5: host n2 cannot reach host n0")
        # A directory is not a topology.
        r = self.run_fabric("--set", "topology.kind=file", "--set", "topology.file=" +
                            self.mkdtemp())
        self.assertError(r, "cannot open topology.file: is a directory")

    def test_flow_files_are_read_strictly(self):
        base = "4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n"
        topo = self.write("topology.txt", base)
        cases = [
            # Sizes that wrapped to 0 bytes or were truncated (was exit 0).
            ("1\n0 1 3 100 18446744073709551616 0\n", ":2:", "bytes '18446744073709551616'"),
            ("1\n0 1 3 100 18446744073709551615 0\n", ":2:", "bytes '18446744073709551615'"),
            ("1\n0 1 3 100 1e30 0\n", ":2:", "bytes '1e30'"),
            ("1\n0 1 3 100 1e308 0\n", ":2:", "bytes '1e308'"),
            ("1\n0 1 3 100 1.5 0\n", ":2:", "bytes '1.5'"),
            ("1\n0 1 3 100 2147483648 0\n", ":2:", "bytes '2147483648'"),
            # The count line.
            ("0 1 3 100 4096 0\n1 0 3 100 4096 0\n", ":1:", "the number of flows alone"),
            ("1e3\n0 1 3 100 4096 0\n", ":1:", "the number of flows '1e3'"),
            ("2.5\n0 1 3 100 4096 0\n", ":1:", "the number of flows '2.5'"),
            # Fields.
            ("1\n0 1 -1 100 4096 0\n", ":2:", "priority '-1'"),
            ("1\n0 1 4294967296 100 4096 0\n", ":2:", "priority '4294967296'"),
            ("1\n0 1 3 65536 4096 0\n", ":2:", "dport '65536'"),
            ("1\n0 1 3 100 4096 0 7\n", ":2:", "found 7 fields"),
            # Node ids: node 2 is a switch.
            ("1\n0 2 3 100 4096 0\n", ":2:", "dst node 2 is a switch"),
        ]
        for text, line, what in cases:
            flows = self.write("flow.txt", text)
            r = self.run_fabric("--set", "topology.kind=file", "--set", "topology.file=" + topo,
                                "--set", "flows.file=" + flows)
            self.assertError(r, flows + line, what)

    def test_fault_files_are_read_strictly(self):
        cases = [
            # A fault too late to ever apply (was: the watchdog waited on it for ever).
            ("0 down leaf0 spine0\n1e15 up leaf0 spine0\n", ":2:", "time_us '1e15'"),
            ("1e-300 rate leaf0 spine0 1e-300\n", ":1:", "rate '1e-300'"),  # was applied as 0
            ("0 ecn leaf0 spine0 1e10 1e10\n", ":1:", "kmin_bytes '1e10'"),  # wrapped in 32 bits
            ("0 ecn leaf0 spine0 10000000000000 10000000000000\n", ":1:", "kmin_bytes"),
            ("0 drop_psn_mod leaf0 spine0 -1 0\n", ":1:", "n '-1'"),  # was n = 4294967295
            ("0 drop_psn_mod leaf0 spine0 16777217 0\n", ":1:", "n '16777217'"),
            ("0 drop_ipid_mod leaf0 spine0 65537 0\n", ":1:", "n '65537'"),
            ("0x10 down leaf0 spine0\n", ":1:", "time_us '0x10'"),  # was "no node 'down'"
            ("nan down leaf0 spine0\n", ":1:", "time_us 'nan'"),
            ("0 loss leaf0 spine0 nan\n", ":1:", "loss probability 'nan'"),
            ("0 down leaf0 spine0 extra\n", ":1:", "found 5 fields"),
        ]
        for text, line, what in cases:
            faults = self.write("faults.txt", "# comment\n\n" + text)
            r = self.run_fabric(*LEAF_SPINE, "--set", "faults.file=" + faults)
            self.assertError(r, faults + ":" + str(int(line[1:-1]) + 2) + ":", what)
        # With run.max_sim_ms=1e7 the far fault is still beyond reach.
        faults = self.write("faults.txt", "0 down leaf0 spine0\n1e15 up leaf0 spine0\n")
        r = self.run_fabric(*LEAF_SPINE, "--set", "faults.file=" + faults, "--set",
                            "run.max_sim_ms=1e7")
        self.assertError(r, faults + ":2:", "time_us '1e15'")
        # A directory is not a faults file (was: a run with no faults).
        r = self.run_fabric(*LEAF_SPINE, "--set", "faults.file=" + self.mkdtemp())
        self.assertError(r, "cannot open faults.file: is a directory")

    def test_yaml_and_keys_naming_the_topology(self):
        cfg = self.write("dup.yaml", "topology:\n  kind: pair\nflows:\n  bytes: 4K\n"
                                     "flows:\n  bytes: 8K\n")
        self.assertError(self.run_fabric(config=cfg), cfg + ":5: duplicate key 'flows'")
        cfg = self.write("dup2.yaml", "topology:\n  kind: pair\n  kind: kpaths\n")
        self.assertError(self.run_fabric(config=cfg), cfg + ":3: duplicate key 'topology.kind'")
        cfg = self.write("dup3.yaml", "topology.kind: pair\ntopology:\n  kind: kpaths\n")
        self.assertError(self.run_fabric(config=cfg),
                         cfg + ":3: parameter 'topology.kind' set twice (first on line 1)")
        cfg = self.write("two.yaml", "topology:\n  kind: pair\n---\nflows: {bytes: 4K}\n")
        self.assertError(self.run_fabric(config=cfg), cfg + ":3: a second YAML document")
        self.assertError(self.run_fabric(*LEAF_SPINE, "--set", "run.queues_switches=leaf9"),
                         "run.queues_switches: no switch 'leaf9'")
        self.assertError(self.run_fabric(*LEAF_SPINE, "--set", "topology.host_gbps=1601"),
                         "topology.host_gbps")
        # THEMIS needs one long-haul link; a leaf-spine has 4 of equal delay.
        self.assertError(self.run_fabric(*LEAF_SPINE, "--set", "themis.mode=both"),
                         "themis.mode both", "4 switch-to-switch links of the longest delay")
        # The QP-slot message names the key as it is spelt.
        r = self.run_fabric("--set", "topology.kind=pair", "--set", "flows.bytes=4K",
                            "--set", "flows.duration_us=20", "--set", "nic.max_qps=1",
                            "--set", "sram.qp.context.depth=1")
        self.assertError(r, "sram.qp.context.depth")

    def test_runs_that_do_not_finish_say_why(self):
        flows = self.write("flow.txt", "2\n0 1 3 100 1048576 0\n1 0 3 100 4096 0\n")
        pair = ["--set", "topology.kind=pair", "--set", "flows.file=" + flows]
        # Stopped by run.max_sim_ms: exit 1 and the reason on stderr, even with --quiet.
        r = self.run_fabric(*pair, "--set", "run.max_sim_ms=0.01")
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("stopped at run.max_sim_ms", r.stderr)
        self.assertIn("1 of 2 flows complete", r.stderr)
        # The link down for good; the only fault still to come cannot restore delivery, so
        # the watchdog reports the stall instead of running to it.
        faults = self.write("faults.txt", "1 down h0 h1\n500000 drop_psn_mod h0 h1 2 0\n")
        r = self.run_fabric(*pair, "--set", "faults.file=" + faults, "--set", "run.stall_ms=1")
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("stalled", r.stderr)
        self.assertTrue(r.stats_json["run"]["stalled"])
        # In-range slow links are not stalls (the watchdog allows a round trip of frames):
        # 100 ms of propagation, and a 1 Mbit/s spine link (one 4 KB frame: 33 ms).
        r = self.run_fabric(*pair, "--set", "topology.link_delay_ns=1e8")
        self.assertOk(r)
        one = self.write("one.txt", "1\n0 7 3 100 4096 0\n")
        kp1 = ["--set", "topology.kind=kpaths", "--set", "topology.paths=1", "--set",
               "flows.file=" + one]
        r = self.run_fabric(*kp1, "--set", "topology.fabric_gbps=0.001")
        self.assertOk(r)
        # The same slowness made by a fault.
        slow = self.write("slow.txt", "0 rate tor0 spine0 0.001\n")
        self.assertOk(self.run_fabric(*kp1, "--set", "faults.file=" + slow))
        # A fault to come that cannot restore delivery (a rate change elsewhere while h0's
        # link is down) does not hold the watchdog: the stall is reported long before it.
        cut = self.write("cut.txt", "1 down h0 tor0\n900000 rate tor1 spine0 50\n")
        r = self.run_fabric(*kp1, "--set", "faults.file=" + cut, "--set", "run.stall_ms=1")
        self.assertEqual(r.rc, 1, r.describe())
        m = re.search(r"stalled: no byte landed and no flow completed from [0-9.]+ us to "
                      r"([0-9.]+) us", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        self.assertLess(float(m.group(1)), 10000)
        # A size CDF of mean 0 would start flows without end: refused, not allocated.
        cdf = self.write("zero.cdf", "0 0\n0 100\n")
        self.assertError(self.run_fabric(*LEAF_SPINE, "--set", "flows.cdf=" + cdf),
                         "flows.cdf", "mean flow size is 0")

    def test_ns3_hpcc_files_run_unmodified_with_node_ids(self):
        # ns-3 HPCC's mix/ layout: switch 0 first, hosts 1..8 (written here in its format),
        # flows by node id starting at 2 s, no other setting.
        topo = "9 1 8\n0\n" + "".join("0 %d 100Gbps 0.001ms 0\n" % i for i in range(1, 9))
        d = self.mkdtemp()
        with open(os.path.join(d, "topology.txt"), "w") as f:
            f.write(topo)
        with open(os.path.join(d, "flow.txt"), "w") as f:
            # As its mix/flow.txt: more lines after the count's flows, then a description.
            f.write("3\n2 1 3 100 200000 2\n3 1 3 101 100000 2\n8 5 3 102 4096 2.000001\n"
                    "7 1 3 100 5000000 2.1\n\nFirst line: # of flows\nsrc0 dst0 3 ...\n")
        cfg = os.path.join(d, "mix.yaml")
        with open(cfg, "w") as f:
            f.write("topology:\n  kind: file\n  file: topology.txt\nflows:\n  file: flow.txt\n")
        r = self.run_fabric(config=cfg)
        self.assertOk(r)
        self.assertIn("flow.txt:5: lines after the 3 flows of the count on line 1 are not read",
                      r.stderr)
        fct = e2e.load_csv(r.path("fct.csv"))
        self.assertEqual([(x["src"], x["dst"]) for x in fct], [("n2", "n1"), ("n3", "n1"),
                                                               ("n8", "n5")])
        self.assertEqual([x["completed"] for x in fct], ["1", "1", "1"])
        # fct.txt as ns-3 writes it: HPCC's node_id_to_ip of the node ids, the flow file's
        # dport, start in ns, one line per flow in completion order.
        lines = [x.split() for x in text(r.path("fct.txt")).splitlines()]
        self.assertEqual(len(lines), 3)
        by_dport = {x[3]: x for x in lines}
        self.assertEqual(sorted(by_dport), ["100", "101", "102"])
        self.assertEqual(by_dport["100"][:2], ["0b000201", "0b000101"])
        self.assertEqual(by_dport["102"][:2], ["0b000801", "0b000501"])
        self.assertEqual(by_dport["100"][5], "2000000000")
        ends = [int(x[5]) + int(x[6]) for x in lines]
        self.assertEqual(ends, sorted(ends))
        # The run's own flows.txt and topology.txt keep the node ids.
        self.assertEqual(text(r.path("topology.txt")),
                         topo.replace("0.001ms", "1000ns"))
        self.assertEqual(text(r.path("flows.txt")).split("\n")[1].split()[:4],
                         ["2", "1", "3", "100"])


if __name__ == "__main__":
    unittest.main()
