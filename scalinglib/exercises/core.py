"""Checking a reader's answer in place: right, wrong by how much, or not answered yet.

Every exercise part is registered under a stable key such as ``"ex-3-1-1a"``
with a function that computes the expected answer from the library itself (so
no answer is typed in twice), a tolerance and a hint. :func:`check` never
raises: whatever the reader passes, it returns a :class:`Feedback` whose text
says what to do next.
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Feedback", "Part", "register", "check", "expected_answer", "registered_keys"]

UNANSWERED = (None, Ellipsis)
STATUSES = ("correct", "incorrect", "unanswered", "invalid", "unknown")
_MARKS = {"correct": "✔", "incorrect": "✘", "unanswered": "…", "invalid": "?", "unknown": "?"}


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer. Shows as a short message in a notebook."""

    key: str
    status: str
    message: str
    hint: str = ""

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __bool__(self) -> bool:  # `if check(...):` reads naturally
        return self.correct

    def text(self) -> str:
        lines = [f"{_MARKS[self.status]} {self.key}: {self.message}"]
        if self.hint and self.status in ("incorrect", "invalid"):
            lines.append(f"  Hint: {self.hint}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        colour = {"correct": "#009E73", "incorrect": "#D55E00"}.get(self.status, "#6E6E6E")
        body = html.escape(self.text()).replace("\n", "<br>")
        return (
            f'<div class="scalinglib-check scalinglib-check-{self.status}" '
            f'style="border-left:4px solid {colour};padding:2px 8px">{body}</div>'
        )


@dataclass(frozen=True)
class Part:
    """One checkable answer.

    ``kind`` is one of:

    * ``"number"``: a real number, compared with ``rel_tol`` (relative) or
      ``abs_tol`` (absolute), whichever is looser;
    * ``"numbers"``: a list of real numbers, each compared the same way;
    * ``"choice"``: one word from ``choices`` (case and spaces ignored);
    * ``"choices"``: a list of such words, one per item.
    """

    key: str
    expected: Callable[[], Any]
    kind: str = "number"
    rel_tol: float = 1e-3
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()
    hint: str = ""
    unit: str = ""
    whole: bool = field(default=False)  #: the answer must be a whole number (a count of workers)


_REGISTRY: dict[str, Part] = {}


def register(*parts: Part) -> None:
    """Add exercise parts to the registry (each key once)."""
    for part in parts:
        if part.kind not in ("number", "numbers", "choice", "choices"):
            raise ValueError(f"unknown kind {part.kind!r} for {part.key}")
        if part.key in _REGISTRY:
            raise ValueError(f"exercise part {part.key!r} is registered twice")
        _REGISTRY[part.key] = part


def registered_keys() -> list[str]:
    """All registered exercise keys, in order of registration."""
    return list(_REGISTRY)


def expected_answer(key: str):
    """The expected answer of a registered part, as the library computes it (for tests and instructors)."""
    return _REGISTRY[key].expected()


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


# Factors that betray a slip of unit rather than of reasoning (ms for s, MB for GB, ...).
_UNIT_SLIPS = (1e3, 1e6, 1e9, 1e12)


def _close_to(ratio: float, target: float, tol: float) -> bool:
    return abs(ratio - target) <= target * max(tol, 1e-3)


def _compare_number(part: Part, given, expected) -> tuple[bool, str]:
    if part.whole and float(given) != round(float(given)):
        return False, f"{_fmt(given)} is not a whole number; this answer counts something"
    tol = max(part.abs_tol, part.rel_tol * abs(expected))
    diff = float(given) - float(expected)
    if abs(diff) <= tol:
        return True, f"{_fmt(given)}{part.unit} is right"
    direction = "high" if diff > 0 else "low"
    if expected != 0:
        ratio = float(given) / float(expected)
        percent = part.unit.strip() == "%"
        # a probability or share given as its complement (1 - p: "no leaf slow" for "some leaf slow")
        if not part.unit and 0 < float(expected) < 1 and abs(float(given) - (1 - float(expected))) <= tol:
            return False, f"{_fmt(given)} is 1 minus the expected value: the complement of what is asked?"
        # a fraction (|answer| <= 1, no unit) given as a percentage, or a percentage given as a fraction
        if not part.unit and 0 < abs(float(expected)) <= 1 and _close_to(ratio, 100, part.rel_tol):
            return False, f"{_fmt(given)} is 100 times the expected value: a percentage where a fraction is asked?"
        if percent and _close_to(ratio, 0.01, part.rel_tol):
            return False, f"{_fmt(given)} is a hundredth of the expected value: a fraction where a percentage is asked?"
        if part.unit and not percent:
            for factor in _UNIT_SLIPS:
                if _close_to(ratio, factor, part.rel_tol) or _close_to(ratio, 1 / factor, part.rel_tol):
                    return False, (f"{_fmt(given)} is off by a factor of {factor:,.0f}: check the unit "
                                   f"(the answer is in{part.unit})")
        return False, f"{_fmt(given)}{part.unit} is {abs(diff) / abs(expected):.1%} too {direction}"
    return False, f"{_fmt(given)}{part.unit} is {abs(diff):.3g} too {direction}"


def _normalise_word(value: str) -> str:
    """Case, hyphens and spaces ignored; a trailing "bound" too ("memory-bound" reads as "memory")."""
    words = value.strip().lower().replace("-", " ").split()
    if len(words) > 1 and words[-1] == "bound":
        words = words[:-1]
    return " ".join(words)


def _as_list(given) -> list | None:
    """The reader's answer as a flat list: tables (nested lists, 2-D arrays) are read row by row."""
    import numpy as np

    if isinstance(given, (str, bytes)) or isinstance(given, Mapping):
        return None
    if isinstance(given, np.ndarray):
        return given.ravel().tolist()
    if not isinstance(given, Sequence):
        return None
    flat = []
    for item in given:
        if isinstance(item, (np.ndarray, list, tuple)):
            flat.extend(np.asarray(item, dtype=object).ravel().tolist())
        else:
            flat.append(item)
    return flat


def _scalar(given):
    """A 0-d numpy array (what ``np.float64(x) * 2`` or ``arr.sum()`` may give) as a plain number."""
    import numpy as np

    if isinstance(given, np.ndarray) and given.ndim == 0:
        return given.item()
    return given


def _number_feedback(part: Part, given) -> Feedback:
    given = _scalar(given)
    if isinstance(given, str):
        return Feedback(part.key, "invalid", f"expected a number, got the text {given!r}", part.hint)
    if not _is_real(given):
        return Feedback(part.key, "invalid", f"expected a number, got {type(given).__name__}", part.hint)
    if not math.isfinite(float(given)):
        return Feedback(part.key, "invalid", f"expected a finite number, got {given}", part.hint)
    ok, msg = _compare_number(part, given, part.expected())
    return Feedback(part.key, "correct" if ok else "incorrect", msg, part.hint)


def _numbers_feedback(part: Part, given) -> Feedback:
    items = _as_list(given)
    expected = list(part.expected())
    if items is None:
        return Feedback(part.key, "invalid", f"expected a list of {len(expected)} numbers", part.hint)
    if len(items) != len(expected):
        return Feedback(part.key, "invalid", f"expected {len(expected)} numbers, got {len(items)}", part.hint)
    notes = []
    for i, (g, e) in enumerate(zip(items, expected), start=1):
        g = _scalar(g)
        if g in UNANSWERED:
            return Feedback(part.key, "unanswered", f"not answered yet: entry {i} is still ...")
        if not _is_real(g) or not math.isfinite(float(g)):
            return Feedback(part.key, "invalid", f"entry {i} should be a number, got {g!r}", part.hint)
        ok, msg = _compare_number(part, g, e)
        if not ok:
            notes.append(f"entry {i}: {msg}")
    if not notes:
        return Feedback(part.key, "correct", f"all {len(expected)} entries are right")
    right = len(expected) - len(notes)
    return Feedback(part.key, "incorrect", f"{right} of {len(expected)} right; " + "; ".join(notes), part.hint)


def _choice_ok(part: Part, given: str, expected: str) -> bool:
    return _normalise_word(given) == _normalise_word(expected)


def _choice_feedback(part: Part, given) -> Feedback:
    options = ", ".join(repr(c) for c in part.choices)
    if not isinstance(given, str):
        return Feedback(part.key, "invalid", f"expected one of {options}", part.hint)
    if _normalise_word(given) not in {_normalise_word(c) for c in part.choices}:
        return Feedback(part.key, "invalid", f"{given!r} is not one of {options}", part.hint)
    if _choice_ok(part, given, part.expected()):
        return Feedback(part.key, "correct", f"{given!r} is right")
    return Feedback(part.key, "incorrect", f"{given!r} is not right", part.hint)


def _choices_feedback(part: Part, given) -> Feedback:
    items = _as_list(given)
    expected = list(part.expected())
    options = ", ".join(repr(c) for c in part.choices)
    if items is None:
        return Feedback(part.key, "invalid", f"expected a list of {len(expected)} answers from {options}", part.hint)
    if len(items) != len(expected):
        return Feedback(part.key, "invalid", f"expected {len(expected)} answers, got {len(items)}", part.hint)
    wrong = []
    valid = {_normalise_word(c) for c in part.choices}
    for i, (g, e) in enumerate(zip(items, expected), start=1):
        if g in UNANSWERED:
            return Feedback(part.key, "unanswered", f"not answered yet: item {i} is still ...")
        if not isinstance(g, str) or _normalise_word(g) not in valid:
            return Feedback(part.key, "invalid", f"item {i}: {g!r} is not one of {options}", part.hint)
        if not _choice_ok(part, g, e):
            wrong.append(str(i))
    if not wrong:
        return Feedback(part.key, "correct", f"all {len(expected)} are right")
    return Feedback(
        part.key,
        "incorrect",
        f"{len(expected) - len(wrong)} of {len(expected)} right; look again at item {', '.join(wrong)}",
        part.hint,
    )


_DISPATCH = {
    "number": _number_feedback,
    "numbers": _numbers_feedback,
    "choice": _choice_feedback,
    "choices": _choices_feedback,
}


def check(key, answer=None) -> Feedback:
    """Check a reader's answer to exercise part ``key``.

    Parameters
    ----------
    key : str
        The part's label as printed beside the answer cell, e.g. ``"ex-3-1-1a"``.
    answer : object
        The reader's answer. ``...`` or ``None`` means not answered yet.

    Returns
    -------
    Feedback
        ``status`` is ``"correct"``, ``"incorrect"`` (with how far off),
        ``"unanswered"``, ``"invalid"`` (wrong type, with what was expected) or
        ``"unknown"`` (no such exercise). Never raises.

    Examples
    --------
    >>> check("ex-3-1-1b", ...)
    … ex-3-1-1b: not answered yet: replace ... with your answer
    >>> check("ex-3-1-1b", "twenty")
    ? ex-3-1-1b: expected a number, got the text 'twenty'
      Hint: The ceiling is the limit of S(K) as K grows without bound.
    >>> check("ex-3-1-1b", 20)
    ✔ ex-3-1-1b: 20 is right
    """
    if not isinstance(key, str) or key not in _REGISTRY:
        near = [k for k in _REGISTRY if isinstance(key, str) and key and k.startswith(key)]
        extra = f"; parts of that exercise: {', '.join(near)}" if near else ""
        return Feedback(str(key), "unknown", f"there is no exercise part called {key!r}{extra}")
    part = _REGISTRY[key]
    if answer is None or answer is Ellipsis:
        return Feedback(key, "unanswered", "not answered yet: replace ... with your answer")
    try:
        return _DISPATCH[part.kind](part, answer)
    except Exception as exc:  # a reader's odd object must never produce a traceback
        return Feedback(key, "invalid", f"could not read that answer ({type(exc).__name__})", part.hint)
