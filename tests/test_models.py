"""Identities, limits and properties of the models of Sections 3.1 and 3.3."""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import scalinglib as sl

fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
open_fractions = st.floats(min_value=1e-6, max_value=1.0 - 1e-6)
workers = st.integers(min_value=1, max_value=1 << 20)
times = st.floats(min_value=1e-6, max_value=1e6)
comm = st.floats(min_value=0.0, max_value=1.0)


# --- speedup and efficiency -------------------------------------------------------------

@given(times, times, workers)
def test_efficiency_is_speedup_over_k(t1, tk, k):
    assert math.isclose(sl.efficiency(t1, tk, k), sl.speedup(t1, tk) / k, rel_tol=1e-12)


def test_speedup_broadcasts_and_returns_floats_for_scalars():
    assert isinstance(sl.speedup(2.0, 1.0), float)
    out = sl.speedup([2.0, 4.0], [[1.0], [2.0]])
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, [[2.0, 4.0], [1.0, 2.0]])


def test_weak_efficiency_of_a_flat_time_is_one():
    assert sl.weak_efficiency(3.0, 3.0) == 1.0


# --- Amdahl ---------------------------------------------------------------------------------

@given(fractions, workers)
def test_amdahl_bounds(f, k):
    s = sl.amdahl_speedup(f, k)
    assert 1.0 - 1e-12 <= s <= k * (1 + 1e-12)
    if 0 < f < sl.laws.SMALLEST_CEILING_FRACTION:       # its ceiling 1/f is past the largest float: refused
        with pytest.raises(ValueError, match="f must be 0 or at least"):
            sl.amdahl_ceiling(f)
    else:
        assert s <= sl.amdahl_ceiling(f) * (1 + 1e-12)
    assert 0 < sl.amdahl_efficiency(f, k) <= 1 + 1e-12


@given(fractions, workers)
def test_amdahl_time_speedup_efficiency_agree(f, k):
    t = sl.amdahl_time(f, k)
    assert math.isclose(sl.amdahl_speedup(f, k), 1 / t, rel_tol=1e-12)
    assert math.isclose(sl.amdahl_efficiency(f, k), 1 / (k * t), rel_tol=1e-12)


@given(fractions, workers)
def test_amdahl_speedup_grows_with_k(f, k):
    assert sl.amdahl_speedup(f, k + 1) >= sl.amdahl_speedup(f, k) - 1e-12


def test_amdahl_limits():
    assert sl.amdahl_speedup(0.0, 1024) == 1024
    assert sl.amdahl_speedup(1.0, 1024) == 1.0
    assert sl.amdahl_ceiling(0.0) == math.inf
    assert sl.amdahl_speedup(0.05, 10**12) == pytest.approx(20.0, rel=1e-9)


@given(st.floats(min_value=0.05, max_value=1.0), st.integers(min_value=2, max_value=100_000))
def test_largest_serial_fraction_hits_the_target(e, k):
    f = sl.largest_serial_fraction(e, k)
    assume(f < 1.0)
    assert math.isclose(sl.amdahl_efficiency(f, k), e, rel_tol=1e-9)


def test_largest_serial_fraction_on_one_worker_is_one():
    assert sl.largest_serial_fraction(0.8, 1) == 1.0


# --- strong and weak scaling ----------------------------------------------------------------

@given(fractions, comm)
def test_both_models_start_at_one(s, c):
    assert sl.strong_time(1, s, c) == pytest.approx(1.0)
    assert sl.weak_time(1, s, c) == pytest.approx(1.0)


@given(workers, fractions, comm)
def test_strong_model_without_communication_is_amdahl(k, s, c):
    assert sl.strong_time(k, s, 0.0) == pytest.approx(sl.amdahl_time(s, k))


@given(workers, fractions, comm)
def test_weak_efficiency_is_one_over_one_plus_c_log2k(k, s, c):
    assert sl.weak_model_efficiency(k, s, c) == pytest.approx(1 / (1 + c * math.log2(k)))


@given(workers, fractions, comm)
def test_weak_never_worse_than_strong(k, s, c):
    assert sl.weak_model_efficiency(k, s, c) >= sl.strong_model_efficiency(k, s, c) - 1e-12


