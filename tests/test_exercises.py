"""Exercise checks: every registered part accepts its own answer (and the precision its rule promises),
answers a wrong one in bands that never pin the expected value down, names unit slips, says "not answered
yet" for ``...``, never states the answer in a hint, and never raises whatever the reader passes."""

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scalinglib.exercises import check, core, expected_answer, registered_keys
from scalinglib.exercises.core import _REGISTRY, BAND_STEPS, BANDS, Seal, _judge

KEYS = registered_keys()
NUMERIC = [k for k in KEYS if _REGISTRY[k].kind in ("number", "numbers")]
WORDS = [k for k in KEYS if _REGISTRY[k].kind in ("choice", "choices")]


def _entries(key):
    """(index, expected value) of every entry of a numeric part."""
    value = expected_answer(key)
    values = [value] if _REGISTRY[key].kind == "number" else list(value)
    return list(enumerate(float(v) for v in values))


ENTRIES = [(k, i, e) for k in NUMERIC for i, e in _entries(k)]


def _wrong(part, answer):
    """A deliberately wrong answer of the right type."""
    if part.kind == "number":
        return answer * 1.5 + 1
    if part.kind == "numbers":
        return [a * 1.5 + 1 for a in answer]
    canon = part.canonical_choices()
    if part.kind == "choice":
        return next(c for c in canon if c.lower() != answer.lower())
    return [next(c for c in canon if c.lower() != a.lower()) for a in answer]


def _sig_round(x, n):
    return float(f"{x:.{n}g}")


# --- the basics --------------------------------------------------------------------------------------


def test_there_are_parts_for_every_written_section():
    sections = {k.split("-")[1] + "." + k.split("-")[2] for k in KEYS}
    assert sections == {f"3.{n}" for n in range(1, 10)}


@pytest.mark.parametrize("key", KEYS)
def test_expected_answer_is_accepted(key):
    fb = check(key, expected_answer(key))
    assert fb.status == "correct", fb.text()
    assert fb  # truthy when right


@pytest.mark.parametrize("key", KEYS)
def test_wrong_answer_is_rejected_with_a_hint_the_unit_and_the_tolerance(key):
    part = _REGISTRY[key]
    fb = check(key, _wrong(part, expected_answer(key)))
    assert fb.status == "incorrect", fb.text()
    assert "Hint:" in fb.text() and part.hint
    if part.kind in ("number", "numbers"):
        assert "Answer " in fb.message
        assert re.search(r"accepted within \d+%|checked exactly|correctly rounded to \d significant figures", fb.message)
    else:
        assert "Answer with one word" in fb.message


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("blank", [..., None])
def test_blank_answer_is_not_answered_yet(key, blank):
    fb = check(key, blank)
    assert fb.status == "unanswered" and "not answered yet" in fb.text()


@pytest.mark.parametrize("key", [k for k in KEYS if _REGISTRY[k].kind == "number"])
def test_text_instead_of_a_number(key):
    fb = check(key, "forty-two")
    assert fb.status == "invalid" and "expected a number" in fb.text() and "Answer " in fb.text()


def test_every_part_declares_its_unit_and_no_private_tolerance():
    for key in NUMERIC:
        part = _REGISTRY[key]
        n = len(_entries(key))
        units = part.unit if isinstance(part.unit, tuple) else (part.unit,) * n
        assert len(units) == n, key
        for i in range(n):
            assert part.unit_of(i).phrase, key
        assert part.rel_tol is None and part.abs_tol is None, f"{key}: the tolerance comes from the chapter's rule"
    for key in WORDS:
        assert _REGISTRY[key].choices, key


def test_the_tolerance_rule_is_one_rule():
    """1% for derived quantities, 3% for fits, exact for whole numbers, n figures where the exercise asks."""
    kinds = {}
    for key, i, _ in ENTRIES:
        rule = _REGISTRY[key].rule_of(i)
        kinds.setdefault((rule.kind, rule.value), []).append(key)
    assert set(kinds) <= {("rel", 0.01), ("rel", 0.03), ("exact", 0.0), ("sig", 2), ("sig", 3)}
    for key, i, e in ENTRIES:
        part = _REGISTRY[key]
        if part.rule_of(i).kind == "exact":
            assert e == round(e) and part.whole_of(i), key


