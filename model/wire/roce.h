// RoCEv2 codec: Ethernet / 802.1Q / IPv4 / IPv6 / UDP / BTH / extension headers /
// RETH / AETH / ImmDt / payload / ICRC. Parsing is in place (a PacketView points
// into the frame, the payload is never copied); building writes one frame.
// Plain C++: no SystemC.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace oonic::wire {

constexpr uint16_t kRoceUdpPort = 4791;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeIpv6 = 0x86DD;
constexpr uint16_t kEtherTypeVlan = 0x8100;
constexpr size_t kEthHeaderBytes = 14;
constexpr size_t kVlanTagBytes = 4;
constexpr size_t kIpv4HeaderBytes = 20;
constexpr size_t kIpv6HeaderBytes = 40;
constexpr size_t kUdpHeaderBytes = 8;
constexpr size_t kBthBytes = 12;
constexpr size_t kRethBytes = 16;
constexpr size_t kAethBytes = 4;
constexpr size_t kImmDtBytes = 4;
constexpr size_t kIcrcBytes = 4;
constexpr size_t kFcsBytes = 4;
constexpr size_t kPreambleIfgBytes = 20;
constexpr uint32_t kPsnMask = 0xFFFFFF;

// BTH opcodes. Standard RC opcodes (IBTA) plus oonic's extensions in the RC
// reserved range 0x18-0x1F (docs/DESIGN.md "Wire format"). The table in roce.cpp (opcode_info) is
// the one place that says which headers each opcode carries.
enum Opcode : uint8_t {
  kSendFirst = 0x00,
  kSendMiddle = 0x01,
  kSendLast = 0x02,
  kSendLastImm = 0x03,
  kSendOnly = 0x04,
  kSendOnlyImm = 0x05,
  kWriteFirst = 0x06,
  kWriteMiddle = 0x07,
  kWriteLast = 0x08,
  kWriteLastImm = 0x09,
  kWriteOnly = 0x0A,
  kWriteOnlyImm = 0x0B,
  kReadRequest = 0x0C,
  kReadResponseFirst = 0x0D,
  kReadResponseMiddle = 0x0E,
  kReadResponseLast = 0x0F,
  kReadResponseOnly = 0x10,
  kAcknowledge = 0x11,
  // ORNIC extensions (docs/DESIGN.md "Wire format").
  kOooWriteFSpot = 0x18,      // BTH + OooAddr ext + payload
  kOooWriteSpot = 0x19,       // BTH + payload
  kOooWriteLast = 0x1A,       // BTH + payload (last packet of the WQE)
  kOooWriteLastFSpot = 0x1B,  // BTH + OooAddr ext + payload (last packet, address still carried)
  kOooReadRequest = 0x1C,     // BTH + RETH (as READ Request)
  kOooReadResponse = 0x1D,    // BTH + payload (one type for every position)
  kSchemeFeedback = 0x1E,     // BTH + Feedback ext + AETH (the baselines' NACK/SACK/ACK)
  kOooNak = 0x1F,             // BTH + Bitmap ext + AETH (NAK carrying a bitmap block)
  kCnp = 0x81,                // RoCEv2 CNP (UD-class opcode), 16 B reserved payload
};

