#!/usr/bin/python3
"""Every bundled trace replays with the outcome its description promises
(traces/README.md): the OOO and in-order traces place every byte; psn-gap shows
the in-order NIC's go-back-N behaviour: PSN-sequence NAKs, and the bytes after the
gap missing from host memory because the trace never resends them."""
import csv
import json
import os
import subprocess
import tempfile
import unittest

SRC = os.environ.get("OONIC_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.environ.get("OONIC_BIN", os.path.join(SRC, "build", "oonic"))


def replay(name):
    d = tempfile.mkdtemp()
    r = subprocess.run([BIN, "replay", os.path.join(SRC, "traces", name), "--out", d], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    st = json.load(open(os.path.join(d, "stats.json")))
    tx = list(csv.DictReader(open(os.path.join(d, "tx.csv"))))
    return st, tx, r.stdout


def counter(st, name):
    return st["stats"][name]["value"]


class Bundled(unittest.TestCase):
    def test_inorder_write(self):
        st, tx, _ = replay("inorder-write.txt")
        self.assertTrue(st["integrity"]["ok"])
        self.assertEqual(st["integrity"]["bytes"], 3 * 16384)
        self.assertEqual(counter(st, "nic0.rx.req_processor.messages"), 3)
        self.assertEqual(counter(st, "nic0.rx.drops.total"), 0)
        self.assertEqual(tx[-1]["psn"], "11")  # 12 packets, PSN 0..11
        self.assertEqual(tx[-1]["msn"], "3")

    def test_ooo_small(self):
        st, tx, _ = replay("ooo-small.txt")
        self.assertTrue(st["integrity"]["ok"])
        self.assertEqual(st["integrity"]["bytes"], 8 * 4096)
        self.assertEqual(counter(st, "nic0.tx.hdr_generator.bitmap_naks"), 0)
        self.assertGreater(counter(st, "nic0.rx.req_processor.ooo_accepted"), 0)

    def test_psn_gap_is_go_back_n(self):
        st, tx, out = replay("psn-gap.txt")
        naks = [r for r in tx if r["syndrome"] == "0x60"]
        # PSN 2 is missing when 3 arrives (NAK ePSN 2); after 2 is resent, 6 arrives while
        # ePSN is 3 (NAK ePSN 3). 3, 4, 5 (before the resend) and 6, 7 are dropped.
        self.assertEqual([r["psn"] for r in naks], ["2", "3"])
        self.assertEqual(counter(st, "nic0.rx.drops.psn_sequence_error"), 5)
        self.assertFalse(st["integrity"]["ok"])
        self.assertIn("MISMATCH at host address 0x13000", st["integrity"]["text"])
        self.assertIn("integrity   MISMATCH", out)


if __name__ == "__main__":
    unittest.main()