# --- what a rule accepts ----------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "i", "e"), ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in ENTRIES])
def test_the_precision_the_rule_promises_passes(key, i, e):
    part = _REGISTRY[key]
    rule = part.rule_of(i)
    seal = Seal.of_number(e, rule)
    if rule.kind == "exact":
        assert _judge(part, i, seal, int(e))[0]
        assert not _judge(part, i, seal, int(e) + 1)[0] and not _judge(part, i, seal, int(e) - 1)[0]
    elif rule.kind == "sig":
        assert _judge(part, i, seal, _sig_round(e, int(rule.value)))[0]
    else:
        for n in (3, 4, 6):                                    # three significant figures always pass
            assert _judge(part, i, seal, _sig_round(e, n))[0], (key, _sig_round(e, n))
        for u in (-0.99, 0.99):                                # anything inside the stated tolerance passes
            assert _judge(part, i, seal, e * (1 + u * rule.value))[0]
        for u in (-1.1, 1.1):                                  # and nothing a tenth of the tolerance beyond it
            assert not _judge(part, i, seal, e * (1 + u * rule.value))[0]


#: Answers exactly as the worked solutions print them (their outputs and text), which must pass.
SOLUTION_PRINTS = [
    ("ex-3-1-1b", 50), ("ex-3-1-1c", 91.3), ("ex-3-1-1c", 91), ("ex-3-1-1d", 3.67), ("ex-3-1-1e", 0.014),
    ("ex-3-1-3a", [10, 1.25]), ("ex-3-1-3c", [7.5, 0.94]), ("ex-3-1-3d", [1.25, 0.83]),
    ("ex-3-2-1a", 208), ("ex-3-2-1b", 3), ("ex-3-2-1c", 53.7), ("ex-3-2-1d", 2), ("ex-3-2-2a", [70, 257.7]), ("ex-3-2-2b", [5, 5, 3, 2]),
    ("ex-3-2-2c", [8, 8, 4, 2]), ("ex-3-2-3a", [33.3, 226.7, 2720]), ("ex-3-2-3b", 81.6), ("ex-3-2-4a", [0.913, 0.467, 0.291]), ("ex-3-2-4b", 0.766), ("ex-3-2-4b", 0.77),
    ("ex-3-3-1c", [0.667, 128]), ("ex-3-3-2a", 136), ("ex-3-3-2b", 0.0626), ("ex-3-3-2c", 221),
    ("ex-3-3-2d", [29.6, 0.134]), ("ex-3-3-3a", 6.95), ("ex-3-3-3b", 126.95),
    ("ex-3-3-3b", 127), ("ex-3-3-4a", 91), ("ex-3-3-4b", [1.125, 9, 0.778]), ("ex-3-3-4c", [0.632, 0.838]),
    ("ex-3-3-4d", 15616),
    ("ex-3-4-1a", 60), ("ex-3-4-1b", 8), ("ex-3-4-1c", 300), ("ex-3-4-2a", 0.100), ("ex-3-4-2b", 0.461),
    ("ex-3-4-2c", 0.632), ("ex-3-4-2d", 0.0821), ("ex-3-4-2e", 0.220), ("ex-3-4-3a", 0.554), ("ex-3-4-3b", 0.0488),
    ("ex-3-4-3c", 0.0159), ("ex-3-4-3d", 2.51e-4), ("ex-3-4-3e", 1.30), ("ex-3-4-4a", 1.306), ("ex-3-4-4b", 0.804),
    ("ex-3-4-4c", 1.172), ("ex-3-4-4d", [334, 309]),
    ("ex-3-4-5a", [123, 2340]), ("ex-3-4-5b", 19.0), ("ex-3-4-5c", 104), ("ex-3-4-5d", 20.5),
    ("ex-3-5-1a", 28.32), ("ex-3-5-1b", 62.74), ("ex-3-5-1c", 0.000319), ("ex-3-5-1d", 74),
    ("ex-3-5-2a", 0.0235), ("ex-3-5-2b", [196, 910]), ("ex-3-5-2c", 3.9e-6),
    ("ex-3-5-3a", [0.0811, 0.0795, 0.0799, 0.0801]), ("ex-3-5-3b", [0.0204, 0.0261, 0.0421, 0.0741]),
    ("ex-3-5-4a", [0.0404, 0.000591]), ("ex-3-5-4b", 40.3), ("ex-3-5-4c", 8924), ("ex-3-5-4c", 8900),
    ("ex-3-5-4d", 0.000234),
    ("ex-3-6-1c", 341.25), ("ex-3-6-1d", [63.98, 75.98]), ("ex-3-6-1e", 69), ("ex-3-6-3a", 0.417),
    ("ex-3-6-3b", 51), ("ex-3-6-3c", 117), ("ex-3-6-3d", 36), ("ex-3-6-4b", 8.5), ("ex-3-6-4c", [72, 48]),
    ("ex-3-7-1a", 493.4), ("ex-3-7-1c", 858), ("ex-3-7-2a", 741), ("ex-3-7-2b", 159), ("ex-3-7-2c", 0.104),
    ("ex-3-7-3a", 2.71), ("ex-3-7-3b", 103.1), ("ex-3-7-3c", 0.621), ("ex-3-7-3d", 0.0222), ("ex-3-7-4a", 1.154),
    ("ex-3-7-4b", 1.0), ("ex-3-8-1a", 42), ("ex-3-8-1b", 50000), ("ex-3-8-1c", 0.0757),
    ("ex-3-8-2a", [10.366, 43.030, 21.515, 10.146]), ("ex-3-8-2c", 1529412), ("ex-3-8-3a", 191.7),
    ("ex-3-8-3b", 335.5), ("ex-3-8-3c", 0.746), ("ex-3-8-3c", 0.75), ("ex-3-8-3d", 167.8), ("ex-3-8-4a", 0.2712),
    ("ex-3-8-4b", 0.3823), ("ex-3-8-4c", 2906), ("ex-3-8-4d", 0.449), ("ex-3-8-4d", 0.45),
    ("ex-3-9-1a", 8.303e10), ("ex-3-9-1b", 0.416), ("ex-3-9-1c", 7.52), ("ex-3-9-1c", 7.5),
    ("ex-3-9-2a", [0.347, 0.868]), ("ex-3-9-2b", [1.447, 4.17]), ("ex-3-9-3a", 0.58), ("ex-3-9-3b", [45, 25]),
    ("ex-3-9-3c", [0.444, 0.667]), ("ex-3-9-3d", [2700, 1845.6, 2073.6]), ("ex-3-9-4a", 0.4771),
    ("ex-3-9-4a", 0.477), ("ex-3-9-4b", [0.3024, 0.3029]), ("ex-3-9-4c", [0.616, 0.753]), ("ex-3-9-5a", [1.38, 2.47]),
    ("ex-3-9-5b", 4.45), ("ex-3-9-6a", [12.18, 0.749]), ("ex-3-9-6a", [12.2, 0.749]), ("ex-3-9-6b", 416),
    ("ex-3-9-6c", [0.407, 0.647, 106.9]),
]


