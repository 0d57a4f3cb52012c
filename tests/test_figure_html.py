"""Figures for the page (scalinglib.plots): compact SVG, the text floor, the phone layout, the IPython display."""

import base64
import re

import matplotlib.pyplot as plt
import pytest

import scalinglib as sl
from scalinglib import plots


def _two_panels(width=8.0, height=3.2):
    fig = plt.figure(figsize=(width, height), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    left.plot([1, 2, 3], [3, 1, 2], label="a")
    right.plot([1, 2, 3], [1, 2, 3], label="b")
    left.set_title("left panel")
    right.annotate("note", (2, 2), fontsize=6)
    fig.legend(loc="outside lower center", ncols=3)
    return fig


def _svgs(html):
    return [base64.b64decode(m).decode() for m in re.findall(r"base64,([A-Za-z0-9+/=]+)", html)]


def test_wide_figure_gets_a_phone_layout_chosen_by_the_browser():
    html = plots.figure_html(_two_panels(), alt="two panels")
    assert html.startswith('<div class="sl-figure"><picture><source media="(max-width: ')
    assert 'alt="two panels"' in html and 'width="768" height="307.2"' in html
    narrow, wide = _svgs(html)            # the <source> comes first
    assert 'width="288pt"' in narrow and 'width="576pt"' in wide
    # stacked: the narrow one is taller than wide
    assert float(re.search(r'height="([\d.]+)pt"', narrow).group(1)) > 300


def test_small_figure_has_no_phone_layout():
    fig, ax = sl.new_figure(width=4.0, height=3.0)
    ax.plot([0, 1], [0, 1])
    html = plots.figure_html(fig)
    assert "<picture>" not in html and len(_svgs(html)) == 1


def test_text_floor_and_its_record():
    html = plots.figure_html(_two_panels())
    for svg in _svgs(html):
        sizes = [float(x) for x in re.findall(r"font-size:([\d.]+)px", svg)]
        assert min(sizes) >= plots.MIN_FONT_PT
    assert 'data-font-px="12"' in html        # 9 pt = 12 CSS px at the natural size


def test_a_figure_wider_than_the_column_gets_a_higher_floor():
    fig = _two_panels(width=10.0)
    wide, _ = plots.render_svg(fig)
    assert wide.font_px * plots.DESKTOP_COLUMN_PX / wide.width >= plots.MIN_TEXT_PX


def test_restack_puts_panels_in_one_column_in_order():
    fig = _two_panels()
    left, right = fig.axes[:2]
    assert plots.restack(fig)
    assert left.get_subplotspec().rowspan.start == 0 and right.get_subplotspec().rowspan.start == 1
    assert fig.get_size_inches()[0] == plots.NARROW_WIDTH_IN
    plt.close(fig)


def test_display_leaves_the_figure_as_it_was():
    fig = _two_panels()
    before = (tuple(fig.get_size_inches()), [ax.get_subplotspec().get_geometry() for ax in fig.axes],
              fig.axes[1].texts[0].get_fontsize())
    plots.figure_html(fig, close=False)
    after = (tuple(fig.get_size_inches()), [ax.get_subplotspec().get_geometry() for ax in fig.axes],
             fig.axes[1].texts[0].get_fontsize())
    assert after == before
    plt.close(fig)


def test_compact_svg_keeps_what_is_drawn():
    fig, ax = sl.new_figure()
    ax.plot([0, 1, 2], [0, 1, 4], marker="o")
    ax.set_xlabel("workers K")
    raw = plots._svg_bytes(fig)
    markup, css = plots.compact_svg(raw, id_suffix="x1", inline_styles=False)
    plt.close(fig)
    assert len(markup) < 0.6 * len(raw)
    assert "workers K" in markup
    assert all(i.endswith("x1") for i in re.findall(r' id="([^"]+)"', markup))
    assert set(re.findall(r'class="(k[0-9a-f]{6})"', markup)) <= set(css)
    assert markup.count("<use") >= 3                   # the three data markers are still drawn


def test_same_figure_same_bytes():
    assert plots.figure_html(_two_panels()) == plots.figure_html(_two_panels())


def test_install_display_registers_the_html_formatter():
    from IPython.core.formatters import DisplayFormatter
    from matplotlib.figure import Figure

    class Shell:
        display_formatter = DisplayFormatter()

    shell = Shell()
    assert plots.install_display(shell)
    html = shell.display_formatter.formatters["text/html"](_two_panels())
    assert html.startswith('<div class="sl-figure">')
    assert Figure not in shell.display_formatter.formatters["image/png"].type_printers


def test_install_display_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(plots.PLAIN_ENV, "1")
    assert plots.install_display(object()) is False


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _absolute_points(d):
    """Parse the relative path data written by _relative_path back into absolute points (for checking)."""
    tokens = re.findall(r"[A-Za-z]|-?\d*\.?\d+", d)
    points, x, y, start, i, cmd = [], 0.0, 0.0, (0.0, 0.0), 0, None
    sizes = {"M": 2, "m": 2, "l": 2, "c": 6, "q": 4, "z": 0}
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd == "z":
                x, y = start
                points.append(("z", round(x, 1), round(y, 1)))
                continue
        n = sizes[cmd]
        vals = [float(v) for v in tokens[i:i + n]]
        i += n
        if cmd == "M":
            x, y = vals
        else:
            pts = [(x + vals[k], y + vals[k + 1]) for k in range(0, n, 2)]
            for px, py in pts:
                points.append((cmd, round(px, 1), round(py, 1)))
            x, y = pts[-1]
        if cmd in "Mm":
            start = (x, y)
            points.append(("m", round(x, 1), round(y, 1)))
    return points


def test_relative_path_draws_the_rounded_absolute_path():
    import numpy as np

    rng = np.random.default_rng(3)
    for _ in range(50):
        xs, ys = rng.uniform(-50, 600, 40), rng.uniform(-20, 300, 40)
        d = "M " + " ".join(f"{x:.6f} {y:.6f}" + (" L" if k < 39 else "") for k, (x, y) in enumerate(zip(xs, ys)))
        d = d.replace(" L", " L ").replace("  ", " ") + " z"
        out = plots._relative_path(d)
        assert len(out) < len(d)
        got = [(p[1], p[2]) for p in _absolute_points(out) if p[0] in "ml"]
        want = [(round(x, 1) + 0.0, round(y, 1) + 0.0) for x, y in zip(xs, ys)]
        np.testing.assert_allclose(got, want, atol=0.051)
    # anything but M, L, C, Q, Z is left alone
    assert plots._relative_path("M 0 0 A 5 5 0 0 1 10 10") == "M 0 0 A 5 5 0 0 1 10 10"


def _crowded_panels():
    fig = plt.figure(figsize=(9.0, 3.0), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax in axes:
        ax.plot(range(2048), range(2048))
        ax.set_xticks(range(0, 2049, 192), [f"{v:,}" for v in range(0, 2049, 192)])
    return fig


def _overlaps(axis, renderer, gap=3.0):
    spans = sorted((b.x0, b.x1) for b in (t.get_window_extent(renderer) for t in axis.get_ticklabels()
                                          if t.get_visible() and t.get_text()))
    return any(b0 < a1 + gap for (_a0, a1), (b0, _b1) in zip(spans, spans[1:]))


def test_phone_layout_thins_crowded_tick_labels_as_a_full_draw_measures_them():
    fig = _crowded_panels()
    plots.restack(fig)
    top = fig.axes[0]
    assert isinstance(top.xaxis.get_major_formatter(), plots._EveryOtherLabel)     # 11 labels on 4 in
    assert not isinstance(top.yaxis.get_major_formatter(), plots._EveryOtherLabel)      # room to spare
    # the decision matches a full draw of the restacked figure: crowded before thinning, not after
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    assert not _overlaps(top.xaxis, renderer)
    top.xaxis.set_major_formatter(top.xaxis.get_major_formatter().inner)
    fig.draw_without_rendering()
    assert _overlaps(top.xaxis, renderer)


# --- ticks computed once per state (plots._ticks_computed_once) ---------------------------------------


def _log_twin_shared():
    """Log axes shared by two panels, a twin axis, a legend, a wrapped title and crowded tick labels on a
    phone: the cases where a layout asks each axis for its ticks most often."""
    import numpy as np

    fig = plt.figure(figsize=(8.0, 3.0), layout="constrained")
    left, right = fig.subplots(1, 2, sharex=True)
    x = np.logspace(0, 2, 20)
    left.loglog(x, 1 / x, label="falling")
    right.plot(x, np.log(x), label="rising")
    right.twinx().plot(x, x % 7, color="grey")
    right.set_xticks([1, 2, 3, 5, 10, 20, 30, 50, 100])
    left.set_title("a title long enough to wrap on a phone's narrow screen")
    fig.legend(loc="outside lower center", ncols=2)
    return fig


@pytest.mark.parametrize("make", [_two_panels, _log_twin_shared])
def test_ticks_computed_once_draw_the_same_bytes(make, monkeypatch):
    """With the ticks of each axis remembered, the wide and the phone renderings are byte for byte those
    drawn when every layout pass computes them afresh."""
    from contextlib import nullcontext

    remembered = plots.render_svg(make(), id_suffix="t")
    monkeypatch.setattr(plots.page, "_ticks_computed_once", lambda fig: nullcontext())
    afresh = plots.render_svg(make(), id_suffix="t")
    plt.close("all")
    assert [f and f.svg for f in remembered] == [f and f.svg for f in afresh]
    assert remembered[1] is not None


def test_remembered_ticks_follow_a_change_and_leave_no_trace():
    fig = _log_twin_shared()
    axes = fig.axes[0]
    with plots._ticks_computed_once(fig):
        first = [t.get_loc() for t in axes.xaxis._update_ticks()]
        assert [t.get_loc() for t in axes.xaxis._update_ticks()] == first      # remembered
        axes.set_xlim(10, 100)                                                  # new limits: computed again
        moved = [t.get_loc() for t in axes.xaxis._update_ticks()]
        assert moved != first and min(moved) >= 10 and max(moved) <= 100
        axes.xaxis.set_major_formatter(plt.NullFormatter())                     # a new formatter: labelled again
        assert not any(t.label1.get_text() for t in axes.xaxis._update_ticks())
    assert "_update_ticks" not in axes.xaxis.__dict__ and "_get_ticklabel_bboxes" not in axes.xaxis.__dict__
    plt.close(fig)
