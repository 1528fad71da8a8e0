// Trace input/output: text trace grammar, pcap/pcapng loading and writing,
// sidecar files, gen-trace output and the bundled traces.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/core/error.h"
#include "model/wire/roce.h"
#include "platforms/trace/sidecar.h"
#include "platforms/trace/trace.h"

namespace oonic::trace {
namespace {

// A frame read back from a trace (its bytes stay valid until the next read).
std::vector<uint8_t>& frame_buf() {
  static std::vector<uint8_t> b;
  return b;
}

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/oonic_trace_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string write(const std::string& name, const std::string& content) {
    std::string p = dir_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  // Expects load() to throw oonic::Error with exactly this message.
  template <typename F>
  static std::string error_of(F&& f, const char* id) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.id(), id);
      return e.what();
    }
    ADD_FAILURE() << "no oonic::Error thrown";
    return "";
  }
  std::string text_error(const std::string& body) {
    std::string p = write("bad.txt", body);
    return error_of([&] { Trace::load(p); }, msg::kTrace);
  }

  std::string dir_;
};

using TraceText = TraceTest;
using TracePcap = TraceTest;
using TraceSidecar = TraceTest;
using TraceGen = TraceTest;

wire::PacketView parse_ok(const Trace& t, size_t i, bool check_icrc = true) {
  wire::PacketView v;
  const Record& r = t.records.at(i);
  static std::vector<uint8_t> buf;  // the view's payload points here until the next call
  EXPECT_EQ(wire::parse(t.frame(r, buf), r.len, v, check_icrc), wire::ParseStatus::kOk)
      << "record " << r.index << " line " << r.line;
  return v;
}

std::string hex_of(const std::vector<uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s.push_back(d[x >> 4]);
    s.push_back(d[x & 15]);
  }
  return s;
}

// ------------------------------------------------------------ pattern ---

TEST(TracePattern, SplitmixAndBytes) {
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);  // standard SplitMix64, seed 0
  EXPECT_EQ(splitmix64(1), 0x910a2dec89025cc1ull);
  EXPECT_EQ(pattern_byte(0), 0xaf);
  EXPECT_EQ(pattern_byte(7), 0xe2);
  EXPECT_EQ(pattern_byte(8), 0xc1);
  for (uint64_t start : {0ull, 3ull, 0x10000ull, 0x10005ull}) {
    std::vector<uint8_t> b(100);
    fill_pattern(start, b.data(), b.size());
    for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], pattern_byte(start + i)) << start + i;
    EXPECT_EQ(check_pattern(start, b.data(), b.size()), b.size());
    b[41] ^= 1;
    EXPECT_EQ(check_pattern(start, b.data(), b.size()), 41u);
  }
}

// --------------------------------------------------------------- text ---

