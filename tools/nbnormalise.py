"""One place for the rules that set a notebook's cell tags and metadata before it is stored.

``tools/notebooks.py execute`` calls :func:`normalise` on every notebook it writes, so a rule
added here applies to the whole book the next time the notebooks are executed. A rule is a
function that takes an ``nbformat`` notebook and changes it in place; it must be idempotent
(running it twice changes nothing the second time).

    python tools/nbnormalise.py [NOTEBOOK ...]   # apply the rules without executing (all of book/)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
Rule = Callable[[nbformat.NotebookNode], None]

#: The rules, applied in this order. Modules add theirs with :func:`rule`.
RULES: list[Rule] = []


def rule(func: Rule) -> Rule:
    """Register ``func`` as a normalisation rule (usable as a decorator)."""
    RULES.append(func)
    return func


def _load_rules() -> None:
    """Import the modules that register rules (each adds itself to RULES on import)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import cell_tags  # figure, slider and table cells: code folded behind "Show code" in the book
    import lab_metadata

    for func in (lab_metadata.fold_solutions_in_lab,  # solutions stay folded in JupyterLab
                 cell_tags.tag_figure_cells):
        if func not in RULES:
            rule(func)


def normalise(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Apply every rule to ``nb`` in place and return it."""
    if not RULES:
        _load_rules()
    for func in RULES:
        func(nb)
    return nb


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(p for p in (ROOT / "book").glob("*.ipynb") if not p.name.startswith("_"))
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        before = nbformat.writes(nb)
        normalise(nb)
        if nbformat.writes(nb) != before:
            nbformat.write(nb, path)
            print(f"normalised {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
