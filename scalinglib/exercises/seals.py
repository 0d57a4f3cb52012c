"""Tolerance rules, bands, and expected values sealed as salted hashes (the exercises of every section).

**Tolerance.** A :class:`Rule` says how close an answer must be: within 1% of the expected value
(:data:`REL_TOL`), within 3% for a number read off a least-squares fit (:data:`FIT_TOL`), correctly
rounded to n significant figures, or exactly (counts and other whole numbers).

**Bands, not distances.** A wrong number is placed in a band (:data:`BANDS`: within 5%, within 25%,
within a factor of 2, within a factor of 10, further) with its direction; the checker never prints how
far off it is.

**Seals.** The check does not compare the answer with the expected value directly. Each expected value
is *sealed* first: the numbers the rule accepts, and each band, are cut into bins on a fixed
logarithmic grid, and only salted hashes of those bins are kept (:class:`Seal`). An answer is checked
by hashing the bins it falls in, so a table of seals gives the same verdicts without holding any
expected answer.

Only the standard library is used here.
"""

from __future__ import annotations

import base64
import hashlib
import math
import secrets
from dataclasses import dataclass

__all__ = ["Rule", "Seal", "BANDS", "REL_TOL", "FIT_TOL"]


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