TEST_F(TraceText, ParsesEveryField) {
  wire::FrameSpec rs;
  rs.bth.opcode = wire::kSendOnly;
  rs.bth.dest_qp = 0x42;
  rs.bth.psn = 77;
  const std::vector<uint8_t> raw = wire::build(rs);

  std::string p = write("all.txt",
                        "# oonic-trace v1\n"
                        "\n"
                        "10 op=WRITE_FIRST qp=0x11 psn=100 va=0x10000 rkey=0x1234 dmalen=8192 "
                        "len=4096 payload=pat:0x10000 ackreq=0\n"
                        "12.5 op=write-middle qp=17 psn=101 len=4 payload=hex:deadbeef se=1 "
                        "fecn=1 becn=1 pkey=0x8000 tos=0x02 ttl=9 sport=1234 vlan=0x2005\n"
                        "- op=\"RDMA WRITE Last with Immediate\" qp=0x11 psn=102 imm=0xcafe "
                        "len=3 payload=zero ackreq=1\n"
                        "20.001 op=ack qp=0x11 psn=7 syndrome=0x1f msn=5 cached=1\n"
                        "- op=OOO_NAK qp=0x11 psn=8 bitmap=100:40:ffff0000,ff msn=3\n"
                        "\t- op=0x18 qp=0x11 psn=9 va=0x20000 rkey=1 dmalen=4096 len=16 "
                        "payload=pat:0x20003 src=fd00::1 dst=fd00::2 smac=aa:bb:cc:dd:ee:ff "
                        "dmac=02-00-00-00-00-09\n"
                        "- op=read_request qp=0x11 psn=10 va=0x1000 rkey=2 dmalen=65536\n"
                        "- op=write_only qp=0x11 psn=11 va=0x3000 rkey=2 payload=hex:0102030405\n"
                        "30 raw=" +
                            hex_of(raw) +
                            "\n"
                            "- op=SEND_ONLY qp=0x11 psn=12 len=8 badicrc=1\n"
                            "@endpoints peer=192.168.1.1,02:11:22:33:44:55 dut=192.168.1.2\n"
                            "- op=CNP qp=0x118\n"
                            "- op=ooo_write_spot qp=1 psn=0xffffff len=2  # trailing comment\n");
  Trace t = Trace::load(p);
  EXPECT_EQ(t.format, Format::kText);
  ASSERT_EQ(t.records.size(), 12u);
  EXPECT_TRUE(t.issues.empty());

  const uint32_t lines[] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15};
  for (size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(t.records[i].line, lines[i]);
    EXPECT_EQ(t.records[i].index, i + 1);
    EXPECT_EQ(t.records[i].len, t.records[i].orig_len);
  }
  EXPECT_TRUE(t.records[0].has_time);
  EXPECT_EQ(t.records[0].time_ps, 10000u);
  EXPECT_EQ(t.records[1].time_ps, 12500u);
  EXPECT_FALSE(t.records[2].has_time);
  EXPECT_EQ(t.records[3].time_ps, 20001u);
  EXPECT_EQ(t.records[8].time_ps, 30000u);

  auto v = parse_ok(t, 0);  // WRITE_FIRST, pattern payload, defaults
  EXPECT_EQ(v.bth.opcode, wire::kWriteFirst);
  EXPECT_EQ(v.bth.dest_qp, 0x11u);
  EXPECT_EQ(v.bth.psn, 100u);
  EXPECT_EQ(v.bth.pkey, 0xffff);
  EXPECT_FALSE(v.bth.ack_req);
  EXPECT_EQ(v.reth.va, 0x10000u);
  EXPECT_EQ(v.reth.rkey, 0x1234u);
  EXPECT_EQ(v.reth.dma_len, 8192u);
  ASSERT_EQ(v.payload_len, 4096u);
  EXPECT_EQ(check_pattern(0x10000, v.payload, v.payload_len), 4096u);
  EXPECT_EQ(wire::format_ip(v.ip_version, v.src_ip), "10.0.0.1");
  EXPECT_EQ(wire::format_ip(v.ip_version, v.dst_ip), "10.0.0.2");
  EXPECT_EQ(wire::format_mac(v.src_mac), "02:00:00:00:00:01");
  EXPECT_EQ(wire::format_mac(v.dst_mac), "02:00:00:00:00:02");
  EXPECT_EQ(v.udp_sport, 49152);
  EXPECT_FALSE(v.has_vlan);

  v = parse_ok(t, 1);  // WRITE_MIDDLE with every BTH / L2 / L3 field
  EXPECT_EQ(v.bth.opcode, wire::kWriteMiddle);
  EXPECT_EQ(v.bth.dest_qp, 17u);
  EXPECT_TRUE(v.bth.se);
  EXPECT_TRUE(v.bth.fecn);
  EXPECT_TRUE(v.bth.becn);
  EXPECT_EQ(v.bth.pkey, 0x8000);
  EXPECT_EQ(v.tos, 0x02);
  EXPECT_EQ(v.ttl, 9);
  EXPECT_EQ(v.udp_sport, 1234);
  EXPECT_TRUE(v.has_vlan);
  EXPECT_EQ(v.vlan_tci, 0x2005);
  ASSERT_EQ(v.payload_len, 4u);
  EXPECT_EQ(std::vector<uint8_t>(v.payload, v.payload + 4),
            (std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef}));

  v = parse_ok(t, 2);  // WRITE_LAST_IMM by its table name, zero payload of 3 (pad 1)
  EXPECT_EQ(v.bth.opcode, wire::kWriteLastImm);
  EXPECT_EQ(v.immdt, 0xcafeu);
  EXPECT_TRUE(v.bth.ack_req);
  EXPECT_EQ(v.bth.pad_count, 1);
  ASSERT_EQ(v.payload_len, 3u);
  EXPECT_EQ(v.payload[0] | v.payload[1] | v.payload[2], 0);

  v = parse_ok(t, 3);  // ACK
  EXPECT_EQ(v.bth.opcode, wire::kAcknowledge);
  EXPECT_EQ(v.aeth.syndrome, 0x1f);
  EXPECT_EQ(v.aeth.msn, 5u);
  EXPECT_EQ(v.bth.resv7 & wire::kBthStartAddrCachedBit, wire::kBthStartAddrCachedBit);

  v = parse_ok(t, 4);  // OOO NAK with bitmap; syndrome defaults to a NAK
  EXPECT_EQ(v.bth.opcode, wire::kOooNak);
  EXPECT_EQ(v.aeth.syndrome, wire::kAethNakPsnSeqErr);
  EXPECT_EQ(v.aeth.msn, 3u);
  EXPECT_EQ(v.bitmap.base_psn, 100u);
  EXPECT_EQ(v.bitmap.nbits, 40);
  EXPECT_EQ(v.bitmap.words[0], 0xffff0000u);
  EXPECT_EQ(v.bitmap.words[1], 0xffu);

  v = parse_ok(t, 5);  // OOO FSpot by number, IPv6, MACs
  EXPECT_EQ(v.bth.opcode, wire::kOooWriteFSpot);
  EXPECT_EQ(v.ip_version, 6);
  EXPECT_EQ(wire::format_ip(6, v.src_ip), "fd00::1");
  EXPECT_EQ(wire::format_ip(6, v.dst_ip), "fd00::2");
  EXPECT_EQ(wire::format_mac(v.src_mac), "aa:bb:cc:dd:ee:ff");
  EXPECT_EQ(wire::format_mac(v.dst_mac), "02:00:00:00:00:09");
  EXPECT_EQ(v.reth.va, 0x20000u);
  EXPECT_EQ(v.reth.dma_len, 4096u);
  ASSERT_EQ(v.payload_len, 16u);
  EXPECT_EQ(check_pattern(0x20003, v.payload, 16), 16u);

  v = parse_ok(t, 6);  // READ request
  EXPECT_EQ(v.bth.opcode, wire::kReadRequest);
  EXPECT_EQ(v.reth.dma_len, 65536u);
  EXPECT_EQ(v.payload_len, 0u);

  v = parse_ok(t, 7);  // WRITE_ONLY: dmalen defaults to the payload length
  EXPECT_EQ(v.bth.opcode, wire::kWriteOnly);
  EXPECT_EQ(v.reth.dma_len, 5u);
  EXPECT_EQ(v.payload_len, 5u);

  // raw: exact bytes
  ASSERT_EQ(t.records[8].len, raw.size());
  EXPECT_EQ(std::memcmp(t.frame(t.records[8], frame_buf()), raw.data(), raw.size()), 0);

  // badicrc: everything fine but the ICRC
  wire::PacketView bad;
  EXPECT_EQ(wire::parse(t.frame(t.records[9], frame_buf()), t.records[9].len, bad, true),
            wire::ParseStatus::kBadIcrc);
  v = parse_ok(t, 9, false);
  EXPECT_EQ(v.bth.psn, 12u);

  // @endpoints changed the defaults; CNP gets its 16 reserved bytes
  wire::PacketView cnp;
  EXPECT_EQ(wire::parse(t.frame(t.records[10], frame_buf()), t.records[10].len, cnp),
            wire::ParseStatus::kUdOrCnp);
  EXPECT_EQ(cnp.bth.opcode, wire::kCnp);
  EXPECT_EQ(cnp.bth.dest_qp, 0x118u);
  EXPECT_EQ(cnp.payload_len, 16u);
  EXPECT_EQ(wire::format_ip(4, cnp.src_ip), "192.168.1.1");
  EXPECT_EQ(wire::format_mac(cnp.src_mac), "02:11:22:33:44:55");
  EXPECT_EQ(wire::format_ip(4, cnp.dst_ip), "192.168.1.2");
  EXPECT_EQ(wire::format_mac(cnp.dst_mac), "02:00:00:00:00:02");  // MAC not given: kept

  v = parse_ok(t, 11);
  EXPECT_EQ(v.bth.opcode, wire::kOooWriteSpot);
  EXPECT_EQ(v.bth.psn, 0xffffffu);
  EXPECT_EQ(wire::format_ip(4, v.src_ip), "192.168.1.1");

  size_t total = 0;
  for (const auto& r : t.records) total += r.len;
  EXPECT_EQ(t.bytes(), total);
}

TEST_F(TraceText, EmptyAndCommentOnly) {
  EXPECT_TRUE(Trace::load(write("e.txt", "")).records.empty());
  EXPECT_TRUE(Trace::load(write("c.txt", "# oonic-trace v1\n# nothing\n\n  \r\n")).records.empty());
}

