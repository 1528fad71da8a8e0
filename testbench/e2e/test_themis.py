#!/usr/bin/python3
"""THEMIS at the DCs' external switches (platforms/network/themis.h), end to end.

* fabric-two-dc.yaml with themis.mode both: every flow intact, every packet of these
  single-path (ECMP) flows in order, the np's CNPs and cleared marks, the rp's CNPs each
  passed on by the far external switch with its THEMIS bit, the same run twice for a seed.
* themis.mode on a topology without a switch-to-switch link is a config error.
* the ideal FCT of fct.csv on a two-host path, derived by hand.
* scripts/experiments/themis runs small and writes its CSV, table and plot.
"""
import os
import subprocess
import unittest

import oonic_e2e as e2e

SRC = e2e.SOURCE_DIR
TWO_DC = os.path.join(SRC, "examples", "fabric-two-dc.yaml")


def text(path):
    with open(path) as f:
        return f.read()


class Themis(e2e.OonicTestCase):
    def run_two_dc(self, mode, *extra):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", TWO_DC, "--out", out, "--quiet", "--set", "themis.mode=" + mode,
                           "--set", "flows.load=0.5", "--set", "flows.duration_us=600"]
                          + list(extra), out=out)
        self.assertOk(r)
        self.assertTrue(r.stats_json["scoreboard"]["ok"])
        return r

    def test_both_functions_in_order_marked_and_deterministic(self):
        r = self.run_two_dc("both")
        st = {k: v["value"] for k, v in r.stats_json["stats"].items()
              if isinstance(v, dict) and "value" in v}
        # Single-path flows: THEMIS's holding never lets a packet overtake another.
        self.assertEqual(sum(int(q["ooo_packets"]) for q in e2e.load_csv(r.path("qps.csv"))), 0)
        self.assertGreater(st["dc0_dci.themis.ce_cleared"] + st["dc1_dci.themis.ce_cleared"], 0)
        self.assertGreater(
            st["dc0_dci.themis.cnps_generated"] + st["dc1_dci.themis.cnps_generated"], 0)
        for near, far in (("dc0_dci", "dc1_dci"), ("dc1_dci", "dc0_dci")):
            # Every CNP the near switch reacted to carries the bit to the far one.
            self.assertEqual(st[near + ".themis.rp_cnps"], st[far + ".themis.cnps_marked_in"])
        self.assertGreater(st["dc0_dci.themis.rp_cnps"] + st["dc1_dci.themis.rp_cnps"], 0)
        self.assertGreater(st["dc0_dci.themis.resubmits"] + st["dc1_dci.themis.resubmits"], 0)
        again = self.run_two_dc("both")
        for name in ("fct.csv", "links.csv", "qps.csv"):
            self.assertEqual(text(r.path(name)), text(again.path(name)), name)
        # Off: no THEMIS stat is registered.
        off = self.run_two_dc("none")
        self.assertFalse(any(".themis." in k for k in off.stats_json["stats"]))

    def test_np_only_sends_and_forwards_under_the_interval_rp_only_marks(self):
        np_ = self.run_two_dc("np")
        st = {k: v["value"] for k, v in np_.stats_json["stats"].items()
              if isinstance(v, dict) and "value" in v}
        both = lambda n: st["dc0_dci.themis." + n] + st["dc1_dci.themis." + n]  # noqa: E731
        self.assertGreater(both("ce_cleared"), 0)
        self.assertGreater(both("cnps_forwarded") + both("cnps_generated"), 0)
        self.assertEqual(both("cnps_marked_in"), 0)
        self.assertEqual(st["dc0_dci.themis.resubmits"] + st["dc1_dci.themis.resubmits"], 0)
        # themis.np_flows table (the default): the np knows every inter-DC flow's sender QP
        # from connection setup, so no marked packet passes for want of one; learning it
        # from ACKs instead leaves the first marked packets of flows untouched.
        self.assertEqual(both("no_qpn"), 0)
        learn = self.run_two_dc("np", "--set", "themis.np_flows=learn")
        ls = {k: v["value"] for k, v in learn.stats_json["stats"].items()
              if isinstance(v, dict) and "value" in v}
        self.assertGreater(ls["dc0_dci.themis.no_qpn"] + ls["dc1_dci.themis.no_qpn"], 0)
        rp = self.run_two_dc("rp")
        st = {k: v["value"] for k, v in rp.stats_json["stats"].items()
              if isinstance(v, dict) and "value" in v}
        self.assertEqual(st["dc0_dci.themis.cnps_generated"] + st["dc1_dci.themis.cnps_generated"], 0)
        self.assertGreater(st["dc0_dci.themis.cnps_marked_in"] + st["dc1_dci.themis.cnps_marked_in"],
                           0)
        self.assertEqual(st["dc0_dci.themis.cnps_forwarded"] + st["dc1_dci.themis.cnps_forwarded"],
                         0)

    @unittest.skipIf(e2e.tshark_bin() is None, "tshark not installed")
    def test_tshark_dissects_the_cnps_senders_get(self):
        r = self.run_two_dc("both", "--set", "run.link_pcap=true")
        cnps, seen = 0, 0
        for i in range(16):
            pcap = r.path("h%d_rx.pcap" % i)
            if not os.path.exists(pcap):
                continue
            rows = e2e.tshark_fields(pcap, ["infiniband.bth.opcode", "_ws.malformed",
                                            "_ws.expert.severity"], ["-Y", "infiniband"])
            seen += len(rows)
            for row in rows:
                self.assertEqual(row[1], "", row)
                for sev in filter(None, row[2].split(",")):
                    self.assertLess(int(sev, 0), 0x00800000, row)
                cnps += row[0] != "" and int(row[0], 0) == 0x81
        self.assertGreater(seen, 0)
        self.assertGreater(cnps, 0)

    def test_no_switch_link_is_a_config_error(self):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", "-", "--out", out, "--quiet", "--set", "topology.kind=pair",
                           "--set", "flows.arrival=once", "--set", "themis.mode=both"])
        self.assertError(r, "themis.mode", "switch-to-switch")

    def test_ideal_fct_on_a_two_host_path(self):
        d = self.mkdtemp()
        flows = os.path.join(d, "flows.txt")
        with open(flows, "w") as f:
            f.write("1\n0 1 3 100 10000 0\n")
        out = os.path.join(d, "r")
        r = e2e.run_oonic(["run", "-", "--out", out, "--quiet", "--set", "topology.kind=pair",
                           "--set", "topology.host_gbps=100", "--set", "topology.link_delay_ns=1000",
                           "--set", "nic.pmtu_bytes=1024", "--set", "flows.file=" + flows],
                          out=out)
        self.assertOk(r)
        row = e2e.load_csv(r.path("fct.csv"))[0]
        # 10 packets of a WRITE of 10,000 B: headers 58 B (Eth 14, IPv4 20, UDP 8, BTH 12,
        # ICRC 4), on the wire 58 + 24 (FCS, preamble, IFG), padded 60 + 24 = 84 B each,
        # plus 10,000 B of payload and the RETH (16 B): 10,856 B at 100 Gbit/s = 868.48 ns.
        # Twice the propagation: 2,000 ns. One full frame (1,082 + 24 B) and one ACK
        # (62 + 24 B) serialized on the link: 1,192 B = 95.36 ns. Ideal 2,963.84 ns.
        self.assertAlmostEqual(float(row["ideal_fct_ns"]), 2963.84, places=2)
        self.assertAlmostEqual(float(row["slowdown"]),
                               float(row["fct_ns"]) / float(row["ideal_fct_ns"]), places=3)

    def test_np_scope_all_acts_on_marked_data_leaving_by_a_local_port(self):
        # Inter-DC traffic only: the DCI switches' 100 G local ports (to the spines) take
        # what the 400 G long haul brings in, so marks are made there. With np_scope wan the
        # np sees only data leaving over the long haul; with all (the artefact) it takes the
        # marks made at dc0_dci's local ports too.
        cleared = {}
        for scope in ("wan", "all"):
            r = self.run_two_dc("np", "--set", "flows.inter_fraction=1", "--set",
                                "flows.load=0.8", "--set", "flows.duration_us=300", "--set",
                                "themis.np_scope=" + scope)
            st = r.stats_json["stats"]
            cleared[scope] = (st["dc0_dci.themis.ce_cleared"]["value"],
                              st["dc1_dci.themis.ce_cleared"]["value"])
        self.assertGreater(cleared["all"][0], 10 * max(1, cleared["wan"][0]), cleared)
        self.assertGreater(cleared["wan"][1], 0, cleared)

    def test_rp_rate_paces_and_keeps_order(self):
        # themis.block rate (the default): throttled flows' packets are held and paced, never
        # reordered (single-path flows: no out-of-order packet at any receiver).
        r = self.run_two_dc("rp", "--set", "flows.load=0.8")
        st = {k: v["value"] for k, v in r.stats_json["stats"].items()
              if isinstance(v, dict) and "value" in v}
        self.assertGreater(st["dc0_dci.themis.held_packets"] + st["dc1_dci.themis.held_packets"], 0)
        self.assertGreater(st["dc0_dci.themis.held_peak_bytes"] +
                           st["dc1_dci.themis.held_peak_bytes"], 0)
        self.assertEqual(sum(int(q["ooo_packets"]) for q in e2e.load_csv(r.path("qps.csv"))), 0)

    def test_experiment_script_runs_small(self):
        out = self.mkdtemp()
        p = subprocess.run(["/usr/bin/python3", os.path.join(SRC, "scripts", "experiments", "themis"),
                            "--out", out, "--load", "0.5", "--duration-ms", "0.5", "--modes",
                            "none,both", "--seeds", "2"], capture_output=True, text=True,
                           timeout=600, env=dict(os.environ, OONIC_BIN=e2e.oonic_bin()))
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = e2e.load_csv(os.path.join(out, "runs.csv"))
        # DCQCN and HPCC, both presets (each with its own traffic), both modes, seeds 1, 2.
        self.assertEqual(sorted((r["cc"], r["preset"], r["traffic"], r["mode"], r["seed"])
                                for r in runs),
                         sorted((c, p, p, m, s) for c in ("dcqcn", "hpcc")
                                for p in ("paper", "artefact") for m in ("none", "both")
                                for s in ("1", "2")))
        for r in runs:
            self.assertEqual(r["scoreboard_ok"], "True")
            self.assertGreater(int(r["intra_flows"]), 0)
            self.assertGreater(int(r["inter_flows"]), 0)
        # The paper's traffic is about 5:1 intra to inter; the artefact's about 1:1.
        for preset, lo, hi in (("paper", 3, 9), ("artefact", 0.5, 2)):
            intra = sum(int(r["intra_flows"]) for r in runs if r["preset"] == preset)
            inter = sum(int(r["inter_flows"]) for r in runs if r["preset"] == preset)
            self.assertTrue(lo < intra / inter < hi, (preset, intra, inter))
        both = [r for r in runs if r["mode"] == "both" and r["cc"] == "dcqcn"]
        self.assertGreater(sum(int(r["resubmits"]) + int(r["cnps_generated"]) for r in both), 0)
        summ = e2e.load_csv(os.path.join(out, "summary.csv"))
        self.assertEqual(len(summ), 8)
        for s in summ:
            self.assertEqual(s["seeds"], "2")
            v = [float(r["unfairness"]) for r in runs
                 if (r["cc"], r["preset"], r["mode"]) == (s["cc"], s["preset"], s["mode"])]
            self.assertAlmostEqual(float(s["unfairness"]), sum(v) / 2, places=2)
            self.assertLessEqual(float(s["unfairness_min"]), float(s["unfairness_max"]))
        self.assertIn("±", open(os.path.join(out, "table.md")).read())
        self.assertGreater(os.path.getsize(os.path.join(out, "themis.png")), 1000)
        # The artefact preset's runs: the np on every port, per host pair, the NICs' 5 us.
        cfg = open(os.path.join(out, "runs", "dcqcn-artefact-both-s1", "config.yaml")).read()
        for line in ('np_scope: "all"', 'np_key: "host_pair"', "cnp_interval_us: 5"):
            self.assertIn(line, cfg)


if __name__ == "__main__":
    unittest.main()
