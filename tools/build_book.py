"""Build the HTML book: vendored assets, notebook execution (cached, in parallel), Sphinx with warnings as errors.

    python tools/build_book.py            # what `make book` runs
    python tools/build_book.py --fresh    # forget executed notebooks and build from scratch
    python tools/build_book.py --stored-outputs   # render the outputs stored in the notebooks (make test)
    python tools/build_book.py --stored-outputs --fresh --keep-full   # what `make test` runs
    python tools/build_book.py --jobs 1   # one notebook at a time (default: one per core)

1. ``tools/vendor.py`` fetches the browser-side scripts once (MathJax, the widget manager).
2. Nothing changed since the last successful build (every page source, the library, the
   configuration, the served files, the build mode): the build stops there, in well under a second.
3. Every notebook of the table of contents whose code has no result in the execution cache
   (``_build/.jupyter_cache``, the cache Jupyter Book's myst-nb reads) is executed, several at a
   time (one kernel per core, the slowest first), and its result stored in that cache exactly as
   myst-nb would store it. The cache is keyed on each notebook's code only, so it is dropped
   whenever the library or the pinned requirements change: a page never shows numbers from an
   older library.
4. Sphinx (through Jupyter Book) renders the pages from the cache with warnings as errors. The
   build is incremental: only pages whose source changed are read and written again, unless the
   library, the requirements, the configuration, the table of contents, the book's Sphinx
   extension, its static files, the bibliography or the build mode changed, which re-render every
   page. The files the site serves itself (``_vendor/site``) are copied into the site after every
   build whether or not a page was written.
5. What the pages would load for nothing is cut (``trim_site``: the theme's duplicate icon script,
   Thebe's files on pages that launch nothing, source maps).

``--stored-outputs`` renders the outputs saved in the notebooks without running
them. ``make test`` uses it: nbval re-runs every notebook and compares its fresh
outputs with the stored ones, so executing them for the site too would test
nothing new; ``make book`` always executes.

``make test`` checks a site whose every page was rendered from the current sources:
it passes ``--fresh``, and ``--keep-full``, which keeps the site of the last build
instead when that build rendered every page and no source has changed since (every
page, the library, the pins, the configuration, the served files). With
``--stored-outputs`` that may be the site ``make book`` executed: its outputs are
fresh runs of the code whose stored outputs nbval compares, so rendering the
stored ones again would check nothing the kept site does not.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
HTML = BUILD / "html"
CACHE = BUILD / ".jupyter_cache"
STAMP = BUILD / ".library-fingerprint"      # the library + pins the execution cache belongs to
SITE_STAMP = BUILD / ".site-fingerprint"    # every input of the last successful build
EVERY_PAGE = "every_page"                   # and, in that record, whether it rendered every page
TIMES = BUILD / ".notebook-seconds.json"    # last execution time of each notebook (slowest first)
# Typical execution seconds on a 2-core machine, for the order of a first build (no TIMES yet): the
# notebooks that measure this machine (3.5, 3.7, 3.8) are slow for their size. Seconds need not be exact.
TYPICAL_SECONDS = {"03-08-communication-cost-models.ipynb": 16, "03-07-the-roofline-model.ipynb": 16,
                   "03-05-amdahl-and-gustafson.ipynb": 14, "03-06-work-depth-and-parallelism.ipynb": 13,
                   "03-04-latency-throughput-and-tail-latency.ipynb": 12, "03-03-strong-and-weak-scaling.ipynb": 10,
                   "03-09-scaling-efficiency-and-cost-awareness.ipynb": 8, "03-01-what-does-it-mean-to-scale.ipynb": 6,
                   "03-02-horizontal-and-vertical-scaling.ipynb": 4}
FRAMES = BUILD / "frame-cache"
EXTRA = ROOT / "_vendor" / "site"            # html_extra_path: served as is at the site's root
STORED_CONFIG = "_config.stored-outputs.yml"  # written for --stored-outputs, removed after the build

# Inputs whose change means every page must be read and written again (Sphinx cannot see them).
RENDER_INPUTS = ["_config.yml", "_toc.yml", "book/_ext", "book/_static", "book/references.bib",
                 "tools/build_book.py", "tools/vendor-lock.json", "site_assets"]


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _files(*names: str) -> list[Path]:
    out: list[Path] = []
    for name in names:
        path = ROOT / name
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        elif path.exists():
            out.append(path)
    return out


def fingerprint() -> str:
    """The library (its code and its data files) and the pins: what the cached notebook results depend on
    beyond their code."""
    library = sorted((ROOT / "scalinglib").rglob("*.py")) + sorted((ROOT / "scalinglib" / "data").glob("*.toml"))
    return _digest(library + [ROOT / "requirements.txt"])


def page_sources() -> list[Path]:
    return sorted(p for p in (ROOT / "book").iterdir() if p.suffix in (".ipynb", ".md") and p.is_file())


def site_fingerprint(mode: str) -> dict:
    return {"mode": mode, "python": sys.version, "library": fingerprint(),
            "render": _digest(_files(*RENDER_INPUTS)), "pages": _digest(page_sources())}


# ---------------------------------------------------------------- execution

def toc_notebooks() -> list[Path]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [entry["file"] for entry in toc.get("chapters", []) if "file" in entry]
    return [ROOT / (f + ".ipynb") for f in files if (ROOT / (f + ".ipynb")).exists()]


def exec_timeout() -> int:
    """Seconds a cell may run: ``execute.timeout`` of _config.yml, as myst-nb reads it."""
    import yaml

    return int((yaml.safe_load((ROOT / "_config.yml").read_text()).get("execute") or {}).get("timeout", 300))


def _worker_init() -> None:
    """A worker dies with the build (Linux): a stopped build leaves no worker behind, and the
    worker's kernel, which watches its parent, exits after it."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


