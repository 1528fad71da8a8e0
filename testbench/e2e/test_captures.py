#!/usr/bin/python3
"""Replays of the real RoCEv2 captures in traces/captures.

Expected values are derived from the captures themselves (decoded here with
oonic_e2e.decode_roce over scapy-read frames), not from earlier model runs.
"""

import os
import shutil
import tempfile
import unittest

import oonic_e2e as e2e
from oonic_e2e import num


def decoded(path):
    """[(frame bytes, decode_roce dict or None)] of a capture."""
    return [(f, e2e.decode_roce(f)) for f in e2e.read_pcap_frames(path)]


def eth_src(frame):
    return ":".join("%02x" % b for b in frame[6:12])


def ipv4_src(frame):
    if frame[12:14] != b"\x08\x00":
        return None
    return ".".join(str(b) for b in frame[26:30])


def sent_by(frame, ip=None, mac=None):
    """The frame comes from the endpoint (its MAC, or IPv4 source address)."""
    return (mac is not None and eth_src(frame) == mac) or (ip is not None and ipv4_src(frame) == ip)


def first_rc_request(frames):
    for _, d in frames:
        if d and e2e.is_rc_request(d["opcode"]):
            return d
    return None


class _Capture(e2e.OonicTestCase):
    CAPTURE = None
    EXTRA = ()

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="oonic-e2e-")
        cls.path = e2e.capture_path(cls.CAPTURE)
        cls.res = e2e.replay(cls.path, os.path.join(cls.dir, "results"), *cls.EXTRA)
        cls.frames = decoded(cls.path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, True)

    def setUp(self):
        self.assertOk(self.res)

    def packets_by_opcode(self, opcodes, verdicts=("accepted",)):
        return [r for r in self.res.packets()
                if r["opcode"] and num(r["opcode"]) in opcodes and r["verdict"] in verdicts]

    def assert_transport_equals_capture(self, dut_ip):
        """Each frame the model sent carries the same BTH..payload as the real DUT's frame
        (ICRCs differ only through the IP identification field)."""
        real = [d for _, d in self.frames if d and d["src_ip"] == dut_ip and
                (d["opcode"] == e2e.ACK or d["opcode"] in e2e.READ_RESPONSE_OPCODES)]
        mine = [e2e.decode_roce(f) for f in self.res.tx_frames()]
        self.assertEqual(len(mine), len(real))
        for m, r in zip(mine, real):
            self.assertEqual(m["udp"][8:-4].hex(), r["udp"][8:-4].hex(),
                             "opcode 0x%02x PSN %d" % (r["opcode"], r["psn"]))
            self.assertEqual((m["src_ip"], m["dst_ip"], m["sport"]),
                             (r["src_ip"], r["dst_ip"], r["sport"]))


class EveryCaptureReplays(e2e.OonicTestCase):
    def test_each_capture(self):
        caps = e2e.all_captures()
        self.assertGreaterEqual(len(caps), 5, e2e.CAPTURES_DIR)
        for cap in caps:
            with self.subTest(capture=os.path.basename(cap)):
                res = self.replay_ok(cap)
                nframes = len(e2e.read_pcap_frames(cap))
                self.assertEqual(res.stats_json["run"]["records"], nframes)
                self.assertEqual(len(res.packets()), nframes)
                self.assertEqual(res.stats_json["trace_issues"], [])
                integ = res.stats_json["integrity"]
                self.assertTrue(integ["ok"], integ)
                # every record is accounted for: skipped (sent by the DUT), dropped or taken
                for r in res.packets():
                    self.assertIn(r["verdict"], ("accepted", "ooo", "dropped", "skipped"), r)
                    if r["verdict"] in ("dropped", "skipped"):
                        self.assertNotEqual(r["drop_reason"], "", r)
                self.assertEqual(len(res.tx()), len(res.tx_frames()))