// BTH byte 8 bit 6 (first Resv7 bit after the AckReq bit): on an Acknowledge,
// "Start_Addr cached" (ORNIC). Resv7 is covered by the ICRC; Wireshark still
// dissects the frame as a normal ACK.
constexpr uint8_t kBthStartAddrCachedBit = 0x40;
// BTH byte 8 bit 5 on a data packet (WRITE, SEND, OOO WRITE): Eunomia's metadata
// extension follows the BTH (before RETH / OOO address): 8 bytes, Head 32 |
// flags 8 (bit 0: last) | reserved 24. The reserved range 0x18-0x1F has no
// opcode left for Eunomia's data packets, so a flag on the standard ones marks it.
constexpr uint8_t kBthEunomiaMetaBit = 0x20;
constexpr size_t kEunomiaMetaBytes = 8;
struct EunomiaMeta {
  uint32_t head = 0;  // first sequence number of the message (Eunomia's Head)
  bool last = false;  // last packet of the message
};
// BTH byte 8 bit 4 on a data packet: MP-RDMA's metadata extension (MP-RDMA NSDI'18 §4)
// follows the BTH (after Eunomia's, before RETH / OOO address): 8 bytes,
// flags 8 (bit 0 ReTx, bit 1 Sync; others 0) | iPSN 24 | reserved 8 | MSN 24.
// iPSN is the first PSN of the packet's message, MSN its message sequence number.
// Like Eunomia's, Wireshark shows the 8 bytes as the start of the payload.
constexpr uint8_t kBthMpRdmaMetaBit = 0x10;
constexpr size_t kMpRdmaMetaBytes = 8;
struct MpRdmaMeta {
  bool retx = false;  // a retransmission (its ACK echoes ReTx: a good path, MECHANISMS §6)
  bool sync = false;  // the message waits for every earlier one (synchronise flag)
  uint32_t ipsn = 0;  // 24 bit: the message's first PSN
  uint32_t msn = 0;   // 24 bit: the message's sequence number
};

// BTH byte 8 bit 3: an INT stack (HPCC's in-band telemetry, MECHANISMS.md §9) trails the
// packet: after the payload and its pad, before the ICRC, max_hops records of 8 bytes,
// then a 4-byte footer nhop 8 | max_hops 8 | multi 8 | reserved 8 (so the stack is found
// from the frame's end; multi: the units the switches wrote, 0 until the first did). A data packet
// leaves its sender with every record zero and nhop 0; each switch that forwards it writes record
// nhop at dequeue and counts nhop up (the ICRC, which covers the trailer, rewritten). An ACK, NAK
// or Scheme Feedback frame echoes the stack of the last data packet its QP received. Wireshark
// shows the trailer as payload bytes (data) or as bytes after the AETH (responses).
constexpr uint8_t kBthIntBit = 0x08;
constexpr uint32_t kMaxIntHops = 16;
constexpr size_t kIntFooterBytes = 4;
constexpr size_t kIntHopBytes = 8;
constexpr size_t int_trailer_bytes(uint32_t max_hops) {
  return max_hops * kIntHopBytes + kIntFooterBytes;
}
// One hop's record, a big-endian 64-bit word (the widths of ns-3 HPCC's IntHop, with a
// wider rate code and a narrower queue): rate code 5 | time 24 | tx bytes 20 | qlen 15.
//   time      the switch's clock at dequeue, ns, modulo 2^24 (deltas across a wrap hold)
//   tx bytes  bytes the egress port sent before this packet, in units of 128 x multi,
//             modulo 2^20
//   qlen      bytes queued at the egress port (every class) when this packet left, in units
//             of 80 x multi, saturating at 2^15 - 1
//   rate code the port's rate: an index into kIntRatesGbps
// multi is the stamping switches' switch.int_multi (ns-3 HPCC's INT_MULTI), which the
// sender must know too (cc.hpcc.int_multi).
inline constexpr double kIntRatesGbps[] = {1,   2.5, 5,   10,  25,   40,   50,   56,
                                           100, 200, 400, 800, 1600, 3200, 6400, 12800};
