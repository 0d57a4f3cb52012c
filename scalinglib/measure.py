"""A real scaling measurement on the reader's own machine: one CPU-bound kernel on 1, 2, ... processes (Section 3.5).

The kernel is a pure-Python integer loop, so it keeps one core busy, touches
almost no memory and cannot be sped up by threads (the interpreter lock) or by
a library using several cores behind our back. Worker processes from
:class:`concurrent.futures.ProcessPoolExecutor` run copies of it:

* **strong scaling**: a fixed total number of iterations, split evenly over K processes;
* **weak scaling**: a fixed number of iterations *per process*, so K processes do K times the work.

The pool is started and warmed up before any timing, so process start-up is
not measured; what is measured is the wall-clock time from handing out the
tasks to collecting the last result. Each configuration is timed several
times, interleaved with the others, and the fastest run is kept (the one least
disturbed by whatever else the machine was doing). On one worker the strong and
the weak job are the same job, so their runs are pooled for the common baseline T(1).

Everything returned is plain Python numbers. Run times vary from machine to
machine and from run to run; the functions that analyse them (speedup,
Karp-Flatt, the fits) are tested on synthetic data instead.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor

from ._validate import check_choice, check_positive, check_size, check_whole, public, single, single_whole

__all__ = ["spin", "usable_cores", "calibrate", "default_worker_counts", "time_tasks", "max_workers", "scaling_run"]


def spin(iterations: int) -> int:
    """The CPU-bound kernel: ``iterations`` steps of a linear congruential generator.

    Pure Python on purpose: one core, no memory traffic to speak of, and a
    result that depends on every step so nothing can be skipped. Module-level
    so that worker processes can receive it.

    Examples
    --------
    >>> spin(3)
    1449466924
    """
    x = 12345
    for _ in range(iterations):
        x = (1103515245 * x + 12345) & 0x7FFFFFFF
    return x


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system reports it, else ``os.cpu_count()``)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def calibrate(seconds: float = 0.1) -> int:
    """Number of :func:`spin` iterations that take about ``seconds`` on one core of this machine.

    Times a short trial, then scales it (best of three trials).
    """
    seconds = single(check_positive, "seconds", seconds)
    if not 0.001 <= seconds <= 60:
        raise ValueError(f"seconds must be between 0.001 and 60; got {seconds!r}")
    trial = 50_000
    best = min(_timed(spin, trial) for _ in range(3))
    return max(1000, int(trial * seconds / best))


def _timed(func, *args) -> float:
    start = time.perf_counter()
    func(*args)
    return time.perf_counter() - start


def default_worker_counts(cores: int | None = None) -> list[int]:
    """Worker counts worth measuring: 1 up to the cores (at most 8), the core count itself, then one past
    the cores and twice the cores.

    The counts past the core count show what oversubscription does: more
    processes than cores buy nothing. On a machine with more than 8 cores the
    counts below the cores stop at 8 (to keep the run short), but the core count
    itself and the two oversubscribed counts still use the real core count, so
    every machine is measured at K = c. There are always at least three distinct
    counts, so that the two-coefficient fits of Section 3.5 have two counts of 2
    or more to work with: one core gives ``[1, 2, 3]``.

    Parameters
    ----------
    cores : int, optional
        The core count c, a whole number >= 1; :func:`usable_cores` when omitted.

    Returns
    -------
    list of int
        ``[1, 2, ..., min(c, 8)]`` followed by ``c``, ``c + 1`` and ``2 c``, sorted, each once.

    Raises
    ------
    ValueError
        If ``cores`` is not a whole number >= 1.

    Examples
    --------
    >>> default_worker_counts(1)
    [1, 2, 3]
    >>> default_worker_counts(2)
    [1, 2, 3, 4]
    >>> default_worker_counts(16)
    [1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 32]
    """
    c = usable_cores() if cores is None else single_whole("cores", cores)
    counts = set(range(1, min(c, 8) + 1)) | {c, c + 1, 2 * c}
    if len(counts) < 3:            # one core: 1, and c + 1 = 2 c = 2; add a third count
        counts.add(c + 2)
    return sorted(counts)


def time_tasks(executor, tasks: list[int]) -> float:
    """Wall-clock seconds for ``executor`` to run :func:`spin` once per entry of ``tasks`` (iterations each)."""
    start = time.perf_counter()
    futures = [executor.submit(spin, n) for n in tasks]
    for future in futures:
        future.result()
    return time.perf_counter() - start


def _split(total: int, parts: int) -> list[int]:
    """``total`` iterations in ``parts`` nearly equal whole shares."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _pool(max_workers: int, start_method: str | None):
    if start_method is None:
        # fork is fastest (the children need not import anything) and safe here: the children only run spin()
        start_method = "fork" if sys.platform.startswith("linux") else "spawn"
    with warnings.catch_warnings():   # Python 3.12+ warns about fork in a process with threads (Jupyter's)
        warnings.simplefilter("ignore", DeprecationWarning)
        context = multiprocessing.get_context(start_method)
        return ProcessPoolExecutor(max_workers=max_workers, mp_context=context)


