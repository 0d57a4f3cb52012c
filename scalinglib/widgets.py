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
children is a stack that follows the second, and so on. Every panel looks the
same: labels in a column of fixed width, named choices (a device, a model size)
as toggle buttons or a drop-down, ordered numbers as sliders, and frames drawn
as SVG at the full width of the text, with a phone layout when the page-weight
budget allows. A section author writes only the drawing function and the ranges::

    slider_figure(draw, {"f": choice("serial fraction f", [0.01, 0.05, 0.2])})

The number of frames is the product of the list lengths; keep it small (the
page carries every frame), :data:`MAX_FRAMES` by default.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import html
import itertools
import json
import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ._validate import _describe, check_format, check_frame, single_whole
from .plots import SvgFigure, house_style, render_svg

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
#: Environment variable that, set to ``first``, makes a slider render (to SVG) only its first frame and
#: show it at every position; every other position is still drawn into a figure, which is then dropped,
#: so a position that fails to draw still fails. ``make nbval`` sets it: nbval ignores the output of
#: slider cells (they are tagged ``nbval-ignore-output``) and rendering is most of a frame's cost.
#: Never set when a notebook's outputs are stored.
FRAMES_ENV = "SCALINGLIB_SLIDER_FRAMES"
#: How frames are stored (part of the frame cache's key): compact SVG, text as text.
FRAME_FORMAT = "svg-1"
#: Saved widget state a panel may add to its page, in bytes (tests/test_site.py checks the built pages).
STATE_BUDGET = 400_000
#: Bytes of saved state each frame costs besides its markup (its widget model), for the budget estimate.
FRAME_MODEL_BYTES = 700
#: The kinds of control a choice can ask for (None: chosen from its values).
CONTROLS = (None, "slider", "buttons", "dropdown")
#: Runs of at most this many numbers get buttons rather than a slider.
FEW_POSITIONS = 3
#: Width of the label column of a control panel.
LABEL_WIDTH = "11em"


@dataclass(frozen=True)
class Choice:
    """The positions of one control: a label, the values in order, the starting value and their format.

    ``control`` is ``"slider"``, ``"buttons"``, ``"dropdown"`` or None (chosen from the values: named
    choices and numbers with at most ``FEW_POSITIONS`` (3) positions get buttons or a drop-down,
    longer runs of numbers a slider).
    """

    label: str
    values: tuple
    default: Any
    fmt: Callable[[Any], str] = field(repr=False)
    control: str | None = None

    @property
    def default_index(self) -> int:
        return self.values.index(self.default)

    @property
    def categorical(self) -> bool:
        """True for named choices (any value is not a number) and for very short runs of numbers."""
        named = any(isinstance(v, (str, bytes)) or not isinstance(v, numbers.Number) for v in self.values)
        return named or len(self.values) <= FEW_POSITIONS

    def text(self, value) -> str:
        return self.fmt(value)


def _formatter(fmt) -> Callable[[Any], str]:
    if callable(fmt):
        return fmt
    if isinstance(fmt, str):
        return lambda value: fmt.format(value)
    raise TypeError(f"fmt must be a format string such as '{{:g}}' or a function; got {fmt!r}")


