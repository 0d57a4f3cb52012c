"""A notebook rule, registered in ``tools/nbnormalise.py``: solutions stay folded in JupyterLab until the reader asks.

In the HTML book, sphinx-exercise folds each gated solution (``{solution-start}`` ... ``{solution-end}``)
into a dropdown. In JupyterLab, jupyterlab-myst folds the ``{solution-start}`` cell's own text into the
same kind of dropdown, but the cells that follow it up to ``{solution-end}`` are separate cells that Lab
shows as they are: the solution's code and its stored "right" output would sit open under the exercise.
This rule collapses those cells with the standard cell metadata that JupyterLab (and Notebook 7) honour:

* code cells inside a solution: ``jupyter.source_hidden`` and ``jupyter.outputs_hidden``; a click on the
  collapser bar (or View > Expand All Code / Outputs) opens them;
* markdown cells inside a solution, other than the opening and closing ones: ``jupyter.source_hidden``.

Sphinx, myst-nb and nbval ignore this metadata, so the HTML book and the notebook tests are unchanged.
The rule is idempotent, and it only ever adds the two flags.
"""

from __future__ import annotations

import re

import nbformat

SOLUTION_START = re.compile(r"^\s*```\{solution-start\}", re.MULTILINE)
SOLUTION_END = re.compile(r"^\s*```\{solution-end\}", re.MULTILINE)


def solution_cells(nb: nbformat.NotebookNode) -> list[int]:
    """Indices of the cells strictly between a ``{solution-start}`` cell and its ``{solution-end}`` cell."""
    inside, found = False, []
    for index, cell in enumerate(nb.cells):
        is_md = cell.cell_type == "markdown"
        if is_md and SOLUTION_START.search(cell.source):
            inside = True
            continue
        if is_md and SOLUTION_END.search(cell.source):
            inside = False
            continue
        if inside:
            found.append(index)
    return found


def fold_solutions_in_lab(nb: nbformat.NotebookNode) -> None:
    """Collapse every cell inside a gated solution (see the module docstring)."""
    for index in solution_cells(nb):
        cell = nb.cells[index]
        jupyter = cell.metadata.setdefault("jupyter", {})
        jupyter["source_hidden"] = True
        if cell.cell_type == "code":
            jupyter["outputs_hidden"] = True
