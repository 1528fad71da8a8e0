#!/usr/bin/python3
"""`oonic compare` and `nic.ordering`: every receive-order scheme runs in the NIC.

On the default trace the table has one row per scheme, ORNIC's row matches a
plain replay, and the schemes that cannot take the trace's reordering at line
rate (GBN; MELO's front/end-only access; MELO+'s second PCIe pass through its
re-order buffer) are the ones whose host memory is incomplete. In
two-NIC runs every scheme keeps the scoreboard clean under reordering within 63
and under 1 % loss (slow schemes may be slow, never wrong).
"""
import csv
import re
import os
import unittest

import oonic_e2e as e2e

SCHEMES = ["ornic", "gbn", "irn", "static", "melo", "melo+", "left", "left+", "mprdma", "uet-rud",
           "uet-rod", "eunomia"]


def rows(path):
    with open(path) as f:
        return {r["scheme"]: r for r in csv.DictReader(f)}


class Compare(e2e.OonicTestCase):
    def eunomia_run(self, *sets):
        """A two-NIC run with nic.ordering=eunomia and `sets` (KEY=VALUE); asserts exit 0 and
        a clean scoreboard; returns (stats.json, results directory)."""
        out = os.path.join(self.mkdtemp(), "r")
        args = ["run", "-", "--out", out, "--quiet", "--set", "nic.ordering=eunomia"]
        for kv in sets:
            args += ["--set", kv]
        self.assertOk(e2e.run_oonic(args))
        j = e2e.load_json(os.path.join(out, "stats.json"))
        self.assertTrue(j["scoreboard"]["ok"], j["scoreboard"]["text"])
        return j, out

    def test_default_trace_every_scheme(self):
        out = os.path.join(self.mkdtemp(), "cmp")
        r = e2e.run_oonic(["compare", e2e.trace_path("default.txt"), "--out", out], timeout=120)
        self.assertOk(r)
        for s in SCHEMES:
            self.assertIn("| %s |" % s, r.stdout)
        t = rows(os.path.join(out, "compare.csv"))
        self.assertEqual(list(t), SCHEMES)
        plain = self.replay_ok(e2e.trace_path("default.txt"))
        self.assertEqual(int(t["ornic"]["end_cycle"]), plain.stats_json["run"]["end_cycle"])
        self.assertEqual(int(t["ornic"]["bitmap_naks"]), 1)  # the one bitmap NAK
        self.assertEqual(int(t["irn"]["sacks"]), int(t["eunomia"]["sacks"]))  # one per OOO packet
        self.assertGreater(int(t["eunomia"]["sacks"]), 0)
        for s in ("ornic", "irn", "static", "left", "left+", "uet-rud", "eunomia"):
            self.assertEqual(t[s]["integrity"], "OK", s)
            self.assertEqual(t[s]["drops"], "0", s)
        # UET's receiver: IRN's bitmap (the same SRAM), its ACKs coalesced: fewer SACKs.
        self.assertEqual(t["uet-rud"]["ordering_sram_peak_bits"], t["irn"]["ordering_sram_peak_bits"])
        self.assertLess(int(t["uet-rud"]["sacks"]), int(t["irn"]["sacks"]))
        self.assertGreater(int(t["uet-rud"]["sacks"]), 0)
        # MP-RDMA's L = 64 slots (bitmap.mprdma_slots) is narrower than the trace's
        # reordering: what lands at or past rcv_nxt + 64 is dropped and NACKed, and a
        # replay cannot resend. With the others' window (L = N x M = 320) nothing drops.
        mpst = e2e.load_json(os.path.join(out, "mprdma", "stats.json"))["stats"]
        self.assertGreater(mpst["nic0.rx.drops.beyond_window"]["value"], 0)
        self.assertEqual(int(t["mprdma"]["nacks"]), mpst["nic0.rx.drops.beyond_window"]["value"])
        self.assertEqual(t["mprdma"]["integrity"], "MISMATCH")
        wide = e2e.run_oonic(["compare", e2e.trace_path("default.txt"), "--out", out + "-wide",
                              "--ordering", "mprdma", "--set", "bitmap.mprdma_slots=0"],
                             timeout=120)
        self.assertOk(wide)
        w = rows(os.path.join(out + "-wide", "compare.csv"))["mprdma"]
        self.assertEqual((w["integrity"], w["drops"]), ("OK", "0"))
        # GBN takes only in-order packets; MELO drops middle accesses. A replay cannot
        # resend: host memory is short.
        for s in ("gbn", "melo"):
            self.assertEqual(t[s]["integrity"], "MISMATCH", s)
            self.assertGreater(int(t[s]["drops"]), 0, s)
        # MELO+ tracks the middle too; its re-order buffer's second PCIe pass takes only
        # the write channel's idle cycles, so nothing delivered is dropped (issue 26: it
        # used to fill the Req Pkt Buffer) and the copies end after ORNIC's last write.
        self.assertEqual((t["melo+"]["integrity"], t["melo+"]["drops"]), ("OK", "0"))
        mp = e2e.load_json(os.path.join(out, "melo+", "stats.json"))["stats"]
        self.assertEqual(mp["nic0.rx.drops.req_pkt_buffer_full"]["value"], 0)
        self.assertGreater(mp["nic0.rx.req_processor.rob_copies"]["value"], 0)
        self.assertGreater(int(t["melo+"]["end_cycle"]), int(t["ornic"]["end_cycle"]))
        # Every scheme's own results directory is there.
        for s in SCHEMES:
            self.assertTrue(os.path.exists(os.path.join(out, s, "stats.json")), s)

    def test_ornic_against_eunomia(self):
        # --ordering picks the schemes; the second table lists each ordering SRAM.
        out = os.path.join(self.mkdtemp(), "cmp")
        r = e2e.run_oonic(["compare", e2e.trace_path("default.txt"), "--ordering", "ornic,eunomia",
                           "--out", out], timeout=120)
        self.assertOk(r)
        t = rows(os.path.join(out, "compare.csv"))
        self.assertEqual(list(t), ["ornic", "eunomia"])
        with open(os.path.join(out, "compare_sram.csv")) as f:
            per = {(x["scheme"], x["structure"]): x for x in csv.DictReader(f)}
        self.assertEqual(sorted(k[1] for k in per if k[0] == "ornic"),
                         ["bitmap.block_pool", "bitmap.node_array"])
        self.assertEqual(sorted(k[1] for k in per if k[0] == "eunomia"),
                         ["eunomia.block_alloc_bitmap", "eunomia.conn_to_module_map",
                          "eunomia.master_array", "eunomia.metadata_start_index"])
        # The first table's total is the sum of the structures.
        for s in ("ornic", "eunomia"):
            total = sum(int(v["peak_bits"]) for k, v in per.items() if k[0] == s)
            self.assertEqual(int(t[s]["ordering_sram_peak_bits"]), total, s)
            self.assertIn("| %s | " % s, r.stdout)
        self.assertIn("| eunomia | eunomia.master_array |", r.stdout)
        # Eunomia's master array holds 16 bits per block: metadata and rows.
        self.assertEqual(int(per[("eunomia", "eunomia.master_array")]["peak_bits"]) % 16, 0)

    def test_every_scheme_keeps_the_scoreboard_clean(self):
        for net in ("network.ooo_distance=63", "network.loss_rate=0.01"):
            out = os.path.join(self.mkdtemp(), "cmp")
            r = e2e.run_oonic(["compare", "--run", "-", "--out", out,
                               "--set", "workload.qps=4", "--set", "workload.wqes_per_qp=4",
                               "--set", "workload.wqe_bytes=256K", "--set", "workload.mix=write:1,read:1",
                               "--set", "workload.mode=ooo", "--set", "run.pcap=false",
                               "--set", net], timeout=300)
            self.assertOk(r)
            t = rows(os.path.join(out, "compare.csv"))
            self.assertEqual(list(t), SCHEMES)
            for s, row in t.items():
                self.assertEqual(row["scoreboard"], "OK", (net, s))
            if "ooo_distance" in net:
                # MELO parks out-of-order data in host memory and copies it when the head
                # passes: B's PCIe carries that second pass; ORNIC writes in place once.
                stats = {s: e2e.load_json(os.path.join(out, s, "stats.json"))["stats"]
                         for s in ("ornic", "melo")}
                self.assertGreater(stats["melo"]["b.nic.rx.req_processor.rob_copies"]["value"], 0)
                self.assertGreater(stats["melo"]["b.pcie.read_bytes"]["value"],
                                   stats["ornic"]["b.pcie.read_bytes"]["value"])
                # MELO's NACKs travel as Scheme Feedback frames and reach A's Rsp Manager.
                self.assertGreater(stats["melo"]["b.nic.tx.hdr_generator.scheme_feedback"]["value"], 0)
                self.assertEqual(stats["melo"]["a.nic.control.rsp_manager.scheme_feedback"]["value"],
                                 stats["melo"]["a.nic.rx.rsp_processor.scheme_feedback"]["value"])
                self.assertEqual(stats["ornic"]["b.nic.tx.hdr_generator.scheme_feedback"]["value"], 0)
                # ORNIC tracks the reordering; the in-order receiver goes back N.
                self.assertEqual(int(t["ornic"]["retransmitted"]), 0)
                self.assertGreater(int(t["gbn"]["retransmitted"]), 100)
                self.assertGreater(float(t["ornic"]["gbps"]), 3 * float(t["gbn"]["gbps"]))

    def test_eunomia_lost_last_packet(self):
        # The last packet of the first 256 KB OOO WRITE (PSN 63) and three before it are
        # lost: nothing follows while Eunomia's sender holds the next WQE, so the timeout
        # resends them; Eunomia's metadata (Head, last) rides on every data packet.
        j, out = self.eunomia_run("workload.wqe_bytes=256K", "network.ooo_distance=8",
                                  "network.drop_psns=ab:60-63@0x2000")
        st = j["stats"]
        self.assertEqual(st["network.ab.dropped_listed"]["value"], 4)
        self.assertGreaterEqual(st["a.nic.control.rsp_manager.timeouts"]["value"], 1)
        self.assertGreater(j["sram"]["b.eunomia.master_array"]["peak_bits"], 0)
        self.assertEqual(st["a.nic.tx.sender_agent.last_packet_holds"]["value"], 4)
        # Every bitmap was freed at its Last Seq: the master array ends empty.
        self.assertEqual(st["b.nic.rx.bitmap_manager.receiver_agent.hd_bitmap.garbage_collections"]
                         ["value"], 4)
        self.assertEqual(j["sram"]["b.eunomia.master_array"]["final_bits"], 0)

    def test_eunomia_out_of_order_send(self):
        # With nic.ordering=eunomia an OOO-mode SEND travels out of order (Head + last
        # metadata); the receiver places each packet in the receive buffer and completes
        # the message at Last Seq. Under reordering alone nothing is resent (a SACK starts
        # no recovery, READ responses included); under 1 % loss the timeouts recover.
        for net, clean in (("network.ooo_distance=63", True), ("network.loss_rate=0.01", False)):
            j, out = self.eunomia_run("workload.mix=write:1,read:1,send:1", "workload.qps=4",
                                      "workload.wqes_per_qp=6", "workload.wqe_bytes=256K", net)
            with open(os.path.join(out, "wqes.csv")) as f:
                sends = [w for w in csv.DictReader(f) if w["opcode"] == "SEND"]
            self.assertGreater(len(sends), 0)
            self.assertTrue(all(w["ooo"] == "1" for w in sends), net)
            st = j["stats"]
            self.assertEqual(st["b.nic.rx.req_processor.messages"]["value"], 24)
            if clean:
                self.assertEqual(st["a.nic.tx.qp_manager.retransmitted"]["value"], 0)
                self.assertEqual(st["a.nic.control.rsp_manager.read_rerequests"]["value"], 0)
                self.assertEqual(st["b.nic.rx.drops.total"]["value"], 0)

    def test_eunomia_acks_every_in_order_packet_under_ackreq(self):
        # The sender agent's last-packet hold waits for the cumulative ACK: Eunomia's
        # receiver ACKs in-order packets under any ack_policy, so no WQE waits for a timeout.
        j, out = self.eunomia_run("rx.req_processor.ack_policy=ackreq", "workload.wqe_bytes=256K",
                                  "network.ooo_distance=8")
        self.assertEqual(j["stats"]["a.nic.control.rsp_manager.timeouts"]["value"], 0)
        self.assertGreater(j["stats"]["a.nic.tx.sender_agent.last_packet_holds"]["value"], 0)

    def test_eunomia_vcd_signals(self):
        # The receiver agent's verdict and the memory controller's used blocks are in the
        # bitmap group; used_blocks peaks at the master array's peak occupancy / 16.
        run = self.replay_ok(e2e.trace_path("default.txt"), "--set", "nic.ordering=eunomia",
                             "--vcd=bitmap")
        text = open(run.path("waves.vcd")).read()
        ids, scope = {}, []
        for m in re.finditer(r"\$scope module (\S+) \$end|\$upscope \$end|\$var wire \d+ (\S+) (\S+) \$end",
                             text[:text.index("$enddefinitions")]):
            if m.group(1):
                scope.append(m.group(1))
            elif m.group(2):
                ids[".".join(scope + [m.group(3)])] = m.group(2)
            else:
                scope.pop()
        agent = "nic0.rx.bitmap_manager.receiver_agent."
        self.assertIn(agent + "verdict", ids)
        used = ids[agent + "memory_controller.used_blocks"]
        body = text[text.index("$enddefinitions"):]
        values = [int(v, 2) for v in re.findall(r"^b([01]+) " + re.escape(used) + "$", body, re.M)]
        peak = run.stats_json["sram"]["eunomia.master_array"]["peak_bits"]
        self.assertGreater(len(values), 2)
        self.assertEqual(max(values) * 16, peak)

    def test_eunomia_timeout_resends_only_what_no_sack_marked(self):
        # PSN 30 of the first WQE is lost. Eunomia's receiver SACKs everything after it and
        # sends no NAK, so the timeout recovers: the sender agent resends PSN 30 alone and
        # skips the 32 PSNs its SACK scoreboard marked (go-back-N would resend 33).
        j, out = self.eunomia_run("workload.wqe_bytes=256K", "network.ooo_distance=8",
                                  "network.drop_psns=ab:30@0x2000")
        st = j["stats"]
        self.assertEqual(st["a.nic.control.rsp_manager.timeouts"]["value"], 1)
        self.assertEqual(st["a.nic.control.rsp_manager.go_backs"]["value"], 0)
        self.assertEqual(st["a.nic.tx.sender_agent.timeout_resends"]["value"], 1)
        self.assertEqual(st["a.nic.tx.sender_agent.timeout_skipped"]["value"], 32)
        self.assertEqual(st["a.nic.tx.qp_manager.retransmitted"]["value"], 1)

    def test_tshark_dissects_scheme_feedback(self):
        if e2e.tshark_bin() is None:
            raise unittest.SkipTest("tshark not installed")
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", "-", "--out", out, "--quiet", "--set", "nic.ordering=melo",
                           "--set", "network.ooo_distance=63", "--set", "workload.wqe_bytes=256K"])
        self.assertOk(r)
        pcap = os.path.join(out, "b_to_a.pcap")
        rows = e2e.tshark_fields(pcap, ["infiniband.bth.opcode", "infiniband.bth.psn"],
                                 extra=["-Y", "infiniband.bth.opcode == 30"])
        self.assertGreater(len(rows), 0)
        p = e2e.run_tshark(["-r", pcap, "-Y", "_ws.malformed"])
        self.assertEqual(p.stdout.strip(), "")

    def test_bad_input(self):
        self.assertError(e2e.run_oonic(["compare", e2e.trace_path("default.txt"), "--schemes",
                                        "ornic,foo"]), "foo")
        self.assertError(e2e.run_oonic(["compare", "/nonexistent.pcap"]), "nonexistent.pcap")
        self.assertError(e2e.run_oonic(["compare"]), "no TRACE")
        self.assertError(e2e.run_oonic(["replay", e2e.trace_path("default.txt"), "--set",
                                        "nic.ordering=bogus"]), "nic.ordering", "bogus")
        r = e2e.run_oonic(["compare", "--help"])
        self.assertOk(r)
        self.assertIn("--schemes", r.stdout)


if __name__ == "__main__":
    unittest.main()
