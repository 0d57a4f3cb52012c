"""The house style of every figure in the book (every section).

* Colours: the Okabe-Ito palette, distinguishable with the common forms of
  colour blindness; lines also differ by style so print and grey-scale work.
* A white figure background, so a figure stays legible on the dark theme.
* Axis labels carry units; log axes with base 2 for worker counts.

Use :func:`new_figure` for a figure in a notebook cell, :func:`style_axes` on
axes made elsewhere (for example by the slider helper), and
:func:`figure_png` to turn a figure into PNG bytes. The smallest text size and
the widths of the book's text column on a phone and a laptop, which every
rendering for the page keeps to, are here too.
"""

from __future__ import annotations

import io
from contextlib import contextmanager

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator

from .._validate import check_axes, check_choice, check_figure, check_flag, check_frame, check_size, single_whole

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
]


#: Okabe & Ito (2008) colour-blind-safe palette, in the order the book uses it.
COLORS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
    "grey": "#6E6E6E",
}
#: Line styles that go with the colours, so curves differ without colour too.
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (3, 1, 1, 1, 1, 1))]
#: The style of reference lines (ideal speedup, ceilings, caps).
IDEAL = {"color": COLORS["grey"], "linestyle": (0, (4, 3)), "linewidth": 1.2}

STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.labelcolor": "#111111",
    "xtick.color": "#333333",
    "ytick.color": "#333333",
    "text.color": "#111111",
    "axes.grid": True,
    "grid.color": "#DDDDDD",
    "grid.linewidth": 0.7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "lines.linewidth": 2.0,
    "font.family": "DejaVu Sans",
    "svg.hashsalt": "scalinglib",
    "axes.prop_cycle": matplotlib.cycler(
        color=[COLORS[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky")],
        linestyle=LINESTYLES,
    ),
}


#: Most rows, or columns, of axes :func:`new_figure` makes.
MAX_GRID = 8
#: Most pixels of an image :func:`figure_png` renders (4,000 x 4,000).
MAX_SIDE_PIXELS = 4000


@contextmanager
def house_style():
    """Context manager applying the book's style to figures made inside it."""
    with plt.rc_context(STYLE):
        yield


def new_figure(ncols=1, nrows=1, *, width=None, height=3.2, **subplots_kw):
    """Make a figure in the house style and return ``(fig, axes)``.

    Parameters
    ----------
    ncols, nrows : int
        Grid of axes, each whole from 1 to 8 (a grid of 64 axes draws in about a second).
    width, height : float, optional
        Size in inches, each > 0 and at most 40; the width defaults to 4.8 per column.
    **subplots_kw
        Passed to :func:`matplotlib.pyplot.subplots`.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> fig.get_facecolor()[:3]
    (1.0, 1.0, 1.0)
    >>> plt.close(fig)
    """
    ncols = single_whole("ncols", ncols, maximum=MAX_GRID, why="a grid of axes that draws in about a second")
    nrows = single_whole("nrows", nrows, maximum=MAX_GRID, why="a grid of axes that draws in about a second")
    if width is None:
        width = 4.8 * ncols
    width, height, _ = check_frame(width, height, 80)
    with house_style():
        fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", **subplots_kw)
    return fig, axes


def style_axes(ax):
    """Apply the house style to axes that were created outside :func:`new_figure`."""
    ax.set_facecolor(STYLE["axes.facecolor"])
    ax.grid(True, color=STYLE["grid.color"], linewidth=STYLE["grid.linewidth"])
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_prop_cycle(STYLE["axes.prop_cycle"])
    return ax


def _pow2_label(value, _pos):
    if value <= 0:
        return ""
    if value >= 1 and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


def log2_axis(ax, axis="x"):
    """Put a base-2 log scale with plain-number labels (1, 2, 4, ...) on ``axis`` ('x', 'y' or 'both')."""
    check_axes("ax", ax)
    axis = check_choice("axis", axis, ("x", "y", "both"))
    for name in ("x", "y") if axis == "both" else (axis,):
        target = ax.xaxis if name == "x" else ax.yaxis
        (ax.set_xscale if name == "x" else ax.set_yscale)("log", base=2)
        target.set_major_locator(LogLocator(base=2))
        target.set_major_formatter(FuncFormatter(_pow2_label))
    return ax


def figure_png(fig, dpi=80, close=True, colors=None):
    """Render ``fig`` to PNG bytes (deterministic: no timestamp in the file).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    dpi : int
        Pixels per inch, 10 to 600; the book's slider frames use 80. Each side
        of the image may be at most 4,000 pixels.
    close : bool
        Close the figure afterwards (default True) so frames do not pile up.
    colors : int, optional
        Reduce the image to a palette of this many colours (2 to 256). Line
        plots lose nothing visible and the file shrinks about fourfold, which
        matters for slider frames that a page carries by the dozen.

    Returns
    -------
    bytes
    """
    check_figure("fig", fig)
    width, height = fig.get_size_inches()
    dpi = check_frame(width, height, dpi, names=("the figure's width", "the figure's height", "dpi"))[2]
    close = check_flag("close", close)
    if colors is not None:
        colors = single_whole("colors", colors, minimum=2, maximum=256, why="the colours of a PNG palette")
    check_size("dpi", width * height * dpi * dpi, MAX_SIDE_PIXELS**2, "pixels of a notebook image", "pixels")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    if close:
        plt.close(fig)
    if colors is None:
        return buffer.getvalue()
    if not isinstance(colors, int) or not 2 <= colors <= 256:
        raise ValueError(f"colors must be a whole number from 2 to 256; got {colors!r}")
    from PIL import Image

    buffer.seek(0)
    image = Image.open(buffer).convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# The sizes every rendering for the page keeps to (scalinglib.plots.legibility and .page).

#: Smallest text size drawn in a figure, in points; smaller text is raised to it when a figure is shown.
MIN_FONT_PT = 9.0
#: Smallest text a reader should meet, in CSS pixels, at any screen width.
MIN_TEXT_PX = 10.0
#: Width of the phone layout of a figure, in inches (stacked panels; shown about 330-400 CSS px wide).
NARROW_WIDTH_IN = 4.0
#: The narrowest text column the book is laid out for (a 360 px phone less the page margins), CSS px.
PHONE_COLUMN_PX = 328
#: The text column of the book on a laptop (1280 px window, both sidebars: 688 px, less a captioned
#: figure's margins), CSS px: a figure is shown
#: this wide, so a figure drawn wider than it gets a text floor raised in proportion.
DESKTOP_COLUMN_PX = 656
