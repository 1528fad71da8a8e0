#!/usr/bin/python3
"""scapy as the oracle of the UET PDS and SES header codecs (model/wire/uet_pds.h,
uet_ses.h).

The layers below are written from the layouts Wireshark's packet-uet.c dissects
(UET 1.0; docs/DESIGN.md "Wire format"), not from oonic's code. For each header
type, random headers are built with scapy over UDP port 4793 (the entropy value
in the UDP source port); their PDS bytes go through <build>/uet_pds_codec, which
must read every field scapy set and write back the same bytes; scapy must then
dissect the bytes oonic wrote into the same fields. The same for the SES standard
request header (start of message and later packets), its small and medium forms and the
three response forms (from xdp2's ses.h layouts), and for whole frames: scapy
builds Ether/IP(v6)/UDP/PDS/SES/payload, oonic's frame parser must read it, and a
frame oonic trims must be one scapy finds well formed (lengths, IPv4 header checksum,
IPv6 UDP checksum) with the trimmed DSCP. Truncated headers are refused.
"""

import json
import os
import random
import subprocess
import unittest

import oonic_e2e as e2e

from scapy.fields import BitField, ByteField, IntField, LongField, ShortField, SignedShortField
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.packet import Packet, bind_layers

BUILD_DIR = os.path.dirname(os.path.abspath(e2e.oonic_bin()))
CODEC = os.path.join(BUILD_DIR, "uet_pds_codec")
UET_PORT = 4793


def prologue():
    return [BitField("type", 2, 5), BitField("next_hdr", 0, 4), BitField("flags", 0, 7)]


class PdsRequest(Packet):  # RUD_REQ 2, ROD_REQ 3; SYN (0x04) clear
    name = "UET PDS RUD/ROD request"
    fields_desc = prologue() + [SignedShortField("clear_psn_offset", 0), IntField("psn", 0),
                                ShortField("spdcid", 0), ShortField("dpdcid", 0)]


class PdsRequestSyn(Packet):  # the same with SYN: the last 16 bits change meaning
    name = "UET PDS RUD/ROD request, SYN"
    fields_desc = prologue() + [SignedShortField("clear_psn_offset", 0), IntField("psn", 0),
                                ShortField("spdcid", 0), BitField("use_rsv_pdc", 0, 1),
                                BitField("rsvd", 0, 3), BitField("psn_offset", 0, 12)]


class PdsCcRequest(Packet):  # RUD_CC_REQ 13, ROD_CC_REQ 14 (SYN clear)
    name = "UET PDS RUD/ROD request with CC"
    fields_desc = PdsRequest.fields_desc + [ByteField("ccc_id", 0), BitField("credit_target", 0, 24)]


class PdsAck(Packet):  # ACK 7
    name = "UET PDS ACK"
    fields_desc = prologue() + [SignedShortField("ack_psn_offset", 0), IntField("cack_psn", 0),
                                ShortField("spdcid", 0), ShortField("dpdcid", 0)]


class PdsAckCcNscc(Packet):  # ACK_CC 8, NSCC state
    name = "UET PDS ACK_CC (NSCC)"
    fields_desc = PdsAck.fields_desc + [
        BitField("cc_type", 0, 4), BitField("cc_flags", 0, 4), ByteField("mpr", 0),
        SignedShortField("sack_psn_offset", 0), LongField("sack_bitmap", 0),
        ShortField("service_time", 0), BitField("restore_cwnd", 0, 1),
        BitField("rcv_cwnd_pend", 0, 7), BitField("rcvd_bytes", 0, 24), ShortField("ooo_count", 0)]


class PdsAckCcCredit(Packet):  # ACK_CC 8, credit state
    name = "UET PDS ACK_CC (credit)"
    fields_desc = PdsAck.fields_desc + [
        BitField("cc_type", 1, 4), BitField("cc_flags", 0, 4), ByteField("mpr", 0),
        SignedShortField("sack_psn_offset", 0), LongField("sack_bitmap", 0),
        BitField("credit", 0, 24), BitField("rsvd", 0, 24), ShortField("ooo_count", 0)]


