"""Grade a class: a folder of submitted section notebooks into a CSV gradebook and one feedback file each.

    make grade SUBMISSIONS=folder [GRADES=grades] [TIMEOUT=120]
    python tools/grade.py folder --out grades --timeout 120

For every ``*.ipynb`` in the folder (one per student; any file name):

1. The notebook runs in a kernel of its own, in a subprocess of its own, in a scratch folder: each cell
   may take ``--cell-timeout`` seconds (then the kernel is interrupted and the next cell runs) and the
   whole notebook ``--timeout`` seconds (then the subprocess is ended). A cell that raises is recorded
   and the next cell runs; nothing a submission does stops the batch.
2. Answers are read from the answers themselves, not from what the check calls printed. The answer cell
   of an exercise is the first code cell after the exercise's ``{exercise}`` block. Which variable holds
   which part comes from the book's own notebook (the cell the students were given): for example
   ``answer_c`` for ``ex-3-1-1c``. Right after a submission's answer cell has run, the grader reads
   those variables in the kernel; an edited, deleted or redefined ``check`` changes nothing.
3. The grading process checks each answer with the book's full checker (same rules, units and
   tolerances as the students saw). A part scores 1 when right and 0 otherwise; a part whose cell is
   missing, never ran, or left ``...`` scores 0.

Outputs: ``OUT/gradebook.csv`` (one row per submission, one column per exercise part, the total, the
maximum and the problems met) and ``OUT/feedback/<submission>.txt`` (each part's verdict with its hint,
and any error). Student code runs with your permissions: grade in a container or as an unprivileged user.

Why not otter-grader or nbgrader: both need the assignment authored in their own format (otter's
question and test files, nbgrader's cell metadata and gradebook database), while the book's exercises
already carry their checker, keyed by part. This is a thin layer over nbclient (which both of them use
to execute notebooks) that reuses that checker, so a student's verdict and grade cannot disagree.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import re
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


# --- one submission, in a subprocess ------------------------------------------------------------------


def _decode(value):
    if isinstance(value, dict):
        if value.get("__ellipsis__"):
            return ...
        if "__float__" in value:
            return float(value["__float__"])
        if "__missing__" in value:
            return None
        return f"<{value.get('__repr__', 'an object')}>"
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def run_one(path: Path, out: Path, budget: float, cell_timeout: float, templates: dict) -> None:
    """Execute ``path`` cell by cell, snapshotting each exercise's answer expressions; write ``out`` as it goes."""
    from nbclient import NotebookClient
    from nbclient.exceptions import DeadKernelError

    result: dict = {"answers": {}, "errors": [], "ran": 0}

    def save():
        out.write_text(json.dumps(result))

    save()
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001  (an unreadable file is graded as empty)
        result["errors"].append(f"could not read the notebook ({type(exc).__name__}: {exc})"[:300])
        save()
        return
    answer_cells = {index: label for label, index in _answer_cells(nb).items() if label in templates}
    scratch = Path(tempfile.mkdtemp(prefix="grade-"))
    client = NotebookClient(
        nb, timeout=int(cell_timeout), kernel_name="python3", allow_errors=True, interrupt_on_timeout=True,
        error_on_timeout={"ename": "TimeoutError", "evalue": f"a cell ran longer than {cell_timeout:g} s",
                          "traceback": []},
        resources={"metadata": {"path": str(scratch)}}, record_timing=False,
    )
    started = time.monotonic()
    os.environ.setdefault("MPLBACKEND", "Agg")          # the kernel inherits it: figures draw off screen
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
            result["ran"] += 1
            if time.monotonic() - t0 >= cell_timeout:
                result["errors"].append(f"cell {index}: ran longer than {cell_timeout:g} s and was interrupted")
            else:
                for output in cell.get("outputs", []):
                    if output.get("output_type") == "error":
                        result["errors"].append(f"cell {index}: {output.get('ename')}: {output.get('evalue', '')}"[:300])
            if index in answer_cells:
                label = answer_cells[index]
                snap = run_extra(f"__grade_snapshot({sorted(set(templates[label].values()))!r})")
                text = "".join(o.get("text", "") for o in snap.outputs if o.get("output_type") == "stream")
                found = re.search(r"__GRADE__(.*)", text)
                values = json.loads(found.group(1)) if found else {}
                for key, expr in templates[label].items():
                    result["answers"][key] = values.get(expr, {"__missing__": "snapshot"})
            save()
    save()