# Every kernel the build starts (and nbval's, through kernel_profile) runs this line first. It changes no output:
# the garbage collector waits for 10,000 new objects rather than 700 before a pass, and once the notebook's
# first cell (its imports) has run, what that cell loaded is set aside for good (gc.freeze), so the passes the
# figures trigger skip numpy, matplotlib and the library. It binds no name in the notebook's namespace.
KERNEL_LINE = ("__import__('gc').set_threshold(10_000, 50, 100); get_ipython().events.register('post_run_cell', "
               "lambda result: result.info.store_history and result.execution_count == 1 and "
               "(__import__('gc').collect(), __import__('gc').freeze()))")
KERNEL_ARGS = ["--IPKernelApp.log_level=ERROR", f"--IPKernelApp.exec_lines={KERNEL_LINE}",
               "--HistoryManager.enabled=False"]     # and no history database written for a build's cells
IPYTHON_DIR = BUILD / "ipython"


def kernel_profile() -> Path:
    """An IPython folder whose kernels start as the build's do (KERNEL_ARGS), for tools that start kernels
    themselves (nbval: ``IPYTHONDIR=$(python tools/build_book.py --kernel-profile)``); returns it."""
    config = IPYTHON_DIR / "profile_default" / "ipython_kernel_config.py"
    text = (f"c.IPKernelApp.exec_lines = [{KERNEL_LINE!r}]\n"
            "c.HistoryManager.enabled = False\n")
    if not config.exists() or config.read_text() != text:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(text)
    return IPYTHON_DIR


