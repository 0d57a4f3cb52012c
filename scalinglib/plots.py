"""One look for every figure in the book.

* Colours: the Okabe-Ito palette, distinguishable with the common forms of
  colour blindness; lines also differ by style so print and grey-scale work.
* A white figure background, so a figure stays legible on the dark theme.
* Axis labels carry units; log axes with base 2 for worker counts.

Use :func:`new_figure` for a figure in a notebook cell, :func:`style_axes` on
axes made elsewhere (for example by the slider helper), and
:func:`figure_png` to turn a figure into PNG bytes.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html as html_lib
import io
import math
import os
import re
import textwrap
import warnings
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter, FuncFormatter, LogLocator

from ._validate import (
    check_axes,
    check_choice,
    check_figure,
    check_flag,
    check_frame,
    check_size,
    single_whole,
)

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
# Figures for the page: crisp SVG, legible text, a phone layout, and the same in JupyterLab.

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
#: Environment variable that turns off the HTML display of figures (plain PNG as matplotlib makes it).
PLAIN_ENV = "SCALINGLIB_PLAIN_FIGURES"

_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
_GEOMETRY = {"d", "x", "y", "points", "transform", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx", "ry", "width",
             "height", "dx", "dy"}
_FONT_STACK = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif"


@dataclass(frozen=True)
class SvgFigure:
    """One rendering of a figure as SVG.

    ``svg`` is the markup; ``css`` maps class names used in it to their declarations (empty when
    the styles are inside the SVG); ``width`` and ``height`` are its natural size in CSS pixels and
    ``font_px`` the size of its smallest text at that size.
    """

    svg: str
    css: dict
    width: float
    height: float
    font_px: float

    def legible_width(self, min_px: float = MIN_TEXT_PX) -> int:
        """The narrowest display width, in CSS px, at which the smallest text is still ``min_px`` tall."""
        return math.ceil(self.width * min_px / self.font_px)


def _round_number(match) -> str:
    text = match.group()
    if "e" in text:
        return text
    value = round(float(text), 1)
    if value == int(value):
        return str(int(value))
    return f"{value:.1f}"


_SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "scalinglib", "svg.image_inline": True}
_SVG_METADATA = {"Date": None, "Creator": None}


def _svg_bytes(fig) -> bytes:
    """``fig`` as SVG bytes, what ``fig.savefig(format="svg")`` writes, drawn once.

    ``savefig`` draws a figure with a layout engine three times over (once to find a renderer, once
    with drawing turned off to run the layout, once to write), each time with a fresh renderer that
    measures every text again. Here the layout runs inside the one draw that writes the file, with
    the renderer that writes it, and text sizes are measured once per process (:func:`_backends`).
    """
    if matplotlib.rcParams["savefig.bbox"] is not None:     # a tight box needs savefig's own passes
        buffer = io.BytesIO()
        with plt.rc_context(_SVG_RC):
            fig.savefig(buffer, format="svg", metadata=_SVG_METADATA)
        return buffer.getvalue()
    from matplotlib import cbook
    from matplotlib.backends.backend_mixed import MixedModeRenderer

    canvas_before = fig.canvas
    text = io.StringIO()
    with plt.rc_context(_SVG_RC), ExitStack() as stack:
        for prop in ("facecolor", "edgecolor"):     # what savefig does with the savefig.* colours
            color = matplotlib.rcParams[f"savefig.{prop}"]
            if not (isinstance(color, str) and color == "auto"):
                stack.enter_context(fig._cm_set(**{prop: color}))
        svg_renderer, svg_canvas = _backends()[:2]
        canvas = svg_canvas(fig)                    # the figure's canvas until the end of the block
        stack.callback(fig.set_canvas, canvas_before)
        stack.enter_context(cbook._setattr_cm(fig, dpi=fig.dpi))
        image_dpi = fig.dpi
        fig.dpi = 72                                # as the SVG backend draws: 1 px = 1 pt
        width, height = fig.get_size_inches()
        renderer = MixedModeRenderer(fig, width, height, image_dpi,
                                     svg_renderer(width * 72, height * 72, text, image_dpi=image_dpi,
                                                  metadata=_SVG_METADATA))
        canvas.renderer = renderer                  # the layout engine measures with it too
        fig.draw(renderer)
        renderer.finalize()
    return text.getvalue().encode("utf-8")


@functools.cache
def _backends():
    """The renderers and canvases of this module, made on first use (matplotlib loads its backends late).

    Returns ``(SvgRenderer, SvgCanvas, MeasuringCanvas, FigureCanvasAgg)``: the SVG renderer and
    canvas of :func:`_svg_bytes`, an Agg canvas whose renderer measures each text once per process
    (for :func:`restack`), and the Agg canvas it stands in for.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
    from matplotlib.backends.backend_svg import FigureCanvasSVG, RendererSVG
    from matplotlib.textpath import TextToPath

    shared = TextToPath()      # its mathtext parser caches parses: one for every figure
    metrics: dict = {}

    def remember(key, measure):
        found = metrics.get(key)
        if found is None:
            if len(metrics) > 50_000:
                metrics.clear()
            found = metrics[key] = measure()
        return found

    class SvgRenderer(RendererSVG):
        """The SVG renderer, with text measured once per process (the sizes depend on the text and font only)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._text2path = shared

        def get_text_width_height_descent(self, s, prop, ismath):
            if ismath == "TeX":
                return super().get_text_width_height_descent(s, prop, ismath)
            return remember(("svg", s, prop.copy(), ismath),
                            lambda: super(SvgRenderer, self).get_text_width_height_descent(s, prop, ismath))

    class SvgCanvas(FigureCanvasSVG):
        """An SVG canvas that hands the layout engine the renderer that draws (instead of a new one)."""

        renderer = None

        def get_renderer(self):
            return self.renderer

        def is_saving(self):
            return True

    class MeasuringRenderer(RendererAgg):
        """The Agg renderer, with text measured once per process (per text, font, dpi and hinting)."""

        def get_text_width_height_descent(self, s, prop, ismath):
            if ismath == "TeX":
                return super().get_text_width_height_descent(s, prop, ismath)
            rc = matplotlib.rcParams
            key = ("agg", s, prop.copy(), ismath, self.dpi, rc["text.hinting"], rc["text.hinting_factor"],
                   rc["text.antialiased"])
            return remember(key, lambda: super(MeasuringRenderer, self).get_text_width_height_descent(s, prop, ismath))

    class MeasuringCanvas(FigureCanvasAgg):
        """An Agg canvas with a ``MeasuringRenderer``, made and kept as ``FigureCanvasAgg`` keeps its own."""

        def get_renderer(self):
            key = (*self.figure.bbox.size, self.figure.dpi)
            if getattr(self, "_measuring_key", None) != key:
                self.renderer = MeasuringRenderer(*key)
                self._measuring_key = key
            return self.renderer

    return SvgRenderer, SvgCanvas, MeasuringCanvas, FigureCanvasAgg


@contextmanager
def _measuring(fig):
    """Within the block, ``fig``'s Agg canvas gives way to one that measures text once per process."""
    canvas = fig.canvas
    measuring_canvas, agg_canvas = _backends()[2:]
    if not isinstance(canvas, agg_canvas) or type(canvas).get_renderer is not agg_canvas.get_renderer:
        yield
        return
    measuring_canvas(fig)       # the figure's canvas until the end of the block
    try:
        yield
    finally:
        fig.set_canvas(canvas)