TEST_F(TraceText, ErrorsNameFileLineAndField) {
  const std::string f = dir_ + "/bad.txt";
  EXPECT_EQ(text_error("# c\n- op=SEND_ONLY qp=1 psn=1 foo=2\n"),
            f + ":2: unknown field (known: op qp psn va rkey dmalen syndrome msn imm ackreq len "
                "payload src dst smac dmac sport vlan tos ttl pkey se fecn becn cached bitmap raw "
                "badicrc eunomia_head eunomia_last), field 'foo'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=12z\n"), f + ":1: bad number '12z', field 'psn'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=0x1000000 psn=1\n"),
            f + ":1: value 0x1000000 out of range (max 0xffffff), field 'qp'");
  EXPECT_EQ(text_error("\n\n- op=WRTIE_FIRST qp=1 psn=1\n"),
            f + ":3: unknown opcode 'WRTIE_FIRST', field 'op'");
  EXPECT_EQ(text_error("- op=0x55 qp=1 psn=1\n"), f + ":1: unknown opcode '0x55', field 'op'");
  EXPECT_EQ(text_error("- op=WRITE_FIRST qp=1 psn=1 rkey=1 dmalen=4 len=4\n"),
            f + ":1: missing (required by WRITE_FIRST), field 'va'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_FSPOT qp=1 psn=1 va=0 rkey=1 len=4\n"),
            f + ":1: missing (required by OOO_WRITE_FSPOT), field 'dmalen'");
  EXPECT_EQ(text_error("- op=OOO_NAK qp=1 psn=1\n"),
            f + ":1: missing (required by OOO_NAK), field 'bitmap'");
  EXPECT_EQ(text_error("- op=SEND_ONLY psn=1\n"),
            f + ":1: missing (required by SEND_ONLY), field 'qp'");
  EXPECT_EQ(text_error("- qp=1 psn=1\n"),
            f + ":1: missing (every line needs op= or raw=), field 'op'");
  EXPECT_EQ(text_error("- op=WRITE_MIDDLE qp=1 psn=1 va=5\n"),
            f + ":1: not carried by WRITE_MIDDLE (no RETH / address header), field 'va'");
  EXPECT_EQ(text_error("- op=ACK qp=1 psn=1 len=5\n"),
            f + ":1: not carried by ACK (no payload), field 'len'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 imm=5\n"),
            f + ":1: not carried by SEND_ONLY (no ImmDt), field 'imm'");
  EXPECT_EQ(text_error("op=SEND_ONLY qp=1 psn=1\n"),
            f + ":1: a line starts with its time in ns or '-', got 'op=SEND_ONLY', field 'time'");
  EXPECT_EQ(text_error("1.2.3 op=SEND_ONLY qp=1 psn=1\n"),
            f + ":1: bad time '1.2.3' (ns, e.g. 12.5, or '-'), field 'time'");
  EXPECT_EQ(text_error("1.0001 op=SEND_ONLY qp=1 psn=1\n"),
            f + ":1: time '1.0001' finer than 1 ps, field 'time'");
  EXPECT_EQ(text_error("5 op=SEND_ONLY qp=1 psn=1\n- op=SEND_ONLY qp=1 psn=2\n"
                       "4 op=SEND_ONLY qp=1 psn=3\n"),
            f + ":3: time 4 ns is earlier than the previous timed line, field 'time'");
  EXPECT_EQ(text_error("- raw=00112233 psn=4\n"), f + ":1: raw= takes no other field, field 'psn'");
  EXPECT_EQ(text_error("- raw=0011223\n"), f + ":1: odd number of hex digits, field 'raw'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 psn=2\n"),
            f + ":1: field given twice, field 'psn'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 len=3 payload=hex:0011\n"),
            f + ":1: len=3 but the hex payload has 2 bytes, field 'len'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 payload=pat:0x100\n"),
            f + ":1: missing (payload=pat needs len=), field 'len'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 payload=junk\n"),
            f + ":1: bad payload 'junk' (zero, hex:<bytes> or pat:<addr>), field 'payload'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 src=10.0.0.300\n"),
            f + ":1: bad IP address '10.0.0.300', field 'src'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 src=fd00::1\n"),
            f + ":1: src and dst must both be IPv4 or both IPv6, field 'src'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 dmac=02:00:00:00:00\n"),
            f + ":1: bad MAC address '02:00:00:00:00' (expected xx:xx:xx:xx:xx:xx), field 'dmac'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 ackreq=2\n"),
            f + ":1: expected 0 or 1, got '2', field 'ackreq'");
  EXPECT_EQ(text_error("- op=OOO_NAK qp=1 psn=1 bitmap=0:8:1ff\n"),
            f + ":1: bits set beyond nbits=8, field 'bitmap'");
  EXPECT_EQ(text_error("- op=OOO_NAK qp=1 psn=1 bitmap=0:513\n"),
            f + ":1: value 513 out of range (max 0x200), field 'bitmap'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 len=65001\n"),
            f + ":1: value 65001 out of range (max 0xfde8), field 'len'");
  EXPECT_EQ(text_error("@endpoints peer=1.2.3.4 bogus=1\n"),
            f + ":1: unknown @endpoints field (known: peer, dut), field 'bogus'");
  EXPECT_EQ(text_error("@route x=1\n"),
            f + ":1: unknown directive (known: @endpoints peer=IP[,MAC] dut=IP[,MAC]), field "
                "'@route'");
  EXPECT_EQ(text_error("# oonic-trace v2\n"),
            f + ":1: unsupported trace version 'v2', field 'header'");
  EXPECT_EQ(text_error("- op=SEND_ONLY qp=1 psn=1 junk\n"),
            f + ":1: expected key=value, field 'junk'");
}

