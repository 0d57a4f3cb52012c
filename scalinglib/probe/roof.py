"""The roof of the reader's machine, at one thread count (Section 3.7.5).

``machine_roof`` times the *add* of McCalpin's STREAM benchmark on ``k``
pinned threads (:func:`stream_add`), on arrays of at least
:data:`STREAM_FACTOR` times the last-level cache each
(:func:`scalinglib.probe.last_level_cache`, :func:`stream_elements`), and a
square float64 multiply whose maths library runs ``k`` threads too, so that P
and B belong to the same thread count. ``with_threads`` runs a measurement
in a fresh Python whose maths library uses a given number of threads.
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._validate import (
    check_positive,
    single,
    single_whole,
)
from .cpus import _smt_groups, last_level_cache
from .fits import Timings, best_rate
from .timing import _repeats, matmul_timings

__all__ = [
    "with_threads",
    "STREAM_FACTOR",
    "stream_elements",
    "stream_add",
    "matmul_order_for",
    "MachineRoof",
    "machine_roof",
]


#: Each array of the bandwidth kernel holds at least this many times the last-level cache (STREAM's rule).
STREAM_FACTOR = 4


def stream_elements(cache_bytes, factor=STREAM_FACTOR, minimum=2**20) -> int:
    """Length of each float64 array of the bandwidth kernel: ``factor`` times the cache, rounded up.

    STREAM asks for arrays of at least four times the summed last-level caches each, so that no
    array, and no pair of them, stays in a cache between two passes. The length is rounded up to a
    multiple of 2**16 elements (512 KiB), so that threads get equal chunks of whole pages.

    Parameters
    ----------
    cache_bytes : float
        Last-level cache in bytes, > 0 (:func:`last_level_cache`'s ``total_bytes``).
    factor : float, optional
        Array size over cache size, >= 1 (default 4).
    minimum : int, optional
        Fewest elements, whole >= 1 (default 2**20, 8 MiB).

    Returns
    -------
    int
        Elements per array.

    Examples
    --------
    >>> stream_elements(32 * 2**20) * 8 / 2**20     # a 32 MiB cache: 128 MiB per array
    128.0
    """
    c = single(check_positive, "cache_bytes", cache_bytes)
    f = single(check_positive, "factor", factor)
    if f < 1:
        raise ValueError(f"factor must be >= 1 (arrays at least as large as the cache); got {f:g}")
    low = single_whole("minimum", minimum)
    n = max(low, math.ceil(f * c / 8.0))
    return int(-(-n // 2**16) * 2**16)


def _pin_order() -> list[int | None]:
    """CPUs to pin threads to, one per physical core first, then the SMT siblings; [None] if unknown."""
    try:
        mask = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return [None]
    groups = _smt_groups(mask) or [frozenset({cpu}) for cpu in mask]
    firsts = [min(g) for g in groups]
    return firsts + [cpu for g in groups for cpu in sorted(g) if cpu != min(g)]


def stream_add(elements, threads=1, repeats=9, pin=True) -> Timings:
    """Time STREAM's *add*, ``c = a + b`` on float64 arrays, with ``threads`` threads, each on its own chunk.

    Every thread writes its chunk of the three arrays first (so its pages are mapped, and placed
    near it on a machine with several memory nodes), then all add their chunks together, started by
    one barrier and timed until the last one finishes. numpy releases the interpreter's lock while
    it adds, so the threads run in parallel. Each thread is pinned to a CPU of the process's
    affinity mask, one per physical core first, when ``pin`` and the system allow.

    The amount is what STREAM charges: 24 bytes per element, two numbers read and one written.
    With ordinary stores the processor also reads each line of ``c`` before writing it
    (write-allocate), so the memory moves 32 bytes per element; STREAM does not count that read,
    and neither does this function.

    Parameters
    ----------
    elements : int
        Length of each array, whole >= threads (:func:`stream_elements`).
    threads : int, optional
        Threads, whole, 1 to 1024 (default 1).
    repeats : int, optional
        Timings, whole >= 1 (default 9; at most 2 under ``SCALINGLIB_MEASURE=quick``).
    pin : bool, optional
        Pin each thread to a CPU (default True).

    Returns
    -------
    Timings
        ``amount`` (24 bytes per element, the same for every timing) and ``seconds``, one per timing.

    Examples
    --------
    >>> t = stream_add(4096, threads=2, repeats=3)
    >>> t.amount.tolist(), t.seconds.shape
    ([98304.0, 98304.0, 98304.0], (3,))
    """
    n = single_whole("elements", elements)
    k = single_whole("threads", threads, 1, 1024)
    if k > n:
        raise ValueError(f"elements must be at least threads ({k}) to give each thread a chunk; got {n}")
    r = _repeats(single_whole("repeats", repeats))
    a, b, c = np.empty(n), np.empty(n), np.empty(n)
    bounds = [n * i // k for i in range(k + 1)]
    targets = _pin_order() if pin else [None]
    start, done = threading.Barrier(k + 1), threading.Barrier(k + 1)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            cpu = targets[i % len(targets)]
            if cpu is not None and hasattr(os, "sched_setaffinity"):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, {cpu})
            lo, hi = bounds[i], bounds[i + 1]
            a[lo:hi], b[lo:hi], c[lo:hi] = 1.0, 2.0, 0.0
            np.add(a[lo:hi], b[lo:hi], out=c[lo:hi])
            for _ in range(r):
                start.wait()
                np.add(a[lo:hi], b[lo:hi], out=c[lo:hi])
                done.wait()
        except threading.BrokenBarrierError:
            pass
        except BaseException as error:      # reported by the caller below
            errors.append(error)
            start.abort()
            done.abort()

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(k)]
    for w in workers:
        w.start()
    seconds = []
    try:
        for _ in range(r):
            start.wait()
            t0 = time.perf_counter()
            done.wait()
            seconds.append(time.perf_counter() - t0)
    except threading.BrokenBarrierError:
        pass
    for w in workers:
        w.join()
    if errors or len(seconds) != r:
        raise RuntimeError(f"stream_add with {k} threads failed: {errors[0] if errors else 'a thread stopped'}")
    return Timings(np.full(r, 24.0 * n), np.array(seconds))


def matmul_order_for(threads) -> int:
    """Order of the square multiply that measures the peak with ``threads`` threads: ``1024
    threads**(1/3)`` rounded to the nearest multiple of 256, so each thread has about a 1024-cubed
    multiply's work.

    Examples
    --------
    >>> [matmul_order_for(k) for k in (1, 2, 8, 56)]
    [1024, 1280, 2048, 3840]
    """
    k = single_whole("threads", threads, 1, 1024)
    return int(256 * round(1024 * k ** (1 / 3) / 256))


class MachineRoof(NamedTuple):
    """One measurement of the machine's roof, with P and B taken at the same thread count."""

    threads: int  #: threads of both kernels
    peak_flops: float  #: P: best FLOP/s of the square float64 multiply
    bandwidth: float  #: B: best bytes/s of STREAM's add, counted as STREAM counts (24 bytes per element)
    elements: int  #: length of each of the add's three arrays
    matmul_order: int  #: order of the multiply

    @property
    def ridge_point(self) -> float:
        """P / B, FLOP/byte."""
        return self.peak_flops / self.bandwidth


def machine_roof(threads=1, elements=None, matmul_order=None, repeats=5) -> MachineRoof:
    """Measure the roof at one thread count: STREAM's add on ``threads`` threads and a square float64
    multiply whose maths library uses the same number of threads.

    Run it through ``with_threads`` (``with_threads(k, "machine_roof", threads=k)``) so that the
    maths library starts with ``k`` threads; called directly, the multiply uses whatever thread
    count the library started with.

    Parameters
    ----------
    threads : int, optional
        Threads of the add, whole, 1 to 1024 (default 1).
    elements : int, optional
        Length of each array of the add (default: :func:`stream_elements` of :func:`last_level_cache`).
    matmul_order : int, optional
        Order of the multiply (default :func:`matmul_order_for` ``threads``).
    repeats : int, optional
        Timings of each kernel; the best of each is kept (default 5; the add gets twice as many).

    Returns
    -------
    MachineRoof

    Examples
    --------
    >>> roof = machine_roof(1, elements=4096, matmul_order=32, repeats=2)
    >>> roof.threads, roof.elements, roof.matmul_order, roof.peak_flops > 0
    (1, 4096, 32, True)
    """
    k = single_whole("threads", threads, 1, 1024)
    n = stream_elements(last_level_cache().total_bytes) if elements is None else single_whole("elements", elements)
    order = matmul_order_for(k) if matmul_order is None else single_whole("matmul_order", matmul_order)
    r = single_whole("repeats", repeats)
    add = stream_add(n, k, repeats=2 * r)
    mm = matmul_timings([order], repeats=r)
    return MachineRoof(k, best_rate(mm.amount, mm.seconds), best_rate(add.amount, add.seconds), n, order)


#: The environment variables that fix the thread count of the usual maths libraries when Python starts:
#: OpenBLAS (numpy's wheels), OpenMP, MKL, BLIS and Apple's Accelerate.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS")
_CHILD_MEASUREMENTS = ("bandwidth_samples", "matmul_timings", "kernel_runs", "machine_roof")
# The child loads scalinglib.probe and _validate only: the library's directory is registered as a bare package,
# so its __init__ (which imports the figures, matplotlib and the rest, most of a second) does not run.
_CHILD = ("import pickle, sys, types\n"
          "package = types.ModuleType('scalinglib')\n"
          "package.__path__ = [sys.argv[1]]\n"
          "sys.modules['scalinglib'] = package\n"
          "from scalinglib import probe\n"
          "name, kwargs = pickle.loads(sys.stdin.buffer.read())\n"
          "sys.stdout.buffer.write(pickle.dumps(getattr(probe, name)(**kwargs)))\n")


def with_threads(threads: int, measurement: str, /, **kwargs):
    """Run one of the probe's measurements in a fresh Python whose maths library uses ``threads`` threads.

    A maths library (numpy's OpenBLAS, or MKL, BLIS, Accelerate) reads its thread
    count once, when it loads, from environment variables such as
    ``OPENBLAS_NUM_THREADS``; left alone it starts one thread per CPU it sees,
    which in a container with a CPU quota is more than the quota grants. So the
    measurement runs in a child process started with every variable of
    :data:`THREAD_VARIABLES` set to ``threads``. numpy's element-wise kernels
    (the add) use one thread whatever the setting.

    Parameters
    ----------
    threads : int
        Threads of the maths library, whole, 1 to 1024.
    measurement : str
        ``"matmul_timings"``, ``"kernel_runs"``, ``"bandwidth_samples"`` or ``"machine_roof"``
        (whose ``threads`` defaults to the same count).
    **kwargs
        Passed to the measurement.

    Returns
    -------
    What the measurement returns (:class:`Timings`, a list of :class:`KernelRun`, or a :class:`MachineRoof`).

    Examples
    --------
    >>> t = with_threads(1, "matmul_timings", sizes=[8, 16], repeats=1)
    >>> t.amount.tolist()
    [1024.0, 8192.0]
    """
    k = single_whole("threads", threads, 1, 1024)
    if measurement not in _CHILD_MEASUREMENTS:
        raise ValueError(f"measurement must be one of {', '.join(_CHILD_MEASUREMENTS)}; got {measurement!r}")
    if measurement == "machine_roof":
        kwargs.setdefault("threads", k)             # the add runs on as many threads as the maths library
    env = dict(os.environ, **{name: str(k) for name in THREAD_VARIABLES})
    package = str(Path(__file__).resolve().parent.parent)     # the scalinglib directory
    done = subprocess.run([sys.executable, "-c", _CHILD, package], input=pickle.dumps((measurement, kwargs)),
                          capture_output=True, env=env, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{measurement} with {k} threads failed: {done.stderr.decode(errors='replace')[-500:]}")
    return pickle.loads(done.stdout)
