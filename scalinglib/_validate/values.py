"""Checks of numbers and arrays of numbers, shared by every public function (every section).

Each checker turns its argument into a float (a ``numpy.float64`` for one number, a float
``numpy.ndarray`` for an array), refuses what the model cannot take with an error that names the
parameter, the offending value and the allowed range, and never lets a bad value travel into numpy
where it would surface as a warning, a NaN or an error that names nothing:

* a string, ``None``, a boolean or any other non-number is a ``TypeError``;
* NaN, an infinity, or an integer too large for a float (``10**400``) is a ``ValueError``;
* a ragged list (``[[1, 2], [3]]``) or a list mixing numbers and other things is refused by name.

The checks are cheap: one number is checked with plain comparisons (no array is made), an array
with at most one conversion and one ``min``/``max`` pass (NaN and infinities show up in those too;
whole numbers are checked in cache-sized chunks, :func:`checked_in_chunks`).

Sizes that would hang a notebook (nodes of a DAG, requests of a simulation, pixels of a figure) are
capped with :func:`check_size` (or ``single_whole``'s ``maximum``); the cap and the reason are in
the message.
"""

from __future__ import annotations

import math
import numbers
import threading
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "check_positive",
    "check_nonnegative",
    "check_fraction",
    "check_whole",
    "checked_in_chunks",
    "chunkable",
    "check_at_least",
    "check_size",
    "MAX_COUNT",
]


#: The largest count a float holds exactly; a count past it (or past int64) is refused, never wrapped.
MAX_COUNT = 2**53

_INF = math.inf
_F64 = np.float64
_NDARRAY = np.ndarray


