#!/usr/bin/python3
"""The fabric (`oonic run` with a topology section, issue 15), end to end:

* the pair topology is today's two-NIC system: a WRITE, READ and SEND flow
  complete at the same instant as the same WQE in `oonic run`, with the same
  frames at the same times on the wire (only addresses and QPNs differ);
* every bundled fabric example completes with a clean scoreboard, one fct.csv
  row per flow, and utilisation and slowdown in range;
* ECMP keeps a flow on one path (no packet arrives out of order on the
  symmetric kpaths fabric), spraying reorders;
* a seed gives the same results, another seed other flows;
* flows start when their flow file says; ns-3 HPCC's formats in and out;
* ECN marks only ECN-capable (DCQCN) traffic, and marks become CNPs;
* bad topology and flow input exits 2 naming the file, line or key;
* PFC: a paused NIC starts no data frame from its MAC's response delay after
  a PAUSE arrives until the XON (or the pause's end); a cyclic buffer
  dependency (a ring) deadlocks and is reported with its cycle, not hung on;
  a network that loses everything stalls and says so.
"""
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oonic_e2e as e2e  # noqa: E402

EXAMPLES = os.path.join(e2e.SOURCE_DIR, "examples")
FABRIC_EXAMPLES = sorted(f for f in os.listdir(EXAMPLES) if f.startswith("fabric-"))


def pcap_records(path):
    """(time_ps, frame bytes) of each record of a classic pcap (us or ns)."""
    data = e2e.read_bytes(path)
    frac_ps = 1000 if struct.unpack("<I", data[:4])[0] == 0xA1B23C4D else 1000000
    out, o = [], 24
    while o < len(data):
        s, frac, incl, _ = struct.unpack("<IIII", data[o:o + 16])
        out.append((s * 10**12 + frac * frac_ps, data[o + 16:o + 16 + incl]))
        o += 16 + incl
    return out


def bth(frame):
    r = e2e.decode_roce(frame)
    return (r["opcode"], r["psn"], len(frame)) if r else (None, None, len(frame))


