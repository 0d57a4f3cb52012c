"""Sliders that work in JupyterLab and in the static HTML book alike.

A reader of the published book has no Python kernel, so a slider whose
callback runs Python would show one frame and then do nothing. Instead, every
slider in the book is built here the same way:

1. each slider takes a short, explicit list of values (so it cannot reach an
   invalid input);
2. when the notebook runs, the figure (or HTML table) for every combination of
   values is computed by the model in Python and stored;
3. the frames sit in a ``widgets.Stack`` whose ``selected_index`` is tied to the
   slider by ``widgets.jslink``, a link the browser keeps by itself.

With two sliders the outer stack follows the first slider and each of its
children is a stack that follows the second, and so on. A section author writes
only the drawing function and the slider ranges::

    slider_figure(draw, {"f": choice("serial fraction f", [0.01, 0.05, 0.2])})

The number of frames is the product of the list lengths; keep it small (the
page carries every frame), :data:`MAX_FRAMES` by default.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import itertools
import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ._validate import _describe, check_format, check_frame, single_whole
from .plots import figure_png, house_style

__all__ = [
    "Choice",
    "choice",
    "frame_values",
    "render_frames",
    "slider_figure",
    "slider_html",
    "MAX_FRAMES",
]

#: Default ceiling on frames per widget, to keep a page light.
MAX_FRAMES = 64
#: The largest ``max_frames`` a slider accepts: 256 frames take about 20 s to draw and weigh megabytes.
FRAMES_LIMIT = 256
#: Environment variable naming a folder where frames drawn by library functions are cached.
CACHE_ENV = "SCALINGLIB_FRAME_CACHE"
#: Frames are stored as palette PNGs of this many colours (about a quarter of the bytes).
FRAME_COLORS = 64


@dataclass(frozen=True)
class Choice:
    """The positions of one slider: a label, the values in order, the starting value and their format."""

    label: str
    values: tuple
    default: Any
    fmt: Callable[[Any], str] = field(repr=False)

    @property
    def default_index(self) -> int:
        return self.values.index(self.default)

    def text(self, value) -> str:
        return self.fmt(value)


def _formatter(fmt) -> Callable[[Any], str]:
    if callable(fmt):
        return fmt
    if isinstance(fmt, str):
        return lambda value: fmt.format(value)
    raise TypeError(f"fmt must be a format string such as '{{:g}}' or a function; got {fmt!r}")


def choice(label: str, values: Sequence, default=None, fmt="{:g}") -> Choice:
    """Describe one slider.

    Parameters
    ----------
    label : str
        Text shown beside the slider.
    values : sequence
        The positions, in slider order (at least one; no repeats).
    default : optional
        The value the slider starts on; the first value when omitted.
    fmt : str or callable, optional
        A format string (``"{:g}"``, ``"{:.0%}"``) or a function giving the text
        shown for a value.

    Returns
    -------
    Choice

    Raises
    ------
    ValueError
        If ``values`` is empty, repeats a value or label, or ``default`` is not among them.

    Examples
    --------
    >>> c = choice("serial fraction f", [0.01, 0.05, 0.2], default=0.05)
    >>> c.default_index, c.text(0.2)
    (1, '0.2')
    """
    if not isinstance(label, str) or not label:
        raise TypeError(f"label must be a non-empty string; got {label!r}")
    if isinstance(values, (str, bytes)):
        raise TypeError(f"values must be a list of slider positions; got the string {values!r}")
    if isinstance(values, (dict, set)) or not hasattr(values, "__iter__") or (
            isinstance(values, np.ndarray) and values.ndim != 1):
        raise TypeError(f"values must be a list of slider positions; got {_describe(values)}")
    vals = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
    for v in vals:
        if v is None or isinstance(v, (bool, np.bool_)):
            raise TypeError(f"values for slider {label!r} must be numbers or strings, not {v!r}")
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"values for slider {label!r} must be finite numbers; got {v!r}")
        try:
            hash(v)
        except TypeError:
            raise TypeError(f"values for slider {label!r} must be numbers or strings; got {_describe(v)}") from None
    if not vals:
        raise ValueError(f"values for slider {label!r} must hold at least one position")
    if len(set(map(repr, vals))) != len(vals):
        raise ValueError(f"values for slider {label!r} repeat a position: {vals!r}")
    form = _formatter(fmt)
    try:
        texts = [str(form(v)) for v in vals]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        raise ValueError(f"fmt {_describe(fmt)} cannot format the values of slider {label!r} ({exc}); "
                         "use '{}' for text values") from None
    if len(set(texts)) != len(texts):
        raise ValueError(f"slider {label!r}: two positions print the same text {texts!r}; choose a finer fmt")
    if default is None:
        default = vals[0]
    if isinstance(default, np.generic):
        default = default.item()
    if isinstance(default, (list, tuple, dict, set, np.ndarray)) or not any(
            default is v or (isinstance(default, numbers.Real) and isinstance(v, numbers.Real) and default == v)
            or (type(default) is type(v) and default == v) for v in vals):
        raise ValueError(f"default {default!r} of slider {label!r} is not one of its values {vals!r}")
    return Choice(label, vals, default, form)


def _check_note(note) -> None:
    if note is not None and not isinstance(note, str):
        raise TypeError(f"note must be one line of text or None; got {_describe(note)}")


def _check_params(params: Mapping[str, Choice], max_frames: int) -> list[tuple[str, Choice]]:
    max_frames = single_whole("max_frames", max_frames, maximum=FRAMES_LIMIT,
                              why="frames a page can carry and a notebook can draw")
    if not isinstance(params, Mapping) or not params:
        raise ValueError("params must be a non-empty dict of name -> choice(...)")
    if not all(isinstance(name, str) and name.isidentifier() for name in params):
        raise ValueError(f"params must be keyed by names a function can take as keywords; got {list(params)!r}")
    items = list(params.items())
    for name, spec in items:
        if not isinstance(spec, Choice):
            raise TypeError(f"params[{name!r}] must be made with choice(...); got {type(spec).__name__}")
    total = math.prod(len(spec.values) for _, spec in items)
    if total > max_frames:
        raise ValueError(
            f"these sliders need {total} frames, more than max_frames={max_frames}; "
            "use fewer positions or raise max_frames deliberately"
        )
    return items


def frame_values(params: Mapping[str, Choice]) -> list[dict]:
    """Every combination of slider values, first slider slowest, as keyword dicts.

    Examples
    --------
    >>> frame_values({"a": choice("a", [1, 2]), "b": choice("b", [10, 20])})
    [{'a': 1, 'b': 10}, {'a': 1, 'b': 20}, {'a': 2, 'b': 10}, {'a': 2, 'b': 20}]
    """
    names = list(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(params[n].values for n in names))]


@functools.lru_cache(maxsize=1)
def _library_fingerprint() -> str:
    """A hash of every source file of scalinglib: any change to the library changes it."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_path(draw, values, width, height, dpi) -> Path | None:
    """Where a frame drawn by a library function may be cached, if caching is on.

    Set the environment variable ``SCALINGLIB_FRAME_CACHE`` to a folder to reuse
    frames between runs (the build and the notebook tests draw the same frames).
    Only drawing functions from the library are cached: their source is part of
    the key, so any change to the library draws every frame afresh.
    """
    folder = os.environ.get(CACHE_ENV)
    module = getattr(draw, "__module__", "") or ""
    if not folder or not module.startswith("scalinglib."):
        return None
    key = repr((_library_fingerprint(), module, draw.__qualname__, sorted(values.items()),
                width, height, dpi, FRAME_COLORS))
    return Path(folder) / (hashlib.sha256(key.encode()).hexdigest() + ".png")