def compact_svg(svg: bytes, *, id_suffix: str = "", inline_styles: bool = True) -> tuple[str, dict]:
    """Shrink matplotlib's SVG without changing what it draws; return ``(markup, css)``.

    Coordinates are rounded to 0.1 pt, unreferenced ids and empty groups are dropped, and every
    ``style`` attribute becomes a class named after a hash of its declarations. With
    ``inline_styles`` the classes are defined in a ``<style>`` inside the SVG (for an ``<img>``);
    otherwise they are returned in ``css`` for the page to define once (for SVG placed in a page).
    ``id_suffix`` is appended to every id, so that several SVGs can share one page.
    """
    import xml.etree.ElementTree as ET

    ET.register_namespace("", _SVG_NS)
    text = svg.decode("utf-8")
    found = re.findall(r"url\(#([^)]+)\)|href=\"#([^\"]+)\"", text)
    referenced: dict[str, str] = {}
    for clip, link in found:   # matplotlib's long hashed ids become short ones, in order of first use
        referenced.setdefault(clip or link, f"{(clip and 'c') or 'm'}{len(referenced)}")
    root = ET.fromstring(svg)
    css: dict[str, str] = {}
    svg_tag, group_tag = f"{{{_SVG_NS}}}svg", f"{{{_SVG_NS}}}g"
    href = f"{{{_XLINK_NS}}}href"

    def style_class(declarations: str) -> str:
        declarations = re.sub(r"\s*;\s*", ";", declarations.strip()).replace(": ", ":").strip(";")
        declarations = declarations.replace("font-family:'DejaVu Sans'", f"font-family:{_FONT_STACK}")
        name = "k" + hashlib.sha1(declarations.encode()).hexdigest()[:6]
        css[name] = declarations
        return name

    def visit(element):
        for key in list(element.attrib):
            value = element.attrib[key]
            if key == "id":
                if value in referenced:
                    element.attrib[key] = referenced[value] + id_suffix
                else:
                    del element.attrib[key]
            elif key == href and value.startswith("#"):
                del element.attrib[key]
                element.attrib["href"] = "#" + referenced.get(value[1:], value[1:]) + id_suffix
            elif key == "clip-path":
                element.attrib[key] = re.sub(r"url\(#([^)]+)\)",
                                             lambda m: f"url(#{referenced.get(m.group(1), m.group(1))}{id_suffix})", value)
            elif key in _GEOMETRY and element.tag != svg_tag:
                value = re.sub(r"\s+", " ", _NUMBER.sub(_round_number, value)).strip()
                if key == "transform" and re.fullmatch(r"rotate\(-?0 [-\d. ]+\)", value):
                    del element.attrib[key]
                else:
                    element.attrib[key] = value
            elif key == "style":
                del element.attrib[key]
                element.attrib["class"] = style_class(value)
        children = []
        for child in list(element):
            visit(child)
            if child.tag == group_tag and not child.attrib:
                children.extend(child)
            elif child.tag == f"{{{_SVG_NS}}}metadata":
                continue
            else:
                children.append(child)
        for child in list(element):
            element.remove(child)
        element.extend(children)
        if element.text is not None and not element.text.strip():
            element.text = None
        for child in element:
            if child.tail is not None and not child.tail.strip():
                child.tail = None

    visit(root)
    _merge_simple_lines(root)
    _merge_glyph_spans(root)
    for path in root.iter(f"{{{_SVG_NS}}}path"):
        path.set("d", _relative_path(path.get("d", "")))
    # matplotlib's own stylesheet (line joins and caps) becomes one more class-free rule
    for defs in root.findall(f"{{{_SVG_NS}}}defs"):
        for style in defs.findall(f"{{{_SVG_NS}}}style"):
            defs.remove(style)
        if not len(defs):
            root.remove(defs)
    root.set("class", "sl-svg")
    base = "stroke-linejoin:round;stroke-linecap:butt"
    if inline_styles:
        sheet = ET.Element(f"{{{_SVG_NS}}}style")
        sheet.text = f".sl-svg *{{{base}}}" + "".join(f".{k}{{{v}}}" for k, v in sorted(css.items()))
        root.insert(0, sheet)
        css = {}
    markup = ET.tostring(root, encoding="unicode")
    return markup, css


