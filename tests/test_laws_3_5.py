"""Section 3.5: Gustafson's law against his 1988 hypercube results, Karp-Flatt, the Amdahl and USL fits.

Identities are checked over whole ranges with hypothesis; the fits are checked
on synthetic data whose parameters are known, exactly and with noise.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scalinglib as sl

fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
open_fractions = st.floats(min_value=1e-4, max_value=0.9)
workers = st.integers(min_value=1, max_value=1 << 20)
many_workers = st.integers(min_value=2, max_value=1 << 16)

# --- Gustafson (1988) -------------------------------------------------------------------------
# J. L. Gustafson, "Reevaluating Amdahl's law", CACM 31(5), 1988: on a 1024-processor hypercube at
# Sandia, scaled speedups of 1021 (beam stress analysis), 1020 (baffled surface wave simulation) and
# 1016 (unstable fluid flow), for applications with s = 0.4-0.8 percent; S = N + (1 - N) s.
SANDIA_N = 1024
SANDIA = {"beam stress analysis": 1021, "baffled surface wave simulation": 1020, "unstable fluid flow": 1016}


def test_gustafson_reproduces_the_ends_of_the_sandia_range():
    # s = 0.4 % gives 1020 and s = 0.8 % gives 1016 once rounded to whole speedups, as the paper prints them
    assert round(sl.gustafson_speedup(0.004, SANDIA_N)) == SANDIA["baffled surface wave simulation"]
    assert round(sl.gustafson_speedup(0.008, SANDIA_N)) == SANDIA["unstable fluid flow"]


def test_sandia_results_and_their_implied_serial_fractions():
    implied = {name: (SANDIA_N - s) / (SANDIA_N - 1) for name, s in SANDIA.items()}
    for name, s in implied.items():
        assert round(sl.gustafson_speedup(s, SANDIA_N)) == SANDIA[name]   # the inverse is consistent
    # two of the three sit inside the quoted 0.4-0.8 % once rounded to one decimal of a percent;
    # the beam stress result corresponds to about 0.3 %, a little below the quoted range
    assert round(100 * implied["baffled surface wave simulation"], 1) == 0.4
    assert round(100 * implied["unstable fluid flow"], 1) == 0.8
    assert round(100 * implied["beam stress analysis"], 2) == 0.29


def test_amdahl_would_have_predicted_a_few_hundred_for_the_same_fractions():
    # the fixed-size reading of the same serial fractions caps 1024 processors at 201 and 111
    assert round(sl.amdahl_speedup(0.004, SANDIA_N)) == 201
    assert round(sl.amdahl_speedup(0.008, SANDIA_N)) == 111


@given(fractions, workers)
def test_gustafson_is_a_line_from_one_with_slope_one_minus_s(s, k):
    g = sl.gustafson_speedup(s, k)
    assert math.isclose(g, k + (1 - k) * s, rel_tol=1e-12, abs_tol=1e-13 * k)   # the two textbook forms agree
    assert 1 - 1e-9 <= g <= k * (1 + 1e-12)
    assert sl.gustafson_speedup(s, 1) == pytest.approx(1.0)


@given(fractions, workers)
def test_gustafson_never_below_amdahl_for_the_same_fraction(s, k):
    assert sl.gustafson_speedup(s, k) >= sl.amdahl_speedup(s, k) * (1 - 1e-12)


@given(fractions, workers)
def test_the_two_laws_describe_the_same_run(s, k):
    # Amdahl's law, applied to the grown job with its own one-worker serial fraction, is Gustafson's law
    f = sl.scaled_serial_fraction(s, k)
    assert 0 <= f <= 1
    assert math.isclose(sl.amdahl_speedup(f, k), sl.gustafson_speedup(s, k), rel_tol=1e-9)


def test_gustafson_limits_and_broadcasting():
    assert sl.gustafson_speedup(0.0, 1024) == 1024
    assert sl.gustafson_speedup(1.0, 1024) == 1.0
    out = sl.gustafson_speedup([0.0, 0.5], [[1], [4]])
    np.testing.assert_allclose(out, [[1, 1], [4, 2.5]])


# --- Karp-Flatt -----------------------------------------------------------------------------------

@given(fractions, many_workers)
def test_karp_flatt_recovers_the_serial_fraction_of_amdahl_speedups(f, k):
    assert math.isclose(sl.karp_flatt(sl.amdahl_speedup(f, k), k), f, rel_tol=1e-9, abs_tol=1e-12)


@given(open_fractions, st.lists(many_workers, min_size=1, max_size=8))
def test_karp_flatt_is_flat_for_amdahl_and_vectorised(f, ks):
    e = sl.karp_flatt(sl.amdahl_speedup(f, ks), ks)
    np.testing.assert_allclose(e, f, rtol=1e-9)


@given(st.floats(min_value=0.0, max_value=0.2), st.floats(min_value=1e-5, max_value=1e-2))
def test_karp_flatt_climbs_when_a_cost_grows_with_k(sigma, kappa):
    ks = np.array([2, 4, 8, 16, 32])
    e = sl.karp_flatt(sl.usl_speedup(ks, sigma, kappa), ks)
    assert np.all(np.diff(e) > 0)


@given(st.floats(min_value=0.0, max_value=0.5), st.floats(min_value=0.0, max_value=0.05),
       st.lists(many_workers, min_size=1, max_size=8))
def test_karp_flatt_of_the_usl_is_the_line_sigma_plus_kappa_k(sigma, kappa, ks):
    """3.5.6: 1/S - 1/K = (1 - 1/K)(sigma + kappa K) under the USL, so e(K) = sigma + kappa K exactly."""
    ks = np.array(ks)
    e = sl.karp_flatt(sl.usl_speedup(ks, sigma, kappa), ks)
    np.testing.assert_allclose(e, sigma + kappa * ks, rtol=1e-9, atol=1e-12)


def test_karp_flatt_of_ideal_and_superlinear_speedups():
    assert sl.karp_flatt(8.0, 8) == 0.0
    assert sl.karp_flatt(10.0, 8) < 0      # superlinear: a negative "serial fraction"
    with pytest.raises(ValueError, match="k must be a whole number >= 2"):
        sl.karp_flatt(1.0, 1)


# --- fitting Amdahl and the USL ----------------------------------------------------------------------

KS = np.array([1, 2, 4, 8, 16, 32, 64])


@given(fractions)
def test_fit_amdahl_recovers_f_exactly(f):
    assert math.isclose(sl.fit_amdahl(KS, sl.amdahl_speedup(f, KS)), f, rel_tol=1e-9, abs_tol=1e-12)


@given(st.floats(min_value=0.0, max_value=0.3), st.floats(min_value=0.0, max_value=0.01))
def test_fit_usl_recovers_sigma_and_kappa_exactly(sigma, kappa):
    fit = sl.fit_usl(KS, sl.usl_speedup(KS, sigma, kappa))
    assert isinstance(fit, sl.USLFit) and isinstance(fit.sigma, float)
    assert math.isclose(fit.sigma, sigma, rel_tol=1e-7, abs_tol=1e-10)
    assert math.isclose(fit.kappa, kappa, rel_tol=1e-7, abs_tol=1e-10)


@pytest.mark.parametrize("seed", range(20))
def test_fit_usl_with_noise_stays_close(seed):
    rng = np.random.default_rng(seed)
    sigma, kappa = 0.05, 0.002
    ks = np.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64])
    noisy = sl.usl_speedup(ks, sigma, kappa) * rng.normal(1.0, 0.01, ks.size)
    fit = sl.fit_usl(ks, noisy)
    assert abs(fit.sigma - sigma) < 0.015 and abs(fit.kappa - kappa) < 0.0004
    assert abs(sl.usl_peak_workers(*fit) - sl.usl_peak_workers(sigma, kappa)) < 4


@pytest.mark.parametrize("seed", range(20))
def test_fit_amdahl_with_noise_stays_close(seed):
    rng = np.random.default_rng(seed)
    noisy = sl.amdahl_speedup(0.1, KS) * rng.normal(1.0, 0.01, KS.size)
    assert abs(sl.fit_amdahl(KS, noisy) - 0.1) < 0.01


def test_fit_usl_of_amdahl_data_has_no_coherency_term():
    fit = sl.fit_usl(KS, sl.amdahl_speedup(0.07, KS))
    assert fit.kappa == pytest.approx(0.0, abs=1e-12) and fit.sigma == pytest.approx(0.07)
    assert sl.fit_amdahl(KS, sl.amdahl_speedup(0.07, KS)) == pytest.approx(fit.sigma)


def test_fits_never_return_negative_coefficients():
    # better than ideal at large K pulls the unconstrained kappa below zero: it is held at zero
    ks = np.array([1, 2, 4, 8])
    speedups = np.array([1.0, 1.9, 3.7, 7.9])
    sigma, kappa = sl.fit_usl(ks, speedups)
    assert sigma >= 0 and kappa >= 0
    assert sl.fit_amdahl([1, 2, 4], [1.0, 2.5, 5.0]) == 0.0     # superlinear data: f is held at zero
    assert sl.fit_usl([1, 2, 4], [1.0, 2.5, 5.0]) == (0.0, 0.0)


def test_fits_refuse_throughputs_that_were_not_divided_by_the_one_worker_value():
    # requests per second read as speedups look like perfect scaling: refused, with what to do instead
    ks, throughput = [1, 2, 4, 8], [950, 1847, 3341, 5820]
    message = ("measured_speedup at K=1 is 950, expected about 1: "
               "divide throughputs by the one-worker throughput")
    for fit in (sl.fit_usl, sl.fit_amdahl):
        with pytest.raises(ValueError) as info:
            fit(ks, throughput)
        assert str(info.value) == message
    with pytest.raises(ValueError, match="K=1 is 0.5"):
        sl.fit_amdahl([1, 2, 4], [0.5, 0.9, 1.6])     # times, or a wrong baseline
    # a few percent of noise at K = 1 is accepted, and so is data without K = 1
    speedups = np.array(throughput) / throughput[0]
    assert sl.fit_usl(ks, speedups * [1.03, 1, 1, 1]).sigma >= 0
    assert sl.fit_amdahl(ks, speedups * [0.97, 1, 1, 1]) > 0
    assert sl.fit_usl(ks[1:], speedups[1:]) == pytest.approx(sl.fit_usl(ks, speedups), rel=1e-12)


def test_a_point_at_one_worker_changes_no_fit():
    # at K = 1 both columns and K/S - 1 are zero: adding S(1) = 1 leaves the least-squares fits unchanged
    ks = np.array([2, 4, 8, 16])
    speedups = sl.usl_speedup(ks, 0.01, 0.004) * np.array([1.01, 0.99, 1.0, 1.02])
    assert sl.fit_usl(np.r_[1, ks], np.r_[1.0, speedups]) == pytest.approx(sl.fit_usl(ks, speedups), rel=1e-12)
    assert sl.fit_amdahl(np.r_[1, ks], np.r_[1.0, speedups]) == pytest.approx(sl.fit_amdahl(ks, speedups), rel=1e-12)


def test_fit_input_is_checked():
    with pytest.raises(ValueError, match="same length"):
        sl.fit_usl([1, 2, 4], [1.0, 1.9])
    with pytest.raises(ValueError, match="two different worker counts"):
        sl.fit_usl([1, 2, 2], [1.0, 1.9, 1.9])
    with pytest.raises(ValueError, match="at least one measurement with 2 or more"):
        sl.fit_amdahl([1, 1], [1.0, 1.0])
    with pytest.raises(ValueError, match="measured_speedup must be > 0"):
        sl.fit_usl([1, 2, 4], [1.0, 0.0, 3.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        sl.fit_amdahl([[1, 2]], [[1.0, 2.0]])


# --- the USL ------------------------------------------------------------------------------------------

@given(st.floats(min_value=0.0, max_value=1.0), workers)
def test_usl_without_coherency_is_amdahl(sigma, k):
    assert math.isclose(sl.usl_speedup(k, sigma, 0.0), sl.amdahl_speedup(sigma, k), rel_tol=1e-9)


@given(st.floats(min_value=0.0, max_value=0.5), st.floats(min_value=1e-6, max_value=0.05))
def test_usl_peak_is_the_maximum(sigma, kappa):
    peak = sl.usl_peak_workers(sigma, kappa)
    assume(1 < peak < 5000)
    ks = np.arange(1, int(3 * peak) + 3)
    s = sl.usl_speedup(ks, sigma, kappa)
    best = ks[np.argmax(s)]
    assert best in (math.floor(peak), math.ceil(peak))
    # past the peak the speedup falls: retrograde scaling
    assert s[-1] < s.max()


def test_usl_peak_limits():
    assert sl.usl_peak_workers(0.05, 0.0) == math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no overflow warning for a vanishing kappa
        assert sl.usl_peak_workers(0.0, 1e-320) == math.inf
        np.testing.assert_array_equal(sl.usl_peak_workers([0.0, 0.5], [1e-320, 0.0]), [math.inf, math.inf])
    assert sl.usl_peak_workers(0.0, 0.01) == pytest.approx(10.0)
    assert sl.usl_peak_workers(1.0, 0.01) == 1.0     # all contention: one worker is best
    np.testing.assert_allclose(sl.usl_peak_workers([0.0, 0.0], [0.01, 0.0001]), [10.0, 100.0])


@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0), workers)
def test_usl_never_beats_ideal(sigma, kappa, k):
    assert sl.usl_speedup(k, sigma, kappa) <= k * (1 + 1e-12)


# --- bad input is refused by name ----------------------------------------------------------------------

CASES = [
    (sl.gustafson_speedup, dict(s=0.05, k=8), dict(s=[1.5, -0.1], k=[0, 2.5])),
    (sl.scaled_serial_fraction, dict(s=0.05, k=8), dict(s=[1.5, -0.1], k=[0, 2.5])),
    (sl.karp_flatt, dict(measured_speedup=3.0, k=8), dict(measured_speedup=[0.0, -1.0], k=[1, 2.5])),
    (sl.usl_speedup, dict(k=8, sigma=0.05, kappa=0.001), dict(k=[0, 2.5], sigma=[-0.1], kappa=[-0.1])),
    (sl.usl_peak_workers, dict(sigma=0.05, kappa=0.001), dict(sigma=[-0.1], kappa=[-0.1])),
]


@pytest.mark.parametrize(("func", "good", "bad"), CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_bad_arguments_are_refused_by_name(func, good, bad):
    func(**good)
    for name, values in bad.items():
        for value in values + [math.nan, math.inf]:
            with pytest.raises(ValueError) as info:
                func(**{**good, name: value})
            assert name in str(info.value)
        for value in ["0.5", None, True]:
            with pytest.raises(TypeError) as info:
                func(**{**good, name: value})
            assert name in str(info.value)


# --- the USL fitted to throughputs (3.5.6) ---------------------------------------------------------------


@given(st.floats(min_value=0.0, max_value=0.3), st.floats(min_value=0.0, max_value=0.01),
       st.floats(min_value=1e-3, max_value=1e6))
def test_fit_usl_throughput_recovers_sigma_kappa_and_x1_exactly(sigma, kappa, x1):
    fit = sl.fit_usl_throughput(KS, x1 * sl.usl_speedup(KS, sigma, kappa))
    assert isinstance(fit, sl.USLThroughputFit)
    assert math.isclose(fit.sigma, sigma, rel_tol=1e-5, abs_tol=1e-7)
    assert math.isclose(fit.kappa, kappa, rel_tol=1e-5, abs_tol=1e-9)
    assert math.isclose(fit.x1, x1, rel_tol=1e-6)


def test_fit_usl_throughput_is_not_led_by_one_bad_x1():
    """A one-worker throughput 10% high: the linear fit divides every point by it, the throughput fit outvotes it."""
    ks = np.array([1, 2, 4, 8, 12, 16, 24, 32, 48, 64])
    x = 100 * sl.usl_speedup(ks, 0.03, 0.0005)
    x[0] *= 1.1
    linear = sl.fit_usl(ks, x / x[0])
    direct = sl.fit_usl_throughput(ks, x)
    assert abs(direct.sigma - 0.03) < 0.6 * abs(linear.sigma - 0.03)
    assert direct.x1 == pytest.approx(100, rel=0.05) and direct.x1 < x[0]


def test_fit_usl_throughput_keeps_coefficients_non_negative_and_checks_its_input():
    fit = sl.fit_usl_throughput([1, 2, 4, 8], [1.0, 2.1, 4.3, 8.8])        # better than ideal: both held at zero
    assert fit.sigma == 0 and fit.kappa == 0
    fit = sl.fit_usl_throughput(KS, 3 * sl.amdahl_speedup(0.05, KS))       # Amdahl data: no coherency
    assert fit.kappa == pytest.approx(0, abs=1e-9) and fit.sigma == pytest.approx(0.05, rel=1e-6)
    with pytest.raises(ValueError, match="three points"):
        sl.fit_usl_throughput([1, 2], [1.0, 1.9])
    with pytest.raises(ValueError, match="one length"):
        sl.fit_usl_throughput([1, 2, 4], [1.0, 1.9])
    with pytest.raises(ValueError, match="throughput"):
        sl.fit_usl_throughput([1, 2, 4], [1.0, -1.9, 3.0])