def _execute(path: str, timeout: int) -> tuple[str, str, float, str | None]:
    """Run one notebook in a fresh kernel, as myst-nb's cache mode would (in a worker process)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    nb = nbformat.read(path, as_version=4)
    # the kernel's own log (its warning about TCP without encryption, once per notebook) stays quiet
    result = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                                 meta_override=True, extra_arguments=KERNEL_ARGS)
    return path, nbformat.writes(result.nb), result.time, result.exc_string if result.err else None


def execute_missing(jobs: int) -> int:
    """Execute, in parallel, every notebook whose code has no cached result; store the results."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(CACHE))
    todo = []
    for path in toc_notebooks():
        nb = nbformat.read(path, as_version=4)
        try:
            cache.match_cache_notebook(nb)
        except KeyError:
            todo.append(path)
    if not todo:
        return 0
    seconds = {**TYPICAL_SECONDS, **(json.loads(TIMES.read_text()) if TIMES.exists() else {})}
    # slowest first (last run's time; unknown: by file size), so the last notebook to finish is a short one
    todo.sort(key=lambda p: (seconds.get(p.name, 0.0), p.stat().st_size), reverse=True)
    jobs = max(1, min(jobs, len(todo)))
    print(f"build: executing {len(todo)} notebook(s), {jobs} at a time", flush=True)
    start, failures = time.perf_counter(), 0
    timeout = exec_timeout()
    # spawn, not fork: the vendoring thread may be running while the workers start
    with futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                     initializer=_worker_init) as pool:
        running = [pool.submit(_execute, str(p), timeout) for p in todo]
        for done in futures.as_completed(running):
            path, text, elapsed, error = done.result()
            name = Path(path).name
            if error:
                failures += 1
                print(f"build: FAILED executing {name} after {elapsed:.1f} s:\n{error}", file=sys.stderr, flush=True)
                continue
            record = cache.add_nb_to_project(path)
            cache.cache_notebook_bundle(CacheBundleIn(nbformat.reads(text, as_version=4), record.uri,
                                                      data={"execution_seconds": elapsed}),
                                        check_validity=False, overwrite=True)
            seconds[name] = round(elapsed, 2)
            print(f"build: executed {name} in {elapsed:.1f} s", flush=True)
    TIMES.write_text(json.dumps(seconds, indent=1))
    print(f"build: notebooks executed in {time.perf_counter() - start:.1f} s", flush=True)
    return 1 if failures else 0


# ---------------------------------------------------------------- site

# What a first visit would otherwise download for nothing (see trim_site).
# Tags cut from every page, each with the whitespace before it (``_cut``): the patterns start with their
# literal text, which the regex engine finds quickly (one that starts with \s* is tried at every
# character of a page, a tenth of a second on a megabyte page).
_FONTAWESOME_JS = re.compile(r'<!-- So that users can add custom icons -->\s*\n|'
                             r'<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')
_THEBE = re.compile(r'<link rel="stylesheet" type="text/css" href="[^"]*_static/sphinx-thebe\.css[^"]*" />|'
                    r'<script>const THEBE_JS_URL = [^<]*</script>|'
                    r'<script async="async" src="[^"]*_static/sphinx-thebe\.js[^"]*"></script>|'
                    r'<script type="text/x-thebe-config">.*?</script>', re.S)
_SOURCE_MAP = re.compile(rb"\n?(//# sourceMappingURL=\S+|/\*# sourceMappingURL=\S+ \*/)\s*$")
_ICON_NAME = re.compile(r"fa-[a-z0-9]+(?:-[a-z0-9]+)*")       # where no word character comes before (_icon_names)
_ICON_RULE = re.compile(r'([^{}]+)\{content:"\\([0-9a-f]{4,5})"\}')
_SOLID_FACE = re.compile(r'(@font-face\{[^}]*font-weight:900;src:)url\(\.\./vendor/fontawesome/webfonts/'
                         r'fa-solid-900\.woff2\) format\("woff2"\),url\([^)]*fa-solid-900\.ttf\) format\("truetype"\)')
THEME_CSS = "_static/styles/pydata-sphinx-theme.css"
SOLID_SUBSET = "_static/vendor/fontawesome/webfonts/fa-solid-900.subset.woff"
# Icons that widgets draw (Play, buttons) and the theme's launch and repository buttons: kept in the
# icon font even when no page shows them yet.
ALWAYS_ICONS = ("fa-play fa-pause fa-stop fa-retweet fa-repeat fa-check fa-xmark fa-times fa-plus fa-minus "
                "fa-rocket fa-bars fa-list fa-angle-up fa-angle-down fa-caret-up fa-caret-down fa-spinner "
                "fa-circle-notch fa-copy fa-link fa-upload").split()


def _cut(pattern: re.Pattern, text: str) -> str:
    """``text`` without the matches of ``pattern``, each taken with the whitespace just before it."""
    kept, last = [], 0
    for match in pattern.finditer(text):
        start = match.start()
        while start > last and text[start - 1].isspace():
            start -= 1
        kept.append(text[last:start])
        last = match.end()
    return "".join(kept) + text[last:] if kept else text