@pytest.mark.parametrize(("key", "printed"), SOLUTION_PRINTS)
def test_answers_as_the_solutions_print_them_pass(key, printed):
    assert check(key, printed).correct, check(key, printed).text()


# --- bands that never pin the answer ----------------------------------------------------------------

#: Numbers a verdict may print besides the reader's own answer: the band edges, the stated tolerances, the
#: factors of the unit slips and the place of an entry in a list.
_ALLOWED_NUMBER = re.compile(
    r"^(5%|25%|1%|3%|2|10|100|1,000|1,000,000|1,000,000,000|1,000,000,000,000|60|3,600|86,400|24|1,440|"
    r"[0-9]|0\.25|0\.8|80%|25|1e3|1e6|1e9|1e12|1e15|1)$"
)


def _numbers_in(message: str, echo: str) -> list[str]:
    text = message.replace(echo, " ")
    text = re.sub(r"T\(1\)|n_min|e_min|ex-[\d-]+[a-z]", " ", text)
    return re.findall(r"\d[\d,.]*%?|\d", text)


#: Words of a verdict that names a slip (a unit, a complement, an inverted ratio) instead of a band.
_NAMED = ("check the unit", "where a", "1 minus", "inverted the ratio")


def _names_a_slip(message: str) -> bool:
    return any(words in message for words in _NAMED)