// Eunomia's metadata extension: eunomia_head= / eunomia_last= on data packets.
TEST_F(TraceText, EunomiaMetadataKeys) {
  Trace t =
      Trace::load(write("eu.txt",
                        "0 op=OOO_WRITE_FSPOT qp=0x11 psn=7 eunomia_head=5 va=0x20000 "
                        "rkey=0x99 dmalen=4096 len=64 payload=pat:0x20000\n"
                        "1 op=OOO_WRITE_LAST qp=0x11 psn=9 eunomia_head=5 eunomia_last=1 "
                        "len=8\n"
                        "2 op=WRITE_ONLY qp=0x11 psn=3 eunomia_last=0 eunomia_head=0xffffffff "
                        "va=0x30000 rkey=0x99 len=16 payload=pat:0x30000\n"
                        "3 op=SEND_MIDDLE qp=0x11 psn=4 eunomia_head=4294967295 len=4\n"
                        "4 op=OOO_WRITE_FSPOT qp=0x11 psn=7 va=0x20000 rkey=0x99 "
                        "dmalen=4096 len=64 payload=pat:0x20000\n"
                        "5 op=ACK qp=0x11 psn=9 cached=1\n"));
  ASSERT_EQ(t.records.size(), 6u);

  wire::PacketView v = parse_ok(t, 0);  // OOO FSpot: metadata, then the OOO address header
  EXPECT_EQ(v.bth.opcode, wire::kOooWriteFSpot);
  ASSERT_TRUE(v.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(v.bth.resv7 & wire::kBthEunomiaMetaBit, wire::kBthEunomiaMetaBit);
  EXPECT_EQ(v.eunomia.head, 5u);
  EXPECT_FALSE(v.eunomia.last);  // eunomia_last defaults to 0
  EXPECT_EQ(v.reth.va, 0x20000u);
  EXPECT_EQ(v.reth.rkey, 0x99u);
  EXPECT_EQ(v.reth.dma_len, 4096u);
  ASSERT_EQ(v.payload_len, 64u);
  EXPECT_EQ(check_pattern(0x20000, v.payload, 64), 64u);
  // The same line without the keys: 8 bytes shorter, no BTH bit.
  wire::PacketView plain = parse_ok(t, 4);
  EXPECT_FALSE(plain.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(plain.bth.resv7, 0);
  EXPECT_EQ(t.records[0].len, t.records[4].len + wire::kEunomiaMetaBytes);
  EXPECT_EQ(v.header_len, plain.header_len + wire::kEunomiaMetaBytes);

  v = parse_ok(t, 1);
  EXPECT_EQ(v.bth.opcode, wire::kOooWriteLast);
  ASSERT_TRUE(v.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(v.eunomia.head, 5u);
  EXPECT_TRUE(v.eunomia.last);

  v = parse_ok(t, 2);  // WRITE_ONLY: keys in any order, Head 32 bits, RETH after the metadata
  EXPECT_EQ(v.bth.opcode, wire::kWriteOnly);
  ASSERT_TRUE(v.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(v.eunomia.head, 0xffffffffu);
  EXPECT_FALSE(v.eunomia.last);
  EXPECT_EQ(v.reth.va, 0x30000u);
  EXPECT_EQ(v.reth.dma_len, 16u);  // dmalen still defaults to the payload length
  EXPECT_EQ(check_pattern(0x30000, v.payload, v.payload_len), 16u);

  v = parse_ok(t, 3);  // SEND data packets may carry it too
  EXPECT_EQ(v.bth.opcode, wire::kSendMiddle);
  ASSERT_TRUE(v.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(v.eunomia.head, 0xffffffffu);
  EXPECT_EQ(v.payload_len, 4u);

  v = parse_ok(t, 5);  // cached= is a different Resv7 bit
  EXPECT_FALSE(v.flags & wire::kHasEunomiaMeta);
  EXPECT_EQ(v.bth.resv7, wire::kBthStartAddrCachedBit);
}

TEST_F(TraceText, EunomiaMetadataErrorsNameLineAndKey) {
  const std::string f = dir_ + "/bad.txt";
  const std::string data_only =
      "(no Eunomia metadata: WRITE, SEND and OOO WRITE data packets only)";
  EXPECT_EQ(text_error("# c\n- op=ACK qp=1 psn=1 eunomia_head=0\n"),
            f + ":2: not carried by ACK " + data_only + ", field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=READ_REQUEST qp=1 psn=1 va=0 rkey=1 dmalen=4 eunomia_last=1\n"),
            f + ":1: not carried by READ_REQUEST " + data_only + ", field 'eunomia_last'");
  EXPECT_EQ(text_error("- op=READ_RESPONSE_ONLY qp=1 psn=1 len=4 eunomia_head=3\n"),
            f + ":1: not carried by READ_RESPONSE_ONLY " + data_only + ", field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=OOO_NAK qp=1 psn=1 bitmap=0:8 eunomia_head=3\n"),
            f + ":1: not carried by OOO_NAK " + data_only + ", field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=CNP qp=1 eunomia_head=3\n"),
            f + ":1: not carried by CNP " + data_only + ", field 'eunomia_head'");
  EXPECT_EQ(text_error("\n- op=OOO_WRITE_SPOT qp=1 psn=1 len=4 eunomia_last=1\n"),
            f + ":2: missing (eunomia_last needs the message's Head), field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_SPOT qp=1 psn=1 eunomia_head=0x100000000\n"),
            f + ":1: value 0x100000000 out of range (max 0xffffffff), field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_SPOT qp=1 psn=1 eunomia_head=-1\n"),
            f + ":1: bad number '-1', field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_SPOT qp=1 psn=1 eunomia_head=\n"),
            f + ":1: bad number '', field 'eunomia_head'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_SPOT qp=1 psn=1 eunomia_head=0 eunomia_last=2\n"),
            f + ":1: expected 0 or 1, got '2', field 'eunomia_last'");
  EXPECT_EQ(text_error("- op=OOO_WRITE_SPOT qp=1 psn=1 eunomia_head=0 eunomia_head=1\n"),
            f + ":1: field given twice, field 'eunomia_head'");
  EXPECT_EQ(text_error("- raw=00112233 eunomia_head=1\n"),
            f + ":1: raw= takes no other field, field 'eunomia_head'");
}

// --------------------------------------------------------------- pcap ---

std::vector<uint8_t> frame(uint32_t psn, uint32_t len) {
  wire::FrameSpec s;
  s.bth.opcode = wire::kSendOnly;
  s.bth.dest_qp = 0x11;
  s.bth.psn = psn;
  std::vector<uint8_t> pay(len);
  fill_pattern(psn * 1000, pay.data(), len);
  s.payload = pay.data();
  s.payload_len = len;
  return wire::build(s);
}

std::vector<uint8_t> read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
void write_bytes(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
}

TEST_F(TracePcap, WriteThenReadRoundTrip) {
  const std::string p = dir_ + "/rt.pcap";
  std::vector<std::vector<uint8_t>> frames = {frame(1, 100), frame(2, 4096), frame(3, 0)};
  const uint64_t times[] = {5'000'000'000'123'000ull, 5'000'000'001'623'000ull,
                            5'002'000'000'130'000ull};
  {
    PcapWriter w(p);
    for (size_t i = 0; i < frames.size(); ++i)
      w.write(times[i], frames[i].data(), frames[i].size());
    EXPECT_EQ(w.frames(), 3u);
    w.close();
  }
  auto bytes = read_bytes(p);
  ASSERT_GE(bytes.size(), 24u);
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), 4);
  EXPECT_EQ(magic, 0xa1b23c4du);

  Trace t = Trace::load(p);
  EXPECT_EQ(t.format, Format::kPcap);
  ASSERT_EQ(t.records.size(), 3u);
  EXPECT_TRUE(t.issues.empty());
  const uint64_t rel[] = {0, 1'500'000ull, 2'000'000'007'000ull};  // ps, ns precision kept
  for (size_t i = 0; i < 3; ++i) {
    const Record& r = t.records[i];
    EXPECT_EQ(r.index, i + 1);
    EXPECT_EQ(r.line, 0u);
    EXPECT_TRUE(r.has_time);
    EXPECT_EQ(r.time_ps, rel[i]);
    ASSERT_EQ(r.len, frames[i].size());
    EXPECT_EQ(r.orig_len, r.len);
    std::vector<uint8_t> buf;
    EXPECT_EQ(std::memcmp(t.frame(r, buf), frames[i].data(), r.len), 0);
    parse_ok(t, i);
  }
  // The capture's frames stay in the file: nothing is held in memory.
  EXPECT_TRUE(t.in_file());
  EXPECT_EQ(t.bytes(), 0u);
}

// A classic capture is mapped: every pass (the Cursor, frame()) reads the file's
// own bytes without a copy, and a cursor that let the pages behind it go still
// reads the same bytes, as does a second cursor after it.
TEST_F(TracePcap, MappedCursorsReadTheCapturesBytes) {
  const std::string p = dir_ + "/big.pcap";
  std::vector<std::vector<uint8_t>> frames;
  {
    PcapWriter w(p);
    for (uint32_t i = 0; i < 3000; ++i) {  // ~12 MB: past the cursor's drop window
      frames.push_back(frame(i, 4000));
      w.write(uint64_t{i} * 1000, frames.back().data(), frames.back().size());
    }
    w.close();
  }
  Trace t = Trace::load(p);
  ASSERT_EQ(t.records.size(), frames.size());
  EXPECT_TRUE(t.mapped());
  for (int pass = 0; pass < 2; ++pass) {
    Trace::Cursor cur(t);
    for (size_t i = 0; i < frames.size(); i += pass ? 7 : 1) {
      const uint8_t* f = cur.frame(t.records[i]);
      ASSERT_EQ(std::memcmp(f, frames[i].data(), frames[i].size()), 0) << "record " << i;
    }
  }
  std::vector<uint8_t> buf;
  EXPECT_EQ(std::memcmp(t.frame(t.records[5], buf), frames[5].data(), frames[5].size()), 0);
  EXPECT_TRUE(buf.empty());  // read in place, not copied
}

