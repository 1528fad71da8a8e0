#!/usr/bin/python3
"""DCQCN's two ends in the NIC. Reaction point: a CNP to one of the NIC's QPs is
logged `cnp` and counted by the rate core; one to an unknown QP is a `ud_or_cnp`
drop, as before. Notification point: CE-marked packets make the NIC send CNPs to
the QP's peer, at most one per cc.cnp_interval_us. With tx.rate dcqcn, data
packets go out ECN-capable (ECT(0))."""

import os
import unittest

import oonic_e2e as e2e

TRACE = """# oonic-trace v1
0 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 dmalen=64 len=64 payload=pat:0x10000
100 op=CNP qp=0x11
200 op=CNP qp=0x99
300 op=CNP qp=0x11 badicrc=1
"""

SIDECAR = """dut: {ip: 10.0.0.2, mac: "02:00:00:00:00:02"}
qps:
  - qpn: 0x11
    start_psn: 0
    regions: [{base: 0x10000, length: 0x10000, rkey: 0x1234}]
"""


class Cnp(e2e.OonicTestCase):
    def trace(self):
        d = self.mkdtemp()
        with open(os.path.join(d, "t.txt"), "w") as f:
            f.write(TRACE)
        with open(os.path.join(d, "t.qps.yaml"), "w") as f:
            f.write(SIDECAR)
        return os.path.join(d, "t.txt")

    def test_cnp_to_a_known_qp_reaches_dcqcn(self):
        r = self.replay_ok(self.trace(), "--set", "tx.rate=dcqcn")
        rows = r.packets()
        self.assertEqual([row["verdict"] for row in rows],
                         ["accepted", "cnp", "dropped", "dropped"])
        self.assertEqual(rows[1]["opcode"], "0x81")
        self.assertEqual(rows[2]["drop_reason"], "ud_or_cnp")  # QP 0x99 is not the NIC's
        self.assertEqual(rows[3]["drop_reason"], "bad_icrc")
        st = r.stats_json["stats"]
        self.assertEqual(st["nic0.tx.rate.cnps"]["value"], 1)
        self.assertEqual(st["nic0.rx.drops.ud_or_cnp"]["value"], 1)

    def test_without_a_rate_core_the_cnp_is_logged_and_ignored(self):
        r = self.replay_ok(self.trace())
        self.assertEqual(r.packets()[1]["verdict"], "cnp")
        self.assertNotIn("nic0.tx.rate.cnps", r.stats_json["stats"])
        self.assertTrue(r.stats_json["integrity"]["ok"])


    def marked_trace(self):
        # Six CE-marked WRITEs 10 us apart to QP 0x11 (peer QP 0x22), one ECT(0) one.
        d = self.mkdtemp()
        lines = ["# oonic-trace v1"]
        for k in range(6):
            lines.append(f"{k * 10000} op=WRITE_ONLY qp=0x11 psn={k} va=0x{0x10000 + 64 * k:x} "
                         f"rkey=0x1234 dmalen=64 len=64 payload=pat:0x10000 tos=0x03")
        lines.append("70000 op=WRITE_ONLY qp=0x11 psn=6 va=0x10180 rkey=0x1234 dmalen=64 len=64 "
                     "payload=pat:0x10000 tos=0x02")
        with open(os.path.join(d, "m.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "m.qps.yaml"), "w") as f:
            f.write(SIDECAR.replace("start_psn: 0", "peer_qpn: 0x22\n    start_psn: 0"))
        return os.path.join(d, "m.txt")

    def cnps_sent(self, r):
        out = []
        for fr in r.tx_frames():
            v = e2e.decode_roce(fr)
            if v and v["opcode"] == 0x81:
                v["frame"] = fr
                out.append(v)
        return out

    def test_ce_marked_packets_make_cnps_one_per_interval(self):
        tr = self.marked_trace()
        # 50 us (the default): CNPs for the packets at 0 and 50 us.
        r = self.replay_ok(tr)
        cnps = self.cnps_sent(r)
        self.assertEqual(len(cnps), 2)
        for v in cnps:
            self.assertEqual(v["dest_qp"], 0x22)
            self.assertEqual(v["psn"], 0)
            self.assertEqual(len(v["udp"]), 8 + 12 + 16 + 4)  # UDP, BTH, 16 reserved, ICRC
            self.assertEqual(v["icrc"], e2e.expected_icrc(v["frame"]))  # scapy's ICRC
            self.assertEqual(v["frame"][15] & 3, 0)  # not ECN-capable
        st = r.stats_json["stats"]
        self.assertEqual(st["nic0.rx.ce_marked"]["value"], 6)
        self.assertEqual(st["nic0.tx.hdr_generator.cnps"]["value"], 2)
        self.assertTrue(r.stats_json["integrity"]["ok"])
        # 0: one per marked packet.
        r0 = self.replay_ok(tr, "--set", "cc.cnp_interval_us=0")
        self.assertEqual(len(self.cnps_sent(r0)), 6)

    def test_ooo_arrivals_make_cnps_when_asked(self):
        """cc.cnp_on_ooo (ConWeave's commodity-NIC model): each out-of-order arrival
        asks for a CNP like a CE mark; the interval still paces them."""
        tr = os.path.join(e2e.TRACES_DIR, "ooo-small.txt")
        counts = {}
        for name, extra in (("off", []),
                            ("every", ["--set", "cc.cnp_on_ooo=true", "--set",
                                       "cc.cnp_interval_us=0"]),
                            ("paced", ["--set", "cc.cnp_on_ooo=true"])):
            r = self.replay_ok(tr, *extra)
            ooo = sum(1 for row in r.packets() if row["verdict"] == "ooo")
            self.assertGreater(ooo, 1)
            counts[name] = (len(self.cnps_sent(r)), ooo)
            self.assertEqual(r.stats_json["stats"]["nic0.rx.ce_marked"]["value"], 0)
        self.assertEqual(counts["off"][0], 0)
        self.assertEqual(counts["every"][0], counts["every"][1])  # one per OOO arrival
        self.assertEqual(counts["paced"][0], 1)  # all within 50 us, one QP

    def test_dcqcn_data_packets_are_ect(self):
        cfg = os.path.join(e2e.SOURCE_DIR, "examples", "b2b-mixed.yaml")
        tos = {}
        for rate in ("none", "dcqcn"):
            out = os.path.join(self.mkdtemp(), "r")
            r = e2e.run_oonic(["run", cfg, "--out", out, "--quiet", "--set", f"tx.rate={rate}"])
            self.assertOk(r)
            frames = e2e.read_pcap_frames(os.path.join(out, "a_to_b.pcap"))
            data = [f for f in frames if (v := e2e.decode_roce(f)) and v["opcode"] in
                    (0x06, 0x07, 0x08, 0x0a)]  # WRITE First/Middle/Last/Only
            self.assertTrue(data)
            tos[rate] = {f[15] & 3 for f in data}  # IPv4 TOS byte (no VLAN)
        self.assertEqual(tos["none"], {0})
        self.assertEqual(tos["dcqcn"], {2})


if __name__ == "__main__":
    unittest.main()