class PdsNack(Packet):  # NACK 10
    name = "UET PDS NACK"
    fields_desc = prologue() + [ByteField("nack_code", 0), ByteField("vendor_code", 0),
                                IntField("nack_psn", 0), ShortField("spdcid", 0),
                                ShortField("dpdcid", 0), IntField("nack_payload", 0)]


class SesStdSom(Packet):  # SES standard request, start of message (som = 1)
    name = "UET SES standard request (SOM)"
    fields_desc = [BitField("rsvd0", 0, 2), BitField("opcode", 1, 6), BitField("version", 0, 2),
                   BitField("dc", 0, 1), BitField("ie", 0, 1), BitField("rel", 0, 1),
                   BitField("hd", 0, 1), BitField("eom", 0, 1), BitField("som", 1, 1),
                   ShortField("message_id", 0), ByteField("ri_generation", 0),
                   BitField("job_id", 0, 24), BitField("rsvd1", 0, 4), BitField("pid_on_fep", 0, 12),
                   BitField("rsvd2", 0, 4), BitField("resource_index", 0, 12),
                   LongField("buffer_offset", 0), IntField("initiator", 0),
                   LongField("memory_key", 0), LongField("header_data", 0),
                   IntField("request_length", 0)]


class SesStdLater(Packet):  # the same, a later packet of the message (som = 0)
    name = "UET SES standard request (not SOM)"
    fields_desc = (SesStdSom.fields_desc[:8] + [BitField("som", 0, 1)] + SesStdSom.fields_desc[9:19]
                   + [BitField("rsvd3", 0, 18), BitField("payload_length", 0, 14),
                      IntField("message_offset", 0), IntField("request_length", 0)])


SES_COMMON = SesStdSom.fields_desc[:8] + [BitField("som", 0, 1)] + SesStdSom.fields_desc[9:16]


class SesSmall(Packet):  # SES small request (next_hdr 1): the common 12 bytes, buffer_offset
    name = "UET SES small request"
    fields_desc = SES_COMMON + [LongField("buffer_offset", 0)]


class SesMedium(Packet):  # SES medium request (next_hdr 2), hd clear: buffer_offset
    name = "UET SES medium request"
    fields_desc = SES_COMMON + [LongField("buffer_offset", 0), IntField("initiator", 0),
                                LongField("memory_key", 0)]


RSP_COMMON = [BitField("list", 0, 2), BitField("opcode", 0, 6), BitField("version", 0, 2),
              BitField("return_code", 0, 6), ShortField("message_id", 0),
              ByteField("ri_generation", 0), BitField("job_id", 0, 24)]


class SesResponse(Packet):  # SES response without data (next_hdr 4)
    name = "UET SES response"
    fields_desc = RSP_COMMON + [IntField("modified_length", 0)]


class SesResponseData(Packet):  # SES response with data (next_hdr 5)
    name = "UET SES response with data"
    fields_desc = RSP_COMMON + [ShortField("read_request_message_id", 0), BitField("rsvd1", 0, 4),
                                BitField("payload_length", 0, 12), IntField("modified_length", 0),
                                IntField("message_offset", 0)]


class SesResponseDataSmall(Packet):  # SES response with small data (next_hdr 6)
    name = "UET SES response with small data"
    fields_desc = (RSP_COMMON[:4] + [BitField("rsvd1", 0, 2), BitField("payload_length", 0, 14),
                                     ByteField("rsvd2", 0), BitField("job_id", 0, 24),
                                     IntField("original_request_psn", 0)])


# (layer, next_hdr, size) of the SES forms besides the standard request
SES_FORMS = [(SesSmall, 1, 20), (SesMedium, 2, 32), (SesResponse, 4, 12),
             (SesResponseData, 5, 20), (SesResponseDataSmall, 6, 12)]


bind_layers(UDP, PdsRequest, dport=UET_PORT)

# scapy field -> the codec's JSON key, where they differ
RENAME = {"cack_psn": "psn", "nack_psn": "psn", "nack_payload": "payload"}


