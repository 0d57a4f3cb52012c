"""The units an exercise answer is asked in, and the slips between units of one kind (the exercises of every section).

Every number part names a :class:`Unit` of :data:`UNITS`: how a value is printed, how the reader is
asked for it ("in milliseconds (ms)") and its family. Units of one family differ by a known factor, so
an answer that is right in another unit of the family (seconds for days, bytes for GB, a percentage for
a fraction) is named as a unit slip (:func:`_slips`). Counts (GPUs, workers, layers, ...) are units of
their own, asked for as whole numbers (:data:`COUNT_NOUNS`).

Only the standard library is used here: the HTML book's build loads the checker without the rest of
the library.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Unit", "UNITS", "get_unit"]


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
