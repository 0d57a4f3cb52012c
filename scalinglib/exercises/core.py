"""Checking a reader's answer in place: right, wrong by roughly how much, or not answered yet (the exercises of every section).

Every exercise part is registered under a stable key such as ``"ex-3-1-1a"`` with a function that
computes the expected answer from the library itself (so no answer is typed in twice), its unit and
a hint. :func:`check` never raises: whatever the reader passes, it returns a ``Feedback`` whose
text says what to do next.

The rules the checker applies are the same for every part. A real number is accepted within 1% of the
expected value (any answer given to three significant figures passes); a number read off a
least-squares fit within 3% (fits done in other reasonable ways differ by that much); where the
exercise asks for *n* significant figures, when it is correctly rounded to *n* significant figures.
Counts and other whole numbers are checked exactly; word answers exactly, after case, spacing,
hyphens and underscores, a trailing "scaling" or "bound" and the part's listed synonyms are set aside.
Feedback on a wrong answer states the rule, and a band instead of a distance.

This module holds the registry, :func:`check` and what the HTML book's checker needs
(``page_data``); the pieces it is built from are modules of their own, each on the standard
library only:

* ``scalinglib.exercises.units``: the units, and the slips between units of one kind;
* ``scalinglib.exercises.messages``: ``Feedback`` and the words of every verdict;
* ``scalinglib.exercises.seals``: tolerance rules, bands, and expected values sealed as salted hashes;
* ``scalinglib.exercises.parts``: ``Part``, what an exercise part takes;
* ``scalinglib.exercises.judge``: judging one number, and the slips it names.

The book computes the seals from the library when a part is first checked; the student edition
ships only the seals (``sealed.json``, written by ``tools/student.py``), so it gives the same verdicts
without holding any expected answer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# (an import "as" itself keeps a name that tests read here, from before the checker was split into modules)
from .judge import _BINARY_PREFIXES as _BINARY_PREFIXES
from .judge import _INVERTIBLE_FAMILIES as _INVERTIBLE_FAMILIES
from .judge import _INVERTIBLE_UNITS as _INVERTIBLE_UNITS
from .judge import ANSWER, _end, _how_to_answer, _is_real, _judge, _program
from .judge import _fmt as _fmt
from .judge import _render as _render
from .judge import _widest_tolerance as _widest_tolerance
from .messages import _MARKS, MESSAGES, UNANSWERED, Feedback, _say
from .parts import WORD_SPACES, WORD_TRAILERS, Part, _normalise_word
from .seals import BAND_STEPS, Seal
from .seals import BANDS as BANDS
from .units import UNITS, get_unit
from .units import _slips as _slips

__all__ = ["Feedback", "Part", "register", "check", "registered_keys", "UNITS"]


_REGISTRY: dict[str, Part] = {}
_SEALS: dict[str, list[Seal]] = {}
SEALED_FILE = Path(__file__).with_name("sealed.json")


def register(*parts: Part) -> None:
    """Add exercise parts to the registry (each key once)."""
    for part in parts:
        if part.kind not in ("number", "numbers", "choice", "choices"):
            raise ValueError(f"unknown kind {part.kind!r} for {part.key}")
        if part.key in _REGISTRY:
            raise ValueError(f"exercise part {part.key!r} is registered twice")
        if part.kind in ("choice", "choices"):
            if not part.choices:
                raise ValueError(f"{part.key}: a word answer needs its choices")
        else:
            if not part.unit:
                raise ValueError(f"{part.key}: a number needs its unit (a key of UNITS, e.g. 'ms' or 'ratio')")
            for key in (part.unit if isinstance(part.unit, tuple) else (part.unit,)):
                get_unit(key)
        _REGISTRY[part.key] = part


def registered_keys() -> list[str]:
    """All registered exercise keys, in order of registration."""
    return list(_REGISTRY)


# --- full edition only ---
def expected_answer(key: str):
    """The expected answer of a registered part, as the library computes it (for tests and instructors).

    Only the book has it: the student edition holds sealed answers and no such function.
    """
    part = _REGISTRY[key]
    if part.expected is None:
        raise KeyError(f"{key}: this edition holds no expected answers")
    return part.expected()


def seal_all(pad: bool = True) -> dict:
    """The sealed table of every registered part (fresh salts), for the student edition."""
    return {"version": 1, "parts": [{"part": _with_size(part).metadata(),
                                      "seals": [s.to_json() for s in _build_seals(part, pad=pad)]}
                                     for part in _REGISTRY.values()]}


def _with_size(part: Part) -> Part:
    if part.kind in ("numbers", "choices"):
        return Part(**{**part.__dict__, "size": len(list(part.expected()))})
    return part
# --- end full edition only ---


def load_sealed(path: Path | str = SEALED_FILE) -> int:
    """Register every part of a sealed table (the student edition's ``sealed.json``); returns how many."""
    data = json.loads(Path(path).read_text())
    for item in data["parts"]:
        part = Part.from_metadata(item["part"])
        register(part)
        _SEALS[part.key] = [Seal.from_json(s) for s in item["seals"]]
    return len(data["parts"])


def _build_seals(part: Part, pad: bool = False) -> list[Seal]:
    value = part.expected()
    if part.kind == "number":
        return [Seal.of_number(value, part.rule_of(0), pad=pad)]
    if part.kind == "numbers":
        return [Seal.of_number(v, part.rule_of(i), pad=pad) for i, v in enumerate(list(value))]
    words = [value] if part.kind == "choice" else list(value)
    canon = part.choice_map()
    return [Seal.of_word(canon[_normalise_word(w)]) for w in words]


def _seals(part: Part) -> list[Seal]:
    if part.key not in _SEALS:
        _SEALS[part.key] = _build_seals(part)
    return _SEALS[part.key]


def _shown(value) -> str:
    """``repr(value)``, or the name of its type when its ``repr`` fails (a reader's object may raise there)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any error of a reader's __repr__
        return f"an object of type {type(value).__name__}"
    return text if isinstance(text, str) else f"an object of type {type(value).__name__}"


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
    how = _how_to_answer(part)
    if isinstance(given, str):
        return Feedback(part.key, "invalid", _say("text", given=repr(given), how=how), part.hint)
    if not _is_real(given):
        return Feedback(part.key, "invalid", _say("type", given=type(given).__name__, how=how), part.hint)
    if not math.isfinite(float(given)):
        return Feedback(part.key, "invalid", _say("finite", given=given, how=how), part.hint)
    ok, msg = _judge(part, 0, _seals(part)[0], given)
    if ok:
        return Feedback(part.key, "correct", msg)
    return Feedback(part.key, "incorrect", _say("wrong", message=_end(msg), how=how), part.hint)


def _numbers_feedback(part: Part, given) -> Feedback:
    items = _as_list(given)
    seals = _seals(part)
    n = len(seals)
    how = _how_to_answer(part, n)
    if items is None:
        return Feedback(part.key, "invalid", _say("not_list", n=n, how=how), part.hint)
    if len(items) != n:
        return Feedback(part.key, "invalid", _say("count", n=n, m=len(items), how=how), part.hint)
    notes = []
    for i, (g, seal) in enumerate(zip(items, seals)):
        g = _scalar(g)
        if g in UNANSWERED:
            return Feedback(part.key, "unanswered", _say("entry_blank", i=i + 1))
        if not _is_real(g) or not math.isfinite(float(g)):
            return Feedback(part.key, "invalid", _say("entry_text", i=i + 1, given=repr(g), how=how), part.hint)
        ok, msg = _judge(part, i, seal, g)
        if not ok:
            notes.append(_say("entry", i=i + 1, message=msg))
    if not notes:
        return Feedback(part.key, "correct", _say("entries_right", n=n))
    right = n - len(notes)
    message = _end(_say("entries_wrong", right=right, n=n, notes=MESSAGES["notes_joint"].join(notes)))
    return Feedback(part.key, "incorrect", _say("wrong", message=message, how=how), part.hint)


def _canonical(part: Part, given) -> str | None:
    """The canonical choice the reader's word stands for, or None."""
    if isinstance(given, bool) and {"yes", "no"} <= set(part.canonical_choices()):
        return "yes" if given else "no"
    if not isinstance(given, str):
        return None
    return part.choice_map().get(_normalise_word(given))


def _choice_feedback(part: Part, given) -> Feedback:
    how = _how_to_answer(part)
    word = _canonical(part, given)
    if word is None:
        shown = repr(given) if isinstance(given, str) else type(given).__name__
        return Feedback(part.key, "invalid", _say("word_invalid", given=shown, how=how), part.hint)
    if _seals(part)[0].accepts(word):
        return Feedback(part.key, "correct", _say("word_right", given=repr(given)))
    return Feedback(part.key, "incorrect", _say("word_wrong", given=repr(given), how=how), part.hint)


def _choices_feedback(part: Part, given) -> Feedback:
    items = _as_list(given)
    seals = _seals(part)
    n = len(seals)
    how = _how_to_answer(part)
    if items is None:
        return Feedback(part.key, "invalid", _say("not_words", n=n, how=how), part.hint)
    if len(items) != n:
        return Feedback(part.key, "invalid", _say("words_count", n=n, m=len(items), how=how), part.hint)
    wrong = []
    for i, (g, seal) in enumerate(zip(items, seals), start=1):
        if g in UNANSWERED:
            return Feedback(part.key, "unanswered", _say("item_blank", i=i))
        word = _canonical(part, g)
        if word is None:
            return Feedback(part.key, "invalid", _say("item_invalid", i=i, given=repr(g), how=how), part.hint)
        if not seal.accepts(word):
            wrong.append(str(i))
    if not wrong:
        return Feedback(part.key, "correct", _say("items_right", n=n))
    return Feedback(part.key, "incorrect", _say("items_wrong", right=n - len(wrong), n=n,
                                                items=MESSAGES["items_joint"].join(wrong), how=how), part.hint)


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
        ``status`` is ``"correct"``, ``"incorrect"`` (with a band, the unit and the tolerance),
        ``"unanswered"``, ``"invalid"`` (wrong type, with what was expected) or ``"unknown"`` (no such
        exercise). Never raises.

    Examples
    --------
    >>> check("ex-3-1-1b", ...)
    … ex-3-1-1b: not answered yet: replace ... with your answer
    >>> check("ex-3-1-1b", 50)
    ✔ ex-3-1-1b: 50 is right
    >>> check("ex-3-1-1b", 49)
    ✘ ex-3-1-1b: 49 is not right: close, but too low (within 5%). Answer as a speedup: a plain ratio, no unit; accepted within 1%.
      Hint: The ceiling is the limit of S(K) as K grows without bound.
    """
    if not isinstance(key, str) or key not in _REGISTRY:
        near = [k for k in _REGISTRY if isinstance(key, str) and key and k.startswith(key)]
        extra = f"; parts of that exercise: {', '.join(near)}" if near else ""
        shown = _shown(key)
        return Feedback(key if isinstance(key, str) else shown, "unknown", _say("unknown", given=shown, extra=extra))
    part = _REGISTRY[key]
    if answer is None or answer is Ellipsis:
        return Feedback(key, "unanswered", _say("unanswered"))
    try:
        return _DISPATCH[part.kind](part, answer)
    except Exception as exc:  # a reader's odd object must never produce a traceback
        return Feedback(key, "invalid", _say("unreadable", error=type(exc).__name__), part.hint)


# --- the same checker in the HTML book -----------------------------------------------------------------


def page_data(table: Mapping, keys: Sequence[str]) -> dict:
    """What the HTML book's in-page checker needs to check the parts ``keys``, read from a sealed table (the
    book's build seals every part once; the student edition's ``sealed.json`` is that table): no expected value,
    only seals.

    The page judges a number by running the entry's program (:func:`_program`, the steps the kernel's
    :func:`_judge` runs) on its seal, and words by hashing the canonical choice; every message comes from
    :data:`MESSAGES` and the programs' templates. Compact: text pieces are listed once (``strings``, a
    template is a list of their indices, -1 standing for the answer as :func:`_fmt` prints it), identical
    programs once (``programs``), and a seal as ``[salt, accept step (0: exact), accepted, sign, bands]``
    (hashes concatenated in base64, as in ``sealed.json``).
    """
    items = {item["part"]["key"]: item for item in table["parts"]}
    strings: dict[str, int] = {}
    programs: dict[str, int] = {}

    def piece(text) -> int:
        return -1 if text is ANSWER else strings.setdefault(text, len(strings))

    def program(part: Part, i: int) -> int:
        steps = [[test, list(arg) if isinstance(arg, tuple) else arg, [piece(p) for p in template]]
                 for test, arg, template in _program(part, i)]
        return programs.setdefault(json.dumps(steps, separators=(",", ":")), len(programs))

    parts = {}
    for key in keys:
        part = Part.from_metadata(items[key]["part"])
        seals = [Seal.from_json(s) for s in items[key]["seals"]]
        sealed = [s.to_json() for s in seals]
        out: dict[str, Any] = {"kind": part.kind, "hint": part.hint,
                               "how": _how_to_answer(part, len(seals) if part.kind == "numbers" else 1)}
        if part.kind in ("number", "numbers"):
            out["entries"] = [[s["salt"], 0 if seal.rule.kind == "exact" else seal.rule.accept_step(), s["accept"],
                               s["sign"], s["bands"], program(part, i), int(part.unit_of(i).key == "%")]
                              for i, (seal, s) in enumerate(zip(seals, sealed))]
        else:
            out["entries"] = [[s["salt"], s["accept"]] for s in sealed]
            out["words"] = part.choice_map()
            out["options"] = part.listed_choices()
        parts[key] = out
    return {"version": 1, "messages": MESSAGES, "marks": _MARKS, "bandSteps": list(BAND_STEPS),
            "wordSpaces": WORD_SPACES, "wordTrailers": list(WORD_TRAILERS),
            "strings": list(strings), "programs": [json.loads(p) for p in programs], "parts": parts}