// A mapped capture cut short after it loaded: reading a frame past the new end is
// an error naming the file (exit status 2), not a crash.
TEST_F(TracePcap, MappedCaptureCutShortIsAnErrorNamingIt) {
  const std::string p = dir_ + "/cut.pcap";
  {
    PcapWriter w(p);
    for (uint32_t i = 0; i < 64; ++i) {
      const auto f = frame(i, 4000);
      w.write(uint64_t{i} * 1000, f.data(), f.size());
    }
    w.close();
  }
  Trace t = Trace::load(p);
  ASSERT_TRUE(t.mapped());
  EXPECT_EXIT(
      {
        ASSERT_EQ(::truncate(p.c_str(), 4096), 0);
        Trace::Cursor cur(t);
        volatile uint8_t b = cur.frame(t.records.back())[0];
        (void)b;
        std::exit(0);
      },
      ::testing::ExitedWithCode(2), "cut.pcap: the capture became shorter during the replay");
}

TEST_F(TracePcap, WriterCannotOpenNamesPath) {
  const std::string p = dir_ + "/no/such/dir/tx.pcap";
  std::string m = error_of([&] { PcapWriter w(p); }, msg::kIo);
  EXPECT_NE(m.find(p), std::string::npos) << m;
}

TEST_F(TracePcap, TruncatedLastRecordKeepsRecords) {
  const std::string p = dir_ + "/trunc.pcap";
  {
    PcapWriter w(p);
    for (uint32_t i = 0; i < 3; ++i) {
      auto f = frame(i, 200);
      w.write(i * 1000, f.data(), f.size());
    }
  }
  auto bytes = read_bytes(p);
  // Chop into the last frame's data.
  auto cut = bytes;
  cut.resize(bytes.size() - 10);
  write_bytes(p, cut);
  Trace t = Trace::load(p);
  ASSERT_EQ(t.records.size(), 2u);
  ASSERT_EQ(t.issues.size(), 1u);
  EXPECT_EQ(t.issues[0].index, 3u);
  EXPECT_EQ(t.issues[0].line, 0u);
  EXPECT_EQ(t.issues[0].reason.rfind("truncated record: ", 0), 0u) << t.issues[0].reason;
  parse_ok(t, 1);

  // Chop inside the last record header.
  const size_t flen = frame(0, 200).size();
  cut = bytes;
  cut.resize(24 + 2 * (16 + flen) + 6);
  write_bytes(p, cut);
  t = Trace::load(p);
  EXPECT_EQ(t.records.size(), 2u);
  ASSERT_EQ(t.issues.size(), 1u);
  EXPECT_EQ(t.issues[0].reason.rfind("truncated record: ", 0), 0u) << t.issues[0].reason;
}

TEST_F(TracePcap, EmptyPcapHasNoRecords) {
  const std::string p = dir_ + "/empty.pcap";
  { PcapWriter w(p); }
  Trace t = Trace::load(p);
  EXPECT_EQ(t.format, Format::kPcap);
  EXPECT_TRUE(t.records.empty());
  EXPECT_TRUE(t.issues.empty());
  EXPECT_EQ(t.bytes(), 0u);
}

TEST_F(TracePcap, MissingFileNamesPath) {
  const std::string p = dir_ + "/nothing-here.pcap";
  std::string m = error_of([&] { Trace::load(p); }, msg::kTrace);
  EXPECT_EQ(m, p + ": cannot open trace: No such file or directory");
  m = error_of([&] { Trace::load(dir_); }, msg::kTrace);
  EXPECT_EQ(m, dir_ + ": cannot open trace: is a directory");
}

// A classic pcap header (microsecond magic, host order) with the given link type.
std::vector<uint8_t> pcap_header(uint32_t linktype, uint32_t magic = 0xa1b2c3d4) {
  std::vector<uint8_t> b(24);
  uint32_t h[6] = {magic, 2 | (4u << 16), 0, 0, 65535, linktype};
  std::memcpy(b.data(), h, 24);
  return b;
}
void append_record(std::vector<uint8_t>& b, uint32_t sec, uint32_t frac, const uint8_t* data,
                   uint32_t caplen, uint32_t len) {
  uint32_t h[4] = {sec, frac, caplen, len};
  const uint8_t* hp = reinterpret_cast<const uint8_t*>(h);
  b.insert(b.end(), hp, hp + 16);
  b.insert(b.end(), data, data + caplen);
}

TEST_F(TracePcap, OtherLinkTypeIsAnError) {
  const std::string p = dir_ + "/rawip.pcap";
  write_bytes(p, pcap_header(113));  // Linux cooked capture
  std::string m = error_of([&] { Trace::load(p); }, msg::kTrace);
  EXPECT_EQ(m, p + ": link type 113 (LINUX_SLL) not supported (only Ethernet, LINKTYPE_ETHERNET "
                   "= 1)");
}

TEST_F(TracePcap, SnaplenCutKeepsWireLength) {
  const std::string p = dir_ + "/snap.pcap";
  auto b = pcap_header(1);
  auto f = frame(9, 500);
  append_record(b, 10, 5, f.data(), 64, static_cast<uint32_t>(f.size()));  // microseconds
  append_record(b, 10, 7, f.data(), static_cast<uint32_t>(f.size()),
                static_cast<uint32_t>(f.size()));
  write_bytes(p, b);
  Trace t = Trace::load(p);
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].len, 64u);
  EXPECT_EQ(t.records[0].orig_len, f.size());
  EXPECT_EQ(t.records[1].time_ps, 2'000'000u);  // 2 us
  // Offsets are in the file: 24-byte file header, 16 + 64, 16.
  EXPECT_TRUE(t.in_file());
  EXPECT_EQ(t.records[0].offset, 40u);
  EXPECT_EQ(t.records[1].offset, 120u);
  EXPECT_EQ(std::memcmp(t.frame(t.records[1], frame_buf()), f.data(), f.size()), 0);
}

TEST_F(TracePcap, PcapNg) {
  // SHB + IDB (Ethernet, default us resolution) + 2 EPBs.
  std::vector<uint8_t> b;
  auto u32 = [&](uint32_t v) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&v);
    b.insert(b.end(), p, p + 4);
  };
  u32(0x0a0d0d0a);
  u32(28);
  u32(0x1a2b3c4d);
  u32(1);  // version 1.0
  u32(0xffffffff);
  u32(0xffffffff);  // section length: unknown
  u32(28);
  u32(1);
  u32(20);
  u32(1);  // linktype 1, reserved 0
  u32(0);  // snaplen 0 = none
  u32(20);
  std::vector<std::vector<uint8_t>> frames = {frame(1, 33), frame(2, 64)};
  uint64_t ts[] = {1'000'000, 1'000'250};  // us
  for (size_t i = 0; i < 2; ++i) {
    const auto& f = frames[i];
    uint32_t padded = (static_cast<uint32_t>(f.size()) + 3) & ~3u;
    u32(6);
    u32(32 + padded);
    u32(0);
    u32(static_cast<uint32_t>(ts[i] >> 32));
    u32(static_cast<uint32_t>(ts[i]));
    u32(static_cast<uint32_t>(f.size()));
    u32(static_cast<uint32_t>(f.size()));
    b.insert(b.end(), f.begin(), f.end());
    b.resize(b.size() + (padded - f.size()), 0);
    u32(32 + padded);
  }
  const std::string p = dir_ + "/x.pcapng";
  write_bytes(p, b);
  Trace t = Trace::load(p);
  EXPECT_EQ(t.format, Format::kPcapNg);
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[1].time_ps, 250'000'000u);
  std::vector<uint8_t> buf;
  EXPECT_TRUE(t.in_file());
  EXPECT_EQ(std::memcmp(t.frame(t.records[1], buf), frames[1].data(), frames[1].size()), 0);
  EXPECT_EQ(std::memcmp(t.frame(t.records[0], buf), frames[0].data(), frames[0].size()), 0);
  parse_ok(t, 0);
}

