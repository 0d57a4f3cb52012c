"""Measuring the reader's machine (Sections 3.7 and 3.8): the fits recover known parameters from
synthetic timings, and the measurements run, clean up after themselves and return sane shapes.

The measured numbers themselves vary by machine; the notebooks tag those outputs
``nbval-ignore-output`` and this file tests the code behind them. The CPU count (affinity mask,
cgroup quota, SMT siblings) is tested on synthetic /sys and /proc trees in test_labs.py."""

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib import probe

# --- fits on synthetic data ------------------------------------------------------------------------

@given(st.floats(min_value=1e-7, max_value=1e-3), st.floats(min_value=1e8, max_value=1e11))
def test_alpha_beta_recovered_exactly_from_noiseless_timings(alpha, bandwidth):
    n = np.array([8.0, 64, 512, 4096, 32768, 262144])
    fit = sl.fit_alpha_beta(n, alpha + n / bandwidth)
    assert fit.alpha == pytest.approx(alpha, rel=1e-6)
    assert fit.bandwidth == pytest.approx(bandwidth, rel=1e-6)
    assert fit.half_size == pytest.approx(alpha * bandwidth, rel=1e-6)


@pytest.mark.parametrize("seed", range(5))
def test_alpha_beta_recovered_from_noisy_timings(seed):
    """5% multiplicative noise, as a busy machine gives: the fit stays within 10%."""
    rng = np.random.default_rng(seed)
    alpha, beta = 8e-6, 1 / 2.4e9
    n = np.repeat(8.0 * 4.0 ** np.arange(8), 3)
    t = (alpha + n * beta) * rng.lognormal(0.0, 0.05, n.size)
    fit = sl.fit_alpha_beta(n, t)
    assert fit.alpha == pytest.approx(alpha, rel=0.10)
    assert fit.beta == pytest.approx(beta, rel=0.10)


def test_relative_fit_is_not_decided_by_the_largest_sizes():
    """An ordinary least-squares line through these times would miss alpha badly; the relative fit does not."""
    n = np.array([8.0, 1e3, 1e5, 1e7])
    t = 1e-5 + n * 1e-9
    t[-1] *= 1.02                       # 2% noise on the one large point
    fit = sl.fit_alpha_beta(n, t)
    assert fit.alpha == pytest.approx(1e-5, rel=0.02)


def test_negative_intercept_is_refitted_through_zero():
    n = np.array([1e6, 2e6, 4e6])
    t = n / 1e10 - 1e-6                 # a line with a negative intercept
    fit = sl.fit_rate(n, t)
    assert fit.overhead == 0.0
    assert 0.9e10 < fit.rate < 1.2e10


@given(st.floats(min_value=0.0, max_value=1e-2), st.floats(min_value=1e8, max_value=1e13))
def test_rate_recovered_from_noiseless_timings(overhead, rate):
    x = np.array([1e8, 2e8, 4e8, 8e8])
    fit = sl.fit_rate(x, overhead + x / rate)
    assert fit.rate == pytest.approx(rate, rel=1e-6)
    assert fit.overhead == pytest.approx(overhead, rel=1e-5, abs=1e-12)


def test_best_rate_is_the_fastest_call():
    assert sl.best_rate([2e9, 16e9, 54e9], [0.1, 0.4, 2.0]) == 40e9
    assert sl.probe.KernelRun("k", 2e9, 1e9, 0.1).rate == 2e10
    assert sl.probe.KernelRun("k", 2e9, 1e9, 0.1).intensity == 2.0


@pytest.mark.parametrize(("x", "t", "match"), [
    ([1, 2], [1.0], "same length"),
    ([5, 5, 5], [1.0, 1.1, 1.2], "two different sizes"),
    ([1, 2], [1.0, 0.0], "must be > 0"),
    ([-1, 2], [1.0, 2.0], "must be >= 0"),
    ([[1, 2]], [[1.0, 2.0]], "one-dimensional"),
    ([1, 2], [2.0, 1.0], "must grow"),
])
def test_fits_refuse_bad_timings(x, t, match):
    with pytest.raises(ValueError, match=match):
        sl.fit_alpha_beta(x, t)
    with pytest.raises(ValueError, match=match):
        sl.fit_rate(x, t)


