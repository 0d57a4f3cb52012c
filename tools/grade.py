"""Grade a class: a folder of submitted section notebooks into a CSV gradebook and one feedback file each.

    make grade SUBMISSIONS=folder [GRADES=grades] [TIMEOUT=120]
    python tools/grade.py folder --out grades --timeout 120

For every ``*.ipynb`` in the folder (one per student; any file name):

1. Every submission is read, and its SHA-256 recorded, before any student code runs. Then each notebook runs
   in a sandbox of its own (``tools/sandbox.py``: bubblewrap, no network, a private file system in which
   only its fresh HOME and /tmp are writable, limits on memory, CPU time, processes and file size); the
   submissions and grades folders are not in it. Inside, the runner (this file, ``--one``) gets the notebook
   on stdin, starts a kernel, runs it cell by cell and reports on stdout; what student code prints is
   counted and dropped. Each cell may take ``--cell-timeout`` seconds (then the kernel is interrupted and the
   next cell runs) and the whole notebook ``--timeout`` seconds (then the sandbox is ended). A cell that
   raises is recorded and the next cell runs; nothing a submission does stops the batch. Where no sandbox
   can be made, the grader refuses, unless ``UNSAFE_NO_SANDBOX=1`` says the code is trusted.
2. Answers are read from the answers themselves, not from what the check calls printed. The answer cell
   of an exercise is the first code cell after the exercise's ``{exercise}`` block. Which variable holds
   which part comes from the book's own notebook (the cell the students were given): for example
   ``answer_c`` for ``ex-3-1-1c``. Right after a submission's answer cell has run, the grader reads
   those variables in the kernel; an edited, deleted or redefined ``check`` changes nothing.
3. The grading process, outside the sandbox, checks each answer with the book's full checker (same rules,
   units and tolerances as the students saw). The runner's report is data the student's code could have
   shaped: it is parsed as JSON, cut to the book's parts and capped in size. A part scores 1 when right and
   0 otherwise; a part whose cell is missing, never ran, or left ``...`` scores 0.

Outputs, written once after every run: ``OUT/gradebook.csv`` (one row per submission: its SHA-256, one
column per exercise part, the total, the maximum, the problems met and the sandbox used) and
``OUT/feedback/<submission>.txt`` (each part's verdict with its hint, and any error). Both are written in a
temporary folder inside ``OUT`` and moved into place whole.

Why not otter-grader or nbgrader: both need the assignment authored in their own format (otter's
question and test files, nbgrader's cell metadata and gradebook database), while the book's exercises
already carry their checker, keyed by part. This is a thin layer over nbclient (which both of them use
to execute notebooks) that reuses that checker, so a student's verdict and grade cannot disagree.
"""

from __future__ import annotations

import argparse
import ast
import csv
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LABEL = re.compile(r"```\{exercise\}[^\n]*\n(?:[^\n]*\n)*?:label:\s*(ex-[\d-]+)")

# Run once in every kernel: a serialiser that turns answers into JSON the grading process can rebuild.
SETUP = r'''
def __grade_value(value, depth=0):
    import math
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    try:
        import numpy as np
        if isinstance(value, np.generic):
            return __grade_value(value.item(), depth)
        if isinstance(value, np.ndarray):
            return __grade_value(value.tolist(), depth)
    except ImportError:
        pass
    if isinstance(value, (list, tuple)) and depth < 4:
        return [__grade_value(v, depth + 1) for v in value]
    return {"__repr__": repr(value)[:200]}

def __grade_snapshot(expressions):
    import json
    out = {}
    for expr in expressions:
        try:
            out[expr] = __grade_value(eval(expr, globals()))
        except Exception as exc:
            out[expr] = {"__missing__": type(exc).__name__}
    print("__GRADE__" + json.dumps(out))
'''


# --- what the students were given: which expression answers which part ---------------------------------


def _answer_map(source: str) -> dict[str, str]:
    """Part key -> expression, from an answer cell: ``check("ex-3-1-2a", ceilings)`` and the loop
    ``for part, answer in zip("abcde", [answer_a, ...]): print(check(f"ex-3-1-1{part}", answer))``."""
    out: dict[str, str] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", "") == "zip":
            args = node.iter.args
            if len(args) == 2 and isinstance(args[0], ast.Constant) and isinstance(args[1], (ast.List, ast.Tuple)):
                letters, exprs = args[0].value, args[1].elts
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "check" and call.args \
                            and isinstance(call.args[0], ast.JoinedStr):
                        prefix = "".join(v.value for v in call.args[0].values if isinstance(v, ast.Constant))
                        for letter, expr in zip(letters, exprs):
                            out[f"{prefix}{letter}"] = ast.unparse(expr)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check" and len(node.args) == 2 \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[1], ast.expr):
            out[node.args[0].value] = ast.unparse(node.args[1])
    return out