def trim_site(html: Path = HTML) -> dict:
    """Cut from the site built in ``html`` what its pages load or carry for nothing; return what was cut.

    - The theme's ``fontawesome.js`` (1.5 MB, 540 kB gzipped, on every page) turns icon tags into
      inline SVG; the theme's stylesheet already draws the same icons with the Font Awesome web
      font, so the script only doubles the work.
    - sphinx-thebe's stylesheet, scripts and configuration, on every page that has no button that
      starts Thebe (launch buttons are off until ``repository.url`` is set; with ``launch_buttons.
      thebe`` on, the pages that have the button keep them).
    - The theme's source maps (``*.map``, 3.5 MB that only a browser's developer tools ask for) and
      the comments that point at them.
    - The theme's solid icon font: 156 kB for some 1,400 icons, of which the site shows about 20
      (``subset_icon_font``).
    """
    cut = {"pages": 0, "maps": 0, "icons": 0}
    for page in html.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = _cut(_FONTAWESOME_JS, text)
        if "thebe-launch-button" not in new and "initThebe" not in new:
            new = _cut(_THEBE, new)
        if new != text:
            page.write_text(new, encoding="utf-8")
            cut["pages"] += 1
    cut["icons"] = subset_icon_font(html)
    static = html / "_static"
    for source_map in static.rglob("*.map"):
        source_map.unlink()
        cut["maps"] += 1
    for asset in list(static.rglob("*.js")) + list(static.rglob("*.css")):
        data = asset.read_bytes()
        if b"sourceMappingURL=" in data[-300:]:
            trimmed = _SOURCE_MAP.sub(b"\n", data)
            if trimmed != data:
                asset.write_bytes(trimmed)
    return cut



def sync_extra_files() -> int:
    """Copy html_extra_path into the site wherever a file is missing or differs (size or mtime)."""
    copied = 0
    for src in EXTRA.rglob("*"):
        if not src.is_file():
            continue
        dest = HTML / src.relative_to(EXTRA)
        stat = src.stat()
        if dest.exists() and dest.stat().st_size == stat.st_size and dest.stat().st_mtime >= stat.st_mtime:
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        copied += 1
    return copied


def quieter_gc() -> None:
    """Fewer garbage-collector passes while Sphinx builds its document trees: what is already loaded (Sphinx,
    docutils, the theme) is set aside for good (``gc.freeze``) and the youngest objects are collected after
    10,000 allocations rather than 700. Sphinx then takes about a fifth less CPU time; the pages are the same."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 50, 100)


SEALED = BUILD / "sealed-exercises.json"     # the exercises' sealed answers, the same in both editions


def sealed_table() -> Path:
    """The sealed answers of every exercise part (salted hashes, ``scalinglib.exercises.core.seal_all``), written
    once per version of the library (and pins) and read by the pages of both editions (their in-page checker,
    ``book/_ext/book_extras.py``) and by the student edition's ``sealed.json``: one set of seals everywhere.
    Builds that run side by side (the book and the student edition in ``make test``) take turns (a file lock)."""
    import fcntl

    BUILD.mkdir(exist_ok=True)
    wanted = fingerprint()
    with open(BUILD / ".sealed-exercises.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if json.loads(SEALED.read_text()).get("library") == wanted:
                return SEALED
        except (OSError, ValueError):
            pass
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from scalinglib.exercises import core

        partial = SEALED.with_suffix(".partial")
        partial.write_text(json.dumps({**core.seal_all(pad=True), "library": wanted}, separators=(",", ":")))
        partial.replace(SEALED)
    return SEALED


def run_sphinx(config: Path, fresh: bool, source: Path = ROOT, html: Path = HTML) -> int:
    """Jupyter Book's own build (its configuration, its Sphinx call) of the book in ``source``, in this process.

    One Sphinx process: Jupyter Book always loads sphinx_multitoc_numbering, which does not declare
    itself safe for parallel reading, and Sphinx's warning about that fails a build with -W. The
    configuration's relative paths are read from ``source``, so the build runs there."""
    from jupyter_book.sphinx import build_sphinx

    quieter_gc()
    here = Path.cwd()
    os.chdir(source)
    try:
        result = build_sphinx(
            source, html, use_external_toc=True, noconfig=True, path_config=str(config),
            confoverrides={"external_toc_path": (source / "_toc.yml").as_posix(), "latex_individualpages": False,
                           "exercise_sealed_table": str(sealed_table())},
            builder="html", warningiserror=True, keep_going=True, freshenv=fresh, quiet=True, jobs=1)
    finally:
        os.chdir(here)
    if isinstance(result, Exception):
        print(f"build: Sphinx failed: {result!r}", file=sys.stderr)
        return 1
    return int(result or 0)