class SoftRoceWriteRead(_Capture):
    CAPTURE = "softroce-write-read.pcap"

    def write_only(self):
        w = [d for _, d in self.frames if d and d["opcode"] == 0x0A]
        self.assertEqual(len(w), 1)
        return w[0]

    def test_write_only_lands_at_its_reth_va(self):
        w = self.write_only()
        va, rkey, dmalen = e2e.reth(w["ext"])
        self.assertEqual(len(w["payload"]), 18)
        self.assertEqual(dmalen, len(w["payload"]))
        integ = self.res.stats_json["integrity"]
        self.assertTrue(integ["checked"] and integ["ok"], integ)
        self.assertEqual(integ["bytes"], len(w["payload"]))
        rows = self.packets_by_opcode({0x0A})
        self.assertEqual(len(rows), 1)
        self.assertEqual(num(rows[0]["psn"]), w["psn"])
        self.assertEqual(num(rows[0]["payload_bytes"]), 18)
        # the region the DUT got covers the VA with the captured R_Key
        notes = " ".join(self.res.stats_json["setup"])
        self.assertIn("rkey 0x%x" % rkey, notes)

    def test_ack_and_read_responses_as_the_real_nic(self):
        self.assertEqual(self.res.stat("nic0.tx.hdr_generator.acks"), 1)
        self.assertEqual(self.res.stat("nic0.tx.hdr_generator.read_responses"), 4)
        dut_ip = self.write_only()["dst_ip"]
        self.assert_transport_equals_capture(dut_ip)

    def test_cm_frames_are_ud_drops(self):
        w = self.write_only()
        ud = [d for _, d in self.frames if d and 0x60 <= d["opcode"] <= 0x7F and
              d["dst_ip"] == w["dst_ip"]]
        self.assertEqual(self.res.drops("ud_or_cnp"), len(ud))
        self.assertEqual(self.res.drops("ud_or_cnp"), 3)


class SoftRoceWriteReadCm(_Capture):
    CAPTURE = "softroce-write-read-cm.pcap"

    def dut(self):
        req = first_rc_request(self.frames)  # README: DUT = receiver of the first RC request
        return req["dst_ip"], req["dst_mac"]

    def test_dut_inferred(self):
        ip, mac = self.dut()
        self.assertIn(ip, self.res.stats_json["run"]["dut"])
        self.assertIn(mac, self.res.stats_json["run"]["dut"])

    def test_cm_over_ud_is_ud_or_cnp(self):
        ip, mac = self.dut()
        ud_in = [d for f, d in self.frames if d and 0x60 <= d["opcode"] <= 0x7F and
                 not sent_by(f, ip, mac)]
        self.assertEqual(len(ud_in), 3)
        self.assertEqual(self.res.drops("ud_or_cnp"), len(ud_in))
        rows = [r for r in self.res.packets() if r["drop_reason"] == "ud_or_cnp"]
        self.assertEqual(len(rows), len(ud_in))
        self.assertTrue(all(num(r["qpn"]) == 1 for r in rows), rows)  # CM is on QP1

    def test_arp_is_not_roce(self):
        ip, mac = self.dut()
        arp_in = [f for f, d in self.frames if f[12:14] == b"\x08\x06" and not sent_by(f, ip, mac)]
        self.assertEqual(len(arp_in), 2)
        other = [f for f, d in self.frames if d is None and not sent_by(f, ip, mac)]
        self.assertEqual(self.res.drops("not_roce"), len(other))
        self.assertEqual(self.res.drops("not_roce"), len(arp_in))
        self.assertEqual(self.res.stat("nic0.rx.drops.total"),
                         self.res.drops("not_roce") + self.res.drops("ud_or_cnp"))

    def test_read_responses_sent(self):
        req = [d for _, d in self.frames if d and d["opcode"] == 0x0C][0]
        cap = [d for _, d in self.frames if d and d["opcode"] in e2e.READ_RESPONSE_OPCODES]
        tx = [t for t in self.res.tx() if num(t["opcode"]) in e2e.READ_RESPONSE_OPCODES]
        self.assertEqual(len(tx), len(cap))
        self.assertEqual([num(t["psn"]) for t in tx], [d["psn"] for d in cap])
        # responses go to the requester's QP (0x17 here), as the real NIC sent them
        self.assertEqual({num(t["dest_qp"]) for t in tx}, {d["dest_qp"] for d in cap})
        self.assertEqual(sum(num(t["bytes"]) for t in tx), sum(
            len(f) for f, d in self.frames if d and d["opcode"] in e2e.READ_RESPONSE_OPCODES))
        self.assertEqual(e2e.reth(req["ext"])[2], 4096)
        self.assert_transport_equals_capture(self.dut()[0])