def _answer_cells(nb) -> dict[str, int]:
    """Exercise label -> index of its answer cell: the first code cell after its {exercise} block."""
    found: dict[str, int] = {}
    pending: list[str] = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            pending.extend(LABEL.findall(cell.source))
        elif cell.cell_type == "code" and pending:
            for label in pending:
                found[label] = index
            pending = []
    return found


def book_templates() -> dict[str, dict[str, str]]:
    """For every exercise of the book: {part key: expression} from its answer cell as given to students."""
    templates: dict[str, dict[str, str]] = {}
    for path in sorted(BOOK.glob("03-*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for label, index in _answer_cells(nb).items():
            templates[label] = {k: v for k, v in _answer_map(nb.cells[index].source).items() if k.startswith(label)}
    return templates


# --- one submission, inside the sandbox (the runner) ------------------------------------------------------


def _decode(value):
    if isinstance(value, dict):
        if value.get("__ellipsis__"):
            return ...
        if "__float__" in value:
            try:
                return float(value["__float__"])
            except (TypeError, ValueError):
                return None
        if "__missing__" in value:
            return None
        return f"<{str(value.get('__repr__', 'an object'))[:200]}>"
    if isinstance(value, list):
        return [_decode(v) for v in value[:10_000]]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value[:10_000] if isinstance(value, str) else value
    return None


def _client(nb, cell_timeout: float, output_cap: int, first_own: int, notes: list[str]):
    """An nbclient client that keeps only what grading reads: error names and the grader's own cells' output.

    What the student's cells print is counted and dropped (a flood costs the runner no memory); past
    ``output_cap`` bytes a note says so once."""
    from nbclient import NotebookClient

    class Client(NotebookClient):
        printed = 0
        kept = 0

        def output(self, outs, msg, display_id, cell_index):
            content = msg.get("content") or {}
            size = sum(len(str(v)) for v in content.values())
            if cell_index < first_own:
                self.printed += size
                if self.printed > output_cap and not notes:
                    notes.append(f"cell {cell_index}: the notebook's output passed {output_cap // 2**20} MB; "
                                 "the rest was dropped")
                if msg["msg_type"] != "error":
                    return None
                content["traceback"] = []
                content["evalue"] = str(content.get("evalue", ""))[:300]
            elif self.kept + size > output_cap:
                return None
            self.kept += size
            return super().output(outs, msg, display_id, cell_index)

    return Client(
        nb, timeout=int(cell_timeout), kernel_name="python3", allow_errors=True, interrupt_on_timeout=True,
        error_on_timeout={"ename": "TimeoutError", "evalue": f"a cell ran longer than {cell_timeout:g} s",
                          "traceback": []},
        resources={"metadata": {"path": os.getcwd()}}, record_timing=False, store_widget_state=False,
    )


def run_one(job: dict, emit, result: dict) -> None:
    """Execute the notebook text of ``job`` cell by cell, snapshotting each exercise's answer expressions into
    ``result``; ``emit(result)`` after each cell (the grader keeps the last one it gets)."""
    from nbclient.exceptions import DeadKernelError

    templates, budget, cell_timeout = job["templates"], job["budget"], min(job["cell_timeout"], job["budget"])
    emit(result)
    try:
        nb = nbformat.reads(job["notebook"], as_version=4)
    except Exception as exc:  # noqa: BLE001  (an unreadable file is graded as empty)
        result["errors"].append(f"could not read the notebook ({type(exc).__name__}: {exc})"[:300])
        result["done"] = True
        emit(result)
        return
    answer_cells = {index: label for label, index in _answer_cells(nb).items() if label in templates}
    notes: list[str] = []
    client = _client(nb, cell_timeout, job["output_cap"], len(nb.cells), notes)
    started = time.monotonic()

    def run_extra(source: str):
        """Run code of the grader's own (nbclient stores each executed cell back at its index: use a new one)."""
        cell = nbformat.v4.new_code_cell(source)
        nb.cells.append(cell)
        try:
            client.execute_cell(cell, len(nb.cells) - 1)
        finally:
            nb.cells.pop()
        return cell

    with client.setup_kernel():
        run_extra(SETUP)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            if time.monotonic() - started > budget:
                result["errors"].append(f"stopped at cell {index}: the notebook ran longer than {budget:g} s")
                break
            t0 = time.monotonic()
            try:
                client.execute_cell(cell, index)
            except DeadKernelError:
                result["errors"].append(f"cell {index}: the kernel died")
                break
            except Exception as exc:  # noqa: BLE001  (a kernel the notebook broke: keep what was graded)
                result["errors"].append(f"cell {index}: the kernel stopped answering ({type(exc).__name__}: {exc})"[:300])
                break
            result["ran"] += 1
            if time.monotonic() - t0 >= cell_timeout:
                result["errors"].append(f"cell {index}: ran longer than {cell_timeout:g} s and was interrupted")
            else:
                for output in cell.get("outputs", []):
                    if output.get("output_type") == "error":
                        result["errors"].append(f"cell {index}: {output.get('ename')}: {output.get('evalue', '')}"[:300])
            cell.outputs = []
            if index in answer_cells:
                label = answer_cells[index]
                snap = run_extra(f"__grade_snapshot({sorted(set(templates[label].values()))!r})")
                text = "".join(o.get("text", "") for o in snap.outputs if o.get("output_type") == "stream")
                found = re.search(r"__GRADE__(.*)", text)
                try:
                    values = json.loads(found.group(1)) if found else {}
                except ValueError:
                    values = {}
                for key, expr in templates[label].items():
                    result["answers"][key] = values.get(expr, {"__missing__": "snapshot"})
            emit({**result, "errors": result["errors"] + notes})
    result["errors"] += notes
    result["done"] = True
    emit(result)


def runner_main() -> int:
    """``grade.py --one``: read the job (JSON) on stdin, run it, report on stdout; run by the grader in the sandbox.

    Before any student code: drop to the sandbox's own uid when started as root, set the resource limits, and
    give the kernel /dev/null as stdin, stdout and stderr (the report goes on a private copy of stdout)."""
    import sandbox

    report = os.fdopen(os.dup(1), "w")              # not inherited by the kernel
    job = json.loads(sys.stdin.read())
    if job.get("uid") is not None:
        sandbox.drop_to(job["uid"])
    for name, text in job.get("files", {}).items():        # into the sandbox's HOME (the working folder)
        path = Path.cwd() / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sandbox.set_limits(job["budget"], processes=job["sandboxed"])
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)

    def emit(result: dict) -> None:
        report.write(json.dumps(result) + "\n")
        report.flush()

    result: dict = {"answers": {}, "errors": [], "ran": 0, "done": False}
    try:
        run_one(job, emit, result)
    except Exception as exc:  # noqa: BLE001  (reported to the grader, which records it; the answers read stay)
        result["errors"].append(f"the grader's runner failed: {type(exc).__name__}: {exc}"[:300])
        emit({**result, "failed": True})
        return 1
    return 0


# --- the batch (outside the sandbox) ----------------------------------------------------------------------

UNSAFE = "UNSAFE_NO_SANDBOX"
_COUNTER = itertools.count()     # names of the cgroups of this grader
_RUNNING: set = set()            # the sandboxes running now (ended at once if the grader is interrupted)
MAX_NOTEBOOK = 20 * 2**20        # a larger submission is not run


def _trusted_result(line: bytes, templates: dict) -> dict | None:
    """The runner's report, which student code could have forged: JSON, the book's parts only, sizes capped."""
    try:
        raw = json.loads(line)
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    keys = {k for parts in templates.values() for k in parts}
    answers = raw.get("answers") if isinstance(raw.get("answers"), dict) else {}
    errors = raw.get("errors") if isinstance(raw.get("errors"), list) else []
    return {"answers": {k: v for k, v in answers.items() if k in keys},
            "errors": [str(e)[:300] for e in errors[:50]], "done": raw.get("done") is True,
            "failed": raw.get("failed") is True}


def run_submission(text: str, job: dict, bwrap: str | None) -> dict:
    """Run one submission's notebook text in a fresh sandbox (or, unsafe, a plain subprocess); its answers and
    problems. Ended at the notebook's budget plus a margin; its report is read with a size cap."""
    import threading

    from sandbox import CGROUP_LIMITS, LIMITS, Cgroup, bwrap_command, fresh_uid

    job = {**job, "notebook": text, "sandboxed": bwrap is not None,
           "uid": fresh_uid() if bwrap and os.geteuid() == 0 else None}
    python = Path(sys.executable)
    argv = [str(Path(__file__).resolve()), "--one"]
    deadline = job["budget"] + job["cell_timeout"] + 30
    cgroup = Cgroup.make(f"scalinglib-grade-{os.getpid()}-{next(_COUNTER)}") if bwrap else None
    with tempfile.TemporaryDirectory(prefix="grade-") as scratch:
        cmd = bwrap_command(bwrap, python, argv) if bwrap else [str(python), *argv]
        cmd = cgroup.wrap(cmd) if cgroup else cmd
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                cwd=scratch, start_new_session=True)
        _RUNNING.add(proc)
        ended = []

        def end(why: str) -> None:
            ended.append(why)
            try:
                os.killpg(proc.pid, signal.SIGKILL)     # bwrap, and with it (--die-with-parent) the sandbox
            except ProcessLookupError:
                pass

        def feed() -> None:
            try:
                proc.stdin.write(json.dumps(job).encode())
                proc.stdin.close()
            except OSError:
                pass

        threading.Thread(target=feed, daemon=True).start()
        timer = threading.Timer(deadline, end, [f"ended after {deadline:g} s"])
        timer.start()
        last, read = None, 0
        try:
            while line := proc.stdout.readline(LIMITS["result"] + 1):
                read += len(line)
                if read > LIMITS["result"]:
                    end(f"the runner's report passed {LIMITS['result'] // 2**20} MB; ended")
                    break
                if line.endswith(b"\n"):
                    last = line
        finally:
            timer.cancel()
            proc.stdout.close()
            status = proc.wait()
            _RUNNING.discard(proc)
    result = (_trusted_result(last, job["templates"]) if last else None) or {"answers": {}, "errors": [],
                                                                               "done": False, "failed": False}
    errors = result["errors"] + ended
    if cgroup:
        if kills := cgroup.oom_kills():
            errors.append(f"the notebook's processes went past {CGROUP_LIMITS['memory'] // 2**20} MB together: "
                          f"the kernel ended {kills} of them")
        cgroup.remove()
    if not result["done"] and not ended and not result["failed"]:
        errors.append(f"the run ended before the notebook did (exit status {status}): the notebook ended its "
                      "runner, or the runner ran out of memory")
    if not bwrap:
        where = f"none: {UNSAFE}=1, student code ran with the grader's permissions"
    elif cgroup:
        where = (f"bubblewrap ({bwrap}); a cgroup: {CGROUP_LIMITS['memory'] // 2**20} MB and "
                 f"{CGROUP_LIMITS['processes']} processes in all")
    else:
        where = f"bubblewrap ({bwrap}); no cgroup: memory limited per process"
    return {"answers": {key: _decode(value) for key, value in result["answers"].items()}, "errors": errors,
            "sandbox": where}


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def grade(folder: Path, out: Path, budget: float = 120.0, cell_timeout: float = 30.0, jobs: int = 2,
          bwrap: str | None = None) -> Path:
    """Grade every notebook of ``folder`` into ``out``/gradebook.csv and ``out``/feedback/; returns the CSV.

    Every submission is read and hashed first; then each runs in a sandbox of its own (``jobs`` at once); the
    gradebook and feedback are written at the end, each complete before it replaces the previous one.
    Without a sandbox (``bwrap`` given or found does not work) it refuses unless UNSAFE_NO_SANDBOX=1."""
    from concurrent.futures import ThreadPoolExecutor

    import sandbox

    from scalinglib.exercises import check, registered_keys

    folder, out = Path(folder).resolve(), Path(out).resolve()
    paths = sorted(folder.glob("*.ipynb"))
    if not paths:
        raise SystemExit(f"no .ipynb files in {folder}")
    unsafe = os.environ.get(UNSAFE) == "1"
    try:
        bwrap_path = sandbox.find(bwrap)
        overlap = sandbox.protected_overlap([folder, out], Path(sys.executable))
        if overlap:
            raise SystemExit(f"grade: refusing to run: {overlap}; put the submissions and grades elsewhere")
    except sandbox.Unavailable as exc:
        if not unsafe:
            raise SystemExit(
                f"grade: refusing to run the submissions: no sandbox can be made here: {exc}.\n"
                "Without one, student code runs with your permissions: it can read, change or delete your files, "
                "the other submissions and the grades, and reach the network.\n"
                f"Only for code you trust: {UNSAFE}=1 make grade ... (the gradebook records it).") from None
        bwrap_path = None
        print(f"grade: WARNING: no sandbox ({exc}); running the submissions unconfined ({UNSAFE}=1)", flush=True)

    # every submission read (and hashed) before any student code runs
    data = {}
    for path in paths:
        try:
            with path.open("rb") as f:
                data[path] = f.read(MAX_NOTEBOOK + 1)
        except OSError as exc:
            data[path] = exc
    hashes = {path: _sha256(raw) if isinstance(raw, bytes) else "" for path, raw in data.items()}
    templates = book_templates()
    job = {"templates": templates, "budget": budget, "cell_timeout": cell_timeout,
           "output_cap": sandbox.LIMITS["output"], "files": sandbox.home_files() if bwrap_path else {}}

    def one(path: Path) -> tuple[Path, dict, float]:
        t0 = time.monotonic()
        raw = data[path]
        if isinstance(raw, OSError):
            ran = {"answers": {}, "errors": [f"could not read the notebook ({type(raw).__name__}: {raw})"[:300]],
                   "sandbox": "not run"}
        elif len(raw) > MAX_NOTEBOOK:
            ran = {"answers": {}, "errors": [f"not run: larger than {MAX_NOTEBOOK // 2**20} MB"], "sandbox": "not run"}
        else:
            ran = run_submission(raw.decode("utf-8", "replace"), job, bwrap_path)
        ran["verdicts"] = {key: check(key, value) for key, value in ran.pop("answers").items()}
        return path, ran, time.monotonic() - t0

    graded = {}
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        for path, result, seconds in pool.map(one, paths):
            graded[path] = result
            problems = f" ({len(result['errors'])} problems)" if result["errors"] else ""
            print(f"grade: {path.name}: {sum(v.correct for v in result['verdicts'].values())} parts right"
                  f"{problems}, {seconds:.1f} s", flush=True)
    except BaseException:              # interrupted (Ctrl-C): end every sandbox now, write nothing
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(_RUNNING):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        raise
    pool.shutdown()
    for path in paths:       # what was graded is what was read: say so if the file changed meanwhile
        try:
            now = _sha256(path.read_bytes())
        except OSError:
            now = ""
        if hashes[path] and now != hashes[path]:
            graded[path]["errors"].append("the file changed while the class was graded; graded as first read")
    # columns: every part of every exercise that some submission holds, in the book's order
    labels = {key[:-1] for g in graded.values() for key in g["verdicts"]}
    labels |= {label for raw in data.values() for label in _labels_in(raw) if label in templates}
    parts = [k for k in registered_keys() if any(k in templates.get(label, {}) for label in labels)]
    rows, feedback = [], {}
    for path, g in graded.items():
        scores = [int(bool(g["verdicts"].get(k)) and g["verdicts"][k].correct) for k in parts]
        rows.append([path.name, hashes[path], *scores, sum(scores), len(parts), " | ".join(g["errors"])[:500], g["sandbox"]])
        feedback[f"{path.stem}.txt"] = _feedback(path, parts, g, sum(scores))
    return _write_results(out, ["submission", "sha256", *parts, "total", "max", "problems", "sandbox"], rows,
                          feedback)


