#!/usr/bin/python3
"""Outside oracles on what the NIC sends: Wireshark's dissector (tshark) and scapy.

* default trace: every tx.pcap frame dissects with a BTH, nothing malformed, the
  Acknowledge frames tshark sees are exactly tx.csv's 0x11 rows (PSN, MSN, syndrome),
  every ICRC is what scapy.contrib.roce computes.
* softroce-write-read.pcap (a real SoftRoCE exchange, READ of 4096 B with PMTU 1024):
  tshark shows RDMA Read Response First/Middle/Last with PSNs = request PSN + 0..3,
  and the payloads equal the READ responses the real NIC sent in the capture.
* fabric-incast-pfc.yaml: the PFC frames a switch sent to each sender, as the sender
  received them (h<i>_rx.pcap), dissect as MAC Control class-based pauses, class 1
  enabled, with pfc.csv's quanta, well formed; the data frames beside them as RoCE.
* fabric-incast-uet.yaml: the requests a switch trimmed and the UET ACKs and NACKs
  dissect as RoCE, well formed, their ICRCs as scapy computes them.
"""

import os
import tempfile
import shutil
import unittest

import oonic_e2e as e2e
from oonic_e2e import num

# tshark names of the BTH opcodes we expect (Wireshark 4.x packet-infiniband.c)
READ_RESPONSE_NAMES = {13: "RDMA Read Response First", 14: "RDMA Read Response Middle",
                       15: "RDMA Read Response Last", 16: "RDMA Read Response Only"}
# tshark error-level expert info (epan/proto.h PI_ERROR)
PI_ERROR = 0x00800000


def setUpModule():
    if e2e.tshark_bin() is None:
        raise unittest.SkipTest("tshark not installed")