def _message(part, i, seal, x):
    return _judge(part, i, seal, x)[1]


RATIOS = (1e-6, 0.001, 0.05, 0.3, 0.6, 0.8, 0.9, 0.97, 1.03, 1.1, 1.2, 1.5, 3.0, 8.0, 20.0, 1000.0, 1e6)


@pytest.mark.parametrize(("key", "i", "e"), ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in ENTRIES])
def test_every_part_answers_wrong_numbers_in_bands(key, i, e):
    """For every part: a wrong number gets a band and a direction, and no number but the reader's own."""
    part = _REGISTRY[key]
    seal = Seal.of_number(e, part.rule_of(i))
    for ratio in RATIOS:
        x = float(round(e * ratio)) if part.whole_of(i) else e * ratio
        if x == 0:
            continue
        ok, message = _judge(part, i, seal, x)
        if ok or _names_a_slip(message):
            continue
        assert re.search(r"too (high|low)|close \(within 5%\)|not a whole number|far off", message), message
        for number in _numbers_in(message, core._fmt(x)):
            assert _ALLOWED_NUMBER.match(number.rstrip(".,")), (key, x, message, number)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ENTRIES), st.floats(-9.0, 9.0))
def test_a_wrong_answer_is_told_its_band_and_nothing_finer(entry, log_ratio):
    key, i, e = entry
    part = _REGISTRY[key]
    x = e * math.exp(log_ratio)
    if part.whole_of(i):
        x = float(round(x))
    assume(x != 0)
    seal = Seal.of_number(e, part.rule_of(i))
    ok, message = _judge(part, i, seal, x)
    assume(not ok and not _names_a_slip(message) and "whole number" not in message)
    # nothing but the reader's own number and fixed words of the rule: never a distance or a percentage off
    echo = core._fmt(x)
    for number in _numbers_in(message, echo):
        assert _ALLOWED_NUMBER.match(number.rstrip(".,")), (key, x, message, number)
    # the verdict depends on the expected value only through the band: every expected value whose ratio to
    # x stays well inside the same band gets the same words
    index, side = seal.band(x)
    if index >= len(BANDS) - 1 or side == "near":
        return
    up, down, _ = BANDS[index]
    lo_acc, hi_acc = part.rule_of(i).interval(e)                 # the accepted interval bounds band 0
    if side == "high":
        lo_edge, hi_edge = math.log(up), (math.log(BANDS[index - 1][0]) if index else math.log(hi_acc / abs(e)))
    else:
        lo_edge, hi_edge = (math.log(BANDS[index - 1][1]) if index else math.log(lo_acc / abs(e))), math.log(down)
    lo_edge, hi_edge = sorted((lo_edge, hi_edge))
    margin = 1.05 * BAND_STEPS[index] + (part.rule_of(i).accept_step() if index == 0 else 0)
    inner = (lo_edge + margin, hi_edge - margin)
    assume(inner[0] < inner[1])
    width = hi_edge - lo_edge
    same = 0
    shifts = np.linspace(-width, width, 81)
    for shift in shifts:
        r_new = math.log(x / e) - shift
        if inner[0] < r_new < inner[1]:
            other = Seal.of_number(e * math.exp(shift), part.rule_of(i))
            other_message = _message(part, i, other, x)
            if _names_a_slip(other_message):
                continue        # for this expected value a slip is named instead: no distance either
            assert other_message == message, (key, x, shift)
            same += 1
    # expected values spread over the band give the very same message
    assert same >= 3 or inner[1] - inner[0] < 4 * (shifts[1] - shifts[0])


@pytest.mark.parametrize(("key", "i", "e"), ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in ENTRIES])
def test_every_listed_unit_slip_is_named(key, i, e):
    part = _REGISTRY[key]
    seal = Seal.of_number(e, part.rule_of(i))
    for factor, other in core._slips(part.unit_of(i)):
        if abs(math.log(factor)) < 1e-9:
            continue                                    # two names of one scale (a fraction and an efficiency)
        ok, message = _judge(part, i, seal, e * factor)
        assert not ok, (key, factor)
        assert ("check the unit" in message and other.name in message) or "where a" in message, (key, message)


