"""An exercise part: what kind of answer it takes, in which unit, and the words it accepts (the exercises of every section).

A ``Part`` is registered under a stable key such as ``"ex-3-1-1a"``
(:func:`scalinglib.exercises.register`). Its kind (a number, a list of numbers, a word, a list of
words), unit and flags set the tolerance rule of each entry; its choices, with their synonyms, are
the words a word answer may be. Word answers are compared with case, spacing, hyphens and
underscores, and a trailing "scaling" or "bound", set aside (:func:`_normalise_word`).

Only the standard library is used here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .seals import FIT_TOL, REL_TOL, Rule
from .units import Unit, get_unit

__all__ = ["Part"]


# --- parts ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One checkable answer.

    ``kind`` is one of:

    * ``"number"``: a real number;
    * ``"numbers"``: a list of real numbers, each checked on its own;
    * ``"choice"``: one word from ``choices``;
    * ``"choices"``: a list of such words, one per item.

    ``unit`` names a unit of :data:`UNITS` (for a list, one unit for every entry or a tuple of one per
    entry). The tolerance follows from the part: ``whole`` (a count: exact), ``sig`` (the exercise asks
    for that many significant figures), ``fit`` (read off a least-squares fit: 3%), otherwise 1%.
    ``whole`` may also be a tuple, one flag per entry. ``share`` marks probabilities and shares, whose
    complement (1 - p) is named when given; ``complement`` may say what that complement is.
    ``rounding`` ("up", "down", "none" or a short phrase) says how a count is rounded. ``choices`` lists the words
    accepted, each with optional synonyms: ``{"ring": ("ring all-reduce",), ...}``.
    """

    key: str
    expected: Callable[[], Any] | None = None
    kind: str = "number"
    unit: str | tuple[str, ...] = ""
    hint: str = ""
    whole: bool | tuple[bool, ...] = False
    sig: int = 0
    fit: bool = False
    share: bool = False
    complement: str = ""
    rounding: str = "none"
    choices: tuple[str, ...] | Mapping[str, tuple[str, ...]] = ()
    size: int = 0                       #: number of entries of a list part (filled in when sealed)
    rel_tol: float | None = None        #: no longer used: the chapter's rule sets every tolerance
    abs_tol: float | None = None        #: no longer used

    # --- what the rule and the unit are for entry i
    def unit_of(self, i: int = 0) -> Unit:
        key = self.unit[i] if isinstance(self.unit, tuple) else self.unit
        return get_unit(key)

    def whole_of(self, i: int = 0) -> bool:
        return bool(self.whole[i] if isinstance(self.whole, tuple) else self.whole)

    def rule_of(self, i: int = 0) -> Rule:
        if self.whole_of(i):
            return Rule("exact")
        if self.sig:
            return Rule("sig", self.sig)
        return Rule("rel", FIT_TOL if self.fit else REL_TOL)

    def choice_map(self) -> dict[str, str]:
        """Every accepted spelling, normalised, mapped to its canonical choice."""
        items = self.choices.items() if isinstance(self.choices, Mapping) else ((c, ()) for c in self.choices)
        out: dict[str, str] = {}
        for canonical, synonyms in items:
            for spelling in (canonical, *synonyms, *_DEFAULT_SYNONYMS.get(canonical, ())):
                out[_normalise_word(spelling)] = canonical
        return out

    def canonical_choices(self) -> list[str]:
        return list(self.choices.keys() if isinstance(self.choices, Mapping) else self.choices)

    def listed_choices(self) -> list[str]:
        """The canonical choices in the order a reader is shown them: alphabetical, so the order says nothing
        about the answer (a part's choices are often written down in the order of its answers)."""
        return sorted(self.canonical_choices(), key=lambda c: (c.lower(), c))

    def metadata(self) -> dict:
        """Everything about the part except its answer (what the student edition stores)."""
        out = {name: getattr(self, name) for name in ("key", "kind", "hint", "sig", "fit", "share", "complement",
                                                      "rounding", "size")}
        out["unit"] = list(self.unit) if isinstance(self.unit, tuple) else self.unit
        out["whole"] = list(self.whole) if isinstance(self.whole, tuple) else self.whole
        out["choices"] = {c: list(self.choices[c]) for c in self.listed_choices()} \
            if isinstance(self.choices, Mapping) else self.listed_choices()
        return out

    @classmethod
    def from_metadata(cls, data: dict) -> Part:
        data = dict(data)
        for name in ("unit", "whole"):
            if isinstance(data[name], list):
                data[name] = tuple(data[name])
        if isinstance(data["choices"], dict):
            data["choices"] = {c: tuple(s) for c, s in data["choices"].items()}
        else:
            data["choices"] = tuple(data["choices"])
        return cls(**data)


_DEFAULT_SYNONYMS = {"yes": ("y", "true"), "no": ("n", "false")}


# --- reading the reader's answer ----------------------------------------------------------------------


#: Characters read as spaces in a word answer, and trailing words set aside (:func:`_normalise_word`).
WORD_SPACES = "-_+/,.:;'\"`"
WORD_TRAILERS = ("bound", "scaling", "limited")


def _normalise_word(value: str) -> str:
    """Case, quotes, hyphens, underscores, "+" and spacing ignored; a trailing "scaling" or "bound" too
    ("latency-bound" reads as "latency", "Gustafson scaling" as "gustafson")."""
    text = re.sub(f"[{re.escape(WORD_SPACES)}]", " ", value.strip().lower())
    words = text.split()
    while len(words) > 1 and words[-1] in WORD_TRAILERS:
        words = words[:-1]
    return " ".join(words)