_SEGMENT = re.compile(r"M (-?[\d.]+) (-?[\d.]+) L (-?[\d.]+) (-?[\d.]+)")


def _merge_simple_lines(root) -> None:
    """Draw tick marks and grid lines as one path each instead of one element per line.

    matplotlib writes every tick as a ``<use>`` of a one-segment marker and every grid line as its
    own ``<path>``; per parent, all of one kind (same marker, or same class and clip) become one
    path at the place of the first. They are thin lines that do not overlap the data, so the order
    in which they are painted does not show.
    """
    path_tag, use_tag = f"{{{_SVG_NS}}}path", f"{{{_SVG_NS}}}use"
    markers = {}
    for path in root.iter(path_tag):
        match = _SEGMENT.fullmatch(path.get("d", ""))
        if path.get("id") and match and match.group(1) == "0" and match.group(2) == "0":
            markers["#" + path.get("id")] = (match.group(3), match.group(4), path.get("class"))
    for parent in root.iter():
        groups: dict = {}
        for child in list(parent):
            if child.tag == use_tag and child.get("href") in markers and set(child.attrib) <= {"href", "x", "y", "class"}:
                dx, dy, cls = markers[child.get("href")]
                key, piece = ("use", child.get("href")), f"M{child.get('x')} {child.get('y')}l{dx} {dy}"
                attrs = {"class": cls} if cls else {}
            elif (child.tag == path_tag and set(child.attrib) <= {"d", "class", "clip-path"}
                  and _SEGMENT.fullmatch(child.get("d", ""))):
                m = _SEGMENT.fullmatch(child.get("d"))
                key, piece = ("path", child.get("class"), child.get("clip-path")), f"M{m[1]} {m[2]}L{m[3]} {m[4]}"
                attrs = {k: v for k, v in child.attrib.items() if k != "d"}
            else:
                continue
            if key in groups:
                groups[key].set("d", groups[key].get("d") + piece)
                parent.remove(child)
            else:
                child.attrib.clear()
                child.tag = path_tag
                child.set("d", piece)
                child.attrib.update(attrs)
                groups[key] = child


