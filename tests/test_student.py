"""The student edition: no solution text survives in its notebooks or its HTML, the exercises and
their answer cells do. The first tests check the stripping itself; the rest read the zip that
`make student` writes (and skip, saying so, if it has not been built)."""

from __future__ import annotations

import html
import re
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import student  # noqa: E402

NOTEBOOKS = sorted((ROOT / "book").glob("03-*.ipynb"))


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(s) if kind == "md" else nbformat.v4.new_code_cell(s) for kind, s in cells]
    return nb


def test_strip_removes_the_block_and_keeps_what_follows():
    nb = _nb(
        ("md", "```{exercise} 1\n:label: ex-1\n```"),
        ("code", "answer = ...\nprint(check('ex-1a', answer))"),
        ("md", "```{solution-start} ex-1\n:class: dropdown\n```\nThe secret reasoning."),
        ("code", "answer = 42"),
        ("md", "```{solution-end}\n```\n\n## What comes next"),
    )
    out = student.strip_solutions(nb)
    sources = [c.source for c in out.cells]
    assert len(sources) == 3
    assert sources[2] == "## What comes next"
    assert not any("secret" in s or "42" in s for s in sources)
    assert len(nb.cells) == 5  # the original is untouched


@pytest.mark.parametrize(
    "cells",
    [
        [("md", "```{solution-start} ex-1\n```")],                                   # never closed
        [("md", "```{solution-end}\n```")],                                          # no start
        [("md", "```{solution-start} a\n```"), ("md", "```{solution-start} b\n```")],  # nested
        [("md", "Intro text\n```{solution-start} a\n```"), ("md", "```{solution-end}\n```")],
        [("md", "```{solution-start} a\n```\n```{solution-end}\n```")],              # same cell
    ],
)
def test_strip_refuses_what_it_cannot_do_safely(cells):
    with pytest.raises(student.SolutionError):
        student.strip_solutions(_nb(*cells))


def test_filled_answer_cells_are_refused():
    student.check_answer_cells_are_blank(_nb(("code", "x = ...\nprint(check('a', x))")), "ok")
    with pytest.raises(student.SolutionError):
        student.check_answer_cells_are_blank(_nb(("code", "x = 20\nprint(check('a', x))")), "filled")


def _solution_lines(path: Path) -> list[str]:
    """Distinctive lines of the notebook's solutions that appear nowhere else in it."""
    nb = nbformat.read(path, as_version=4)
    kept = "\n".join(c.source for c in student.strip_solutions(nb).cells)
    inside, lines = False, []
    for cell in nb.cells:
        if cell.cell_type == "markdown" and student.SOLUTION_START.search(cell.source):
            inside = True
        if inside:
            for line in cell.source.splitlines():
                line = line.strip()
                if len(line) >= 25 and "solution" not in line and line not in kept:
                    lines.append(line)
        if cell.cell_type == "markdown" and student.SOLUTION_END.search(cell.source):
            inside = False
    return lines


def _plain(text: str, glue: str = " ") -> str:
    """Page text without tags; glue="" keeps highlighted code lines in one piece."""
    text = re.sub(r"<[^>]+>", glue, text)
    return " ".join(html.unescape(text).split())


def _words(line: str) -> list[str]:
    """Runs of six plain words from a markdown line (markup and math split the runs)."""
    runs = re.split(r"[$`*_\\{}()\[\]|]", line)
    found = []
    for run in runs:
        words = run.split()
        if len(words) >= 6:
            found.append(" ".join(words[:6]))
    return found


@pytest.fixture(scope="module")
def edition():
    if not student.ZIP.exists():
        pytest.skip("the student edition is not built: run `make student` first")
    with zipfile.ZipFile(student.ZIP) as zf:
        names = zf.namelist()
        notebooks = {n: zf.read(n).decode() for n in names if n.startswith("notebooks/") and n.endswith(".ipynb")}
        pages = {n: zf.read(n).decode() for n in names if n.startswith("html/book/") and n.endswith(".html")}
    return names, notebooks, pages


def test_zip_has_every_part(edition):
    names, notebooks, pages = edition
    assert "README.txt" in names and "html/index.html" in names
    assert "scalinglib/__init__.py" in names and "requirements.txt" in names
    assert sorted(Path(n).name for n in notebooks) == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_solution_survives(edition, path):
    _, notebooks, pages = edition
    nb_text = notebooks[f"notebooks/{path.name}"]
    page = _plain(pages[f"html/book/{path.stem}.html"])
    page_code = _plain(pages[f"html/book/{path.stem}.html"], glue="")
    code_of_notebook = "\n".join(c.source for c in nbformat.reads(nb_text, as_version=4).cells)
    assert "solution-start" not in code_of_notebook and "solution-end" not in code_of_notebook
    lines = _solution_lines(path)
    assert lines, f"{path.name}: found no solution text to look for"
    for line in lines:
        assert line not in code_of_notebook, f"solution line in the student notebook: {line}"
        assert " ".join(line.split()) not in page_code, f"solution line in the student page: {line}"
        for run in _words(line):
            assert run not in page, f"solution text in the student page: {run!r}"
    assert 'class="solution' not in pages[f"html/book/{path.stem}.html"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_exercises_and_answer_cells_remain(edition, path):
    _, notebooks, pages = edition
    original = nbformat.read(path, as_version=4)
    stripped = nbformat.reads(notebooks[f"notebooks/{path.name}"], as_version=4)
    labels = re.findall(r":label: (ex-[\d-]+)", "\n".join(c.source for c in original.cells))
    for label in labels:
        assert f":label: {label}" in "\n".join(c.source for c in stripped.cells)
        assert f'id="{label}"' in pages[f"html/book/{path.stem}.html"]
    answer_cells = [c for c in stripped.cells if c.cell_type == "code" and "check(" in c.source]
    assert len(answer_cells) == len(labels) and all("..." in c.source for c in answer_cells)


def test_status_page_says_where_the_outputs_come_from(edition):
    """The edition is not executed, so its status page explains the stored outputs instead of an empty table."""
    _, _, pages = edition
    page = _plain(pages["html/book/execution-status.html"])
    assert "stored" in page and "compares the fresh outputs" in page
    assert "Run Time" not in page
