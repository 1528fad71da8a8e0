#!/usr/bin/python3
"""`oonic trace` at the command line: synth -> perturb -> stats --json round trips,
perturb against scripts/gen-trace's own shuffle and loss, perturbed traces replayed
with data integrity OK (the sidecar follows the trace), and convert round trips of
the real captures (frames and timestamps read back with scapy).

OONIC_BIN: the oonic binary (default <source>/build/oonic).
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("OONIC_BIN", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build",
                                                "oonic"))
import oonic_e2e as e2e  # noqa: E402


def rows(path):
    """Packet lines of a text trace: dicts with the fields and 'comment'."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            body, _, comment = line.partition(" # ")
            body = body.split("#", 1)[0].strip()
            if not body or body.startswith("@"):
                continue
            toks = body.split()
            d = {"time": toks[0], "comment": comment.strip()}
            for t in toks[1:]:
                k, v = t.split("=", 1)
                d[k] = v
            out.append(d)
    return out


def per_qp(path):
    """{qp: [(op, psn, retransmission?), ...]} of a text trace."""
    m = {}
    for r in rows(path):
        m.setdefault(int(r["qp"], 0), []).append(
            (r["op"], int(r["psn"]), "retransmission" in r["comment"]))
    return m


class TraceTools(e2e.OonicTestCase):

    def oonic_ok(self, *args):
        r = e2e.run_oonic(list(args))
        self.assertOk(r)
        return r

    def stats(self, trace, *extra):
        r = self.oonic_ok("trace", "stats", trace, "--json", *extra)
        import json
        return json.loads(r.stdout)

    def gen_trace(self, *args):
        cmd = [sys.executable, os.path.join(e2e.SOURCE_DIR, "scripts", "gen-trace")] + list(args)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=e2e.TIMEOUT)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_help(self):
        r = self.oonic_ok("--help")
        self.assertRegex(r.stdout, r"\n  trace +trace tools")
        for sub, needle in (("convert", ".pcapng"), ("synth", "--eunomia-metadata"),
                            ("perturb", "--ooo-distance"), ("stats", "rcv_nxt")):
            r = self.oonic_ok("trace", sub, "--help")
            self.assertIn(needle, r.stdout)
        r = e2e.run_oonic(["trace"])
        self.assertEqual(r.rc, 2)
        self.assertIn("convert", r.stdout)

    def test_perturb_then_stats_round_trip(self):
        d = self.mkdtemp()
        src = os.path.join(d, "in.txt")
        self.oonic_ok("trace", "synth", "--out", src, "--qps", "2", "--wqes", "3",
                      "--wqe-bytes", "64K", "--pmtu", "1024", "--mode", "standard")
        s0 = self.stats(src)
        self.assertEqual(s0["data_packets"], 384)
        self.assertEqual(s0["ood"]["max"], 0)
        with open(os.path.join(d, "in.qps.yaml")) as f:
            sidecar = f.read()
        for dist in (0, 4, 31):
            reached = 0
            for seed in (1, 2, 3, 4):
                out = os.path.join(d, "out-%d-%d.txt" % (dist, seed))
                self.oonic_ok("trace", "perturb", src, out, "--ooo-distance", dist,
                              "--seed", seed)
                with open(os.path.join(d, "out-%d-%d.qps.yaml" % (dist, seed))) as f:
                    self.assertEqual(f.read(), sidecar, "perturb copies the sidecar")
                s = self.stats(out)
                self.assertEqual(s["data_packets"], 384)
                self.assertEqual(s["duplicates"], 0)
                self.assertEqual(s["gaps"], 0)
                self.assertLessEqual(s["ood"]["max"], dist)
                self.assertLessEqual(s["lateness"]["max"], dist)
                self.assertLessEqual(s["ood"]["p999"], s["ood"]["max"])
                reached = max(reached, s["ood"]["max"])
                # Same interleaving of the QPs, same times: only the order in a QP changes.
                a, b = rows(src), rows(out)
                self.assertEqual([r["qp"] for r in a], [r["qp"] for r in b])
                self.assertEqual([r["time"] for r in a], [r["time"] for r in b])
            self.assertEqual(reached, dist)

    def test_drops_duplicates_and_no_retx(self):
        d = self.mkdtemp()
        src = os.path.join(d, "in.txt")
        self.oonic_ok("trace", "synth", "--out", src, "--qps", "2", "--wqes", "2",
                      "--wqe-bytes", "16K", "--pmtu", "1024", "--mode", "standard")
        out = os.path.join(d, "out.txt")
        self.oonic_ok("trace", "perturb", src, out, "--drop-psn", "3,10", "--retx-after", "2",
                      "--duplicate-rate", "0.1", "--seed", "7")
        lines = rows(out)
        dups = sum(1 for r in lines if "duplicate" in r["comment"])
        self.assertGreater(dups, 0)
        s = self.stats(out)
        self.assertEqual(s["duplicates"], dups)
        self.assertEqual(s["gaps"], 0)
        for qp, seq in per_qp(out).items():
            firsts = [p for op, p, rt in seq if not rt]
            for lost in (3, 10):
                self.assertNotIn(lost, firsts)
                self.assertEqual([p for op, p, rt in seq if rt], [3, 10])
            # PSN 3 comes back after PSN 5 (2 places later), PSN 10 after 12.
            psns = [p for op, p, rt in seq]
            self.assertEqual(psns.index(3), psns.index(5) + 1 + (psns.count(5) - 1))
        out2 = os.path.join(d, "out2.txt")
        self.oonic_ok("trace", "perturb", src, out2, "--drop-psn", "3,10", "--no-retx")
        s = self.stats(out2)
        self.assertEqual(s["gaps"], 4)  # 2 PSNs x 2 QPs, never seen
        self.assertEqual(s["qps"][0]["gap_ranges"], [[3, 3], [10, 10]])
        self.assertEqual(s["data_packets"], 60)  # 2 QPs x 32 packets - 4

    def test_same_order_as_gen_trace(self):
        # gen-trace shuffles and loses in one go; gen-trace in order + perturb with
        # the same seed gives the same arrival order in every QP.
        d = self.mkdtemp()
        common = ["--wqes", "3", "--wqe-bytes", "64K", "--fspot-count", "16"]
        for qps, loss in (("1", "0.05"), ("3", "0")):
            src, ref, out = (os.path.join(d, n + qps + ".txt") for n in ("in", "ref", "out"))
            self.gen_trace("--out", src, "--qps", qps, *common)
            self.gen_trace("--out", ref, "--qps", qps, "--ooo-distance", "10", "--loss-rate",
                           loss, "--seed", "5", *common)
            self.oonic_ok("trace", "perturb", src, out, "--ooo-distance", "10", "--drop-rate",
                          loss, "--seed", "5")
            self.assertEqual(per_qp(out), per_qp(ref))
            if loss == "0":  # no losses: the whole file, QP interleaving included
                self.assertEqual([(r["qp"], r["psn"]) for r in rows(out)],
                                 [(r["qp"], r["psn"]) for r in rows(ref)])
            else:
                self.assertTrue(any(rt for v in per_qp(out).values() for _, _, rt in v))

    def test_synth_is_gen_trace_for_writes(self):
        d = self.mkdtemp()
        out = os.path.join(d, "w.txt")
        self.oonic_ok("trace", "synth", "--out", out, "--mode", "standard", "--wqes", "3",
                      "--wqe-bytes", "16K")
        strip = lambda rs: [{k: v for k, v in r.items() if k != "comment"} for r in rs]  # noqa
        self.assertEqual(strip(rows(out)), strip(rows(e2e.trace_path("inorder-write.txt"))))

    def test_perturbed_traces_replay_with_integrity(self):
        d = self.mkdtemp()
        cases = [
            # ORNIC OOO WRITE (auto unit: each WQE shuffled on its own), drops
            # retransmitted within OTD, duplicates; text and pcap outputs.
            ("ooo.txt", ["--qps", "2", "--wqes", "4", "--wqe-bytes", "64K"],
             ["--ooo-distance", "7", "--drop-rate", "0.03", "--duplicate-rate", "0.03",
              "--seed", "3"], "p1.txt"),
            ("ooo2.txt", ["--qps", "2", "--wqes", "4", "--wqe-bytes", "64K"],
             ["--ooo-distance", "7", "--seed", "4"], "p2.pcap"),
            # Standard traffic with READs and SENDs: only duplicates (an in-order
            # receiver drops them, the data stays right).
            ("std.txt", ["--qps", "2", "--wqes", "6", "--wqe-bytes", "8K", "--mode", "standard",
                         "--mix", "write=50,read=25,send=25", "--seed", "2"],
             ["--duplicate-rate", "0.2", "--seed", "1"], "p3.txt"),
        ]
        for src, synth_args, perturb_args, out in cases:
            src, out = os.path.join(d, src), os.path.join(d, out)
            self.oonic_ok("trace", "synth", "--out", src, *synth_args)
            r = self.oonic_ok("trace", "perturb", src, out, *perturb_args)
            self.assertTrue(os.path.exists(os.path.splitext(out)[0] + ".qps.yaml"), r.stderr)
            res = self.replay_ok(out)
            integ = res.stats_json["integrity"]
            self.assertTrue(integ["checked"], integ)
            self.assertTrue(integ["ok"], "%s: %s\n%s" % (out, integ, res.stdout))
            self.assertIn("from the sidecar", res.stdout)

    def check_eunomia_keys(self, path, start_psn=0):
        """Every OOO WRITE line carries eunomia_head = its message's first PSN and
        eunomia_last=1 exactly on the message's last packet; no other line has the
        keys (a retransmission repeats its line). Returns the number of lines with the
        keys."""
        tagged = 0
        by_psn = {}  # qp -> {psn: a line}
        for r in rows(path):
            by_psn.setdefault(r["qp"], {})[int(r["psn"])] = r
            if r["op"].startswith("OOO_WRITE"):
                tagged += 1
        for pkts in by_psn.values():
            start = None  # first PSN of the message in progress, walking in PSN order
            for psn in sorted(pkts, key=lambda p: (p - start_psn) & 0xFFFFFF):
                r = pkts[psn]
                op = r["op"]
                if start is None:
                    start = psn
                ends = op.endswith("LAST") or op.endswith("LAST_FSPOT") or op.endswith("ONLY") \
                    or op.startswith("READ_REQUEST") or op.startswith("OOO_READ_REQUEST")
                if op.startswith("OOO_WRITE"):
                    self.assertEqual(int(r["eunomia_head"]), start, r)
                    self.assertEqual(r.get("eunomia_last"), "1" if ends else None, r)
                else:
                    self.assertNotIn("eunomia_head", r)
                    self.assertNotIn("eunomia_last", r)
                if ends:
                    start = None
        return tagged

    def replay_both_orderings(self, trace):
        """Replays with nic.ordering eunomia and with the default (ornic): both place
        every byte. Returns the two runs."""
        runs = []
        for extra, scheme in ((["--set", "nic.ordering=eunomia"], "eunomia"), ([], "ornic")):
            res = self.replay_ok(trace, *extra)
            with open(res.path("config.yaml")) as f:
                self.assertRegex(f.read(), r'\n  ordering: "%s"' % scheme)
            integ = res.stats_json["integrity"]
            self.assertTrue(integ["checked"], integ)
            self.assertTrue(integ["ok"], "%s %s: %s\n%s" % (trace, extra, integ, res.stdout))
            runs.append(res)
        return runs

    def test_synth_eunomia_metadata(self):
        d = self.mkdtemp()
        # In order, WRITEs and SENDs: the keys on the OOO WRITE lines only.
        mixed = os.path.join(d, "mixed.txt")
        args = ["--qps", "2", "--wqes", "4", "--wqe-bytes", "20K", "--mix", "write=1,send=1",
                "--seed", "2", "--start-psn", "0xfffff8"]
        self.oonic_ok("trace", "synth", "--out", mixed, "--eunomia-metadata", *args)
        tagged = self.check_eunomia_keys(mixed, 0xfffff8)
        ops = [r["op"] for r in rows(mixed)]
        self.assertGreater(tagged, 0)
        self.assertTrue(any(op.startswith("SEND") for op in ops), ops)
        self.assertEqual(self.stats(mixed)["eunomia_meta"], tagged)
        # The NIC parses the 8-byte header on each tagged frame (and ORNIC ignores it).
        plain = os.path.join(d, "plain.txt")
        self.oonic_ok("trace", "synth", "--out", plain, *args)
        self.assertEqual(self.stats(plain)["eunomia_meta"], 0)
        runs = self.replay_both_orderings(mixed)
        for with_meta, extra in zip(runs, (["--set", "nic.ordering=eunomia"], [])):
            base = self.replay_ok(plain, *extra)
            self.assertEqual(with_meta.stat("nic0.rx.parser.bytes") - base.stat(
                "nic0.rx.parser.bytes"), 8 * tagged, extra)
        # Reordered within each WQE (write only): still every byte placed.
        writes = os.path.join(d, "w.txt")
        shuffled = os.path.join(d, "w-ooo.txt")
        self.oonic_ok("trace", "synth", "--out", writes, "--qps", "2", "--wqes", "3",
                      "--wqe-bytes", "64K", "--eunomia-metadata")
        self.oonic_ok("trace", "perturb", writes, shuffled, "--ooo-distance", "7", "--seed", "3")
        self.assertEqual(self.check_eunomia_keys(shuffled), 96)
        self.assertGreater(self.stats(shuffled)["ood"]["max"], 0)
        self.replay_both_orderings(shuffled)
        # pcap -> text keeps the keys.
        pc, back = os.path.join(d, "w.pcap"), os.path.join(d, "w-back.txt")
        self.oonic_ok("trace", "convert", shuffled, pc)
        self.oonic_ok("trace", "convert", pc, back)
        strip = lambda rs: [{k: v for k, v in r.items() if k not in ("comment", "time")}  # noqa
                            for r in rs]
        self.assertEqual(strip(rows(back)), strip(rows(shuffled)))

    def test_gen_trace_eunomia_metadata(self):
        d = self.mkdtemp()
        # Without reordering, gen-trace and synth write the same lines (times included).
        g, s = os.path.join(d, "g.txt"), os.path.join(d, "s.txt")
        common = ["--qps", "2", "--wqes", "2", "--wqe-bytes", "16K", "--eunomia-metadata"]
        self.gen_trace("--out", g, *common)
        self.oonic_ok("trace", "synth", "--out", s, *common)
        strip = lambda rs: [{k: v for k, v in r.items() if k != "comment"} for r in rs]  # noqa
        self.assertEqual(strip(rows(g)), strip(rows(s)))
        # Shuffled, a PSN lost and retransmitted: the keys follow the packet.
        out = os.path.join(d, "eu.txt")
        self.gen_trace("--out", out, "--qps", "2", "--wqes", "3", "--wqe-bytes", "32K",
                       "--ooo-distance", "5", "--lose-psn", "3", "--eunomia-metadata")
        self.assertEqual(self.check_eunomia_keys(out), 48)
        self.assertTrue(any("retransmission" in r["comment"] for r in rows(out)))
        self.replay_both_orderings(out)
        p = subprocess.run([sys.executable, os.path.join(e2e.SOURCE_DIR, "scripts", "gen-trace"),
                            "--out", os.path.join(d, "x.txt"), "--mode", "standard",
                            "--eunomia-metadata"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=e2e.TIMEOUT)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--eunomia-metadata needs --mode ooo", p.stderr)

    def test_convert_captures_round_trip(self):
        import importlib
        for m in ("scapy.layers.l2", "scapy.layers.inet"):  # LINKTYPE_ETHERNET -> Ether, IP
            importlib.import_module(m)
        from scapy.utils import rdpcap  # lazy: scapy is slow to import
        d = self.mkdtemp()
        caps = e2e.all_captures()
        self.assertEqual(len(caps), 5)
        for cap in caps:
            name = os.path.basename(cap)
            txt, back, ng = (os.path.join(d, name + ext) for ext in (".txt", ".pcap", ".pcapng"))
            self.oonic_ok("trace", "convert", cap, txt)
            self.oonic_ok("trace", "convert", txt, back)
            self.oonic_ok("trace", "convert", txt, ng)
            orig = rdpcap(cap)
            for copy in (back, ng):
                got = rdpcap(copy)
                self.assertEqual(len(orig), len(got), copy)
                for i, (a, b) in enumerate(zip(orig, got)):
                    self.assertEqual(bytes(a), bytes(b), "%s frame %d" % (copy, i + 1))
                    self.assertEqual(a.wirelen, b.wirelen)
                    self.assertEqual(int(a.time * 10**9), int(b.time * 10**9),
                                     "%s frame %d time" % (copy, i + 1))

    def test_errors(self):
        d = self.mkdtemp()
        r = e2e.run_oonic(["trace", "synth", "--out", os.path.join(d, "e.txt"), "--mode",
                           "standard", "--eunomia-metadata"])
        self.assertError(r, "--eunomia-metadata needs --mode ooo")
        eu = os.path.join(d, "eu.txt")
        with open(eu, "w") as f:
            f.write("0 op=OOO_WRITE_SPOT qp=1 psn=0 eunomia_head=0\n"
                    "1 op=ACK qp=1 psn=0 eunomia_head=0\n")
        self.assertError(e2e.run_oonic(["replay", eu, "--out", os.path.join(d, "r")]),
                         eu + ":2:", "'eunomia_head'", "not carried by ACK")
        missing = os.path.join(d, "nope.txt")
        self.assertError(e2e.run_oonic(["trace", "perturb", missing, os.path.join(d, "o.txt")]),
                         missing)
        bad = os.path.join(d, "bad.txt")
        with open(bad, "w") as f:
            f.write("0 op=SEND_ONLY qp=1 psn=0\n1 op=SEND_ONLY qp=1 psn=0 lenght=3\n")
        self.assertError(e2e.run_oonic(["trace", "stats", bad]), bad + ":2:", "'lenght'")
        self.assertError(e2e.run_oonic(["trace", "convert", bad, os.path.join(d, "x.csv")]),
                         "unknown output format")


if __name__ == "__main__":
    import unittest
    unittest.main()