@given(fractions, st.floats(min_value=1e-4, max_value=1.0))
def test_best_worker_count_is_a_brute_force_minimum(s, c):
    best = sl.best_worker_count(s, c)
    assume(best < 20_000)
    ks = np.arange(1, max(3 * best, 10))
    times = sl.strong_time(ks, s, c)
    assert sl.strong_time(best, s, c) <= times.min() + 1e-12


@given(fractions, st.floats(min_value=1e-4, max_value=1.0))
def test_best_power_of_two_is_best_among_powers(s, c):
    best = sl.best_worker_count(s, c, powers_of_two=True)
    assert best & (best - 1) == 0
    ks = 2 ** np.arange(0, 30)
    assert sl.strong_time(best, s, c) <= sl.strong_time(ks, s, c).min() + 1e-12


def test_best_worker_count_values_in_the_text():
    assert sl.best_worker_count(0.05, 0.01) == 66
    assert sl.best_worker_count(0.05, 0.01, powers_of_two=True) == 64
    assert list(sl.best_worker_count([0.01, 0.10], 0.02)) == [34, 31]


@given(st.integers(min_value=2, max_value=4096), fractions, st.floats(min_value=1e-3, max_value=0.1),
       st.floats(min_value=0.5, max_value=0.999))
def test_isoefficiency_work_holds_the_target(k, s, c, e):
    w = sl.isoefficiency_work(k, s, c, e)
    assume(w > 0)
    achieved = (s + w) / (s + w + c * math.log2(k))
    assert achieved == pytest.approx(e, rel=1e-9)


def test_isoefficiency_matches_the_exercise():
    e2 = sl.weak_model_efficiency(2, 0.05, 0.01)
    assert sl.isoefficiency_work(2, 0.05, 0.01, e2) == pytest.approx(0.95)
    assert sl.isoefficiency_work(128, 0.05, 0.01, e2) == pytest.approx(6.95)


# --- superlinear spill model ------------------------------------------------------------------

@given(workers, fractions, st.floats(min_value=1e3, max_value=1e12), st.floats(min_value=1e3, max_value=1e12),
       st.floats(min_value=1.0, max_value=100.0))
def test_spill_model_between_honest_and_fully_spilled(k, f, ws, mem, slow):
    t = sl.spill_time(k, f, ws, mem, slow)
    honest = f + (1 - f) / k
    assert honest - 1e-12 <= t <= f + (1 - f) / k * slow + 1e-12


def test_spill_model_superlinear_then_fading():
    ks = 2 ** np.arange(9)
    t = sl.spill_time(ks, 0.02, 4.0, 1.0, 3.0)
    e = t[0] / (ks * t)
    assert e[1] > 1 and np.argmax(e) == 2          # above one at K = 2, peak at K = 4
    assert e[-1] < 1                               # and gone by K = 256


# --- critical batch ---------------------------------------------------------------------------

@given(st.floats(min_value=1e-3, max_value=1e9), st.floats(min_value=1e-4, max_value=1e4))
def test_steps_and_examples_satisfy_the_tradeoff(bc, ratio):
    b = bc * ratio
    s = sl.steps_to_target(b, bc)
    e = sl.examples_to_target(b, bc) / bc   # in units of E_min = S_min * B_crit
    assert (s - 1) * (e - 1) == pytest.approx(1.0, rel=1e-6)
    assert sl.examples_to_target(b, bc) == pytest.approx(s * b, rel=1e-12)


def test_at_the_critical_batch_both_costs_double():
    assert sl.steps_to_target(5.0, 5.0) == 2.0
    assert sl.examples_to_target(5.0, 5.0) / 5.0 == 2.0


def test_data_parallel_cap():
    assert sl.data_parallel_cap(4_000_000, 1, 1, 2048) == 1953
    assert sl.data_parallel_cap(4_000_000, 2, 8, 4096) == 61
    assert sl.data_parallel_cap(2048 * 10, 1, 1, 2048) == 10      # an exact multiple is not lost
    assert sl.data_parallel_cap(1000, 1, 1, 2048) == 0


# --- memory and layout ------------------------------------------------------------------------