#: The slips the issue lists, each with a part where it is plausible.
SLIPS = [
    ("ex-3-9-1c", 86400, "seconds"), ("ex-3-9-1c", 24, "hours"), ("ex-3-8-4a", 1e3, "milliseconds"),
    ("ex-3-8-4a", 1 / 60, "minutes"), ("ex-3-8-4a", 1 / 3600, "hours"), ("ex-3-4-5a", 60, "tokens per minute"),
    ("ex-3-4-5a", 3600, "tokens per hour"), ("ex-3-8-1a", 1e-3, "milliseconds"), ("ex-3-8-1a", 1e-6, "seconds"),
    ("ex-3-2-1a", 1e9, "bytes"), ("ex-3-2-1a", 1e-3, "TB"), ("ex-3-9-6a", 1e6, "dollars"),
    ("ex-3-4-1c", 1e-3, "seconds"), ("ex-3-4-2a", 1e3, "milliseconds"), ("ex-3-8-2a", 1e-3, "seconds"),
    ("ex-3-1-3a", 100, "a percentage where a plain number is asked"), ("ex-3-1-1c", 0.01, "a fraction where a percentage"),
    ("ex-3-4-3c", 100, "a percentage where a fraction is asked"), ("ex-3-9-1a", 1e-12, "TFLOPs"),
]


@pytest.mark.parametrize(("key", "factor", "says"), SLIPS)
def test_the_issues_slips_are_named(key, factor, says):
    part = _REGISTRY[key]
    value = expected_answer(key)
    if part.kind == "number":
        answer = value * factor
    else:
        answer = [v * factor if j == len(list(value)) - 1 else v for j, v in enumerate(value)]
    fb = check(key, answer)
    assert fb.status == "incorrect" and says in fb.text(), fb.text()
    assert "%" not in fb.message.split("Answer")[0].replace("a percentage", "") or "%" in part.unit


BYTE_ENTRIES = [(k, i, e) for k, i, e in ENTRIES if _REGISTRY[k].unit_of(i).family in ("bytes", "byte rate")]


@pytest.mark.parametrize(("key", "i", "e"), BYTE_ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in BYTE_ENTRIES])
def test_bits_for_bytes_is_named_and_the_bands_hold_around_it(key, i, e):
    """A size or a rate in bytes given 8 times too large (bits, as in Gb/s) or too small is named as bits for
    bytes; just outside the tolerance around 8 the reader gets the band, like any other wrong number."""
    part = _REGISTRY[key]
    seal = Seal.of_number(e, part.rule_of(i))
    for factor, says in ((8.0, "bits where bytes are asked"), (1 / 8, "as if they were bits")):
        x = float(round(e * factor)) if part.whole_of(i) else e * factor
        ok, message = _judge(part, i, seal, x)
        assert not ok and "factor of 8" in message and says in message, (key, message)
    for ratio, band in ((8 * 1.05, "too high (within a factor of 10)"), (8 / 1.05, "too high (within a factor of 10)"),
                        (1 / 8 * 1.05, "too low (within a factor of 10)"), (1 / 8 / 1.05, "too low (within a factor of 10)")):
        ok, message = _judge(part, i, seal, e * ratio)
        assert not ok and band in message and "bits" not in message, (key, ratio, message)
        for number in _numbers_in(message, core._fmt(e * ratio)):
            assert _ALLOWED_NUMBER.match(number.rstrip(".,")), (key, message, number)


def test_bits_for_bytes_in_the_exercises_of_section_3_8():
    """The trap of 3.8: 25 Gb/s read for 25 GB/s, 100 Gb/s Ethernet read as 100 GB/s."""
    fb = check("ex-3-8-3a", expected_answer("ex-3-8-3a") * 8)               # algbw in Gb/s
    assert fb.status == "incorrect" and "factor of 8" in fb.text() and "12.5 GB/s" in fb.text()
    fb = check("ex-3-8-1b", expected_answer("ex-3-8-1b") / 8)               # 25 GB/s taken for 25 Gb/s
    assert fb.status == "incorrect" and "bits" in fb.text()
    assert "bits" not in check("ex-3-8-4a", expected_answer("ex-3-8-4a") * 8).text()    # a time: a band only