constexpr uint32_t kIntRateCodes = sizeof(kIntRatesGbps) / sizeof(kIntRatesGbps[0]);
constexpr uint32_t kIntTimeBits = 24, kIntBytesBits = 20, kIntQlenBits = 15;
constexpr uint64_t kIntBytesUnit = 128, kIntQlenUnit = 80;
// The code of a rate, or -1 when it has none.
int int_rate_code(double gbps);
struct IntHop {
  uint64_t word = 0;
  static IntHop make(uint64_t time_ns, uint64_t tx_bytes, uint64_t qlen_bytes, int rate_code,
                     uint32_t multi);
  double gbps() const;  // the port's rate (0 for an unknown code)
  uint64_t time_ns() const { return (word >> (kIntBytesBits + kIntQlenBits)) & ((1u << 24) - 1); }
  uint64_t qlen_bytes(uint32_t multi) const {
    return (word & ((1u << kIntQlenBits) - 1)) * kIntQlenUnit * multi;
  }
  // Deltas against the same hop's earlier record, across a wrap.
  uint64_t time_delta_ns(const IntHop& earlier) const;
  uint64_t bytes_delta(const IntHop& earlier, uint32_t multi) const;
};
struct IntStack {
  uint8_t nhop = 0;      // records written
  uint8_t max_hops = 0;  // records the trailer has room for (0: no stack)
  uint8_t multi = 0;     // the records' units (IntHop), set by the first switch (0: none yet)
  std::array<IntHop, kMaxIntHops> hop{};
};
// The stack of a parsed frame, in place (the view stays small: most frames have none).
struct IntStackView {
  uint8_t nhop = 0, max_hops = 0, multi = 0;
  const uint8_t* records = nullptr;  // max_hops big-endian words, in the frame
  IntHop hop(uint32_t i) const;
  IntStack copy() const;  // the records read out
};

// AETH syndromes (IBTA 9.7.5.1): top 3 bits are the kind.
constexpr uint8_t kAethAck = 0x00;  // | credit count (we use 0x1F: invalid credit)
constexpr uint8_t kAethAckNoCredit = 0x1F;
constexpr uint8_t kAethRnrNak = 0x20;
constexpr uint8_t kAethNakPsnSeqErr = 0x60;
constexpr uint8_t kAethNakInvalidReq = 0x61;
constexpr uint8_t kAethNakRemoteAccess = 0x62;
constexpr uint8_t kAethNakRemoteOpErr = 0x63;
constexpr uint8_t kAethNakInvalidRdReq = 0x64;

// Maximum bitmap block carried by an OOO NAK (bits). The block size of the
// model (bitmap.block_bits) may not exceed it.
constexpr uint32_t kMaxBitmapBlockBits = 512;

enum HeaderFlags : uint16_t {
  kHasReth = 1 << 0,
  kHasAeth = 1 << 1,
  kHasImmDt = 1 << 2,
  kHasOooAddr = 1 << 3,
  kHasBitmap = 1 << 4,
  kHasPayload = 1 << 5,       // opcode carries data payload
  kIsRequest = 1 << 6,        // sent by a requester (WRITE/SEND data, READ request)
  kIsResponse = 1 << 7,       // sent by a responder (ACK/NAK, READ response)
  kIsFirst = 1 << 8,          // first packet of a message
  kIsLast = 1 << 9,           // last packet of a message (Last/Only)
  kIsOoo = 1 << 10,           // ORNIC OOO WQE packet
  kIsExtension = 1 << 11,     // oonic extension opcode (0x18-0x1F)
  kHasFeedback = 1 << 12,     // scheme feedback extension (kSchemeFeedback)
  kHasEunomiaMeta = 1 << 13,  // Eunomia metadata extension (kBthEunomiaMetaBit on a data packet)
  kHasMpRdmaMeta = 1 << 14,   // MP-RDMA metadata extension (kBthMpRdmaMetaBit on a data packet)
  kHasInt = 1 << 15           // INT stack trailer (kBthIntBit)
};

struct OpcodeInfo {
  uint8_t opcode;
  const char* name;  // e.g. "RDMA WRITE First", "OOO WRITE FSpot"
  uint16_t flags;    // HeaderFlags
};

// Info for an opcode, or nullptr if the opcode is not RC / not known.
const OpcodeInfo* opcode_info(uint8_t opcode);
// The whole table (for docs and `oonic` listings).
const std::vector<OpcodeInfo>& opcode_table();

