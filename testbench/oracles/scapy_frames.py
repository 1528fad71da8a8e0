#!/usr/bin/python3
"""Outside oracle for the RoCEv2 codec: RoCEv2 frames built by scapy.

Usage: /usr/bin/python3 scapy_frames.py OUT.pcap

Writes OUT.pcap (classic pcap, via wrpcap) and OUT.pcap.txt, a sidecar with one
line per frame: "opcode psn payload_len" (decimal; payload_len excludes the
extended transport headers, the pad bytes and the ICRC). testbench/unit/
test_wire.cpp (suite WireScapy) parses the pcap with oonic's codec and holds it
against the sidecar.

scapy 2.5 (scapy.contrib.roce) has BTH, AETH (bound for Acknowledge only) and
computes the ICRC for IPv4 (CRC-32 over the masked pseudo header, placed in the
frame low byte first). It has no RETH / ImmDt layers: those headers are put in
as Raw bytes after the BTH; scapy's ICRC still covers them. It has no IPv6 ICRC
(it warns and writes 0): for IPv6 the ICRC comes from icrc_rxe.py beside this
file, an independent implementation of Linux soft-RoCE's rules (the 8-byte
all-ones prefix for IPv4 and IPv6 alike). That function is first held against
scapy's ICRC for every IPv4 frame, VLAN-tagged or not.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icrc_rxe  # noqa: E402

from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw, wrpcap
from scapy.contrib.roce import BTH, AETH, opcode, cnp

ROCE_PORT = 4791


def reth(va, rkey, dma_len):
    return struct.pack("!QII", va, rkey, dma_len)


def aeth_bytes(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def immdt(v):
    return struct.pack("!I", v)


def payload(n, seed):
    return bytes((seed + 7 * i) & 0xFF for i in range(n))


def pad_of(n):
    return (4 - n % 4) % 4


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scapy_frames.py OUT.pcap")
    out = sys.argv[1]

    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    ip4 = IP(src="10.0.0.1", dst="10.0.0.2", tos=0x02, ttl=64, flags="DF")
    frames = []  # (packet, opcode, psn, payload_len)

    def rc(op):
        return opcode("RC", op)[0]

    def add(pkt, op, psn, plen):
        frames.append((pkt, op, psn, plen))

    # RDMA WRITE First with RETH and 4096 B payload.
    op = rc("RDMA_WRITE_FIRST")
    add(eth / ip4 / UDP(sport=49152, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000123, psn=0xFFFFFE)
        / Raw(reth(0x00007F0012340000, 0xCAFE, 3 * 4096 + 1001) + payload(4096, 1)),
        op, 0xFFFFFE, 4096)
    # RDMA WRITE Middle, 4096 B (PSN wraps).
    op = rc("RDMA_WRITE_MIDDLE")
    add(eth / ip4 / UDP(sport=49152, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000123, psn=0xFFFFFF)
        / Raw(payload(4096, 2)), op, 0xFFFFFF, 4096)
    # RDMA WRITE Last, 1001 B: pad count 3, AckReq.
    op = rc("RDMA_WRITE_LAST")
    add(eth / ip4 / UDP(sport=49152, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000123, psn=0x000000, ackreq=1, padcount=pad_of(1001))
        / Raw(payload(1001, 3) + b"\x00" * pad_of(1001)), op, 0x000000, 1001)
    # SEND Only with Immediate: ImmDt then 64 B, solicited event.
    op = rc("SEND_ONLY_WITH_IMMEDIATE")
    add(eth / ip4 / UDP(sport=50000, dport=ROCE_PORT)
        / BTH(opcode=op, solicited=1, dqpn=0x000456, psn=1000, ackreq=1)
        / Raw(immdt(0xDEADBEEF) + payload(64, 4)), op, 1000, 64)
    # RDMA WRITE Only with Immediate: RETH precedes ImmDt; 18 B payload, pad 2.
    op = rc("RDMA_WRITE_ONLY_WITH_IMMEDIATE")
    add(eth / ip4 / UDP(sport=50001, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000456, psn=1001, ackreq=1, padcount=pad_of(18))
        / Raw(reth(0x1000, 0x77, 18) + immdt(0x01020304) + payload(18, 5)
              + b"\x00" * pad_of(18)), op, 1001, 18)
    # RDMA READ Request with RETH.
    op = rc("RDMA_READ_REQUEST")
    add(eth / ip4 / UDP(sport=50002, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000789, psn=5557091, ackreq=1)
        / Raw(reth(0x55D8B2A9C000, 0x1234, 4096)), op, 5557091, 0)
    # RDMA READ Response Only: AETH (as Raw) then 100 B.
    op = rc("RDMA_READ_RESPONSE_ONLY")
    add(eth / ip4 / UDP(sport=50003, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000321, psn=5557091)
        / Raw(aeth_bytes(0x1F, 12) + payload(100, 6)), op, 5557091, 100)
    # Acknowledge with AETH (scapy's own layer), ECN CE, FECN set.
    op = rc("ACKNOWLEDGE")
    add(eth / IP(src="10.0.0.2", dst="10.0.0.1", tos=0x03, ttl=17)
        / UDP(sport=50004, dport=ROCE_PORT)
        / BTH(opcode=op, fecn=1, dqpn=0x000123, psn=0x000000)
        / AETH(syndrome=0x1F, msn=0x000042), op, 0, 0)
    # VLAN-tagged RDMA WRITE Only, 256 B.
    op = rc("RDMA_WRITE_ONLY")
    add(eth / Dot1Q(prio=3, vlan=100) / ip4 / UDP(sport=50005, dport=ROCE_PORT)
        / BTH(opcode=op, dqpn=0x000AAA, psn=77, ackreq=1)
        / Raw(reth(0x2000, 0x99, 256) + payload(256, 7)), op, 77, 256)
    # CNP (UD-class opcode 0x81, 16 B reserved).
    add(eth / IP(src="10.0.0.2", dst="10.0.0.1", tos=0xC2)
        / UDP(sport=0, dport=ROCE_PORT) / cnp(0x000118), 0x81, 0, 16)

    # IPv4: check the hand-written ICRC against scapy's.
    built = []
    for pkt, op, psn, plen in frames:
        raw = bytes(pkt)
        carried = struct.unpack("<I", raw[-4:])[0]
        mine = icrc_rxe.icrc(raw)
        if carried != mine:
            sys.exit("ICRC mismatch for opcode 0x%02x: scapy %08x, rxe rules %08x"
                     % (op, carried, mine))
        built.append((Ether(raw), op, psn, plen))

    # IPv6 (scapy 2.5 has no IPv6 ICRC: icrc_rxe's), with traffic class, flow label and
    # hop limit set to values the ICRC must mask, with and without a VLAN tag.
    def ip6(tc, fl, hlim):
        return IPv6(src="fd00::1", dst="fd00::2", tc=tc, fl=fl, hlim=hlim)

    v6 = []
    op = rc("SEND_ONLY")
    v6.append((eth / ip6(0x02, 0x12345, 64) / UDP(sport=50006, dport=ROCE_PORT)
               / BTH(opcode=op, dqpn=0x000BBB, psn=4242, ackreq=1, icrc=0)
               / Raw(payload(100, 8)), op, 4242, 100))
    op = rc("RDMA_WRITE_FIRST")
    v6.append((eth / ip6(0xB9, 0xFEDCB, 3) / UDP(sport=50007, dport=ROCE_PORT)
               / BTH(opcode=op, dqpn=0x000BBC, psn=0xFFFFFF, icrc=0)
               / Raw(reth(0x7F0000001000, 0x4242, 2 * 4096) + payload(4096, 9)),
               op, 0xFFFFFF, 4096))
    op = rc("RDMA_WRITE_LAST")
    v6.append((eth / Dot1Q(prio=5, vlan=7) / ip6(0x03, 0x00001, 255)
               / UDP(sport=50007, dport=ROCE_PORT)
               / BTH(opcode=op, dqpn=0x000BBC, psn=0, ackreq=1, padcount=pad_of(4093), icrc=0)
               / Raw(payload(4093, 10) + b"\x00" * pad_of(4093)), op, 0, 4093))
    op = rc("ACKNOWLEDGE")
    v6.append((eth / Dot1Q(prio=6, vlan=4000) / ip6(0xFF, 0xFFFFF, 1)
               / UDP(sport=50008, dport=ROCE_PORT)
               / BTH(opcode=op, becn=1, dqpn=0x000BBB, psn=4242, icrc=0)
               / AETH(syndrome=0x1F, msn=0x000007), op, 4242, 0))
    for pkt, op, psn, plen in v6:
        raw = bytearray(bytes(pkt))
        raw[-4:] = struct.pack("<I", icrc_rxe.icrc(bytes(raw)))
        built.append((Ether(bytes(raw)), op, psn, plen))

    wrpcap(out, [p for p, _, _, _ in built])
    with open(out + ".txt", "w") as f:
        for _, op, psn, plen in built:
            f.write("%d %d %d\n" % (op, psn, plen))


if __name__ == "__main__":
    main()
