#!/usr/bin/env bash
# Make sure bubblewrap (bwrap) is available: `make grade` runs every submitted notebook inside it
# (tools/sandbox.py), and the grading tests run a hostile class in it. Installs Debian's bubblewrap
# when it is missing and this machine allows it (root and apt-get); otherwise says why: `make grade`
# then refuses to run (unless UNSAFE_NO_SANDBOX=1) and the sandbox tests skip with the reason.
set -u
# The browser stages of `make test` may be running apt-get at the same moment: take the same lock
# as tools/ensure_browser.sh, so that one apt-get runs at a time.
if [ -z "${SCALINGLIB_BROWSER_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
  export SCALINGLIB_BROWSER_LOCKED=1
  exec flock "${TMPDIR:-/tmp}/scalinglib-ensure-browser.lock" bash "$0" "$@"
fi
if command -v bwrap >/dev/null 2>&1; then
  echo "sandbox: using $(command -v bwrap) ($(bwrap --version 2>/dev/null | head -n1))"
  exit 0
fi
if [ "$(uname -s)" != "Linux" ]; then
  echo "sandbox: bubblewrap needs Linux; make grade will refuse to run here unless UNSAFE_NO_SANDBOX=1"
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "sandbox: bubblewrap is not installed and cannot be installed here (needs root and apt-get);"
  echo "         install it (sudo apt-get install bubblewrap, dnf install bubblewrap, ...) to grade"
  exit 0
fi
echo "sandbox: installing Debian's bubblewrap"
export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y -qq -o DPkg::Lock::Timeout=120 bubblewrap >/dev/null 2>&1; }
if apt_install || { apt-get update -qq >/dev/null 2>&1 && apt_install; }; then
  echo "sandbox: installed $(command -v bwrap) ($(bwrap --version 2>/dev/null | head -n1))"
else
  echo "sandbox: apt-get could not install bubblewrap; make grade will refuse to run, the sandbox tests will skip"
fi
exit 0