def _draw_png(draw, values, width, height, dpi) -> bytes:
    cached = _cache_path(draw, values, width, height, dpi)
    if cached is not None and cached.exists():
        return cached.read_bytes()
    png = _render_png(draw, values, width, height, dpi)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(png)
        tmp.replace(cached)  # atomic, so parallel runs never read half a file
    return png


def _render_png(draw, values, width, height, dpi) -> bytes:
    with house_style():
        fig = plt.figure(figsize=(width, height), layout="constrained")
        try:
            draw(fig, **values)
        except Exception:
            plt.close(fig)
            raise
    return figure_png(fig, dpi=dpi, colors=FRAME_COLORS)


def render_frames(draw, params, *, width=6.4, height=3.2, dpi=80, max_frames=MAX_FRAMES) -> dict[tuple, bytes]:
    """Draw every frame of a slider figure; return ``{values tuple: PNG bytes}``.

    ``draw(fig, **values)`` receives an empty figure in the house style.
    This is what :func:`slider_figure` shows, exposed for tests.
    """
    if not callable(draw):
        raise TypeError(f"draw must be a function draw(fig, **values); got {_describe(draw)}")
    width, height, dpi = check_frame(width, height, dpi)
    _check_params(params, max_frames)
    return {tuple(v.values()): _draw_png(draw, v, width, height, dpi) for v in frame_values(params)}


def _alt_text(alt, values) -> str:
    if alt is None:
        return ""
    if callable(alt):
        return str(alt(**values))
    return str(alt).format(**values)


def _img_tag(png: bytes, alt: str) -> str:
    """An <img> carrying the PNG inline, with alt text (widgets.Image has no alt)."""
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<img class="scalinglib-frame" src="data:image/png;base64,{data}" '
        f'alt="{html.escape(alt, quote=True)}" style="max-width:100%;height:auto">'
    )


