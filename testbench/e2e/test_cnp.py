#!/usr/bin/python3
"""CNPs reach the transmit seam's rate core: a CNP to one of the NIC's QPs is
logged `cnp` and counted by DCQCN's reaction point; one to an unknown QP is a
`ud_or_cnp` drop, as before."""

import os
import unittest

import oonic_e2e as e2e

TRACE = """# oonic-trace v1
0 op=WRITE_ONLY qp=0x11 psn=0 va=0x10000 rkey=0x1234 dmalen=64 len=64 payload=pat:0x10000
100 op=CNP qp=0x11
200 op=CNP qp=0x99
300 op=CNP qp=0x11 badicrc=1
"""

SIDECAR = """dut: {ip: 10.0.0.2, mac: "02:00:00:00:00:02"}
qps:
  - qpn: 0x11
    start_psn: 0
    regions: [{base: 0x10000, length: 0x10000, rkey: 0x1234}]
"""


class Cnp(e2e.OonicTestCase):
    def trace(self):
        d = self.mkdtemp()
        with open(os.path.join(d, "t.txt"), "w") as f:
            f.write(TRACE)
        with open(os.path.join(d, "t.qps.yaml"), "w") as f:
            f.write(SIDECAR)
        return os.path.join(d, "t.txt")

    def test_cnp_to_a_known_qp_reaches_dcqcn(self):
        r = self.replay_ok(self.trace(), "--set", "tx.rate=dcqcn")
        rows = r.packets()
        self.assertEqual([row["verdict"] for row in rows],
                         ["accepted", "cnp", "dropped", "dropped"])
        self.assertEqual(rows[1]["opcode"], "0x81")
        self.assertEqual(rows[2]["drop_reason"], "ud_or_cnp")  # QP 0x99 is not the NIC's
        self.assertEqual(rows[3]["drop_reason"], "bad_icrc")
        st = r.stats_json["stats"]
        self.assertEqual(st["nic0.tx.rate.cnps"]["value"], 1)
        self.assertEqual(st["nic0.rx.drops.ud_or_cnp"]["value"], 1)

    def test_without_a_rate_core_the_cnp_is_logged_and_ignored(self):
        r = self.replay_ok(self.trace())
        self.assertEqual(r.packets()[1]["verdict"], "cnp")
        self.assertNotIn("nic0.tx.rate.cnps", r.stats_json["stats"])
        self.assertTrue(r.stats_json["integrity"]["ok"])


if __name__ == "__main__":
    unittest.main()
