"""What the figure scripts share: pyarrow from the tools' venv, and a dataset's tables.

`import tables` (the scripts' folder is first on `sys.path` when a script runs) makes sure
pyarrow can be imported: when it cannot, the running script is started again, with the same
arguments, by `.tools/venv/bin/python` (made by `make setup`), which has it; without that
venv `pq` is None.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS_VENV = os.path.join(ROOT, ".tools", "venv")
TOOLS_PY = os.path.join(TOOLS_VENV, "bin", "python")

try:
    import pyarrow.parquet as pq
except ImportError:
    # A venv's python is a link to its base: compare prefixes, not resolved paths.
    if os.path.exists(TOOLS_PY) and os.path.realpath(sys.prefix) != os.path.realpath(TOOLS_VENV):
        os.execv(TOOLS_PY, [TOOLS_PY, os.path.abspath(sys.argv[0])] + sys.argv[1:])
    pq = None


def table(d, name):
    """The rows of `d/name.parquet` as dicts; none when the file is absent."""
    if pq is None:
        sys.exit("pyarrow is missing: run `make setup` (it installs .tools/venv)")
    p = os.path.join(d, name + ".parquet")
    return pq.read_table(p).to_pylist() if os.path.exists(p) else []