def test_devices_to_hold():
    assert sl.devices_to_hold(70e9, "train_mixed_adam", 80e9) == 16
    assert sl.devices_to_hold(70e9, "infer_fp16", 80e9) == 2
    assert sl.devices_to_hold(1e6, 2, 80e9) == 1
    assert sl.devices_to_hold(72e9 / 16, 16, 80e9) == 1     # an exact fit stays at one device


@given(st.floats(min_value=1e6, max_value=1e13), st.sampled_from([1.0, 2.0, 4.0, 16.0]),
       st.floats(min_value=1e9, max_value=2e11))
def test_devices_to_hold_is_the_smallest_that_fits(n, bpp, mem):
    d = sl.devices_to_hold(n, bpp, mem, usable_fraction=0.9)
    assert d * mem * 0.9 >= n * bpp * (1 - 1e-9)
    assert d == 1 or (d - 1) * mem * 0.9 < n * bpp


def test_scaling_efficiency_and_bubble():
    assert sl.scaling_efficiency(0.0) == 1.0
    assert sl.scaling_efficiency(1.0) == 0.5
    assert sl.pipeline_bubble_fraction(1, 7) == 0.0
    assert sl.pipeline_bubble_fraction(4, 3) == 1.0


def test_tensor_parallel_fraction_shrinks_with_width_and_vanishes_at_tp_1():
    assert sl.tensor_parallel_comm_fraction(1, 4096) == 0.0
    assert sl.tensor_parallel_comm_fraction(8, 12288) < sl.tensor_parallel_comm_fraction(8, 4096)
    # 12x slower links cost 12x more
    ratio = sl.tensor_parallel_comm_fraction(8, 8192, link_bandwidth=25e9) / sl.tensor_parallel_comm_fraction(8, 8192)
    assert ratio == pytest.approx(12.0)


def test_hidden_size_recovers_gpt3():
    assert sl.hidden_size_for(175e9) == pytest.approx(12288, rel=0.01)


def test_parallel_layout_accounts_for_every_gpu():
    for g in 2 ** np.arange(3, 15):
        lay = sl.parallel_layout(int(g), 175e9, 4e6, 2e6)
        if lay.fits:
            assert lay.dp * lay.tp * lay.pp == g
            assert lay.tp <= 8
            assert lay.pp <= lay.layers
            assert 0 < lay.efficiency <= 1


@pytest.mark.parametrize("n_params", [1.3e9, 13e9, 175e9, 1e12])
@pytest.mark.parametrize("critical", [0.5e6, 2e6, 8e6])
def test_parallel_layout_never_cuts_more_stages_than_layers(n_params, critical):
    sweep = sl.layout_sweep(2 ** np.arange(3, 15), n_params, 16e6, critical)
    fits, layers = sweep["fits"], sweep["layers"]
    assert np.all(sweep["pp"][fits] <= layers[fits])
    # not placeable: nothing laid out, no efficiency, and no useful GPUs
    assert np.all(sweep["dp"][~fits] == 0) and np.all(sweep["pp"][~fits] == 0)
    assert np.all(np.isnan(sweep["efficiency"][~fits])) and np.all(sweep["throughput"][~fits] == 0)
    # the sizes that cannot be placed are an interval at each end: too small, then (maybe) too deep
    too_deep = ~fits & (sweep["n_gpus"] >= sweep["min_gpus"])
    if too_deep.any():
        assert sweep["n_gpus"][too_deep].min() > sweep["n_gpus"][fits].max()


