"""Input checks shared by every public function, and the wrapper every public function goes through.

Each checker turns its argument into a float (a ``numpy.float64`` for one number, a float
``numpy.ndarray`` for an array), refuses what the model cannot take with an error that names the
parameter, the offending value and the allowed range, and never lets a bad value travel into numpy
where it would surface as a warning, a NaN or an error that names nothing:

* a string, ``None``, a boolean or any other non-number is a ``TypeError``;
* NaN, an infinity, or an integer too large for a float (``10**400``) is a ``ValueError``;
* a ragged list (``[[1, 2], [3]]``) or a list mixing numbers and other things is refused by name;
* arrays whose shapes do not broadcast together are refused naming each parameter and its shape.

The checks are cheap: one number is checked with plain comparisons (no array is made), an array
with at most one conversion and one ``min``/``max`` pass (NaN and infinities show up in those too;
whole numbers are checked in cache-sized chunks). :func:`check_shapes` checks that arguments
broadcast without broadcasting them and hands single numbers back as Python floats, so a formula
costs what the same numpy expression costs.

:func:`public` wraps each public function: it silences numpy's floating-point warnings inside the
call and checks the result instead, so an overflow or a NaN becomes a ``ValueError`` that lists the
arguments, never a warning followed by a silent ``inf``. Results are also refused when negative
unless the function is declared ``signed`` (times, counts, costs and rates cannot be negative).

Sizes that would hang a notebook (nodes of a DAG, requests of a simulation, pixels of a figure) are
capped with :func:`single_whole`'s ``maximum`` or :func:`check_size`; the cap and the reason are in
the message.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import math
import numbers
import re
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
    "check_flag",
    "check_choice",
    "check_text",
    "check_format",
    "check_size",
    "check_1d",
    "check_same_length",
    "scalar_or_array",
    "check_broadcast",
    "check_shapes",
    "check_scalar",
    "single",
    "single_whole",
    "as_count",
    "public",
    "checked_record",
    "renamed",
    "check_axes",
    "check_figure",
    "check_frame",
    "check_kwargs",
    "least_squares",
    "MAX_FIGURE_INCHES",
    "MAX_DPI",
    "MAX_SIDE_PIXELS",
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


def check_flag(name: str, value: Any) -> bool:
    """A switch that must be True or False (numpy booleans too), else a TypeError naming it."""
    if value is True or value is False:
        return value
    if not isinstance(value, np.bool_):
        raise TypeError(f"{name} must be True or False; got {_describe(value)}")
    return bool(value)


def check_choice(name: str, value: Any, choices: list[str] | tuple[str, ...]) -> str:
    """A string from a fixed list (case-insensitive), returned in its canonical spelling."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_describe(value)}")
    for choice in choices:
        if value.strip().lower() == choice.lower():
            return choice
    raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_describe(value)}")


