#!/usr/bin/env bash
# Headless Chromium for the report's browser test (stages/score/tests/browser.rs), from
# Debian's package. Part of `make test`'s setup; quick when it is there. Where it cannot be
# installed (not root, no apt-get, no network) this says why and the browser test skips
# with its own message.
set -uo pipefail
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then exit 0; fi
done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: no chromium, and no root apt-get to install it; the report's browser test will skip" >&2
  exit 0
fi
echo "setup-browser: installing Debian's chromium for the report's browser test" >&2
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
  echo "setup-browser: installing chromium failed; the report's browser test will skip" >&2
fi
exit 0