def test_layer_counts_and_the_pipeline_cap():
    # layers = h / 128, rounded: 19, 40, 96 (GPT-3 175B), 172
    assert [sl.parallel_layout(16384, n, 16e6, 2e6).layers for n in (1.3e9, 13e9, 175e9, 1e12)] == [19, 40, 96, 172]
    # the reviewer's cases: 175B asked for 128 stages, 1T for 256 and 512, 1.3B (B_crit 0.5M) for 32 and 64
    assert sl.parallel_layout(8192, 175e9, 16e6, 2e6).pp == 64
    assert not sl.parallel_layout(16384, 175e9, 16e6, 2e6).fits
    assert [sl.parallel_layout(g, 1e12, 16e6, 2e6).fits for g in (4096, 8192, 16384)] == [True, False, False]
    assert sl.parallel_layout(4096, 1.3e9, 16e6, 0.5e6).pp == 16
    assert [sl.parallel_layout(g, 1.3e9, 16e6, 0.5e6).fits for g in (8192, 16384)] == [False, False]
    # the layer count can be given; too few layers for the stages the model needs to fit: never placeable
    assert sl.parallel_layout(16384, 175e9, 16e6, 2e6, n_layers=128).pp == 128
    assert not any(sl.parallel_layout(g, 175e9, 16e6, 2e6, n_layers=4).fits for g in (64, 1024, 16384))
    lay = sl.parallel_layout(16384, 175e9, 16e6, 2e6)
    assert (lay.dp, lay.tp, lay.pp, lay.min_gpus) == (0, 0, 0, 64) and np.isnan(lay.efficiency)


def test_layout_flags_a_replica_batch_past_the_critical_batch():
    # one replica of the 13B model adds 4 x 2,048 = 8,192 tokens per step; a 1,000-token limit is below that
    lay = sl.parallel_layout(64, 13e9, 1000, 1000)
    assert lay.dp_cap == 0 and lay.batch_over_limit and lay.fits
    assert lay.dp == 1 and lay.batch_tokens > 1000
    assert not sl.parallel_layout(64, 13e9, 4e6, 4e6).batch_over_limit
    assert not sl.layout_sweep([64, 1024], 13e9, 4e6, 4e6)["batch_over_limit"].any()


def test_layout_input_checks():
    with pytest.raises(ValueError, match="gpus_per_node must be a power of two"):
        sl.parallel_layout(64, 1e9, 1e6, 1e6, gpus_per_node=6)
    with pytest.raises(TypeError, match="n_gpus must be a single number"):
        sl.parallel_layout([8, 16], 1e9, 1e6, 1e6)
    with pytest.raises(TypeError, match="n_params must be a single number"):
        sl.parallel_layout(8, [1e9, 2e9], 1e6, 1e6)
    with pytest.raises(ValueError, match="n_layers"):
        sl.parallel_layout(8, 1e9, 1e6, 1e6, n_layers=0)
    assert sl.parallel_layout(np.int64(64), 1e9, 1e6, 1e6).fits          # numpy scalars are numbers
    # four GPUs per node: every layout still accounts for every GPU
    for g in 2 ** np.arange(3, 15):
        lay = sl.parallel_layout(int(g), 13e9, 16e6, 2e6, gpus_per_node=4)
        if lay.fits:
            assert lay.dp * lay.tp * lay.pp == g and lay.tp <= 4


def test_counts_past_2_53_are_refused_not_wrapped():
    with pytest.raises(ValueError, match="beyond"):
        sl.best_worker_count(0.05, 1e-20)
    with pytest.raises(ValueError, match="beyond"):
        sl.best_worker_count([0.05, 0.05], [0.01, 1e-20])
    with pytest.raises(ValueError, match="data-parallel cap would be"):
        sl.data_parallel_cap(1e30, 1, 1, 2048)
    k_star = 0.95 * math.log(2) / 1e-12                              # large, but below 2**53: still an int
    best = sl.best_worker_count(0.05, 1e-12)
    assert isinstance(best, int) and best in (math.floor(k_star), math.floor(k_star) + 1)
    assert isinstance(sl.data_parallel_cap(4e6, 1, 1, 2048), int)


def test_parallel_layout_regimes():
    sweep = sl.layout_sweep(2 ** np.arange(3, 15), 13e9, 4e6, 4e6)
    eff, dp = sweep["efficiency"], sweep["dp"]
    at_cap = int(np.argmax(dp == dp.max()))            # first cluster size where DP stops growing
    # flat while data parallelism grows the batch (weak scaling), falling once the cap is reached
    assert np.allclose(eff[: at_cap + 1], eff[0])
    assert np.all(np.diff(eff[at_cap:]) < 0)
    # in the data-parallel zone the batch doubles with the cluster, and never passes the critical batch
    batch = sweep["batch_tokens"]
    assert np.allclose(batch[1 : at_cap + 1] / batch[:at_cap], 2.0)
    assert batch.max() <= 4e6
    # a bigger model does not fit on 8 GPUs
    assert not sl.parallel_layout(8, 1e12, 4e6, 4e6).fits