def check_text(name: str, value: Any, *, allow_empty: bool = False) -> str:
    """A string (non-empty unless ``allow_empty``)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string; got {_describe(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}")
    return value


def check_format(name: str, template: Any, *args: Any, **fields: Any) -> str:
    """A ``str.format`` template that formats the sample ``args`` and ``fields``, else an error naming it.

    ``check_format("fmt", "{:.2f}", 1.5)`` passes; ``check_format("alt", "speedup for {g}", f=0.1)``
    is a ValueError that lists the fields the template may use.
    """
    if not isinstance(template, str):
        raise TypeError(f"{name} must be a format string; got {_describe(template)}")
    try:
        template.format(*args, **fields)
    except KeyError as exc:
        allowed = ", ".join("{" + k + "}" for k in fields) or "none"
        raise ValueError(f"{name} uses the field {{{exc.args[0]}}}, which is not one of the available fields "
                         f"({allowed}); got {template!r}") from None
    except IndexError:
        raise ValueError(f"{name} uses more positional fields {{}} than there are values ({len(args)}); "
                         f"got {template!r}") from None
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"{name} is not a valid format string for these values ({exc}); got {template!r}") from None
    return template


def check_1d(name: str, arr) -> np.ndarray:
    """A one-dimensional array (a list of measurements): refuse one number or a 2-D array by name."""
    if np.ndim(arr) != 1:
        shape = np.shape(arr)
        raise ValueError(f"{name} must be a one-dimensional list of numbers; got "
                         + ("one number" if not shape else f"an array of shape {shape}"))
    return arr


def check_same_length(**arrays) -> None:
    """Refuse lists that should pair up element by element but differ in length, naming both."""
    sizes = {k: np.size(v) for k, v in arrays.items()}
    if len(set(sizes.values())) > 1:
        names = list(sizes)
        raise ValueError(f"{' and '.join(names)} must have the same length; got "
                         + " and ".join(f"{sizes[k]} ({k})" for k in names))


# ------------------------------------------------------------------------------------------------
# figures

#: Largest figure side, in inches.
MAX_FIGURE_INCHES = 40.0
#: Largest resolution of a rendered figure, in dots per inch.
MAX_DPI = 600
#: Largest side of a rendered figure, in pixels (a 4,000 x 4,000 RGBA image is 64 MB in memory).
MAX_SIDE_PIXELS = 4000


def check_axes(name: str, ax: Any):
    """A matplotlib ``Axes``."""
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"{name} must be matplotlib axes (the ax of fig, ax = new_figure()); got {_describe(ax)}")
    return ax


def check_figure(name: str, fig: Any):
    """A matplotlib ``Figure``."""
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"{name} must be a matplotlib Figure; got {_describe(fig)}")
    return fig


def check_frame(width: Any, height: Any, dpi: Any, *, names=("width", "height", "dpi")) -> tuple[float, float, int]:
    """A figure size in inches and a resolution whose image stays notebook-sized.

    Each side is a finite number > 0 of at most 40 inches, the resolution a whole number from 10 to
    600 dpi, and each side at most 4,000 pixels (``width x dpi`` and ``height x dpi``).
    """
    w_name, h_name, d_name = names
    w = single(check_positive, w_name, width)
    h = single(check_positive, h_name, height)
    d = single_whole(d_name, dpi, minimum=10, maximum=MAX_DPI, why="dots per inch a screen or a page can use")
    for side_name, side in ((w_name, w), (h_name, h)):
        if side > MAX_FIGURE_INCHES:
            raise ValueError(f"{side_name} must be <= {MAX_FIGURE_INCHES:g} inches; got {side:g}")
        check_size(f"{side_name} x {d_name}", side * d, MAX_SIDE_PIXELS, "pixels a side of a notebook image needs",
                   "pixels")
    return w, h, d


def check_kwargs(name: str, kwargs: Any) -> dict:
    """Keyword arguments passed on (a dict with string keys)."""
    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise TypeError(f"{name} must be a dict of keyword arguments; got {_describe(kwargs)}")
    return kwargs


@contextlib.contextmanager
def renamed(**names):
    """Make an inner function's refusal name the caller's parameter: ``renamed(name="device")`` turns
    ``name must be one of ...`` raised inside the block into ``device must be one of ...``."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        text = str(exc)
        for inner, outer in names.items():
            if text.startswith(inner + " "):
                raise type(exc)(outer + text[len(inner):]) from None
        raise


def scalar_or_array(result, *inputs):
    """A Python float for a one-number result, else the array (a 0-d array also becomes a float)."""
    if type(result) is _NDARRAY and result.ndim:
        return result
    return float(result)


def _shape_error(arrays) -> ValueError:
    shapes = ", ".join(f"{k} has shape {np.shape(v)}" for k, v in arrays.items() if np.ndim(v))
    return ValueError(f"array arguments must have shapes that broadcast together; {shapes}")


def check_broadcast(**arrays):
    """Broadcast the named arrays together, or say which shapes do not fit.

    When every value is a single number (``numpy.float64``) they come back unchanged, at no cost.
    Formulas that do not index with masks should prefer :func:`check_shapes`, which broadcasts nothing.
    """
    values = tuple(arrays.values())
    for v in values:
        if type(v) is _NDARRAY:
            break
    else:
        return values
    try:
        return tuple(np.broadcast_arrays(*values))
    except ValueError:
        raise _shape_error(arrays) from None


def check_shapes(**arrays) -> tuple:
    """Check that the named arrays broadcast together without broadcasting them, or say which shapes
    do not fit; return the values, each single number as a Python float.

    Formulas then combine the originals: a scalar stays a scalar, so ``s + (1 - s) / k`` costs what
    the raw numpy expression costs (a numpy scalar on the left of an array operation defeats numpy's
    reuse of temporary arrays; a Python float does not).
    """
    shapes = [v.shape for v in arrays.values() if type(v) is _NDARRAY]
    if len(shapes) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise _shape_error(arrays) from None
    return tuple(float(v) if type(v) is _F64 else v for v in arrays.values())


