"""Measure every speed figure of issue 14 in one run, each beside its goal; write ``_build/bench.json``.

    python tools/bench.py                 # what `make bench` runs (about 5-10 minutes)
    python tools/bench.py --ref 1f50b86   # the same figures for an older commit (a baseline)
    python tools/bench.py --skip ci,test  # leave out the slowest figures

Everything is measured on a clone of the repository (its committed state, at ``--ref`` or HEAD)
in a temporary folder, so the working tree is never touched:

1. ``make book`` in the fresh clone: creates the venv, installs the pins, executes, builds;
2. ``make book`` again, nothing changed: the incremental rebuild;
3. ``make clean`` then ``make book``: a cold build with the venv present;
4. ``make test`` in that clone;
5. ``bash .ci/run`` (CI=true) in a second fresh clone: what CI does;
6. the library's figures, from ``tools/bench_lib.py`` (its ``run()``) when the clone has one;
7. what a first visit to a page transfers (HTML, JS, CSS, fonts, images), gzipped as a static
   host serves text, measured in headless Chromium on the built site of step 3: the
   introduction and the heaviest section page.

Beside each timing are the load averages before and after it and the CPU seconds the command
used (user + system, all its processes): a wall time far above its CPU time / 2 cores on a
loaded machine was disturbed, and ``--repeat`` runs the fast figures several times. The machine's
package caches are used as they are (the uv and pip caches are warm on a developer's machine);
``cache`` in the output says which installer ran. The machine's own speed, on a fixed workload, is timed at
the start and the end (``machine_speed`` in the JSON): this machine's speed moves by a fifth from one hour
to the next, and two runs of the bench compare only alongside it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "_build" / "bench.json"

# Goals of issue 14 (seconds, or bytes); every figure is "lower is better" unless bench_lib says otherwise.
GOALS = {
    "book_fresh_clone_s": 90.0,
    "book_unchanged_s": 3.0,
    "book_cold_venv_s": 60.0,
    "make_test_s": 120.0,
    "ci_fresh_clone_s": 240.0,
}
TEXT_TYPES = ("text/", "javascript", "json", "xml", "svg", "css")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV", "SCALINGLIB_FRAME_CACHE")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT / ".venv")))
    return env


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(name: str, cmd: list[str], cwd: Path, log: Path, *, env: dict | None = None) -> dict:
    """Run ``cmd``, its output to ``log``; return the figure with wall time, CPU time and load."""
    print(f"bench: {name}: {' '.join(cmd)} (in {cwd}) ...", flush=True)
    load0, cpu0, t0 = os.getloadavg(), _cpu(), time.perf_counter()
    with open(log, "ab") as out:
        out.write(f"\n===== {name}: {' '.join(cmd)}\n".encode())
        out.flush()
        result = subprocess.run(cmd, cwd=cwd, env=env or _env(), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    wall, cpu, load1 = time.perf_counter() - t0, _cpu() - cpu0, os.getloadavg()
    figure = {"name": name, "value": round(wall, 2), "unit": "s", "goal": GOALS.get(name),
              "cpu_s": round(cpu, 1), "load_before": [round(x, 2) for x in load0],
              "load_after": [round(x, 2) for x in load1], "exit": result.returncode}
    _judge(figure)
    state = "ok" if figure["ok"] else "OVER GOAL"
    if result.returncode:
        state = f"FAILED (exit {result.returncode}, see {log})"
    print(f"bench: {name}: {wall:.1f} s (goal {figure['goal']}; cpu {cpu:.0f} s; load {load0[0]:.2f} -> "
          f"{load1[0]:.2f}) {state}", flush=True)
    return figure


def _judge(figure: dict) -> None:
    goal = figure.get("goal")
    if goal:
        figure["ratio"] = round(figure["value"] / goal, 3)
        figure["ok"] = figure["value"] <= goal and figure.get("exit", 0) == 0
    else:
        figure["ratio"], figure["ok"] = None, figure.get("exit", 0) == 0


def clone(ref: str, dest: Path) -> None:
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "--quiet", ref], cwd=dest, check=True)


def installer_note() -> str:
    uv = shutil.which("uv", path=_env()["PATH"])
    return f"uv on PATH ({uv})" if uv else "no uv on PATH"


# ---------------------------------------------------------------- page transfer

def _gzipped(body: bytes, content_type: str) -> int:
    if any(t in content_type for t in TEXT_TYPES):
        return len(gzip.compress(body, compresslevel=6))
    return len(body)


def _kind(url: str, content_type: str) -> str:
    path = url.split("?")[0].split("#")[0].lower()
    if path.endswith((".woff", ".woff2", ".ttf", ".eot", ".otf")) or "font" in content_type:
        return "font"
    if path.endswith(".css") or "css" in content_type:
        return "css"
    if path.endswith((".js", ".mjs")) or "javascript" in content_type:
        return "js"
    if path.endswith((".png", ".svg", ".jpg", ".gif", ".ico")) or content_type.startswith("image/"):
        return "image"
    if path.endswith((".html", "/")) or "html" in content_type:
        return "html"
    return "other"


def page_transfers(site: Path, pages: list[str]) -> dict:
    """First visit (empty cache) of each page in headless Chromium: bytes per kind, raw and gzipped."""
    import functools
    import http.server
    import threading

    executable = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        return {"skipped": "no Chromium on this machine"}
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "playwright is not installed"}

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    report = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=executable, args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"])
            for name in pages:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                files: dict[str, dict] = {}

                def on_response(response, files=files):
                    if not response.url.startswith(origin) or response.status >= 300:
                        return
                    try:
                        body = response.body()
                    except Exception:
                        return
                    ctype = response.headers.get("content-type", "")
                    files[response.url[len(origin):]] = {
                        "kind": _kind(response.url, ctype), "bytes": len(body),
                        "gzip_bytes": _gzipped(body, ctype)}

                page.on("response", on_response)
                page.goto(f"{origin}/{name}", wait_until="load")
                page.wait_for_load_state("networkidle")
                page.wait_for_timeout(1500)   # MathJax fonts and the widget manager's lazy parts
                page.wait_for_load_state("networkidle")
                context.close()
                kinds: dict[str, dict] = {}
                for f in files.values():
                    k = kinds.setdefault(f["kind"], {"files": 0, "bytes": 0, "gzip_bytes": 0})
                    k["files"] += 1
                    k["bytes"] += f["bytes"]
                    k["gzip_bytes"] += f["gzip_bytes"]
                report[name] = {"files": len(files), "bytes": sum(f["bytes"] for f in files.values()),
                                "gzip_bytes": sum(f["gzip_bytes"] for f in files.values()),
                                "by_kind": kinds, "largest": sorted(
                                    ({"path": p, **f} for p, f in files.items()),
                                    key=lambda f: -f["gzip_bytes"])[:12]}
            browser.close()
    finally:
        server.shutdown()
    return report


def transfer_figures(site: Path) -> tuple[list[dict], dict]:
    import yaml

    toc = yaml.safe_load((site.parent.parent / "_toc.yml").read_text())
    intro = toc["root"] + ".html"
    sections = [ch["file"] + ".html" for ch in toc.get("chapters", []) if "/03-0" in ch["file"]
                or ch["file"].startswith("03-0")]
    sections = [s for s in sections if not s.endswith("00-introduction.html")]
    print(f"bench: page transfers: {intro} and {len(sections)} section pages in Chromium ...", flush=True)
    report = page_transfers(site, [intro] + sections)
    if "skipped" in report:
        print(f"bench: page transfers skipped: {report['skipped']}")
        return [], report
    heaviest = max(sections, key=lambda s: report[s]["gzip_bytes"])
    figures = []
    for label, name in (("intro", intro), ("heaviest_section", heaviest)):
        r = report[name]
        figure = {"name": f"page_{label}_transfer_gzip_kB", "value": round(r["gzip_bytes"] / 1e3, 1),
                  "unit": "kB", "goal": None, "page": name, "raw_kB": round(r["bytes"] / 1e3, 1),
                  "files": r["files"],
                  "by_kind_gzip_kB": {k: round(v["gzip_bytes"] / 1e3, 1) for k, v in r["by_kind"].items()}}
        _judge(figure)
        kinds = ", ".join(f"{k} {v}" for k, v in figure["by_kind_gzip_kB"].items())
        print(f"bench: first visit of {name}: {figure['value']} kB gzipped ({figure['raw_kB']} kB raw, "
              f"{r['files']} files: {kinds})")
        figures.append(figure)
    return figures, report


# ---------------------------------------------------------------- library

def library_figures(clone_dir: Path) -> tuple[list[dict], str | None]:
    script = clone_dir / "tools" / "bench_lib.py"
    if not script.exists():
        return [], "tools/bench_lib.py is absent at this ref: no library figures"
    code = ("import json, sys; sys.path.insert(0, 'tools'); import bench_lib; "
            "print('BENCH_JSON' + json.dumps(bench_lib.run()))")
    print("bench: library figures (tools/bench_lib.py) ...", flush=True)
    result = subprocess.run([str(clone_dir / ".venv" / "bin" / "python"), "-c", code], cwd=clone_dir,
                            env=_env(), capture_output=True, text=True)
    line = next((ln for ln in result.stdout.splitlines() if ln.startswith("BENCH_JSON")), None)
    if result.returncode or line is None:
        return [], f"tools/bench_lib.py failed: {result.stderr[-1500:]}"
    figures = json.loads(line[len("BENCH_JSON"):])
    for f in figures:
        f["name"] = "lib_" + f["name"] if not str(f["name"]).startswith("lib_") else f["name"]
        if "ratio" not in f and f.get("goal"):
            try:
                f["ratio"] = round(float(f["value"]) / float(f["goal"]), 3)
            except (TypeError, ValueError, ZeroDivisionError):
                f["ratio"] = None
        print(f"bench: {f['name']}: {f.get('value')} {f.get('unit', '')} (goal {f.get('goal')}) "
              f"{'ok' if f.get('ok') else 'OVER GOAL'}")
    return figures, None


# ---------------------------------------------------------------- main

def machine_speed() -> dict:
    """The machine's speed now, on a fixed workload the book does not change: the best of 15 runs of the
    strong_time formula on 1e6 floats (written in place) and of a Python loop of 1e6 additions.
    Timed at the start and the end of a bench, it says how fast the machine ran, so that two bench.json files
    can be compared: the same code measured in a slower hour gives slower figures."""
    import numpy as np

    x = np.arange(1.0, 1_000_001.0)
    a, b = np.empty_like(x), np.empty_like(x)     # written in place: no allocation in the timing
    best_np = best_py = math.inf
    for _ in range(15):
        start = time.process_time()
        np.divide(0.95, x, out=a)
        a += 0.05
        np.log2(x, out=b)
        b *= 0.01
        a += b
        best_np = min(best_np, time.process_time() - start)
        start = time.process_time()
        total = 0
        for i in range(1_000_000):
            total += i
        best_py = min(best_py, time.process_time() - start)
    return {"numpy_expression_ms": round(1e3 * best_np, 3), "python_loop_ms": round(1e3 * best_py, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="HEAD", help="commit to measure (default: HEAD of this checkout)")
    parser.add_argument("--skip", default="", help="comma-separated: fresh,unchanged,cold,test,ci,lib,pages")
    parser.add_argument("--repeat", type=int, default=1, help="runs of the unchanged rebuild (best kept)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--keep", action="store_true", help="keep the temporary clones")
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}

    commit = subprocess.run(["git", "rev-parse", args.ref], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    if args.ref == "HEAD" and dirty:
        print("bench: note: the working tree has uncommitted changes; the bench measures the last commit")
    tmp = Path(tempfile.mkdtemp(prefix="scalability-bench-"))
    log = tmp / "bench.log"
    print(f"bench: measuring {commit[:10]} in {tmp} (command output in {log})")
    figures: list[dict] = []
    notes: list[str] = [installer_note()]
    pages: dict = {}
    started = time.perf_counter()
    machine = {"start": machine_speed()}
    print(f"bench: machine speed at the start: {machine['start']}")
    try:
        work = tmp / "clone"
        clone(commit, work)
        if "fresh" not in skip:
            figures.append(timed("book_fresh_clone_s", ["make", "book"], work, log))
        else:
            subprocess.run(["make", "book"], cwd=work, env=_env(), stdout=subprocess.DEVNULL, check=False)
        if "unchanged" not in skip:
            runs = [timed("book_unchanged_s", ["make", "book"], work, log) for _ in range(max(1, args.repeat))]
            best = min(runs, key=lambda f: f["value"])
            best["runs_s"] = [f["value"] for f in runs]
            figures.append(best)
        if "cold" not in skip:
            subprocess.run(["make", "clean"], cwd=work, env=_env(), stdout=subprocess.DEVNULL, check=True)
            figures.append(timed("book_cold_venv_s", ["make", "book"], work, log))
        if "pages" not in skip and (work / "_build" / "html" / "index.html").exists():
            page_figures, pages = transfer_figures(work / "_build" / "html")
            figures.extend(page_figures)
        if "lib" not in skip:
            lib, note = library_figures(work)
            figures.extend(lib)
            if note:
                print(f"bench: {note}")
                notes.append(note)
        if "test" not in skip:
            figures.append(timed("make_test_s", ["make", "test"], work, log))
        if "ci" not in skip:
            ci = tmp / "ci"
            clone(commit, ci)
            env = _env()
            env["CI"] = "true"
            figures.append(timed("ci_fresh_clone_s", ["bash", ".ci/run"], ci, log, env=env))
    finally:
        machine["end"] = machine_speed()
        print(f"bench: machine speed at the end: {machine['end']}")
        result = {
            "when": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": commit, "ref": args.ref, "host": platform.node(), "cores": os.cpu_count(),
            "python": platform.python_version(), "bench_wall_s": round(time.perf_counter() - started, 1),
            "notes": notes, "machine_speed": machine, "figures": figures, "page_transfers": pages, "log": str(log),
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
        if not args.keep:
            shutil.copy2(log, args.out.with_suffix(".log")) if log.exists() else None
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"{'figure':44} {'value':>10} {'goal':>8} {'ratio':>7} {'cpu s':>6}  load(1m) before/after")
    for f in figures:
        goal = f.get("goal")
        goal = "" if goal is None else goal if isinstance(goal, str) else f"{goal:g}"
        ratio = "" if f.get("ratio") is None else f"{f['ratio']:.2f}"
        load = (f"{f['load_before'][0]:.2f}/{f['load_after'][0]:.2f}" if "load_before" in f else "")
        cpu = f"{f['cpu_s']:.0f}" if "cpu_s" in f else ""
        flag = "" if f.get("ok") else "  <- not met"
        unit = f.get("unit", "")
        unit = "x" if unit.startswith("x ") else unit.split(" ")[0]          # "x raw numpy", "us per call"
        print(f"{f['name'][:44]:44} {f.get('value')!s:>8} {unit:>2} {goal:>7} {ratio:>7} {cpu:>6}  {load}{flag}")
    print(f"bench: wrote {args.out}")
    return 0 if all(f.get("exit", 0) == 0 for f in figures) else 1


if __name__ == "__main__":
    sys.exit(main())
