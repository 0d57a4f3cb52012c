"""A figure as the page shows it: crisp SVG, legible text, a phone layout, the same in JupyterLab (every section).

:func:`render_svg` draws a figure as it is and, when its text would be too small
on a phone, restacked (``scalinglib.plots.legibility``), both as compact SVG
(``scalinglib.plots.svg``). :func:`figure_html` wraps the two in a
``<picture>`` of data URIs, and :func:`install_display` makes IPython show every
matplotlib figure that way (``import scalinglib`` calls it).
"""

from __future__ import annotations

import base64
import html as html_lib
import math
import os
import warnings

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .legibility import _hide_blank_minor_labels, _texts, _ticks_computed_once, legible, restack
from .style import DESKTOP_COLUMN_PX, MIN_FONT_PT, MIN_TEXT_PX, PHONE_COLUMN_PX
from .svg import SvgFigure, _svg_bytes, compact_svg

__all__ = [
    "render_svg",
    "figure_html",
    "install_display",
]


#: Environment variable that turns off the HTML display of figures (plain PNG as matplotlib makes it).
PLAIN_ENV = "SCALINGLIB_PLAIN_FIGURES"


def render_svg(fig, *, narrow: bool | None = None, inline_styles: bool = True, id_suffix: str = "",
               min_pt: float = MIN_FONT_PT) -> tuple[SvgFigure, SvgFigure | None]:
    """Render ``fig`` as it is (legible text) and, when that would be too small on a phone, in a phone layout.

    Text smaller than ``min_pt`` is raised to it; a figure wider than :data:`DESKTOP_COLUMN_PX` gets
    a floor raised in proportion, so that its text is still :data:`MIN_TEXT_PX` when shown at the
    width of the column.

    Returns ``(wide, narrow)``; ``narrow`` is None when the figure is legible on a phone as drawn
    (or when ``narrow=False``). ``fig`` is changed (text sizes, and its layout for the phone
    rendering); callers pass a figure they are about to close, or use :func:`figure_html`.
    """
    def one(suffix):
        # a figure wider than the column is shown scaled down: raise its text floor to match
        floor = max(min_pt, MIN_TEXT_PX * 72 * fig.get_size_inches()[0] / DESKTOP_COLUMN_PX)
        smallest = legible(fig, math.ceil(floor * 2) / 2)     # in half points
        markup, css = compact_svg(_svg_bytes(fig), id_suffix=suffix, inline_styles=inline_styles)
        w, h = fig.get_size_inches()
        return SvgFigure(markup, css, round(w * 96, 1), round(h * 96, 1), round(smallest * 4 / 3, 2))

    _hide_blank_minor_labels(fig)
    with _ticks_computed_once(fig):
        wide = one(id_suffix)
        if narrow is None:
            narrow = wide.legible_width() > PHONE_COLUMN_PX
        if not narrow:
            return wide, None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            restack(fig)
            small = one(id_suffix + "n" if id_suffix else "")
    if any("collapsed" in str(w.message) for w in caught):
        return wide, None      # the panels do not fit a phone's width: the page scrolls the wide figure instead
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return wide, small


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _default_alt(fig) -> str:
    parts = []
    if getattr(fig, "_suptitle", None) is not None and fig._suptitle.get_text():
        parts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        if ax.get_subplotspec() is None:
            continue
        bits = [b for b in (ax.get_title(), ax.get_ylabel() and f"{ax.get_ylabel()} against {ax.get_xlabel()}") if b]
        if bits:
            parts.append(": ".join(bits))
    return "Figure. " + "; ".join(parts) if parts else "Figure."