def codec(hex_lines):
    p = subprocess.run([CODEC], input="\n".join(hex_lines) + "\n", capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"uet_pds_codec failed ({p.returncode}): {p.stderr}")
    return [json.loads(x) for x in p.stdout.splitlines()]


def random_fields(cls, rng, ptype):
    f = {}
    for fd in cls.fields_desc:
        if fd.name.startswith("rsvd"):
            continue
        if fd.name == "type":
            f["type"] = ptype
        elif fd.name == "som":
            f["som"] = 1 if cls is SesStdSom else 0
        elif fd.name == "cc_type":
            f["cc_type"] = 0 if cls is PdsAckCcNscc else 1
        elif isinstance(fd, SignedShortField):
            f[fd.name] = rng.randint(-32768, 32767)
        else:
            bits = fd.size if isinstance(fd, BitField) else fd.sz * 8
            f[fd.name] = rng.getrandbits(bits)
    if cls in (PdsRequest, PdsCcRequest):
        f["flags"] &= ~0x04  # SYN clear: dpdcid present
    if cls is PdsRequestSyn:
        f["flags"] |= 0x04
    if cls is SesMedium:
        f["hd"] = 0  # its 64-bit field is buffer_offset (header_data when hd: a test below)
    return f


CASES = [(PdsRequest, 2), (PdsRequest, 3), (PdsRequestSyn, 2), (PdsRequestSyn, 3),
         (PdsCcRequest, 13), (PdsCcRequest, 14), (PdsAck, 7), (PdsAckCcNscc, 8),
         (PdsAckCcCredit, 8), (PdsNack, 10)]


