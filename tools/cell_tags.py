"""Figures, controls and tables lead: fold the code that only draws them behind a "Show code" toggle.

A notebook rule (registered with :mod:`nbnormalise`, so ``tools/notebooks.py execute`` applies it):
a code cell is tagged ``hide-input`` when

* it shows a figure, a slider panel or a table: its last statement is ``plt.show()``, a call of
  ``sl.slider_figure`` / ``sl.slider_html``, or a call of ``sl.table`` (any spelling that ends in
  those names: ``slider_figure(...)``, ``scalinglib.table(...)``); and
* every statement in it only draws: makes a figure or axes (``plt.figure``, ``sl.new_figure``,
  ``fig.subplots``), calls methods of those (``ax.plot``, ``ax.set_xlabel``), calls the book's
  drawing and control helpers (``sl.figures.*``, ``sl.log2_axis``, ``sl.choice``, ...), names a
  small formatting ``lambda``, loops over such calls, or, in a table cell, gathers rows into a list
  or dict literal or comprehension.

A cell that also computes something with the model (``S = 1 / (f + (1 - f) / K)``), prints, or
checks an exercise answer keeps its code in view: that code teaches. So does a cell tagged
``show-input`` (the opt-out, which also removes a ``hide-input`` this rule added). The rule only
adds tags and removes ``hide-input`` under ``show-input``, so running it twice changes nothing.
In the HTML book, myst-nb folds a ``hide-input`` cell's code behind a "Show code" toggle above its
output; JupyterLab ignores the tag.

    python tools/cell_tags.py book/03-04-*.ipynb     # report which cells would be folded, change nothing
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

HIDE, SHOW = "hide-input", "show-input"

#: Names that hold figures and axes in the book's cells.
PLOT_NAMES = {"plt", "fig", "figure", "ax", "axes", "axs", "ax1", "ax2", "twin", "grid", "gs"}
#: Calls that make figures or axes; whatever they return is a plotting object.
PLOT_MAKERS = {"figure", "subplots", "subplot", "add_subplot", "add_axes", "twinx", "twiny", "new_figure",
               "subplot_mosaic", "add_gridspec", "inset_axes", "subfigures"}
#: Helpers of the book that only draw or build controls and tables (called as ``sl.<name>``).
SL_DRAWING = {"figures", "new_figure", "log2_axis", "style_axes", "slider_figure", "slider_html", "choice",
              "table", "COLORS", "IDEAL", "LINESTYLES", "plot_roofline", "plot_device_roofline", "figure_html"}
#: The last call of a cell that shows something.
SHOWS = {"show", "slider_figure", "slider_html", "table"}
#: Calls that are neither model code nor drawing.
NEUTRAL_CALLS = {"display", "close"}


def _chain(node) -> list[str]:
    """``sl.figures.s3_4.fanout`` -> ["sl", "figures", "s3_4", "fanout"] (empty when not a plain chain)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Call):      # fig.subplots(...).flat -> treat like its call
        return _chain(node.func) + parts[::-1]
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return []


class _Cell:
    def __init__(self):
        self.plot_names = set(PLOT_NAMES)

    def drawing_call(self, call) -> bool:
        if not isinstance(call, ast.Call):
            return False
        chain = _chain(call.func)
        if not chain:
            return False
        if chain[0] in self.plot_names:
            return True
        if chain[0] in ("sl", "scalinglib") and len(chain) > 1 and chain[1] in SL_DRAWING:
            return True
        if len(chain) == 1 and chain[0] in (SL_DRAWING | NEUTRAL_CALLS) - {"figures"}:
            return True
        return chain[-1] in PLOT_MAKERS and chain[0] in ("plt", "matplotlib")

    def drawing(self, stmt, table_cell: bool) -> bool:
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
            return True
        if isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):      # a bare string: a note
                return True
            return self.drawing_call(stmt.value)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            value = stmt.value
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if self.drawing_call(value) or isinstance(value, ast.Lambda) or (table_cell and _gathers_rows(value)):
                for target in targets:
                    self.plot_names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                return True
            return False
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):
            body = list(stmt.body) + list(getattr(stmt, "orelse", []))
            if isinstance(stmt, ast.For):
                self.plot_names.update(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name))
            return all(self.drawing(s, table_cell) for s in body)
        return False


def _gathers_rows(value) -> bool:
    """A list, tuple or dict literal or comprehension: rows being put together for a table."""
    return isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp, ast.GeneratorExp))


def _shows(stmt) -> str | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        chain = _chain(stmt.value.func)
        if chain and chain[-1] in SHOWS:
            return chain[-1]
    return None


def folds(source: str) -> bool:
    """True when a cell with this source only draws a figure, a slider panel or a table.

    Examples
    --------
    >>> folds("fig = plt.figure(figsize=(8, 3))\\nsl.figures.s3_4.fanout(fig, n=100)\\nplt.show()")
    True
    >>> folds("S = 1 / (f + (1 - f) / K)\\nfig, ax = sl.new_figure()\\nax.plot(K, S)\\nplt.show()")
    False
    >>> folds("sl.slider_figure(draw, {'f': sl.choice('f', [0.1, 0.2])}, alt='x')")
    True
    >>> folds("rows = [(u, 1e3 * t) for u, t in zip(U, T)]\\nsl.table(rows, ['U', 'T'], units={'T': 'ms'})")
    True
    >>> folds("print(check('ex-3-1-1a', answer))")
    False
    """
    if "check(" in source:
        return False
    lines = [line for line in source.splitlines() if line.strip() and not line.strip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return False
    if not tree.body:
        return False
    shown = _shows(tree.body[-1])
    if shown is None:
        return False
    cell = _Cell()
    return all(cell.drawing(stmt, shown == "table") for stmt in tree.body)


def tag_figure_cells(nb) -> None:
    """The rule: fold the code of figure, slider and table cells (see the module docstring). Idempotent."""
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        tags = list(cell.get("metadata", {}).get("tags", []))
        if SHOW in tags:
            if HIDE in tags:
                tags.remove(HIDE)
                cell.metadata["tags"] = tags
            continue
        if HIDE not in tags and folds(cell.get("source", "")):
            cell.setdefault("metadata", {})["tags"] = tags + [HIDE]


def main(argv: list[str]) -> int:
    import nbformat

    root = Path(__file__).resolve().parent.parent
    paths = [Path(a) for a in argv] or sorted((root / "book").glob("03-*.ipynb"))
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        folded = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and SHOW not in c.metadata.get("tags", [])
                  and folds(c.source)]
        print(f"{path.name}: fold cells {folded}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