_PATH_TOKEN = re.compile(r"[A-Za-z]|-?\d*\.?\d+")
_ARGS = {"M": 2, "L": 2, "C": 6, "Q": 4, "Z": 0, "z": 0}


def _tenths(value: int) -> str:
    """A number kept in tenths as short SVG text: 15 -> '1.5', -5 -> '-.5', 30 -> '3'."""
    if value % 10 == 0:
        return str(value // 10)
    text = f"{value / 10:.1f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def _join_numbers(numbers) -> str:
    out = ""
    for text in numbers:
        out += text if (not out or text.startswith("-")) else " " + text
    return out


def _relative_path(d: str) -> str:
    """Rewrite matplotlib's absolute path data (M, L, C, Q, Z) with relative moves and short numbers.

    Coordinates are rounded to 0.1 first and every step is taken between rounded points, so the
    shape drawn is the rounded absolute one exactly (no drift along a long curve). Path data in any
    other form is returned unchanged.
    """
    tokens = _PATH_TOKEN.findall(d)
    if not tokens or any(t.isalpha() and t not in _ARGS for t in tokens):
        return d
    out, x, y, start = [], 0, 0, (0, 0)
    i, command = 0, None
    while i < len(tokens):
        if tokens[i].isalpha():
            command = tokens[i]
            i += 1
            if command in "Zz":
                out.append("z")
                x, y = start
                continue
        if command is None:
            return d
        n = _ARGS[command]
        args = tokens[i:i + n]
        if len(args) < n or any(a.isalpha() for a in args):
            return d
        i += n
        points = [(round(float(args[k]) * 10), round(float(args[k + 1]) * 10)) for k in range(0, n, 2)]
        if not out and command == "M":
            x, y = points[0]
            start = (x, y)
            out.append("M" + _join_numbers([_tenths(x), _tenths(y)]))
            continue
        deltas = []
        for px, py in points:
            deltas += [_tenths(px - x), _tenths(py - y)]
        letter = command.lower()
        if out and out[-1][0] == letter and letter in "lcq":
            out[-1] += _join_numbers(["0"] + deltas)[1:] if not deltas[0].startswith("-") else "".join(
                [_join_numbers(deltas)])
        else:
            out.append(letter + _join_numbers(deltas))
        x, y = points[-1]
        if command == "M":
            start = (x, y)
    return "".join(out)


def _merge_glyph_spans(root) -> None:
    """Join the one-glyph ``<tspan>`` runs that matplotlib writes for math text into one span per run.

    A span may list one x position per character, so consecutive glyphs of one style on one
    baseline become a single element that draws exactly the same glyphs at the same places.
    """
    span_tag = f"{{{_SVG_NS}}}tspan"
    for text in root.iter(f"{{{_SVG_NS}}}text"):
        previous = None
        for span in list(text):
            if span.tag != span_tag or set(span.attrib) - {"x", "y", "class"}:
                previous = None
                continue
            if not span.text:
                text.remove(span)      # an empty span (a space) draws nothing; positions are absolute
                continue
            if (previous is not None and previous.get("y") == span.get("y") and previous.get("class") == span.get("class")
                    and len(span.text) == 1 and " " not in span.get("x", " ")):
                previous.set("x", previous.get("x") + " " + span.get("x"))
                previous.text += span.text
                text.remove(span)
            elif len(span.text) == 1:
                previous = span
            else:
                previous = None


def legible(fig, min_pt: float = MIN_FONT_PT) -> float:
    """Raise every text of ``fig`` smaller than ``min_pt`` points to ``min_pt``; return the smallest size left.

    Tick labels, legends, annotations and titles all count. Nothing is drawn: tick labels are
    sized through their axis, so ticks made at drawing time get the new size too.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> _ = ax.annotate("small", (0.5, 0.5), fontsize=6)
    >>> legible(fig)
    9.0
    >>> plt.close(fig)
    """
    sizes = []
    tick_labels = set()
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for which, ticks in (("major", axis.get_major_ticks(1)), ("minor", axis.get_minor_ticks(1))):
                if not ticks:
                    continue
                label = ticks[0].label1
                if label.get_fontsize() < min_pt:
                    ax.tick_params(axis=name, which=which, labelsize=min_pt)
                sizes.append(label.get_fontsize())
                for tick in ticks:
                    tick_labels.update((id(tick.label1), id(tick.label2)))
    for text in _texts(fig):
        if id(text) in tick_labels or not text.get_visible() or not text.get_text().strip():
            continue
        if text.get_fontsize() < min_pt:
            text.set_fontsize(min_pt)
        sizes.append(text.get_fontsize())
    return float(min(sizes)) if sizes else float(min_pt)


def _texts(fig) -> list:
    """The texts of ``fig``, as ``fig.findobj(Text)`` finds them, without making ticks.

    ``findobj`` asks every axis for its ticks, and so runs the tick locators and makes a tick (two
    lines and two texts) for every location, minor ones included; here an axis gives its label,
    its offset text and the ticks it already holds. A tick made later copies its look from the
    first one, and its label has no text until the tick is drawn.
    """
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    found = []

    def walk(artist):
        if isinstance(artist, Axis):
            children = [artist.label, artist.offsetText, *artist.majorTicks, *artist.minorTicks]
        else:
            children = artist.get_children()
        for child in children:
            walk(child)
        if isinstance(artist, Text):
            found.append(artist)

    walk(fig)
    return found


class _EveryOtherLabel(Formatter):
    """Keep every other tick label of another formatter (for an axis squeezed onto a phone)."""

    def __init__(self, inner):
        self.inner = inner

    def __call__(self, x, pos=None):
        return self.inner(x, pos) if pos is None or pos % 2 == 0 else ""

    def format_ticks(self, values):
        labels = self.inner.format_ticks(values)
        return [label if i % 2 == 0 else "" for i, label in enumerate(labels)]

    def get_offset(self):
        return self.inner.get_offset()

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)


