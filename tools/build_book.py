"""Build the HTML book: vendored assets, notebook execution (cached), Sphinx with warnings as errors.

    python tools/build_book.py            # what `make book` runs
    python tools/build_book.py --fresh    # forget executed notebooks and build from scratch
    python tools/build_book.py --stored-outputs   # render the outputs stored in the notebooks (make test)

Notebooks are executed by the build and their results cached under
``_build/.jupyter_cache``. The cache is keyed on each notebook's code only, so
this script also drops it whenever the library or the pinned requirements
change: a page never shows numbers from an older library.

``--stored-outputs`` renders the outputs saved in the notebooks without running
them. ``make test`` uses it right after nbval has re-run every notebook and
found its fresh outputs equal to the stored ones, so executing them a second
time would test nothing new; ``make book`` always executes.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"
STAMP = BUILD / ".library-fingerprint"
FRAMES = BUILD / "frame-cache"
STORED_CONFIG = "_config.stored-outputs.yml"   # written for --stored-outputs, removed after the build


def fingerprint() -> str:
    digest = hashlib.sha256()
    files = sorted((ROOT / "scalinglib").rglob("*.py")) + [ROOT / "requirements.txt"]
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="drop all cached notebook results first")
    parser.add_argument("--stored-outputs", action="store_true",
                        help="render the outputs stored in the notebooks instead of executing them")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT / "tools"))
    import vendor

    if vendor.main() != 0:
        return 1

    current = fingerprint()
    if not args.stored_outputs and (args.fresh or not STAMP.exists() or STAMP.read_text() != current):
        if CACHE.exists():
            print("build: the library or the requirements changed; re-executing every notebook")
            shutil.rmtree(CACHE)
    BUILD.mkdir(exist_ok=True)

    env = dict(os.environ)
    env.setdefault("SCALINGLIB_FRAME_CACHE", str(FRAMES))
    jb = Path(sys.executable).with_name("jupyter-book")
    # --all: re-render every page, so that files served by the site itself are always copied
    # (executed notebooks still come from the cache); -W: any warning fails the build.
    cmd = [str(jb), "build", str(ROOT), "--all", "-W", "--keep-going", "--quiet"]
    if args.stored_outputs:
        config = (ROOT / "_config.yml").read_text()
        changed = config.replace("  execute_notebooks: cache", '  execute_notebooks: "off"', 1)
        if changed == config:
            print("build: could not switch execution off in _config.yml", file=sys.stderr)
            return 1
        # beside _config.yml, since the configuration's relative paths are read from its folder
        stored_config = ROOT / STORED_CONFIG
        stored_config.write_text(changed)
        cmd += ["--config", str(stored_config)]
        print("build: rendering the notebooks' stored outputs (checked by nbval), not executing them")
    start = time.perf_counter()
    try:
        result = subprocess.run(cmd, cwd=ROOT, env=env)
    finally:
        (ROOT / STORED_CONFIG).unlink(missing_ok=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        print(f"build: FAILED after {elapsed:.0f} s (see the warnings above; notebook errors are in "
              f"_build/html/reports/)", file=sys.stderr)
        return result.returncode
    if not args.stored_outputs:
        STAMP.write_text(current)
    index = BUILD / "html" / "index.html"
    print(f"build: done in {elapsed:.0f} s")
    print(f"build: open {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
