#!/usr/bin/python3
"""RoCEv2 over IPv6, held against outside oracles.

* A RoCEv2-over-IPv6 RDMA WRITE stream on 2 QPs (one of them VLAN-tagged), built by
  scapy with the ICRC computed the way Linux soft-RoCE computes it
  (testbench/oracles/icrc_rxe.py: the 8-byte all-ones prefix for IPv6 as for IPv4),
  replays with every frame accepted and integrity OK; the ACKs the NIC sends are IPv6,
  carry the ICRC rxe computes, and tshark dissects them with nothing malformed.
* Frames oonic builds (`oonic trace convert` of a text trace with IPv4 and IPv6 lines,
  with and without a VLAN tag, with traffic class / flow fields the ICRC masks) carry the
  ICRC rxe computes.
"""

import os
import struct
import sys
import unittest

import oonic_e2e as e2e

sys.path.insert(0, os.path.join(e2e.SOURCE_DIR, "testbench", "oracles"))
import icrc_rxe  # noqa: E402

PMTU = 1024
PEER, DUT = "fd00::1", "fd00::2"
# (QPN, VA, R_Key, WQE bytes, first PSN, VLAN TCI or None)
QPS = [(0x21, 0x100000, 0x5001, 5 * PMTU + 100, 0xFFFFFD, None),
       (0x22, 0x300000, 0x5002, 3 * PMTU, 7, 0x6064)]


def payload_of(qpn, k, n):
    return bytes(((qpn * 131 + k * 17 + i * 7) & 0xFF) for i in range(n))


def write_stream():
    """Frames (bytes) of one WRITE per QP, interleaved by packet, ICRC by icrc_rxe."""
    from scapy.all import Ether, Dot1Q, IPv6, UDP, Raw
    from scapy.contrib.roce import BTH, opcode

    def rc(name):
        return opcode("RC", name)[0]

    per_qp = []
    for qpn, va, rkey, size, psn0, vlan in QPS:
        frames = []
        n = (size + PMTU - 1) // PMTU
        for k in range(n):
            plen = min(PMTU, size - k * PMTU)
            first, last = k == 0, k == n - 1
            name = ("RDMA_WRITE_ONLY" if first and last else "RDMA_WRITE_FIRST" if first
                    else "RDMA_WRITE_LAST" if last else "RDMA_WRITE_MIDDLE")
            ext = struct.pack("!QII", va, rkey, size) if first else b""
            pad = (4 - plen % 4) % 4
            l2 = Ether(src="02:bb:00:00:00:01", dst="02:bb:00:00:00:02")
            if vlan is not None:
                l2 = l2 / Dot1Q(vlan=vlan & 0xFFF, prio=vlan >> 13)
            pkt = (l2 / IPv6(src=PEER, dst=DUT, tc=0x02 + 4 * k, fl=0x10000 + qpn, hlim=64 - k)
                   / UDP(sport=0xC000 + qpn, dport=4791)
                   / BTH(opcode=rc(name), dqpn=qpn, psn=(psn0 + k) & 0xFFFFFF, ackreq=int(last),
                         padcount=pad, icrc=0)
                   / Raw(ext + payload_of(qpn, k, plen) + b"\x00" * pad))
            raw = bytearray(bytes(pkt))
            raw[-4:] = struct.pack("<I", icrc_rxe.icrc(bytes(raw)))
            frames.append(bytes(raw))
        per_qp.append(frames)
    out = []
    for k in range(max(len(f) for f in per_qp)):
        for frames in per_qp:
            if k < len(frames):
                out.append(frames[k])
    return out


def write_pcap(path, frames, gap_ns=1000):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            t = (i + 1) * gap_ns
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(fr), len(fr)))
            f.write(fr)