def figure_html(fig, alt: str | None = None, *, close: bool = True) -> str:
    """The HTML a notebook shows for a figure: crisp SVG, legible text, and a phone layout.

    A ``<picture>`` holds the figure as drawn and, where its text would fall under
    :data:`MIN_TEXT_PX` on a phone, a second rendering with its panels stacked that the browser
    picks on narrow screens. Both are SVG in data URIs, so the output is self-contained in
    JupyterLab and in the book. ``alt`` defaults to a description made from the titles and axis
    labels; the book replaces it with the caption's alt text from the cell's metadata.

    Examples
    --------
    >>> from scalinglib.plots import new_figure
    >>> fig, ax = new_figure()
    >>> _ = ax.plot([1, 2], [3, 4])
    >>> html = figure_html(fig)
    >>> html.startswith('<div class="sl-figure"') and "data:image/svg+xml;base64," in html
    True
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure (from new_figure or plt.subplots); got {type(fig).__name__}")
    if alt is not None and not isinstance(alt, str):
        raise TypeError(f"alt must be a string or None; got {type(alt).__name__}")
    if not isinstance(close, bool):
        raise TypeError(f"close must be True or False; got {close!r}")
    state = _Snapshot(fig)
    try:
        alt_text = _default_alt(fig) if alt is None else str(alt)
        wide, narrow = render_svg(fig)
    finally:
        if close:
            plt.close(fig)
        else:
            state.restore()
    # never narrower than the width at which its text is still legible: a wider figure than the column
    # scrolls in its box (the phone layout, when there is one, is legible at a phone's width)
    least = (narrow or wide).legible_width()
    img = (f'<img class="sl-figure-img" src="{_data_uri(wide.svg)}" width="{wide.width:g}" height="{wide.height:g}" '
           f'alt="{html_lib.escape(alt_text, quote=True)}" data-font-px="{wide.font_px:g}" '
           f'style="max-width:{round(wide.width * 1.15)}px;min-width:{least}px"')
    if narrow is None:
        return f'<div class="sl-figure">{img}></div>'
    breakpoint_px = wide.legible_width() + 32
    source = (f'<source media="(max-width: {breakpoint_px}px)" srcset="{_data_uri(narrow.svg)}" '
              f'width="{narrow.width:g}" height="{narrow.height:g}">')
    return (f'<div class="sl-figure"><picture>{source}{img} data-font-px-narrow="{narrow.font_px:g}" '
            f'data-narrow-below="{breakpoint_px}"></picture></div>')


class _Snapshot:
    """What :func:`render_svg` changes on a figure (size, text sizes, panel positions), to put back."""

    def __init__(self, fig):
        self.fig = fig
        self.size = tuple(fig.get_size_inches())
        texts = _texts(fig)
        self.fonts = [(t, t.get_fontsize(), t.get_text()) for t in texts]
        self.ticks = [(ax, name, which, ticks[0].label1.get_fontsize())
                      for ax in fig.axes for name, axis in (("x", ax.xaxis), ("y", ax.yaxis))
                      for which, ticks in (("major", axis.get_major_ticks(1)), ("minor", axis.get_minor_ticks(1)))
                      if ticks]
        self.specs = [(ax, ax.get_subplotspec()) for ax in fig.axes if ax.get_subplotspec() is not None]
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
        self.legend_boxes = [(box, list(box._children)) for box in
                             (getattr(lg, "_legend_handle_box", None) for lg in legends) if box is not None]
        self.formatters = [(axis, axis.get_major_formatter()) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)]
        self.wraps = [(t, t.get_wrap()) for t in texts]

    def restore(self):
        self.fig.set_size_inches(*self.size)
        for text, size, content in self.fonts:
            text.set_fontsize(size)
            text.set_text(content)
        for ax, name, which, size in self.ticks:
            ax.tick_params(axis=name, which=which, labelsize=size)
        for ax, spec in self.specs:
            ax.set_subplotspec(spec)
        for box, children in self.legend_boxes:
            box._children = children
        for axis, formatter in self.formatters:
            axis.set_major_formatter(formatter)
        for text, wrap in self.wraps:
            text.set_wrap(wrap)


def _html_formatter(fig):
    if not fig.axes:
        return None
    return figure_html(fig, close=False)


def install_display(shell=None) -> bool:
    """Show matplotlib figures in IPython as :func:`figure_html` (instead of a PNG); True when installed.

    ``import scalinglib`` calls this, so every figure of the book is shown the same way in JupyterLab
    and in the HTML book. It does nothing outside IPython, or when the environment variable
    ``SCALINGLIB_PLAIN_FIGURES`` is set.
    """
    if os.environ.get(PLAIN_ENV):
        return False
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        return False
    from matplotlib.figure import Figure

    # Load the backend now: the inline backend, when it loads, clears every figure formatter and
    # registers its own PNG one, which would undo what follows.
    try:
        plt._get_backend_mod()
    except Exception:  # a backend that cannot load here shows no figures anyway
        pass
    formatters = shell.display_formatter.formatters
    for mime in ("image/png", "image/jpeg", "image/svg+xml", "application/pdf"):
        if mime in formatters:
            formatters[mime].pop(Figure, None)
    formatters["text/html"].for_type(Figure, _html_formatter)
    return True
