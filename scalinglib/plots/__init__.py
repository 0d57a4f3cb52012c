"""One look for every figure in the book, and the figure as a page shows it (every section).

Four modules:

* :mod:`scalinglib.plots.style`: the house style. Colours from the Okabe-Ito palette
  with distinct line styles, a white background, base-2 log axes for worker counts;
  :func:`new_figure`, :func:`style_axes`, :func:`log2_axis` and :func:`figure_png`.
* ``scalinglib.plots.svg``: a figure as compact SVG (:func:`compact_svg`,
  :class:`SvgFigure`).
* ``scalinglib.plots.legibility``: text raised to a legible size and panels
  restacked for a phone (:func:`legible`, :func:`restack`).
* :mod:`scalinglib.plots.page`: the HTML a notebook and the book show for a figure
  (:func:`render_svg`, :func:`figure_html`, :func:`install_display`).

Everything public is importable from here (``scalinglib.plots.new_figure``).
"""

from .legibility import _EveryOtherLabel as _EveryOtherLabel
from .legibility import _ticks_computed_once as _ticks_computed_once
from .legibility import legible, restack
from .page import PLAIN_ENV as PLAIN_ENV
from .page import figure_html, install_display, render_svg
from .style import (
    COLORS,
    IDEAL,
    LINESTYLES,
    MIN_FONT_PT,
    MIN_TEXT_PX,
    STYLE,
    figure_png,
    house_style,
    log2_axis,
    new_figure,
    style_axes,
)
from .style import DESKTOP_COLUMN_PX as DESKTOP_COLUMN_PX
from .style import MAX_GRID as MAX_GRID
from .style import MAX_SIDE_PIXELS as MAX_SIDE_PIXELS
from .style import NARROW_WIDTH_IN as NARROW_WIDTH_IN
from .style import PHONE_COLUMN_PX as PHONE_COLUMN_PX
from .svg import SvgFigure, compact_svg
from .svg import _relative_path as _relative_path
from .svg import _svg_bytes as _svg_bytes

__all__ = [
    "COLORS",
    "LINESTYLES",
    "STYLE",
    "house_style",
    "new_figure",
    "style_axes",
    "log2_axis",
    "figure_png",
    "IDEAL",
    "MIN_FONT_PT",
    "MIN_TEXT_PX",
    "SvgFigure",
    "compact_svg",
    "legible",
    "restack",
    "render_svg",
    "figure_html",
    "install_display",
]