struct Bth {
  uint8_t opcode = 0;
  bool se = false;
  bool migreq = false;
  uint8_t pad_count = 0;  // 0..3
  uint8_t tver = 0;
  uint16_t pkey = 0xFFFF;
  bool fecn = false;
  bool becn = false;
  uint32_t dest_qp = 0;  // 24 bit
  bool ack_req = false;
  uint8_t resv7 = 0;  // 7 bits; kBthStartAddrCachedBit lives here (as 0x40 of the byte)
  uint32_t psn = 0;   // 24 bit
};

struct Reth {  // also the layout of the OOO address extension (Write_Addr, R_Key, WQE length)
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint32_t dma_len = 0;
};

struct Aeth {
  uint8_t syndrome = 0;
  uint32_t msn = 0;  // 24 bit
};

// Bitmap extension of the OOO NAK: base PSN of the block and its bits
// (bit i = PSN base_psn + i received). Wire layout: rsvd 8 | base_psn 24 |
// nbits 16 | rsvd 16 | bits, ceil(nbits/32) 32-bit words, bit i at word i/32,
// bit (i%32) of that big-endian word counted from the LSB.
struct BitmapBlock {
  uint32_t base_psn = 0;
  uint16_t nbits = 0;
  std::array<uint32_t, kMaxBitmapBlockBits / 32> words{};
  bool test(uint32_t i) const { return (words[i / 32] >> (i % 32)) & 1u; }
  void set(uint32_t i) { words[i / 32] |= (1u << (i % 32)); }
};

// The baselines' receiver feedback (docs/DESIGN.md "Wire format"), one 16-byte
// extension header after the BTH of opcode kSchemeFeedback; the BTH PSN carries
// the receiver's ePSN (cumulative ACK). Wire layout: type 8 | info 8 | vp 16 |
// three entries of (PSN 24 | length 8).
//   kHoleNack  MELO: NACK with up to 3 holes (info = count; entries: start, length)
//   kSack      IRN / Eunomia SACK: entry 0 = the SACKed PSN
//   kNack      PSN not tracked (Eunomia; beyond the window): entry 0 = the PSN; UET's
//              (info bit 7, kUetNackFlag: trimmed or beyond the window) names 1 to 3
//              PSNs, entries 0..2, their count in info bits 0..1; bit 6 the frame's
//              PSNs are beyond the window (kUetNackOutOfWindow), bit 2 + i entry i was
//              trimmed at its last hop (uet_nack_last_hop_bit)
//   kMpAck     MP-RDMA ACK: entry 0 = AACK, entry 1 = SACK; vp = echoed UDP source
//              port; info bit 0 = ECE, bit 1 = ReTx echo
//   kUetAck    UET's ACK (nic.ordering uet-rud, uet-rod), its fields on this frame: entry 0 = the
//              PSN whose arrival sent it; entry 1 = the receiver's out-of-order count
//              (PSNs placed past the cumulative PSN; 0xFFFFFF: not known, a duplicate
//              below it ACKed without reading the bitmap); a 48-bit SACK bitmap in entry 2's
//              PSN (bits 0..23) and the three length bytes (bits 24..47, len[0] lowest),
//              bit i set when PSN entry0 - 1 - i was received (uet_sack_bits); vp =
//              echoed UDP source port (the entropy value); info bit 0 = ECE, bits 2..7 =
//              packets placed since the receiver's last ACK (coalesced, at most 63)
struct SchemeFeedback {
  enum Type : uint8_t { kHoleNack = 1, kSack = 2, kNack = 3, kMpAck = 4, kUetAck = 5 };
  uint8_t type = kSack;
  uint8_t info = 0;
  uint16_t vp = 0;
  std::array<uint32_t, 3> psn{};
  std::array<uint8_t, 3> len{};
  // A merged UET NACK's entries 1 and 2: the entropy values they came on (the Req
  // Manager's register keeps them; UET's wire sends each entry on its own, the 16-byte
  // extension has no room and carries vp alone).
  std::array<uint16_t, 2> more_vp{};
};
constexpr size_t kFeedbackExtBytes = 16;
constexpr uint32_t kUetSackBits = 48;          // kUetAck: the SACK bitmap's width
constexpr uint32_t kUetOooUnknown = 0xFFFFFF;  // kUetAck entry 1: the OOO count not read
// kNack from UET's receivers: info bit 7 set, bits 0..1 the PSN entries it names (1..3:
// the Req Manager merges NACKs that meet in a QP's register instead of losing one).
constexpr uint8_t kUetNackFlag = 0x80;
// A UET NACK for a PSN beyond the receiver's window (UET's PSN_OUT_OF_WINDOW), not a
// trimmed one (TRIMMED): info bit 6.
constexpr uint8_t kUetNackOutOfWindow = 0x40;
// A trimmed PSN's NACK whose packet was trimmed at its last hop (UET's TRIMMED_LASTHOP:
// nic.trim_dscp_last_hop): bit 2 + i for PSN entry i.
inline uint8_t uet_nack_last_hop_bit(uint32_t entry) {
  return static_cast<uint8_t>(0x04u << entry);
}
inline bool uet_nack_last_hop(const SchemeFeedback& f, uint32_t entry) {
  return (f.info & kUetNackFlag) && (f.info & uet_nack_last_hop_bit(entry));
}
inline uint32_t nack_entries(const SchemeFeedback& f) {
  return (f.info & kUetNackFlag) && (f.info & 3) ? (f.info & 3) : 1;
}
// kUetAck's SACK bitmap (bit i: PSN psn[0] - 1 - i received) and its coalesced count.
inline uint64_t uet_sack_bits(const SchemeFeedback& f) {
  return (f.psn[2] & 0xFFFFFFu) | uint64_t{f.len[0]} << 24 | uint64_t{f.len[1]} << 32 |
         uint64_t{f.len[2]} << 40;
}
inline void set_uet_sack_bits(SchemeFeedback& f, uint64_t bits) {
  f.psn[2] = static_cast<uint32_t>(bits & 0xFFFFFFu);
  for (int i = 0; i < 3; ++i) f.len[i] = static_cast<uint8_t>(bits >> (24 + 8 * i));
}
inline uint32_t uet_coalesced(const SchemeFeedback& f) {
  return f.info >> 2;
}