def _thin_crowded_tick_labels(fig, gap_px: float = 3.0) -> None:
    """Where neighbouring tick labels of an axis overlap, keep every other one.

    The labels are measured where the figure's layout puts them: the layout runs (as a draw would
    run it first) with the canvas's renderer, and nothing is drawn.
    """
    renderer = fig.canvas.get_renderer()
    engine = fig.get_layout_engine()
    if fig.axes and engine is not None:
        try:
            engine.execute(fig)
        except ValueError:   # as Figure.draw: a layout that cannot be made leaves the panels where they are
            pass
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
            if name == "x":
                spans = sorted((b.x0, b.x1) for b in boxes)
            else:
                spans = sorted((b.y0, b.y1) for b in boxes)
            crowded = any(b0 < a1 + gap_px for (_a0, a1), (b0, _b1) in zip(spans, spans[1:]))
            if crowded and not isinstance(axis.get_major_formatter(), _EveryOtherLabel):
                axis.set_major_formatter(_EveryOtherLabel(axis.get_major_formatter()))


def _one_column(legend) -> None:
    """Re-pack a legend's entries into a single column (a figure legend in a row is wider than a phone)."""
    from matplotlib.offsetbox import VPacker

    box = getattr(legend, "_legend_handle_box", None)
    columns = box.get_children() if box is not None else []
    if len(columns) < 2:
        return
    items = [item for column in columns for item in column.get_children()]
    box._children = [VPacker(pad=0, sep=columns[0].sep, align=columns[0].align, children=items)]


