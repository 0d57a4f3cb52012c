"""The table helper: HTML and plain text from one call, stable output, input refused at the boundary."""

import math

import numpy as np
import pytest

import scalinglib as sl


def _mm1():
    return sl.table([(0.5, 20.0, 92.1), (0.99, 1000.0, 4605.2)], ["U", "mean", "p99"], caption="M/M/1",
                    units={"mean": "ms", "p99": "ms"}, formats={"U": "{:.2f}", "mean": "{:,.0f}", "p99": ",.0f"})


def test_html_has_caption_units_rule_and_right_aligned_numbers():
    html = _mm1()._repr_html_()
    assert html.startswith('<div class="sl-table"><p class="sl-table-caption">M/M/1</p><div class="sl-table-wrap">'
                           '<table class="sl-table-grid" aria-label="M/M/1">')
    assert '<th class="sl-num" style="text-align:right" scope="col">p99<br><span class="sl-unit">ms</span></th>' in html
    assert '<td class="sl-num" style="text-align:right">4,605</td>' in html
    assert "<thead>" in html and "<tbody>" in html


def test_text_form_is_aligned_with_a_rule_under_the_header():
    lines = repr(_mm1()).splitlines()
    assert lines[0] == "M/M/1"
    assert lines[1] == "   U  mean (ms)  p99 (ms)"
    assert set(lines[2].replace(" ", "")) == {"-"} and len(lines[2]) == len(lines[1])
    assert lines[-1] == "0.99      1,000     4,605"
    assert str(_mm1()) == repr(_mm1())


def test_output_is_the_same_on_every_call():
    assert _mm1()._repr_html_() == _mm1()._repr_html_() and repr(_mm1()) == repr(_mm1())


def test_text_columns_left_numbers_right_missing_as_dash_numpy_numbers_ok():
    t = sl.table([{"device": "A100", "peak": np.float64(312e12), "n": np.int64(3)},
                  {"device": "H100 SXM", "peak": None, "n": 12}, ("TPU", math.nan, 1)],
                 ["device", "peak", "n"], formats={"peak": lambda x: f"{x / 1e12:,.0f}"}, units={"peak": "TFLOP/s"})
    assert t.numeric == (False, True, True)
    assert t.cells == (("A100", "312", "3"), ("H100 SXM", "–", "12"), ("TPU", "–", "1"))
    assert '<td class="sl-text" style="text-align:left">A100</td>' in t.to_html()
    assert sl.table([("x", 1)], ["a", "b"], align={"b": "left"}).numeric == (False, False)


def test_html_escapes_text():
    assert "&lt;b&gt;" in sl.table([("<b>",)], ["x"]).to_html()


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"rows": [(1, 2)], "columns": ["a"]}, ValueError, r"rows\[0\] has 2 values"),
    ({"rows": [(1,)], "columns": "a"}, TypeError, "columns"),
    ({"rows": [(1,)], "columns": ["a", "a"]}, ValueError, "repeat"),
    ({"rows": [(1,)], "columns": [""]}, TypeError, r"columns\[0\]"),
    ({"rows": [(1,)], "columns": []}, ValueError, "at least one"),
    ({"rows": "abc", "columns": ["a"]}, TypeError, "rows"),
    ({"rows": [5], "columns": ["a"]}, TypeError, r"rows\[0\]"),
    ({"rows": [{"b": 1}], "columns": ["a"]}, ValueError, "not columns"),
    ({"rows": [(1,)], "columns": ["a"], "units": {"b": "ms"}}, ValueError, "units names"),
    ({"rows": [(1,)], "columns": ["a"], "units": {"a": 3}}, TypeError, "units"),
    ({"rows": [(1,)], "columns": ["a"], "formats": {"a": "{:q}"}}, ValueError, "formats"),
    ({"rows": [(1,)], "columns": ["a"], "formats": {"a": 5}}, TypeError, "formats"),
    ({"rows": [(1,)], "columns": ["a"], "formats": ["{:.1f}", "{:.1f}"]}, ValueError, "formats has 2"),
    ({"rows": [(1,)], "columns": ["a"], "align": {"a": "centre"}}, ValueError, "align"),
    ({"rows": [(1,)], "columns": ["a"], "caption": 5}, TypeError, "caption"),
    ({"rows": [(1,)] * (sl.tables.MAX_ROWS + 1), "columns": ["a"]}, ValueError, "at most"),
    ({"rows": [("x",)], "columns": ["a"], "formats": {"a": "{:.1f}"}}, ValueError, "cannot format"),
])
def test_bad_input_is_refused_naming_the_parameter(kwargs, error, message):
    with pytest.raises(error, match=message):
        sl.table(**kwargs)
