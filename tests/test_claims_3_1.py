"""Numbers the prose of Section 3.1 quotes, recomputed from the library.

The notebook prints them above the sentences that quote them; this file pins the sentences, so a
change to the library that would make the text wrong fails here. (The table of 3.1.4 is pinned digit
for digit in test_seed_tables.py.)
"""

from fractions import Fraction

import numpy as np
import pytest

import scalinglib as sl
from scalinglib import check
from scalinglib.exercises import s3_1 as ex1


def test_3_1_4_slow_approach_to_a_ceiling_of_two():
    s2, s64 = sl.amdahl_speedup(0.5, [2, 64])
    assert sl.amdahl_ceiling(0.5) == 2
    assert (round(s2, 2), round(s64, 2)) == (1.33, 1.97)


@pytest.mark.parametrize("f", [0.01, 0.05, 0.1, 0.2, 0.5])
def test_3_1_4_efficiency_is_one_half_at_one_plus_one_over_f(f):
    assert sl.amdahl_efficiency(f, round(1 + 1 / f)) == pytest.approx(0.5)


def test_3_1_5_superlinear_scenario():
    ks = 2 ** np.arange(9)
    t = sl.spill_time(ks, f=0.02, working_set=4.0, fast_memory=1.0, slowdown=3.0)
    e_spilling, e_honest = t[0] / (ks * t), 1 / (ks * t)
    assert np.round(e_spilling, 2).tolist() == [1.0, 1.24, 2.33, 2.17, 1.9, 1.52, 1.09, 0.7, 0.4]
    assert round(e_honest[0], 2) == 0.40 and np.all(e_honest <= 1)
    assert ks[np.argmax(e_spilling)] == 4 and e_spilling[ks == 64] > 1 > e_spilling[ks == 128]


def test_exercise_3_1_3_scenario_fits_the_timings_exactly():
    scenario = ex1.superlinear_scenario()
    assert scenario["f"] == float(Fraction(1, 105)) and scenario["slowdown"] == float(Fraction(87, 52))
    assert scenario == dict(f=1 / 105, working_set=2.0, fast_memory=1.0, slowdown=87 / 52)   # as the text writes it
    t1, t8 = sl.spill_time([1, 8], **scenario)
    assert t1 == pytest.approx(600 / 450, rel=1e-15) and t8 == pytest.approx(60 / 450, rel=1e-15)
    assert (sl.speedup(600, 60), sl.efficiency(600, 60, 8)) == (10, 1.25)
    assert sl.efficiency(450, 60, 8) == 0.9375


def test_exercise_3_1_3d_efficiencies_and_the_fade():
    ks = 2 ** np.arange(1, 8)
    e = ex1.superlinear_efficiency(ks)
    e8, e64 = e[ks == 8][0], e[ks == 64][0]
    assert e8 == pytest.approx(1.25, rel=1e-12)          # the benchmark's number, exactly
    assert e64 == pytest.approx(5 / 6, rel=1e-12)        # about 0.83
    assert e[ks == 32][0] > 1 > e64                      # below one between K = 32 and K = 64
    assert np.all(np.diff(e) < 0)                        # once every slice fits, efficiency only falls


def test_exercise_3_1_3d_check_accepts_the_printed_precision_and_rejects_old_or_honest_numbers():
    assert check("ex-3-1-3d", [1.25, 0.83]).correct and check("ex-3-1-3d", [1.25, 0.833]).correct
    assert not check("ex-3-1-3d", [1.243, 0.816]).correct            # the old, inconsistent scenario
    assert not check("ex-3-1-3d", [0.9375, 0.625]).correct           # against the honest baseline