@unittest.skipUnless(os.path.exists(CODEC), f"{CODEC} not built")
class UetPdsAgainstScapy(unittest.TestCase):
    def test_every_type_reads_and_writes_what_scapy_builds(self):
        rng = random.Random(4793)
        built = []
        for cls, ptype in CASES:
            for _ in range(40):
                fields = random_fields(cls, rng, ptype)
                pkt = (IP(src="10.0.0.1", dst="10.0.0.2") /
                       UDP(sport=rng.getrandbits(16), dport=UET_PORT) / cls(**fields))
                raw = bytes(pkt)
                pds = raw[28:]  # after IPv4 (20) and UDP (8)
                self.assertEqual(len(pds), len(bytes(cls(**fields))))
                built.append((cls, fields, pds))
        out = codec([pds.hex() for _, _, pds in built])
        self.assertEqual(len(out), len(built))
        for (cls, fields, pds), got in zip(built, out):
            with self.subTest(layer=cls.__name__, fields=fields):
                self.assertEqual(got["status"], "ok")
                self.assertEqual(got["used"], len(pds))
                for k, v in fields.items():
                    key = RENAME.get(k, k)
                    want = bool(v) if isinstance(got[key], bool) else v
                    self.assertEqual(got[key], want, k)
                self.assertEqual(got["hex"], pds.hex())
                back = cls(bytes.fromhex(got["hex"]))  # scapy reads what oonic wrote
                for k, v in fields.items():
                    self.assertEqual(back.getfieldval(k), v, k)

    def ses_round_trips(self, forms, rng, n):
        """n random headers of each (layer, next_hdr, size): the codec reads every field scapy
        set and writes the same bytes, and scapy reads those back. Returns the raw headers."""
        built = []
        for cls, form, size in forms:
            for _ in range(n):
                fields = random_fields(cls, rng, None)
                raw = bytes(cls(**fields))
                self.assertEqual(len(raw), size, cls.__name__)
                built.append((cls, form, fields, raw))
        out = codec(["ses%d:%s" % (form, raw.hex()) for _, form, _, raw in built])
        for (cls, form, fields, raw), got in zip(built, out):
            with self.subTest(layer=cls.__name__, fields=fields):
                self.assertEqual(got["status"], "ok")
                for k, v in fields.items():
                    want = bool(v) if isinstance(got[k], bool) else v
                    self.assertEqual(got[k], want, k)
                self.assertEqual(got["hex"], raw.hex())
                back = cls(bytes.fromhex(got["hex"]))
                for k, v in fields.items():
                    self.assertEqual(back.getfieldval(k), v, k)
        return [raw for _, _, _, raw in built]

    def test_ses_standard_request_reads_and_writes_what_scapy_builds(self):
        rng = random.Random(44)
        built = self.ses_round_trips([(SesStdSom, 3, 44), (SesStdLater, 3, 44)], rng, 100)
        self.assertEqual(codec(["ses:" + built[0][:43].hex()])[0]["status"], "truncated")

    def test_ses_small_medium_and_response_forms_read_and_write_what_scapy_builds(self):
        rng = random.Random(45)
        self.ses_round_trips(SES_FORMS, rng, 60)
        for cls, form, size in SES_FORMS:  # one byte short
            raw = bytes(cls())
            self.assertEqual(codec(["ses%d:%s" % (form, raw[:size - 1].hex())])[0]["status"],
                             "truncated", cls.__name__)
        # A medium request with hd set carries header data in that field.
        m = SesMedium(hd=1, buffer_offset=0x1122334455667788)
        got = codec(["ses2:" + bytes(m).hex()])[0]
        self.assertEqual(got["header_data"], 0x1122334455667788)
        self.assertEqual(got["buffer_offset"], 0)
        self.assertEqual(got["hex"], bytes(m).hex())

    def frame(self, ipv, payload, tos):
        l3 = (IP(src="10.0.0.1", dst="10.0.0.2", tos=tos) if ipv == 4 else
               IPv6(src="fd00::1", dst="fd00::2", tc=tos))
        return (Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / l3 /
                UDP(sport=0xBEEF, dport=UET_PORT) /
                PdsRequest(type=2, next_hdr=3, psn=1234, spdcid=5, dpdcid=6) /
                SesStdLater(opcode=1, message_id=9, payload_length=len(payload),
                            message_offset=4096, request_length=65536) / Raw(payload))

    def test_whole_frames_parse_and_trim_as_scapy_sees_them(self):
        payload = bytes(range(256)) * 4
        for ipv in (4, 6):
            with self.subTest(ip=ipv):
                raw = bytes(self.frame(ipv, payload, 8 << 2 | 2))  # trimmable, ECT(0)
                got = codec(["frame:" + raw.hex()])[0]
                self.assertEqual(got["status"], "ok")
                self.assertEqual((got["entropy"], got["type"], got["psn"]), (0xBEEF, 2, 1234))
                self.assertTrue(got["has_ses"])
                self.assertEqual((got["message_id"], got["message_offset"]), (9, 4096))
                self.assertEqual(bytes.fromhex(got["payload"]), payload)
                self.assertFalse(got["trimmed"])
                for mode, dscp in (("trim", 16), ("trimlast", 18)):
                    cut = bytes.fromhex(codec([f"{mode}:" + raw.hex()])[0]["hex"])
                    self.assertEqual(len(cut), len(raw) - len(payload))
                    pkt = Ether(cut)
                    l3 = pkt[IP] if ipv == 4 else pkt[IPv6]
                    self.assertEqual((l3.tos if ipv == 4 else l3.tc) >> 2, dscp)
                    self.assertEqual((l3.tos if ipv == 4 else l3.tc) & 3, 2)  # ECN kept
                    self.assertEqual(pkt[UDP].len, 8 + 12 + 44)
                    if ipv == 4:
                        self.assertEqual(l3.len, 20 + 8 + 12 + 44)
                        chk = l3.chksum
                        del l3.chksum
                        self.assertEqual(IP(bytes(l3)).chksum, chk)  # scapy recomputes
                    else:
                        self.assertEqual(l3.plen, 8 + 12 + 44)
                        chk = pkt[UDP].chksum
                        del pkt[UDP].chksum
                        self.assertEqual(Ether(bytes(pkt))[UDP].chksum, chk)
                    again = codec(["frame:" + cut.hex()])[0]
                    self.assertTrue(again["trimmed"])
                    self.assertEqual(again["trimmed_last_hop"], mode == "trimlast")
                    self.assertEqual(again["payload_len"], 0)

    def test_entropy_is_the_udp_source_port_and_port_4793_binds(self):
        pkt = IP() / UDP(sport=0xBEEF, dport=UET_PORT) / PdsRequest(psn=5)
        again = IP(bytes(pkt))
        self.assertEqual(again[UDP].sport, 0xBEEF)
        self.assertIn(PdsRequest, again)
        self.assertEqual(again[PdsRequest].psn, 5)

    def test_truncated_headers_are_refused(self):
        full = bytes(PdsAckCcNscc(type=8, sack_bitmap=1))
        out = codec([full[:n].hex() for n in range(1, len(full))])
        self.assertTrue(all(o["status"] == "truncated" for o in out), out)
        ccx = bytes(PdsAck(type=9))  # ACK_CCX: sources disagree on its size
        self.assertEqual(codec([ccx.hex() + "00" * 20])[0]["status"], "unsupported PDS type")


