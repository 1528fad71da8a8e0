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
(it warns and writes 0): for IPv6 the ICRC is computed here from the IBTA
Annex A17 rules, and the same function is checked against scapy's ICRC for every
IPv4 frame first.
"""

import struct
import sys
import zlib

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


def icrc_by_hand(frame):
    """ICRC per IBTA Annex A17 for an Ethernet frame (optionally VLAN-tagged)."""
    l3 = 14
    if frame[12:14] == b"\x81\x00":
        l3 = 18
    ip = bytearray(frame[l3:-4])
    if ip[0] >> 4 == 4:
        ihl = (ip[0] & 0x0F) * 4
        ip[1] = 0xFF  # TOS
        ip[8] = 0xFF  # TTL
        ip[10:12] = b"\xff\xff"  # header checksum
        prefix = b"\xff" * 8
    else:
        ihl = 40
        ip[0] |= 0x0F  # traffic class + flow label
        ip[1:4] = b"\xff\xff\xff"
        ip[7] = 0xFF  # hop limit
        prefix = b""
    ip[ihl + 6 : ihl + 8] = b"\xff\xff"  # UDP checksum
    ip[ihl + 8 + 4] = 0xFF  # BTH FECN | BECN | Resv6
    return zlib.crc32(prefix + bytes(ip)) & 0xFFFFFFFF


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
        mine = icrc_by_hand(raw)
        if carried != mine:
            sys.exit("ICRC mismatch for opcode 0x%02x: scapy %08x, by hand %08x"
                     % (op, carried, mine))
        built.append((Ether(raw), op, psn, plen))

    # IPv6 RoCEv2 SEND Only, 100 B (ICRC by hand: scapy 2.5 has no IPv6 ICRC).
    op = rc("SEND_ONLY")
    pkt = (eth / IPv6(src="fd00::1", dst="fd00::2", tc=0x02, fl=0x12345, hlim=64)
           / UDP(sport=50006, dport=ROCE_PORT)
           / BTH(opcode=op, dqpn=0x000BBB, psn=4242, ackreq=1, icrc=0)
           / Raw(payload(100, 8)))
    raw = bytearray(bytes(pkt))
    raw[-4:] = struct.pack("<I", icrc_by_hand(bytes(raw)))
    built.append((Ether(bytes(raw)), op, 4242, 100))

    wrpcap(out, [p for p, _, _, _ in built])
    with open(out + ".txt", "w") as f:
        for _, op, psn, plen in built:
            f.write("%d %d %d\n" % (op, psn, plen))


if __name__ == "__main__":
    main()
