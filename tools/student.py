"""Build the student edition: the book without solutions, as HTML and as notebooks, in one zip.

    python tools/student.py        # what `make student` runs

1. Every notebook of book/ is copied with each gated solution removed: the cells from the one that
   opens a ``{solution-start}`` block to the one that closes it with ``{solution-end}``, inclusive.
   Answer cells keep their ``...`` placeholders (the tool refuses a notebook whose answer cell
   already holds an answer).
2. The site is built from those notebooks (warnings as errors) into ``_build/student/html``.
   Text that speaks of solutions is rewritten for an edition that has none: in markdown (notebook
   cells and the book's .md pages), ``<!-- full-edition -->...<!-- /full-edition -->`` is dropped and
   ``<!-- student-edition: TEXT -->`` becomes TEXT. The HTML book and JupyterLab show neither comment.
   Sentences of this kind not yet marked in their sources are matched by :data:`UNMARKED`.
3. The library goes in without its answers: ``scalinglib/exercises`` is replaced by the checker's
   generic code (``core.py`` less its full-edition block, so no ``expected_answer``, and the modules it
   imports: ``units.py``, ``seals.py``, ...), a ``sealed.json``
   of salted hashes of every answer (see ``scalinglib/exercises/core.py``), and for each section module
   only the data its notebook imports (for example the measurements of 3.5.3 and 3.5.4).
4. ``dist/scalability-by-the-numbers-student.zip`` gets ``html/`` (open ``html/index.html``),
   ``notebooks/``, that library with ``pyproject.toml`` and ``requirements-student.txt`` (what the
   notebooks need, not the book's toolchain) so the notebooks run, and a README saying how.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import shutil
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

To run the notebooks (Python 3.11 or newer):

    python3 -m venv .venv
    .venv/bin/pip install -r requirements-student.txt
    .venv/bin/pip install --no-deps -e .
    .venv/bin/jupyter lab notebooks/

Write each answer in the cell under its exercise, in place of the ..., and run the cell: the check says
whether the answer is right, roughly how far off it is, or that it is not answered yet, with the unit it
wants and how close an answer must be. This edition holds no solutions and no expected answers: the
checker compares your answer with sealed (hashed) answers.

LICENSE says what you may do with this edition: the text and figures are under CC BY 4.0, the code
under the MIT licence.
"""

#: Marked text: dropped from, or added to, the student edition (HTML comments, invisible in the book).
FULL_ONLY = re.compile(r"<!--\s*full-edition\s*-->.*?<!--\s*/full-edition\s*-->", re.DOTALL)
STUDENT_ONLY = re.compile(r"<!--\s*student-edition:\s*(.*?)\s*-->", re.DOTALL)
#: Sentences about solutions not yet marked in their sources, and what the student edition says instead.
UNMARKED = [
    (re.compile(r"[ \t]*Solutions are folded under each exercise\."), ""),
    (re.compile(r"[ \t]*Worked solutions are folded under each exercise; open them when you are done\."), ""),
    (re.compile(r"; the answer cell and the folded solution follow it on the page\."),
     "; the answer cell follows it on the page."),
]
#: What no page of the student edition may say.
SOLUTION_TALK = re.compile(r"solutions? (?:are|is) folded|folded solution|open them when you are done", re.I)
#: Files of the library's exercises package that the student edition replaces.
EXERCISES = Path("scalinglib") / "exercises"
FULL_EDITION_BLOCK = re.compile(r"^# --- full edition only ---\n.*?^# --- end full edition only ---\n", re.M | re.S)


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


def edition_text(text: str) -> str:
    """Markdown as the student edition shows it: marked and known sentences about solutions handled."""
    out = STUDENT_ONLY.sub(lambda m: m.group(1), FULL_ONLY.sub("", text))
    for pattern, replacement in UNMARKED:
        out = pattern.sub(replacement, out)
    return out