// A pcapng Enhanced Packet Block with options after the data, a Simple Packet
// Block, and a big-endian section: each frame read back from its offset.
TEST_F(TracePcap, PcapNgOffsetsWithOptionsSimpleBlocksAndBigEndian) {
  for (bool big : {false, true}) {
    std::vector<uint8_t> b;
    auto u32 = [&](uint32_t v) {
      for (int k = 0; k < 4; ++k)
        b.push_back(static_cast<uint8_t>(big ? v >> (24 - 8 * k) : v >> (8 * k)));
    };
    auto u16 = [&](uint16_t v) {
      for (int k = 0; k < 2; ++k)
        b.push_back(static_cast<uint8_t>(big ? v >> (8 - 8 * k) : v >> (8 * k)));
    };
    u32(0x0a0d0d0a), u32(28), u32(0x1a2b3c4d), u16(1), u16(0), u32(0xffffffff), u32(0xffffffff),
        u32(28);
    u32(1), u32(20), u16(1), u16(0), u32(0), u32(20);  // IDB: Ethernet
    std::vector<std::vector<uint8_t>> frames = {frame(1, 33), frame(2, 64), frame(3, 10)};
    // EPB with an opt_comment (code 1, 5 bytes, padded) and opt_endofopt.
    {
      const auto& f = frames[0];
      uint32_t padded = (static_cast<uint32_t>(f.size()) + 3) & ~3u;
      uint32_t len = 32 + padded + 12 + 4;
      u32(6), u32(len), u32(0), u32(0), u32(1000), u32(static_cast<uint32_t>(f.size())),
          u32(static_cast<uint32_t>(f.size()));
      b.insert(b.end(), f.begin(), f.end());
      b.resize(b.size() + (padded - f.size()), 0);
      u16(1), u16(5);
      for (char c : std::string("hello")) b.push_back(static_cast<uint8_t>(c));
      b.resize(b.size() + 3, 0);
      u16(0), u16(0);
      u32(len);
    }
    // SPB: original length, then the data (snaplen 0: all of it).
    {
      const auto& f = frames[1];
      uint32_t padded = (static_cast<uint32_t>(f.size()) + 3) & ~3u;
      u32(3), u32(16 + padded), u32(static_cast<uint32_t>(f.size()));
      b.insert(b.end(), f.begin(), f.end());
      b.resize(b.size() + (padded - f.size()), 0);
      u32(16 + padded);
    }
    // A plain EPB again.
    {
      const auto& f = frames[2];
      uint32_t padded = (static_cast<uint32_t>(f.size()) + 3) & ~3u;
      u32(6), u32(32 + padded), u32(0), u32(0), u32(2000), u32(static_cast<uint32_t>(f.size())),
          u32(static_cast<uint32_t>(f.size()));
      b.insert(b.end(), f.begin(), f.end());
      b.resize(b.size() + (padded - f.size()), 0);
      u32(32 + padded);
    }
    const std::string p = dir_ + (big ? "/be.pcapng" : "/le.pcapng");
    write_bytes(p, b);
    Trace t = Trace::load(p);
    ASSERT_EQ(t.records.size(), 3u) << big;
    EXPECT_TRUE(t.issues.empty()) << big;
    EXPECT_TRUE(t.in_file()) << big;
    std::vector<uint8_t> buf;
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(t.records[i].len, frames[i].size()) << big << " #" << i;
      EXPECT_EQ(std::memcmp(t.frame(t.records[i], buf), frames[i].data(), frames[i].size()), 0)
          << big << " #" << i;
    }
  }
}

TEST(TraceCaptures, RealCapturesLoad) {
  const std::string dir = OONIC_SOURCE_DIR "/traces/captures/";
  struct {
    const char* name;
    size_t frames;
    Format format;  // two of the ".pcap" files are pcapng inside
  } files[] = {{"huawei-rc-send-1k.pcap", 123, Format::kPcap},
               {"softroce-write-read-cm.pcap", 16, Format::kPcap},
               {"softroce-write-read.pcap", 12, Format::kPcap},
               {"connectx4lx-cnp.pcap", 1, Format::kPcapNg},
               {"softroce-read-request.pcap", 1, Format::kPcapNg}};
  for (const auto& [name, count, format] : files) {
    Trace t = Trace::load(dir + name);
    EXPECT_EQ(t.format, format) << name;
    EXPECT_EQ(t.records.size(), count) << name;
    EXPECT_TRUE(t.issues.empty()) << name;
    EXPECT_EQ(t.records.empty() ? 1u : t.records[0].time_ps, 0u) << name;
    for (const auto& r : t.records) {
      EXPECT_EQ(r.len, r.orig_len) << name << " #" << r.index;  // no snaplen cut
      EXPECT_TRUE(r.has_time);
    }
  }
  // Every frame read back from the file equals what libpcap returned in order.
  for (const auto& f : files) {
    Trace t = Trace::load(dir + f.name);
    EXPECT_TRUE(t.in_file()) << f.name;
    PcapReader in(dir + f.name);
    PcapReader::Record h;
    std::vector<uint8_t> buf;
    for (const Record& r : t.records) {
      ASSERT_TRUE(in.next(h)) << f.name;
      ASSERT_EQ(r.len, h.caplen) << f.name << " #" << r.index;
      EXPECT_EQ(std::memcmp(t.frame(r, buf), h.data, h.caplen), 0) << f.name << " #" << r.index;
    }
  }
  Trace rr = Trace::load(dir + "softroce-read-request.pcap");
  wire::PacketView v;
  std::vector<uint8_t> buf;
  ASSERT_EQ(wire::parse(rr.frame(rr.records[0], buf), rr.records[0].len, v),
            wire::ParseStatus::kOk);
  EXPECT_EQ(v.bth.psn, 5557091u);
}

// ------------------------------------------------------------ sidecar ---

