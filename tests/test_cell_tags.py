"""tools/cell_tags.py: figure, slider and table cells get hide-input; model code stays in view; idempotent."""

import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import cell_tags  # noqa: E402
import nbnormalise  # noqa: E402


@pytest.mark.parametrize(("source", "folded"), [
    ("fig = plt.figure(figsize=(8.0, 3.2), layout='constrained')\nsl.figures.s3_4.fanout(fig, n=100)\nplt.show()", True),
    ("fig, ax = sl.new_figure()\nfor k in (1, 2):\n    ax.plot([0, k])\nax.legend()\nplt.show()", True),
    ("sl.slider_figure(\n    sl.figures.s3_1.speedup_and_efficiency,\n    {'f': sl.choice('f', [0.1, 0.2])},\n"
     "    alt='x',\n)", True),
    ("fmt = lambda x: f'{x:g}'\nsl.slider_html(render, {'n': sl.choice('n', [1, 2], fmt=fmt)})", True),
    ("rows = [(u, t) for u, t in zip(U, T)]\nsl.table(rows, ['U', 'T'])", True),
    ("# a comment\nsweep = sl.figures.s3_4.hedging_sweep()\nfig = plt.figure()\n"
     "sl.figures.s3_4.hedging_under_load(fig, sweep)\nplt.show()", True),
    # model code teaches: it stays visible
    ("f = 0.05\nS = 1 / (f + (1 - f) / K)\nfig, ax = sl.new_figure()\nax.plot(K, S)\nplt.show()", False),
    ("rows = [(u, 1 / (mu - u * mu)) for u in U]\nmean = rows[0][1] * 2\nsl.table(rows, ['U', 'T'])", False),
    ("fig, ax = sl.new_figure()\nax.plot(K, S)\nprint(S.max())\nplt.show()", False),
    ("print(check('ex-3-1-1a', answer))", False),
    ("x = sl.amdahl_speedup(0.1, 8)\nx", False),
    ("plt.show(", False),
    ("", False),
])
def test_which_cells_fold(source, folded):
    assert cell_tags.folds(source) is folded


def _nb(*sources, tags=None):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources] + [nbformat.v4.new_markdown_cell("plt.show()")]
    if tags:
        nb.cells[0].metadata["tags"] = list(tags)
    return nb


def test_rule_adds_hide_input_once_and_respects_show_input():
    nb = _nb("fig, ax = sl.new_figure()\nax.plot([1, 2])\nplt.show()", "x = 1\nprint(x)",
             tags=["nbval-ignore-output"])
    cell_tags.tag_figure_cells(nb)
    once = nbformat.writes(nb)
    assert nb.cells[0].metadata["tags"] == ["nbval-ignore-output", "hide-input"]
    assert "tags" not in nb.cells[1].metadata and "tags" not in nb.cells[2].metadata
    cell_tags.tag_figure_cells(nb)
    assert nbformat.writes(nb) == once                    # idempotent
    nb.cells[0].metadata["tags"].append("show-input")      # the opt-out
    cell_tags.tag_figure_cells(nb)
    assert nb.cells[0].metadata["tags"] == ["nbval-ignore-output", "show-input"]


def test_registered_with_nbnormalise():
    nb = _nb("sl.slider_figure(draw, {'a': sl.choice('a', [1, 2])}, alt='a')")
    nbnormalise.normalise(nb)
    assert "hide-input" in nb.cells[0].metadata["tags"]
    assert cell_tags.tag_figure_cells in nbnormalise.RULES
