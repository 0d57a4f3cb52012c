"""Input checks shared by every public function.

Each checker turns its argument into a float numpy array (or leaves a Python
scalar a scalar), refuses what the model cannot take with an error that names
the parameter, the offending value and the allowed range, and never lets a bad
value travel into numpy where it would surface as a warning or a NaN.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "check_positive",
    "check_nonnegative",
    "check_fraction",
    "check_whole",
    "check_choice",
    "scalar_or_array",
    "check_broadcast",
    "check_scalar",
    "single",
    "single_whole",
    "as_count",
]

#: The largest count a float holds exactly; a count past it (or past int64) is refused, never wrapped.
MAX_COUNT = 2**53


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(name: str, value: Any) -> np.ndarray:
    """Convert ``value`` to a float array, refusing non-numbers, NaN and infinity."""
    if isinstance(value, (str, bytes)) or value is None or isinstance(value, bool):
        raise TypeError(f"{name} must be a real number or an array of real numbers; got {_describe(value)}")
    if isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value)
        if arr.dtype == bool or arr.dtype.kind not in "iuf":
            raise TypeError(f"{name} must hold real numbers; got an array of {arr.dtype} {_describe(value)}")
        arr = arr.astype(float)
    elif isinstance(value, numbers.Real):
        arr = np.asarray(float(value))
    else:
        raise TypeError(f"{name} must be a real number or an array of real numbers; got {_describe(value)}")
    if arr.size and not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].flat[0]
        raise ValueError(f"{name} must be finite (no NaN or infinity); got {bad}")
    return arr


def _first_bad(arr: np.ndarray, mask: np.ndarray) -> str:
    bad = arr[mask].flat[0]
    if arr.ndim == 0:
        return f"{bad:g}"
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    where = index[0] if len(index) == 1 else index
    return f"{bad:g} (at index {where})"


def check_positive(name: str, value: Any) -> np.ndarray:
    """Values strictly greater than zero."""
    arr = as_float_array(name, value)
    mask = arr <= 0
    if mask.any():
        raise ValueError(f"{name} must be > 0; got {_first_bad(arr, mask)}")
    return arr


def check_nonnegative(name: str, value: Any) -> np.ndarray:
    """Values greater than or equal to zero."""
    arr = as_float_array(name, value)
    mask = arr < 0
    if mask.any():
        raise ValueError(f"{name} must be >= 0; got {_first_bad(arr, mask)}")
    return arr


def check_fraction(name: str, value: Any, *, open_low: bool = False, open_high: bool = False) -> np.ndarray:
    """Values in [0, 1], with either end excluded on request."""
    arr = as_float_array(name, value)
    low_bad = arr <= 0 if open_low else arr < 0
    high_bad = arr >= 1 if open_high else arr > 1
    mask = low_bad | high_bad
    if mask.any():
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        raise ValueError(f"{name} must be in {interval}; got {_first_bad(arr, mask)}")
    return arr


def check_whole(name: str, value: Any, minimum: int = 1) -> np.ndarray:
    """Whole numbers (ints, or floats with no fractional part) of at least ``minimum``."""
    arr = as_float_array(name, value)
    frac = arr != np.round(arr)
    if frac.any():
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {_first_bad(arr, frac)}")
    small = arr < minimum
    if small.any():
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {_first_bad(arr, small)}")
    return arr


def check_flag(name: str, value: Any) -> bool:
    """A switch that must be True or False (numpy booleans too), else a TypeError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r}")
    return bool(value)


def check_choice(name: str, value: Any, choices: list[str] | tuple[str, ...]) -> str:
    """A string from a fixed list (case-insensitive), returned in its canonical spelling."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_describe(value)}")
    for choice in choices:
        if value.strip().lower() == choice.lower():
            return choice
    raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_describe(value)}")


def scalar_or_array(result: np.ndarray, *inputs: np.ndarray) -> float | np.ndarray:
    """Return a Python float when every input was a scalar, else the array."""
    if all(np.ndim(x) == 0 for x in inputs):
        return float(result)
    return result


def check_broadcast(**arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Broadcast the named arrays together, or say which shapes do not fit."""
    try:
        return tuple(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} has shape {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"array arguments must have shapes that broadcast together; {shapes}") from None


def check_scalar(name: str, value: Any) -> Any:
    """Refuse an array or list where the model takes one number (a simulation's size, a layout's GPU count).

    Returns ``value`` unchanged (0-d arrays become Python scalars) for the other checkers to examine.
    """
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0):
        raise TypeError(f"{name} must be a single number, not an array; got {_describe(value)}")
    if isinstance(value, np.ndarray):
        return value.item()
    return value


def single(check, name: str, value: Any, **options) -> float:
    """One number, not an array (refused by name), passed through ``check``; returned as a Python float.

    ``single(check_positive, "n_params", n_params)`` reads as "one positive n_params".
    """
    return float(check(name, check_scalar(name, value), **options))


def single_whole(name: str, value: Any, minimum: int = 1) -> int:
    """One whole number >= ``minimum``, not an array (refused by name); returned as a Python int."""
    return int(check_whole(name, check_scalar(name, value), minimum))


def as_count(name: str, value: Any) -> np.ndarray | int:
    """A computed count (devices, workers, replicas) as int64, refusing one too large to represent.

    ``value`` is a float array (or scalar) already rounded to whole numbers by the caller.
    """
    arr = np.asarray(value, dtype=float)
    too_big = ~np.isfinite(arr) | (np.abs(arr) > MAX_COUNT)
    if too_big.any():
        raise ValueError(f"{name} would be {_first_bad(arr, too_big)}, beyond {MAX_COUNT:,} (2**53): "
                         "the inputs are out of any sensible range")
    out = arr.astype(np.int64)
    return int(out) if out.ndim == 0 else out