@pytest.mark.parametrize(("key", "i", "e"), BYTE_ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in BYTE_ENTRIES])
def test_binary_for_decimal_prefixes_is_named_as_a_unit_slip(key, i, e):
    """GiB for GB (2^30 against 1e9 bytes), and MiB and TiB likewise, in either direction, wherever the part's
    tolerance keeps the slip apart from a near miss; the message names the slip and no distance."""
    part = _REGISTRY[key]
    rule = part.rule_of(i)
    seal = Seal.of_number(e, rule)
    named = 0
    for factor, binary, *_ in core._BINARY_PREFIXES:
        if (1 + core._widest_tolerance(rule)) ** 2 >= factor or rule.kind == "exact":
            continue
        for x in (e * factor, e / factor):
            ok, message = _judge(part, i, seal, x)
            assert not ok and "check the unit" in message and binary in message, (key, x, message)
            assert "binary and decimal prefixes" in message, message
            named += 1
    assert named >= 4                               # GiB and TiB at least, both ways
    # a near miss between the prefixes (2% and 6% off, say) is a band, not a slip
    for ratio in (1.02, 1 / 1.02):
        ok, message = _judge(part, i, seal, e * ratio)
        if not ok:
            assert "prefix" not in message and "close" in message, (key, message)


def test_gib_for_gb_in_a_memory_exercise():
    key = next(k for k, i, e in BYTE_ENTRIES if _REGISTRY[k].unit_of(i).key == "GB")
    value = expected_answer(key)
    part = _REGISTRY[key]
    i = next(j for j in range(len(_entries(key))) if part.unit_of(j).key == "GB")
    answer = value / 1.073741824 if part.kind == "number" else \
        [v / 1.073741824 if j == i else v for j, v in enumerate(value)]
    fb = check(key, answer)
    assert fb.status == "incorrect" and "GiB (2^30 bytes) against GB (1e9 bytes)" in fb.text(), fb.text()


#: Entries whose unit admits an inverted ratio, with the expected value far enough from 1 that its
#: reciprocal lies outside the 25% band (near 1 an answer and its reciprocal are both near misses).
INVERTIBLE = [(k, i, e) for k, i, e in ENTRIES
              if (_REGISTRY[k].unit_of(i).key in core._INVERTIBLE_UNITS
                  or _REGISTRY[k].unit_of(i).family in core._INVERTIBLE_FAMILIES)
              and not _REGISTRY[k].whole_of(i) and abs(math.log(abs(e))) > math.log(2.0)]


def test_there_are_parts_where_an_inverted_ratio_is_plausible():
    assert len(INVERTIBLE) >= 10
    assert {_REGISTRY[k].unit_of(i).key for k, i, _ in INVERTIBLE} >= {"speedup", "fraction"}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(INVERTIBLE), st.floats(-math.log(1.05), math.log(1.05)))
def test_an_inverted_ratio_is_named_and_tells_no_more_than_a_band(entry, log_ratio):
    """The reciprocal of the answer, give or take 5%, is told it may be the ratio inverted. The words are the
    same for every expected value whose reciprocal-to-answer ratio stays inside that band, and they carry no
    number but the reader's own and the band's 5%: the message pins the answer no better than a band does."""
    key, i, e = entry
    part = _REGISTRY[key]
    x = math.exp(log_ratio) / e                        # 1/x is e within 5%
    seal = Seal.of_number(e, part.rule_of(i))
    ok, message = _judge(part, i, seal, x)
    assume(seal.band(1 / x)[0] == 0)                   # the band's bins: its edges are not exactly 5%
    if seal.accepts(1 / x) or abs(log_ratio) < math.log(1.05) - 2 * BAND_STEPS[0]:
        assert not ok and "inverted the ratio" in message, (key, x, message)
    if "inverted the ratio" not in message:
        return
    assert "within 5%" in message
    for number in _numbers_in(message, core._fmt(x)):
        assert _ALLOWED_NUMBER.match(number.rstrip(".,")), (key, x, message, number)
    for shift in np.linspace(-math.log(1.05), math.log(1.05), 21):
        other = Seal.of_number(e * math.exp(shift), part.rule_of(i))
        if other.band(1 / x)[0] == 0 and other.band(x)[0] >= 2:
            other_message = _message(part, i, other, x)
            if "inverted" not in other_message and _names_a_slip(other_message):
                continue        # for this expected value x is a unit slip, named exactly like any other
            assert other_message == message, (key, x, shift)