def restack(fig, width: float = NARROW_WIDTH_IN) -> bool:
    """Lay a one-row grid of panels out as one column, ``width`` inches wide, for a phone.

    Panels keep their order (left to right becomes top to bottom); twin axes move with their
    panel; colour bars and insets follow their axes. Figure legends get one column, long titles
    wrap, and tick labels that would overlap keep every other label. A figure that is not one row
    of panels is only made narrower (rows of panels a little taller). Titles and axis labels wrap.
    Returns True when the panels were restacked.
    """
    old_w, old_h = fig.get_size_inches()
    panels = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    grids = {id(ax.get_subplotspec().get_gridspec()) for ax in panels}
    nrows, ncols = panels[0].get_subplotspec().get_gridspec().get_geometry() if panels else (1, 1)
    for legend in fig.legends:    # a legend laid out in a row of columns would be wider than a phone
        _one_column(legend)
    legend_h = sum(0.2 * (len(lg.get_texts()) + 1) for lg in fig.legends)
    titles = ([ax.title for ax in fig.axes] + [ax.xaxis.label for ax in fig.axes] + [ax.yaxis.label for ax in fig.axes]
              + [getattr(fig, "_suptitle", None), getattr(fig, "_supxlabel", None)])
    for title in titles:
        if title is not None and title.get_text():
            title.set_wrap(True)
    stacked = len(grids) == 1 and nrows == 1 and ncols > 1
    if stacked:
        panel_h = min(max(old_h - 0.2 * len(fig.legends), 2.4), 3.0)
        grid = fig.add_gridspec(ncols, 1)
        for ax in panels:
            span = ax.get_subplotspec().colspan
            ax.set_subplotspec(grid[span.start:span.stop, 0])
        fig.set_size_inches(width, panel_h * ncols + legend_h)
    else:   # the same panels, narrower; rows of panels get more height for their text
        fig.set_size_inches(width, max(old_h * (1.5 if nrows > 1 else 1.0), 2.4) + legend_h)
    # a legend laid out in a row that no longer fits the width goes to one column (measured before the
    # layout runs: a legend wider than the figure would make the layout give up)
    with _measuring(fig):
        renderer = fig.canvas.get_renderer()
        crowded = [lg for lg in list(fig.legends) + [ax.get_legend() for ax in fig.axes]
                   if lg is not None and lg.get_window_extent(renderer).width > 0.9 * fig.bbox.width]
        for legend in crowded:
            _one_column(legend)
            if legend.get_window_extent(renderer).width > 0.9 * fig.bbox.width:   # still too wide: wrap the labels
                for text in legend.get_texts():
                    chars = max(12, int(0.75 * width * 72 / (0.6 * text.get_fontsize())))
                    text.set_text(textwrap.fill(text.get_text(), chars))
        _thin_crowded_tick_labels(fig)
    return stacked