class HuaweiSend(_Capture):
    CAPTURE = "huawei-rc-send-1k.pcap"
    DUT_IP = "192.168.70.4"

    def requests_by_dst(self):
        n = {}
        for _, d in self.frames:
            if d and e2e.is_rc_request(d["opcode"]):
                n[d["dst_ip"]] = n.get(d["dst_ip"], 0) + 1
        return n

    def sends_to_dut(self):
        return [d for _, d in self.frames if d and d["opcode"] in e2e.SEND_OPCODES and
                d["dst_ip"] == self.DUT_IP]

    def test_dut_inferred(self):
        # README: the endpoint receiving the most RC requests
        counts = self.requests_by_dst()
        self.assertEqual(max(counts, key=counts.get), self.DUT_IP)
        self.assertTrue(any(self.DUT_IP in n for n in self.res.stats_json["setup"]),
                        self.res.stats_json["setup"])
        self.assertIn(self.DUT_IP, self.res.stats_json["run"]["dut"])

    def test_sends_placed_in_receive_buffers(self):
        sends = self.sends_to_dut()
        self.assertEqual(len(sends), 67)
        rows = self.packets_by_opcode(e2e.SEND_OPCODES)
        self.assertEqual(len(rows), len(sends))
        self.assertEqual([num(r["psn"]) for r in rows], [d["psn"] for d in sends])
        self.assertEqual([num(r["payload_bytes"]) for r in rows], [len(d["payload"]) for d in sends])
        total = sum(len(d["payload"]) for d in sends)
        self.assertEqual(total, 67037)
        integ = self.res.stats_json["integrity"]
        self.assertTrue(integ["checked"] and integ["ok"], integ)
        self.assertEqual(integ["bytes"], total)
        self.assertEqual(self.res.stat("nic0.rx.req_processor.accepted_bytes"), total)
        messages = sum(1 for d in sends if d["opcode"] in (0x02, 0x03, 0x04, 0x05))
        self.assertEqual(self.res.stat("nic0.rx.req_processor.messages"), messages)

    def test_acks_sent_agree_with_the_real_nic(self):
        tx = self.res.tx()
        acks = [(num(t["psn"]), num(t["msn"])) for t in tx if num(t["opcode"]) == e2e.ACK]
        self.assertGreater(len(acks), 0)
        self.assertEqual(len(acks), self.res.stat("nic0.tx.hdr_generator.acks"))
        # The Huawei NIC coalesced some ACKs; every (PSN, MSN) it did send, the model sends too,
        # and both end on the same one.
        real = [(d["psn"], e2e.aeth(d["ext"])[1]) for _, d in self.frames
                if d and d["opcode"] == e2e.ACK and d["src_ip"] == self.DUT_IP]
        self.assertGreater(len(real), 30)
        self.assertTrue(set(real) <= set(acks), sorted(set(real) - set(acks)))
        self.assertEqual(acks[-1], real[-1])
        # the ACKs go to the peer's QP
        peer_qps = {d["dest_qp"] for _, d in self.frames
                    if d and d["src_ip"] == self.DUT_IP and d["opcode"] == e2e.ACK}
        self.assertEqual({num(t["dest_qp"]) for t in tx}, peer_qps)

    def test_non_roce_frames_dropped(self):
        mac = self.sends_to_dut()[0]["dst_mac"]  # the DUT's MAC, from the capture
        self.assertIn(mac, self.res.stats_json["run"]["dut"])
        other = [f for f, d in self.frames if d is None and not sent_by(f, self.DUT_IP, mac)]
        self.assertEqual(self.res.drops("not_roce"), len(other))


