"""Where things are: the repository, the build directory, the oonic binary.

- REPO, repo_root(): the repository root (three levels above this file)
- build_dir(): $OONIC_BUILD_DIR, else <repo>/build (where scripts/build builds)
- oonic_bin(build=None): $OONIC_BIN, else <build>/oonic; build defaults to <repo>/build
  (most commands do not look at $OONIC_BUILD_DIR; scripts/gen-docs passes build_dir())
- require_oonic(prog): oonic_bin(), or exit 2 with "PROG: error: BIN: no oonic binary"
- run_build(jobs, stdout, check): scripts/build into build_dir() [-j jobs]
"""

import os
import subprocess
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def repo_root():
    return REPO


def build_dir():
    """$OONIC_BUILD_DIR, else <repo>/build."""
    return os.environ.get("OONIC_BUILD_DIR") or os.path.join(REPO, "build")


def oonic_bin(build=None):
    """$OONIC_BIN, else <build>/oonic (build: default <repo>/build)."""
    return os.environ.get("OONIC_BIN") or os.path.join(build or os.path.join(REPO, "build"), "oonic")


def is_executable(path):
    """A file this process may run."""
    return os.path.isfile(path) and os.access(path, os.X_OK)


def require_oonic(prog):
    """oonic_bin(), or (not executable) an error naming prog and exit status 2."""
    b = oonic_bin()
    if not os.access(b, os.X_OK):
        sys.stderr.write("%s: error: %s: no oonic binary (scripts/build)\n" % (prog, b))
        sys.exit(2)
    return b


def run_build(jobs=None, stdout=None, stderr=None, check=False):
    """scripts/build [-j jobs] into build_dir(); its CompletedProcess (check: raise
    CalledProcessError when it fails)."""
    cmd = [os.path.join(REPO, "scripts", "build")]
    if jobs:
        cmd += ["-j", str(jobs)]
    env = dict(os.environ, OONIC_BUILD_DIR=build_dir())
    return subprocess.run(cmd, env=env, stdout=stdout, stderr=stderr, check=check)