def check_scalar(name: str, value: Any) -> Any:
    """Refuse an array, list, tuple or anything else that is not one value where the model takes one number.

    Returns ``value`` unchanged (0-d arrays become Python scalars) for the other checkers to examine.
    """
    if isinstance(value, (list, tuple, dict, set, range)) or (isinstance(value, np.ndarray) and value.ndim > 0):
        kind = "empty " if hasattr(value, "__len__") and len(value) == 0 else ""
        raise TypeError(f"{name} must be a single number, not an {kind}array or list; got {_describe(value)}")
    if isinstance(value, np.ndarray):
        return value.item()
    return value


def single(check, name: str, value: Any, **options) -> float:
    """One number, not an array (refused by name), passed through ``check``; returned as a Python float.

    ``single(check_positive, "n_params", n_params)`` reads as "one positive n_params".
    """
    t = type(value)
    if t is not float and t is not int:
        value = check_scalar(name, value)
    return float(check(name, value, **options))


def single_whole(name: str, value: Any, minimum: int = 1, maximum: int | None = None, *,
                 why: str | None = None) -> int:
    """One whole number from ``minimum`` to ``maximum`` (default 2**53), not an array; a Python int.

    A cap set because a larger value would hang a notebook names its reason: ``why="a
    notebook-sized simulation"`` gives ``n_requests must be <= 2,000,000 (a notebook-sized
    simulation); got 9,007,199,254,740,992``.
    """
    if type(value) is not int:
        value = check_scalar(name, value)
    return int(check_whole(name, value, minimum, maximum, why=why))


