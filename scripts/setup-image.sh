#!/usr/bin/env bash
# Builds the docker backend's image (`execute --build-image`: Debian's Python by mmdebstrap,
# the runner's tools from wheels, imported without a registry) where a Docker engine answers.
# Quick when done: the image is tagged by a hash of its recipe and built only when missing.
# Without an engine it says so and stops: the docker backend's tests then skip, saying why.
set -euo pipefail
cd "$(dirname "$0")/.."
sock=${DOCKER_HOST:-unix:///var/run/docker.sock}
if [ "${sock#unix://}" != "$sock" ] && [ ! -S "${sock#unix://}" ]; then
  echo "setup: no Docker engine at $sock: the docker backend's image is not built (its tests skip)" >&2
  exit 0
fi
if ! command -v mmdebstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's mmdebstrap (builds the docker backend's image)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
  else
    echo "setup: mmdebstrap is missing: install it (apt-get install mmdebstrap) to build the docker backend's image" >&2
    exit 2
  fi
fi
# NO_BUILD=1 (make test): the execute binary the test build made; else build it here, with
# the same compiler wrapper as make's builds so that their artifacts are shared.
if [ "${NO_BUILD:-}" != 1 ]; then
  cargo=${CARGO:-cargo}
  wrapper=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
  RUSTC_WORKSPACE_WRAPPER=$wrapper "$cargo" build -q -p execute --bin execute
fi
target/debug/execute --build-image -q
