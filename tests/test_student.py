"""The student edition: no solution text survives in its notebooks or its HTML, the exercises and
their answer cells do, no page speaks of solutions, no expected answer can be read or called, and its
requirements install on the Python it states. The first tests check the stripping itself; the rest read
the zip that `make student` writes (and skip, saying so, if it has not been built)."""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
import subprocess
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
    assert "scalinglib/__init__.py" in names and "requirements-student.txt" in names
    assert "scalinglib/exercises/sealed.json" in names and "requirements.txt" not in names
    # the hardware catalog is data the library reads when imported
    assert {f"scalinglib/data/{p.name}" for p in (ROOT / "scalinglib" / "data").glob("*.toml")} <= set(names)
    assert sorted(Path(n).name for n in notebooks) == [p.name for p in NOTEBOOKS]


_EXERCISE_DATA = re.compile(r'<script type="application/json" id="sl-exercise-data">.*?</script>', re.S)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_solution_survives(edition, path):
    _, notebooks, pages = edition
    nb_text = notebooks[f"notebooks/{path.name}"]
    # The in-page checker's data holds each part's hint, which a solution may echo: the kernel prints the same
    # hint after any wrong answer, so it is no solution text (tests/test_site_exercises.py checks that data)
    shown = _EXERCISE_DATA.sub("", pages[f"html/book/{path.stem}.html"])
    page = _plain(shown)
    page_code = _plain(shown, glue="")
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


# --- text that speaks of solutions ---------------------------------------------------------------------


def test_marked_text_is_dropped_or_replaced():
    text = ("Write the answer. <!-- full-edition -->Solutions are under each exercise.<!-- /full-edition -->"
            "<!-- student-edition: Your instructor has the solutions. --> Next.")
    assert student.edition_text(text) == "Write the answer. Your instructor has the solutions. Next."


@pytest.mark.parametrize("path", [*NOTEBOOKS, ROOT / "book" / "03-00-introduction.md", ROOT / "book" / "exercise-index.md"],
                         ids=lambda p: p.stem)
def test_the_student_text_never_speaks_of_solutions(path):
    if path.suffix == ".ipynb":
        nb = student.rewrite_markdown(student.strip_solutions(nbformat.read(path, as_version=4)))
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    else:
        text = student.edition_text(path.read_text())
    assert not student.SOLUTION_TALK.search(text), student.SOLUTION_TALK.search(text).group(0)


def test_no_page_of_the_edition_speaks_of_solutions(edition):
    _, notebooks, pages = edition
    for name, text in {**notebooks, **pages}.items():
        plain = _plain(text) if name.endswith(".html") else text
        found = student.SOLUTION_TALK.search(plain)
        assert not found, f"{name}: {found.group(0)!r}"


# --- no expected answer, readable or callable ----------------------------------------------------------


def _significant(form: str) -> int:
    digits = re.sub(r"\D", "", form.split("e")[0]).lstrip("0")
    return len(digits.rstrip("0"))


def _answer_forms() -> dict[str, str]:
    """Every distinctive printed form of every numeric expected answer: {form: key}."""
    from scalinglib.exercises import expected_answer, registered_keys
    from scalinglib.exercises.core import _REGISTRY

    forms = {}
    for key in registered_keys():
        part = _REGISTRY[key]
        if part.kind not in ("number", "numbers"):
            continue
        value = expected_answer(key)
        for v in [value] if part.kind == "number" else list(value):
            v = float(v)
            if v == round(v) and v >= 1 and math.log2(v).is_integer():
                continue    # a power of two (8,192 GPUs) is every cluster's, batch's and layer's size: not distinctive
            candidates = {repr(v), f"{v:.6g}", f"{v:.5g}", f"{v:.4g}", f"{v:.3e}", f"{v:.4e}"}
            if v == round(v):
                candidates |= {str(int(v)), f"{int(v):,}"}
            for form in candidates:
                if _significant(form) >= 4:
                    forms[form] = key
    return forms


