#!/usr/bin/python3
"""Docs follow the code: docs/PARAMS.md, docs/STATS*.md and docs/REGISTERS.md equal what
the binary prints, every stat a replay
writes is documented, and every documented stat is registered (appears in a run's
stats.json). The site these pages belong to is checked by test_docs_site.py."""
import json
import os
import re
import subprocess
import tempfile
import unittest

SRC = os.environ.get("OONIC_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.environ.get("OONIC_BIN", os.path.join(SRC, "build", "oonic"))


def doc_table(path):
    text = open(path).read()
    return text[text.index("| "):]


class Docs(unittest.TestCase):
    def test_params_doc_matches_binary(self):
        out = subprocess.run([BIN, "params", "--markdown"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(doc_table(os.path.join(SRC, "docs", "PARAMS.md")), out,
                         "docs/PARAMS.md is stale: run scripts/gen-docs")

    def test_stats_doc_matches_binary(self):
        out = subprocess.run([BIN, "stats", "--markdown"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(doc_table(os.path.join(SRC, "docs", "STATS.md")), out,
                         "docs/STATS.md is stale: run scripts/gen-docs")

    def test_every_documented_stat_is_registered_and_vice_versa(self):
        documented = set(re.findall(r"^\| `([^`]+)` \|", open(os.path.join(SRC, "docs", "STATS.md")).read(), re.M))
        self.assertGreater(len(documented), 50)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([BIN, "replay", os.path.join(SRC, "traces", "default.txt"), "--out", d, "--quiet"],
                           check=True)
            registered = set(json.load(open(os.path.join(d, "stats.json")))["stats"])
        self.assertEqual(documented - registered, set(), "documented but not registered")
        self.assertEqual(registered - documented, set(), "registered but not documented")

    def test_run_stats_doc_matches_binary_and_a_run(self):
        out = subprocess.run([BIN, "stats", "--run", "--markdown"], capture_output=True, text=True,
                             check=True).stdout
        path = os.path.join(SRC, "docs", "STATS-RUN.md")
        self.assertEqual(doc_table(path), out, "docs/STATS-RUN.md is stale: run scripts/gen-docs")
        documented = set(re.findall(r"^\| `([^`]+)` \|", open(path).read(), re.M))
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([BIN, "run", os.path.join(SRC, "examples", "b2b-mixed.yaml"), "--out", d,
                            "--quiet", "--set", "workload.wqes_per_qp=2"], check=True)
            registered = set(json.load(open(os.path.join(d, "stats.json")))["stats"])
        self.assertEqual(documented - registered, set(), "documented but not registered")
        self.assertEqual(registered - documented, set(), "registered but not documented")

    def test_fabric_stats_doc_matches_binary_and_a_run(self):
        out = subprocess.run([BIN, "stats", "--fabric", "--markdown"], capture_output=True,
                             text=True, check=True).stdout
        path = os.path.join(SRC, "docs", "STATS-FABRIC.md")
        self.assertEqual(doc_table(path), out, "docs/STATS-FABRIC.md is stale: run scripts/gen-docs")
        documented = set(re.findall(r"^\| `([^`]+)` \|", open(path).read(), re.M))
        # tor0.themis.* are an external switch's (themis.mode other than none): a run with
        # THEMIS on registers exactly those for tor0, one without none.
        themis = {k for k in documented if k.startswith("tor0.themis.")}
        self.assertGreater(len(themis), 5)
        # THEMIS needs one long-haul link (a kpaths fabric's are all equal): its run is the
        # smallest two-dc, where the DCI switch dc0_dci registers what the doc lists for tor0.
        for mode in ("none", "both"):
            topo = (["--set", "topology.kind=kpaths"] if mode == "none" else
                    ["--set", "topology.kind=two-dc", "--set", "topology.spines=1", "--set",
                     "topology.leaves=1", "--set", "topology.hosts_per_leaf=2", "--set",
                     "flows.pattern=mix"])
            with tempfile.TemporaryDirectory() as d:
                subprocess.run([BIN, "run", os.path.join(SRC, "examples", "fabric-kpaths.yaml"),
                                "--out", d, "--quiet", "--set", "topology.paths=1", "--set",
                                "topology.hosts_per_leaf=1"] + topo +
                               ["--set", "tx.rate=none", "--set", "themis.mode=" + mode],
                               check=True)
                registered = set(json.load(open(os.path.join(d, "stats.json")))["stats"])
            if mode == "none":
                self.assertEqual(documented - themis - registered, set(),
                                 "documented but not registered")
                self.assertEqual(registered - documented, set(), "registered but not documented")
            else:
                self.assertEqual({k[len("dc0_dci."):] for k in registered
                                  if k.startswith("dc0_dci.themis.")},
                                 {k[len("tor0."):] for k in themis})

    def test_eunomia_stats_doc_matches_binary_and_runs(self):
        # docs/STATS-EUNOMIA.md lists what nic.ordering=eunomia registers beyond the default
        # listings; a eunomia replay and run register exactly the union (minus the default
        # ordering's bitmap.* SRAMs, which Eunomia does not have).
        path = os.path.join(SRC, "docs", "STATS-EUNOMIA.md")
        text = open(path).read()
        extra = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
        self.assertGreater(len(extra), 20)
        for run in (False, True):
            base_doc = os.path.join(SRC, "docs", "STATS-RUN.md" if run else "STATS.md")
            base = set(re.findall(r"^\| `([^`]+)` \|", open(base_doc).read(), re.M))
            with tempfile.TemporaryDirectory() as d:
                cmd = ([BIN, "run", os.path.join(SRC, "examples", "b2b-mixed.yaml"), "--set",
                        "workload.wqes_per_qp=2"] if run else
                       [BIN, "replay", os.path.join(SRC, "traces", "default.txt")])
                subprocess.run(cmd + ["--out", d, "--quiet", "--set", "nic.ordering=eunomia"],
                               check=True)
                registered = set(json.load(open(os.path.join(d, "stats.json")))["stats"])
            mine = {k for k in extra if k.startswith(("a.", "b.")) == run}
            self.assertEqual(mine - registered, set(), "documented but not registered")
            undocumented = {k for k in registered - base - mine if ".sram.bitmap." not in k}
            self.assertEqual(undocumented, set(), "registered but not documented")
            self.assertFalse(any(".sram.bitmap." in k for k in registered), "bitmap.* with eunomia")

    def test_registers_doc_matches_binary(self):
        out = subprocess.run([BIN, "registers"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(doc_table(os.path.join(SRC, "docs", "REGISTERS.md")), out,
                         "docs/REGISTERS.md is stale: run scripts/gen-docs")

    def test_every_param_has_unit_and_description(self):
        for line in open(os.path.join(SRC, "docs", "PARAMS.md")):
            if line.startswith("| `"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                self.assertEqual(len(cells), 5, line)
                key, default, unit, rng, desc = cells
                self.assertTrue(unit and desc and default != "", line)


if __name__ == "__main__":
    unittest.main()