def _icon_names(text: str) -> set[str]:
    """The ``fa-*`` names in ``text`` that start a word (a pattern that starts with its literal text is
    found far faster than one that starts with a word boundary)."""
    found = set()
    for match in _ICON_NAME.finditer(text):
        i = match.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            found.add(match.group())
    return found


def subset_icon_font(html: Path = HTML) -> int:
    """Point the theme's solid icon font (156 kB, fetched by every page) at a copy that holds only the
    icons the site can show: every ``fa-*`` name in its pages and the theme's scripts, plus
    ``ALWAYS_ICONS``. Returns the number of icons kept (0: nothing done)."""
    css_path, ttf = html / THEME_CSS, html / "_static/vendor/fontawesome/webfonts/fa-solid-900.ttf"
    if not css_path.exists() or not ttf.exists():
        return 0
    css = css_path.read_text(encoding="utf-8")
    names = set(ALWAYS_ICONS)
    for path in list(html.rglob("*.html")) + list((html / "_static").rglob("*.js")):
        if path.name != "fontawesome.js":
            names.update(_icon_names(path.read_text(encoding="utf-8", errors="replace")))
    codepoints = set()
    for selectors, code in _ICON_RULE.findall(css):
        for selector in selectors.split(","):
            name = selector.strip().removeprefix(".").removesuffix(":before")
            if name in names:
                codepoints.add(int(code, 16))
    if not codepoints:
        return 0
    import logging

    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.WARNING)   # Sphinx left the root logger at INFO
    out = html / SOLID_SUBSET
    options = subset.Options()
    options.flavor = "woff"          # zlib: no brotli needed, and a few dozen glyphs compress to a few kB
    options.layout_features = ["*"]
    font = subset.load_font(str(ttf), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    subset.save_font(font, str(out), options)
    new = _SOLID_FACE.sub(lambda m: m.group(1) + 'url(../vendor/fontawesome/webfonts/fa-solid-900.subset.woff) '
                          'format("woff")', css)
    if new != css:
        css_path.write_text(new, encoding="utf-8")
    return len(codepoints)


def kept_site(last: dict, wanted: dict, executed: dict | None, *, fresh: bool, keep_full: bool) -> str | None:
    """Why the site of the last build may stand as this build (None: build).

    ``last`` is the record of the last successful build, ``wanted`` what this build would render,
    ``executed`` (with ``--stored-outputs``) what ``make book`` renders from the same sources. Without
    ``fresh``, a site built from ``wanted`` stands. With ``keep_full``, so does one whose build rendered
    every page from ``wanted`` or from ``executed``: a site rendered in full from the current sources.
    """
    sources = {k: v for k, v in last.items() if k != EVERY_PAGE}
    if not fresh and sources == wanted:
        return "nothing changed since the last build"
    if keep_full and last.get(EVERY_PAGE) is True:
        if sources == wanted:
            return "the last build rendered every page from the same sources"
        if executed is not None and sources == executed:
            return "`make book` rendered every page of this site from the same sources, its notebooks executed"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true",
                        help="re-render every page; when executing, also drop all cached notebook results")
    parser.add_argument("--stored-outputs", action="store_true",
                        help="render the outputs stored in the notebooks instead of executing them")
    parser.add_argument("--keep-full", action="store_true",
                        help="keep the site of the last build if it rendered every page from the current sources "
                             "(with --stored-outputs, also one `make book` built by executing them)")
    parser.add_argument("--kernel-profile", action="store_true",
                        help="write the IPython folder whose kernels start as the build's, print its path, stop")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("BOOK_JOBS", "0")) or os.cpu_count() or 1,
                        help="notebooks executed at once (default: BOOK_JOBS, else the number of cores)")
    args = parser.parse_args()
    if args.kernel_profile:
        print(kernel_profile())
        return 0
    start = time.perf_counter()

    sys.path.insert(0, str(ROOT / "tools"))
    import vendor

    # The scripts are fetched (network) while the notebooks execute (CPU); Sphinx waits for both.
    vendoring = futures.ThreadPoolExecutor(max_workers=1).submit(vendor.main)

    mode = "stored-outputs" if args.stored_outputs else "execute"
    wanted = site_fingerprint(mode)
    last = json.loads(SITE_STAMP.read_text()) if SITE_STAMP.exists() else {}
    executed = site_fingerprint("execute") if args.stored_outputs else None
    why = kept_site(last, wanted, executed, fresh=args.fresh, keep_full=args.keep_full)
    last.pop(EVERY_PAGE, None)
    if why and (HTML / "index.html").exists():
        if vendoring.result() != 0:
            return 1
        copied = sync_extra_files()
        extra = f" ({copied} served file(s) copied again)" if copied else ""
        print(f"build: {why}{extra}; the site is {HTML / 'index.html'}")
        return 0

    BUILD.mkdir(exist_ok=True)
    current = fingerprint()
    library_changed = not STAMP.exists() or STAMP.read_text() != current
    if not args.stored_outputs and (args.fresh or library_changed) and CACHE.exists():
        print("build: the library or the requirements changed; re-executing every notebook")
        shutil.rmtree(CACHE)
    os.environ.setdefault("SCALINGLIB_FRAME_CACHE", str(FRAMES))
    os.environ.pop("SCALINGLIB_SLIDER_FRAMES", None)     # the book shows every frame of every slider
    os.environ.pop("SCALINGLIB_MEASURE", None)           # and full measurements of this machine

    if not args.stored_outputs:
        if execute_missing(args.jobs) != 0:
            print("build: FAILED: a notebook raised an error (the traceback is above)", file=sys.stderr)
            SITE_STAMP.unlink(missing_ok=True)
            return 1
        STAMP.write_text(current)
    if vendoring.result() != 0:
        return 1

    # Re-read every page when something Sphinx does not track changed (the library behind the cached
    # outputs, the configuration, the extension, the mode); otherwise only the changed pages.
    fresh = args.fresh or not last or any(last.get(k) != wanted[k] for k in ("mode", "python", "library", "render"))
    config = ROOT / "_config.yml"
    if args.stored_outputs:
        text = config.read_text()
        changed = text.replace("  execute_notebooks: cache", '  execute_notebooks: "off"', 1)
        if changed == text:
            print("build: could not switch execution off in _config.yml", file=sys.stderr)
            return 1
        # beside _config.yml, since the configuration's relative paths are read from its folder
        config = ROOT / STORED_CONFIG
        config.write_text(changed)
        print("build: rendering the notebooks' stored outputs (checked by nbval), not executing them")
    print(f"build: rendering {'every page' if fresh else 'the changed pages'} with Sphinx "
          f"(warnings are errors)", flush=True)
    sphinx_start = time.perf_counter()
    SITE_STAMP.unlink(missing_ok=True)
    try:
        code = run_sphinx(config, fresh)
    finally:
        (ROOT / STORED_CONFIG).unlink(missing_ok=True)
    if code != 0:
        print(f"build: FAILED after {time.perf_counter() - start:.0f} s (see the warnings above; notebook "
              f"errors are in _build/html/reports/)", file=sys.stderr)
        return code
    sync_extra_files()
    trim_site()
    SITE_STAMP.write_text(json.dumps({**wanted, EVERY_PAGE: fresh}, indent=1))
    print(f"build: done in {time.perf_counter() - start:.0f} s (Sphinx {time.perf_counter() - sphinx_start:.0f} s)")
    print(f"build: open {HTML / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
