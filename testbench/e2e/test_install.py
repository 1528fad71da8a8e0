#!/usr/bin/python3
"""The model installs as a CMake package that another SystemC platform links:
cmake --install into a temporary prefix, then build and run a small consumer
(testbench/e2e/fixtures/consumer) with find_package(oonic) and oonic::model."""
import os
import subprocess
import tempfile
import unittest

SRC = os.environ.get("OONIC_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.environ.get("OONIC_BIN", os.path.join(SRC, "build", "oonic"))


class Install(unittest.TestCase):
    def test_consumer_links_oonic_model(self):
        build = os.path.dirname(BIN)
        with tempfile.TemporaryDirectory() as d:
            prefix = os.path.join(d, "prefix")
            subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                           stdout=subprocess.DEVNULL)
            self.assertTrue(os.path.exists(os.path.join(prefix, "lib", "cmake", "oonic", "oonicConfig.cmake")))
            cb = os.path.join(d, "consumer-build")
            subprocess.run(["cmake", "-S", os.path.join(SRC, "testbench", "e2e", "fixtures", "consumer"), "-B", cb,
                            "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                           stdout=subprocess.DEVNULL)
            subprocess.run(["cmake", "--build", cb, "-j", "2"], check=True, stdout=subprocess.DEVNULL)
            env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
            out = subprocess.run([os.path.join(cb, "consumer")], capture_output=True, text=True, env=env)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertIn("consumer: ok", out.stdout)


if __name__ == "__main__":
    unittest.main()