enum class ParseStatus : uint8_t {
  kOk = 0,
  kTruncated,      // frame shorter than its headers say
  kNotIp,          // ethertype neither IPv4 nor IPv6 (ARP, ...)
  kNotUdp,         // IP protocol not UDP (TCP, ICMPv6, ...)
  kNotRoce,        // UDP destination port not 4791
  kBadIpHeader,    // IPv4 IHL/total length inconsistent, options present, bad version
  kUnknownOpcode,  // BTH opcode neither RC/CNP standard nor an oonic extension
  kBadExtension,   // malformed extension header (e.g. bitmap nbits too large)
  kBadPadding,     // pad count larger than the payload
  kBadIcrc,        // ICRC mismatch
  kUdOrCnp,        // UD-class opcode (0x60-0x7F) or CNP: parsed BTH, not RC
};
const char* to_string(ParseStatus s);

struct PacketView {
  // L2
  std::array<uint8_t, 6> dst_mac{};
  std::array<uint8_t, 6> src_mac{};
  bool has_vlan = false;
  uint16_t vlan_tci = 0;
  // L3 (IPv4 addresses in the first 4 bytes)
  uint8_t ip_version = 0;  // 4 or 6
  std::array<uint8_t, 16> src_ip{};
  std::array<uint8_t, 16> dst_ip{};
  uint8_t tos = 0;  // IPv4 TOS / IPv6 traffic class (DSCP << 2 | ECN)
  uint8_t ttl = 0;
  uint16_t ip_id = 0;  // IPv4 identification (IPv6: 0)
  // L4
  uint16_t udp_sport = 0;
  uint16_t udp_dport = 0;
  // Transport
  Bth bth;
  const OpcodeInfo* info = nullptr;
  uint16_t flags = 0;  // HeaderFlags present in this packet
  Reth reth;           // RETH, or the OOO address extension (kHasOooAddr)
  Aeth aeth;
  uint32_t immdt = 0;
  BitmapBlock bitmap;
  SchemeFeedback feedback;  // kSchemeFeedback
  EunomiaMeta eunomia;      // kHasEunomiaMeta
  MpRdmaMeta mprdma;        // kHasMpRdmaMeta
  IntStackView int_stack;   // kHasInt (points into the frame)
  // Payload (points into the frame; excludes pad bytes, the INT trailer and ICRC)
  const uint8_t* payload = nullptr;
  uint32_t payload_len = 0;
  uint32_t header_len = 0;  // bytes from frame start to payload
  uint32_t frame_len = 0;   // bytes of the frame as parsed (Ethernet padding excluded)
  uint32_t icrc = 0;        // as carried
};