TEST_F(TraceSidecar, LoadsEveryKey) {
  std::string p = write("s.qps.yaml",
                        "dut: {ip: 10.0.0.2, mac: 02:00:00:00:00:02}\n"
                        "qps:\n"
                        "  - qpn: 0x11\n"
                        "    peer_qpn: 0x17\n"
                        "    start_psn: 100\n"
                        "    pmtu: 1024\n"
                        "    otd: 32\n"
                        "    regions: [{base: 0x10000, length: 64K, rkey: 0x1234},\n"
                        "              {base: 0x900000, length: 4096, rkey: 7}]\n"
                        "    recv_buffers: {count: 16, bytes: 4K, base: 0x800000}\n"
                        "  - qpn: 18\n"
                        "    start_psn: 0xffffff\n");
  Sidecar s = load_sidecar(p);
  EXPECT_EQ(s.dut_ip, "10.0.0.2");
  EXPECT_EQ(s.dut_mac, "02:00:00:00:00:02");
  ASSERT_EQ(s.qps.size(), 2u);
  const QpSetup& a = s.qps[0];
  EXPECT_EQ(a.qpn, 0x11u);
  EXPECT_EQ(a.peer_qpn, 0x17u);
  EXPECT_EQ(a.start_psn, 100u);
  EXPECT_EQ(a.pmtu, 1024u);
  EXPECT_EQ(a.otd, 32u);
  EXPECT_EQ(a.line, 3u);
  ASSERT_EQ(a.regions.size(), 2u);
  EXPECT_EQ(a.regions[0].base, 0x10000u);
  EXPECT_EQ(a.regions[0].length, 65536u);
  EXPECT_EQ(a.regions[0].rkey, 0x1234u);
  EXPECT_EQ(a.regions[1].rkey, 7u);
  ASSERT_TRUE(a.recv.has_value());
  EXPECT_EQ(a.recv->count, 16u);
  EXPECT_EQ(a.recv->bytes, 4096u);
  EXPECT_EQ(a.recv->base, 0x800000u);
  const QpSetup& b = s.qps[1];
  EXPECT_EQ(b.qpn, 18u);
  EXPECT_FALSE(b.peer_qpn.has_value());
  EXPECT_EQ(b.start_psn, 0xffffffu);
  EXPECT_FALSE(b.pmtu.has_value());
  EXPECT_FALSE(b.otd.has_value());
  EXPECT_TRUE(b.regions.empty());
  EXPECT_FALSE(b.recv.has_value());
}

TEST_F(TraceSidecar, ErrorsNameFileLineAndKey) {
  auto err = [&](const std::string& body) {
    std::string p = write("bad.qps.yaml", body);
    return error_of([&] { load_sidecar(p); }, msg::kSidecar);
  };
  const std::string f = dir_ + "/bad.qps.yaml";
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: 1\n    colour: red\n"),
            f + ":4: key 'qps[0].colour': unknown key (known: qpn, peer_qpn, start_psn, pmtu, otd, "
                "regions, recv_buffers)");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: [1, 2]\n"),
            f + ":3: key 'qps[0].start_psn': expected a number, got a list");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: abc\n"),
            f + ":3: key 'qps[0].start_psn': expected a number, got 'abc'");
  EXPECT_EQ(err("qps:\n  - qpn: 0x1000000\n    start_psn: 1\n"),
            f + ":2: key 'qps[0].qpn': value 0x1000000 out of range (max 0xffffff)");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: 16777216\n"),
            f + ":3: key 'qps[0].start_psn': value 16777216 out of range (max 0xffffff)");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n"), f + ":2: key 'qps[0].start_psn': missing");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: 0\n  - qpn: 2\n    start_psn: 0\n"
                "    regions: [{base: 0, length: 10, rkey: 1, flags: 3}]\n"),
            f + ":6: key 'qps[1].regions[0].flags': unknown key (known: base, length, rkey)");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: 0\n    pmtu: 1500\n"),
            f + ":4: key 'qps[0].pmtu': must be 256, 512, 1024, 2048 or 4096");
  EXPECT_EQ(err("qps:\n  - qpn: 1\n    start_psn: 0\n  - qpn: 1\n    start_psn: 5\n"),
            f + ":4: key 'qps[1].qpn': QPN 1 already set up by qps[0]");
  EXPECT_EQ(err("dut: {ip: 10.0.0.999}\nqps: []\n"),
            f + ":1: key 'dut.ip': bad IP address '10.0.0.999'");
  EXPECT_EQ(err("qpz: []\n"), f + ":1: key 'qpz': unknown key (known: dut, qps)");
  EXPECT_EQ(err("dut: {}\n"), f + ":1: key 'qps': missing");
  EXPECT_EQ(err("qps: 5\n"), f + ":1: key 'qps': expected a list, got a scalar");
  // yaml-cpp's own wording follows the prefix.
  EXPECT_EQ(err("qps: [\n").rfind(f + ":2: YAML syntax error: ", 0), 0u);
  std::string m = error_of([&] { load_sidecar(dir_ + "/none.yaml"); }, msg::kSidecar);
  EXPECT_EQ(m, dir_ + "/none.yaml: cannot open sidecar: No such file or directory");
}

TEST(TraceSidecarPath, ReplacesExtension) {
  EXPECT_EQ(default_sidecar_path("traces/default.txt"), "traces/default.qps.yaml");
  EXPECT_EQ(default_sidecar_path("/a.b/cap.pcap"), "/a.b/cap.qps.yaml");
  EXPECT_EQ(default_sidecar_path("/a.b/trace"), "/a.b/trace.qps.yaml");
}

// --------------------------------------------------------- gen-trace ----

int run_gen(const std::string& args) {
  std::string cmd =
      "/usr/bin/python3 " OONIC_SOURCE_DIR "/scripts/gen-trace " + args + " 2>/dev/null";
  return std::system(cmd.c_str());
}

// Checks every data payload against the pattern (address from PSN for a
// single-WQE QP) and returns the PSNs in arrival order.
std::vector<uint32_t> check_payloads(const Trace& t, uint64_t base, uint32_t start_psn,
                                     uint32_t pmtu) {
  std::vector<uint32_t> psns;
  for (size_t i = 0; i < t.records.size(); ++i) {
    wire::PacketView v = parse_ok(t, i);
    uint64_t addr = base + uint64_t(wire::psn_diff(v.bth.psn, start_psn)) * pmtu;
    EXPECT_EQ(check_pattern(addr, v.payload, v.payload_len), v.payload_len) << "psn " << v.bth.psn;
    if (v.flags & wire::kHasOooAddr) {
      EXPECT_EQ(v.reth.va, addr);
    }
    psns.push_back(v.bth.psn);
  }
  return psns;
}

TEST_F(TraceGen, OooWithShuffleLoadsAndIsBounded) {
  const std::string out = dir_ + "/g.txt";
  ASSERT_EQ(run_gen("--out " + out +
                    " --wqe-bytes 1M --pmtu 4096 --ooo-distance 8 --start-psn 0xfffff0 "
                    "--va-base 0x100000 --fspot-count 4 --seed 7"),
            0);
  Trace t = Trace::load(out);
  ASSERT_EQ(t.records.size(), 256u);
  EXPECT_TRUE(t.records[0].has_time);
  for (size_t i = 1; i < t.records.size(); ++i) {
    EXPECT_GT(t.records[i].time_ps, t.records[i - 1].time_ps);
  }
  auto psns = check_payloads(t, 0x100000, 0xfffff0, 4096);
  // Windowed shuffle: never more than D beyond the first missing PSN.
  std::set<int32_t> got;
  int32_t low = 0;
  bool reordered = false;
  for (size_t i = 0; i < psns.size(); ++i) {
    int32_t k = wire::psn_diff(psns[i], 0xfffff0);
    EXPECT_LE(k - low, 8) << "arrival " << i;
    EXPECT_LE(std::abs(k - static_cast<int32_t>(i)), 8);
    reordered = reordered || k != static_cast<int32_t>(i);
    got.insert(k);
    while (got.count(low)) ++low;
  }
  EXPECT_TRUE(reordered);
  EXPECT_EQ(low, 256);
  // FSpot for the first 4 PSNs, Last at the end.
  for (size_t i = 0; i < t.records.size(); ++i) {
    wire::PacketView v = parse_ok(t, i);
    int32_t k = wire::psn_diff(v.bth.psn, 0xfffff0);
    uint8_t want =
        k == 255 ? wire::kOooWriteLast : (k < 4 ? wire::kOooWriteFSpot : wire::kOooWriteSpot);
    EXPECT_EQ(v.bth.opcode, want) << k;
    EXPECT_EQ(v.bth.ack_req, k == 255);
  }
  Sidecar s = load_sidecar(default_sidecar_path(out));
  ASSERT_EQ(s.qps.size(), 1u);
  EXPECT_EQ(s.qps[0].qpn, 0x11u);
  EXPECT_EQ(s.qps[0].start_psn, 0xfffff0u);
  ASSERT_EQ(s.qps[0].regions.size(), 1u);
  EXPECT_EQ(s.qps[0].regions[0].base, 0x100000u);
  EXPECT_EQ(s.qps[0].regions[0].length, 1u << 20);
}

