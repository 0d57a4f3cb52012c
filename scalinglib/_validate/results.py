"""The wrapper every public function goes through, and records that check their fields (every section).

:func:`public` wraps each public function: it silences numpy's floating-point warnings inside the
call and checks the result instead, so an overflow or a NaN becomes a ``ValueError`` that lists the
arguments, never a warning followed by a silent ``inf``. Results are also refused when negative
unless the function is declared ``signed`` (times, counts, costs and rates cannot be negative).
:func:`checked_record` makes a named tuple check its fields when it is made, and
:func:`least_squares` fits refusing data whose products overflow.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import numbers
import re

import numpy as np

from .values import _F64, _INF, _NDARRAY, _describe

__all__ = [
    "public",
    "checked_record",
    "least_squares",
]


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