@pytest.mark.parametrize(("key", "i", "e"), ENTRIES, ids=[f"{k}[{i}]" for k, i, _ in ENTRIES])
def test_an_inverted_ratio_is_named_only_where_it_is_plausible(key, i, e):
    """Never for times, sizes, money or counts (their reciprocal answers another question), never where the
    answer is within 25% of its own reciprocal, and never for a number far from the reciprocal."""
    part = _REGISTRY[key]
    unit = part.unit_of(i)
    seal = Seal.of_number(e, part.rule_of(i))
    plausible = unit.key in core._INVERTIBLE_UNITS or unit.family in core._INVERTIBLE_FAMILIES
    for x in (1 / e, 1.3 / e, 1 / (1.3 * e), 3 * e):
        if part.whole_of(i):
            x = float(round(x)) or 1.0
        message = _judge(part, i, seal, x)[1]
        if "inverted" not in message:
            continue
        assert plausible and abs(math.log(abs(x * e))) < math.log(1.06), (key, x, message)
        assert seal.band(x)[0] >= 2, (key, x, message)


@pytest.mark.parametrize(("key", "i", "e"), [(k, i, e) for k, i, e in ENTRIES
                                             if _REGISTRY[k].unit_of(i).key == "efficiency"])
def test_an_efficiency_given_as_a_percentage_is_named(key, i, e):
    """E = 0.8 answered 80 (or a superlinear 1.25 answered 125): named as a percentage for a plain number."""
    part = _REGISTRY[key]
    seal = Seal.of_number(e, part.rule_of(i))
    ok, message = _judge(part, i, seal, e * 100)
    assert not ok and "factor of 100" in message and "a percentage where a plain number is asked" in message
    superlinear = Seal.of_number(1.25, part.rule_of(i))
    assert "a percentage where a plain number is asked" in _judge(part, i, superlinear, 125.0)[1]


def test_the_complement_is_named_only_for_probabilities_and_shares():
    p = expected_answer("ex-3-4-3c")                 # the chance that some leaf is slow
    fb = check("ex-3-4-3c", 1 - p)                   # the chance that none is
    assert fb.status == "incorrect" and "complement" in fb.text() and "back ends are all fast" in fb.text()
    price = expected_answer("ex-3-9-2a")             # dollars per million tokens: no complement there
    fb = check("ex-3-9-2a", [1 - price[0], price[1]])
    assert "complement" not in fb.text() and "1 minus" not in fb.text()
    for key, i, e in ENTRIES:
        part = _REGISTRY[key]
        seal = Seal.of_number(e, part.rule_of(i))
        message = _judge(part, i, seal, 1 - e)[1]
        if not part.share:
            assert "1 minus" not in message, key
        elif abs((1 - e) - e) > 0.05 * e:
            assert "1 minus" in message, key


def test_a_count_off_by_one_gets_the_rounding_rule_not_a_percentage():
    fb = check("ex-3-9-6b", expected_answer("ex-3-9-6b") - 1)
    assert fb.status == "incorrect" and "round up" in fb.text() and "checked exactly" in fb.text()
    assert not re.search(r"\d+(\.\d+)?% too", fb.text())
    fb = check("ex-3-3-4a", expected_answer("ex-3-3-4a") + 1)
    assert "round down" in fb.text()
    fb = check("ex-3-3-2a", 66.4)
    assert fb.status == "incorrect" and "whole number" in fb.text()


def test_words_are_normalised():
    assert check("ex-3-3-1a", ["Strong scaling", " weak", "STRONG", "weak-scaling"]).correct
    assert check("ex-3-7-1b", [f"{a}-bound" for a in expected_answer("ex-3-7-1b")]).correct
    assert check("ex-3-8-2b", "Rabenseifner's algorithm").correct
    assert check("ex-3-8-2b", "recursive doubling").status == "incorrect"     # a word it knows, not the answer
    assert check("ex-3-2-4c", "TP8+PP2").correct and check("ex-3-2-4c", "tp8_pp2").correct
    assert check("ex-3-2-2d", [False, False, False, True]).correct
    fb = check("ex-3-3-1a", ["strong", "weak", "medium", "weak"])
    assert fb.status == "invalid" and "medium" in fb.text() and "'strong' or 'weak'" in fb.text()