class Fabric(e2e.OonicTestCase):
    def fabric(self, *args, config="-", ok=True):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", config, "--out", out, "--quiet"] + list(args), out=out,
                          timeout=120)
        if ok:
            self.assertOk(r)
        return r

    def pair(self, opcode, size):
        return self.fabric("--set", "topology.kind=pair", "--set", "flows.pattern=incast",
                           "--set", "flows.arrival=once", "--set", "flows.bytes=%d" % size,
                           "--set", "flows.opcode=" + opcode, "--set", "run.link_pcap=true")

    def b2b(self, opcode, size):
        out = os.path.join(self.mkdtemp(), "b")
        r = e2e.run_oonic(["run", "-", "--out", out, "--quiet", "--set", "workload.qps=1",
                           "--set", "workload.wqes_per_qp=1", "--set",
                           "workload.wqe_bytes=%d" % size, "--set", "workload.mix=" + opcode],
                          out=out)
        self.assertOk(r)
        return r

    def test_pair_topology_is_the_two_nic_system(self):
        for op in ("write", "read", "send"):
            with self.subTest(op=op):
                f, b = self.pair(op, 20000), self.b2b(op, 20000)
                fct = e2e.load_csv(f.path("fct.csv"))
                self.assertEqual(len(fct), 1)
                wqe = e2e.load_csv(b.path("wqes.csv"))[0]
                # Same doorbell and same CQE instant (b2b: cycles of 4 ns; fabric: ns).
                clk_ns = 1000.0 / b.stats_json["run"]["clock_mhz"]
                self.assertAlmostEqual(float(fct[0]["post_ns"]), int(wqe["post_cycle"]) * clk_ns, 3)
                cqe_ns = float(fct[0]["start_ns"]) + float(fct[0]["fct_ns"])
                self.assertEqual(int(-(-cqe_ns // clk_ns)), int(wqe["cqe_cycle"]))
                # Host h1 posts (incast to h0): h1 is b2b's A, h0 its B.
                for mine, theirs in (("h1_tx.pcap", "a_to_b.pcap"), ("h0_tx.pcap", "b_to_a.pcap")):
                    x, y = pcap_records(f.path(mine)), pcap_records(b.path(theirs))
                    self.assertEqual([t for t, _ in x], [t for t, _ in y], mine)
                    self.assertEqual([bth(fr) for _, fr in x], [bth(fr) for _, fr in y], mine)
                self.assertTrue(f.stats_json["scoreboard"]["ok"])
                self.assertEqual(f.stats_json["scoreboard"]["bytes_checked"], 20000)

    def test_every_example_completes_with_a_clean_scoreboard(self):
        self.assertGreaterEqual(len(FABRIC_EXAMPLES), 4)
        for name in FABRIC_EXAMPLES:
            with self.subTest(example=name):
                r = self.fabric(config=os.path.join(EXAMPLES, name))
                sb = r.stats_json["scoreboard"]
                self.assertTrue(sb["ok"], sb["text"])
                fct = e2e.load_csv(r.path("fct.csv"))
                flows = open(r.path("flows.txt")).read().split("\n")
                self.assertEqual(len(fct), int(flows[0]))
                self.assertEqual(sb["bytes_checked"], sum(int(x["bytes"]) for x in fct))
                for row in fct:
                    self.assertEqual(row["completed"], "1")
                    # The ideal FCT is a lower bound but for the NIC's own latency
                    # (not in it): nothing finishes much faster than it.
                    self.assertGreater(float(row["slowdown"]), 0.95, row)
                for row in e2e.load_csv(r.path("links.csv")):
                    self.assertLessEqual(float(row["utilisation"]), 1.0, row)
                summary = open(r.path("summary.txt")).read()
                self.assertIn("slowdown", summary)
                self.assertIn("scoreboard  OK", summary)

    def test_ecmp_keeps_order_and_spraying_reorders(self):
        ecmp = self.fabric(config=os.path.join(EXAMPLES, "fabric-kpaths.yaml"))
        spray = self.fabric(config=os.path.join(EXAMPLES, "fabric-kpaths-spray.yaml"))
        q_ecmp = e2e.load_csv(ecmp.path("qps.csv"))
        q_spray = e2e.load_csv(spray.path("qps.csv"))
        self.assertEqual(sum(int(q["ooo_packets"]) for q in q_ecmp), 0)
        self.assertGreater(sum(int(q["packets"]) for q in q_ecmp), 0)
        self.assertGreater(sum(int(q["ooo_packets"]) for q in q_spray), 0)
        self.assertGreater(max(int(q["max_ood"]) for q in q_spray), 0)
        # ECMP: each cross-ToR flow's data crosses exactly one spine; spraying uses all four.
        def spine_ports_used(run):
            used = set()
            for row in e2e.load_csv(run.path("links.csv")):
                if row["from"].startswith("spine") and int(row["frames"]) > 0:
                    used.add(row["from"])
            return used
        self.assertEqual(spine_ports_used(spray), {"spine0", "spine1", "spine2", "spine3"})

    def test_a_seed_gives_the_same_results(self):
        cfg = os.path.join(EXAMPLES, "fabric-kpaths-spray.yaml")
        a = self.fabric("--seed", "3", "--set", "flows.bytes=64K", config=cfg)
        b = self.fabric("--seed", "3", "--set", "flows.bytes=64K", config=cfg)
        c = self.fabric("--seed", "4", "--set", "flows.bytes=64K", config=cfg)
        for f in ("fct.csv", "qps.csv", "links.csv", "queues.csv", "flows.txt", "fct.txt"):
            self.assertEqual(e2e.read_bytes(a.path(f)), e2e.read_bytes(b.path(f)), f)
        self.assertNotEqual(e2e.read_bytes(a.path("flows.txt")), e2e.read_bytes(c.path("flows.txt")))

    def write(self, name, text):
        path = os.path.join(self.mkdtemp(), name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_hpcc_formats_and_flow_start_times(self):
        # ns-3 HPCC's topology.txt: 3 hosts (0-2) and switch 3; its flow file.
        topo = self.write("topology.txt", "4 1 3\n3\n0 3 100Gbps 1000ns 0\n"
                                          "1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n")
        flows = self.write("flow.txt", "3\n0 2 3 100 30000 0.000002\n1 2 3 100 30000 0.000005\n"
                                       "2 0 3 100 5000 0.00001\n")
        r = self.fabric("--set", "topology.kind=file", "--set", "topology.file=" + topo, "--set",
                        "flows.file=" + flows)
        fct = e2e.load_csv(r.path("fct.csv"))
        self.assertEqual([float(x["start_ns"]) for x in fct], [2000.0, 5000.0, 10000.0])
        # Posted at the flow's start (the QPs were set up before it).
        self.assertEqual([float(x["post_ns"]) for x in fct], [2000.0, 5000.0, 10000.0])
        lines = open(r.path("fct.txt")).read().splitlines()
        self.assertEqual(len(lines), 3)
        sip, dip, sport, dport, size, start, fct_ns, ideal = lines[0].split()
        self.assertEqual((sip, dip), ("0b000001", "0b000201"))  # HPCC's node_id_to_ip
        # ns-3 HPCC prints the flow file's dport (not the wire's 4791).
        self.assertEqual((dport, size, start), ("100", "30000", "2000"))
        self.assertGreater(int(fct_ns), int(ideal) * 0.95)
        # Two flows into host 2 share its link: the second is slower than alone.
        self.assertGreater(float(fct[1]["slowdown"]), 1.0)
        # The run's topology.txt is the same network in the same format.
        self.assertEqual(open(r.path("topology.txt")).read(),
                         "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                         "2 3 100Gbps 1000ns 0\n")

    def test_topology_txt_reads_back_as_the_same_network(self):
        a = self.fabric("--set", "flows.bytes=64K", "--set", "tx.rate=none",
                        config=os.path.join(EXAMPLES, "fabric-kpaths.yaml"))
        first = open(a.path("topology.txt")).read().splitlines()
        self.assertEqual(first[0], "16 6 18")  # 10 hosts, 2 ToRs + 4 spines, 10 + 8 links
        self.assertEqual(first[1], "10 11 12 13 14 15")
        self.assertIn("0 10 40Gbps 1000ns 0", first)
        b = self.fabric("--set", "topology.kind=file", "--set",
                        "topology.file=" + a.path("topology.txt"), "--set",
                        "flows.file=" + a.path("flows.txt"), "--set", "tx.rate=none",
                        config=os.path.join(EXAMPLES, "fabric-kpaths.yaml"))
        self.assertEqual(open(b.path("topology.txt")).read().splitlines(), first)
        self.assertEqual(e2e.read_bytes(a.path("flows.txt")), e2e.read_bytes(b.path("flows.txt")))
        rates = lambda r: sorted(x["gbps"] for x in e2e.load_csv(r.path("links.csv")))
        self.assertEqual(rates(a), rates(b))

    def test_ecn_marks_only_ecn_capable_traffic_and_marks_become_cnps(self):
        cfg = os.path.join(EXAMPLES, "fabric-incast.yaml")
        dcqcn = self.fabric(config=cfg)
        plain = self.fabric("--set", "tx.rate=none", config=cfg)
        st = dcqcn.stats_json["stats"]
        marked = sum(v["value"] for k, v in st.items() if k.endswith(".marked"))
        cnps = sum(v["value"] for k, v in st.items() if k.endswith("hdr_generator.cnps"))
        ce = sum(v["value"] for k, v in st.items() if k.endswith("rx.ce_marked"))
        self.assertGreater(marked, 0)
        self.assertEqual(ce, marked)  # every mark reached h0's NIC
        self.assertGreater(cnps, 0)
        self.assertLessEqual(cnps, ce)
        st = plain.stats_json["stats"]
        self.assertEqual(sum(v["value"] for k, v in st.items() if k.endswith(".marked")), 0)

    def test_rates_csv_follows_each_qps_dcqcn_rate_and_presets_fill_defaults(self):
        cfg = os.path.join(EXAMPLES, "fabric-incast.yaml")
        r = self.fabric(config=cfg)
        rows = e2e.load_csv(r.path("rates.csv"))
        self.assertGreater(len(rows), 7)
        flows = {x["flow"] for x in rows}
        self.assertEqual(flows, {str(i) for i in range(7)})  # every sender was slowed
        last_t = 0.0
        for x in rows:
            self.assertGreaterEqual(float(x["time_ns"]), last_t)  # in time order
            last_t = float(x["time_ns"])
            self.assertTrue(0.1 <= float(x["gbps"]) < 100.0, x)  # min rate .. below the line
            self.assertNotEqual(x["host"], "h0")  # the receiver sends no data
        decreases = sum(v["value"] for k, v in r.stats_json["stats"].items()
                        if k.endswith("tx.rate.rate_decreases"))
        self.assertGreaterEqual(len(rows), decreases)
        # The paper preset fills every key left at its default; an explicit one wins.
        p = self.fabric("--set", "cc.dcqcn.preset=paper", "--set", "cc.dcqcn.rai_mbps=30",
                        config=cfg)
        conf = open(p.path("config.yaml")).read()
        self.assertIn("rate_timer_us: 55  # us, from preset cc.dcqcn.preset=paper", conf)
        self.assertIn("cnp_interval_us: 50  # us, from preset cc.dcqcn.preset=paper", conf)
        self.assertIn("byte_counter_bytes: 10000000", conf)
        self.assertIn("rai_mbps: 30  # Mbit/s, from --set", conf)
        self.assertNotEqual(e2e.read_bytes(p.path("rates.csv")), e2e.read_bytes(r.path("rates.csv")))

    def test_faults_slow_cut_and_lose_at_their_times(self):
        cfg = os.path.join(EXAMPLES, "fabric-kpaths.yaml")
        small = ["--set", "flows.bytes=256K"]
        base = self.fabric(*small, config=cfg)
        last = lambda r: max(float(x["fct_ns"]) for x in e2e.load_csv(r.path("fct.csv")))
        # spine0's links at 10 Gbit/s from the start: the flows hashed onto it are slower.
        slow = self.fabric(*small, "--set", "faults.file=" + self.write(
            "f1.txt", "0 rate tor0 spine0 10\n0 rate spine0 tor1 10\n"), config=cfg)
        self.assertGreater(last(slow), 2 * last(base))
        rates = {(x["from"], x["to"]): x["gbps"] for x in e2e.load_csv(slow.path("links.csv"))}
        self.assertEqual(rates[("tor0", "spine1")], "40.000")
        # tor0-spine1 down for 100 us: frames on it are lost both ways, then recovered.
        cut = self.fabric(*small, "--set", "faults.file=" + self.write(
            "f2.txt", "# a cut\n50 down tor0 spine1\n150 up tor0 spine1  # repaired\n"),
            config=cfg)
        self.assertTrue(cut.stats_json["scoreboard"]["ok"])
        st = cut.stats_json["stats"]
        lost = sum(v["value"] for k, v in st.items() if k.endswith(".fault_lost"))
        self.assertGreater(lost, 0)
        self.assertEqual(st["tor0.fault_lost"]["value"] + st["spine1.fault_lost"]["value"], lost)
        self.assertIn("2 of 2 events applied", open(cut.path("summary.txt")).read())
        # A planned outage longer than run.stall_ms is not a stall: every link from tor0 to
        # the spines down from 1 us to 12 ms (the cross-ToR flows wait), then repaired.
        outage = "".join("1 down tor0 spine%d\n12000 up tor0 spine%d\n" % (i, i) for i in range(4))
        wait = self.fabric(*small, "--set", "run.stall_ms=2", "--set", "faults.file=" +
                           self.write("f4.txt", outage), config=cfg)
        self.assertTrue(wait.stats_json["scoreboard"]["ok"])
        self.assertGreater(max(float(x["fct_ns"]) for x in e2e.load_csv(wait.path("fct.csv"))),
                           12e6 - 1e3)
        # A PSN rule loses the same PSN's retransmissions too: the flow can never end,
        # and the stall is reported instead of running to run.max_sim_ms.
        rule = self.fabric(*small, "--set", "faults.file=" + self.write(
            "f3.txt", "0 drop_psn_mod h0 tor0 16 5\n"), "--set", "run.stall_ms=2", config=cfg,
            ok=False)
        self.assertEqual(rule.rc, 1, rule.describe())
        self.assertIn("stalled", rule.stderr)
        self.assertIn("flow 0 (h0 -> h9)", rule.stderr)
        self.assertGreater(rule.stats_json["stats"]["h0.uplink.fault_lost"]["value"], 0)
        # Bad faults name the file and line.
        for text, what in (("0 down tor0 spine9\n", "no node 'spine9'"),
                           ("0 down h0 spine0\n", "no link between h0 and spine0"),
                           ("0 rate h0 tor0 10\n", "switch-to-switch"),
                           ("x down tor0 spine0\n", "expected"),
                           ("0 melt tor0 spine0\n", "unknown fault 'melt'"),
                           ("0 drop_psn_mod h0 tor0 4 4\n", "r '4': expected")):
            bad = self.write("bad.txt", "# ok\n" + text)
            r = self.fabric(*small, "--set", "faults.file=" + bad, config=cfg, ok=False)
            self.assertError(r, "bad.txt:2", what)

    def test_plot_fct_draws_a_fabric_run(self):
        plain = self.fabric(config=os.path.join(EXAMPLES, "fabric-incast.yaml"))
        pfc = self.fabric(config=os.path.join(EXAMPLES, "fabric-incast-pfc.yaml"))
        for r, panels in ((plain, 5), (pfc, 6)):  # + DCQCN rates; + PFC frames
            prefix = os.path.join(self.mkdtemp(), "fct")
            p = subprocess.run(["/usr/bin/python3", os.path.join(e2e.SOURCE_DIR, "scripts", "plot"),
                                "fct", r.out, "--out", prefix], capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            for ext in ("png", "svg"):
                self.assertGreater(os.path.getsize(prefix + "." + ext), 1000)
            svg = open(prefix + ".svg").read()
            self.assertEqual(svg.count('id="axes_'), panels, r.out)
        self.assertIn("PFC frames sent (pfc.csv)", svg)
        # Not a fabric run: a clear error, not a traceback.
        b = self.b2b("write", 4096)
        p = subprocess.run(["/usr/bin/python3", os.path.join(e2e.SOURCE_DIR, "scripts", "plot"),
                            "fct", b.out], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("fct.csv: not found", p.stderr)

    def test_melo_loss_experiment_runs_and_tabulates(self):
        out = self.mkdtemp()
        p = subprocess.run(["/usr/bin/python3", os.path.join(e2e.SOURCE_DIR, "scripts", "experiments",
                                                             "melo-loss"),
                            "--out", out, "--rates", "0.001", "--schemes", "gbn,ornic", "--seeds",
                            "1", "--bytes", "1048576"],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, OONIC_BIN=e2e.oonic_bin()))
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = e2e.load_csv(os.path.join(out, "throughput.csv"))
        self.assertEqual([r["scheme"] for r in rows], ["gbn", "ornic"])
        for r in rows:
            self.assertEqual(r["scoreboard_ok"], "True")
            self.assertGreater(float(r["gbps"]), 1)
            self.assertLess(float(r["gbps"]), 40)
        self.assertIn("DCQCN + go-back-N", open(os.path.join(out, "table.md")).read())
        self.assertGreater(os.path.getsize(os.path.join(out, "melo-loss.png")), 1000)

    def test_bad_input_names_the_file_line_or_key(self):
        topo = self.write("topology.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Xbps 1000ns 0\n")
        r = self.fabric("--set", "topology.kind=file", "--set", "topology.file=" + topo, ok=False)
        self.assertError(r, "topology.txt:4")
        flows = self.write("flow.txt", "1\n1 1 3 100 1000 0\n")
        r = self.fabric("--set", "topology.kind=pair", "--set", "flows.file=" + flows, ok=False)
        self.assertError(r, "flow.txt:2", "itself")
        cdf = self.write("bad.cdf", "0 0\n1000 50\n500 90\n")
        r = self.fabric("--set", "topology.kind=pair", "--set", "flows.cdf=" + cdf, ok=False)
        self.assertError(r, "bad.cdf")
        r = self.fabric("--set", "topology.kind=pair", "--set", "flows.load=1", ok=False)
        self.assertError(r, "flows.load")
        r = self.fabric("--set", "topology.kind=ring", ok=False)
        self.assertError(r, "topology.kind")
        cfg = self.write("c.yaml", "topology:\n  kind: kpaths\n  pathz: 4\n")
        r = self.fabric(config=cfg, ok=False)
        self.assertError(r, "c.yaml:3", "topology.pathz")

    def test_a_flow_that_cannot_finish_is_named(self):
        r = self.fabric("--set", "topology.kind=pair", "--set", "flows.pattern=incast", "--set",
                        "flows.arrival=once", "--set", "flows.bytes=1M", "--set",
                        "run.max_sim_ms=0.01", ok=False)
        self.assertFalse(r.timed_out, r.describe())
        self.assertEqual(r.rc, 1, r.describe())
        summary = open(r.path("summary.txt")).read()
        self.assertIn("NOT FINISHED", summary)
        self.assertIn("flow 0 (h1 -> h0, 1048576 B): no CQE", summary)

    def test_a_paused_nic_sends_no_data_until_the_pause_ends(self):
        r = self.fabric("--set", "run.link_pcap=true",
                        config=os.path.join(EXAMPLES, "fabric-incast-pfc.yaml"))
        self.assertTrue(r.stats_json["scoreboard"]["ok"])
        # Pauses each host's NIC obeys: [arrival, resume), arrival = the PAUSE's first
        # byte + 84 B at 100 Gbit/s + 1 us; resume = the XON's arrival or the end of
        # 65535 quanta of 5.12 ns.
        frame_ns, prop_ns, quantum_ns = 6.72, 1000.0, 5.12
        pauses = {}
        for row in e2e.load_csv(r.path("pfc.csv")):
            if not row["peer"].startswith("h") or row["event"] not in ("xoff_sent", "xon_sent"):
                continue
            at = float(row["time_ns"]) + frame_ns + prop_ns
            lst = pauses.setdefault(row["peer"], [])
            if row["event"] == "xoff_sent":
                if lst and lst[-1][1] > at:  # a refresh extends the pause in force
                    lst[-1][1] = at + int(row["quanta"]) * quantum_ns
                else:
                    lst.append([at, at + int(row["quanta"]) * quantum_ns])
            elif lst and lst[-1][1] > at:
                lst[-1][1] = at
        self.assertGreaterEqual(len(pauses), 2, "the incast pauses several senders")
        # The MAC's response delay: frames granted before the PAUSE arrived (the arbiter's
        # 8-cycle lookahead at 4 ns, one 1 KB-MTU frame on the wire, one cycle).
        bound_ns = 8 * 4 + (1024 + 58 + 24) * 8 / 100 + 4
        checked = 0
        for host, spans in pauses.items():
            for ts_ps, f in pcap_records(r.path(host + "_tx.pcap")):
                op, _, n = bth(f)
                if op is None or op in (0x11, 0x81):  # not data (ACK, CNP)
                    continue
                start = ts_ps / 1000.0 - (max(n, 60) + 24) * 8 / 100 - prop_ns
                for a, b in spans:
                    self.assertFalse(a + bound_ns < start < b - 0.001,
                                     "%s started a data frame at %.3f ns, paused [%.3f, %.3f)"
                                     % (host, start, a, b))
                checked += 1
        self.assertGreater(checked, 1000)
        st = r.stats_json["stats"]
        paused = sum(v["value"] for k, v in st.items() if k.endswith("mac.data_paused_cycles"))
        self.assertGreater(paused, 0)

    def ring(self):
        # Five switches in a ring, a host on each; every host sends to the host two
        # switches on: the only shortest path goes clockwise, so each ring link's queue
        # waits on the next: a cyclic buffer dependency.
        topo = self.write("ring.txt", "10 5 10\n5 6 7 8 9\n" +
                          "".join("%d %d 100Gbps 1000ns 0\n" % (i, 5 + i) for i in range(5)) +
                          "".join("%d %d 100Gbps 1000ns 0\n" % (5 + i, 5 + (i + 1) % 5)
                                  for i in range(5)))
        flows = self.write("flows.txt", "5\n" + "".join("%d %d 3 100 4000000 0\n" % (i, (i + 2) % 5)
                                                        for i in range(5)))
        return ["--set", "topology.kind=file", "--set", "topology.file=" + topo, "--set",
                "flows.file=" + flows, "--set", "tx.rate=none", "--set", "nic.pmtu_bytes=1024"]

    def test_a_pfc_deadlock_is_reported_with_its_cycle(self):
        r = self.fabric(*(self.ring() + ["--set", "switch.pfc=true", "--set",
                                         "switch.xoff_bytes=32K", "--set", "switch.xon_bytes=16K"]),
                        ok=False)
        self.assertFalse(r.timed_out, r.describe())
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("stalled", r.stderr)
        self.assertIn("PFC deadlock: cycle n5 -> n6 -> n7 -> n8 -> n9 -> n5", r.stderr)
        self.assertIn("paused until", r.stderr)
        self.assertTrue(r.stats_json["run"]["stalled"])
        self.assertIn("STALLED", open(r.path("summary.txt")).read())
        # Lossless: nothing was dropped for want of headroom.
        st = r.stats_json["stats"]
        self.assertEqual(sum(v["value"] for k, v in st.items() if k.endswith("drops.headroom")), 0)
        # Lossy, the same traffic completes.
        self.assertOk(self.fabric(*self.ring()))

    def test_a_network_that_loses_everything_stalls(self):
        r = self.fabric("--set", "switch.loss_rate=1", "--set", "flows.bytes=64K", "--set",
                        "run.stall_ms=1", config=os.path.join(EXAMPLES, "fabric-kpaths.yaml"),
                        ok=False)
        self.assertEqual(r.rc, 1, r.describe())
        self.assertIn("no PFC pause or XOFF in force", r.stderr)


if __name__ == "__main__":
    unittest.main()