class HuaweiOtherSideIsDut(_Capture):
    """--dut ip=192.168.70.6: the sender of the SENDs becomes the DUT; it receives ACKs."""
    CAPTURE = "huawei-rc-send-1k.pcap"
    DUT_IP = "192.168.70.6"
    EXTRA = ("--dut", "ip=192.168.70.6")

    def acks_to_dut(self):
        return [d for _, d in self.frames
                if d and d["opcode"] == e2e.ACK and d["dst_ip"] == self.DUT_IP]

    def test_setup_names_the_dut(self):
        self.assertTrue(any(self.DUT_IP in n for n in self.res.stats_json["setup"]))
        self.assertIn(self.DUT_IP, self.res.stats_json["run"]["dut"])

    def test_rsp_processor_sees_the_acks(self):
        acks = self.acks_to_dut()
        self.assertEqual(len(acks), 36)
        self.assertGreater(self.res.stat("nic0.rx.rsp_processor.acks"), 0)
        self.assertEqual(self.res.stat("nic0.rx.rsp_processor.acks"), len(acks))

    def test_coalesced_acks(self):
        # The DUT's SENDs start at PSN 0 (its first request in the capture); an ACK that
        # acknowledges more than one new PSN is coalesced.
        dut_reqs = [d for _, d in self.frames if d and e2e.is_rc_request(d["opcode"]) and
                    d["src_ip"] == self.DUT_IP]
        acked = (dut_reqs[0]["psn"] - 1) & 0xFFFFFF
        coalesced, newly = 0, 0
        for d in self.acks_to_dut():
            n = e2e.psn_diff(d["psn"], acked)
            if n > 0:
                newly += n
                coalesced += n > 1
                acked = d["psn"]
        self.assertEqual(newly, len(dut_reqs))
        self.assertGreaterEqual(self.res.stat("nic0.rx.rsp_processor.coalesced_acks"), 0)
        self.assertEqual(self.res.stat("nic0.rx.rsp_processor.coalesced_acks"), coalesced)
        self.assertEqual(self.res.stat("nic0.rx.rsp_processor.psns_acked"), newly)

    def test_the_peers_send_is_acked(self):
        sends = [d for _, d in self.frames if d and d["opcode"] in e2e.SEND_OPCODES and
                 d["dst_ip"] == self.DUT_IP]
        self.assertEqual(len(sends), 1)
        tx = self.res.tx()
        self.assertEqual([(num(t["opcode"]), num(t["psn"])) for t in tx], [(e2e.ACK, sends[0]["psn"])])
        integ = self.res.stats_json["integrity"]
        self.assertTrue(integ["ok"])
        self.assertEqual(integ["bytes"], len(sends[0]["payload"]))

    def test_non_roce_frames_dropped(self):
        other = [f for f, d in self.frames if d is None and not sent_by(f, self.DUT_IP)]
        self.assertEqual(self.res.drops("not_roce"), len(other))


class ConnectX4Cnp(_Capture):
    CAPTURE = "connectx4lx-cnp.pcap"

    def test_one_ud_or_cnp_drop(self):
        cnps = [d for _, d in self.frames if d and d["opcode"] == 0x81]
        self.assertEqual(len(cnps), 1)
        self.assertEqual(self.res.drops("ud_or_cnp"), 1)
        self.assertEqual(self.res.stat("nic0.rx.drops.total"), 1)
        rows = self.res.packets()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["drop_reason"], "ud_or_cnp")
        self.assertEqual(num(rows[0]["qpn"]), cnps[0]["dest_qp"])
        self.assertEqual(self.res.tx(), [])


class SoftRoceReadRequest(_Capture):
    CAPTURE = "softroce-read-request.pcap"

    def request(self):
        reqs = [d for _, d in self.frames if d and d["opcode"] == 0x0C]
        self.assertEqual(len(reqs), 1)
        return reqs[0]

    def responses(self):
        tx = [e2e.decode_roce(f) for f in self.res.tx_frames()]
        return [d for d in tx if d and d["opcode"] in e2e.READ_RESPONSE_OPCODES]

    def test_read_responses_cover_the_request(self):
        req = self.request()
        va, rkey, dmalen = e2e.reth(req["ext"])
        self.assertEqual(dmalen, 65536)
        resps = self.responses()
        self.assertEqual(sum(len(d["payload"]) for d in resps), dmalen)
        self.assertEqual([d["psn"] for d in resps],
                         [(req["psn"] + i) & 0xFFFFFF for i in range(len(resps))])
        ops = [d["opcode"] for d in resps]
        if len(resps) == 1:
            self.assertEqual(ops, [0x10])
        else:
            self.assertEqual(ops, [0x0D] + [0x0E] * (len(resps) - 2) + [0x0F])
        self.assertEqual({d["dest_qp"] for d in resps}, {req["dest_qp"]})
        self.assertEqual({d["dst_ip"] for d in resps}, {req["src_ip"]})

    def test_payload_is_the_documented_pattern(self):
        # no captured responses: the setup provisions the README's address pattern at the VA
        req = self.request()
        va, rkey, dmalen = e2e.reth(req["ext"])
        self.assertTrue(any("pattern" in n for n in self.res.stats_json["setup"]))
        data = b"".join(d["payload"] for d in self.responses())
        self.assertEqual(data, e2e.pattern(va, dmalen))

    def test_icrcs(self):
        for f in self.res.tx_frames():
            self.assertEqual(e2e.decode_roce(f)["icrc"], e2e.expected_icrc(f))


if __name__ == "__main__":
    unittest.main()