def as_count(name: str, value: Any, made_of: str | None = None) -> np.ndarray | int:
    """A computed count (devices, workers, replicas) as int64, refusing one too large to represent.

    ``value`` is a float array (or scalar) already rounded to whole numbers by the caller;
    ``made_of`` says which parameters it comes from, for the message.
    """
    arr = np.asarray(value, dtype=float)
    too_big = ~np.isfinite(arr) | (np.abs(arr) > MAX_COUNT)
    if too_big.any():
        source = f" ({made_of})" if made_of else ""
        raise ValueError(f"{name} would be {_first_bad(arr, too_big)}, beyond {MAX_COUNT:,} (2**53){source}: "
                         "the inputs are out of any sensible range")
    out = arr.astype(np.int64)
    return int(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------------------------------
# the wrapper of every public function, and records that check their fields


def _problem(value, signed: bool, allow_inf, allow_nan, path=None, depth: int = 0):
    """(where, value) of the first NaN, infinity or negative number in a result that the rules refuse.

    ``allow_inf`` and ``allow_nan`` are True or collections of the keys (dicts) and field names (named
    tuples, dataclasses) where +inf, or NaN, is a documented answer.
    """
    t = type(value)
    if t is float or t is _F64:
        if 0.0 <= value < _INF or (signed and -_INF < value < _INF):
            return None
        if value == _INF and (allow_inf is True or path in allow_inf):
            return None
        if value != value and (allow_nan is True or path in allow_nan):
            return None
        return path, float(value)
    if t is int or t is bool or value is None or t is str:
        if t is int and value < 0 and not signed:
            return path, value
        return None
    if t is _NDARRAY:
        kind = value.dtype.kind
        if not value.size or kind not in "iuf":
            return None
        lo, hi = value.min(), value.max()
        if kind != "f":
            return None if signed or lo >= 0 else (path, float(lo))
        if (lo >= 0.0 or (signed and lo > -_INF)) and hi < _INF:
            return None
        bad = value[~np.isfinite(value) | (False if signed else value < 0)]
        if allow_inf is True or path in allow_inf:
            bad = bad[bad != _INF]
        if allow_nan is True or path in allow_nan:
            bad = bad[~np.isnan(bad)]
        return (path, float(bad.flat[0])) if bad.size else None
    if depth > 2:
        return None
    if isinstance(value, tuple):
        fields = getattr(value, "_fields", None)
        items = zip(fields, value) if fields else ((path, v) for v in value)
        for key, item in items:
            found = _problem(item, signed, allow_inf, allow_nan, key, depth + 1)
            if found:
                return found
        return None
    if t is dict:
        for key, item in value.items():
            found = _problem(item, signed, allow_inf, allow_nan, key, depth + 1)
            if found:
                return found
        return None
    if t is list:
        for item in value:
            found = _problem(item, signed, allow_inf, allow_nan, path, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return _problem(float(value), signed, allow_inf, allow_nan, path, depth)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found = _problem(getattr(value, f.name), signed, allow_inf, allow_nan, f.name, depth + 1)
            if found:
                return found
    return None


def _no_result(func, args, kwargs, reason: str) -> ValueError:
    """The error for inputs that are each in range but together give no representable result."""
    exc = ValueError(f"{func.__name__} has no sensible result for {_arguments(func, args, kwargs)}: {reason}; "
                     "these inputs are beyond the range the model can represent")
    exc.scalinglib_reason = reason     # lets an enclosing public function name its own arguments instead
    return exc


def least_squares(design: np.ndarray, y: np.ndarray, names: str) -> np.ndarray:
    """Least-squares coefficients of ``design @ c = y``, refusing data whose products overflow (by ``names``)."""
    if not (np.all(np.isfinite(design)) and np.all(np.isfinite(y))):
        raise ValueError(f"{names} are too large or too small to fit: their products and quotients overflow "
                         "a float")
    try:
        coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    except np.linalg.LinAlgError:
        raise ValueError(f"{names} cannot be fitted: the least-squares problem does not converge") from None
    if not np.all(np.isfinite(coef)):
        raise ValueError(f"{names} cannot be fitted: the fitted coefficients are not finite")
    return coef


def _names_a_parameter(message: str, names) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", message) for n in names)


def _arguments(func, args, kwargs) -> str:
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
        items = bound.arguments.items()
    except TypeError:
        items = [(f"argument {i + 1}", a) for i, a in enumerate(args)] + list(kwargs.items())
    return ", ".join(f"{k}={_describe(v)}" for k, v in items)


def public(func=None, *, signed: bool = False, allow_inf=(), allow_nan=(), checked: bool = True):
    """Wrap a public function: no numpy floating-point warnings inside, and a checked result.

    The result (a number, an array, or a tuple, dict, list or dataclass of them) must be finite
    and, unless ``signed``, not negative. ``allow_inf`` is True, or the keys (dict results) or
    field names (named tuples, dataclasses) that may be ``+inf`` by design (``amdahl_ceiling(0)``);
    ``allow_nan`` the same for NaN (the fields of a layout that does not fit).
    A result that breaks the rule is refused with a ValueError naming every argument: the inputs
    were beyond what the model can represent (an overflow), or outside its range. ``checked=False``
    leaves the result unexamined: one that is not a quantity (a DAG's node names), or one that is
    finite and >= 0 whenever the inputs pass their checks (Amdahl's law for f in [0, 1], K >= 1),
    where the check would only cost time.
    """
    if func is None:
        return functools.partial(public, signed=signed, allow_inf=allow_inf, allow_nan=allow_nan, checked=checked)
    inf_ok = allow_inf if allow_inf is True else frozenset(allow_inf)
    nan_ok = allow_nan if allow_nan is True else frozenset(allow_nan)
    errstate = np.errstate
    names = tuple(inspect.signature(func).parameters)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with errstate(all="ignore"):
            try:
                out = func(*args, **kwargs)
            except (ZeroDivisionError, OverflowError) as exc:   # Python float arithmetic out of range
                raise _no_result(func, args, kwargs, f"the arithmetic overflows ({exc})") from None
            except ValueError as exc:
                reason = getattr(exc, "scalinglib_reason", None)
                if reason is not None:                # a nested public function: name this one's arguments
                    raise _no_result(func, args, kwargs, reason) from None
                if _names_a_parameter(str(exc), names):
                    raise
                # an inner check that names none of this function's parameters: the inputs together
                # are out of range, so name them all
                raise _no_result(func, args, kwargs, str(exc)) from None
            if type(out) is float:
                if 0.0 <= out < _INF or (signed and -_INF < out < _INF):
                    return out
            elif not checked:
                return out
            found = _problem(out, signed, inf_ok, nan_ok)
        if found is None:
            return out
        where, value = found
        field = "" if where is None else f" (its {where!r})"
        kind = "negative" if (isinstance(value, (int, float)) and -_INF < value < 0) else "not finite"
        raise _no_result(func, args, kwargs, f"the result{field} would be {value!r}, {kind}")

    wrapper.__scalinglib_public__ = True
    return wrapper


def checked_record(check):
    """Class decorator for a ``NamedTuple``: ``check(record)`` runs whenever one is made by calling the class.

    ``check`` raises a ValueError or TypeError naming the field; it may return the field values
    to store instead (plain floats for numpy scalars, say). ``_make`` and ``_replace`` skip it.
    """
    def decorate(cls):
        base_new = cls.__new__

        @functools.wraps(base_new)
        def __new__(klass, *args, **kwargs):
            record = base_new(klass, *args, **kwargs)
            values = check(record)
            return record if values is None else base_new(klass, *values)

        cls.__new__ = __new__
        return cls

    return decorate