# --- the batch --------------------------------------------------------------------------------------


def grade_submission(path: Path, budget: float, cell_timeout: float, templates_file: Path) -> dict:
    """Run one submission in a subprocess (ended after the budget) and grade what it showed."""
    from scalinglib.exercises import check

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, __file__, "--one", str(path), "--result", str(out), "--timeout", str(budget),
               "--cell-timeout", str(cell_timeout), "--templates", str(templates_file)]
        errors = []
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=budget + 60)
            if proc.returncode != 0:
                errors.append("the grader's runner failed: " + proc.stderr.strip().splitlines()[-1][:200]
                              if proc.stderr.strip() else f"the grader's runner exited {proc.returncode}")
        except subprocess.TimeoutExpired:
            errors.append(f"ended after {budget + 60:g} s")
        result = json.loads(out.read_text()) if out.exists() and out.read_text() else {"answers": {}, "errors": []}
    answers = {key: _decode(value) for key, value in result["answers"].items()}
    verdicts = {key: check(key, value) for key, value in answers.items()}
    return {"verdicts": verdicts, "errors": result["errors"] + errors}


def grade(folder: Path, out: Path, budget: float = 120.0, cell_timeout: float = 30.0, jobs: int = 2) -> Path:
    """Grade every notebook of ``folder`` into ``out``/gradebook.csv and ``out``/feedback/; returns the CSV.

    ``jobs`` submissions run at once, each in its own subprocess and kernel."""
    from concurrent.futures import ThreadPoolExecutor

    from scalinglib.exercises import registered_keys

    templates = book_templates()
    submissions = sorted(folder.glob("*.ipynb"))
    if not submissions:
        raise SystemExit(f"no .ipynb files in {folder}")
    graded = {}
    with tempfile.TemporaryDirectory() as tmp:
        templates_file = Path(tmp) / "templates.json"
        templates_file.write_text(json.dumps(templates))

        def one(path: Path) -> tuple[Path, dict, float]:
            t0 = time.monotonic()
            return path, grade_submission(path, budget, cell_timeout, templates_file), time.monotonic() - t0

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for path, result, seconds in pool.map(one, submissions):
                graded[path] = result
                problems = f" ({len(result['errors'])} problems)" if result["errors"] else ""
                print(f"grade: {path.name}: {sum(v.correct for v in result['verdicts'].values())} parts right"
                      f"{problems}, {seconds:.1f} s", flush=True)
    # columns: every part of every exercise that some submission holds, in the book's order
    labels = {key[:-1] for g in graded.values() for key in g["verdicts"]}
    labels |= {label for path in submissions for label in _labels_in(path) if label in templates}
    parts = [k for k in registered_keys() if any(k in templates.get(label, {}) for label in labels)]
    out.mkdir(parents=True, exist_ok=True)
    (out / "feedback").mkdir(exist_ok=True)
    csv_path = out / "gradebook.csv"
    with csv_path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["submission", *parts, "total", "max", "problems"])
        for path, g in graded.items():
            scores = [int(bool(g["verdicts"].get(k)) and g["verdicts"][k].correct) for k in parts]
            writer.writerow([path.name, *scores, sum(scores), len(parts), " | ".join(g["errors"])[:500]])
            (out / "feedback" / f"{path.stem}.txt").write_text(_feedback(path, parts, g, sum(scores)))
    return csv_path


def _labels_in(path: Path) -> set[str]:
    try:
        nb = nbformat.read(path, as_version=4)
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
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--templates", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        templates = json.loads(args.templates.read_text()) if args.templates else book_templates()
        run_one(args.one, args.result, args.timeout, min(args.cell_timeout, args.timeout), templates)
        return 0
    if args.submissions is None:
        parser.error("give the folder of submissions")
    t0 = time.monotonic()
    csv_path = grade(args.submissions, args.out, args.timeout, args.cell_timeout, args.jobs)
    print(f"grade: wrote {csv_path} and {args.out / 'feedback'}/ in {time.monotonic() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