// Parse a frame (Ethernet II, no FCS). Ethernet padding beyond the IP total
// length is ignored. With check_icrc the ICRC is verified (kBadIcrc otherwise).
// kUdOrCnp (also ICRC-checked): L2-L4, bth, frame_len and icrc are filled; info
// is the CNP entry (or nullptr for UD), payload = the bytes after the BTH (for
// UD these start with the DETH). On other errors the fields parsed so far are set.
ParseStatus parse(const uint8_t* frame, size_t len, PacketView& out, bool check_icrc = true);

// Everything needed to build one frame.
struct FrameSpec {
  std::array<uint8_t, 6> dst_mac{{0x02, 0, 0, 0, 0, 0x02}};
  std::array<uint8_t, 6> src_mac{{0x02, 0, 0, 0, 0, 0x01}};
  bool vlan = false;
  uint16_t vlan_tci = 0;
  uint8_t ip_version = 4;
  std::array<uint8_t, 16> src_ip{{10, 0, 0, 1}};
  std::array<uint8_t, 16> dst_ip{{10, 0, 0, 2}};
  uint8_t tos = 0;
  uint8_t ttl = 64;
  uint16_t ip_id = 0;  // IPv4 identification (the NIC: a per-QP counter)
  uint16_t udp_sport = 49152;
  Bth bth;    // pad_count is computed from payload_len by build()
  Reth reth;  // used if the opcode carries RETH or the OOO address extension
  Aeth aeth;  // used if the opcode carries AETH
  uint32_t immdt = 0;
  BitmapBlock bitmap;       // used by kOooNak
  SchemeFeedback feedback;  // used by kSchemeFeedback
  EunomiaMeta eunomia;      // written when bth.resv7 has kBthEunomiaMetaBit on a data opcode
  MpRdmaMeta mprdma;        // written when bth.resv7 has kBthMpRdmaMetaBit on a data opcode
  // The INT trailer, written when bth.resv7 has kBthIntBit (RC opcodes) and this is set
  // with max_hops > 0 (a data packet's: every record zero; a response's: the echo).
  const IntStack* int_stack = nullptr;
  const uint8_t* payload = nullptr;
  uint32_t payload_len = 0;
  // What only UET's wire carries of a request (nic.wire uet, uet_nic.h; this codec
  // ignores them): the RETX flag, the packet's byte offset in its message, the message id.
  struct UetFields {
    bool retx = false;
    uint32_t msg_offset = 0;
    uint16_t msg_id = 0;
  } uet;
};

// Bytes build() will write for this spec.
size_t frame_size(const FrameSpec& spec);
// Bytes before the payload (Ethernet up to the last extension header).
size_t header_size(const FrameSpec& spec);
// Write the frame (headers, payload, pad, ICRC; IPv4 checksum and lengths
// filled). Returns bytes written, or 0 if cap is too small. The payload may
// already sit in place (spec.payload == out + header_size(spec)): not copied.
size_t build(const FrameSpec& spec, uint8_t* out, size_t cap);
// Writes spec's Ethernet (+ VLAN), IPv4 or IPv6 and UDP headers, UDP destination port
// udp_dport, for a UDP datagram of udp_len bytes (its header included); returns the
// bytes written (the UDP payload starts there). The UDP checksum is left 0. Shared by
// the RoCEv2 and UET codecs.
size_t write_eth_ip_udp(const FrameSpec& spec, uint16_t udp_dport, size_t udp_len, uint8_t* out);
std::vector<uint8_t> build(const FrameSpec& spec);