class _Replayed(e2e.OonicTestCase):
    TRACE = None

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="oonic-e2e-")
        cls.res = e2e.replay(cls.TRACE, os.path.join(cls.dir, "results"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def setUp(self):
        self.assertOk(self.res)
        self.pcap = self.res.path("tx.pcap")


class DefaultTraceTx(_Replayed):
    TRACE = e2e.trace_path("default.txt")

    def test_every_frame_has_a_bth_and_none_is_malformed(self):
        rows = e2e.tshark_fields(self.pcap, ["frame.number", "infiniband.bth.opcode",
                                             "infiniband.bth.psn", "_ws.malformed",
                                             "_ws.expert.severity"])
        tx = self.res.tx()
        self.assertEqual(len(rows), len(tx))
        self.assertGreater(len(rows), 0)
        for r in rows:
            self.assertNotEqual(r[1], "", "frame %s has no BTH: %s" % (r[0], r))
            self.assertNotEqual(r[2], "", "frame %s has no PSN: %s" % (r[0], r))
            self.assertEqual(r[3], "", "frame %s is malformed: %s" % (r[0], r))
            for sev in filter(None, r[4].split(",")):
                self.assertLess(int(sev, 0), PI_ERROR, "frame %s expert error: %s" % (r[0], r))
        # opcode and PSN of every frame, as tshark reads them, are tx.csv's
        self.assertEqual([(int(r[1], 0), int(r[2], 0)) for r in rows],
                         [(num(t["opcode"]), num(t["psn"])) for t in tx])

    def test_display_filter_malformed_is_empty(self):
        p = e2e.run_tshark(["-r", self.pcap, "-Y", "_ws.malformed"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "")
        p = e2e.run_tshark(["-r", self.pcap, "-Y", "_ws.expert.severity >= 0x00800000"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "")

    def test_acknowledge_frames_equal_tx_csv(self):
        rows = e2e.tshark_fields(self.pcap, ["infiniband.bth.opcode", "infiniband.bth.psn",
                                             "infiniband.aeth.syndrome", "infiniband.aeth.msn",
                                             "infiniband.bth.destqp", "_ws.col.Info"])
        tshark_acks = [(int(r[0], 0), int(r[1], 0), int(r[2], 0), int(r[3], 0), int(r[4], 0))
                       for r in rows if "Acknowledge" in r[5]]
        model_acks = [(num(t["opcode"]), num(t["psn"]), num(t["syndrome"]), num(t["msn"]),
                       num(t["dest_qp"])) for t in self.res.tx() if num(t["opcode"]) == 0x11]
        self.assertGreater(len(model_acks), 0)
        self.assertEqual(tshark_acks, model_acks)
        self.assertEqual(len(model_acks), self.res.stat("nic0.tx.hdr_generator.acks"))

    def test_icrc_is_what_scapy_computes(self):
        frames = self.res.tx_frames()
        self.assertGreater(len(frames), 0)
        for i, f in enumerate(frames, 1):
            exp = e2e.expected_icrc(f)
            self.assertIsNotNone(exp, "frame %d: scapy found no BTH" % i)
            self.assertEqual(e2e.decode_roce(f)["icrc"].hex(), exp.hex(), "frame %d" % i)


class ScapyIcrcOracle(unittest.TestCase):
    """The ICRC oracle itself: it must accept the real NICs' frames."""

    def test_captured_icrcs_verify(self):
        n = 0
        for cap in e2e.all_captures():
            for f in e2e.read_pcap_frames(cap):
                d = e2e.decode_roce(f)
                if d is None or ":" in d["src_ip"] or len(d["src_ip"]) > 15:
                    continue  # scapy computes IPv4 ICRCs only
                self.assertEqual(d["icrc"], e2e.expected_icrc(f), cap)
                n += 1
        self.assertGreater(n, 100)


class SoftRoceReadResponses(_Replayed):
    TRACE = e2e.capture_path("softroce-write-read.pcap")

    def captured(self):
        """(READ request, [READ responses in order]) the capture holds (decoded with scapy)."""
        frames = [e2e.decode_roce(f) for f in e2e.read_pcap_frames(self.TRACE)]
        frames = [d for d in frames if d is not None]
        reqs = [d for d in frames if d["opcode"] == 0x0C]
        self.assertEqual(len(reqs), 1)
        resps = [d for d in frames if d["opcode"] in e2e.READ_RESPONSE_OPCODES]
        return reqs[0], resps

    def test_tshark_shows_first_middle_last_at_request_psn_plus_0_to_3(self):
        req, cap_resps = self.captured()
        rows = e2e.tshark_fields(self.pcap, ["infiniband.bth.opcode", "infiniband.bth.psn",
                                             "_ws.malformed", "_ws.col.Info"])
        resp = [r for r in rows if r[0] and int(r[0], 0) in READ_RESPONSE_NAMES]
        va, rkey, dmalen = e2e.reth(req["ext"])
        pmtu = max(len(d["payload"]) for d in cap_resps)  # 1024 in this capture
        n = -(-dmalen // pmtu)
        self.assertEqual(n, 4)
        self.assertEqual([int(r[1]) for r in resp], [(req["psn"] + i) & 0xFFFFFF for i in range(n)])
        self.assertEqual([int(r[0]) for r in resp], [13] + [14] * (n - 2) + [15])
        for r in resp:
            self.assertIn(READ_RESPONSE_NAMES[int(r[0])], r[3], r)
            self.assertEqual(r[2], "", "malformed: %s" % r)

    def test_payloads_equal_captured_read_responses(self):
        req, cap_resps = self.captured()
        tx = [e2e.decode_roce(f) for f in self.res.tx_frames()]
        tx_resps = [d for d in tx if d and d["opcode"] in e2e.READ_RESPONSE_OPCODES]
        self.assertEqual(len(tx_resps), len(cap_resps))
        for mine, theirs in zip(tx_resps, cap_resps):
            self.assertEqual(mine["psn"], theirs["psn"])
            self.assertEqual(mine["opcode"], theirs["opcode"])
            self.assertEqual(len(mine["payload"]), len(theirs["payload"]))
            self.assertEqual(mine["payload"], theirs["payload"], "PSN %d" % mine["psn"])
        total = sum(len(d["payload"]) for d in tx_resps)
        self.assertEqual(total, e2e.reth(req["ext"])[2])

    def test_payloads_via_scapy_udp_layer(self):
        # The same comparison with scapy's own dissection, as the brief spells it:
        # payload = UDP payload after BTH(12) [+ AETH(4) for First/Last/Only], before pad+ICRC.
        from scapy.all import rdpcap, UDP

        def payloads(path):
            out = []
            for p in rdpcap(path):
                if UDP not in p or p[UDP].dport != 4791:
                    continue
                u = bytes(p[UDP].payload)[:p[UDP].len - 8]
                op, pad = u[0], (u[1] >> 4) & 3
                if op not in (13, 14, 15, 16):
                    continue
                h = 12 + (4 if op in (13, 15, 16) else 0)
                out.append(u[h:len(u) - 4 - pad])
            return out

        mine, theirs = payloads(self.pcap), payloads(self.TRACE)
        self.assertEqual(len(mine), 4)
        self.assertEqual(mine, theirs)


class PfcFramesDissect(e2e.OonicTestCase):
    def test_pfc_frames_dissect_as_mac_control_with_pfc_csv_quanta(self):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", os.path.join(e2e.SOURCE_DIR, "examples", "fabric-incast-pfc.yaml"),
                           "--out", out, "--quiet", "--set", "run.link_pcap=true"], out=out)
        self.assertOk(r)
        sent = {}
        for row in e2e.load_csv(r.path("pfc.csv")):
            if row["peer"].startswith("h") and row["event"] in ("xoff_sent", "xon_sent"):
                sent.setdefault(row["peer"], []).append(int(row["quanta"]))
        self.assertGreaterEqual(len(sent), 2)
        for host, quanta in sent.items():
            rows = e2e.tshark_fields(r.path(host + "_rx.pcap"),
                                     ["macc.opcode", "macc.cbfc.enbv", "macc.cbfc.pause_time.c1",
                                      "_ws.malformed", "_ws.expert.severity"], ["-Y", "macc"])
            self.assertEqual(len(rows), len(quanta), host)
            for row in rows:
                self.assertEqual(int(row[0], 0), 0x0101)  # class-based flow control
                self.assertEqual(int(row[1], 0), 0x0002)  # class 1 (data)
                self.assertEqual(row[3], "", row)
                for sev in filter(None, row[4].split(",")):
                    self.assertLess(int(sev, 0), PI_ERROR, row)
            self.assertEqual([int(row[2], 0) for row in rows], quanta, host)
            # What else the sender received (ACKs, CNPs) is RoCE.
            other = e2e.tshark_fields(r.path(host + "_rx.pcap"), ["infiniband.bth.opcode"],
                                      ["-Y", "not macc"])
            self.assertTrue(other and all(x[0] != "" for x in other), host)


class UetFramesDissect(e2e.OonicTestCase):
    """examples/fabric-incast-uet.yaml on RoCEv2's wire (nic.wire roce; UET's own wire is
    test_uet_pds.py's, Wireshark 4.0 has no UET dissector) with link pcaps: the receiver's
    trimmed requests (DSCP 16, or 18 when trimmed at the last hop; payload cut by a
    switch) and the senders' UET ACKs and NACKs (Scheme Feedback 0x1E, types 5 and 3)
    dissect as RoCE, well formed, and their ICRCs are what scapy computes."""

    def test_trimmed_requests_and_uet_acks(self):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", os.path.join(e2e.SOURCE_DIR, "examples", "fabric-incast-uet.yaml"),
                           "--out", out, "--quiet", "--set", "run.link_pcap=true",
                           "--set", "nic.wire=roce"], out=out)
        self.assertOk(r)
        fields = ["infiniband.bth.opcode", "infiniband.bth.psn", "ip.dsfield.dscp", "_ws.malformed",
                  "_ws.expert.severity"]
        # Trimmed at a spine (DSCP 16) or at the receiver's leaf, its last hop (18).
        trimmed = e2e.tshark_fields(r.path("h0_rx.pcap"), fields,
                                    ["-Y", "ip.dsfield.dscp == 16 || ip.dsfield.dscp == 18"])
        self.assertGreater(len(trimmed), 0)
        for row in trimmed:
            self.assertNotEqual(row[0], "", row)
            self.assertEqual(row[3], "", row)
            for sev in filter(None, row[4].split(",")):
                self.assertLess(int(sev, 0), PI_ERROR, row)
        frames = e2e.read_pcap_frames(r.path("h0_rx.pcap"))
        cut = [f for f in frames if len(f) > 15 and f[15] >> 2 in (16, 18)]
        self.assertEqual(len(cut), len(trimmed))
        for f in cut:
            self.assertEqual(e2e.decode_roce(f)["icrc"].hex(), e2e.expected_icrc(f).hex())
        types = {}
        for f in e2e.read_pcap_frames(r.path("h1_rx.pcap")):
            d = e2e.decode_roce(f)
            if d is None or d["opcode"] != 0x1E:
                continue
            self.assertEqual(d["icrc"].hex(), e2e.expected_icrc(f).hex())
            t = d["udp"][20]  # the Scheme Feedback type, right after the BTH
            types[t] = types.get(t, 0) + 1
        self.assertGreater(types.get(5, 0), 0, types)  # UET ACKs
        self.assertGreater(types.get(3, 0), 0, types)  # and the trims' NACKs
        self.assertEqual(set(types) - {3, 5}, set(), types)  # and NACKs only
        rows = e2e.tshark_fields(r.path("h1_rx.pcap"), fields, ["-Y", "infiniband.bth.opcode == 30"])
        self.assertEqual(len(rows), sum(types.values()))
        for row in rows:
            self.assertEqual(row[3], "", row)


if __name__ == "__main__":
    unittest.main()
