"""The slider helper: validation of slider ranges, the frame grid, the browser links, the frame cache,
the kinds of control, and frames drawn as SVG with a phone layout within the page-weight budget."""

import json
import re

import ipywidgets as widgets
import numpy as np
import pytest

import scalinglib as sl
from scalinglib import widgets as sw


def draw_line(fig, a, b):
    ax = fig.subplots()
    ax.plot([0, 1], [a, b])
    return ax


def test_choice_defaults_and_formatting():
    c = sl.choice("size", [1e9, 13e9], fmt=lambda x: f"{x / 1e9:g}B")
    assert c.default == 1e9 and c.default_index == 0
    assert c.text(13e9) == "13B"


@pytest.mark.parametrize(
    ("values", "default", "message"),
    [
        ([], None, "at least one"),
        ([1, 1], None, "repeat"),
        ([1, 2], 3, "not one of its values"),
        ([0.1, 0.10000001], None, "print the same text"),
    ],
)
def test_choice_refuses_bad_ranges(values, default, message):
    with pytest.raises(ValueError, match=message):
        sl.choice("x", values, default=default)


def test_choice_refuses_a_string_of_values():
    with pytest.raises(TypeError):
        sl.choice("x", "abc")


def test_frame_values_order_first_slider_slowest():
    grid = sw.frame_values({"a": sl.choice("a", [1, 2]), "b": sl.choice("b", [3, 4, 5])})
    assert len(grid) == 6
    assert grid[0] == {"a": 1, "b": 3} and grid[3] == {"a": 2, "b": 3}


def test_too_many_frames_is_refused():
    params = {"a": sl.choice("a", list(range(10))), "b": sl.choice("b", list(range(10)))}
    with pytest.raises(ValueError, match="100 frames"):
        sw.render_frames(draw_line, params)


def test_render_frames_gives_distinct_svgs():
    frames = sw.render_frames(draw_line, {"a": sl.choice("a", [0, 1]), "b": sl.choice("b", [0, 2])})
    assert len(frames) == 4
    assert all(svg.startswith(b"<svg") and svg.endswith(b"</svg>") for svg in frames.values())
    assert len(set(frames.values())) == 4


def _images(widget):
    """Every frame inside a slider widget, depth first."""
    found = []
    if isinstance(widget, widgets.HTML) and 'class="sl-frame"' in widget.value:
        found.append(widget.value)
    for child in getattr(widget, "children", ()):
        found.extend(_images(child))
    return found


def test_slider_figure_structure_and_links():
    params = {"a": sl.choice("a", [0, 1, 2], default=1), "b": sl.choice("b", [5, 6])}
    box = sl.slider_figure(draw_line, params, alt="line from {a} to {b}")
    sliders, stack = box.children[0].children, box.children[1]
    assert [s.description for s in sliders] == ["a", "b"]
    assert sliders[0].index == 1                        # starts on the default
    assert isinstance(stack, widgets.Stack) and len(stack.children) == 3
    assert stack.selected_index == 1
    assert all(isinstance(c, widgets.Stack) and len(c.children) == 2 for c in stack.children)
    # every stack is tied to its slider by a link the browser keeps (no Python callback)
    links = box.links
    assert len(links) == 1 + 3
    outer = [lk for lk in links if lk.target == (stack, "selected_index")]
    assert outer and outer[0].source == (sliders[0], "index")
    for inner in stack.children:
        assert any(lk.target == (inner, "selected_index") and lk.source == (sliders[1], "index") for lk in links)
    imgs = _images(stack)
    assert len(imgs) == 6
    alts = [re.search(r'aria-label="([^"]*)"', tag).group(1) for tag in imgs]
    assert alts[0] == "line from 0 to 5" and alts[-1] == "line from 2 to 6"


def test_slider_frames_are_the_rendered_svgs():
    params = {"a": sl.choice("a", [0, 3, 5, 7])}
    box = sl.slider_figure(lambda fig, a: draw_line(fig, a, a), params, alt="flat line at {a}")
    frames = _images(box)
    svgs = [re.findall(r"<svg.*?</svg>", f, re.S) for f in frames]
    assert all(len(s) in (1, 2) for s in svgs) and svgs[0] != svgs[1]
    # each frame's ids are its own: hidden frames must not own the clip paths of the visible one
    ids = [set(re.findall(r' id="([^"]+)"', f)) for f in frames]
    assert all(a.isdisjoint(b) for i, a in enumerate(ids) for b in ids[i + 1:])
    # the styles the frames use are defined once, in the panel
    style = box.children[-1].value
    assert style.startswith("<style>")
    for cls in set(re.findall(r'class="(k[0-9a-f]{6})"', "".join(frames))):
        assert f".{cls}{{" in style