def _hide_blank_minor_labels(fig) -> None:
    """Switch off the minor tick labels of every axis whose formatter gives none of its minor ticks a label.

    A log axis that spans more than a decade has eight minor ticks a decade and labels none of them, yet
    every layout pass and every draw measures each of those empty labels: a tenth or more of the cost of a
    slider frame with log axes. Switched off, they are neither measured nor drawn; an empty label draws
    nothing and takes no room, so the figure comes out the same.
    """
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            locs = axis.get_minorticklocs()
            if len(locs) and not any(axis.get_minor_formatter().format_ticks(locs)):
                shown = axis.offsetText.get_visible()     # set_tick_params resets it from the major ticks
                axis.set_tick_params(which="minor", label1On=False, label2On=False)
                axis.offsetText.set_visible(shown)


@contextmanager
def _ticks_computed_once(fig):
    """Within the block, an axis of ``fig`` computes its ticks, and measures their labels, again only when
    something they depend on changed.

    A layout pass asks every axis for its ticks a dozen times (for its own extent, for each axis that
    shares it, for the title's place), and a draw asks again: each time the locators and formatters run
    and every tick is moved, relabelled and measured, with the same outcome. Here an axis keeps its last
    ticks while its view limits, its panel's place and size, the figure's dpi, its locators, formatters
    and scale, its tick label size, which parts of its ticks show and its tick objects stay the same.
    The figure comes out byte for byte as drawn without it.
    """
    patched = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if "_update_ticks" not in axis.__dict__ and "_get_ticklabel_bboxes" not in axis.__dict__:
                axis._update_ticks, axis._get_ticklabel_bboxes = _remembering_ticks(
                    axis, axis._update_ticks, axis._get_ticklabel_bboxes)
                patched.append(axis)
    try:
        yield
    finally:
        for axis in patched:
            del axis._update_ticks, axis._get_ticklabel_bboxes


def _remembering_ticks(axis, compute, measure):
    """``axis._update_ticks`` and ``axis._get_ticklabel_bboxes`` that remember their last answers and what
    those depended on (see above); the boxes of the tick labels also depend on the renderer that measures
    them and on which labels show."""
    last = [None, (), []]        # key, the objects it names (held, so that no id is reused), ticks
    boxes = [None, None, None]   # key, the renderer and ticks it names (held), the boxes

    def key_now():
        major, minor = axis.major, axis.minor
        ticks = axis.__dict__.get("majorTicks"), axis.__dict__.get("minorTicks")
        objects = (major.locator, major.formatter, minor.locator, minor.formatter, axis._scale, *ticks)
        key = (tuple(axis.get_view_interval()), axis.axes.bbox.bounds, axis.get_figure(root=True).dpi,
               axis._get_tick_label_size(axis.axis_name), axis._tick_group_visible(axis._major_tick_kw),
               axis._tick_group_visible(axis._minor_tick_kw), tuple(map(id, objects)),
               tuple(len(t) if isinstance(t, list) else -1 for t in ticks))
        return key, objects

    def update():
        key, _ = key_now()
        if key != last[0]:
            ticks = compute()
            last[0], last[1] = key_now()       # computing may have made new tick objects
            last[2] = ticks
        return list(last[2])

    def ticklabel_bboxes(ticks, renderer):
        ticks = list(ticks)
        key = (key_now()[0] == last[0] and last[0], id(renderer), tuple(map(id, ticks)),
               tuple((t.label1.get_visible(), t.label2.get_visible()) for t in ticks))
        if not key[0] or key != boxes[0]:
            found = measure(ticks, renderer)
            if not key[0]:
                return found
            boxes[:] = [key, (renderer, ticks), found]
        return tuple(list(b) for b in boxes[2])

    return update, ticklabel_bboxes


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
