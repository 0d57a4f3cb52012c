"""Section 3.5's measurement harness: the kernel, the work split, the worker counts, and a tiny real run.

The numbers a run produces depend on the machine, so only their shape and
plausibility are checked here; the analysis of such numbers (speedup,
Karp-Flatt, the fits) is tested on synthetic data in test_laws_3_5.py.
"""

import os

import pytest

from scalinglib import measure


def test_kernel_is_deterministic_and_module_level():
    assert measure.spin(1000) == measure.spin(1000)
    assert measure.spin(0) == 12345
    assert measure.spin.__module__ == "scalinglib.measure"   # picklable by reference for worker processes


def test_split_shares_the_work_evenly():
    for total in (1, 7, 1000, 1_491_377):
        for parts in (1, 2, 3, 8):
            shares = measure._split(total, parts)
            assert len(shares) == parts and sum(shares) == total and max(shares) - min(shares) <= 1


@pytest.mark.parametrize(("cores", "expected"), [
    (1, [1, 2, 3]),                                   # one core: still three counts, so the USL can be fitted
    (2, [1, 2, 3, 4]),
    (4, [1, 2, 3, 4, 5, 8]),
    (8, [1, 2, 3, 4, 5, 6, 7, 8, 9, 16]),
    (9, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18]),
    (16, [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 32]),      # up to 8, the cores, one past them and twice them
    (64, [1, 2, 3, 4, 5, 6, 7, 8, 64, 65, 128]),
])
def test_default_worker_counts(monkeypatch, cores, expected):
    monkeypatch.setattr(measure, "usable_cores", lambda: cores)
    counts = measure.default_worker_counts()
    assert counts == expected == measure.default_worker_counts(cores)
    assert counts[-2:] == ([cores + 1, 2 * cores] if cores > 1 else [2, 3])
    assert sum(k > cores for k in counts) == 2                   # two oversubscribed counts on every machine
    assert cores in counts                                       # the prose reads the run "at K = c"
    assert len({k for k in counts if k >= 2}) >= 2               # enough for fit_usl's two coefficients


def test_default_worker_counts_on_this_machine():
    assert measure.default_worker_counts()[0] == 1
    assert 1 <= measure.usable_cores() <= (os.cpu_count() or 1)
    with pytest.raises(ValueError, match="cores"):
        measure.default_worker_counts(0)
    with pytest.raises(ValueError, match="cores"):
        measure.default_worker_counts(2.5)
    with pytest.raises(TypeError, match="cores"):
        measure.default_worker_counts("4")


def test_calibrate_is_checked_and_positive():
    assert measure.calibrate(0.005) >= 1000
    with pytest.raises(ValueError, match="seconds"):
        measure.calibrate(0)


def test_a_tiny_run_has_the_documented_shape():
    result = measure.scaling_run([1, 2], unit_seconds=0.01, repeats=1)
    assert result["workers"] == [1, 2]
    for key in ("strong_seconds", "weak_seconds"):
        assert len(result[key]) == 2 and all(isinstance(t, float) and t > 0 for t in result[key])
    assert result["cpu_count"] == os.cpu_count() and result["iterations"] >= 1000
    assert result["strong_seconds"][0] == result["weak_seconds"][0]    # one worker: the same job, one baseline
    assert result["total_seconds"] >= sum(result["strong_seconds"]) + sum(result["weak_seconds"])


def test_run_arguments_are_checked():
    # every check happens before a process is started or anything is timed
    with pytest.raises(ValueError, match="include 1"):
        measure.scaling_run([2, 4])
    with pytest.raises(ValueError, match="repeats"):
        measure.scaling_run([1], repeats=0)
    with pytest.raises(ValueError, match="worker_counts must be a whole number >= 1; got 2.5"):
        measure.scaling_run([1, 2.5])                  # never silently run as K = 2
    with pytest.raises(ValueError, match="worker_counts must be a whole number >= 1; got 0"):
        measure.scaling_run([1, 0])
    with pytest.raises(TypeError, match="worker_counts"):
        measure.scaling_run(["a"])
    with pytest.raises(TypeError, match="worker_counts"):
        measure.scaling_run("12")
    with pytest.raises(TypeError, match="unit_seconds"):
        measure.scaling_run([1], unit_seconds="x")
    with pytest.raises(ValueError, match="unit_seconds must be > 0"):
        measure.scaling_run([1], unit_seconds=-1)
    with pytest.raises(ValueError, match="unit_seconds must be between"):
        measure.scaling_run([1], unit_seconds=1e-6)
    with pytest.raises(TypeError, match="unit_seconds"):
        measure.scaling_run([1], unit_seconds=[0.1, 0.2])
    with pytest.raises(TypeError, match="seconds"):
        measure.calibrate("0.1")


def test_worker_counts_are_measured_in_order_each_once():
    result = measure.scaling_run([2, 1, 2.0], unit_seconds=0.005, repeats=1)
    assert result["workers"] == [1, 2] and len(result["strong_seconds"]) == 2