def rewrite_markdown(nb):
    """Apply :func:`edition_text` to every markdown cell of ``nb`` (in place)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = edition_text(cell.source)
    return nb


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
    for page in sorted((SRC / "book").glob("*.md")):
        page.write_text(edition_text(page.read_text()))
    notebooks = []
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        nb = rewrite_markdown(strip_solutions(nbformat.read(path, as_version=4)))
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
    """Every page of the edition's sources, warnings as errors, as tools/build_book.py builds the book."""
    sys.path.insert(0, str(ROOT / "tools"))
    from build_book import run_sphinx

    os.environ.setdefault("SCALINGLIB_FRAME_CACHE", str(ROOT / "_build" / "frame-cache"))
    html = WORK / "_build" / "html"
    if run_sphinx(SRC / "_config.yml", True, source=SRC, html=html) != 0:
        raise RuntimeError("the student edition's Sphinx build failed (the warnings are above)")
    return html


def notebook_imports(notebooks: list[Path]) -> dict[str, set[str]]:
    """Names the notebooks import from each section module of the exercises: {"s3_5": {"PROGRAM_C", ...}}."""
    wanted: dict[str, set[str]] = {}
    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scalinglib.exercises."):
                    module = node.module.rsplit(".", 1)[1]
                    wanted.setdefault(module, set()).update(alias.name for alias in node.names)
    return wanted


def sealed_answers() -> dict:
    """The sealed table of every part: the very seals the pages of both editions check answers with
    (``build_book.sealed_table``)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from build_book import sealed_table

    table = json.loads(sealed_table().read_text())
    table.pop("library", None)
    return table


def student_exercises(notebooks: list[Path]) -> dict[str, str]:
    """The files of ``scalinglib/exercises`` in the student edition: {file name: text}.

    The generic checker (``core.py`` less its full-edition block, and the modules it imports as they are), a
    sealed table of the answers, and section modules that hold only the data the notebooks import. Refuses a
    notebook import that is not plain data (a function could compute an answer).
    """
    sys.path.insert(0, str(ROOT))
    import scalinglib.exercises  # noqa: F401  (the section modules below are read from it)

    core_text = (ROOT / EXERCISES / "core.py").read_text()
    stripped, count = FULL_EDITION_BLOCK.subn("", core_text)
    if count != 1:
        raise RuntimeError("core.py must hold exactly one full-edition block")
    files = {
        "core.py": stripped,
        "sealed.json": json.dumps(sealed_answers(), separators=(",", ":")),
        "__init__.py": '"""Exercise checks (student edition): answers are sealed, see core.py."""\n\n'
                       "from .core import Feedback, check, load_sealed, registered_keys\n\n"
                       "load_sealed()\n\n"
                       '__all__ = ["check", "Feedback", "registered_keys"]\n',
    }
    for path in sorted((ROOT / EXERCISES).glob("*.py")):   # the checker's own modules, as they are
        if path.name not in ("__init__.py", "core.py") and not path.name.startswith("s3_"):
            files[path.name] = path.read_text()
    wanted = notebook_imports(notebooks)
    for path in sorted((ROOT / EXERCISES).glob("s3_*.py")):
        module = __import__(f"scalinglib.exercises.{path.stem}", fromlist=["_"])
        lines = [f'"""Data of the exercises of Section {path.stem[1:].replace("_", ".")} (student edition)."""', ""]
        for name in sorted(wanted.get(path.stem, ())):
            value = getattr(module, name)
            text = repr(value)
            if ast.literal_eval(text) != value:
                raise RuntimeError(f"{path.stem}.{name} is not plain data and cannot go in the student edition")
            lines.append(f"{name} = {text}")
        files[path.name] = "\n".join(lines) + "\n"
    return files


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
        # the library's Python, its data files (the hardware catalog), and the C reference ping-pong that
        # Section 3.8.6 builds beside its lab
        library = [*(ROOT / "scalinglib").rglob("*.py"), *(ROOT / "scalinglib").rglob("*.c"),
                   *(ROOT / "scalinglib" / "data").glob("*.toml")]
        for path in sorted(library):
            if EXERCISES not in path.relative_to(ROOT).parents:
                zf.write(path, path.relative_to(ROOT))
        for name, text in student_exercises(notebooks).items():
            zf.writestr(str(EXERCISES / name), text)
        for name in ("pyproject.toml", "requirements-student.txt"):
            zf.write(ROOT / name, name)
        pack_licence(zf)


def pack_licence(zf: zipfile.ZipFile) -> None:
    """The edition's own top-level licence file: the repository's LICENSE (text and figures CC BY 4.0, code
    MIT), so a copy handed to students says what they may do with it."""
    zf.write(ROOT / "LICENSE", "LICENSE")


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