def _describe(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**20:
        return f"an integer of {len(str(abs(value)))} digits"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still described
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def _fmt(x) -> str:
    """A number for a message: whole numbers with thousands separators, others with %g."""
    x = float(x)
    if math.isfinite(x) and x == int(x) and abs(x) < 1e16:
        return f"{int(x):,}" if abs(x) >= 10_000 else f"{int(x)}"
    return f"{x:g}"


# ------------------------------------------------------------------------------------------------
# converting one argument


def _not_a_number(name: str, value: Any) -> TypeError:
    if isinstance(value, (bool, np.bool_)):
        return TypeError(f"{name} must be a real number, not a boolean (True/False); got {value!r}")
    return TypeError(f"{name} must be a real number or an array of real numbers; got {_describe(value)}")


def _too_large(name: str, value: Any) -> ValueError:
    return ValueError(f"{name} must be a finite number; got {_describe(value)}, too large for a float "
                      "(beyond 1.8e308)")


def _from_sequence(name: str, value: Any) -> np.ndarray:
    """A list or tuple as a float array, refusing ragged nesting, non-numbers, booleans and huge ints."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be a number or a rectangular array of numbers (every row of the same "
                         f"length); got {_describe(value)}") from None
    except OverflowError:
        raise _too_large(name, value) from None
    return _from_array(name, arr, value)


def _from_array(name: str, arr: np.ndarray, original: Any) -> np.ndarray:
    kind = arr.dtype.kind
    if kind == "f":
        return arr if arr.dtype == np.float64 else arr.astype(np.float64)
    if kind in "iu":
        return arr.astype(np.float64)
    if kind == "b":
        raise TypeError(f"{name} must hold real numbers, not booleans (True/False); got {_describe(original)}")
    if kind == "O":
        flat = arr.ravel()
        for item in flat:
            if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
                raise TypeError(f"{name} must hold real numbers only; got {_describe(item)} in {_describe(original)}")
        try:
            return arr.astype(np.float64)
        except OverflowError:
            raise _too_large(name, next(v for v in flat if abs(v) > 1e308)) from None
    raise TypeError(f"{name} must hold real numbers; got an array of {arr.dtype} {_describe(original)}")


def _real(name: str, value: Any):
    """One number as ``numpy.float64`` or an array as a float64 ndarray (0-d arrays count as one number).

    No range check here, not even finiteness: each checker folds that into its own comparison.
    """
    t = type(value)
    if t is float or t is _F64:
        return _F64(value)
    if t is int:
        if -1e308 < value < 1e308:   # comparing an int with a float is exact, whatever its size
            return _F64(value)
        raise _too_large(name, value)
    if t is _NDARRAY:
        arr = _from_array(name, value, value)
    elif t is list or t is tuple:
        arr = _from_sequence(name, value)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray):       # a subclass of ndarray
            arr = _from_array(name, np.asarray(value), value)
        elif isinstance(value, (list, tuple)):
            arr = _from_sequence(name, value)
        else:
            raise _not_a_number(name, value)
    else:                                       # numpy scalars, fractions, decimals
        try:
            return _F64(float(value))
        except OverflowError:
            raise _too_large(name, value) from None
    if arr.ndim == 0:
        return _F64(arr)
    return arr


def _first_bad(arr, mask) -> str:
    """The first offending value, and its index for an array."""
    if np.ndim(arr) == 0:
        return _fmt(arr)
    mask = np.broadcast_to(mask, np.shape(arr))
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    where = index[0] if len(index) == 1 else index
    return f"{_fmt(np.asarray(arr)[index])} (at index {where})"


def _refuse(name: str, x, ok, rule: str):
    """Raise the error for the first value of ``x`` that is not finite, or else not ``ok``."""
    finite = np.isfinite(x)
    if not np.all(finite):
        raise ValueError(f"{name} must be finite (no NaN or infinity); got {_first_bad(x, ~finite)}")
    raise ValueError(f"{name} must be {rule}; got {_first_bad(x, ~ok(x))}")


# ------------------------------------------------------------------------------------------------
# the checkers


def as_float_array(name: str, value: Any):
    """One number or an array of numbers as floats, refusing non-numbers, NaN and infinity."""
    x = _real(name, value)
    if type(x) is _F64:
        if -_INF < x < _INF:
            return x
    elif not x.size or (-_INF < x.min() and x.max() < _INF):
        return x
    _refuse(name, x, lambda a: np.isfinite(a), "finite")


def check_positive(name: str, value: Any):
    """Values strictly greater than zero (and finite)."""
    x = _real(name, value)
    if type(x) is _F64:
        if 0.0 < x < _INF:
            return x
    elif not x.size or (x.min() > 0.0 and x.max() < _INF):
        return x
    _refuse(name, x, lambda a: a > 0, "> 0")


def check_nonnegative(name: str, value: Any):
    """Values greater than or equal to zero (and finite)."""
    x = _real(name, value)
    if type(x) is _F64:
        if 0.0 <= x < _INF:
            return x
    elif not x.size or (x.min() >= 0.0 and x.max() < _INF):
        return x
    _refuse(name, x, lambda a: a >= 0, ">= 0")


def check_at_least(name: str, value: Any, minimum: float):
    """Values greater than or equal to ``minimum`` (and finite)."""
    x = _real(name, value)
    if type(x) is _F64:
        if minimum <= x < _INF:
            return x
    elif not x.size or (x.min() >= minimum and x.max() < _INF):
        return x
    _refuse(name, x, lambda a: a >= minimum, f">= {_fmt(minimum)}")


def check_fraction(name: str, value: Any, *, open_low: bool = False, open_high: bool = False):
    """Values in [0, 1], with either end excluded on request."""
    x = _real(name, value)
    if type(x) is _F64:
        lo = hi = x
    elif not x.size:
        return x
    else:
        lo, hi = x.min(), x.max()
    if (lo > 0.0 if open_low else lo >= 0.0) and (hi < 1.0 if open_high else hi <= 1.0):
        return x
    interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")

    def ok(a):
        return ((a > 0) if open_low else (a >= 0)) & ((a < 1) if open_high else (a <= 1))

    _refuse(name, x, ok, f"in {interval}")


_SCRATCH = threading.local()


def _scratch() -> tuple[np.ndarray, np.ndarray]:
    """This thread's scratch buffers of the chunked checks (a float and a bool buffer of one chunk each), made
    once. Half a megabyte made at each call costs fresh pages, or not, depending on what the allocator did
    before: the time of a call moved from one process to the next."""
    buffers = getattr(_SCRATCH, "buffers", None)
    if buffers is None:
        buffers = _SCRATCH.buffers = (np.empty(_CHUNK), np.empty(_CHUNK, dtype=bool))
    return buffers


def _whole_within(x: np.ndarray, minimum: float, top: float) -> bool:
    """Whether every element of a float array is a whole number from ``minimum`` to ``top``.

    One pass in cache-sized chunks: each chunk is truncated into a scratch buffer and compared, and
    its min and max read while it is still in the cache (NaN fails every comparison; no large
    temporary array is made).
    """
    flat = x.ravel()
    if flat.size <= 8192:
        return bool(minimum <= flat.min() and flat.max() <= top and np.all(np.trunc(flat) == flat))
    return all(_whole_chunk(chunk, minimum, top, values, marks) for chunk, values, marks in _chunks(flat))


def _chunks(flat: np.ndarray):
    """``(chunk, values, marks)`` for each cache-sized chunk of ``flat``, with this thread's scratch buffers
    cut to the chunk's length (only the short last chunk needs a slice)."""
    scratch, differs = _scratch()
    size = flat.size
    for start in range(0, size, _CHUNK):
        stop = start + _CHUNK
        if stop > size:
            yield flat[start:], scratch[:size - start], differs[:size - start]
        else:
            yield flat[start:stop], scratch, differs


def _whole_chunk(chunk: np.ndarray, minimum: float, top: float, values: np.ndarray, marks: np.ndarray) -> bool:
    """Whether every element of a float chunk is a whole number from ``minimum`` to ``top`` (NaN fails every
    comparison); ``values`` and ``marks`` are scratch buffers of the chunk's length."""
    return bool(minimum <= _LOWEST(chunk) and _HIGHEST(chunk) <= top
                and not _ANY_TRUE(np.not_equal(np.trunc(chunk, out=values), chunk, out=marks)))


#: The reductions of the chunked checks, looked up once.
_LOWEST, _HIGHEST, _ANY_TRUE = np.minimum.reduce, np.maximum.reduce, np.logical_or.reduce


#: Arrays at least this long may be checked and computed chunk by chunk (:func:`checked_in_chunks`).
CHUNKED_MIN = 65536
#: Elements per chunk: a chunk, its part of the result and the scratch buffers (about 800 kB) stay in the
#: core's cache even while other work shares it. Chunks of 64 Ki elements ran 5-10% slower on a busy machine
#: (strong_time against raw numpy, both sizes alternated in one process) and 3% slower on a quiet one.
_CHUNK = 32768


def checked_in_chunks(x: np.ndarray, kind: str, compute):
    """Compute from a long float64 or int64 array and check it, one cache-sized chunk at a time.

    ``kind`` is ``"whole"`` (whole numbers from 1 up, finite) or ``"fraction"`` (in [0, 1]). For each
    chunk, ``compute(chunk, out, scratch)`` writes that chunk's results into ``out`` (``scratch`` is a float
    buffer of the same length), and then the chunk is checked while it is still in the cache: the formula's
    divisions hide the fetch of the chunk from memory, which a check run first would wait for. Bad values
    may be computed on before they are found, so floating-point warnings are silenced here; their
    results are thrown away. A formula computed this way makes no array-sized temporaries. Returns the
    results in the shape of ``x``, or None at the first chunk that fails, without a word: the caller then
    runs the full check, which names the bad value.

    The loop calls the reductions as ufunc methods and slices the scratch buffers only for a short last
    chunk: on a million elements the Python around the numpy calls cost about 5% of the call.
    """
    flat = x.ravel()
    out = np.empty(flat.shape)
    whole, floats = kind == "whole", x.dtype.kind == "f"
    scratch, differs = _scratch()
    size = flat.size
    with np.errstate(all="ignore"):
        for start in range(0, size, _CHUNK):              # as _chunks, without a generator in the hot loop
            stop = start + _CHUNK
            chunk = flat[start:stop]
            values, marks = (scratch, differs) if stop <= size else (scratch[:size - start], differs[:size - start])
            compute(chunk, out[start:start + chunk.size], values)
            if whole:
                if not (_whole_chunk(chunk, 1, _MAX_FLOAT, values, marks) if floats else 1 <= _LOWEST(chunk)):
                    return None
            elif not (0.0 <= _LOWEST(chunk) and _HIGHEST(chunk) <= 1.0):       # also false for NaN
                return None
    return out.reshape(x.shape)


def chunkable(x) -> bool:
    """Whether ``x`` is an array that :func:`checked_in_chunks` takes (long, float64 or int64)."""
    return type(x) is _NDARRAY and x.size >= CHUNKED_MIN and x.dtype.kind in "fi" and x.dtype.itemsize == 8


def check_whole(name: str, value: Any, minimum: int = 1, maximum: int | None = None, *, why: str | None = None,
                keep_int: bool = False):
    """Whole numbers (ints, or floats with no fractional part) of at least ``minimum``, at most ``maximum``.

    Without ``maximum`` any finite whole number passes (every float from 2**53 up is whole; a count
    that must become an exact int is capped where it is converted, see :func:`as_count`). A cap set
    for speed gives ``why`` (for example ``"a notebook-sized simulation"``), which the message quotes.
    With ``keep_int`` an integer numpy array comes back as it is, not converted to float: for
    formulas that only divide by it, multiply it with floats or take its logarithm (numpy converts
    as it computes, with no temporary array).
    """
    top = _MAX_FLOAT if maximum is None else maximum
    t = type(value)
    if t is int:                            # the commonest case, and the only exact one for huge ints
        if minimum <= value <= top:
            return _F64(value)
        return _whole_error(name, value, minimum, top, maximum, why)
    if keep_int and t is _NDARRAY and value.dtype.kind in "iu" and value.ndim:
        # no 64-bit integer exceeds the largest float: without a cap, the minimum is all there is to check
        if not value.size or (minimum <= value.min() and (top == _MAX_FLOAT or value.max() <= top)):
            return value
    x = _real(name, value)
    if type(x) is _F64:
        if minimum <= x <= top and x.is_integer():
            return x
        return _whole_error(name, x, minimum, top, maximum, why)
    if not x.size:
        return x
    if type(value) is _NDARRAY and value.dtype.kind in "iu":
        if minimum <= x.min() and x.max() <= top:
            return x
    elif _whole_within(x, minimum, top):
        return x
    finite = np.isfinite(x)
    if not finite.all():
        raise ValueError(f"{name} must be finite (no NaN or infinity); got {_first_bad(x, ~finite)}")
    frac = np.trunc(x) != x
    if frac.any():
        raise ValueError(f"{name} must be a whole number {_whole_range(minimum, maximum)}; got {_first_bad(x, frac)}")
    small = x < minimum
    if small.any():
        raise ValueError(f"{name} must be a whole number {_whole_range(minimum, maximum)}; got {_first_bad(x, small)}")
    _cap_error(name, top, why, _first_bad(x, x > top))


#: The largest finite float; a whole number past it (10**400) is too large for any model here.
_MAX_FLOAT = float(np.finfo(np.float64).max)


def _whole_range(minimum, maximum) -> str:
    return f">= {minimum}"     # a cap, when there is one, has its own message


def _whole_error(name, x, minimum, top, maximum, why):
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"{name} must be finite (no NaN or infinity); got {x}")
    shown = (_describe(x) if abs(x) > 10**20 else f"{x:,}") if type(x) is int else _fmt(x)
    if x > top:
        if maximum is None:
            raise _too_large(name, x)
        _cap_error(name, top, why, shown)
    raise ValueError(f"{name} must be a whole number {_whole_range(minimum, maximum)}; got {shown}")


def _cap_error(name, top, why, shown):
    reason = f" ({why})" if why else ""
    raise ValueError(f"{name} must be <= {top:,}{reason}; got {shown}")


def check_size(name: str, size: float, limit: int, why: str, what: str | None = None) -> None:
    """Refuse a derived size (``k x n_steps`` draws, nodes of a DAG, pixels) above ``limit``.

    ``name`` is the parameter (or parameters) to blame; ``what`` says how the size is made.
    """
    if not size <= limit:
        made = f" ({what})" if what else ""
        raise ValueError(f"{name} asks for {_fmt(size)}{made}; the limit is {limit:,} ({why})")
