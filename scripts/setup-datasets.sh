#!/usr/bin/env bash
# The Hugging Face `datasets` library into .tools/datasets-venv, from the package registry,
# for the test that a published snapshot loads with it (stages/publish/tests/python.rs).
# A venv of its own: .tools/venv is also the sandbox worker's interpreter, and datasets
# brings numpy and pandas. Quick when done (a stamp holds the requirements' hash).
set -euo pipefail
cd "$(dirname "$0")/.."
req=pipelines/requirements-datasets.txt
venv=.tools/datasets-venv
stamp=$venv/.freshbench-stamp
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi
py=${PYTHON:-python3}
echo "setup: installing the datasets library into $venv (for the snapshot read-back test)" >&2
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
"$venv/bin/python" -c 'import datasets, pyarrow; print("setup: datasets", datasets.__version__, "pyarrow", pyarrow.__version__)' >&2
echo "$want" > "$stamp"
