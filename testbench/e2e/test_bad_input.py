#!/usr/bin/python3
"""Bad input: every case is a counted drop with a reason, or an error naming the
file/line/key (exit status 2), never a crash (signal, abort text) and never a hang.

Frames are built here with scapy (scapy.contrib.roce computes the ICRC), pcap files
are written byte by byte with struct, text traces by hand (traces/README.md).
"""

import os
import random
import struct
import unittest

import oonic_e2e as e2e
from oonic_e2e import num

SIDECAR = """\
dut: {ip: 10.0.0.2, mac: "02:00:00:00:00:02"}
qps:
  - qpn: 0x11
    start_psn: 0
    pmtu: 4096
    regions: [{base: 0x10000, length: 32768, rkey: 0x1234}]
"""

# A large region so an OOO WRITE far ahead of ePSN passes the address checks and
# reaches the bitmap window check (N x M = 20 x 16 = 320 PSNs by default).
BIG_SIDECAR = """\
qps:
  - qpn: 0x11
    start_psn: 0
    pmtu: 4096
    regions: [{base: 0x10000000, length: 1G, rkey: 0x1234}]
"""

PEER = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def pcap_bytes(frames, linktype=1, snaplen=262144, cut=None):
    """Classic little-endian microsecond pcap; cut = {index: captured length} (snaplen cuts)."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype)]
    for i, f in enumerate(frames):
        incl = len(f) if not cut or i not in cut else cut[i]
        out.append(struct.pack("<IIII", 1, i * 10, incl, len(f)) + f[:incl])
    return b"".join(out)


def roce(opcode, qp, psn, body=b"", padcount=0, **ip):
    """A peer -> DUT RoCEv2 frame with a correct ICRC (scapy.contrib.roce)."""
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP, UDP
    from scapy.packet import Raw
    from scapy.contrib.roce import BTH
    ipl = IP(src="10.0.0.1", dst="10.0.0.2", **ip)
    p = (Ether(**PEER) / ipl / UDP(sport=49152, dport=4791) /
         BTH(opcode=opcode, dqpn=qp, psn=psn, padcount=padcount) / Raw(body))
    return bytes(p)


def reth(va, rkey, dmalen):
    return struct.pack("!QII", va, rkey, dmalen)


class BadInput(e2e.OonicTestCase):
    def setUp(self):
        self.d = self.mkdtemp()
        self.sidecar = self.write("base.qps.yaml", SIDECAR)

    def write(self, name, data):
        p = os.path.join(self.d, name)
        with open(p, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return p

    def replay(self, trace, *extra):
        out = os.path.join(self.d, "out-" + os.path.basename(trace))
        r = e2e.replay(trace, out, *extra)
        self.assertNoCrash(r)
        return r

    def replay_ok(self, trace, *extra):
        r = self.replay(trace, *extra)
        self.assertEqual(r.rc, 0, r.describe())
        return r

    def assertOnlyDrops(self, r, reason, n):
        """n frames dropped, all for `reason`, and packets.csv says so row by row."""
        self.assertEqual(r.drops(reason), n, r.describe())
        self.assertEqual(r.stat("nic0.rx.drops.total"), n)
        rows = [x for x in r.packets() if x["verdict"] == "dropped"]
        self.assertEqual(len(rows), n)
        self.assertEqual({x["drop_reason"] for x in rows}, {reason})
        self.assertIn(reason, r.stdout)  # the summary's drops line
        return rows

    # ---- pcap damage ----
    def test_truncated_pcap_tail(self):
        frames = [roce(0x0A, 0x11, i, reth(0x10000 + 64 * i, 0x1234, 64) + bytes(64))
                  for i in range(3)]
        data = pcap_bytes(frames)
        last = 16 + len(frames[-1])
        trace = self.write("trunc.pcap", data[:len(data) - last // 2])
        r = self.replay_ok(trace, "--qps", self.sidecar)
        issues = r.stats_json["trace_issues"]
        self.assertEqual(len(issues), 1, issues)
        self.assertEqual(issues[0]["record"], 3)
        self.assertIn("truncated", issues[0]["reason"])
        self.assertIn("truncated", r.stdout)
        self.assertEqual(r.stats_json["run"]["records"], 2)
        self.assertEqual(r.stat("nic0.rx.req_processor.accepted"), 2)
        self.assertEqual(r.stats_json["integrity"]["bytes"], 128)

    def test_pcap_cut_inside_record_header(self):
        frames = [roce(0x0A, 0x11, 0, reth(0x10000, 0x1234, 64) + bytes(64))] * 2
        data = pcap_bytes(frames)
        trace = self.write("cuthdr.pcap", data[:24 + 16 + len(frames[0]) + 7])
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertEqual(r.stats_json["run"]["records"], 1)
        self.assertEqual(r.stat("nic0.rx.req_processor.accepted"), 1)

    def test_snaplen_cut_record_is_a_truncated_drop(self):
        f = roce(0x0A, 0x11, 0, reth(0x10000, 0x1234, 64) + bytes(64))
        trace = self.write("snap.pcap", pcap_bytes([f], snaplen=96, cut={0: 96}))
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "truncated", 1)

    def test_non_ethernet_link_type_is_an_error(self):
        f = roce(0x0A, 0x11, 0, reth(0x10000, 0x1234, 64) + bytes(64))
        trace = self.write("sll.pcap", pcap_bytes([f], linktype=113))
        r = self.replay(trace)
        self.assertError(r, "sll.pcap", "link type 113")

    # ---- frames the NIC must refuse ----
    def test_non_roce_frames(self):
        from scapy.layers.l2 import Ether, ARP
        from scapy.layers.inet import IP, TCP, UDP
        from scapy.packet import Raw
        frames = [bytes(Ether(**PEER) / ARP()),
                  bytes(Ether(**PEER) / IP(src="10.0.0.1", dst="10.0.0.2") / TCP()),
                  bytes(Ether(**PEER) / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(dport=53) /
                        Raw(b"x" * 20))]
        trace = self.write("nonroce.pcap", pcap_bytes(frames))
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "not_roce", 3)
        self.assertEqual(r.tx(), [])

    def test_bad_icrc_text_trace(self):
        trace = self.write("icrc.txt", "0 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 "
                                       "len=64 payload=pat:0x10000 badicrc=1\n"
                                       "100 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 "
                                       "len=64 payload=pat:0x10000\n")
        r = self.replay_ok(trace, "--qps", self.sidecar)
        rows = self.assertOnlyDrops(r, "bad_icrc", 1)
        self.assertEqual(rows[0]["record"], "1")
        self.assertEqual(r.stat("nic0.rx.req_processor.accepted"), 1)  # the good copy

    def test_bad_icrc_pcap(self):
        f = bytearray(roce(0x0A, 0x11, 0, reth(0x10000, 0x1234, 64) + bytes(64)))
        f[-1] ^= 0x01
        trace = self.write("icrc.pcap", pcap_bytes([bytes(f)]))
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "bad_icrc", 1)
        self.assertEqual(r.stats_json["integrity"]["bytes"], 0)

    def test_unknown_qp_response(self):
        # an ACK for a QP the sidecar does not have
        trace = self.write("uqp_ack.txt", "- op=ACK qp=0x99 psn=0 msn=0\n")
        r = self.replay_ok(trace, "--qps", self.sidecar)
        rows = self.assertOnlyDrops(r, "unknown_qp", 1)
        self.assertEqual(num(rows[0]["qpn"]), 0x99)

    # With a sidecar given, a request to a QP it does not list is unknown_qp.
    def test_unknown_qp_request(self):
        trace = self.write("uqp.txt", "0 op=WRITE_ONLY qp=0x99 psn=0 va=0x10000 rkey=0x1234 "
                                      "len=64\n")
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "unknown_qp", 1)

    def test_psn_far_ahead_standard_is_sequence_error(self):
        trace = self.write("seq.txt", "- op=WRITE_ONLY qp=0x11 psn=100000 va=0x10000 "
                                      "rkey=0x1234 len=64\n"
                                      "- op=WRITE_ONLY qp=0x11 psn=100001 va=0x10000 "
                                      "rkey=0x1234 len=64\n")
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "psn_sequence_error", 2)
        tx = r.tx()
        # one NAK (PSN sequence error, 0x60) naming the expected PSN 0, not one per packet
        self.assertEqual([(num(t["opcode"]), num(t["syndrome"]), num(t["psn"])) for t in tx],
                         [(0x11, 0x60, 0)])

    def test_psn_far_ahead_ooo_is_beyond_window(self):
        sidecar = self.write("big.qps.yaml", BIG_SIDECAR)
        trace = self.write("bw.txt",
                           "- op=OOO_WRITE_FSPOT qp=0x11 psn=0 va=0x10000000 rkey=0x1234 "
                           "dmalen=0x40000000 len=64\n"
                           "- op=OOO_WRITE_SPOT qp=0x11 psn=100000 len=4096\n")
        r = self.replay_ok(trace, "--qps", sidecar)
        rows = self.assertOnlyDrops(r, "beyond_window", 1)
        self.assertEqual(num(rows[0]["psn"]), 100000)
        self.assertEqual(r.stat("nic0.rx.req_processor.accepted"), 1)

    def test_spot_before_start_addr(self):
        trace = self.write("spot.txt", "- op=OOO_WRITE_SPOT qp=0x11 psn=1 len=4096\n")
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "spot_before_start_addr", 1)

    # ---- malformed extension headers ----
    def test_ooo_nak_cut_in_bitmap_header_raw_text(self):
        # OOO_NAK (0x1f) with 6 of the 8 fixed bytes of its bitmap header, then the ICRC
        f = roce(0x1F, 0x11, 40, bytes([0, 0, 0, 32, 0, 0x10]))
        trace = self.write("rawext.txt", "# oonic-trace v1\n- raw=%s\n" % f.hex())
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "bad_extension_header", 1)

    def test_malformed_extension_headers_pcap(self):
        frames = [
            roce(0x1F, 0x11, 40, bytes([0, 0, 0, 32, 0])),                # bitmap header cut
            roce(0x1F, 0x11, 40, bytes([0, 0, 0, 32, 0, 0, 0, 0])),       # nbits = 0
            roce(0x1F, 0x11, 40, bytes([0, 0, 0, 32, 0x02, 0x01, 0, 0]) + bytes(68)),  # 513 bits
            roce(0x1F, 0x11, 40, bytes([0, 0, 0, 32, 0, 64, 0, 0]) + bytes(4)),  # 64 bits, 1 word
            roce(0x18, 0x11, 0, reth(0x10000, 0x1234, 32768)[:10]),       # FSpot address cut
            roce(0x1B, 0x11, 0, b""),                                      # Last FSpot, no header
        ]
        trace = self.write("ext.pcap", pcap_bytes(frames))
        r = self.replay_ok(trace, "--qps", self.sidecar)
        self.assertOnlyDrops(r, "bad_extension_header", len(frames))

    def test_other_header_damage(self):
        cases = {
            "bad_padding": roce(0x04, 0x11, 0, b"", padcount=3),
            "unknown_opcode": roce(0x15, 0x11, 0, b""),
            "bad_ip_header": roce(0x04, 0x11, 0, b"abcd",
                                  options=[__import__("scapy.layers.inet", fromlist=["IPOption"])
                                           .IPOption(b"\x94\x04\x00\x00")]),
            "truncated": bytes.fromhex("0200000000020200000000010800"),
        }
        for reason, f in cases.items():
            with self.subTest(reason=reason):
                trace = self.write(reason + ".pcap", pcap_bytes([f]))
                r = self.replay_ok(trace, "--qps", self.sidecar)
                self.assertOnlyDrops(r, reason, 1)

    def test_random_damage_never_crashes(self):
        # 400 frames of the real captures with random bytes changed / cut (fixed seed):
        # every record gets a packets.csv row, the run ends in time, no crash.
        rng = random.Random(20240601)
        base = []
        for c in e2e.all_captures():
            base += e2e.read_pcap_frames(c)
        frames = []
        for _ in range(400):
            f = bytearray(rng.choice(base))
            k = rng.randrange(4)
            if k == 0:
                f = f[:rng.randrange(len(f) + 1)]
            elif k == 1:
                for _ in range(rng.randrange(1, 6)):
                    f[rng.randrange(len(f))] = rng.randrange(256)
            elif k == 2:
                for _ in range(rng.randrange(1, 4)):
                    f[rng.randrange(min(80, len(f)))] = rng.randrange(256)
            elif len(f) > 42:
                f[42] = rng.choice([0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x0C, 0x11,
                                    0x0D, 0x10])
            d = e2e.decode_roce(bytes(f))
            if d and d["opcode"] in (0x0C, 0x1C) and len(f) >= 34 + 36:
                # keep READ lengths small: a READ of gigabytes is legal and simply slow
                f[34 + 32:34 + 36] = struct.pack("!I", rng.randrange(1 << 16))
            frames.append(bytes(f))
        trace = self.write("fuzz.pcap", pcap_bytes(frames))
        r = self.replay_ok(trace)
        self.assertEqual(len(r.packets()), len(frames))

    # ---- empty traces ----
    def assertEmptyRun(self, r):
        run = r.stats_json["run"]
        self.assertEqual(run["records"], 0)
        self.assertEqual(run["input_frames"], 0)
        self.assertEqual(r.packets(), [])
        self.assertEqual(r.tx(), [])
        self.assertEqual(r.tx_frames(), [])

    def test_empty_text_trace(self):
        for name, text in (("empty.txt", ""), ("comments.txt", "# oonic-trace v1\n# nothing\n\n")):
            with self.subTest(name):
                r = self.replay_ok(self.write(name, text))
                self.assertEmptyRun(r)

    def test_header_only_pcap(self):
        r = self.replay_ok(self.write("hdr.pcap", pcap_bytes([])))
        self.assertEmptyRun(r)
        self.assertEqual(r.stats_json["run"]["format"], "pcap")

    # traces/README.md: a pcap holding only a header loads as zero records and the
    # replay reports "empty trace".
    def test_header_only_pcap_reports_empty_trace(self):
        r = self.replay_ok(self.write("hdr.pcap", pcap_bytes([])))
        text = r.stdout + r.stderr + e2e.read_bytes(r.path("stats.json")).decode()
        self.assertTrue("empty trace" in text, "not in the summary nor stats.json:\n" + r.stdout)

    # ---- errors naming what is wrong ----
    def test_missing_trace(self):
        path = os.path.join(self.d, "no-such-dir", "missing.pcap")
        self.assertError(self.replay(path), path)

    def test_missing_sidecar_and_config(self):
        trace = e2e.trace_path("ooo-small.txt")
        missing = os.path.join(self.d, "missing.qps.yaml")
        self.assertError(self.replay(trace, "--qps", missing), missing)
        missing = os.path.join(self.d, "missing.yaml")
        self.assertError(self.replay(trace, "--config", missing), missing)

    def test_text_trace_bad_field(self):
        trace = self.write("bad.txt", "# oonic-trace v1\n"
                                      "0 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 len=8\n"
                                      "9 op=WRITE_ONLY qp=0x11 psn=1 va=0x10000 rkey=0x1234 lenght=8\n")
        self.assertError(self.replay(trace), "bad.txt:3:", "field 'lenght'", "unknown field")

    def test_text_trace_bad_values(self):
        cases = [
            ("0 op=WRITE_ONLY qp=0x11 psn=12z va=0 rkey=1 len=8", "field 'psn'", "12z"),
            ("0 op=WRTIE_FIRST qp=0x11 psn=1", "field 'op'", "WRTIE_FIRST"),
            ("0 op=WRITE_FIRST qp=0x11 psn=1 rkey=1 dmalen=8", "field 'va'", "missing"),
            ("0 op=WRITE_MIDDLE qp=0x11 psn=1 va=0 len=8", "field 'va'", "WRITE_MIDDLE"),
            ("0 op=SEND_ONLY qp=0x1000000 psn=1", "field 'qp'", ""),
            ("0 raw=0200zz", "field 'raw'", ""),
        ]
        for i, (line, field, what) in enumerate(cases):
            with self.subTest(line=line):
                name = "v%d.txt" % i
                trace = self.write(name, "# a comment\n" + line + "\n")
                self.assertError(self.replay(trace), name + ":2:", field, what)
        trace = self.write("time.txt", "10 op=SEND_ONLY qp=0x11 psn=1\n4 op=SEND_ONLY qp=0x11 psn=2\n")
        self.assertError(self.replay(trace), "time.txt:2:", "field 'time'")
        trace = self.write("v2.txt", "# oonic-trace v2\n")
        self.assertError(self.replay(trace), "v2.txt:1:")

    def test_binary_junk_is_an_error_not_a_crash(self):
        trace = self.write("junk.bin", bytes(range(256)) * 4)
        self.assertError(self.replay(trace), "junk.bin:1:")

    def test_config_unknown_key(self):
        cfg = self.write("bad.yaml", "nic:\n  otd: 32\n  colour: red\n")
        r = self.replay(e2e.trace_path("ooo-small.txt"), "--config", cfg)
        self.assertError(r, "bad.yaml:3", "colour")

    def test_sidecar_unknown_key(self):
        side = self.write("bad.qps.yaml", "qps:\n  - qpn: 0x11\n    start_psn: 0\n    colour: red\n")
        r = self.replay(e2e.trace_path("ooo-small.txt"), "--qps", side)
        self.assertError(r, "bad.qps.yaml:4", "qps[0].colour")

    def test_set_out_of_range(self):
        trace = e2e.trace_path("ooo-small.txt")
        for kv, key in (("nic.otd=0", "nic.otd"), ("nic.clock_mhz=5000", "nic.clock_mhz"),
                        ("bitmap.block_bits=513", "bitmap.block_bits")):
            with self.subTest(kv):
                self.assertError(self.replay(trace, "--set", kv), key, "out of range")
        self.assertError(self.replay(trace, "--set", "nic.otd=abc"), "nic.otd")
        self.assertError(self.replay(trace, "--set", "nic.bogus=1"), "nic.bogus")
        self.assertError(self.replay(trace, "--set", "nic.otd"), "nic.otd")


if __name__ == "__main__":
    unittest.main()
