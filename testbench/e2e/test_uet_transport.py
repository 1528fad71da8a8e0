#!/usr/bin/python3
"""UET's transport in the NIC (issue 31; docs/experiments/uet.md): nic.ordering uet-rud
and uet-rod (UET's ACKs), tx.recovery uet (their pairing) and tx.rate nscc with spraying.

* Every fabric topology (kpaths, leaf-spine, fat-tree, two-dc), an incast into switches of
  100 KB: with switch.trim on, the switches trim refused data frames, the receiving NICs
  take them as trimmed (rx.drops.trimmed) and NACK them, the senders resend on the NACKs,
  and every flow completes with its bytes intact (scoreboard ok); with it off the same
  drops are recovered by SACKs and timeouts, and nothing is trimmed. NSCC's target is
  htsim's under trimming (0.75 x the network RTT) only when the switches trim.
* Two NICs (the pair topology, no switch) with wire losses and reordering: both UET
  receivers complete every WQE intact, answering with UET ACKs, and losses are resent.
"""
import os
import re
import unittest

import oonic_e2e as e2e

INCAST = ["--set", "flows.pattern=incast", "--set", "flows.arrival=once",
          "--set", "flows.bytes=256K", "--set", "nic.pmtu_bytes=1024", "--set", "tx.rate=nscc",
          "--set", "cc.nscc.spray=rr", "--set", "flows.mode=ooo",
          "--set", "switch.buffer_bytes=100K"]


