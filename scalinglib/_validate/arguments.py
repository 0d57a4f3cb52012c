"""Checks of the other kinds of argument, and of arguments taken together (every section).

* Flags, choices among names, text and format strings, one-dimensional
  arrays and arrays of the same length.
* Figures, axes and figure frames, with caps on inches, dots per inch and
  pixels; keyword arguments and renamed parameters.
* Shapes: :func:`check_shapes` checks that arguments broadcast together without
  broadcasting them and hands single numbers back as Python floats, so a formula
  costs what the same numpy expression costs; arrays whose shapes do not
  broadcast are refused naming each parameter and its shape. :func:`single`
  and :func:`single_whole` insist on one number, :func:`as_count` on a count.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from .values import _F64, _NDARRAY, MAX_COUNT, _describe, _first_bad, check_positive, check_size, check_whole

__all__ = [
    "check_flag",
    "check_choice",
    "check_text",
    "check_format",
    "check_1d",
    "check_same_length",
    "scalar_or_array",
    "check_broadcast",
    "check_shapes",
    "check_scalar",
    "single",
    "single_whole",
    "as_count",
    "renamed",
    "check_axes",
    "check_figure",
    "check_frame",
    "check_kwargs",
    "MAX_FIGURE_INCHES",
    "MAX_DPI",
    "MAX_SIDE_PIXELS",
]


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
