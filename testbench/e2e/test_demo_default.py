#!/usr/bin/python3
"""The demo: `oonic replay traces/default.txt` (one 640 KB OOO WRITE WQE, PSN 8 lost).

Expected values come from the trace file itself (parsed here) and from
traces/README.md, not from an earlier run of the model.
"""

import os
import unittest

import oonic_e2e as e2e
from oonic_e2e import num

TRACE = e2e.trace_path("default.txt")
OTD = 64  # `oonic params`: nic.otd default; the sidecar sets none


class DefaultTrace(e2e.OonicTestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.dir = tempfile.mkdtemp(prefix="oonic-e2e-")
        cls.res = e2e.replay(TRACE, os.path.join(cls.dir, "results"))
        cls.lines = e2e.parse_text_trace(TRACE)

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.dir, True)

    def setUp(self):
        self.assertOk(self.res)

    # ---- what the trace holds (derived from the file) ----
    def trace_bytes(self):
        return sum(int(l.get("len", "0"), 0) for l in self.lines)

    def test_trace_is_what_readme_says(self):
        # guards the derivations below: 160 x 4096 B, PSNs 0..159, one WQE
        self.assertEqual(len(self.lines), 160)
        self.assertEqual(self.trace_bytes(), 160 * 4096)
        self.assertEqual(sorted(int(l["psn"], 0) for l in self.lines), list(range(160)))

    # ---- summary and stats.json ----
    def test_summary_integrity_ok(self):
        self.assertIn("integrity   OK", self.res.stdout)

    def test_integrity_in_stats_json(self):
        integ = self.res.stats_json["integrity"]
        self.assertTrue(integ["checked"], integ)
        self.assertTrue(integ["ok"], integ)
        self.assertEqual(integ["bytes"], 160 * 4096)
        self.assertEqual(integ["bytes"], self.trace_bytes())
        self.assertEqual(integ["ranges"], len(self.lines))

    def test_run_section(self):
        run = self.res.stats_json["run"]
        self.assertEqual(run["records"], len(self.lines))
        self.assertEqual(run["input_frames"], len(self.lines))
        self.assertEqual(run["format"], "text")
        self.assertEqual(self.res.stats_json["trace_issues"], [])
        self.assertGreater(run["end_cycle"], run["first_arrival_cycle"])

    def test_every_packet_accepted_once(self):
        self.assertEqual(self.res.stat("nic0.rx.req_processor.accepted"), len(self.lines))
        self.assertEqual(self.res.stat("nic0.rx.req_processor.accepted_bytes"), self.trace_bytes())
        self.assertEqual(self.res.stat("nic0.rx.drops.total"), 0)
        self.assertEqual(self.res.stat("nic0.rx.req_processor.messages"), 1)
        self.assertEqual(self.res.stat("host0.write_bytes"), self.trace_bytes())

    # ---- packets.csv ----
    def test_packets_csv_one_row_per_record(self):
        rows = self.res.packets()
        self.assertEqual(len(rows), 160)
        self.assertEqual([int(r["record"]) for r in rows], list(range(1, 161)))
        # the row's PSN/opcode are the trace line's
        for r, l in zip(rows, self.lines):
            self.assertEqual(num(r["psn"]), int(l["psn"], 0), r)
            self.assertEqual(num(r["payload_bytes"]), int(l["len"], 0), r)
            self.assertIn(r["verdict"], ("accepted", "ooo"), r)
            self.assertEqual(r["drop_reason"], "", r)
            # pipeline order: arrival <= parsed <= processed <= DMA done
            a, p, q, d = (num(r[k]) for k in ("arrival_cycle", "parsed_cycle",
                                              "processed_cycle", "dma_done_cycle"))
            self.assertTrue(a <= p <= q <= d, r)

    # ---- tx.csv ----
    def expected_nak_psn(self):
        """First ePSN for which an arrival lies more than OTD beyond it (README: Eq. 3)."""
        got = set()
        epsn = 0
        for l in self.lines:
            psn = int(l["psn"], 0)
            if psn - epsn > OTD:
                return epsn
            got.add(psn)
            while epsn in got:
                epsn += 1
        return None

    def test_ooo_nak_sent_for_the_lost_psn(self):
        tx = self.res.tx()
        naks = [r for r in tx if num(r["opcode"]) == e2e.OOO_NAK]
        self.assertGreaterEqual(len(naks), 1, tx)
        self.assertEqual(num(naks[0]["psn"]), self.expected_nak_psn())
        self.assertEqual(num(naks[0]["psn"]), 8)  # README: PSN 8 is the lost one
        self.assertEqual(self.res.stat("nic0.tx.hdr_generator.bitmap_naks"), len(naks))

    def test_final_ack(self):
        tx = self.res.tx()
        acks = [r for r in tx if num(r["opcode"]) == e2e.ACK]
        self.assertTrue(acks)
        last = acks[-1]
        self.assertIs(last, tx[-1], "the last frame sent is the final ACK")
        self.assertEqual(num(last["psn"]), 159)
        self.assertEqual(num(last["psn"]), max(int(l["psn"], 0) for l in self.lines))
        self.assertEqual(num(last["msn"]), 1)
        self.assertEqual(num(last["dest_qp"]), 0x11)

    def test_ack_psns_never_go_back(self):
        acks = [num(r["psn"]) for r in self.res.tx() if num(r["opcode"]) == e2e.ACK]
        rel = [e2e.psn_diff(p, 0) for p in acks]  # start PSN 0 (sidecar); -1: nothing yet
        self.assertEqual(rel, sorted(rel))
        self.assertGreaterEqual(rel[0], -1)

    def test_tx_csv_matches_tx_pcap(self):
        tx = self.res.tx()
        frames = self.res.tx_frames()
        self.assertEqual(len(frames), len(tx))
        self.assertEqual(self.res.stat("nic0.mac.frames_out"), len(tx))
        clock_mhz = self.res.stats_json["run"]["clock_mhz"]
        for r, f in zip(tx, frames):
            d = e2e.decode_roce(f)
            self.assertIsNotNone(d, r)
            self.assertEqual(d["opcode"], num(r["opcode"]), r)
            self.assertEqual(d["psn"], num(r["psn"]), r)
            self.assertEqual(d["dest_qp"], num(r["dest_qp"]), r)
            self.assertEqual(len(f), num(r["bytes"]), r)
            self.assertEqual(num(r["time_ps"]), num(r["cycle"]) * round(1e6 / clock_mhz), r)


if __name__ == "__main__":
    unittest.main()
