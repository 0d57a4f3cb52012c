"""Build the student edition: the book without solutions, as HTML and as notebooks, in one zip.

    python tools/student.py        # what `make student` runs

1. Every notebook of book/ is copied with each gated solution removed: the cells from the one that
   opens a ``{solution-start}`` block to the one that closes it with ``{solution-end}``, inclusive.
   Answer cells keep their ``...`` placeholders (the tool refuses a notebook whose answer cell
   already holds an answer).
2. The site is built from those notebooks (warnings as errors) into ``_build/student/html``.
3. ``dist/scalability-by-the-numbers-student.zip`` gets ``html/`` (open ``html/index.html``),
   ``notebooks/``, the ``scalinglib`` library with ``pyproject.toml`` and ``requirements.txt`` so the
   notebooks run, and a README saying how.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "_build" / "student"
SRC = WORK / "src"
DIST = ROOT / "dist"
ZIP = DIST / "scalability-by-the-numbers-student.zip"

SOLUTION_START = re.compile(r"^\s*```\{solution-start\}", re.MULTILINE)
SOLUTION_END = re.compile(r"^\s*```\{solution-end\}", re.MULTILINE)
SOLUTION_END_BLOCK = re.compile(r"^\s*```\{solution-end\}[^\n]*\n(?:\s*\n)*```[ \t]*$", re.MULTILINE)
PLACEHOLDER = re.compile(r"=\s*\.\.\.|\[\s*\.\.\.|,\s*\.\.\.")

README = """\
Scalability by the numbers: student edition
===========================================

html/index.html      the book, without solutions: open it in a browser (no server or network needed)
notebooks/           the same sections as Jupyter notebooks, with empty answer cells

To run the notebooks (Python 3.10 or newer):

    python -m venv .venv
    .venv/bin/pip install -r requirements.txt
    .venv/bin/pip install -e .
    .venv/bin/jupyter lab notebooks/

Write each answer in the cell under its exercise, in place of the ..., and run the cell: the check says
whether the answer is right, how far off it is, or that it is not answered yet.
"""


class SolutionError(ValueError):
    """A notebook whose solution blocks cannot be removed safely."""


STUDENT_STATUS = """(execution-status)=
# Execution status

This student edition shows the outputs stored in the book's notebooks. They are not produced by
a separate run: the full edition executes every notebook when it is built, and its test suite
re-runs each one and compares the fresh outputs with the stored ones, cell by cell. To see them
computed on your own machine, open the notebooks in JupyterLab and run them.
"""


def strip_solutions(nb):
    """Return a copy of ``nb`` without its gated solutions; refuse unbalanced or mixed cells."""
    out = copy.deepcopy(nb)
    kept, inside = [], False
    for index, cell in enumerate(out.cells):
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        starts = len(SOLUTION_START.findall(source)) if cell.cell_type == "markdown" else 0
        ends = len(SOLUTION_END.findall(source)) if cell.cell_type == "markdown" else 0
        if starts > 1 or ends > 1 or (starts and ends):
            raise SolutionError(f"cell {index}: a solution must open and close in separate cells")
        if starts:
            if inside:
                raise SolutionError(f"cell {index}: a solution opens inside another")
            if source[: SOLUTION_START.search(source).start()].strip():
                raise SolutionError(f"cell {index}: text before {{solution-start}} would be lost")
            inside = True
            continue
        if ends:
            if not inside:
                raise SolutionError(f"cell {index}: {{solution-end}} without a start")
            inside = False
            rest = SOLUTION_END_BLOCK.sub("", source, count=1).strip()
            if rest:  # whatever follows the closing directive in the same cell is not solution
                cell.source = rest
                kept.append(cell)
            continue
        if not inside:
            kept.append(cell)
    if inside:
        raise SolutionError("a solution is never closed")
    out.cells = kept
    return out


def check_answer_cells_are_blank(nb, name):
    """Answer cells (code cells that call check(...) outside solutions) must still hold ``...``."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "check(" in cell.source and not PLACEHOLDER.search(cell.source):
            raise SolutionError(f"{name}: an answer cell holds an answer already:\n{cell.source[:200]}")


def prepare_sources() -> list[Path]:
    if WORK.exists():
        shutil.rmtree(WORK)
    SRC.mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(ROOT / name, SRC / name)
    shutil.copytree(ROOT / "book", SRC / "book", ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
    # nothing is executed for this edition (see below): its status page says where the outputs come from
    (SRC / "book" / "execution-status.md").write_text(STUDENT_STATUS)
    (SRC / "_vendor").symlink_to(ROOT / "_vendor", target_is_directory=True)
    notebooks = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = strip_solutions(nbformat.read(path, as_version=4))
        check_answer_cells_are_blank(nb, path.name)
        target = SRC / "book" / path.name
        nbformat.write(nb, target)
        notebooks.append(target)
    # the student site says so, and hides any solution that escaped the stripping
    config = (SRC / "_config.yml").read_text()
    config = config.replace('title: "Scalability by the numbers"', 'title: "Scalability by the numbers (student edition)"')
    config = config.replace("  config:\n", "  config:\n    hide_solutions: true\n", 1)
    # The stripped notebooks keep the outputs stored in the full ones (nbval proves those are what a fresh run
    # prints, and an answer cell's stored output is already "not answered yet"), so the student site is built
    # from them as they are: executing again would only repeat the main build's work.
    config = config.replace("  execute_notebooks: cache", "  execute_notebooks: \"off\"", 1)
    assert 'execute_notebooks: "off"' in config, "the student build could not turn execution off"
    (SRC / "_config.yml").write_text(config)
    return notebooks


def build_site() -> Path:
    env = dict(os.environ)
    env.setdefault("SCALINGLIB_FRAME_CACHE", str(ROOT / "_build" / "frame-cache"))
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(SRC), "--path-output", str(WORK), "--all", "-W", "--keep-going", "--quiet"]
    subprocess.run(cmd, cwd=SRC, env=env, check=True)
    return WORK / "_build" / "html"


def pack(html: Path, notebooks: list[Path]) -> None:
    DIST.mkdir(exist_ok=True)
    if ZIP.exists():
        ZIP.unlink()
    with zipfile.ZipFile(ZIP, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.txt", README)
        for path in sorted(html.rglob("*")):
            if path.is_file():
                zf.write(path, Path("html") / path.relative_to(html))
        for path in notebooks:
            zf.write(path, Path("notebooks") / path.name)
        for path in sorted((ROOT / "scalinglib").rglob("*.py")):
            zf.write(path, path.relative_to(ROOT))
        for name in ("pyproject.toml", "requirements.txt"):
            zf.write(ROOT / name, name)


def main() -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    import vendor

    if vendor.main() != 0:
        return 1
    notebooks = prepare_sources()
    print(f"student: {len(notebooks)} notebooks without solutions")
    html = build_site()
    pack(html, notebooks)
    size = ZIP.stat().st_size
    print(f"student: wrote {ZIP.relative_to(ROOT)} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