// ICRC of a frame whose last 4 bytes are the ICRC slot (those 4 bytes are not
// read). l3_offset is the offset of the IP header. CRC-32 via ISA-L.
uint32_t compute_icrc(const uint8_t* frame, size_t len, size_t l3_offset);

// A switch's INT stamp on a parsed frame (v: its view, kHasInt set): writes hop into the
// next free record, counts nhop up, sets the footer's multi (the first record) and
// rewrites the ICRC (and an IPv6 UDP checksum). False (nothing written) when the stack
// is full.
bool push_int_hop(uint8_t* frame, const PacketView& v, IntHop hop, uint8_t multi = 1);

// UDP checksum of an IPv6 packet (ip6 = its header; udp_len = the UDP length),
// the field itself read as 0; never 0 (RFC 8200 8.1). build() fills it for IPv6.
uint16_t udp6_checksum(const uint8_t* ip6, size_t udp_len);
// The IPv4 header checksum of the 20-byte header at h (its checksum field zero).
uint16_t ipv4_checksum(const uint8_t* h);

// A switch's trimming of a RoCEv2 request data frame (switch.trim; UET's trimming on the
// frames oonic's NICs send): the payload and pad cut, the BTH pad count 0, the DSCP set to
// dscp (ECN kept), the IP and UDP lengths, the IPv4 checksum (or the IPv6 UDP checksum)
// and the ICRC rewritten. Returns the new length; len unchanged (nothing cut) when the
// frame is not a request carrying payload, or carries an INT trailer.
size_t trim_frame(uint8_t* frame, size_t len, uint8_t dscp);
// A trimmed frame's IP and UDP fields (both codecs' trim_frame): DSCP dscp with v's ECN
// bits, the IP length (and IPv4 checksum) and the UDP length for a UDP datagram of
// udp_len bytes. The IPv6 UDP checksum is left to the caller. Returns the UDP offset.
size_t rewrite_ip_udp(uint8_t* frame, const PacketView& v, uint8_t dscp, size_t udp_len);
// A request data frame a switch trimmed: no payload left, and its DSCP one of the two
// trimmed classes (a whole frame that happens to carry DSCP 16 or 18, CS2 in a capture,
// is not taken for one).
inline bool is_trimmed(const PacketView& v, uint8_t dscp, uint8_t dscp_last_hop) {
  const uint8_t d = v.tos >> 2;
  return (v.flags & kIsRequest) && v.info && (v.info->flags & kHasPayload) && v.payload_len == 0 &&
         (d == dscp || d == dscp_last_hop);
}

// Wire time helpers: bytes a frame occupies on an Ethernet link (adds FCS +
// preamble + IFG; frames shorter than 60 B are padded to 60 B first).
inline uint64_t wire_bytes(size_t frame_len_no_fcs) {
  size_t l = frame_len_no_fcs < 60 ? 60 : frame_len_no_fcs;
  return l + kFcsBytes + kPreambleIfgBytes;
}

std::string format_mac(const std::array<uint8_t, 6>& mac);
std::string format_ip(uint8_t version, const std::array<uint8_t, 16>& ip);

// PSN arithmetic modulo 2^24.
inline uint32_t psn_add(uint32_t psn, int64_t d) {
  return static_cast<uint32_t>((static_cast<int64_t>(psn) + d) & kPsnMask);
}
// Signed distance b - a in (-2^23, 2^23].
inline int32_t psn_diff(uint32_t b, uint32_t a) {
  int32_t d = static_cast<int32_t>((b - a) & kPsnMask);
  return d >= (1 << 23) ? d - (1 << 24) : d;
}

}  // namespace oonic::wire
