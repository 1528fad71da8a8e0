"""Text made safe for file names and shell command lines.

- safe(text): every character but A-Z a-z 0-9 . _ + = - replaced by _ (point ids,
  Slurm job names)
- quote(arg): arg as one sh word (single quotes only where needed)
"""

import re


def safe(text):
    return re.sub(r"[^A-Za-z0-9._+=-]", "_", text)


def quote(a):
    return a if re.match(r"^[A-Za-z0-9_./=:+,@-]+$", a) else "'" + a.replace("'", "'\\''") + "'"