def test_named_choices_get_buttons_or_a_dropdown_and_numbers_a_slider():
    params = {
        "device": sl.choice("device", ["A100 SXM 80GB", "H100 SXM 80GB", "MI300X", "TPU v5e"], fmt="{}"),
        "size": sl.choice("model size", [13e9, 175e9], fmt=lambda x: f"{x / 1e9:g}B"),
        "n": sl.choice("GEMM order n", [16, 64, 256, 1024]),
        "forced": sl.choice("forced", [1, 2], control="slider"),
    }
    controls = sw._controls(list(params.items()))
    kinds = [type(c).__name__ for c in controls]
    assert kinds == ["Dropdown", "ToggleButtons", "SelectionSlider", "SelectionSlider"]
    # all start on the default and expose the index that jslink ties to the frames
    assert all(c.index == 0 for c in controls)
    # one label column for every control of a panel
    assert {c.style.description_width for c in controls} == {sw.LABEL_WIDTH}
    with pytest.raises(ValueError, match="control"):
        sl.choice("x", [1, 2], control="knob")


def test_frames_carry_a_phone_layout_within_the_budget(monkeypatch):
    def two_panels(fig, a):
        left, right = fig.subplots(1, 2)
        left.plot([0, 1], [0, a])
        right.plot([0, 1], [a, 0])

    params = {"a": sl.choice("a", [1, 2, 3, 4])}
    box = sl.slider_figure(two_panels, params, width=8.0, height=3.0, alt="two lines, {a}")
    frames = _images(box)
    assert all(f.count("<svg") == 2 and "sl-narrow" in f for f in frames)
    assert "@media (max-width:" in box.children[-1].value
    # with a tiny budget the phone layout is left out, and the wide figure keeps a legible width instead
    monkeypatch.setattr(sw, "STATE_BUDGET", 1000)
    box = sl.slider_figure(two_panels, params, width=8.0, height=3.0, alt="two lines, {a}")
    assert all(f.count("<svg") == 1 for f in _images(box))
    assert "min-width:" in box.children[-1].value


def test_frame_text_is_never_smaller_than_the_floor():
    def tiny(fig, a):
        ax = fig.subplots()
        ax.plot([0, 1], [0, a])
        ax.annotate("small note", (0.5, 0.5), fontsize=5)
        ax.tick_params(labelsize=6)

    frame = sw._draw_frame(tiny, {"a": 1}, 6.4, 3.0, 80)
    sizes = [float(x) for x in re.findall(r"font-size:([\d.]+)px", json.dumps(frame))]
    assert sizes and min(sizes) >= sl.plots.MIN_FONT_PT
    assert frame["wide"]["font_px"] == pytest.approx(sl.plots.MIN_FONT_PT * 4 / 3)


def test_alt_text_can_be_a_function():
    box = sl.slider_figure(draw_line, {"a": sl.choice("a", [1]), "b": sl.choice("b", [2])},
                           alt=lambda a, b: f"{a}<{b}")
    assert 'aria-label="1&lt;2"' in _images(box)[0]


def test_slider_html_frames():
    box = sl.slider_html(lambda n: f"<b>{n * n}</b>", {"n": sl.choice("n", [2, 3])})
    stack = box.children[1]
    assert [c.value for c in stack.children] == ['<div class="scalinglib-html-frame"><b>4</b></div>',
                                                 '<div class="scalinglib-html-frame"><b>9</b></div>']


def _stacks(widget):
    found = [widget] if isinstance(widget, widgets.Stack) else []
    for child in getattr(widget, "children", ()):
        found.extend(_stacks(child))
    return found


