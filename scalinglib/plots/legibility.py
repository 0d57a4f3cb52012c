"""Legible figures: text sizes with a floor, and panels restacked for a phone (every figure of the book's pages).

:func:`legible` raises every text of a figure to at least :data:`MIN_FONT_PT`;
:func:`restack` lays a row of panels out as one column :data:`NARROW_WIDTH_IN`
inches wide, with one-column legends, wrapped titles and thinned tick labels.
The sizes it keeps to are those of :mod:`scalinglib.plots.style`.
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager

from matplotlib.ticker import Formatter

from .style import MIN_FONT_PT, NARROW_WIDTH_IN
from .svg import _measuring

__all__ = [
    "legible",
    "restack",
]


def legible(fig, min_pt: float = MIN_FONT_PT) -> float:
    """Raise every text of ``fig`` smaller than ``min_pt`` points to ``min_pt``; return the smallest size left.

    Tick labels, legends, annotations and titles all count. Nothing is drawn: tick labels are
    sized through their axis, so ticks made at drawing time get the new size too.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from scalinglib.plots import new_figure
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