def uet_frame(raw):
    """(ip, udp, pds type, PDS+SES+payload bytes) of a frame to UDP 4793, read with the
    layers above; None for any other frame."""
    pkt = Ether(raw)
    if UDP not in pkt or pkt[UDP].dport != UET_PORT:
        return None
    ip = pkt[IP] if IP in pkt else pkt[IPv6]
    body = bytes(pkt[UDP].payload)[:pkt[UDP].len - 8]
    return ip, pkt[UDP], body[0] >> 3, body


class UetWireFromTheNic(e2e.OonicTestCase):
    """The NIC's own frames on UET's wire (nic.wire auto: uet for uet-rud), read with the
    scapy layers above, not oonic's codec: examples/fabric-incast-uet.yaml with link pcaps.
    Every frame of sender h1 and receiver h0 is UDP 4793; h1's requests are RUD_REQs with
    a standard SES WRITE header whose buffer offset, message offset, length and SOM/EOM
    place each packet by itself, RETX only on a PSN sent before; the frames switches
    trimmed reach h0 as bare PDS+SES headers; each NACK names a trimmed PSN on the entropy
    value it came on, TRIMMED_LASTHOP when h0's leaf trimmed it (DSCP 18), else TRIMMED, and h0 sends one for every trimmed frame it took but
    those its NACK register lost (uet_nacks_lost); every ACK_CC's cumulative PSN, ACK PSN and SACK bitmap (above
    the cumulative PSN) name only PSNs h0 received whole."""

    def test_requests_acks_and_nacks_read_as_uet(self):
        out = os.path.join(self.mkdtemp(), "r")
        r = e2e.run_oonic(["run", os.path.join(e2e.SOURCE_DIR, "examples", "fabric-incast-uet.yaml"),
                           "--out", out, "--quiet", "--set", "run.link_pcap=true"], out=out)
        self.assertOk(r)
        h1_ip = "11.0.1.1"
        # h1's requests, as it sent them.
        first, seen, sports = None, set(), set()
        pmtu, total = 1024, 1 << 20
        for raw in e2e.read_pcap_frames(r.path("h1_tx.pcap")):
            u = uet_frame(raw)
            self.assertIsNotNone(u, raw[:64].hex())
            ip, udp, t, body = u
            self.assertEqual(t, 2)  # RUD_REQ
            req = PdsRequest(body[:12])
            self.assertEqual(req.next_hdr, 3)
            som = body[13] & 1
            ses = (SesStdSom if som else SesStdLater)(body[12:56])
            payload = body[56:]
            self.assertEqual(ses.opcode, 1)  # WRITE
            if first is None:
                first = (req.psn, ses.buffer_offset, ses.memory_key)
            idx = (req.psn - first[0]) & 0xFFFFFF
            self.assertLess(idx, total // pmtu)
            self.assertEqual(ses.buffer_offset, first[1] + idx * pmtu)
            self.assertEqual((ses.memory_key, ses.request_length), (first[2], total))
            self.assertEqual(som, int(idx == 0))
            self.assertEqual(ses.eom, int(idx == total // pmtu - 1))
            self.assertEqual(len(payload), pmtu)
            if not som:
                self.assertEqual((ses.payload_length, ses.message_offset), (pmtu, idx * pmtu))
            self.assertEqual(bool(req.flags & 0x10), req.psn in seen, req.psn)  # RETX
            seen.add(req.psn)
            sports.add(udp.sport)
        self.assertEqual(len(seen), total // pmtu)
        # What reached h0 from h1: whole, or trimmed to the headers.
        whole, trimmed = set(), {}
        for raw in e2e.read_pcap_frames(r.path("h0_rx.pcap")):
            u = uet_frame(raw)
            self.assertIsNotNone(u, raw[:64].hex())
            ip, udp, t, body = u
            if ip.src != h1_ip:
                continue
            psn = PdsRequest(body[:12]).psn
            if ip.tos >> 2 in (16, 18):
                self.assertEqual(udp.len, 8 + 12 + 44)
                trimmed.setdefault(psn, []).append((udp.sport, 2 if ip.tos >> 2 == 18 else 1))
            else:
                self.assertEqual(udp.len, 8 + 12 + 44 + pmtu)
                whole.add(psn)
        self.assertGreater(len(trimmed), 0)
        self.assertEqual(whole, seen)
        # h0's answers, as h1 received them.
        nacks, acks = [], 0
        for raw in e2e.read_pcap_frames(r.path("h1_rx.pcap")):
            u = uet_frame(raw)
            self.assertIsNotNone(u, raw[:64].hex())
            ip, udp, t, body = u
            self.assertIn(t, (8, 10), raw[:64].hex())
            if t == 10:
                n = PdsNack(body[:16])
                # TRIMMED (1), or TRIMMED_LASTHOP (2) for a frame trimmed at the last hop
                self.assertIn((udp.sport, n.nack_code), trimmed.get(n.nack_psn, []), n.nack_psn)
                nacks.append(n.nack_psn)
                continue
            a = PdsAckCcNscc(body[:32])
            self.assertEqual(a.cc_type, 0)  # NSCC
            self.assertIn(udp.sport, sports)
            ack_psn = (a.cack_psn + a.ack_psn_offset) & 0xFFFFFF
            self.assertIn(ack_psn, whole)
            self.assertIn(a.cack_psn, whole | {(first[0] - 1) & 0xFFFFFF})
            base = (a.cack_psn + a.sack_psn_offset) & 0xFFFFFF
            for j in range(64):
                above = (base + j - a.cack_psn) & 0xFFFFFF  # PSNs up to CACK are in anyway
                if a.sack_bitmap >> j & 1 and 0 < above < 1 << 23:
                    self.assertIn((base + j) & 0xFFFFFF, whole, (a.cack_psn, j))
            acks += 1
        self.assertGreater(acks, 0)
        # h1's NACKs name only PSNs trimmed on their way, each at most as often.
        left = {p: len(s) for p, s in trimmed.items()}
        for p in nacks:
            self.assertGreater(left.get(p, 0), 0, p)
            left[p] -= 1
        # Over every sender: each trimmed frame h0's Req Processor took (rx.drops.trimmed)
        # is NACKed TRIMMED or TRIMMED_LASTHOP once, but for those its NACK register (3 a
        # QP) lost.
        sent = 0
        for raw in e2e.read_pcap_frames(r.path("h0_tx.pcap")):
            u = uet_frame(raw)
            self.assertIsNotNone(u, raw[:64].hex())
            if u[2] == 10 and PdsNack(u[3][:16]).nack_code in (1, 2):
                sent += 1
        took = r.stat("h0.nic.rx.drops.trimmed")
        lost = r.stat("h0.nic.control.req_manager.uet_nacks_lost")
        self.assertGreater(took, 0)
        self.assertLessEqual(sent, took)
        self.assertGreaterEqual(sent, took - lost)


if __name__ == "__main__":
    unittest.main()
