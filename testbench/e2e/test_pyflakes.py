#!/usr/bin/python3
"""Every Python program of the project passes pyflakes (Debian's python3-pyflakes):
the commands in scripts/ (named without .py), their package scripts/lib/oonic, the
experiments, and the testbench's scripts. An unused import, an undefined name or a
placeholder-less f-string fails the suite, naming the file and line.
"""
import os
import subprocess
import sys
import unittest

ROOT = os.environ.get("OONIC_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def python_files():
    out = []
    for top in ("scripts", "testbench", "bench"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if x not in ("__pycache__", "corpus", "regressions")]
            for f in files:
                p = os.path.join(d, f)
                if f.endswith(".py"):
                    out.append(p)
                    continue
                try:
                    with open(p, "rb") as fh:
                        first = fh.readline(200)
                except OSError:
                    continue
                if first.startswith(b"#!") and b"python" in first:
                    out.append(p)
    return sorted(out)


class Pyflakes(unittest.TestCase):
    def test_every_python_program_is_clean(self):
        files = python_files()
        self.assertGreater(len(files), 40)  # the scripts are found, not skipped
        self.assertIn(os.path.join(ROOT, "scripts", "fuzz"), files)
        # the package the commands share (scripts/lib/oonic/*.py)
        for m in ("__init__", "paths", "quoting", "points", "batch", "results", "experiment_tools",
                  "mprdma_testbed"):
            self.assertIn(os.path.join(ROOT, "scripts", "lib", "oonic", m + ".py"), files)
        p = subprocess.run([sys.executable, "-m", "pyflakes"] + files, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 0, "pyflakes:\n" + p.stdout)


if __name__ == "__main__":
    unittest.main()
