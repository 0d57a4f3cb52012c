"""Every section the library's docstrings and comments point to is a heading of the book.

A pointer such as "Section 3.8.8" or "Sections 3.2 and 3.3" names a subsection or a section; the
test reads the headings of the chapter's notebooks (``## 3.N.M Title``) and checks that each
number the library names exists, so a renumbered subsection cannot leave a stale pointer behind.
"""

import functools
import json
import re
from pathlib import Path

import pytest

import scalinglib as sl

ROOT = Path(__file__).resolve().parent.parent
# "Section 3.8.8", "Sections 3.2, 3.3 and 3.9", "Section 3.9's": every number after the word.
_POINTER = re.compile(r"Sections?\s+(3\.\d+(?:\.\d+)?(?:(?:,\s*|,?\s+and\s+)3\.\d+(?:\.\d+)?)*)")
_NUMBER = re.compile(r"3\.\d+(?:\.\d+)?")


@functools.cache
def _headings() -> set[str]:
    numbers = set()
    for path in sorted((ROOT / "book").glob("03-*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for line in "".join(cell["source"]).splitlines():
                match = re.match(r"#{1,2}\s+(3\.\d+(?:\.\d+)?)\b", line)
                if match:
                    numbers.add(match.group(1))
    for number in list(numbers):
        numbers.add(".".join(number.split(".")[:2]))
    return numbers


def _pointers():
    for path in sorted((ROOT / "scalinglib").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in _POINTER.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            for number in _NUMBER.findall(match.group(1)):
                yield f"{path.relative_to(ROOT)}:{line}", number.rstrip(".")


def test_the_book_has_headings():
    assert {"3.1", "3.8.8", "3.9.10"} <= _headings()


@pytest.mark.parametrize("where,number", list(_pointers()))
def test_pointer_names_a_heading(where, number):
    assert number in _headings(), f"{where} points to Section {number}, which the book does not have"


def test_the_exposed_all_reduce_points_to_its_subsection():
    """The exposed gradient all-reduce is priced in 3.8.8, not in 3.3 (where it is taken to hide)."""
    assert "Section 3.8.8 prices the exposed part" in sl.layout.__doc__
