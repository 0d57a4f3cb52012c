"""Timing kernels on this machine, each a few tenths of a second (Sections 3.7 and 3.8).

* **Memory bandwidth**: :func:`bandwidth_samples` times ``c = a + b`` with
  numpy, repeatedly, on arrays far larger than the caches (a kernel like the
  *add* of McCalpin's STREAM benchmark), counting 3 x 8 bytes per element;
  :func:`bandwidth_timings` keeps the best time at each of several sizes.
* **Compute rate**: ``matmul_timings`` times square float64 matrix
  multiplies (``2 n**3`` FLOPs each) in numpy's BLAS.
* **Kernels on the roof**: :func:`kernel_runs` times the kernels of Section 3.7.2.
* **The time to add, per byte**: :func:`reduction_time_per_byte`, numpy's time
  per byte to add two vectors, a check on the gamma that MPI's own reduction
  shows in Section 3.8.

Each timing is the best of several repeats (:func:`best_time`). Setting
:data:`MEASURE_ENV` to ``quick`` caps every measurement at :data:`QUICK_REPEATS`
repeats (``make nbval`` does).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import numpy as np

from .._validate import (
    check_whole,
    single_whole,
)
from .fits import KernelRun, Timings

__all__ = [
    "best_time",
    "bandwidth_timings",
    "bandwidth_samples",
    "matmul_timings",
    "kernel_runs",
    "reduction_time_per_byte",
]


#: Set to ``quick`` (``make nbval`` does) to cap every measurement of this module and of the MPI labs
#: (:mod:`scalinglib.labs`) at two repeats: the same code runs end to end, and its numbers are rough.
MEASURE_ENV = "SCALINGLIB_MEASURE"
QUICK_REPEATS = 2


def quick_measurements() -> bool:
    """Whether the environment asks for quick measurements (:data:`MEASURE_ENV` is ``quick``)."""
    return os.environ.get(MEASURE_ENV) == "quick"


def _repeats(repeats: int) -> int:
    """``repeats``, or at most :data:`QUICK_REPEATS` when the environment asks for quick measurements."""
    return min(repeats, QUICK_REPEATS) if quick_measurements() else repeats


# --- timing helpers -----------------------------------------------------------------------------


def best_time(func: Callable[[], object], repeats: int = 5, number: int = 1) -> float:
    """Best (smallest) mean time of ``number`` calls of ``func``, over ``repeats`` batches.

    Parameters
    ----------
    func : callable
        Called with no arguments.
    repeats : int, optional
        Batches, whole >= 1 (default 5).
    number : int, optional
        Calls per batch, whole >= 1 (default 1).

    Returns
    -------
    float
        Seconds per call.

    Examples
    --------
    >>> best_time(lambda: sum(range(100)), repeats=3, number=10) > 0
    True
    """
    if not callable(func):
        raise TypeError(f"func must be callable; got {type(func).__name__}")
    r = _repeats(int(check_whole("repeats", repeats)))
    k = int(check_whole("number", number))
    best = float("inf")
    for _ in range(r):
        start = time.perf_counter()
        for _ in range(k):
            func()
        best = min(best, (time.perf_counter() - start) / k)
    return best


def _sizes(name: str, values, minimum: int = 1) -> list[int]:
    arr = check_whole(name, values, minimum)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty list of sizes")
    return [int(v) for v in arr]


# --- Section 3.7: bandwidth, FLOP/s and kernels ---------------------------------------------------


def bandwidth_timings(elements=(2**22, 3 * 2**21, 2**23), repeats=5) -> Timings:
    """Time ``c = a + b`` on float64 arrays of each length; the amount is the bytes moved.

    Each element reads two numbers and writes one: 24 bytes. The arrays are
    written once before timing so that the operating system has mapped every
    page. Use lengths whose three arrays are far larger than the last-level
    cache (the default's arrays hold 32 to 64 MiB each).

    Parameters
    ----------
    elements : sequence of int, optional
        Array lengths, whole >= 1.
    repeats : int, optional
        Timed runs per length; the best is kept.

    Returns
    -------
    Timings
        ``amount`` in bytes per call, ``seconds`` per call.

    Examples
    --------
    >>> t = bandwidth_timings(elements=[1000, 2000], repeats=2)
    >>> t.amount.tolist()
    [24000.0, 48000.0]
    """
    sizes = _sizes("elements", elements)
    seconds = []
    for n in sizes:
        a = np.full(n, 1.0)
        b = np.full(n, 2.0)
        c = np.empty(n)
        np.add(a, b, out=c)
        seconds.append(best_time(lambda a=a, b=b, c=c: np.add(a, b, out=c), repeats))
        del a, b, c
    return Timings(24.0 * np.array(sizes, dtype=float), np.array(seconds))


def bandwidth_samples(elements=2**23, repeats=9, number=1) -> Timings:
    """Time ``c = a + b`` on float64 arrays of one length, ``repeats`` times, and keep every timing.

    The amount is the bytes the add is charged, 24 per element (two numbers
    read, one written), as STREAM counts them. The arrays are written once
    before timing so that the operating system has mapped every page. Pass the
    result to :func:`rate_spread` for the best, median and slowest bandwidth.
    The default (three arrays of 64 MiB, nine timings) takes a few tenths of a
    second.

    Parameters
    ----------
    elements : int, optional
        Array length, whole >= 1 (default 2**23).
    repeats : int, optional
        Timings, whole >= 1 (default 9).
    number : int, optional
        Calls per timing, whole >= 1 (default 1); each timing is their mean.

    Returns
    -------
    Timings
        ``amount`` in bytes per call (the same for every timing) and
        ``seconds`` per call, one entry per timing, in the order taken.

    Examples
    --------
    >>> t = bandwidth_samples(elements=1000, repeats=3)
    >>> t.amount.tolist(), t.seconds.shape
    ([24000.0, 24000.0, 24000.0], (3,))
    """
    n = single_whole("elements", elements)
    r = _repeats(single_whole("repeats", repeats))
    k = single_whole("number", number)
    a, b, c = np.full(n, 1.0), np.full(n, 2.0), np.empty(n)
    np.add(a, b, out=c)
    seconds = []
    for _ in range(r):
        start = time.perf_counter()
        for _ in range(k):
            np.add(a, b, out=c)
        seconds.append((time.perf_counter() - start) / k)
    return Timings(np.full(r, 24.0 * n), np.array(seconds))


def matmul_timings(sizes=(512, 768, 1024), repeats=5, seed=0) -> Timings:
    """Time square float64 matrix multiplies ``C = A @ B``; the amount is ``2 n**3`` FLOPs.

    Parameters
    ----------
    sizes : sequence of int, optional
        Matrix orders n, whole >= 1.
    repeats : int, optional
        Timed runs per size; the best is kept.
    seed : int, optional
        Seed of the random matrices.

    Returns
    -------
    Timings
        ``amount`` in FLOPs per call, ``seconds`` per call.

    Examples
    --------
    >>> t = matmul_timings(sizes=[8, 16], repeats=2)
    >>> t.amount.tolist()
    [1024.0, 8192.0]
    """
    orders = _sizes("sizes", sizes)
    rng = np.random.default_rng(seed)
    seconds = []
    for n in orders:
        a, b = rng.random((n, n)), rng.random((n, n))
        c = np.empty((n, n))
        np.matmul(a, b, out=c)
        seconds.append(best_time(lambda a=a, b=b, c=c: np.matmul(a, b, out=c), repeats))
    return Timings(2.0 * np.array(orders, dtype=float) ** 3, np.array(seconds))


def _number_for(flops: float, guess_rate: float = 2e10, target: float = 2e-3) -> int:
    """Calls per timed batch so that a batch lasts about ``target`` seconds at ``guess_rate``."""
    return int(min(10_000, max(1, target * guess_rate / max(flops, 1.0))))


def _time_vector_add(n, repeats, rng):
    x, y, out = rng.random(n), rng.random(n), np.empty(n)
    np.add(x, y, out=out)
    return KernelRun("vector add", float(n), 24.0 * n, best_time(lambda: np.add(x, y, out=out), repeats))


def _time_axpy(n, repeats, rng):
    x, y, out = rng.random(n), rng.random(n), np.empty(n)

    def axpy():
        np.multiply(x, 3.0, out=out)     # pass 1: read x, write the temporary
        np.add(out, y, out=out)          # pass 2: read the temporary and y, write the result

    axpy()
    return KernelRun("a*x + y (two passes)", 2.0 * n, 40.0 * n, best_time(axpy, repeats))


def _time_matvec(m, repeats, rng):
    mat, vec, res = rng.random((m, m)), rng.random(m), np.empty(m)
    np.matmul(mat, vec, out=res)
    return KernelRun(f"matrix-vector {m}", 2.0 * m * m, 8.0 * (m * m + 2 * m),
                     best_time(lambda: np.matmul(mat, vec, out=res), repeats))


def _time_matmul(k, repeats, rng):
    a, b, c = rng.random((k, k)), rng.random((k, k)), np.empty((k, k))
    np.matmul(a, b, out=c)
    flops = 2.0 * k**3
    seconds = best_time(lambda: np.matmul(a, b, out=c), repeats, _number_for(flops, target=5e-3))
    return KernelRun(f"matmul {k}", flops, 24.0 * k * k, seconds)


def kernel_runs(vector_elements=2**23, matvec_order=4096, matmul_orders=(64, 256, 1024), repeats=5, seed=0):
    """Time a few numpy kernels with known FLOP and byte counts, for an empirical roofline.

    * ``vector add``: ``c = a + b``, 1 FLOP and 24 bytes per element;
    * ``a*x + y (two passes)``: numpy computes ``t = a * x`` and then
      ``t += y``: 2 FLOPs, but 40 bytes per element, because the temporary
      ``t`` goes to memory and back;
    * ``matrix-vector``: ``y = A @ x``, ``2 n**2`` FLOPs, ``8 (n**2 + 2 n)`` bytes;
    * ``matmul n``: ``2 n**3`` FLOPs, ``8 x 3 n**2`` bytes.

    Byte counts are compulsory traffic in float64 (8 bytes per number).

    Parameters
    ----------
    vector_elements : int, optional
        Length of the vectors of the first two kernels (default 2**23, 64 MiB each).
    matvec_order : int, optional
        Order of the matrix-vector product's matrix (default 4096, 128 MiB).
    matmul_orders : sequence of int, optional
        Orders of the square matrix multiplies.
    repeats : int, optional
        Timed batches per kernel; the best is kept.
    seed : int, optional
        Seed of the random inputs.

    Returns
    -------
    list of KernelRun

    Examples
    --------
    >>> runs = kernel_runs(vector_elements=1000, matvec_order=50, matmul_orders=[8], repeats=1)
    >>> [r.name for r in runs]
    ['vector add', 'a*x + y (two passes)', 'matrix-vector 50', 'matmul 8']
    >>> runs[0].intensity
    0.041666666666666664
    """
    n = int(check_whole("vector_elements", vector_elements))
    m = int(check_whole("matvec_order", matvec_order))
    orders = _sizes("matmul_orders", matmul_orders)
    r = int(check_whole("repeats", repeats))
    rng = np.random.default_rng(seed)
    runs = [_time_vector_add(n, r, rng), _time_axpy(n, r, rng), _time_matvec(m, r, rng)]
    runs += [_time_matmul(k, r, rng) for k in orders]
    return runs


# --- Section 3.8: the time to add, per byte ------------------------------------------------------


def reduction_time_per_byte(nbytes=2**18, repeats=20) -> float:
    """gamma: seconds per byte to add one float32 vector of ``nbytes`` bytes into another with numpy.

    Parameters
    ----------
    nbytes : int, optional
        Vector size in bytes, a whole multiple of 4 (default 256 KiB).
    repeats : int, optional
        Timed runs; the best is kept.

    Returns
    -------
    float
        Seconds per byte of the vector.

    Examples
    --------
    >>> reduction_time_per_byte(4096, repeats=3) > 0
    True
    """
    n = int(check_whole("nbytes", nbytes, 4))
    if n % 4:
        raise ValueError(f"nbytes must be a whole multiple of 4 (float32 elements); got {n}")
    a = np.ones(n // 4, np.float32)
    b = np.ones(n // 4, np.float32)
    c = np.empty_like(a)
    return best_time(lambda: np.add(a, b, out=c), repeats, _number_for(n, 1e10)) / n