def test_bigger_models_reach_the_cap_at_more_gpus_until_they_need_pipeline_stages():
    caps = []
    for n in (1.3e9, 13e9, 175e9, 1e12):
        sweep = sl.layout_sweep(2 ** np.arange(3, 15), n, 16e6, 8e6)
        caps.append(sweep["n_gpus"][np.argmax(sweep["dp"] == sweep["dp"].max())])
    assert caps[0] < caps[1] < caps[2] == caps[3]


def test_layout_refuses_non_power_of_two_clusters():
    with pytest.raises(ValueError, match="n_gpus must be a power of two"):
        sl.parallel_layout(24, 1e9, 1e6, 1e6)


def test_strong_time_arrays_match_scalars_to_the_last_bit():
    """The array path (computed in place) adds in the order of the formula: every element equals the scalar
    result exactly, so tables rounded at a tie (the seed table's T(8) = 0.19875) print the same digits."""
    ks = np.unique(np.geomspace(1, 2**20, 400).round())
    for s, c in ((0.05, 0.01), (0.0, 0.0), (1.0, 0.5), (0.2, 1e-3)):
        array = sl.strong_time(ks, s, c)
        assert all(array[i] == sl.strong_time(int(k), s, c) for i, k in enumerate(ks))
        assert np.array_equal(array, sl.strong_time(ks.astype(np.int64), s, c))


