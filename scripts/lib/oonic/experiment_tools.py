"""The C++ tools of the scripts under scripts/experiments/ (standard library only).

- find_tool(name, explicit, jobs): the path of a test tool <build>/<name>
  (testbench/tools/<name>.cpp). In order: `explicit` if given; else
  dirname($OONIC_BIN)/<name> when OONIC_BIN is set (nothing is built); else
  $OONIC_BUILD_DIR (default <repo>/build) is brought up to date with
  scripts/build [-j jobs] and <build>/<name> is used.
- ToolMissing: raised when the tool is not there (message says where it looked).
"""

import os
import sys

from . import paths


class ToolMissing(Exception):
    """The experiment's C++ tool was not found (or could not be built)."""


def find_tool(name, explicit=None, jobs=None):
    if explicit:
        path = explicit
    elif os.environ.get("OONIC_BIN"):
        path = os.path.join(os.path.dirname(os.path.abspath(os.environ["OONIC_BIN"])), name)
    else:
        build = paths.build_dir()
        # Build output goes to stderr so stdout stays the experiment's own.
        r = paths.run_build(jobs, stdout=sys.stderr, stderr=sys.stderr)
        if r.returncode != 0:
            raise ToolMissing("scripts/build failed (exit %d) for %s" % (r.returncode, build))
        path = os.path.join(build, name)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise ToolMissing("no executable %s at %s (build it: scripts/build, or set OONIC_BIN "
                          "to <build>/oonic, or pass --tool)" % (name, path))
    return path