def _sliders(items):
    import ipywidgets as widgets

    sliders = []
    for _name, spec in items:
        sliders.append(
            widgets.SelectionSlider(
                options=[(spec.text(v), i) for i, v in enumerate(spec.values)],
                value=spec.default_index,
                description=spec.label,
                continuous_update=True,
                style={"description_width": "initial"},
                layout=widgets.Layout(width="min(100%, 30em)"),
            )
        )
    return sliders


def _linked_stacks(items, sliders, make_leaf, links, fixed=None, level=0, layout=None):
    """Nest one Stack per slider, each tied to its slider in the browser; the links are appended to ``links``.

    Every Stack shares one ``Layout`` (made here when none is given), as the frames do: a Stack left to
    make its own carries a default layout model of about a kilobyte, and a grid of sliders has dozens.
    """
    import ipywidgets as widgets

    fixed = fixed or {}
    layout = widgets.Layout() if layout is None else layout
    name, spec = items[level]
    children = []
    for value in spec.values:
        values = {**fixed, name: value}
        if level == len(items) - 1:
            children.append(make_leaf(values))
        else:
            children.append(_linked_stacks(items, sliders, make_leaf, links, values, level + 1, layout))
    stack = widgets.Stack(children=children, selected_index=spec.default_index, layout=layout)
    links.append(widgets.jslink((sliders[level], "index"), (stack, "selected_index")))
    return stack


def _assemble(items, sliders, make_leaf, note):
    import ipywidgets as widgets

    links: list = []
    stack = _linked_stacks(items, sliders, make_leaf, links)
    parts = [widgets.VBox(sliders), stack]
    if note:
        parts.append(widgets.HTML(f'<span class="scalinglib-slider-note">{html.escape(note)}</span>'))
    box = widgets.VBox(parts, layout=widgets.Layout(width="100%"))
    box.links = links  # the browser-side links, kept for inspection (and alive with the box)
    return box


def slider_figure(draw, params, *, alt, width=6.4, height=3.2, dpi=80, max_frames=MAX_FRAMES, note=None):
    """A figure driven by one or more sliders, working with or without a kernel.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **values)`` draws one frame on an empty figure in the house
        style; the keyword names are the keys of ``params``.
    params : dict of str to Choice
        The sliders, made with :func:`choice`, in display order.
    width, height : float
        Frame size in inches; at ``dpi`` 80 the default is 512 x 256 pixels.
    dpi : int
        Resolution of the stored frames, 10 to 600 (each side at most 4,000
        pixels; width and height at most 40 inches).
    alt : str or callable
        Required. Alt text of each frame: a format string over the slider values
        (``"Speedup for f = {f}"``) or ``alt(**values)``; it becomes the
        image's alt text, read by screen readers.
    max_frames : int
        Refuse grids with more frames than this (page weight), a whole number
        from 1 to 256.
    note : str, optional
        One line shown under the figure.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as widgets
    from ipywidgets.widgets.widget_string import HTMLStyle

    if not (callable(alt) or isinstance(alt, str)) or not alt:
        raise TypeError("slider_figure needs alt=...: the alt text of each frame (a format string or a function), "
                        f"for readers who cannot see it; got {_describe(alt)}")
    _check_note(note)
    if not callable(draw):
        raise TypeError(f"draw must be a function draw(fig, **values); got {_describe(draw)}")
    width, height, dpi = check_frame(width, height, dpi)
    items = _check_params(params, max_frames)
    if not callable(alt):
        check_format("alt", alt, **frame_values(params)[0])
    sliders = _sliders(items)

    # one Layout and one style shared by every frame: each widget model costs page weight
    layout, style = widgets.Layout(), HTMLStyle()

    def leaf(values):
        png = _draw_png(draw, values, width, height, dpi)
        return widgets.HTML(_img_tag(png, _alt_text(alt, values)), layout=layout, style=style)

    return _assemble(items, sliders, leaf, note)


def slider_html(render, params, *, max_frames=MAX_FRAMES, note=None):
    """Like :func:`slider_figure`, for frames that are HTML (a table, a few numbers).

    Parameters
    ----------
    render : callable
        ``render(**values)`` returns an HTML string for one combination of values.
    params : dict of str to Choice
        The sliders, made with :func:`choice`.
    max_frames : int
        Refuse grids with more frames than this, a whole number from 1 to 256.
    note : str, optional
        One line shown under the output.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as widgets
    from ipywidgets.widgets.widget_string import HTMLStyle

    if not callable(render):
        raise TypeError(f"render must be a function render(**values) returning HTML; got {_describe(render)}")
    _check_note(note)
    items = _check_params(params, max_frames)
    sliders = _sliders(items)
    layout, style = widgets.Layout(), HTMLStyle()

    def leaf(values):
        return widgets.HTML(f'<div class="scalinglib-html-frame">{render(**values)}</div>', layout=layout, style=style)

    return _assemble(items, sliders, leaf, note)
