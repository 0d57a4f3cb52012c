"""A figure as compact SVG (every figure of the book's pages).

matplotlib's SVG backend draws the figure, with each text measured once per
process (:func:`_backends`); :func:`compact_svg` then shrinks the markup
without changing what it draws: coordinates rounded to 0.1 pt, styles turned
into classes, runs of straight segments and glyphs merged. :class:`SvgFigure`
holds one rendering with its size in CSS pixels and its smallest text.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import re
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt

from .style import MIN_TEXT_PX

__all__ = [
    "SvgFigure",
    "compact_svg",
]


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
