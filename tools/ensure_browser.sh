#!/usr/bin/env bash
# Make sure a Chromium is available for the site tests (tests/test_site.py).
# Installs Debian's chromium when it is missing and this machine allows it (root and apt-get);
# otherwise says why, and the site tests skip with that reason.
set -u
# make test runs its browser stages side by side: the first one to get here installs, the others
# wait for it (two apt-get runs at once fail on dpkg's lock) and then find chromium installed.
if [ -z "${SCALINGLIB_BROWSER_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  export SCALINGLIB_BROWSER_LOCKED=1
  exec flock "${TMPDIR:-/tmp}/scalinglib-ensure-browser.lock" bash "$0" "$@"
fi
if command -v chromium >/dev/null 2>&1; then
  echo "browser: using $(command -v chromium) ($(chromium --version 2>/dev/null | head -n1))"
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "browser: chromium is not installed and cannot be installed here (needs root and apt-get); site tests will skip"
  exit 0
fi
echo "browser: installing Debian's chromium (about 30 s)"
export DEBIAN_FRONTEND=noninteractive
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; then
  echo "browser: installed $(command -v chromium) ($(chromium --version 2>/dev/null | head -n1))"
else
  echo "browser: apt-get could not install chromium; site tests will skip"
fi
exit 0