def test_lists_report_which_entries_are_wrong():
    fb = check("ex-3-1-2a", [100, 21, 5])
    assert fb.status == "incorrect" and "2 of 3 right" in fb.text() and "entry 2" in fb.text()
    fb = check("ex-3-1-2a", [100, ..., 5])
    assert fb.status == "unanswered"
    fb = check("ex-3-1-2a", [100, 20])
    assert fb.status == "invalid" and "expected 3 numbers" in fb.text()
    assert check("ex-3-1-2a", np.array([100.0, 20.0, 5.0])).correct


def test_unknown_key_suggests_the_parts():
    fb = check("ex-3-1-1", 3)
    assert fb.status == "unknown" and "ex-3-1-1a" in fb.text()
    assert check(42, 1).status == "unknown"


def test_html_rendering_escapes():
    html = check("ex-3-2-4c", "<script>")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_numpy_scalars_and_zero_d_arrays_are_numbers():
    value = expected_answer("ex-3-1-1b")
    assert check("ex-3-1-1b", np.array(value)).correct
    assert check("ex-3-1-1b", np.float32(value)).correct
    assert check("ex-3-1-2a", [np.array(100.0), 20, np.int64(5)]).correct


def test_nan_is_refused_politely():
    fb = check("ex-3-1-1b", math.nan)
    assert fb.status == "invalid" and "finite" in fb.text()


# --- hints -----------------------------------------------------------------------------------------

#: Numbers an exercise statement gives and its hint repeats (not answers to that part).
_STATEMENT_NUMBERS = {"ex-3-7-3c": {"64"}}


def _significant(text: str) -> int:
    digits = re.sub(r"\D", "", text).lstrip("0")
    return len(digits.rstrip("0")) if "." not in text else len(digits)


def _printed_forms(value: float) -> set[str]:
    """How a hint could print the value: 3 to 5 significant figures, with and without thousands commas."""
    forms = set()
    for n in (3, 4, 5):
        text = f"{value:.{n}g}"
        if "e" not in text:
            forms.add(text)
    if value == round(value):
        forms |= {str(int(round(value))), f"{int(round(value)):,}"}
    return {f for f in forms if _significant(f) >= 3}


def test_no_hint_states_an_answer():
    hints = {key: _REGISTRY[key].hint for key in KEYS}
    for key, _i, e in ENTRIES:
        for form in _printed_forms(e):
            for other, hint in hints.items():
                if other.split("-")[2] != key.split("-")[2] or form in _STATEMENT_NUMBERS.get(other, ()):
                    continue
                assert not re.search(rf"(?<![\w.,]){re.escape(form)}(?![\d])", hint), (key, form, other)
    for key in [k for k in WORDS if _REGISTRY[k].kind == "choice"]:
        word = expected_answer(key)
        assert not re.search(rf"\b{re.escape(word)}\b", hints[key], re.I), key


# --- sealing ---------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ENTRIES), st.floats(-4.0, 4.0))
def test_a_padded_stored_seal_gives_the_same_verdicts(entry, log_ratio):
    key, i, e = entry
    part = _REGISTRY[key]
    seal = Seal.of_number(e, part.rule_of(i))
    stored = Seal.from_json(Seal(**{**seal.__dict__}).to_json())
    padded = Seal.from_json(Seal.of_number(e, part.rule_of(i), salt=seal.salt, pad=True).to_json())
    for x in (e * math.exp(log_ratio), e, round(e * math.exp(log_ratio))):
        if x == 0:
            continue
        assert _judge(part, i, seal, x) == _judge(part, i, stored, x) == _judge(part, i, padded, x)


def test_a_stored_seal_holds_no_value_and_has_a_fixed_size():
    sizes = set()
    for key, i, e in ENTRIES[:40]:
        rule = _REGISTRY[key].rule_of(i)
        data = Seal.of_number(e, rule, pad=True).to_json()
        sizes.add((rule.kind, len(data["accept"]), tuple(len(x) for band in data["bands"] for x in band)))
        assert repr(e)[:6] not in str(data) or len(repr(e)) < 4
    assert len({s[2] for s in sizes}) == 1 and len({s[1] for s in sizes if s[0] == "rel"}) == 1


# --- garbage ---------------------------------------------------------------------------------------

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
