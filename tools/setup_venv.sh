#!/usr/bin/env bash
# Create .venv and install the pinned requirements.txt plus scalinglib (editable); `make` runs this
# when .venv/.ready is missing or older than requirements.txt / pyproject.toml.
#
#   bash tools/setup_venv.sh [PYTHON] [VENV]      (defaults: python3 .venv)
#
# The installer is uv when it can be had (a few seconds with a warm cache): the uv on PATH, else uv
# installed with pip into the new venv. When neither works it says so and installs with pip (about
# a minute). Both read the same pins. Python 3.11 or newer is needed: the pinned numpy 2.4 and the
# Jupyter stack require it.
set -euo pipefail
PYTHON=${1:-python3}
VENV=${2:-.venv}
MIN=(3 11)
say() { echo "== setup: $* =="; }

version_ok() {  # $1: an interpreter; exit 0 when it is new enough, else print why
  "$1" -c "import sys; v = sys.version_info[:2]; sys.exit(0 if v >= (${MIN[0]}, ${MIN[1]}) else
    f'{sys.executable} is Python {v[0]}.{v[1]}')"
}

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "setup: no '$PYTHON' on PATH. This book needs Python ${MIN[0]}.${MIN[1]} or newer:" \
       "run make PYTHON=/path/to/python3.11 (or newer) book" >&2
  exit 1
fi
if ! why=$(version_ok "$PYTHON" 2>&1); then
  echo "setup: $why; this book needs Python ${MIN[0]}.${MIN[1]} or newer (the pinned numpy 2.4 and the" \
       "Jupyter stack require it). Run: make PYTHON=python3.11 book (or any newer python3)" >&2
  exit 1
fi
if [ -x "$VENV/bin/python" ] && ! why=$(version_ok "$VENV/bin/python" 2>&1); then
  echo "setup: $VENV was made with an older Python ($why); remove it (rm -rf $VENV) and run make again" >&2
  exit 1
fi

uv=$(command -v uv 2>/dev/null || true)
[ -z "$uv" ] && [ -x "$VENV/bin/uv" ] && uv="$VENV/bin/uv"
if [ -n "$uv" ]; then
  [ -x "$VENV/bin/python" ] || "$uv" venv --quiet --seed --python "$PYTHON" "$VENV"
else
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  say "uv is not installed; installing it into $VENV with pip (it installs the pins in seconds)"
  if "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check uv >/dev/null 2>&1 \
     && [ -x "$VENV/bin/uv" ]; then
    uv="$VENV/bin/uv"
  else
    say "could not install uv; installing the pins with pip instead (slower: about a minute)"
  fi
fi

if [ -n "$uv" ]; then
  say "installing the pinned requirements with $("$uv" --version)"
  "$uv" pip install --quiet --python "$VENV/bin/python" -r requirements.txt
  "$uv" pip install --quiet --python "$VENV/bin/python" --no-deps -C editable_mode=compat -e .
else
  # pip on some machines warns about missing extra index folders on every package; hide only that line
  quiet() { grep -v "is ignored: it is neither a file nor a directory" || true; }
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r requirements.txt 2>&1 | quiet
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    --config-settings editable_mode=compat -e . 2>&1 | quiet
fi
# editable_mode=compat: the library is found through a plain path line in a .pth file. setuptools' default
# editable mode installs an import hook instead, which imports pathlib and importlib.util in every Python
# process of the venv (about 30 ms each: a kernel, an MPI rank, a test worker).
# Byte-compile the installed packages now (uv leaves it to the first import, pip does it already):
# with PYTHONDONTWRITEBYTECODE set, as on some machines, every kernel, test worker and Sphinx run
# would otherwise compile numpy, matplotlib and the Jupyter stack from source again, every time.
site=$("$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
"$VENV/bin/python" -m compileall -q -j 0 "$site" >/dev/null 2>&1 || true   # a few shipped files are not Python 3.11
# jsonschema's IRI grammar is built on first use, not at every import (tools/lazy_rfc3987.py says why)
cp "$(dirname "$0")/lazy_rfc3987.py" "$site/_scalinglib_lazy_rfc3987.py"
echo "import _scalinglib_lazy_rfc3987" > "$site/_scalinglib_lazy_rfc3987.pth"
"$VENV/bin/python" -c "import scalinglib, myst_nb, nbval, playwright"
touch "$VENV/.ready"
say "$VENV is ready ($("$VENV/bin/python" --version), scalinglib installed in editable mode)"
