"""Checking a reader's answer in place: right, wrong by roughly how much, or not answered yet.

Every exercise part is registered under a stable key such as ``"ex-3-1-1a"`` with a function that
computes the expected answer from the library itself (so no answer is typed in twice), its unit and
a hint. :func:`check` never raises: whatever the reader passes, it returns a :class:`Feedback` whose
text says what to do next.

The rules the checker applies, the same for every part:

* **Tolerance.** A real number is accepted within 1% of the expected value (any answer given to three
  significant figures passes); a number read off a least-squares fit within 3% (fits done in other
  reasonable ways differ by that much); where the exercise asks for *n* significant figures, when it is
  correctly rounded to *n* significant figures. Counts and other whole numbers are checked exactly;
  word answers exactly, after case, spacing, hyphens and underscores, a trailing "scaling" or "bound"
  and the part's listed synonyms are set aside. Feedback on a wrong answer states the rule.
* **Bands, not distances.** A wrong number is placed in a band (within 5%, within 25%, within a factor
  of 2, within a factor of 10, further) with its direction; the checker never prints how far off it is.
* **Slips.** A number that would be right in another unit of the same kind (seconds for days, bytes for
  GB, a percentage for a fraction, ...) is named as a unit slip. A size or a rate in bytes that is off by
  a factor of 8 is named as bits for bytes (Gb/s read as GB/s, or the reverse), and one off by the ratio of a binary
  to a decimal prefix (1.024**2, 1.024**3 or 1.024**4: MiB, GiB or TiB against MB, GB or TB) as the two prefixes
  mixed up. For probabilities and shares, an answer that is one minus the expected value is named as the complement.
* **An inverted ratio.** Where a reciprocal is a plausible slip (a ratio, a speedup, a share, a rate: time per
  item for items per second), a wrong answer whose reciprocal lies in the nearest band (within 5%) is told it may
  be the ratio inverted. The message is the same wherever in that band the reciprocal lies, so it says no more
  about the expected value than a band does.

The check does not compare the answer with the expected value directly. Each expected value is *sealed*
first: the numbers the rule accepts, and each band, are cut into bins on a fixed logarithmic grid, and
only salted hashes of those bins are kept (:class:`Seal`). An answer is checked by hashing the bins it
falls in. The book computes the seals from the library when a part is first checked; the student edition
ships only the seals (``sealed.json``, written by ``tools/student.py``), so it gives the same verdicts
without holding any expected answer.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import numbers
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Feedback", "Part", "register", "check", "registered_keys", "UNITS"]

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
        lines = [_say("line", mark=_MARKS[self.status], key=self.key, message=self.message)]
        if self.hint and self.status in ("incorrect", "invalid"):
            lines.append(_say("hint", hint=self.hint))
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


# --- units -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """The unit of an answer: how it is printed, how the reader is asked for it, and its family.

    Units of one family differ by a known factor (``scale`` in the family's base unit); an answer that
    is right in another unit of the family is named as a unit slip.
    """

    key: str
    symbol: str                  #: printed after a value in a verdict ("" for plain numbers and counts)
    phrase: str                  #: completes "Answer ...": "in milliseconds (ms)"
    family: str = ""
    scale: float = 1.0
    name: str = ""               #: "seconds": used when a slip into this unit is named
    count: bool = False          #: a whole number of things


def _family(family: str, members: Sequence[tuple[str, str, str, float, str]]) -> dict[str, Unit]:
    return {key: Unit(key, symbol, phrase, family, scale, name) for key, symbol, phrase, scale, name in members}


UNITS: dict[str, Unit] = {
    **_family("time", [
        ("µs", " µs", "in microseconds (µs)", 1e-6, "microseconds"),
        ("ms", " ms", "in milliseconds (ms)", 1e-3, "milliseconds"),
        ("s", " s", "in seconds (s)", 1.0, "seconds"),
        ("min", " min", "in minutes", 60.0, "minutes"),
        ("h", " h", "in hours", 3600.0, "hours"),
        ("days", " days", "in days", 86400.0, "days"),
    ]),
    **_family("bytes", [
        ("bytes", " bytes", "in bytes", 1.0, "bytes"),
        ("KB", " KB", "in KB (1e3 bytes)", 1e3, "KB"),
        ("MB", " MB", "in MB (1e6 bytes)", 1e6, "MB"),
        ("GB", " GB", "in GB (1e9 bytes)", 1e9, "GB"),
        ("TB", " TB", "in TB (1e12 bytes)", 1e12, "TB"),
    ]),
    **_family("byte rate", [
        ("bytes/s", " bytes/s", "in bytes per second", 1.0, "bytes/s"),
        ("MB/s", " MB/s", "in MB/s (1e6 bytes per second)", 1e6, "MB/s"),
        ("GB/s", " GB/s", "in GB/s (1e9 bytes per second)", 1e9, "GB/s"),
        ("TB/s", " TB/s", "in TB/s (1e12 bytes per second)", 1e12, "TB/s"),
    ]),
    **_family("flops", [
        ("FLOPs", " FLOPs", "in FLOPs (single operations, not GFLOPs or TFLOPs)", 1.0, "FLOPs"),
        ("GFLOPs", " GFLOPs", "in GFLOPs (1e9 FLOPs)", 1e9, "GFLOPs"),
        ("TFLOPs", " TFLOPs", "in TFLOPs (1e12 FLOPs)", 1e12, "TFLOPs"),
    ]),
    **_family("flop rate", [
        ("FLOP/s", " FLOP/s", "in FLOP/s", 1.0, "FLOP/s"),
        ("GFLOP/s", " GFLOP/s", "in GFLOP/s (1e9 FLOP/s)", 1e9, "GFLOP/s"),
        ("TFLOP/s", " TFLOP/s", "in TFLOP/s (1e12 FLOP/s)", 1e12, "TFLOP/s"),
        ("PFLOP/s", " PFLOP/s", "in PFLOP/s (1e15 FLOP/s)", 1e15, "PFLOP/s"),
    ]),
    **_family("money", [
        ("$", "", "in dollars", 1.0, "dollars"),
        ("thousand $", "", "in thousands of dollars", 1e3, "thousands of dollars"),
        ("million $", "", "in millions of dollars", 1e6, "millions of dollars"),
    ]),
    **_family("price per token", [
        ("$ per token", "", "in dollars per token", 1e-6, "dollars per token"),
        ("$ per thousand tokens", "", "in dollars per thousand tokens", 1e-3, "dollars per thousand tokens"),
        ("$ per million tokens", "", "in dollars per million tokens", 1.0, "dollars per million tokens"),
    ]),
    **_family("share", [
        ("fraction", "", "as a fraction (0.25, not 25%)", 1.0, "a fraction"),
        ("%", " %", "as a percentage (25 for 25%)", 0.01, "a percentage"),
        ("efficiency", "", "as a plain number (0.8 for 80%; it may exceed 1)", 1.0, "an efficiency"),
    ]),
    **_family("device time", [
        ("GPU-seconds", "", "in GPU-seconds", 1.0, "GPU-seconds"),
        ("GPU-ms", "", "in GPU-milliseconds", 1e-3, "GPU-milliseconds"),
        ("GPU-hours", "", "in GPU-hours", 3600.0, "GPU-hours"),
    ]),
    **_family("tokens", [
        ("tokens", " tokens", "in tokens", 1.0, "tokens"),
        ("thousand tokens", "", "in thousands of tokens", 1e3, "thousands of tokens"),
        ("million tokens", "", "in millions of tokens", 1e6, "millions of tokens"),
    ]),
    **_family("token rate", [
        ("tokens/s", " tokens/s", "in tokens per second", 1.0, "tokens per second"),
        ("tokens/ms", " tokens/ms", "in tokens per millisecond", 1e3, "tokens per millisecond"),
        ("tokens/min", " tokens/min", "in tokens per minute", 1 / 60, "tokens per minute"),
        ("tokens/h", " tokens/h", "in tokens per hour", 1 / 3600, "tokens per hour"),
    ]),
    **_family("request rate", [
        ("requests/s", " requests/s", "in requests per second", 1.0, "requests per second"),
        ("requests/ms", " requests/ms", "in requests per millisecond", 1e3, "requests per millisecond"),
        ("requests/min", " requests/min", "in requests per minute", 1 / 60, "requests per minute"),
        ("requests/h", " requests/h", "in requests per hour", 1 / 3600, "requests per hour"),
    ]),
    # no family: a slip into another unit is not plausible
    "ratio": Unit("ratio", "", "as a plain ratio (no unit)"),
    "speedup": Unit("speedup", "", "as a speedup: a plain ratio, no unit"),
    "factor": Unit("factor", "", "as a factor: a plain number, 2 for twice"),
    "FLOP/byte": Unit("FLOP/byte", " FLOP/byte", "in FLOP per byte"),
    "T(1)": Unit("T(1)", "", "in units of the one-worker time T(1) (a plain number)"),
    "n_step,min": Unit("n_step,min", "", "in units of n_step,min (a plain number)"),
    "D_tok,min": Unit("D_tok,min", "", "in units of D_tok,min (a plain number)"),
    "coefficient": Unit("coefficient", "", "as a plain number (a fitted coefficient)"),
    "worker count": Unit("worker count", "", "as a number of workers (a real number: do not round it)"),
    "time units": Unit("time units", "", "in unit times (one addition takes one)"),
    "matrix order": Unit("matrix order", "", "as a whole number: the order x of the matrices", count=True),
    "requests": Unit("requests", "", "as a number of requests (it need not be whole)"),
    "sequences": Unit("sequences", "", "as a batch size in sequences (it need not be whole)"),
    "forward passes": Unit("forward passes", "", "in units of one forward pass of one micro-batch on one stage",
                           count=True),
    "unit steps": Unit("unit steps", "", "in unit time steps (one addition each)", count=True),
}

#: Things an answer may count; each is a unit "as a whole number of ...".
COUNT_NOUNS = ("GPUs", "workers", "replicas", "processors", "micro-batches", "sequences in the batch",
               "tokens in the batch", "additions", "operations", "unit steps", "layers")
for _noun in COUNT_NOUNS:
    UNITS.setdefault(_noun, Unit(_noun, "", f"as a whole number of {_noun}", count=True))


def get_unit(key: str) -> Unit:
    """The :class:`Unit` named ``key`` (see :data:`UNITS`)."""
    if key not in UNITS:
        raise ValueError(f"unknown unit {key!r}; known units: {', '.join(UNITS)}")
    return UNITS[key]


def _slips(unit: Unit) -> list[tuple[float, Unit]]:
    """(factor, other unit) for every unit of the family: an answer ``x`` in ``other`` is ``expected * factor``."""
    if not unit.family:
        return []
    return [(unit.scale / u.scale, u) for u in UNITS.values() if u.family == unit.family and u.key != unit.key]


# --- tolerance rules -----------------------------------------------------------------------------------

REL_TOL = 0.01      #: derived quantities
FIT_TOL = 0.03      #: quantities read off a least-squares fit


@dataclass(frozen=True)
class Rule:
    """How close an answer must be: ``rel`` (relative), ``sig`` (correctly rounded to n figures) or ``exact``."""

    kind: str
    value: float = 0.0

    def text(self) -> str:
        if self.kind == "exact":
            return "checked exactly"
        if self.kind == "sig":
            return f"accepted when correctly rounded to {int(self.value)} significant figures"
        return f"accepted within {self.value:.0%}"

    def accept_step(self) -> float:
        """Width, in natural-log units, of the bins that cover the accepted interval (fixed per rule)."""
        if self.kind == "sig":
            return 10.0 ** -self.value / 16
        return math.log1p(self.value) / 16

    def interval(self, expected: float) -> tuple[float, float]:
        e = abs(expected)
        if self.kind == "sig":
            half = 0.5 * 10.0 ** (math.floor(math.log10(e)) - int(self.value) + 1)
            lo, hi = e - half, e + half
        else:
            lo, hi = e * (1 - self.value), e * (1 + self.value)
        return lo * (1 - 1e-12), hi * (1 + 1e-12)


# --- sealing --------------------------------------------------------------------------------------------

#: The bands of a wrong answer: (upper factor, lower factor, words); the last one catches everything else.
BANDS = (
    (1.05, 0.95, "within 5%"),
    (1.25, 0.75, "within 25%"),
    (2.0, 0.5, "within a factor of 2"),
    (10.0, 0.1, "within a factor of 10"),
    (1e15, 1e-15, "by more than a factor of 10"),
)
#: Grid steps of the bands, in natural-log units (fixed, so a seal says nothing about its value).
BAND_STEPS = (math.log(1.05) / 8, math.log(1.25) / 8, math.log(2.0) / 8, math.log(10.0) / 8, math.log(10.0))
#: Every hash list of a seal is padded with random decoys to these lengths, so its length tells nothing.
_PAD = {"accept_rel": 36, "accept_sig": 168, "accept_exact": 1, "side": 12, "side_far": 16, "near": 1}
_HASH_BYTES = 6


def _h(salt: bytes, tag: str, value) -> bytes:
    return hashlib.blake2b(f"{tag}|{value}".encode(), digest_size=_HASH_BYTES, key=salt).digest()


def _h_bins(salt: bytes, tag: str, sign: int, bins: range) -> list[bytes]:
    """``[_h(salt, tag, (sign, b)) for b in bins]``, keying the hash once (a seal hashes about 150 bins)."""
    keyed = hashlib.blake2b(digest_size=_HASH_BYTES, key=salt)
    prefix = f"{tag}|({sign}, "
    out = []
    for b in bins:
        h = keyed.copy()
        h.update(f"{prefix}{b})".encode())
        out.append(h.digest())
    return out


def _bin(x: float, step: float) -> int:
    return math.floor(math.log(abs(x)) / step)


def _bins_overlapping(lo: float, hi: float, step: float) -> range:
    return range(_bin(lo, step), _bin(hi, step) + 1)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _pad(hashes: set[bytes], size: int) -> list[bytes]:
    out = set(hashes)
    while len(out) < size:
        out.add(secrets.token_bytes(_HASH_BYTES))
    return sorted(out)


@dataclass
class Seal:
    """One expected value, sealed: salted hashes of what the rule accepts and of each band.

    A seal answers two questions about a reader's ``x`` without holding the value: is ``x`` accepted,
    and in which band (and on which side) does it lie.
    """

    kind: str                           #: "number" or "word"
    rule: Rule
    salt: bytes
    accept: frozenset = frozenset()
    sign: bytes = b""
    bands: tuple = ()                   #: per band: (high hashes, low hashes, near hashes)

    @classmethod
    def of_number(cls, expected, rule: Rule, salt: bytes | None = None, pad: bool = False) -> Seal:
        salt = salt or secrets.token_bytes(16)
        e = float(expected)
        if not math.isfinite(e) or e == 0:
            raise ValueError(f"cannot seal the expected value {expected!r}: it must be finite and non-zero")
        accept: set[bytes] = set()
        if rule.kind == "exact":
            if e != round(e):
                raise ValueError(f"an exact rule needs a whole expected value, got {expected!r}")
            accept.add(_h(salt, "int", int(round(e))))
        else:
            lo, hi = rule.interval(e)
            step = rule.accept_step()
            accept.update(_h_bins(salt, "a", _sign(e), _bins_overlapping(lo, hi, step)))
        bands = []
        for i, ((up, down, _), step) in enumerate(zip(BANDS, BAND_STEPS)):
            high, low, near = set(), set(), set()
            ln_e = math.log(abs(e))
            bins = _bins_overlapping(abs(e) * down, abs(e) * up, step)
            for b, h in zip(bins, _h_bins(salt, f"L{i}", _sign(e), bins)):
                if b * step > ln_e:
                    high.add(h)
                elif (b + 1) * step <= ln_e:
                    low.add(h)
                else:
                    near.add(h)
            if pad:
                side = _PAD["side_far"] if i == len(BANDS) - 1 else _PAD["side"]
                high, low, near = _pad(high, side), _pad(low, side), _pad(near, _PAD["near"])
            bands.append((frozenset(high), frozenset(low), frozenset(near)))
        if pad:
            accept = set(_pad(accept, _PAD[f"accept_{rule.kind}"]))
        return cls("number", rule, salt, frozenset(accept), _h(salt, "sign", _sign(e)), tuple(bands))

    @classmethod
    def of_word(cls, canonical: str, salt: bytes | None = None) -> Seal:
        salt = salt or secrets.token_bytes(16)
        return cls("word", Rule("exact"), salt, frozenset({_h(salt, "w", canonical)}))

    # --- questions a seal answers
    def accepts(self, x) -> bool:
        if self.kind == "word":
            return _h(self.salt, "w", x) in self.accept
        x = float(x)
        if not math.isfinite(x) or x == 0:
            return False
        if self.rule.kind == "exact":
            return x == round(x) and _h(self.salt, "int", int(round(x))) in self.accept
        return _h(self.salt, "a", (_sign(x), _bin(x, self.rule.accept_step()))) in self.accept

    def same_sign(self, x: float) -> bool:
        return _h(self.salt, "sign", _sign(x)) == self.sign

    def band(self, x: float) -> tuple[int, str]:
        """(band index, side): side is "high", "low" or "near"; (len(BANDS), "") when beyond every band."""
        for i, ((high, low, near), step) in enumerate(zip(self.bands, BAND_STEPS)):
            h = _h(self.salt, f"L{i}", (_sign(x), _bin(x, step)))
            for side, hashes in (("high", high), ("low", low), ("near", near)):
                if h in hashes:
                    return i, side
        return len(BANDS), ""

    # --- storage
    def to_json(self) -> dict:
        def blob(hashes) -> str:
            return base64.b64encode(b"".join(sorted(hashes))).decode()

        out = {"kind": self.kind, "rule": [self.rule.kind, self.rule.value], "salt": self.salt.hex(),
               "accept": blob(self.accept)}
        if self.kind == "number":
            out["sign"] = self.sign.hex()
            out["bands"] = [[blob(h), blob(lo), blob(n)] for h, lo, n in self.bands]
        return out

    @classmethod
    def from_json(cls, data: dict) -> Seal:
        def unblob(text: str) -> frozenset:
            raw = base64.b64decode(text)
            return frozenset(raw[i:i + _HASH_BYTES] for i in range(0, len(raw), _HASH_BYTES))

        rule = Rule(data["rule"][0], float(data["rule"][1]))
        seal = cls(data["kind"], rule, bytes.fromhex(data["salt"]), unblob(data["accept"]))
        if seal.kind == "number":
            seal.sign = bytes.fromhex(data["sign"])
            seal.bands = tuple(tuple(unblob(t) for t in band) for band in data["bands"])
        return seal


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


# --- judging one number ---------------------------------------------------------------------------------


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _factor_text(factor: float) -> str:
    f = max(factor, 1 / factor)
    return f"{round(f):,}" if abs(f - round(f)) < 1e-6 * f else f"{f:,.3g}"


_ROUNDING = {
    "up": "round up: a part of one still needs a whole one",
    "down": "round down: only whole ones count",
    "none": "it comes out whole, with no rounding",
}


def _rounding(part: Part) -> str:
    return _ROUNDING.get(part.rounding, part.rounding)


#: Families whose answers can be off by the 8 bits of a byte (a link sold in Gb/s, an answer asked in GB/s).
_BYTE_FAMILIES = ("bytes", "byte rate")

#: The place of the reader's answer (as :func:`_fmt` prints it) in a message template: a template is a tuple of
#: text pieces and ``ANSWER``s, so the same template gives the kernel's message and, exported, the page's.
ANSWER = None


def _bits_template(unit: Unit, factor: float) -> tuple:
    """The verdict on an answer 8 times too large or too small in bytes or bytes per second."""
    if unit.family == "byte rate":
        example = "a link of 100 Gb/s (bits) carries 12.5 GB/s (bytes)"
    else:
        example = "8 bits make one byte"
    which = "bits where bytes are asked" if factor > 1 else "bytes divided by 8 as if they were bits"
    asked = unit.name if unit.name == "bytes" else f"{unit.name}, counted in bytes"
    return ANSWER, f" is off by a factor of 8: check the unit (the answer is in {asked}); it looks like {which}: {example}"


#: Binary against decimal prefixes: (factor, binary unit, its size, decimal unit, its size). A factor 1.024
#: (KiB for KB) is left out: it is too close to an ordinary near miss to be named.
_BINARY_PREFIXES = (
    (1.024**2, "MiB", "2^20", "MB", "1e6"),
    (1.024**3, "GiB", "2^30", "GB", "1e9"),
    (1.024**4, "TiB", "2^40", "TB", "1e12"),
)


def _widest_tolerance(rule: Rule) -> float:
    """The largest relative half-width of the interval ``rule`` accepts (0 for an exact rule)."""
    if rule.kind == "rel":
        return rule.value
    if rule.kind == "sig":
        return 5.0 * 10.0 ** -rule.value
    return 0.0


def _binary_prefix_steps(unit: Unit, rule: Rule) -> list[tuple]:
    """The steps naming a size or a byte rate off by a binary-against-decimal prefix factor.

    A factor is tried only when what the rule accepts around it cannot touch what it accepts around the
    expected value, so an ordinary near miss is never taken for a prefix slip."""
    if unit.family not in _BYTE_FAMILIES or rule.kind == "exact":
        return []
    tol = _widest_tolerance(rule)
    per_second = "/s" if unit.family == "byte rate" else ""
    steps = []
    for factor, binary, binary_size, decimal, decimal_size in _BINARY_PREFIXES:
        if (1 + tol) ** 2 >= factor:
            continue
        template = (ANSWER, f" is off by a factor of {factor:.3g}: check the unit (the answer is in "
                    f"{unit.symbol.strip() or unit.name}); it looks like binary and decimal prefixes mixed up: "
                    f"{binary}{per_second} ({binary_size} bytes{per_second}) against {decimal}{per_second} "
                    f"({decimal_size} bytes{per_second})")
        steps += [("/", factor, template), ("*", factor, template)]
    return steps


#: Units where an answer upside down (its reciprocal) is a plausible slip, with what the slip usually is.
_INVERTIBLE_FAMILIES = {
    "token rate": "time per token where tokens per unit time are asked",
    "request rate": "time per request where requests per unit time are asked",
    "byte rate": "time per byte where bytes per unit time are asked",
    "flop rate": "time per FLOP where FLOPs per unit time are asked",
}
_INVERTIBLE_UNITS = {
    "ratio": "divided the wrong way round",
    "speedup": "T(K)/T(1) where T(1)/T(K) is asked",
    "factor": "divided the wrong way round",
    "efficiency": "divided the wrong way round",
    "fraction": "divided the wrong way round",
    "T(1)": "a speedup where a time in units of T(1) is asked",
    "FLOP/byte": "bytes per FLOP where FLOPs per byte are asked",
}


def _where(index: int, side: str) -> str:
    """Where a wrong answer lies, in words, for band ``index`` (``len(BANDS)``: beyond every band) and ``side``."""
    if index == len(BANDS):
        return "far off"
    if side == "near":
        return f"close ({BANDS[index][2]}) but outside the tolerance"
    if index == 0:
        return f"close, but too {side} ({BANDS[0][2]})"
    if index == len(BANDS) - 1:
        return f"too {side} {BANDS[index][2]}"
    return f"too {side} ({BANDS[index][2]})"


def _program(part: Part, i: int) -> tuple[tuple, ...]:
    """How entry ``i`` of ``part`` judges a real number ``x``: steps ``(test, argument, template)`` tried in order;
    the first whose test holds gives the verdict (right only for ``"ok"``). The tests, all asked of the seal:

    ``"ok"``: x is accepted; ``"1-"``: 1 - x is; ``"/"``, ``"*"``: x divided or multiplied by the argument is
    (a unit slip, bits for bytes, binary prefixes); ``"inv"``: 1/x lies in the nearest band and x beyond the
    second (an inverted ratio); ``"frac"``: x is not whole; ``"zero"``; ``"sign"``: x has the wrong sign;
    ``"band"``: x lies in band ``argument = (index, side)`` (index ``len(BANDS)``: beyond every band).

    The kernel's :func:`_judge` runs these steps; the HTML book exports them (:func:`page_data`) for its
    in-page checker, which runs the same steps on the same seals.
    """
    unit, rule = part.unit_of(i), part.rule_of(i)
    shown = (ANSWER, unit.symbol)
    steps: list[tuple] = [("ok", None, (*shown, " is right"))]
    if part.share:
        what = f"did you compute {part.complement} (the complement)?" if part.complement else \
            "the complement of what is asked?"
        steps.append(("1-", None, (ANSWER, f" is 1 minus the answer: {what}")))
    for factor, other in _slips(unit):
        if unit.family == "share":
            asked = "a fraction where a percentage is asked" if unit.key == "%" else \
                "a percentage where a plain number is asked" if unit.key == "efficiency" else \
                "a percentage where a fraction is asked"
            steps.append(("/", factor, (ANSWER, f" is off by a factor of 100: {asked}?")))
        else:
            steps.append(("/", factor, (ANSWER, f" is off by a factor of {_factor_text(factor)}: check the unit "
                                                f"(the answer is in {unit.symbol.strip() or unit.name}); "
                                                f"it looks like the answer in {other.name}")))
    if unit.family in _BYTE_FAMILIES:
        steps += [("/", factor, _bits_template(unit, factor)) for factor in (8.0, 1 / 8.0)]
    steps += _binary_prefix_steps(unit, rule)
    what = _INVERTIBLE_UNITS.get(unit.key) or _INVERTIBLE_FAMILIES.get(unit.family)
    if what is not None:
        steps.append(("inv", None, (ANSWER, " is not right, but its reciprocal is within 5% of the answer: you may "
                                            f"have inverted the ratio ({what}?)")))
    whole = part.whole_of(i)
    if whole:
        steps.append(("frac", None, (ANSWER, f" is not a whole number: the answer is "
                                             f"{unit.phrase.removeprefix('as ')} ({_rounding(part)})")))
    steps.append(("zero", None, (*shown, " is zero, and the answer is not")))
    steps.append(("sign", None, (*shown, " has the wrong sign")))
    after = f"; whole numbers are checked exactly ({_rounding(part)})" if whole else ""
    for index in range(len(BANDS) + 1):
        for side in ("high", "low", "near") if index < len(BANDS) else ("",):
            steps.append(("band", (index, side), (*shown, " is not right: ", _where(index, side), after)))
    return tuple(steps)


def _render(template: tuple, answer: str) -> str:
    return "".join(answer if piece is ANSWER else piece for piece in template)


def _holds(test: str, argument, seal: Seal, x: float, bands: dict) -> bool:
    """Whether step ``test`` of a program holds for the real number ``x`` (``bands`` remembers ``seal.band``)."""
    def band(y: float) -> tuple[int, str]:
        if y not in bands:
            bands[y] = seal.band(y)
        return bands[y]

    if test == "ok":
        return seal.accepts(x)
    if test == "1-":
        return math.isfinite(1 - x) and seal.accepts(1 - x)
    if test == "/":
        return seal.accepts(x / argument)
    if test == "*":
        return seal.accepts(x * argument)
    if test == "inv":
        return x != 0 and math.isfinite(1 / x) and band(1 / x)[0] == 0 and band(x)[0] >= 2
    if test == "frac":
        return x != round(x)
    if test == "zero":
        return x == 0
    if test == "sign":
        return not seal.same_sign(x)
    if test == "band":
        return band(x) == tuple(argument)
    raise ValueError(f"unknown step {test!r}")


_PROGRAMS: dict[tuple[str, int], tuple[Part, tuple]] = {}


def _judge(part: Part, i: int, seal: Seal, x) -> tuple[bool, str]:
    """(right?, message) for entry ``i`` of ``part`` answered with the real number ``x``: the first step of
    :func:`_program` that holds."""
    cached = _PROGRAMS.get((part.key, i))
    if cached is None or cached[0] is not part:
        cached = _PROGRAMS[(part.key, i)] = (part, _program(part, i))
    program = cached[1]
    xf, bands = float(x), {}
    for test, argument, template in program:
        if _holds(test, argument, seal, xf, bands):
            return test == "ok", _render(template, _fmt(x))
    raise AssertionError("a program ends with every band")


def _how_to_answer(part: Part, entries: int = 1) -> str:
    """ "Answer in ms; accepted within 1%." for a part, or one clause per kind of entry for a list."""
    if part.kind in ("choice", "choices"):
        options = _options(part)
        return f"Answer with {'one word' if part.kind == 'choice' else 'one word per item'}: {options} " \
               "(case, spaces, hyphens and underscores do not matter)."
    idx = range(max(entries, 1))
    phrases = [part.unit_of(i).phrase for i in idx]
    rules = [part.rule_of(i).text() for i in idx]
    if len(set(phrases)) == 1 and len(set(rules)) == 1:
        head = "Answer each entry " if part.kind == "numbers" else "Answer "
        return f"{head}{phrases[0]}; {rules[0]}."
    clauses = [f"entry {i + 1} {p}, {r}" for i, (p, r) in enumerate(zip(phrases, rules))]
    return "Answer " + "; ".join(clauses) + "."


def _end(sentence: str) -> str:
    return sentence if sentence.endswith(("?", ".")) else sentence + "."


def _options(part: Part) -> str:
    names = [repr(c) for c in part.listed_choices()]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _shown(value) -> str:
    """``repr(value)``, or the name of its type when its ``repr`` fails (a reader's object may raise there)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - any error of a reader's __repr__
        return f"an object of type {type(value).__name__}"
    return text if isinstance(text, str) else f"an object of type {type(value).__name__}"


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


#: The words around a verdict, as ``str.format`` templates: the kernel's checker and the HTML book's in-page
#: checker (which reads them from :func:`page_data`) build every message from these.
MESSAGES = {
    "line": "{mark} {key}: {message}",
    "hint": "  Hint: {hint}",
    "unanswered": "not answered yet: replace ... with your answer",
    "text": "expected a number, got the text {given}. {how}",
    "type": "expected a number, got {given}. {how}",
    "finite": "expected a finite number, got {given}. {how}",
    "wrong": "{message} {how}",
    "not_list": "expected a list of {n} numbers. {how}",
    "count": "expected {n} numbers, got {m}. {how}",
    "entry_blank": "not answered yet: entry {i} is still ...",
    "entry_text": "entry {i} should be a number, got {given}. {how}",
    "entry": "entry {i}: {message}",
    "entries_right": "all {n} entries are right",
    "entries_wrong": "{right} of {n} right; {notes}",
    "notes_joint": "; ",
    "word_invalid": "{given} is not one of the choices. {how}",
    "word_right": "{given} is right",
    "word_wrong": "{given} is not right. {how}",
    "not_words": "expected a list of {n} answers. {how}",
    "words_count": "expected {n} answers, got {m}. {how}",
    "item_blank": "not answered yet: item {i} is still ...",
    "item_invalid": "item {i}: {given} is not one of the choices. {how}",
    "items_right": "all {n} are right",
    "items_wrong": "{right} of {n} right; look again at item {items}. {how}",
    "items_joint": ", ",
    "unreadable": "could not read that answer ({error})",
    "unknown": "there is no exercise part called {given}{extra}",
}


def _say(name: str, **fields) -> str:
    return MESSAGES[name].format(**fields)


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
