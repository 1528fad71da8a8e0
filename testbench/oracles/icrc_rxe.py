#!/usr/bin/python3
"""Independent RoCEv2 ICRC oracle, computed the way Linux soft-RoCE does it.

Written from the rules of drivers/infiniband/sw/rxe/rxe_icrc.c (rxe_icrc_hdr,
rxe_icrc_generate), without zlib and without any of oonic's code:

- the CRC register starts as the CRC-32 state after 8 bytes of 0xFF fed into an
  all-ones register: the masked LRH that RoCEv2 does not carry. rxe hard-codes that
  state as 0xDEBB20E3; this module computes it and checks it against that constant.
  The prefix is the same for IPv4 and IPv6.
- IPv4: TOS, TTL and the header checksum are set to ones.
  IPv6: the priority nibble, the 3 flow-label bytes (which hold the low nibble of the
  traffic class) and the hop limit are set to ones.
- UDP checksum set to ones; BTH byte 4 (FECN, BECN, resv6 — rxe's "resv8a") set to ones.
- then the rest of the transport headers and the payload with its pad; the ICRC is the
  inverted register, stored low byte first.

usage: icrc_rxe.py FILE.pcap...   check every RoCEv2 frame's ICRC in the files (exit 1 on
                                  a mismatch); prints one line per file.
"""

import struct
import sys

_POLY = 0xEDB88320  # CRC-32 (IEEE 802.3), reflected
_TABLE = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ (_POLY if _c & 1 else 0)
    _TABLE.append(_c)

RXE_SEED = 0xDEBB20E3  # rxe_icrc.c: "CRC with a seed of 0xffffffff and 8 bytes of 0xff"


def crc_update(reg, data):
    """Feed bytes into a raw (non-inverted) reflected CRC-32 register."""
    for byte in data:
        reg = (reg >> 8) ^ _TABLE[(reg ^ byte) & 0xFF]
    return reg


_SEED = crc_update(0xFFFFFFFF, b"\xff" * 8)
assert _SEED == RXE_SEED, hex(_SEED)


def l3_offset(frame):
    ethertype = struct.unpack("!H", frame[12:14])[0]
    return 18 if ethertype == 0x8100 else 14


def is_roce(frame):
    if len(frame) < 14:
        return False
    l3 = l3_offset(frame)
    et = struct.unpack("!H", frame[l3 - 2:l3])[0]
    if et == 0x0800 and len(frame) >= l3 + 20 and frame[l3 + 9] == 17:
        ihl = (frame[l3] & 0x0F) * 4
        return struct.unpack("!H", frame[l3 + ihl + 2:l3 + ihl + 4])[0] == 4791
    if et == 0x86DD and len(frame) >= l3 + 48 and frame[l3 + 6] == 17:
        return struct.unpack("!H", frame[l3 + 42:l3 + 44])[0] == 4791
    return False


def icrc(frame):
    """ICRC of an Ethernet frame (optional 802.1Q tag, IPv4 or IPv6, UDP 4791) whose last
    4 bytes are the ICRC slot. Ethernet padding after the IP packet is excluded."""
    l3 = l3_offset(frame)
    if frame[l3] >> 4 == 4:
        ihl = (frame[l3] & 0x0F) * 4
        total = struct.unpack("!H", frame[l3 + 2:l3 + 4])[0]
        ip = bytearray(frame[l3:l3 + total])
        ip[1] = 0xFF
        ip[8] = 0xFF
        ip[10] = ip[11] = 0xFF
    else:
        ihl = 40
        total = 40 + struct.unpack("!H", frame[l3 + 4:l3 + 6])[0]
        ip = bytearray(frame[l3:l3 + total])
        ip[0] |= 0x0F            # priority (high nibble of the traffic class)
        ip[1] = ip[2] = ip[3] = 0xFF  # flow label (with the low nibble of the traffic class)
        ip[7] = 0xFF             # hop limit
    udp = ihl
    ip[udp + 6] = ip[udp + 7] = 0xFF  # UDP checksum
    ip[udp + 8 + 4] = 0xFF            # BTH resv8a: FECN, BECN, resv6
    reg = crc_update(_SEED, bytes(ip[:-4]))
    return (~reg) & 0xFFFFFFFF


def carried(frame):
    """The ICRC a frame carries (low byte first), excluding Ethernet padding."""
    l3 = l3_offset(frame)
    if frame[l3] >> 4 == 4:
        end = l3 + struct.unpack("!H", frame[l3 + 2:l3 + 4])[0]
    else:
        end = l3 + 40 + struct.unpack("!H", frame[l3 + 4:l3 + 6])[0]
    return struct.unpack("<I", frame[end - 4:end])[0]


def frame_without_padding(frame):
    l3 = l3_offset(frame)
    if frame[l3] >> 4 == 4:
        end = l3 + struct.unpack("!H", frame[l3 + 2:l3 + 4])[0]
    else:
        end = l3 + 40 + struct.unpack("!H", frame[l3 + 4:l3 + 6])[0]
    return frame[:end]


def check_pcap(path):
    """(roce frames, list of (index, carried, expected) mismatches) of a pcap file."""
    from scapy.all import rdpcap
    bad = []
    n = 0
    for i, pkt in enumerate(rdpcap(path)):
        raw = bytes(pkt)
        if not is_roce(raw):
            continue
        n += 1
        f = frame_without_padding(raw)
        got, want = carried(f), icrc(f)
        if got != want:
            bad.append((i, got, want))
    return n, bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rc = 0
    for path in sys.argv[1:]:
        n, bad = check_pcap(path)
        print("%s: %d RoCEv2 frames, %d bad ICRC" % (path, n, len(bad)))
        for i, got, want in bad[:10]:
            print("  frame %d: carries %08x, rxe computes %08x" % (i + 1, got, want))
        rc |= 1 if bad or n == 0 else 0
    sys.exit(rc)


if __name__ == "__main__":
    main()