TEST_F(TraceGen, StandardMultiQpWithLoss) {
  const std::string out = dir_ + "/std.txt";
  ASSERT_EQ(run_gen("--out " + out +
                    " --mode standard --qps 3 --wqes 4 --wqe-bytes 10000 --pmtu 1024 "
                    "--lose-psn 5,17 --retx-after 3 --timing gap"),
            0);
  Trace t = Trace::load(out);
  // 3 QPs x 4 WQEs x 10 packets; losses are retransmitted (same count).
  ASSERT_EQ(t.records.size(), 120u);
  EXPECT_FALSE(t.records[0].has_time);
  std::vector<std::vector<uint32_t>> per_qp(3);
  for (size_t i = 0; i < t.records.size(); ++i) {
    wire::PacketView v = parse_ok(t, i);
    ASSERT_GE(v.bth.dest_qp, 0x11u);
    ASSERT_LT(v.bth.dest_qp, 0x14u);
    per_qp[v.bth.dest_qp - 0x11].push_back(v.bth.psn);
    uint32_t k = v.bth.psn % 10;
    uint8_t want = k == 0 ? wire::kWriteFirst : k == 9 ? wire::kWriteLast : wire::kWriteMiddle;
    EXPECT_EQ(v.bth.opcode, want);
    EXPECT_EQ(v.payload_len, k == 9 ? 10000u - 9 * 1024 : 1024u);
  }
  for (const auto& q : per_qp) {
    ASSERT_EQ(q.size(), 40u);
    // PSN 5 arrives after PSNs 6, 7, 8 (3 positions later).
    std::vector<uint32_t> want_head = {0, 1, 2, 3, 4, 6, 7, 8, 5, 9};
    EXPECT_EQ(std::vector<uint32_t>(q.begin(), q.begin() + 10), want_head);
  }
  Sidecar s = load_sidecar(default_sidecar_path(out));
  ASSERT_EQ(s.qps.size(), 3u);
  EXPECT_EQ(s.qps[2].qpn, 0x13u);
  EXPECT_EQ(s.qps[2].regions[0].rkey, 0x1234u + 2);
  EXPECT_EQ(s.qps[1].regions[0].base, 0x10000u + 40960u);  // 40000 B rounded up to 4 KB
}

TEST_F(TraceGen, SameSeedSameBytes) {
  const std::string a = dir_ + "/a.txt";
  const std::string b = dir_ + "/b.txt";
  ASSERT_EQ(run_gen("--out " + a + " --wqe-bytes 256K --ooo-distance 16 --loss-rate 0.05"), 0);
  ASSERT_EQ(run_gen("--out " + b + " --wqe-bytes 256K --ooo-distance 16 --loss-rate 0.05"), 0);
  auto ba = read_bytes(a);
  auto bb = read_bytes(b);
  // Only the command line in the header comment differs.
  std::string sa(ba.begin(), ba.end());
  std::string sb(bb.begin(), bb.end());
  EXPECT_EQ(sa.substr(sa.find('\n', sa.find("generated by"))),
            sb.substr(sb.find('\n', sb.find("generated by"))));
  EXPECT_EQ(Trace::load(a).records.size(), 64u);
}

TEST_F(TraceGen, EunomiaMetadataOnEveryOooWritePacket) {
  // 2 QPs x 3 WQEs x 5 packets, shuffled within each WQE, PSN 2 lost and
  // retransmitted: Head = the WQE's first PSN, last only on the WQE's last packet.
  const std::string out = dir_ + "/eu.txt";
  ASSERT_EQ(run_gen("--out " + out +
                    " --qps 2 --wqes 3 --wqe-bytes 20K --pmtu 4096 --ooo-distance 3 "
                    "--start-psn 0xfffffa --lose-psn 0xfffffc --eunomia-metadata"),
            0);
  Trace t = Trace::load(out);
  ASSERT_EQ(t.records.size(), 30u);
  size_t lasts = 0;
  for (size_t i = 0; i < t.records.size(); ++i) {
    wire::PacketView v = parse_ok(t, i);
    const int32_t k = wire::psn_diff(v.bth.psn, 0xfffffa);
    ASSERT_TRUE(v.flags & wire::kHasEunomiaMeta) << "line " << t.records[i].line;
    EXPECT_EQ(v.eunomia.head, wire::psn_add(0xfffffa, k / 5 * 5)) << "line " << t.records[i].line;
    EXPECT_EQ(v.eunomia.last, k % 5 == 4) << "line " << t.records[i].line;
    EXPECT_EQ(v.eunomia.last, (v.info->flags & wire::kIsLast) != 0);
    lasts += v.eunomia.last;
  }
  EXPECT_EQ(lasts, 6u);
  // The line-rate times count the 8 bytes of the extension: 20 KB in 5 frames of
  // 4096 + 58 B headers + 8 B metadata (+ 16 B address header on FSpot, all 5 here).
  EXPECT_EQ(t.records[1].time_ps - t.records[0].time_ps,
            static_cast<uint64_t>((4096 + 58 + 8 + 16 + 24) * 8000 / 100));
  // Standard WRITEs never carry it: refused.
  EXPECT_NE(run_gen("--out " + dir_ + "/std.txt --mode standard --eunomia-metadata"), 0);
}

TEST(TraceBundled, BundledTracesLoadWithSidecars) {
  const std::string dir = OONIC_SOURCE_DIR "/traces/";
  const std::pair<const char*, size_t> files[] = {
      {"default.txt", 160}, {"inorder-write.txt", 12}, {"psn-gap.txt", 8}, {"ooo-small.txt", 8}};
  for (const auto& [name, count] : files) {
    Trace t = Trace::load(dir + name);
    EXPECT_EQ(t.records.size(), count) << name;
    EXPECT_TRUE(t.issues.empty()) << name;
    Sidecar s = load_sidecar(default_sidecar_path(dir + name));
    ASSERT_EQ(s.qps.size(), 1u) << name;
    ASSERT_EQ(s.qps[0].regions.size(), 1u) << name;
    auto psns = check_payloads(t, s.qps[0].regions[0].base, s.qps[0].start_psn,
                               s.qps[0].pmtu.value_or(4096));
    std::set<uint32_t> distinct(psns.begin(), psns.end());
    EXPECT_EQ(distinct.size(), count) << name;  // every PSN once (a loss is retransmitted)
  }
}

}  // namespace
}  // namespace oonic::trace
