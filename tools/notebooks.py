"""Execute the book's notebooks in place, and move them to and from a text form for editing.

    python tools/notebooks.py execute [NOTEBOOK ...]   # re-run and store outputs (all of book/ by default)
    python tools/notebooks.py to-md NOTEBOOK [MD]       # MyST-markdown view, for editing in a text editor
    python tools/notebooks.py from-md MD [NOTEBOOK]     # back to .ipynb (then run `execute` on it)

The stored outputs are what nbval compares a fresh run against (``make test``),
so run ``execute`` after any intentional change to a notebook or to the
library (``make notebooks`` does it for every notebook). Widget state is
stored too, so sliders show in JupyterLab before the notebook is run.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbnormalise  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"


def book_notebooks() -> list[Path]:
    return sorted(p for p in BOOK.glob("*.ipynb") if not p.name.startswith("_"))


def execute(paths: list[Path]) -> int:
    from nbclient import NotebookClient

    os.environ.pop("SCALINGLIB_SLIDER_FRAMES", None)     # stored outputs carry every frame of every slider
    os.environ.pop("SCALINGLIB_MEASURE", None)           # and full measurements of this machine

    failures = 0
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        start = time.perf_counter()
        client = NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=True,
            record_timing=False,
        )
        try:
            client.execute()
        except Exception as exc:  # report and carry on with the other notebooks
            failures += 1
            print(f"FAILED {path.relative_to(ROOT)}: {type(exc).__name__}: {str(exc)[:2000]}", file=sys.stderr)
            continue
        for cell in nb.cells:  # keep the stored files free of run-specific noise
            cell.get("metadata", {}).pop("execution", None)
        if not _has_widgets(nb):
            nb.metadata.pop("widgets", None)
        nbnormalise.normalise(nb)
        nbformat.write(nb, path)
        print(f"executed {path.relative_to(ROOT)} in {time.perf_counter() - start:.1f} s")
    return 1 if failures else 0


def _has_widgets(nb) -> bool:
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    return bool(state.get("state"))


def to_md(src: Path, dest: Path | None) -> int:
    import jupytext

    nb = jupytext.read(src)
    dest = dest or ROOT / "drafts" / (src.stem + ".md")
    dest.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, dest, fmt="md:myst")
    print(f"wrote {dest}")
    return 0


def from_md(src: Path, dest: Path | None) -> int:
    import jupytext

    nb = jupytext.read(src, fmt="md:myst")
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    dest = dest or BOOK / (src.stem + ".ipynb")
    nbformat.write(nb, dest)
    print(f"wrote {dest} (not executed yet)")
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    command, rest = argv[0], [Path(a).resolve() for a in argv[1:]]
    if command == "execute":
        return execute(rest or book_notebooks())
    if command == "to-md" and rest:
        return to_md(rest[0], rest[1] if len(rest) > 1 else None)
    if command == "from-md" and rest:
        return from_md(rest[0], rest[1] if len(rest) > 1 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