def test_long_worker_arrays_are_checked_and_computed_chunk_by_chunk_with_the_same_bits():
    """Past ``CHUNKED_MIN`` elements, ``strong_time`` checks and computes each cache-sized chunk in one go
    (``checked_in_chunks`` in scalinglib/_validate.py): the same results to the last bit as the element-wise
    path, in the input's shape, and a bad count anywhere is refused by name as before."""
    from scalinglib import _validate, scaling

    rng = np.random.default_rng(3)
    n = _validate.CHUNKED_MIN + 3 * _validate._CHUNK + 17          # a ragged last chunk
    counts = [np.arange(1, n + 1), np.arange(1, n + 1, dtype=float), rng.integers(1, 2**52, n),
              np.floor(rng.uniform(1, 1e15, (n // 7, 7))), np.arange(1, 2 * n + 1)[::2].astype(float),
              np.full(n, 2.0**70)]
    for k in counts:
        for s, c in ((0.05, 0.01), (0.0, 0.0), (1.0, 3.0), (0.3, 1e300)):
            fused = sl.strong_time(k, s, c)
            assert fused.shape == k.shape
            assert fused.tobytes() == scaling._strong(k.astype(float), s, c).tobytes(), (k.dtype, s, c)
            assert fused.flat[-1] == sl.strong_time(float(k.flat[-1]), s, c)
    for bad, words in ((0.0, "whole number >= 1"), (2.5, "whole number >= 1"), (-4.0, "whole number >= 1"),
                       (np.inf, "finite"), (np.nan, "finite")):
        for where in (0, _validate._CHUNK - 1, n - 1):
            k = np.arange(1, n + 1, dtype=float)
            k[where] = bad
            with pytest.raises(ValueError, match=rf"^k must be .*{words}.*at index {where}\)$"):
                sl.strong_time(k, 0.05, 0.01)
    with pytest.raises(ValueError, match="^k must be a whole number >= 1; got 0"):
        sl.strong_time(np.arange(n), 0.05, 0.01)
    for s, c, name in ((1.5, 0.01, "s"), (0.05, -1.0, "c"), (0.05, 2e305, "c"), (0.05, float("nan"), "c")):
        with pytest.raises(ValueError, match=f"^{name} must be"):
            sl.strong_time(np.arange(1, n + 1), s, c)


def test_long_arrays_in_amdahls_law_are_checked_and_computed_chunk_by_chunk_with_the_same_bits():
    """``amdahl_speedup`` over a long array of serial fractions (one K) or of worker counts (one f): each chunk
    checked and computed in the cache, the same bits as the plain expression, bad values refused by name."""
    from scalinglib import _validate

    n = _validate.CHUNKED_MIN + 2 * _validate._CHUNK + 5
    fractions = np.linspace(0.0, 1.0, n)
    for k in (1, 7, 512, 2.0**40):
        assert sl.amdahl_speedup(fractions, k).tobytes() == (1.0 / (fractions + (1.0 - fractions) / k)).tobytes()
    square = fractions[: (n // 9) * 9].reshape(-1, 9)
    assert sl.amdahl_speedup(square, 64).shape == square.shape
    for workers in (np.arange(1, n + 1), np.arange(1, n + 1, dtype=float)):
        for f in (0.0, 0.05, 1.0):
            assert sl.amdahl_speedup(f, workers).tobytes() == (1.0 / (f + (1.0 - f) / workers)).tobytes()
    for bad, words in ((-0.1, r"in \[0, 1\]"), (1.5, r"in \[0, 1\]"), (np.nan, "finite")):
        f = fractions.copy()
        f[n - 2] = bad
        with pytest.raises(ValueError, match=rf"^f must be {words}.*index {n - 2}\)$"):
            sl.amdahl_speedup(f, 8)
    k = np.arange(1, n + 1, dtype=float)
    k[3] = 1.5
    with pytest.raises(ValueError, match="^k must be a whole number >= 1; got 1.5"):
        sl.amdahl_speedup(0.05, k)
    with pytest.raises(ValueError, match="^k must be a whole number >= 1; got 0"):
        sl.amdahl_speedup(0.05, np.arange(n))
    with pytest.raises(ValueError, match="^k must be a whole number >= 1"):
        sl.amdahl_speedup(fractions, 0)
    with pytest.raises(ValueError, match="^f must be in"):
        sl.amdahl_speedup(1.2, np.arange(1, n + 1))


def test_bad_values_in_a_long_array_give_the_refusal_only_not_a_numpy_warning_or_error():
    """Each chunk is computed before it is checked: a zero, a negative or a NaN worker count (or fraction) is
    computed on first. The reader still sees only the ValueError that names it: no RuntimeWarning, and no
    FloatingPointError under ``np.seterr(all="raise")``."""
    import warnings

    from scalinglib import _validate

    n = _validate.CHUNKED_MIN + 11
    calls = []
    for bad in (0.0, -0.0, -3.0, -np.inf, np.nan, np.inf):      # -0.0 makes T = -inf: finite checks miss it
        k = np.arange(1, n + 1, dtype=float)
        k[n // 2] = bad
        calls += [lambda k=k, s=s, c=c: sl.strong_time(k, s, c) for s, c in ((0.05, 0.01), (1.0, 0.0), (0.0, 2.0))]
        calls += [lambda k=k, f=f: sl.amdahl_speedup(f, k) for f in (0.05, 1.0, 0.0)]
    k = np.arange(1, n + 1)
    k[5] = -2
    calls += [lambda: sl.strong_time(k, 0.5, 0.0), lambda: sl.amdahl_speedup(1.0, k)]
    f = np.linspace(0.0, 1.0, n)
    f[7] = -1.0
    calls.append(lambda: sl.amdahl_speedup(f, 8))
    for setting in ("warn", "raise"):
        with warnings.catch_warnings(), np.errstate(all=setting):
            warnings.simplefilter("error")
            for call in calls:
                with pytest.raises(ValueError, match=r"^(k|f) must be"):
                    call()


def test_chunked_paths_give_the_same_bits_from_several_threads_at_once():
    """The chunked checks keep one pair of scratch buffers per thread: calls from threads running at the same
    time never share them (each result is the single-thread result, bit for bit)."""
    from concurrent.futures import ThreadPoolExecutor

    from scalinglib import _validate

    n = _validate.CHUNKED_MIN + 2 * _validate._CHUNK + 11
    counts = np.arange(1, n + 1, dtype=float)
    fractions = np.linspace(0.0, 1.0, n)
    calls = [lambda i=i: sl.strong_time(counts + i, 0.05, 0.01) for i in range(4)]
    calls += [lambda i=i: sl.amdahl_speedup(fractions, 2 + i) for i in range(4)]
    alone = [call().tobytes() for call in calls]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert [r.tobytes() for r in pool.map(lambda call: call(), calls)] == alone