def _write_results(out: Path, header: list[str], rows: list[list], feedback: dict[str, str]) -> Path:
    """Write the gradebook and the feedback folder beside the old ones, then move each into place whole."""
    import io
    import shutil

    out.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".grading-", dir=out))
    try:
        (stage / "feedback").mkdir()
        for name, text in feedback.items():
            (stage / "feedback" / name).write_text(text)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(header)
        writer.writerows(rows)
        (stage / "gradebook.csv").write_text(buffer.getvalue())
        if (out / "feedback").exists():
            (out / "feedback").rename(stage / "feedback.old")
        (stage / "feedback").rename(out / "feedback")
        os.replace(stage / "gradebook.csv", out / "gradebook.csv")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return out / "gradebook.csv"


def _labels_in(raw) -> set[str]:
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except Exception:  # noqa: BLE001
        return set()
    return {label for cell in nb.cells if cell.cell_type == "markdown" for label in LABEL.findall(cell.source)}


def _feedback(path: Path, parts: list[str], g: dict, total: int) -> str:
    lines = [f"Feedback on {path.name}: {total} of {len(parts)} parts right.", ""]
    for key in parts:
        fb = g["verdicts"].get(key)
        lines.append(fb.text() if fb is not None else f"… {key}: no answer found (the answer cell is missing or "
                                                      "did not run)")
    if g["errors"]:
        lines += ["", "Problems while running the notebook:", *(f"- {e}" for e in g["errors"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submissions", nargs="?", type=Path, help="folder of submitted notebooks")
    parser.add_argument("--out", type=Path, default=Path("grades"), help="where the gradebook and feedback go")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a whole notebook may run")
    parser.add_argument("--cell-timeout", type=float, default=30.0, help="seconds one cell may run")
    parser.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return runner_main()
    if args.submissions is None:
        parser.error("give the folder of submissions")
    t0 = time.monotonic()
    csv_path = grade(args.submissions, args.out, args.timeout, args.cell_timeout, args.jobs)
    print(f"grade: wrote {csv_path} and {args.out / 'feedback'}/ in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