class Ipv6WriteReplay(e2e.OonicTestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.dir = tempfile.mkdtemp(prefix="oonic-e2e-ipv6-")
        cls.frames = write_stream()
        cls.pcap = os.path.join(cls.dir, "ipv6-write.pcap")
        write_pcap(cls.pcap, cls.frames)
        cls.res = e2e.replay(cls.pcap, os.path.join(cls.dir, "results"), "--dut", "ip=" + DUT)

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.dir, True)

    def test_input_frames_carry_rxe_icrc(self):
        n, bad = icrc_rxe.check_pcap(self.pcap)
        self.assertEqual(n, len(self.frames))
        self.assertEqual(bad, [])

    def test_every_frame_accepted_and_integrity_ok(self):
        self.assertOk(self.res)
        self.assertEqual(self.res.drops("bad_icrc"), 0, self.res.stdout)
        rows = self.res.packets()
        self.assertEqual(len(rows), len(self.frames))
        self.assertEqual({r["verdict"] for r in rows}, {"accepted"}, self.res.stdout)
        integ = self.res.stats_json["integrity"]
        self.assertTrue(integ["checked"])
        self.assertTrue(integ["ok"], integ)
        self.assertEqual(integ["bytes"], sum(q[3] for q in QPS))

    def test_acks_are_ipv6_with_rxe_icrc(self):
        self.assertOk(self.res)
        frames = self.res.tx_frames()
        self.assertGreaterEqual(len(frames), len(QPS))
        for f in frames:
            d = e2e.decode_roce(f)
            self.assertIsNotNone(d)
            self.assertEqual(d["opcode"], e2e.ACK)
            self.assertEqual(d["dst_ip"], "fd000000000000000000000000000001")
        n, bad = icrc_rxe.check_pcap(self.res.path("tx.pcap"))
        self.assertEqual(n, len(frames))
        self.assertEqual(bad, [])
        # the last ACK of each QP reports its last PSN
        last = {}
        for f in frames:
            d = e2e.decode_roce(f)
            last[d["dest_qp"]] = d["psn"]
        self.assertEqual(sorted(last.values()),
                         sorted(((psn0 + (size + PMTU - 1) // PMTU - 1) & 0xFFFFFF)
                                for _, _, _, size, psn0, _ in QPS))

    def test_tshark_dissects_the_acks(self):
        if e2e.tshark_bin() is None:
            self.skipTest("tshark not installed")
        self.assertOk(self.res)
        # IPv6 needs a real UDP checksum (RFC 8200): tshark verifies it too.
        rows = e2e.tshark_fields(self.res.path("tx.pcap"),
                                 ["ipv6.dst", "infiniband.bth.opcode", "infiniband.aeth.msn",
                                  "_ws.malformed", "_ws.expert.severity", "udp.checksum.status"],
                                 extra=["-o", "udp.check_checksum:TRUE"])
        self.assertGreater(len(rows), 0)
        for r in rows:
            self.assertEqual(r[0], PEER)
            self.assertEqual(int(r[1], 0), 0x11)
            self.assertNotEqual(r[2], "")
            self.assertEqual(r[3], "", r)
            for sev in filter(None, r[4].split(",")):
                self.assertLess(int(sev, 0), 0x00800000, r)
            self.assertEqual(r[5], "1", "UDP checksum status (1 = good): %s" % r)


class BuiltFramesCarryRxeIcrc(e2e.OonicTestCase):
    TEXT = """# oonic-trace v1
- op=WRITE_FIRST qp=0x11 psn=1 va=0x1000 rkey=0x7 dmalen=8192 len=4096 payload=pat:0x1000 tos=0x02 ttl=9
- op=SEND_ONLY qp=0x11 psn=2 len=61 payload=pat:0x40 vlan=0xA005 tos=0xFF
- op=ACK qp=0x11 psn=3 syndrome=0x1f msn=4 cached=1 fecn=1 becn=1
- op=OOO_WRITE_FSPOT qp=0x12 psn=0xFFFFFF va=0x20000 rkey=0x99 dmalen=16384 len=4096 payload=pat:0x20000 vlan=0x0064
@endpoints peer=fd00::1,02:aa:00:00:00:01 dut=fd00::2,02:aa:00:00:00:02
- op=WRITE_FIRST qp=0x11 psn=1 va=0x1000 rkey=0x7 dmalen=8192 len=4096 payload=pat:0x1000 tos=0xB9 ttl=3
- op=SEND_ONLY qp=0x11 psn=2 len=61 payload=pat:0x40 vlan=0xA005 tos=0xFF ttl=255
- op=ACK qp=0x11 psn=3 syndrome=0x1f msn=4 cached=1 fecn=1 becn=1 tos=0x03
- op=OOO_WRITE_FSPOT qp=0x12 psn=0xFFFFFF va=0x20000 rkey=0x99 dmalen=16384 len=4096 payload=pat:0x20000 vlan=0x0064
- op=OOO_NAK qp=0x11 psn=40 msn=0 bitmap=32:16:0000fffb vlan=0x2001
- op=CNP qp=0x118 tos=0xC2
"""

    def test_trace_convert_frames(self):
        d = self.mkdtemp()
        txt = os.path.join(d, "mixed.txt")
        with open(txt, "w") as f:
            f.write(self.TEXT)
        for ext in ("pcap", "pcapng"):
            out = os.path.join(d, "mixed." + ext)
            r = e2e.run_oonic(["trace", "convert", txt, out])
            self.assertOk(r)
            n, bad = icrc_rxe.check_pcap(out)
            self.assertEqual(n, 10, ext)
            self.assertEqual(bad, [], ext)
            kinds = {(fr[12:14], fr[16:18] if fr[12:14] == b"\x81\x00" else None)
                     for fr in e2e.read_pcap_frames(out)}
            self.assertEqual(kinds, {(b"\x08\x00", None), (b"\x81\x00", b"\x08\x00"),
                                     (b"\x86\xdd", None), (b"\x81\x00", b"\x86\xdd")})


if __name__ == "__main__":
    unittest.main()
