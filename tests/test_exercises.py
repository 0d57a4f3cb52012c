"""Exercise checks: every registered part accepts its own answer, rejects a wrong one with how far off
it is, says "not answered yet" for ``...``, and never raises whatever the reader passes."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scalinglib.exercises import check, expected_answer, registered_keys
from scalinglib.exercises.core import _REGISTRY

KEYS = registered_keys()


def _wrong(part, answer):
    """A deliberately wrong answer of the right type."""
    if part.kind == "number":
        return answer * 1.5 + 1
    if part.kind == "numbers":
        return [a * 1.5 + 1 for a in answer]
    if part.kind == "choice":
        return next(c for c in part.choices if c.lower() != answer.lower())
    return [next(c for c in part.choices if c.lower() != a.lower()) for a in answer]


def test_there_are_parts_for_every_written_section():
    sections = {k.split("-")[1] + "." + k.split("-")[2] for k in KEYS}
    assert sections == {f"3.{n}" for n in range(1, 10)}


@pytest.mark.parametrize("key", KEYS)
def test_expected_answer_is_accepted(key):
    fb = check(key, expected_answer(key))
    assert fb.status == "correct", fb.text()
    assert fb  # truthy when right


@pytest.mark.parametrize("key", KEYS)
def test_wrong_answer_is_rejected_with_a_hint(key):
    part = _REGISTRY[key]
    fb = check(key, _wrong(part, expected_answer(key)))
    assert fb.status == "incorrect", fb.text()
    assert "Hint:" in fb.text() and part.hint


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("blank", [..., None])
def test_blank_answer_is_not_answered_yet(key, blank):
    fb = check(key, blank)
    assert fb.status == "unanswered" and "not answered yet" in fb.text()


@pytest.mark.parametrize("key", [k for k in KEYS if _REGISTRY[k].kind == "number"])
def test_text_instead_of_a_number(key):
    fb = check(key, "forty-two")
    assert fb.status == "invalid" and "expected a number" in fb.text()


def test_how_far_off_is_reported():
    fb = check("ex-3-1-1b", 19)      # the ceiling is 20
    assert fb.status == "incorrect" and "5.0% too low" in fb.text()
    fb = check("ex-3-1-1b", 20.01)   # within the tolerance
    assert fb.correct


def test_whole_number_answers_must_be_whole():
    fb = check("ex-3-3-2a", 66.4)
    assert fb.status == "incorrect" and "whole number" in fb.text()


def test_lists_report_which_entries_are_wrong():
    fb = check("ex-3-1-2a", [100, 21, 5])
    assert fb.status == "incorrect" and "2 of 3 right" in fb.text() and "entry 2" in fb.text()
    fb = check("ex-3-1-2a", [100, ..., 5])
    assert fb.status == "unanswered"
    fb = check("ex-3-1-2a", [100, 20])
    assert fb.status == "invalid" and "expected 3 numbers" in fb.text()
    assert check("ex-3-1-2a", np.array([100.0, 20.0, 5.0])).correct


def test_choices_are_case_and_space_insensitive():
    assert check("ex-3-3-1a", ["Strong", " weak", "STRONG", "weak "]).correct
    fb = check("ex-3-3-1a", ["strong", "weak", "medium", "weak"])
    assert fb.status == "invalid" and "medium" in fb.text()


def test_unknown_key_suggests_the_parts():
    fb = check("ex-3-1-1", 3)
    assert fb.status == "unknown" and "ex-3-1-1a" in fb.text()
    assert check(42, 1).status == "unknown"


def test_html_rendering_escapes():
    html = check("ex-3-1-3b", "<script>")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


odd_objects = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(),
    st.lists(st.one_of(st.integers(), st.text(), st.floats(allow_nan=True))), st.dictionaries(st.text(), st.integers()),
    st.builds(object), st.complex_numbers(allow_nan=True),
)


@given(st.sampled_from(KEYS), odd_objects)
def test_check_never_raises(key, answer):
    fb = check(key, answer)
    assert fb.status in ("correct", "incorrect", "unanswered", "invalid")
    assert isinstance(fb.text(), str) and fb.text()


def test_nan_is_refused_politely():
    fb = check("ex-3-1-1b", math.nan)
    assert fb.status == "invalid" and "finite" in fb.text()


def test_percentage_hints_only_where_they_make_sense():
    # a fraction given as a percentage
    fb = check("ex-3-1-1e", 0.26)
    assert fb.status == "incorrect" and "a percentage where a fraction is asked" in fb.text()
    # a percentage given as a fraction (the part's unit is %)
    fb = check("ex-3-1-1c", 0.964218)
    assert fb.status == "incorrect" and "a fraction where a percentage is asked" in fb.text()
    # a wrong fraction a hundred times too small is just wrong: the part asks for a fraction
    fb = check("ex-3-4-3c", 1e-4)
    assert fb.status == "incorrect" and "percentage" not in fb.text() and "too low" in fb.text()


def test_unit_slips_are_named():
    fb = check("ex-3-4-1c", 0.3)          # seconds where milliseconds are asked
    assert fb.status == "incorrect" and "factor of 1,000" in fb.text() and "ms" in fb.text()
    gb = expected_answer("ex-3-2-1a")
    fb = check("ex-3-2-1a", gb * 1e9)     # bytes where GB are asked
    assert fb.status == "incorrect" and "factor of 1,000,000,000" in fb.text() and "GB" in fb.text()


def test_numpy_scalars_and_zero_d_arrays_are_numbers():
    value = expected_answer("ex-3-1-1b")
    assert check("ex-3-1-1b", np.array(value)).correct
    assert check("ex-3-1-1b", np.float32(value)).correct
    assert check("ex-3-1-2a", [np.array(100.0), 20, np.int64(5)]).correct


def test_a_regime_word_may_carry_bound():
    answers = expected_answer("ex-3-7-1b")
    assert check("ex-3-7-1b", [f"{a}-bound" for a in answers]).correct


def test_a_complement_is_named():
    p = expected_answer("ex-3-4-3c")               # the chance that some leaf is slow
    fb = check("ex-3-4-3c", 1 - p)                 # the chance that none is
    assert fb.status == "incorrect" and "complement" in fb.text() and "percentage" not in fb.text()