def _visible_text(path: Path) -> str:
    """A notebook's sources and outputs as the student edition keeps them (no solutions)."""
    nb = student.rewrite_markdown(student.strip_solutions(nbformat.read(path, as_version=4)))
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        parts.append(str(cell.metadata))             # figure captions and alt text
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.extend(str(v) for v in out.get("data", {}).values())
    parts.append(_kept_widget_state(nb))             # the control panels' saved figures
    return "\n".join(parts)


def _kept_widget_state(nb) -> str:
    """The saved state of the widgets that the kept cells display (and of the widgets those contain)."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    todo = [out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
            for cell in nb.cells for out in cell.get("outputs", [])
            if "application/vnd.jupyter.widget-view+json" in out.get("data", {})]
    seen = set()
    while todo:
        model = todo.pop()
        if model in seen or model not in state:
            continue
        seen.add(model)
        todo += re.findall(r"IPY_MODEL_(\w+)", json.dumps(state[model]))
    return "\n".join(str(state[m]) for m in sorted(seen))


_NUMBER = re.compile(r"(?<![\w.+/])[0-9][0-9,.]*(?:e[+-]?[0-9]+)?(?![\w+/])")


def _tokens(text: str) -> set[str]:
    """Every number written in ``text`` (not inside a longer word, a base64 blob or a longer number)."""
    return {t.rstrip(".,") for t in _NUMBER.findall(text)}


def _third_party(zf: zipfile.ZipFile) -> set[str]:
    """Files of the zip that are byte for byte a file of an installed package or of _vendor (theme scripts,
    fonts, MathJax): they hold numbers of their own (SVG paths) and nothing the book wrote."""
    import hashlib
    import sysconfig

    wanted = {}
    for info in zf.infolist():
        ours = info.filename.startswith(("notebooks/", "scalinglib/", "html/_sources/")) or \
            info.filename.endswith((".html", ".ipynb", ".py")) or "/" not in info.filename
        if not ours:
            wanted.setdefault((Path(info.filename).name, info.file_size), []).append(info.filename)
    found = set()
    for base in (Path(sysconfig.get_paths()["purelib"]), ROOT / "_vendor"):
        for dirpath, _, files in os.walk(base):
            for fname in files:
                path = Path(dirpath) / fname
                try:
                    key = (fname, path.stat().st_size)
                except OSError:
                    continue
                for name in wanted.get(key, ()):
                    if hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(zf.read(name)).digest():
                        found.add(name)
    return found


#: Numbers that the library's own docstrings print as the output of a library call (a doctest or a comment on
#: a published figure), where an exercise asks the reader to make that same call. They are the library's
#: documentation, not the answer key; the library's owner may change those examples' inputs, and then the
#: entry goes (the test below fails on an entry that is no longer needed).
LIBRARY_DOCUMENTS: set[tuple[str, str]] = set()   # none: the doctests use other inputs than the exercises


def test_the_zip_holds_no_expected_answer(edition):
    """Every file of the zip, library, sealed table, HTML and notebooks (and any .pyc) is searched for every
    numeric answer in its printed forms (four significant figures or more, with and without thousands commas).
    None may appear, except in a page that prints the very same number outside its solutions (the book's own
    worked examples), and then only in the page of that notebook (or in the site's search index). Files copied unchanged from installed packages
    (the theme's scripts and fonts) are left out."""
    forms = _answer_forms()
    visible = {p.stem: _tokens(_visible_text(p)) for p in NOTEBOOKS}
    site_wide = set().union(*visible.values())          # the search index gathers every page's words
    leaks = []
    with zipfile.ZipFile(student.ZIP) as zf:
        foreign = _third_party(zf)
        for name in zf.namelist():
            if name in foreign:
                continue
            found = _tokens(zf.read(name).decode("utf-8", errors="replace")) & set(forms)
            found -= site_wide if name in ("html/searchindex.js", "html/genindex.html", "html/search.html") \
                else visible.get(Path(name).stem, set())
            documented = {form for (where, form) in LIBRARY_DOCUMENTS if where == name}
            assert documented <= found, f"{name}: {documented - found} no longer needs its LIBRARY_DOCUMENTS entry"
            leaks += [f"{name}: {form} ({forms[form]})" for form in sorted(found - documented)]
    assert not leaks, "\n".join(leaks[:20])


def test_the_zip_holds_no_word_answer_and_no_answer_function(edition):
    """The library's exercises package holds no word answer (the options each part lists are public, as in
    its statement; its answer is among them only as a salted hash) and no way to call for an answer."""
    import json

    from scalinglib.exercises import expected_answer, registered_keys
    from scalinglib.exercises.core import _REGISTRY

    words = set()
    for key in registered_keys():
        if _REGISTRY[key].kind == "choice":
            words.add(expected_answer(key))
        elif _REGISTRY[key].kind == "choices":
            words.update(expected_answer(key))
    with zipfile.ZipFile(student.ZIP) as zf:
        package = {n: zf.read(n).decode() for n in zf.namelist() if n.startswith("scalinglib/exercises/")}
        library = {n: zf.read(n).decode() for n in zf.namelist() if n.startswith("scalinglib/")}
    sealed = json.loads(package.pop("scalinglib/exercises/sealed.json"))
    for item in sealed["parts"]:
        item["part"].pop("choices")          # the public options
    stored = json.dumps(sealed)
    # core.py is the book's generic checker less its full-edition block: no registry, no answers (the checker's
    # code says "high" and "low" of a band, and "yes"/"no" for booleans, which are not anybody's answer)
    core_text = package.pop("scalinglib/exercises/core.py")
    assert core_text == student.FULL_EDITION_BLOCK.sub("", (ROOT / "scalinglib/exercises/core.py").read_text())
    # the modules core.py imports (units, seals, judge, ...) go in as they are in the book: generic code too
    checker = [p for p in (ROOT / "scalinglib/exercises").glob("*.py")
               if p.name not in ("__init__.py", "core.py") and not p.name.startswith("s3_")]
    for path in checker:
        assert package.pop(f"scalinglib/exercises/{path.name}") == path.read_text(), path.name
    for word in words:
        for text, where in [(stored, "sealed.json")] + [(t, n) for n, t in package.items()]:
            assert not re.search(rf"[\"']{re.escape(word)}[\"']", text), f"{word!r} in {where}"
    for name, text in library.items():
        assert "expected_answer" not in text and "seal_all" not in text, name
        generic = name.endswith("/core.py") or name in {f"scalinglib/exercises/{p.name}" for p in checker}
        if name.startswith("scalinglib/exercises/") and name.endswith(".py") and not generic:
            assert "lambda" not in text and "def " not in text and "register(" not in text, name   # data only


@pytest.fixture(scope="module")
def unpacked(edition, tmp_path_factory):
    target = tmp_path_factory.mktemp("student")
    with zipfile.ZipFile(student.ZIP) as zf:
        zf.extractall(target)
    return target


def _run_student(unpacked: Path, code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(unpacked), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-c", code], cwd=unpacked, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_student_checker_gives_the_books_verdicts(unpacked):
    """The sealed checker, run from the unpacked zip, agrees with the book's checker on right, wrong and
    slipped answers, and has nothing to call for an answer."""
    from scalinglib.exercises import check, expected_answer, registered_keys

    cases = []
    for key in registered_keys():
        value = expected_answer(key)
        cases.append((key, value))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            cases += [(key, value * 1.07), (key, value * 1000), (key, value / 3), (key, -value)]
    code = ("import json, sys\n"
            "from scalinglib.exercises import check\n"
            "cases = json.loads(sys.stdin.read())\n"
            "print(json.dumps([check(k, a).text() for k, a in cases]))\n"
            "try:\n    from scalinglib.exercises import expected_answer\nexcept ImportError:\n    print('NO ANSWERS')\n"
            "import scalinglib.exercises.core as core\nprint(hasattr(core, 'expected_answer'))\n")
    import json

    env = dict(os.environ, PYTHONPATH=str(unpacked), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", code], cwd=unpacked, env=env, input=json.dumps(cases),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[1:] == ["NO ANSWERS", "False"]
    theirs = json.loads(lines[0])
    ours = [check(k, a).text() for k, a in cases]
    assert theirs == ours


def test_the_student_notebook_imports_resolve(unpacked):
    out = _run_student(unpacked, "from scalinglib.exercises.s3_5 import KF_WORKERS, PROGRAM_C, PROGRAM_D, "
                                 "LOAD_THROUGHPUT, LOAD_WORKERS\nimport scalinglib as sl\nprint(sl.check('ex-3-5-3c', ['serial', 'overhead']))")
    assert out.returncode == 0 and "✔" in out.stdout, out.stderr[-2000:]


# --- the requirements a student installs ------------------------------------------------------------


def _stated_floor() -> str:
    text = (ROOT / "requirements-student.txt").read_text()
    found = re.search(r"Python (3\.\d+) or newer", text)
    assert found, "requirements-student.txt must state its Python floor"
    assert f"Python {found.group(1)} or newer" in student.README
    assert f'requires-python = ">={found.group(1)}"' in (ROOT / "pyproject.toml").read_text()
    return found.group(1)


def test_student_requirements_are_the_runtime_not_the_toolchain():
    names = [line.split("==")[0].lower() for line in (ROOT / "requirements-student.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert {"numpy", "matplotlib", "networkx", "ipywidgets", "jupyterlab", "jupyterlab-myst"} <= set(names)
    for tool in ("jupyter-book", "sphinx", "pytest", "hypothesis", "nbval", "ruff", "playwright"):
        assert tool not in names
    full = dict(line.split("==") for line in (ROOT / "requirements.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    full = {k.lower().replace("_", "-"): v for k, v in full.items()}
    for line in (ROOT / "requirements-student.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            assert full.get(name.lower()) == version, f"{name}: the student pin differs from the tested book's"


def test_student_requirements_install_on_the_stated_python(tmp_path):
    """A fresh venv on the stated floor takes requirements-student.txt and the library, then imports what the
    notebooks import and checks an answer. Uses uv and its cache; skips, saying why, without uv or network."""
    floor = _stated_floor()
    beside = Path(sys.executable).parent / "uv"          # setup installs uv into .venv when it is not on PATH
    uv = shutil.which("uv") or (str(beside) if beside.exists() else None)
    if uv is None:
        pytest.skip("uv is not installed: cannot build the fresh environment")
    venv = tmp_path / "venv"
    made = subprocess.run([uv, "venv", "-q", "--python", floor, str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"no Python {floor} for uv here: {made.stderr.strip()[-300:]}")
    python = venv / "bin" / "python"
    install = subprocess.run([uv, "pip", "install", "-q", "--python", str(python), "-r",
                              str(ROOT / "requirements-student.txt")], capture_output=True, text=True, timeout=600)
    if install.returncode != 0 and re.search(r"(?i)network|connect|dns|resolve host|offline|timed out", install.stderr):
        pytest.skip(f"the package registry cannot be reached: {install.stderr.strip()[-300:]}")
    assert install.returncode == 0, install.stderr[-2000:]
    lib = subprocess.run([uv, "pip", "install", "-q", "--python", str(python), "--no-deps", str(ROOT)],
                         capture_output=True, text=True, timeout=600)
    assert lib.returncode == 0, lib.stderr[-2000:]
    version = subprocess.run([str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
    assert version == floor
    code = ("import math, os, textwrap, time\nimport numpy, matplotlib, networkx, ipywidgets, ipykernel\n"
            "matplotlib.use('Agg')\nimport scalinglib as sl\nprint(sl.check('ex-3-1-1b', 50))\n")
    run = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0 and "✔" in run.stdout, run.stderr[-2000:]
    # what JupyterLab reads to render the exercises and to offer the notebooks' kernel
    shared = venv / "share" / "jupyter"
    assert (shared / "labextensions" / "jupyterlab-myst" / "package.json").is_file()
    assert (shared / "kernels" / "python3" / "kernel.json").is_file()
