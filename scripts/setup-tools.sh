#!/usr/bin/env bash
# Installs the Python tools freshbench needs (pipelines/requirements-tools.txt) into
# .tools/venv, from the package registry. Quick when already done: a stamp records the
# requirements file's hash, and nothing is installed while it matches: any change to the file
# (a new pin, a new tool) reinstalls the whole venv.
set -euo pipefail
cd "$(dirname "$0")/.."
req=pipelines/requirements-tools.txt
venv=.tools/venv
stamp=$venv/.freshbench-stamp
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
py=${PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
  echo "setup: $py not found; install Python 3.10 or newer (or set PYTHON=...)" >&2
  exit 2
fi
echo "setup: installing Python tools into $venv (uv, coverage, pytest, pyarrow, hypothesis)" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -c 'import coverage, pytest, pyarrow, hypothesis; print("setup: coverage", coverage.__version__, "pytest", pytest.__version__, "pyarrow", pyarrow.__version__, "hypothesis", hypothesis.__version__)' >&2
"$venv/bin/uv" --version >&2
# Stamped last: an install that failed half way is redone on the next run.
echo "$want" > "$stamp"
