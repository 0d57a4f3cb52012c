"""Grading a class (tools/grade.py): a folder of synthetic submissions of Section 3.1 (all right, all blank,
half right, one that raises, one that loops forever, one with a tampered check call, one with a deleted
answer cell) is graded into a CSV gradebook and feedback files, from the answers themselves, without the
batch ever stopping."""

from __future__ import annotations

import csv
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

from scalinglib.exercises import expected_answer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import grade  # noqa: E402
import student  # noqa: E402

SECTION = ROOT / "book" / "03-01-what-does-it-mean-to-scale.ipynb"


def _given_notebook():
    """The notebook as students get it, cut to its first code cell (the imports) and its exercises, so the
    test runs quickly: a submission that deletes cells is graded on what it keeps."""
    nb = student.strip_solutions(nbformat.read(SECTION, as_version=4))
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    start = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "## Exercises" in c.source)
    nb.cells = [nb.cells[first_code], *nb.cells[start:]]
    return nb


def _wrong(value):
    if isinstance(value, str):
        return "noise" if value != "noise" else "memory"
    if isinstance(value, (list, tuple)):
        return [_wrong(v) for v in value]
    return value * 2 + 1


def _fill(nb, answers: dict[str, object]):
    """Write answers into the answer cells, in place of the ``...`` the template assigns."""
    templates = grade.book_templates()
    cells = grade._answer_cells(nb)
    for label, index in cells.items():
        cell = nb.cells[index]
        for key, expr in templates[label].items():
            if key in answers:
                cell.source = re.sub(rf"(?m)^(\s*){re.escape(expr)}\s*=\s*\.\.\.", rf"\g<1>{expr} = {answers[key]!r}",
                                     cell.source)
    return nb


def _prepend(nb, label: str, code: str):
    index = grade._answer_cells(nb)[label]
    nb.cells[index].source = code + "\n" + nb.cells[index].source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    keys = [k for k in grade.book_templates()["ex-3-1-1"]] + [k for label in ("ex-3-1-2", "ex-3-1-3")
                                                              for k in grade.book_templates()[label]]
    right = {k: expected_answer(k) for k in keys}
    half = {k: (v if i % 2 == 0 else _wrong(v)) for i, (k, v) in enumerate(right.items())}
    wrong = {k: _wrong(v) for k, v in right.items()}
    folder = tmp_path_factory.mktemp("submissions")
    given = _given_notebook
    subs = {
        "all_right": _fill(given(), right),
        "all_blank": given(),
        "half_right": _fill(given(), half),
        "raises": _prepend(_fill(given(), right), "ex-3-1-2", 'raise RuntimeError("my code broke")'),
        "loops_forever": _prepend(_fill(given(), right), "ex-3-1-3",   # waits rather than spins: the same
                                  "import time\nwhile True:\n    time.sleep(0.01)"),   # interrupt, no CPU burnt
        "tampered_check": _prepend(_fill(given(), wrong), "ex-3-1-1",
                                   'check = lambda key, answer: f"✔ {key}: {answer} is right"'),
    }
    deleted = _fill(given(), right)
    del deleted.cells[grade._answer_cells(deleted)["ex-3-1-2"]]
    subs["deleted_cell"] = deleted
    for name, nb in subs.items():
        nbformat.write(nb, folder / f"{name}.ipynb")
    (folder / "not_a_notebook.ipynb").write_text("{ this is not json")
    out = tmp_path_factory.mktemp("grades")
    t0 = time.monotonic()
    csv_path = grade.grade(folder, out, budget=90, cell_timeout=8, jobs=2)   # 8 s: ample for a cell here even on a busy machine
    seconds = time.monotonic() - t0
    with csv_path.open() as f:
        rows = {Path(r["submission"]).stem: r for r in csv.DictReader(f)}
    print(f"\ngraded {len(rows)} submissions in {seconds:.1f} s\n" + csv_path.read_text())
    return rows, out, keys, seconds


def test_one_row_per_file_one_column_per_part_and_a_total(graded):
    rows, out, keys, _ = graded
    assert set(rows) == {"all_right", "all_blank", "half_right", "raises", "loops_forever", "tampered_check",
                         "deleted_cell", "not_a_notebook"}
    header = list(next(iter(rows.values())))
    assert header == ["submission", *keys, "total", "max", "problems"]
    for name, row in rows.items():
        assert int(row["total"]) == sum(int(row[k]) for k in keys)
        assert int(row["max"]) == len(keys) == 12
        assert (out / "feedback" / f"{name}.txt").exists()


def test_scores(graded):
    rows, _, keys, _ = graded
    total = {name: int(row["total"]) for name, row in rows.items()}
    assert total["all_right"] == 12 and rows["all_right"]["problems"] == ""
    assert total["all_blank"] == 0 and total["not_a_notebook"] == 0
    assert total["half_right"] == 6                                   # parts 1, 3, 5, ... of 12
    assert total["tampered_check"] == 0                               # its check said right; the answers are not
    # the cell that raises, the cell that loops and the deleted cell lose their own exercise's parts only
    for name, label, lost in (("raises", "ex-3-1-2", 3), ("loops_forever", "ex-3-1-3", 4), ("deleted_cell", "ex-3-1-2", 3)):
        assert total[name] == 12 - lost, name
        assert all(rows[name][k] == "0" for k in keys if k.startswith(label)), name


def test_problems_are_recorded(graded):
    rows, out, _, seconds = graded
    assert "RuntimeError: my code broke" in rows["raises"]["problems"]
    assert "ran longer than 8 s and was interrupted" in rows["loops_forever"]["problems"]
    assert "could not read" in rows["not_a_notebook"]["problems"]
    feedback = (out / "feedback" / "loops_forever.txt").read_text()
    assert "8 of 12 parts right" in feedback
    assert "interrupted" in feedback and "Hint:" in feedback
    assert seconds < 240


def test_feedback_gives_bands_and_hints_not_answers(graded):
    _, out, keys, _ = graded
    text = (out / "feedback" / "half_right.txt").read_text()
    assert text.startswith("Feedback on half_right.ipynb: 6 of 12 parts right.")
    wrong = [line for line in text.splitlines() if line.startswith("✘")]
    assert len(wrong) == 6 and all("Answer" in line for line in wrong)
    assert not re.search(r"\d%\s+too|\d+(\.\d+)? too (high|low)", text)   # no distance from the answer