#: Timings per configuration :func:`scaling_run` takes at most.
MAX_REPEATS = 100
#: The longest measurement :func:`scaling_run` starts, in seconds (its own estimate).
MAX_SECONDS = 300


def max_workers() -> int:
    """The most worker processes :func:`scaling_run` starts: 64, or twice the cores plus two if more."""
    return max(64, 2 * usable_cores() + 2)


@public
def scaling_run(worker_counts=None, unit_seconds: float = 0.1, repeats: int = 4, start_method=None) -> dict:
    """Time the kernel for strong and weak scaling on this machine.

    Parameters
    ----------
    worker_counts : list of int, optional
        The K to measure, whole numbers >= 1 including 1 (measured in increasing
        order, each once); :func:`default_worker_counts` when omitted. At most
        :func:`max_workers` (64 on a machine of up to 31 cores): each K starts
        that many processes.
    unit_seconds : float
        Single-core time of one unit of work, between 0.001 and 60 seconds (the
        whole strong-scaling job, and each process's share in weak scaling). The total run takes roughly
        ``repeats * unit_seconds * (sum over K of (1/K + K)) / cores`` plus a little.
    repeats : int
        Timings per configuration, 1 to 100; the fastest is kept. The run's
        estimated length (above) may be at most 300 seconds.
    start_method : str, optional
        multiprocessing start method; ``fork`` on Linux and ``spawn`` elsewhere by default.

    Returns
    -------
    dict
        ``workers`` (list of K), ``strong_seconds`` and ``weak_seconds`` (lists of
        the best time at each K), ``iterations`` (the unit of work), ``cpu_count``
        (``os.cpu_count()``), ``usable_cores``, ``repeats`` and ``total_seconds``
        (the whole measurement, start-up included).

    Raises
    ------
    ValueError
        If a worker count is not a whole number >= 1, 1 is missing, ``repeats``
        is not a whole number >= 1 or ``unit_seconds`` is out of range.
    TypeError
        If a worker count or ``unit_seconds`` is not a number.
    """
    started = time.perf_counter()
    most = max_workers()
    if worker_counts is None:
        ks = default_worker_counts()
    else:
        counts = check_whole("worker_counts", worker_counts, maximum=most,
                             why=f"processes this machine's {usable_cores()} cores can usefully run")
        if counts.ndim != 1 or 1 not in counts:
            raise ValueError(f"worker_counts must be a flat list of whole numbers >= 1 and include 1; got {worker_counts!r}")
        ks = sorted({int(k) for k in counts})
    if not (isinstance(repeats, int) and not isinstance(repeats, bool) and 1 <= repeats <= MAX_REPEATS):
        raise ValueError(f"repeats must be a whole number from 1 to {MAX_REPEATS}; got {repeats!r}")
    unit_seconds = single(check_positive, "unit_seconds", unit_seconds)
    if not 0.001 <= unit_seconds <= 60:
        raise ValueError(f"unit_seconds must be between 0.001 and 60 seconds; got {unit_seconds!r}")
    if start_method is not None:
        start_method = check_choice("start_method", start_method, multiprocessing.get_all_start_methods())
    estimate = repeats * unit_seconds * sum(1 / k + k for k in ks) / usable_cores()
    check_size("repeats x unit_seconds x worker_counts", estimate, MAX_SECONDS,
               "seconds a notebook cell may reasonably measure", "seconds of measurement, about")
    unit = calibrate(unit_seconds)
    strong = {k: float("inf") for k in ks}
    weak = {k: float("inf") for k in ks}
    with _pool(max(ks), start_method) as pool:
        # start every worker process before timing anything: each warm-up task sleeps, so none is reused
        list(pool.map(time.sleep, [0.05] * max(ks)))
        for _ in range(repeats):
            for k in ks:
                strong[k] = min(strong[k], time_tasks(pool, _split(unit, k)))
                weak[k] = min(weak[k], time_tasks(pool, [unit] * k))
    # on one worker the strong and the weak job are the same job: both baselines take the best of all its runs
    strong[1] = weak[1] = min(strong[1], weak[1])
    return {
        "workers": ks,
        "strong_seconds": [strong[k] for k in ks],
        "weak_seconds": [weak[k] for k in ks],
        "iterations": unit,
        "cpu_count": os.cpu_count(),
        "usable_cores": usable_cores(),
        "repeats": repeats,
        "total_seconds": time.perf_counter() - started,
    }
