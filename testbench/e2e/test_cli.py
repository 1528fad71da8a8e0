#!/usr/bin/python3
"""The command line: help texts, `params`, `stats`, and usage errors."""

import os
import re
import unittest

import oonic_e2e as e2e


class Cli(e2e.OonicTestCase):
    def ok(self, *args):
        r = e2e.run_oonic(list(args))
        self.assertOk(r)
        self.assertTrue(r.stdout.strip(), r.describe())
        return r

    def test_help(self):
        for args in (["--help"], ["-h"], ["help"]):
            with self.subTest(args=args):
                r = self.ok(*args)
                self.assertIn("usage: oonic COMMAND", r.stdout)
                for cmd in ("replay", "params", "stats"):
                    self.assertIn(cmd, r.stdout)

    def test_no_arguments_is_a_usage_error(self):
        r = e2e.run_oonic([])
        self.assertNoCrash(r)
        self.assertEqual(r.rc, 2, r.describe())
        self.assertIn("usage", r.stdout + r.stderr)

    def test_replay_help(self):
        r = self.ok("replay", "--help")
        self.assertIn("usage: oonic replay TRACE", r.stdout)
        for opt in ("--config", "--set", "--qps", "--out", "--timing", "--dut", "--vcd", "--seed",
                    "--quiet", "--no-packets-csv"):
            self.assertIn(opt, r.stdout)
        for f in ("stats.json", "packets.csv", "tx.pcap", "tx.csv"):
            self.assertIn(f, r.stdout)

    def test_params(self):
        r = self.ok("params")
        lines = r.stdout.splitlines()
        otd = [l for l in lines if l.startswith("nic.otd ")]
        self.assertEqual(len(otd), 1, r.stdout[:2000])
        m = re.match(r"nic\.otd = (\S+) \[(\S+)\]", otd[0])
        self.assertIsNotNone(m, otd[0])
        self.assertEqual(m.group(1), "64")
        self.assertEqual(m.group(2), "PSN")
        self.assertGreater(sum(1 for l in lines if " = " in l and "[" in l), 20)

    def test_params_match_resolved_config(self):
        # every parameter `oonic params` lists is a key of a run's config.yaml, same default
        r = self.ok("params")
        params = {}
        for l in r.stdout.splitlines():
            m = re.match(r"^(\S+) = (\S+) \[", l)
            if m:
                params[m.group(1)] = m.group(2)
        run = self.replay_ok(e2e.trace_path("ooo-small.txt"))
        # `oonic params` lists the keys of both `oonic replay` and `oonic run`.
        b2b_out = os.path.join(self.mkdtemp(), "b2b")
        b2b = e2e.run_oonic(["run", "-", "--out", b2b_out,
                             "--quiet"])
        self.assertOk(b2b)
        # ... and a fabric's (a topology section).
        fab_out = os.path.join(self.mkdtemp(), "fabric")
        fab = e2e.run_oonic(["run", "-", "--set", "topology.kind=kpaths", "--out", fab_out,
                             "--quiet"])
        self.assertOk(fab)
        cfg = {}
        for cfg_path in (run.path("config.yaml"), os.path.join(b2b_out, "config.yaml"),
                         os.path.join(fab_out, "config.yaml")):
            path = []
            for line in e2e.read_bytes(cfg_path).decode().splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                depth = (len(line) - len(line.lstrip())) // 2
                key, _, rest = line.strip().partition(":")
                path = path[:depth] + [key]
                val = rest.split("#")[0].strip()
                if val:
                    cfg[".".join(path)] = val.strip('"') or '""'

        self.assertEqual(set(params), set(cfg))
        for k, v in params.items():
            self.assertEqual(cfg[k], v, k)

    def test_params_markdown(self):
        r = self.ok("params", "--markdown")
        self.assertIn("| parameter |", r.stdout)
        self.assertIn("`nic.otd`", r.stdout)

    def test_stats(self):
        r = self.ok("stats")
        names = [l.split(" [")[0] for l in r.stdout.splitlines() if l.strip()]
        self.assertIn("nic0.rx.req_processor.accepted", names)
        line = [l for l in r.stdout.splitlines() if l.startswith("nic0.rx.req_processor.accepted ")]
        self.assertEqual(len(line), 1)
        self.assertIn("packet", line[0])
        # one stat per drop reason of model/ornic/drop_reason.h
        reasons = re.findall(r'^\s*"([a-z_]+)",?\s*$', e2e.read_bytes(os.path.join(
            e2e.SOURCE_DIR, "model", "ornic", "drop_reason.h")).decode(), re.M)
        self.assertIn("bad_icrc", reasons)
        for reason in reasons:
            if reason != "none":
                self.assertIn("nic0.rx.drops." + reason, names)

    def test_stats_match_a_replay(self):
        # the listing names exactly the stats a replay reports
        r = self.ok("stats")
        names = {l.split(" [")[0] for l in r.stdout.splitlines() if l.strip()}
        run = self.replay_ok(e2e.trace_path("ooo-small.txt"))
        self.assertEqual(names, set(run.stats_json["stats"]))

    def test_stats_markdown(self):
        r = self.ok("stats", "--markdown")
        self.assertIn("| stat |", r.stdout)
        self.assertIn("`nic0.rx.req_processor.accepted`", r.stdout)

    def test_unknown_command(self):
        r = e2e.run_oonic(["frobnicate"])
        self.assertError(r, "frobnicate")

    def test_unknown_options(self):
        trace = e2e.trace_path("ooo-small.txt")
        self.assertError(e2e.run_oonic(["replay", trace, "--frobnicate"]), "--frobnicate")
        self.assertError(e2e.run_oonic(["params", "--frobnicate"]), "--frobnicate")
        self.assertError(e2e.run_oonic(["stats", "--frobnicate"]), "--frobnicate")

    def test_replay_usage_errors(self):
        trace = e2e.trace_path("ooo-small.txt")
        self.assertError(e2e.run_oonic(["replay"]), "TRACE")
        self.assertError(e2e.run_oonic(["replay", trace, trace]), "more than one TRACE")
        self.assertError(e2e.run_oonic(["replay", trace, "--seed", "abc"]), "--seed", "abc")
        self.assertError(e2e.run_oonic(["replay", trace, "--out"]), "--out")
        d = self.mkdtemp()
        self.assertError(e2e.run_oonic(["replay", trace, "--out", d, "--timing", "warp"]),
                         "warp")
        self.assertError(e2e.run_oonic(["replay", trace, "--out", d, "--dut", "colour=red"]),
                         "colour")

    def test_quiet_and_no_packets_csv(self):
        d = self.mkdtemp()
        r = e2e.replay(e2e.trace_path("ooo-small.txt"), d, "--quiet", "--no-packets-csv")
        self.assertOk(r)
        self.assertEqual(r.stdout, "")
        self.assertFalse(os.path.exists(os.path.join(d, "packets.csv")))
        self.assertTrue(os.path.exists(os.path.join(d, "stats.json")))


if __name__ == "__main__":
    unittest.main()