@pytest.mark.parametrize("t", [[1e-6, 1e-6], [1e-6, 1e-6 * (1 + 1e-12)], [3e-5, 3e-5, 3e-5]])
def test_alpha_beta_and_rate_refuse_flat_timings(t):
    """Times that do not grow with the size beyond rounding give no bandwidth (beta would be noise, ~1e-23)."""
    with pytest.raises(ValueError, match="seconds must grow with nbytes"):
        sl.fit_alpha_beta([8, 16, 32][:len(t)], t)
    with pytest.raises(ValueError, match="seconds must grow with amount"):
        sl.fit_rate([8, 16, 32][:len(t)], t)


def test_alpha_beta_accepts_a_slowly_growing_line():
    n = np.array([8.0, 1e3, 1e5])
    fit = sl.fit_alpha_beta(n, 1e-5 + n * 1e-15)      # transfer is 1e-5 of the largest time: still a line
    assert fit.beta == pytest.approx(1e-15, rel=1e-3)


def test_best_rate_refuses_bad_timings():
    with pytest.raises(ValueError, match="same length"):
        sl.best_rate([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="seconds must be > 0"):
        sl.best_rate([1.0], [0.0])
    with pytest.raises(TypeError):
        sl.best_rate("fast", [1.0])


def test_rate_spread_reads_best_median_and_slowest():
    r = sl.probe.rate_spread(2e8, [0.010, 0.008, 0.020])
    assert (r.best, r.median, r.worst, r.repeats) == (25e9, 20e9, 10e9, 3)
    assert r.spread == pytest.approx(0.6)
    r = sl.probe.rate_spread([1e9, 2e9], [0.1, 0.1])       # one amount per timing
    assert (r.best, r.worst) == (2e10, 1e10)


@pytest.mark.parametrize("seed", range(10))
def test_best_of_repeats_recovers_the_bandwidth_from_one_sided_noise(seed):
    """Other programs only slow a run down: slowdowns of 10% on average (up to 50%), the best of nine is within 5%."""
    rng = np.random.default_rng(seed)
    bandwidth, nbytes = 33e9, 24.0 * 2**23
    seconds = nbytes / bandwidth * (1 + rng.exponential(0.1, 9).clip(max=0.5) + rng.uniform(0, 0.02, 9))
    r = sl.probe.rate_spread(nbytes, seconds)
    assert bandwidth / 1.05 <= r.best <= bandwidth
    assert r.worst <= r.median <= r.best and 0 <= r.spread < 1


def test_a_fit_over_a_narrow_span_cannot_resolve_the_overhead():
    """Why 3.7 reads B off the best repeat rather than a fit of t = t0 + Q/B: over sizes a factor of two apart,
    a few per cent of noise moves the fitted t0 by many times its true 5 us and the rate by more than the best
    repeat's error, while the best rate stays within 1%."""
    bandwidth, overhead = 33e9, 5e-6
    nbytes = 24.0 * np.array([2**22, 3 * 2**21, 2**23])
    fit_errors, best_errors, overheads = [], [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        timings = (overhead + nbytes / bandwidth)[:, None] * (1 + rng.exponential(0.05, (3, 5)))
        best = timings.min(axis=1)                          # best of five at each size, as bandwidth_timings keeps
        fit = sl.fit_rate(nbytes, best)
        fit_errors.append(abs(fit.rate / bandwidth - 1))
        overheads.append(fit.overhead)
        best_errors.append(abs(sl.best_rate(nbytes, best) / bandwidth - 1))
    assert max(best_errors) < 0.01
    assert max(fit_errors) > max(best_errors)
    assert max(abs(t0 - overhead) for t0 in overheads) > 10 * overhead


def test_rate_spread_refuses_bad_timings():
    with pytest.raises(ValueError, match="same length"):
        sl.probe.rate_spread([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="non-empty"):
        sl.probe.rate_spread(1.0, [])
    with pytest.raises(ValueError, match="seconds must be > 0"):
        sl.probe.rate_spread(1.0, [0.1, 0.0])
    with pytest.raises(ValueError, match="amount must be >= 0"):
        sl.probe.rate_spread(-1.0, [0.1])
    with pytest.raises(TypeError):
        sl.probe.rate_spread("lots", [0.1])


# --- the measurements, on small sizes ------------------------------------------------------------

def test_best_time_and_cpu_count():
    calls = []
    t = probe.best_time(lambda: calls.append(1), repeats=3, number=4)
    assert len(calls) == 12 and t >= 0
    total, usable = probe.cpu_count()
    assert 1 <= usable <= total
    assert usable <= len(os.sched_getaffinity(0))
    with pytest.raises(TypeError):
        probe.best_time(42)
    with pytest.raises(ValueError, match="repeats"):
        probe.best_time(lambda: None, repeats=0)


def test_bandwidth_and_matmul_timings_count_what_they_move():
    bw = probe.bandwidth_timings(elements=[10_000, 20_000], repeats=2)
    np.testing.assert_array_equal(bw.amount, [240_000, 480_000])
    assert np.all(bw.seconds > 0)
    mm = probe.matmul_timings(sizes=[16, 32], repeats=2)
    np.testing.assert_array_equal(mm.amount, [2 * 16**3, 2 * 32**3])
    assert np.all(mm.seconds > 0)
    with pytest.raises(ValueError, match="elements"):
        probe.bandwidth_timings(elements=[0])


def test_bandwidth_samples_keep_every_timing():
    t = probe.bandwidth_samples(elements=10_000, repeats=4, number=2)
    assert t.amount.tolist() == [240_000.0] * 4 and t.seconds.shape == (4,) and np.all(t.seconds > 0)
    with pytest.raises(ValueError, match="elements"):
        probe.bandwidth_samples(elements=0)
    with pytest.raises(ValueError, match="repeats"):
        probe.bandwidth_samples(elements=100, repeats=1.5)
    with pytest.raises(TypeError, match="elements"):
        probe.bandwidth_samples(elements=[100, 200])


def test_kernel_runs_have_the_documented_counts():
    runs = probe.kernel_runs(vector_elements=1000, matvec_order=20, matmul_orders=[4, 8], repeats=1)
    by_name = {r.name: r for r in runs}
    assert by_name["vector add"].intensity == 1 / 24
    assert by_name["a*x + y (two passes)"].intensity == 2 / 40
    assert by_name["matrix-vector 20"].flops == 2 * 20**2
    assert by_name["matmul 8"].intensity == pytest.approx(8 / 12)
    assert all(r.seconds > 0 for r in runs)


def test_reduction_time_per_byte():
    assert 0 < probe.reduction_time_per_byte(4096, repeats=2) < 1e-6     # numpy adds far faster than 1 MB/s
    with pytest.raises(ValueError, match="multiples? of 4"):
        probe.reduction_time_per_byte(4098)


def test_the_pipe_probes_are_gone():
    """Messages and collectives are measured with MPI now (scalinglib.labs, tested in test_labs.py)."""
    assert not hasattr(probe, "pingpong_timings") and not hasattr(probe, "pair_allreduce_timings")


def test_section_3_7_measurements_do_a_bounded_amount_of_work(monkeypatch):
    """3.7.5's cells under SCALINGLIB_MEASURE=quick (what nbval runs): two runs of each roof, each capped at two
    timings of the add and two of the multiply after a warm-up. On a machine whose cache is 32 MiB, as here, the
    arrays hold 128 MiB each. The work is bounded by the bytes and FLOPs it asks for: at 1 GB/s and 1 GFLOP/s,
    which any machine that runs the book reaches, the one-core and two-core roofs finish within a minute."""
    monkeypatch.setenv(probe.MEASURE_ENV, "quick")
    length = probe.stream_elements(32 * 2**20)
    assert 8 * length == 4 * 32 * 2**20
    runs = 2
    moved = flops = 0.0
    for threads in (1, 2):
        passes = 1 + probe._repeats(2 * 5)                     # the warm-up, then the capped timings
        moved += runs * passes * 24.0 * length
        flops += runs * (1 + probe._repeats(5)) * 2.0 * probe.matmul_order_for(threads) ** 3
    assert moved / 1e9 + flops / 1e9 < 60
    roof = probe.machine_roof(1, elements=2**16, matmul_order=64, repeats=5)
    assert roof.threads == 1 and roof.ridge_point == roof.peak_flops / roof.bandwidth


def test_quick_measurements_cap_the_repeats(monkeypatch):
    """SCALINGLIB_MEASURE=quick (what make nbval sets) caps every measurement of the probe at two repeats, in
    this process and in the child that ``with_threads`` starts; without it the repeats asked for are run."""
    calls = []
    for quick, expected in ((False, 9), (True, probe.QUICK_REPEATS)):
        if quick:
            monkeypatch.setenv(probe.MEASURE_ENV, "quick")
        else:
            monkeypatch.delenv(probe.MEASURE_ENV, raising=False)
        assert probe.bandwidth_samples(elements=1000, repeats=9).seconds.size == expected
        calls.clear()
        probe.best_time(lambda: calls.append(1), repeats=9, number=3)
        assert len(calls) == 3 * expected
        assert probe.with_threads(1, "bandwidth_samples", elements=1000, repeats=9).seconds.size == expected
    assert probe.QUICK_REPEATS == 2 and probe._repeats(1) == 1            # a cap, never a raise


# --- the last-level cache, read from simulated machines ---------------------------------------------

def _machine(root, cpus, caches):
    """A /sys/devices/system/cpu tree: ``caches`` lists (level, type, size text, CPUs per instance)."""
    for cpu in range(cpus):
        for index, (level, kind, size, per) in enumerate(caches):
            d = root / f"cpu{cpu}" / "cache" / f"index{index}"
            d.mkdir(parents=True)
            first = cpu - cpu % per
            (d / "level").write_text(f"{level}\n")
            (d / "type").write_text(f"{kind}\n")
            (d / "size").write_text(f"{size}\n")
            (d / "shared_cpu_list").write_text(f"{first}-{first + per - 1}\n" if per > 1 else f"{cpu}\n")
    return root



@pytest.mark.parametrize(("cpus", "caches", "total_mb", "instances"), [
    # a 16-core desktop chip: one 32 MiB L3 shared by every CPU
    (16, [(1, "Data", "48K", 2), (1, "Instruction", "32K", 2), (2, "Unified", "2048K", 2), (3, "Unified", "32768K", 16)],
     32 * 2**20, 1),
    # a Xeon Platinum 8480+: 56 cores, 112 threads, one 105 MB L3
    (112, [(1, "Data", "48K", 2), (2, "Unified", "2048K", 2), (3, "Unified", "107520K", 112)], 105 * 2**20, 1),
    # an EPYC 9654: 96 cores, 192 threads, twelve chiplets of 32 MiB each, 384 MiB in all
    (192, [(1, "Data", "32K", 2), (2, "Unified", "1024K", 2), (3, "Unified", "32768K", 16)], 384 * 2**20, 12),
])
def test_last_level_cache_of_simulated_machines(tmp_path, cpus, caches, total_mb, instances):
    root = _machine(tmp_path, cpus, caches)
    info = probe.last_level_cache(sys_cpu=root, sysconf=lambda name: 0)
    assert (info.level, info.total_bytes, info.instances, info.source) == (3, total_mb, instances, "sysfs")
    length = probe.stream_elements(info.total_bytes)
    assert 8 * length >= 4 * total_mb and 8 * length < 4 * total_mb + 8 * 2**16     # at least 4x, rounded up
    assert length % 2**16 == 0
    assert "L3" in info.describe() and (f"{instances} x" in info.describe()) == (instances > 1)


def test_last_level_cache_falls_back_to_sysconf_then_to_a_stated_size(tmp_path):
    info = probe.last_level_cache(sys_cpu=tmp_path / "absent", sysconf=lambda name: 8 * 2**20 if "3" in name else 0)
    assert (info.level, info.total_bytes, info.source) == (3, 8 * 2**20, "sysconf")
    info = probe.last_level_cache(sys_cpu=tmp_path / "absent", sysconf=lambda name: 2**20 if "2" in name else 0)
    assert (info.level, info.total_bytes, info.source) == (2, 2**20, "sysconf")

    def refuses(name):
        raise ValueError(name)

    for sysconf in (refuses, lambda name: -1, lambda name: 0):
        info = probe.last_level_cache(sys_cpu=tmp_path / "absent", sysconf=sysconf)
        assert (info.level, info.total_bytes, info.source) == (None, probe.FALLBACK_CACHE_BYTES, "fallback")
        assert "assumed 128 MiB" in info.describe()
    assert probe.stream_elements(probe.FALLBACK_CACHE_BYTES) * 8 == 512 * 2**20
    # unreadable entries are skipped, not fatal
    bad = tmp_path / "bad" / "cpu0" / "cache" / "index0"
    bad.mkdir(parents=True)
    (bad / "level").write_text("three\n")
    (bad / "size").write_text("lots\n")
    assert probe.last_level_cache(sys_cpu=tmp_path / "bad", sysconf=lambda name: 0).source == "fallback"


def test_this_machine_has_a_readable_cache():
    info = probe.last_level_cache()
    assert info.total_bytes > 0 and info.source in ("sysfs", "sysconf", "fallback")


def test_stream_elements_validates():
    assert probe.stream_elements(1, minimum=2**20) == 2**20
    assert probe.stream_elements(32 * 2**20, factor=1) * 8 == 32 * 2**20
    with pytest.raises(ValueError, match="factor"):
        probe.stream_elements(2**20, factor=0.5)
    with pytest.raises(ValueError, match="cache_bytes"):
        probe.stream_elements(0)


# --- STREAM's add on several threads, and the roof at one thread count ------------------------------

@pytest.mark.parametrize("threads", [1, 2, 3])
def test_stream_add_counts_bytes_as_stream_does(threads):
    t = probe.stream_add(3000, threads=threads, repeats=3)
    assert t.amount.tolist() == [72000.0] * 3 and t.seconds.shape == (3,) and np.all(t.seconds > 0)
    t = probe.stream_add(3000, threads=threads, repeats=2, pin=False)
    assert t.seconds.size == 2


def test_stream_add_validates_and_is_capped_under_quick(monkeypatch):
    with pytest.raises(ValueError, match="elements"):
        probe.stream_add(2, threads=4)
    with pytest.raises(ValueError, match="threads"):
        probe.stream_add(100, threads=0)
    monkeypatch.setenv(probe.MEASURE_ENV, "quick")
    assert probe.stream_add(1000, threads=2, repeats=9).seconds.size == probe.QUICK_REPEATS


def test_machine_roof_takes_the_best_of_one_kernel_each_at_one_thread_count(monkeypatch):
    """Synthetic timings: B is the best rate of the add (24 bytes per element), P the best of the multiply, both at
    the thread count asked for; nothing else is maximised over."""
    calls = {}

    def fake_add(elements, threads, repeats):
        calls["add"] = (elements, threads, repeats)
        return probe.Timings(np.full(3, 24.0 * elements), np.array([0.02, 0.01, 0.04]))

    def fake_matmul(sizes, repeats):
        calls["matmul"] = (list(sizes), repeats)
        return probe.Timings(np.full(1, 2.0 * sizes[0] ** 3), np.array([0.1]))

    monkeypatch.setattr(probe.roof, "stream_add", fake_add)           # where machine_roof looks them up
    monkeypatch.setattr(probe.roof, "matmul_timings", fake_matmul)
    roof = probe.machine_roof(4, elements=10**6, repeats=3)
    assert calls == {"add": (10**6, 4, 6), "matmul": ([probe.matmul_order_for(4)], 3)}
    assert roof.bandwidth == pytest.approx(24e6 / 0.01) and roof.peak_flops == pytest.approx(
        2.0 * probe.matmul_order_for(4) ** 3 / 0.1)
    assert roof.ridge_point == pytest.approx(roof.peak_flops / roof.bandwidth)


def test_with_threads_gives_the_roof_its_thread_count():
    roof = probe.with_threads(2, "machine_roof", elements=2**12, matmul_order=32, repeats=1)
    assert isinstance(roof, probe.MachineRoof) and roof.threads == 2 and roof.matmul_order == 32
    roof = probe.with_threads(1, "machine_roof", threads=1, elements=2**12, matmul_order=16, repeats=1)
    assert roof.threads == 1


def test_value_spread_of_five_runs():
    r = probe.value_spread([10.0, 9.0, 9.5, 8.5, 10.0])
    assert (r.best, r.median, r.worst, r.repeats) == (10.0, 9.5, 8.5, 5) and r.spread == pytest.approx(0.15)
    with pytest.raises(ValueError, match="values"):
        probe.value_spread([])
    with pytest.raises(ValueError, match="values"):
        probe.value_spread([1.0, 0.0])


def test_matmul_order_grows_with_the_threads():
    orders = [probe.matmul_order_for(k) for k in (1, 2, 4, 8, 64)]
    assert orders == sorted(orders) and orders[0] == 1024 and all(o % 256 == 0 for o in orders)
    with pytest.raises(ValueError, match="threads"):
        probe.matmul_order_for(0)