@pytest.mark.parametrize("make", [
    lambda params: sl.slider_figure(draw_line, params, alt="line from {a} to {b}"),
    lambda params: sl.slider_html(lambda a, b: f"<i>{a}{b}</i>", params),
])
def test_nested_stacks_and_frames_share_one_layout_each(make):
    # each widget model is page weight: the nested stacks share one Layout, and so do the frames
    params = {"a": sl.choice("a", [0, 1, 2]), "b": sl.choice("b", [5, 6])}
    stack = make(params).children[1]
    stacks = _stacks(stack)
    assert len(stacks) == 1 + 3
    assert len({id(s.layout) for s in stacks}) == 1
    frames = [leaf for s in stacks for leaf in s.children if isinstance(leaf, widgets.HTML)]
    assert len(frames) == 6 and len({id(f.layout) for f in frames}) == 1


def test_figure_png_palette_shrinks_and_stays_png():
    fig, ax = sl.new_figure()
    ax.plot(np.arange(10), np.arange(10) ** 2)
    full = sl.figure_png(fig, close=False)
    small = sl.figure_png(fig, colors=64)
    assert small.startswith(b"\x89PNG") and len(small) < len(full)
    with pytest.raises(ValueError, match="colors"):
        sl.figure_png(fig, colors=1)


def test_frame_cache_reuses_library_frames(tmp_path, monkeypatch):
    monkeypatch.setenv(sw.CACHE_ENV, str(tmp_path))
    draw = sl.figures.s3_1.speedup_and_efficiency
    first = sw._draw_frame(draw, {"f": 0.05, "k_max": 64}, 6.4, 3.2, 80)
    cached = list(tmp_path.glob("*.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text()) == first
    assert sw._draw_frame(draw, {"f": 0.05, "k_max": 64}, 6.4, 3.2, 80) == first
    # functions defined outside the library are never cached (their source is not fingerprinted)
    sw._draw_frame(draw_line, {"a": 0, "b": 1}, 6.4, 3.2, 80)
    assert len(list(tmp_path.glob("*.json"))) == 1


def test_alt_text_is_required():
    with pytest.raises(TypeError, match="alt"):
        sl.slider_figure(draw_line, {"a": sl.choice("a", [1]), "b": sl.choice("b", [2])}, alt="")


def test_first_frame_mode_renders_one_frame_and_still_draws_every_position(monkeypatch):
    """With SCALINGLIB_SLIDER_FRAMES=first (make nbval) every position is drawn but only the first is rendered
    and shown everywhere; a position that fails to draw still fails the cell."""
    from scalinglib import widgets as w

    monkeypatch.delenv(w.CACHE_ENV, raising=False)
    monkeypatch.setenv(w.FRAMES_ENV, "first")
    drawn = []

    def draw(fig, k):
        drawn.append(k)
        if k == 3:
            raise RuntimeError("position 3 cannot be drawn")
        fig.add_subplot().plot([0, 1], [0, k])

    rendered = []
    real = w._render_frame
    monkeypatch.setattr(w, "_render_frame", lambda *a, **kw: rendered.append(a[1]) or real(*a, **kw))
    panel = sl.slider_figure(draw, {"k": sl.choice("k", [1, 2])}, alt="a line")
    assert sorted(drawn) == [1, 2] and rendered == [{"k": 1}]
    assert len(set(_images(panel))) == 1                   # every position shows the first frame
    with pytest.raises(RuntimeError, match="position 3"):
        sl.slider_figure(draw, {"k": sl.choice("k", [1, 3])}, alt="a line")
    monkeypatch.delenv(w.FRAMES_ENV)
    drawn.clear()
    sl.slider_figure(draw, {"k": sl.choice("k", [1, 2])}, alt="a line")
    assert len(set(drawn)) == 2


def test_a_frame_without_phone_layout_comes_from_the_cached_frame_with_one(tmp_path, monkeypatch):
    """The wide rendering does not depend on whether a phone layout follows it, so a frame asked for without
    one (render_frames) is the cached frame with one, less its phone layout: the same bytes as drawn afresh."""
    monkeypatch.setenv(sw.CACHE_ENV, str(tmp_path))
    draw, values = sl.figures.s3_4.fanout, {"n": 100}
    full = sw._draw_frame(draw, values, 6.4, 3.0, 80, narrow=True)
    assert full["narrow"] is not None
    monkeypatch.setattr(sw, "_render_frame", lambda *a, **kw: pytest.fail("drawn again"))
    assert sw._draw_frame(draw, values, 6.4, 3.0, 80) == {**full, "narrow": None}
    monkeypatch.undo()
    monkeypatch.delenv(sw.CACHE_ENV, raising=False)
    assert sw._draw_frame(draw, values, 6.4, 3.0, 80) == {**full, "narrow": None}