class UetTransport(e2e.OonicTestCase):
    def run_fabric(self, topo, ordering, trim):
        out = os.path.join(self.mkdtemp(), "r")
        args = ["run", "-", "--out", out, "--quiet", "--set", "topology.kind=" + topo,
                "--set", "nic.ordering=" + ordering, "--set", "switch.trim=" + trim] + INCAST
        r = e2e.run_oonic(args, out=out)
        self.assertOk(r)
        self.assertTrue(r.stats_json["scoreboard"]["ok"], (topo, ordering, trim))
        fct = e2e.load_csv(r.path("fct.csv"))
        self.assertTrue(fct and all(f["completed"] == "1" for f in fct))
        return r.stats_json["stats"]

    def test_every_topology_trimming_on(self):
        for topo in ("kpaths", "leaf-spine", "fat-tree", "two-dc"):
            for ordering in ("uet-rud", "uet-rod"):
                with self.subTest(topo=topo, ordering=ordering):
                    st = self.run_fabric(topo, ordering, "true")
                    trimmed_nic = e2e.stat_sum(st, ".nic.rx.drops.trimmed")
                    self.assertGreater(trimmed_nic, 0)
                    self.assertGreaterEqual(e2e.stat_sum(st, ".trimmed") - trimmed_nic, trimmed_nic)
                    self.assertGreater(e2e.stat_sum(st, ".tx.uet_recovery.nack_resends"), 0)
                    self.assertGreater(e2e.stat_sum(st, ".tx.hdr_generator.scheme_feedback_uet_acks"), 0)
                    self.assertEqual(e2e.stat_sum(st, ".tx.hdr_generator.cnps"), 0)  # ECN rides the ACK

    def test_trimming_off_recovers_by_sacks_and_timeouts(self):
        for topo in ("kpaths", "leaf-spine"):
            with self.subTest(topo=topo):
                st = self.run_fabric(topo, "uet-rud", "false")
                self.assertEqual(e2e.stat_sum(st, ".nic.rx.drops.trimmed"), 0)
                self.assertEqual(e2e.stat_sum(st, ".tx.uet_recovery.nack_resends"), 0)
                resent = (e2e.stat_sum(st, ".tx.uet_recovery.recovery_resends") +
                          e2e.stat_sum(st, ".tx.uet_recovery.timeout_resends"))
                self.assertGreater(resent, 0)

    def test_nscc_target_follows_trimming(self):
        """cc.nscc.target_qdelay_us 0 resolves, as htsim's initNsccParams, to 0.75 x the
        network RTT when the switches trim; without trimming it stays 0 (the rate core
        takes the network RTT); a target the user sets is kept."""
        def resolved(*sets):
            out = os.path.join(self.mkdtemp(), "r")
            args = ["run", "-", "--out", out, "--quiet", "--set", "topology.kind=leaf-spine",
                    "--set", "nic.ordering=uet-rud"] + INCAST
            for x in sets:
                args += ["--set", x]
            r = e2e.run_oonic(args, out=out)
            self.assertOk(r)
            with open(r.path("config.yaml")) as f:
                text = f.read()
            get = lambda key: float(re.search(r"\n\s*%s: ([0-9.e+-]+)" % key, text).group(1))
            return get("target_qdelay_us"), get("network_rtt_us")
        target, rtt = resolved("switch.trim=true")
        self.assertGreater(rtt, 0)
        self.assertAlmostEqual(target, 0.75 * rtt, places=5)
        self.assertEqual(resolved("switch.trim=false")[0], 0)
        self.assertEqual(resolved("switch.trim=true", "cc.nscc.target_qdelay_us=3")[0], 3)

    def test_two_nics_with_loss_and_reordering(self):
        for ordering in ("uet-rud", "uet-rod"):
            with self.subTest(ordering=ordering):
                out = os.path.join(self.mkdtemp(), "r")
                r = e2e.run_oonic(["run", os.path.join(e2e.SOURCE_DIR, "examples", "b2b-loss.yaml"), "--out", out,
                                   "--quiet", "--set", "nic.ordering=" + ordering,
                                   "--set", "network.ooo_distance=16"], out=out)
                self.assertOk(r)
                self.assertTrue(r.stats_json["scoreboard"]["ok"])
                st = r.stats_json["stats"]
                self.assertGreater(st["b.nic.tx.hdr_generator.scheme_feedback_uet_acks"]["value"], 0)
                self.assertGreater(e2e.stat_sum(st, "qp_manager.retransmitted"), 0)

    def test_what_uets_wire_cannot_carry_is_refused(self):
        """nic.wire uet with a scheme whose frames have no UET form: exit 2, the key named."""
        b2b = os.path.join(e2e.SOURCE_DIR, "examples", "b2b-loss.yaml")
        for sets, needle in ((["nic.ordering=irn"], "nic.ordering"),
                             (["nic.ordering=uet-rud", "tx.rate=hpcc"], "tx.rate hpcc"),
                             (["nic.ordering=uet-rud", "tx.recovery=mprdma"], "tx.recovery mprdma"),
                             (["nic.ordering=uet-rud", "tx.qp_manager.max_inflight_psns=40000"],
                              "16-bit ACK offsets")):
            with self.subTest(sets=sets):
                args = ["run", b2b, "--out", os.path.join(self.mkdtemp(), "r"), "--set", "nic.wire=uet"]
                for x in sets:
                    args += ["--set", x]
                self.assertError(e2e.run_oonic(args), "nic.wire uet", needle)

    def test_two_nics_on_each_wire_place_the_same_bytes(self):
        """b2b-loss (WRITE, READ, SEND; losses) with uet-rud on UET's wire and on RoCEv2's:
        both scoreboards clean; only UET's wire sends UDP 4793 (its READs stay RoCEv2)."""
        ports = {}
        for wire in ("uet", "roce"):
            out = os.path.join(self.mkdtemp(), "r")
            r = e2e.run_oonic(["run", os.path.join(e2e.SOURCE_DIR, "examples", "b2b-loss.yaml"),
                               "--out", out, "--quiet", "--set", "nic.ordering=uet-rud",
                               "--set", "nic.wire=" + wire, "--set", "run.pcap=true"], out=out)
            self.assertOk(r)
            self.assertTrue(r.stats_json["scoreboard"]["ok"], wire)
            frames = e2e.read_pcap_frames(r.path("a_to_b.pcap")) + e2e.read_pcap_frames(r.path("b_to_a.pcap"))
            ports[wire] = {f[36] << 8 | f[37] for f in frames if len(f) > 38 and f[23] == 17}
        self.assertEqual(ports["uet"], {4791, 4793})
        self.assertEqual(ports["roce"], {4791})


if __name__ == "__main__":
    unittest.main()