def choice(label: str, values: Sequence, default=None, fmt="{:g}", control=None) -> Choice:
    """Describe one control (a slider, toggle buttons or a drop-down).

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
    control : {None, "slider", "buttons", "dropdown"}, optional
        Force a kind of control; by default named choices (strings) and runs of at
        most three numbers get toggle buttons (a drop-down when the labels are long)
        and longer runs of numbers a slider.

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
    >>> choice("device", ["A100", "H100"], fmt="{}").categorical
    True
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
    if not (control is None or isinstance(control, str)) or control not in CONTROLS:
        raise ValueError(f"control must be one of {CONTROLS}; got {control!r}")
    return Choice(label, vals, default, form, control)


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


def _cache_path(draw, values, width, height, dpi, narrow=False) -> Path | None:
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
                width, height, dpi, FRAME_FORMAT, narrow))
    return Path(folder) / (hashlib.sha256(key.encode()).hexdigest() + ".json")


def _frame_id(draw, values, width, height) -> str:
    """A short id, the same on every run, that keeps one frame's SVG ids apart from every other's on a page."""
    key = repr((getattr(draw, "__module__", ""), getattr(draw, "__qualname__", repr(draw)), sorted(values.items()),
                width, height))
    return "f" + hashlib.sha1(key.encode()).hexdigest()[:8]


def _draw_frame(draw, values, width, height, dpi, narrow=False) -> dict:
    """One frame as ``{"wide": SvgFigure fields, "narrow": ... or None}``, from the cache when it is there."""
    cached = _cache_path(draw, values, width, height, dpi, narrow)
    if cached is not None and cached.exists():
        return json.loads(cached.read_text())
    if cached is not None and not narrow:       # the same frame drawn with its phone layout holds this one
        fuller = _cache_path(draw, values, width, height, dpi, True)
        if fuller.exists():
            return {**json.loads(fuller.read_text()), "narrow": None}
    frame = _render_frame(draw, values, width, height, narrow)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(frame))
        tmp.replace(cached)  # atomic, so parallel runs never read half a file
    return frame


@contextlib.contextmanager
def _drawn(draw, values, width, height):
    """A figure in the house style with one position drawn on it, closed on leaving."""
    with house_style():
        fig = plt.figure(figsize=(width, height), layout="constrained")
        try:
            draw(fig, **values)
            yield fig
        finally:
            plt.close(fig)


def _draw_only(draw, values, width, height) -> None:
    """Draw one position and drop it: what rendering would do first, without the rendering."""
    with _drawn(draw, values, width, height):
        pass


def _render_frame(draw, values, width, height, narrow) -> dict:
    with _drawn(draw, values, width, height) as fig:
        wide, small = render_svg(fig, narrow=narrow, inline_styles=False,
                                 id_suffix=_frame_id(draw, values, width, height))
    return {"wide": asdict(wide), "narrow": asdict(small) if small is not None else None}


def render_frames(draw, params, *, width=6.4, height=3.2, dpi=80, max_frames=MAX_FRAMES) -> dict[tuple, bytes]:
    """Draw every frame of a slider figure; return ``{values tuple: SVG bytes}``.

    ``draw(fig, **values)`` receives an empty figure in the house style.
    This is what :func:`slider_figure` shows (its wide layout), exposed for tests.
    """
    if not callable(draw):
        raise TypeError(f"draw must be a function draw(fig, **values); got {_describe(draw)}")
    width, height, dpi = check_frame(width, height, dpi)
    _check_params(params, max_frames)
    return {tuple(v.values()): _draw_frame(draw, v, width, height, dpi)["wide"]["svg"].encode("utf-8")
            for v in frame_values(params)}


def _alt_text(alt, values) -> str:
    if alt is None:
        return ""
    if callable(alt):
        return str(alt(**values))
    return str(alt).format(**values)


def _frame_html(frame: dict, alt: str) -> str:
    """One frame: the figure as SVG in the page (and its phone layout, when there is one), labelled for screen readers."""
    wide, narrow = frame["wide"], frame["narrow"]
    parts = [wide["svg"].replace('class="sl-svg"', 'class="sl-svg sl-wide" aria-hidden="true"', 1)]
    if narrow is not None:
        parts.append(narrow["svg"].replace('class="sl-svg"', 'class="sl-svg sl-narrow" aria-hidden="true"', 1))
    return (f'<div class="sl-frame" role="img" aria-label="{html.escape(alt, quote=True)}" '
            f'data-font-px="{wide["font_px"]:g}">{"".join(parts)}</div>')


def _panel_css(panel_id: str, css: dict, frame: dict | None) -> str:
    """The styles of one slider panel: the SVG classes of its frames and when to show the phone layout."""
    rules = [".sl-svg *{stroke-linejoin:round;stroke-linecap:butt}"]
    rules += [f".{name}{{{decl}}}" for name, decl in sorted(css.items())]
    if frame is not None:
        wide = SvgFigure(**frame["wide"])
        scope = f".{panel_id}"
        if frame["narrow"] is not None:
            narrow = SvgFigure(**frame["narrow"])
            below = wide.legible_width() + 32
            rules.append(f"{scope} .sl-narrow{{display:none}}")
            rules.append(f"@media (max-width:{below}px){{{scope} .sl-wide{{display:none}}"
                         f"{scope} .sl-narrow{{display:block;min-width:{narrow.legible_width()}px}}}}")
        else:   # no phone layout: on a narrow screen the figure keeps a legible size and scrolls sideways
            rules.append(f"{scope} .sl-wide{{min-width:{wide.legible_width()}px}}")
    return "<style>" + "".join(rules) + "</style>"


def _uses_buttons(spec: Choice) -> bool:
    texts = [spec.text(v) for v in spec.values]
    return len(texts) <= 4 and sum(len(t) for t in texts) <= 32


def _controls(items):
    """One control per parameter: toggle buttons or a drop-down for named choices, a slider for numbers.

    Every control exposes ``index``, the position that ``jslink`` ties to the frames, and shows its
    label in a column of fixed width so that the controls of a panel line up.
    """
    import ipywidgets as widgets

    controls = []
    for _name, spec in items:
        kind = spec.control or ("buttons" if spec.categorical and _uses_buttons(spec)
                                else "dropdown" if spec.categorical else "slider")
        options = [(spec.text(v), i) for i, v in enumerate(spec.values)]
        common = {"options": options, "value": spec.default_index, "description": spec.label}
        if kind == "buttons":
            control = widgets.ToggleButtons(**common, style={"description_width": LABEL_WIDTH, "button_width": "auto"})
        elif kind == "dropdown":
            control = widgets.Dropdown(**common, style={"description_width": LABEL_WIDTH},
                                       layout=widgets.Layout(width="min(100%, 32em)"))
        else:
            control = widgets.SelectionSlider(**common, style={"description_width": LABEL_WIDTH},
                                              continuous_update=True, readout=True,
                                              layout=widgets.Layout(width="min(100%, 36em)"))
        control.add_class("sl-control")
        controls.append(control)
    return controls


def _sliders(items):
    """The controls of a panel (kept under its old name: every control was once a slider)."""
    return _controls(items)


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


def _assemble(items, sliders, make_leaf, note, css_html="", panel_class=""):
    import ipywidgets as widgets

    links: list = []
    stack = _linked_stacks(items, sliders, make_leaf, links)
    stack.add_class("sl-stack")
    controls = widgets.VBox(sliders)
    controls.add_class("sl-controls")
    parts = [controls, stack]
    if note or css_html:
        text = f'<span class="scalinglib-slider-note">{html.escape(note)}</span>' if note else ""
        parts.append(widgets.HTML(css_html + text))
    box = widgets.VBox(parts, layout=widgets.Layout(width="100%"))
    box.add_class("sl-panel")
    if panel_class:
        box.add_class(panel_class)
    box.links = links  # the browser-side links, kept for inspection (and alive with the box)
    return box


def _frame_bytes(frame: dict) -> int:
    """Bytes one frame adds to a page's saved widget state (its markup as JSON, plus the frame's model)."""
    markup = frame["wide"]["svg"] + (frame["narrow"]["svg"] if frame["narrow"] else "")
    return len(json.dumps(markup)) + FRAME_MODEL_BYTES


def slider_figure(draw, params, *, alt, width=6.4, height=3.2, dpi=80, max_frames=MAX_FRAMES, note=None):
    """A figure driven by one or more controls, working with or without a kernel.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **values)`` draws one frame on an empty figure in the house
        style; the keyword names are the keys of ``params``.
    params : dict of str to Choice
        The controls, made with :func:`choice`, in display order. Named choices
        (strings) become toggle buttons or a drop-down; numbers become sliders.
    width, height : float
        Frame size in inches, as drawn; the page shows it at the full width of the text.
    dpi : int
        Kept for compatibility, 10 to 600: frames are vector graphics (SVG) and look
        sharp at any size.
    alt : str or callable
        Required. Alt text of each frame: a format string over the slider values
        (``"Speedup for f = {f}"``) or ``alt(**values)``; screen readers read it.
    max_frames : int
        Refuse grids with more frames than this (page weight), a whole number
        from 1 to 256.
    note : str, optional
        One line shown under the figure.

    Returns
    -------
    ipywidgets.VBox

    Notes
    -----
    Each frame is SVG placed in the page, with its text no smaller than
    :data:`scalinglib.plots.MIN_FONT_PT`. When the figure would be too small to read
    on a phone, each frame also carries a phone layout (panels stacked), as long as
    the panel stays within ``STATE_BUDGET`` bytes; otherwise a phone shows the
    figure at a legible size in a box that scrolls sideways.
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
    sliders = _controls(items)
    combos = frame_values(params)

    # decide from the first frame whether a phone layout of every frame fits the page-weight budget
    first = _draw_frame(draw, combos[0], width, height, dpi, narrow=True)
    narrow = first["narrow"] is not None and _frame_bytes(first) * len(combos) <= STATE_BUDGET
    frames = {}
    only_first = os.environ.get(FRAMES_ENV) == "first"
    for values in combos:
        key = tuple(values.values())
        if values == combos[0] and (narrow or only_first):
            frames[key] = first
        elif only_first:                       # drawn, so a position that fails still fails; shown as the first
            _draw_only(draw, values, width, height)
            frames[key] = first
        else:
            frames[key] = _draw_frame(draw, values, width, height, dpi, narrow)
    if narrow and sum(map(_frame_bytes, frames.values())) > STATE_BUDGET:   # the estimate was short: no phone layout
        frames = {key: {**frame, "narrow": None} for key, frame in frames.items()}
    if not narrow:
        frames = {key: {**frame, "narrow": None} for key, frame in frames.items()}
    css: dict = {}
    for frame in frames.values():
        for part in (frame["wide"], frame["narrow"]):
            if part:
                css.update(part["css"])
    panel_class = "sl-p" + hashlib.sha1(repr((sorted(css.items()), width, height)).encode()).hexdigest()[:8]

    # one Layout and one style shared by every frame: each widget model costs page weight
    layout, style = widgets.Layout(), HTMLStyle()

    def leaf(values):
        return widgets.HTML(_frame_html(frames[tuple(values.values())], _alt_text(alt, values)),
                            layout=layout, style=style)

    return _assemble(items, sliders, leaf, note, _panel_css(panel_class, css, frames[tuple(combos[0].values())]),
                     panel_class)


def slider_html(render, params, *, max_frames=MAX_FRAMES, note=None):
    """Like :func:`slider_figure`, for frames that are HTML (a table, a few numbers).

    Parameters
    ----------
    render : callable
        ``render(**values)`` returns an HTML string for one combination of values.
    params : dict of str to Choice
        The controls, made with :func:`choice`.
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
    sliders = _controls(items)
    layout, style = widgets.Layout(), HTMLStyle()

    def leaf(values):
        return widgets.HTML(f'<div class="scalinglib-html-frame">{render(**values)}</div>', layout=layout, style=style)

    return _assemble(items, sliders, leaf, note)
