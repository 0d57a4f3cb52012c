"""The slider helper: validation of slider ranges, the frame grid, the browser links, the frame cache."""

import base64
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


def test_render_frames_gives_distinct_pngs():
    frames = sw.render_frames(draw_line, {"a": sl.choice("a", [0, 1]), "b": sl.choice("b", [0, 2])})
    assert len(frames) == 4
    assert all(png.startswith(b"\x89PNG") for png in frames.values())
    assert len(set(frames.values())) == 4


def _images(widget):
    """Every frame <img> inside a slider widget, depth first."""
    found = []
    if isinstance(widget, widgets.HTML) and "<img" in widget.value:
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
    alts = [re.search(r'alt="([^"]*)"', tag).group(1) for tag in imgs]
    assert alts[0] == "line from 0 to 5" and alts[-1] == "line from 2 to 6"


def test_slider_frames_are_the_rendered_pngs():
    params = {"a": sl.choice("a", [0, 3])}
    box = sl.slider_figure(lambda fig, a: draw_line(fig, a, a), params, alt="flat line at {a}")
    pngs = [base64.b64decode(re.search(r"base64,([^\"]+)", tag).group(1)) for tag in _images(box)]
    assert all(p.startswith(b"\x89PNG") for p in pngs) and pngs[0] != pngs[1]


def test_alt_text_can_be_a_function():
    box = sl.slider_figure(draw_line, {"a": sl.choice("a", [1]), "b": sl.choice("b", [2])},
                           alt=lambda a, b: f"{a}<{b}")
    assert 'alt="1&lt;2"' in _images(box)[0]


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
    first = sw._draw_png(draw, {"f": 0.05, "k_max": 64}, 6.4, 3.2, 80)
    cached = list(tmp_path.glob("*.png"))
    assert len(cached) == 1 and cached[0].read_bytes() == first
    assert sw._draw_png(draw, {"f": 0.05, "k_max": 64}, 6.4, 3.2, 80) == first
    # functions defined outside the library are never cached (their source is not fingerprinted)
    sw._draw_png(draw_line, {"a": 0, "b": 1}, 6.4, 3.2, 80)
    assert len(list(tmp_path.glob("*.png"))) == 1


def test_alt_text_is_required():
    with pytest.raises(TypeError, match="alt"):
        sl.slider_figure(draw_line, {"a": sl.choice("a", [1]), "b": sl.choice("b", [2])}, alt="")
