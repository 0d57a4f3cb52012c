r"""Measure the reader's own machine, and fit the models of Sections 3.7 and 3.8 to the timings.

Section 3.7.5's roof of the reader's machine is :func:`machine_roof`, run through :func:`with_threads`: the
*add* of McCalpin's STREAM benchmark on ``k`` pinned threads (:func:`stream_add`), on arrays of at least four
times the last-level cache each (:func:`last_level_cache`, :func:`stream_elements`), and a square float64
multiply whose maths library runs ``k`` threads too, so that P and B belong to the same thread count.
:func:`value_spread` reads the best and the spread off repeated roofs.

The simpler measurements it grew from, each a few tenths of a second:

* **Memory bandwidth**: :func:`bandwidth_samples` times ``c = a + b`` with
  numpy, repeatedly, on arrays far larger than the caches (a kernel like the
  *add* of McCalpin's STREAM benchmark), counting 3 x 8 bytes per element;
  :func:`rate_spread` reads the best, median and slowest rate off the repeats.
  :func:`bandwidth_timings` keeps the best time at each of several sizes.
* **Compute rate**: :func:`matmul_timings` times square float64 matrix
  multiplies (``2 n**3`` FLOPs each) in numpy's BLAS.
* **How many CPUs**: :func:`cpu_info` reads the CPUs this process may use from
  its affinity mask and its cgroup's CPU quota (containers, CI runners, Binder,
  Kubernetes), and the SMT siblings from ``/sys``; :func:`cpu_count` is its
  short form.

Messages and collectives between processes (Section 3.8) and strong and weak
scaling (Section 3.5) are measured with MPI, in :mod:`scalinglib.labs`. This
module keeps :func:`reduction_time_per_byte`, numpy's time per byte to add two
vectors, as a check on the gamma that MPI's own reduction shows there.

Every timing is the best of several repeats: on a shared machine, noise only
ever makes a run slower, so the minimum is the least disturbed estimate. The
spread over the repeats says how disturbed the machine was.

The fits are plain functions, tested on synthetic data:

* :func:`fit_rate` fits ``t = t0 + amount / rate`` (bandwidth from bytes,
  FLOP/s from FLOPs);
* :func:`fit_alpha_beta` fits ``t = alpha + n beta`` to message times;
* :func:`best_rate` reads the highest rate off a set of timings (a roofline's
  ceilings are the best the machine was seen to do), and :func:`rate_spread`
  the best, median and slowest.

A fit resolves the overhead ``t0`` only if the sizes span a range wide enough
that ``t0`` is a sizeable part of the smallest time. For memory bandwidth that
range is not available: arrays small enough for the call's fixed cost to
matter fit in the caches and measure a different bandwidth. Section 3.7.5 therefore
reads its bandwidth as the best rate over repeats of one kernel at one size, sized from the cache.

The two fits minimise *relative* residuals, so the small sizes, whose times are
microseconds, count as much as the large ones; without that, a least-squares
line through times spanning four decades is decided by its largest points and
its intercept is noise.
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
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._validate import (
    as_float_array,
    check_nonnegative,
    check_positive,
    check_whole,
    checked_record,
    least_squares,
    public,
    single,
    single_whole,
)

__all__ = [
    "Timings",
    "RateFit",
    "AlphaBeta",
    "KernelRun",
    "fit_rate",
    "fit_alpha_beta",
    "best_rate",
    "RateSpread",
    "rate_spread",
    "best_time",
    "CpuInfo",
    "cgroup_cpu_quota",
    "cpu_info",
    "cpu_count",
    "bandwidth_timings",
    "bandwidth_samples",
    "matmul_timings",
    "kernel_runs",
    "with_threads",
    "CacheInfo",
    "FALLBACK_CACHE_BYTES",
    "STREAM_FACTOR",
    "last_level_cache",
    "stream_elements",
    "stream_add",
    "matmul_order_for",
    "MachineRoof",
    "machine_roof",
    "value_spread",
    "reduction_time_per_byte",
]


class Timings(NamedTuple):
    """Best time per call for each size measured."""

    amount: np.ndarray  #: bytes (or FLOPs) handled by one call, per size
    seconds: np.ndarray  #: best seconds per call, per size


def _check_rate_fit(fit) -> tuple[float, float]:
    return single(check_nonnegative, "overhead", fit.overhead), single(check_positive, "rate", fit.rate)


@checked_record(_check_rate_fit)
class RateFit(NamedTuple):
    """``t = overhead + amount / rate`` (overhead finite and >= 0, rate finite and > 0)."""

    overhead: float  #: seconds per call that do not depend on the amount
    rate: float  #: amount per second (bytes/s or FLOP/s)


class RateSpread(NamedTuple):
    """Rates of repeated timings of one measurement: the best, the median and the slowest."""

    best: float  #: highest rate (amount per second): the least disturbed repeat
    median: float  #: median rate over the repeats
    worst: float  #: lowest rate
    repeats: int  #: number of timings

    @property
    def spread(self) -> float:
        """How far the slowest repeat fell below the best, as a fraction of the best: ``1 - worst / best``."""
        return 1.0 - self.worst / self.best


def _check_alpha_beta(fit) -> tuple[float, float]:
    alpha = single(check_nonnegative, "alpha", fit.alpha)
    beta = single(check_positive, "beta", fit.beta)     # beta = 0 would be an infinitely fast link
    if beta < 1e-300 or alpha / beta > 1e300:
        raise ValueError(f"beta must be large enough that the bandwidth 1/beta and the half-performance size "
                         f"alpha/beta stay finite; got alpha {alpha:g}, beta {beta:g}")
    return alpha, beta


@checked_record(_check_alpha_beta)
class AlphaBeta(NamedTuple):
    """``t = alpha + n beta`` for one message of n bytes (alpha finite and >= 0, beta finite and > 0)."""

    alpha: float  #: seconds per message
    beta: float  #: seconds per byte

    @property
    def bandwidth(self) -> float:
        """Bytes per second for large messages, ``1 / beta``."""
        return 1.0 / self.beta

    @property
    def half_size(self) -> float:
        """Message size in bytes at which latency and transfer take equally long, ``alpha / beta``."""
        return self.alpha / self.beta


class KernelRun(NamedTuple):
    """One kernel timed on this machine, ready to place on its roofline."""

    name: str
    flops: float  #: operations per call
    nbytes: float  #: compulsory bytes to and from memory per call
    seconds: float  #: best seconds per call

    @property
    def intensity(self) -> float:
        """FLOP per byte."""
        return self.flops / self.nbytes

    @property
    def rate(self) -> float:
        """Measured FLOP/s."""
        return self.flops / self.seconds


# --- fitting ------------------------------------------------------------------------------------


def _series(name_x: str, x, name_t: str, t) -> tuple[np.ndarray, np.ndarray]:
    xs = as_float_array(name_x, x)
    ts = as_float_array(name_t, t)
    if xs.ndim != 1 or ts.ndim != 1:
        raise ValueError(f"{name_x} and {name_t} must be one-dimensional lists of measurements")
    if xs.shape != ts.shape:
        raise ValueError(f"{name_x} and {name_t} must have the same length; got {xs.size} and {ts.size}")
    if np.any(xs < 0):
        raise ValueError(f"{name_x} must be >= 0; got {xs[xs < 0][0]:g}")
    if np.any(ts <= 0):
        raise ValueError(f"{name_t} must be > 0; got {ts[ts <= 0][0]:g}")
    if np.unique(xs).size < 2:
        raise ValueError(f"{name_x} must hold at least two different sizes to fit a line")
    return xs, ts


def _timings(amount, seconds) -> tuple[np.ndarray, np.ndarray]:
    """Amounts and seconds per call, paired (one amount may serve every timing), refused if empty,
    of unequal length, with a negative amount or a time <= 0."""
    t = as_float_array("seconds", seconds).ravel()
    x = as_float_array("amount", amount)
    x = np.full(t.shape, float(x)) if x.ndim == 0 else x.ravel()
    if x.shape != t.shape or x.size == 0:
        raise ValueError(f"amount and seconds must be non-empty and of the same length; got {x.size} and {t.size}")
    if np.any(x < 0):
        raise ValueError(f"amount must be >= 0; got {x[x < 0][0]:g}")
    if np.any(t <= 0):
        raise ValueError(f"seconds must be > 0; got {t[t <= 0][0]:g}")
    return x, t


def _fit_line(x: np.ndarray, t: np.ndarray, names: str = "amount and seconds") -> tuple[float, float]:
    """Intercept >= 0 and slope of t = a + b x, minimising the squared relative residuals."""
    design = np.column_stack([1.0 / t, x / t])          # (a + b x) / t should be 1
    a, b = least_squares(design, np.ones_like(t), names)
    if a < 0:                                          # a negative overhead is noise: refit through 0
        r = x / t
        a, b = 0.0, float(np.sum(r) / np.sum(r * r))
    return float(a), float(b)


def _growing_line(x, t, name, what):
    """The fitted line ``t = a + b x``, refusing a slope that is zero, negative or mere rounding: the
    fitted time of the largest amount, ``b max(x)``, must be at least a millionth of its measured time."""
    a, b = _fit_line(x, t, f"{name} and seconds")
    largest = int(np.argmax(x))
    if b <= 0 or b * x[largest] <= 1e-6 * t[largest]:
        raise ValueError(f"seconds must grow with {name} to give {what}; these timings do not")
    return a, b


@public
def fit_rate(amount, seconds):
    r"""Fit ``t = t0 + amount / rate`` to timings and return the overhead and the rate.

    The fit minimises the squared relative residuals :math:`\sum_i ((t_0 +
    x_i / r - t_i) / t_i)^2`; a negative overhead (noise) is set to zero and
    the rate refitted.

    Parameters
    ----------
    amount : array_like
        Bytes (or FLOPs) per call, >= 0, at least two different values.
    seconds : array_like
        Measured seconds per call, > 0, same length.

    Returns
    -------
    RateFit
        ``overhead`` in seconds and ``rate`` in amount per second.

    Raises
    ------
    ValueError
        Mismatched lengths, fewer than two sizes, non-positive times, or
        times that do not grow with the amount (beyond rounding: the fitted
        time of the largest amount must be at least a millionth of its
        measured time).

    Notes
    -----
    The overhead is only as good as the span of the sizes. Over sizes that
    differ by a factor of two, a few per cent of noise in the times moves the
    fitted ``t0`` by more than the true overhead, and the rate with it (the
    tests show it on synthetic timings); :func:`rate_spread` over repeats at
    one large size is then the better estimate of a rate.

    Examples
    --------
    >>> fit = fit_rate([1e8, 2e8, 4e8], [0.011, 0.021, 0.041])
    >>> round(fit.rate / 1e9, 6), round(fit.overhead * 1e3, 6)
    (10.0, 1.0)
    """
    x, t = _series("amount", amount, "seconds", seconds)
    a, b = _growing_line(x, t, "amount", "a rate")
    return RateFit(a, 1.0 / b)


@public
def fit_alpha_beta(nbytes, seconds):
    r"""Fit the alpha-beta model ``t = alpha + n beta`` to one-way message times.

    Same fit as :func:`fit_rate` (relative residuals, ``alpha >= 0``).

    Parameters
    ----------
    nbytes : array_like
        Message sizes in bytes, >= 0, at least two different values.
    seconds : array_like
        One-way time per message, > 0, same length.

    Returns
    -------
    AlphaBeta
        ``alpha`` (s), ``beta`` (s/B), and the properties ``bandwidth``
        (``1/beta``) and ``half_size`` (``alpha/beta``).

    Raises
    ------
    ValueError
        As for :func:`fit_rate`; and when the fitted transfer time of the
        largest message, ``beta * max(nbytes)``, is below a millionth of its
        measured time: the times do not grow with the size beyond rounding,
        and ``beta`` would be noise.

    Examples
    --------
    >>> n = np.array([8, 1024, 65536, 1048576])
    >>> fit = fit_alpha_beta(n, 10e-6 + n / 2e9)
    >>> round(fit.alpha * 1e6, 6), round(fit.bandwidth / 1e9, 6)
    (10.0, 2.0)
    >>> fit_alpha_beta([8, 16], [1e-6, 1e-6])
    Traceback (most recent call last):
        ...
    ValueError: seconds must grow with nbytes to give a bandwidth; these timings do not
    """
    x, t = _series("nbytes", nbytes, "seconds", seconds)
    a, b = _growing_line(x, t, "nbytes", "a bandwidth")
    return AlphaBeta(a, b)


@public
def best_rate(amount, seconds) -> float:
    """The highest rate among the timings, ``max(amount / seconds)``: the measured peak.

    A roofline's ceilings are the best a machine was seen to do, so the peak
    FLOP/s of :func:`matmul_timings` is read this way rather than fitted:
    small multiplies run below peak for reasons other than a fixed overhead.

    Parameters
    ----------
    amount : array_like
        FLOPs (or bytes) per call, >= 0.
    seconds : array_like
        Seconds per call, > 0, same length.

    Returns
    -------
    float
        Amount per second.

    Examples
    --------
    >>> best_rate([2e9, 16e9], [0.1, 0.4])
    40000000000.0
    """
    x, t = _timings(amount, seconds)
    return float(np.max(x / t))


def rate_spread(amount, seconds) -> RateSpread:
    """The best, median and slowest of the rates ``amount / seconds`` of repeated timings.

    On a shared machine other programs can only slow a run down, so the best
    rate is the least disturbed estimate of what the machine can do; the
    median and the slowest say how much the disturbance mattered.

    Parameters
    ----------
    amount : float or array_like
        Bytes (or FLOPs) per call, >= 0: one number for every timing, or one each.
    seconds : array_like
        Seconds of each timed call, > 0.

    Returns
    -------
    RateSpread
        ``best``, ``median`` and ``worst`` in amount per second, the number of
        ``repeats``, and the property ``spread`` (``1 - worst / best``).

    Raises
    ------
    ValueError
        No timings, lengths that do not match, a negative amount or a time <= 0.

    Examples
    --------
    >>> r = rate_spread(2e8, [0.010, 0.008, 0.020])       # 200 MB three times
    >>> r.best / 1e9, r.median / 1e9, r.worst / 1e9, r.spread
    (25.0, 20.0, 10.0, 0.6)
    """
    x, t = _timings(amount, seconds)
    rates = x / t
    return RateSpread(float(np.max(rates)), float(np.median(rates)), float(np.min(rates)), int(rates.size))


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


class CpuInfo(NamedTuple):
    """The CPUs this process may use, and what limits them (see :func:`cpu_info`)."""

    logical: int  #: logical CPUs of the machine, ``os.cpu_count()``
    affinity: int  #: logical CPUs in this process's affinity mask
    quota: float | None  #: CPUs' worth of time the cgroup grants per period, or None if unlimited
    usable: int  #: K_cpu: min(affinity, floor(quota)), at least 1
    cores: int | None  #: physical cores among the affinity CPUs (distinct SMT sibling groups), None if unknown
    smt: int | None  #: most hardware threads of one core inside the mask, None if unknown
    limited_by: str  #: "affinity", "cgroup quota" or "none": what set ``usable`` below ``logical``

    def describe(self) -> str:
        """One line: the counts and what limits them."""
        quota = "no cgroup CPU quota" if self.quota is None else f"cgroup quota {self.quota:g} CPUs"
        text = (f"{self.logical} logical CPUs, {self.affinity} in the affinity mask, {quota}: "
                f"K_cpu = {self.usable} usable")
        if self.cores is not None and self.smt is not None and self.smt > 1:
            text += f" ({self.cores} physical cores, {self.smt} SMT threads each)"
        elif self.cores is not None:
            text += " (no SMT siblings among them)"
        return text


def _parse_cpu_list(text: str) -> set[int]:
    """CPUs of a Linux list such as ``0-3,8,10-11``."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def _quota_v2(text: str) -> float | None:
    """CPUs granted by a cgroup v2 ``cpu.max`` line ``"<quota> <period>"`` (``max`` means unlimited)."""
    fields = text.split()
    if not fields or fields[0] == "max":
        return None
    period = float(fields[1]) if len(fields) > 1 else 100_000.0
    return float(fields[0]) / period if period > 0 else None


def _quota_v1(quota: str, period: str) -> float | None:
    """CPUs granted by cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (a quota of -1 is unlimited)."""
    q, p = float(quota), float(period)
    return q / p if q > 0 and p > 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _levels(root: Path, relative: str):
    """``root/relative`` and each of its parents up to ``root``: a limit set on any of them applies."""
    here = root / relative.strip("/")
    while True:
        yield here
        if here == root or root not in here.parents:
            return
        here = here.parent


def cgroup_cpu_quota(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup") -> float | None:
    """The CPUs' worth of time this process's cgroup may use per period, or None when unlimited.

    Reads ``/proc/self/cgroup`` to find the process's cgroup, then the
    tightest quota on it or any parent: ``cpu.max`` (cgroup v2) or
    ``cpu.cfs_quota_us / cpu.cfs_period_us`` (v1, under ``cpu`` or
    ``cpu,cpuacct``). A container usually sees its own cgroup as the root of
    the mount, so the root's files count too.

    Parameters
    ----------
    root : str or Path, optional
        Where the cgroup file system is mounted.
    proc_cgroup : str or Path, optional
        The file naming the process's cgroups.

    Returns
    -------
    float or None

    Examples
    --------
    >>> q = cgroup_cpu_quota()
    >>> q is None or q > 0
    True
    """
    root = Path(root)
    text = _read(Path(proc_cgroup)) or ""
    quotas = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, relative = parts
        if controllers == "":                                   # cgroup v2: "0::/path"
            for level in _levels(root, relative):
                found = _read(level / "cpu.max")
                if found is not None and (q := _quota_v2(found)) is not None:
                    quotas.append(q)
        elif "cpu" in controllers.split(","):                   # cgroup v1: "4:cpu,cpuacct:/path"
            for mount in dict.fromkeys([controllers, "cpu,cpuacct", "cpu", "cpuacct,cpu"]):
                base = root / mount
                if not base.is_dir():
                    continue
                for level in _levels(base, relative):
                    quota, period = _read(level / "cpu.cfs_quota_us"), _read(level / "cpu.cfs_period_us")
                    if quota is not None and period is not None and (q := _quota_v1(quota, period)) is not None:
                        quotas.append(q)
    return min(quotas) if quotas else None


def _smt_groups(cpus, sys_cpu="/sys/devices/system/cpu") -> list[frozenset[int]] | None:
    """The SMT sibling groups of ``cpus`` (each group cut to ``cpus``), or None if /sys does not tell."""
    groups = set()
    for cpu in cpus:
        topo = Path(sys_cpu) / f"cpu{cpu}" / "topology"
        text = _read(topo / "core_cpus_list") or _read(topo / "thread_siblings_list")
        if text is None:
            return None
        groups.add(frozenset(_parse_cpu_list(text) & set(cpus)))
    return sorted(groups, key=min)


def cpu_info(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup", sys_cpu="/sys/devices/system/cpu") -> CpuInfo:
    """The CPUs this process may really use: affinity mask, cgroup quota and SMT siblings.

    ``os.cpu_count()`` counts the machine's logical CPUs. A process may be
    allowed fewer: its affinity mask (``taskset``, a batch scheduler's
    binding) lists the CPUs it may run on, and a cgroup quota (Docker's
    ``--cpus``, a Kubernetes CPU limit, a CI runner) caps the CPU time it may
    use per period whatever the mask says. The usable count, written K_cpu
    in the book, is the smaller of the two, rounded down: two processes on a
    quota of 1.5 CPUs share 1.5 CPUs. Where ``/sys`` shows the SMT siblings,
    the physical cores behind the usable CPUs are counted too.

    Parameters
    ----------
    root, proc_cgroup : str or Path, optional
        As for :func:`cgroup_cpu_quota`.
    sys_cpu : str or Path, optional
        Where Linux describes each CPU's topology.

    Returns
    -------
    CpuInfo

    Examples
    --------
    >>> info = cpu_info()
    >>> 1 <= info.usable <= info.affinity <= info.logical
    True
    """
    logical = os.cpu_count() or 1
    try:
        mask = sorted(os.sched_getaffinity(0))
    except AttributeError:                                      # not Linux: no mask to read
        mask = list(range(logical))
    affinity = max(1, min(len(mask), logical))
    quota = cgroup_cpu_quota(root, proc_cgroup)
    usable, limited_by = affinity, "affinity" if affinity < logical else "none"
    if quota is not None and math.floor(quota + 1e-9) < usable:
        usable, limited_by = max(1, math.floor(quota + 1e-9)), "cgroup quota"
    groups = _smt_groups(mask, sys_cpu)
    cores = len(groups) if groups else None
    smt = max(len(g) for g in groups) if groups else None
    return CpuInfo(logical, affinity, quota, usable, cores, smt, limited_by)


def cpu_count() -> tuple[int, int]:
    """(logical CPUs of the machine, CPUs this process may use): the short form of :func:`cpu_info`.

    The second number honours the affinity mask and the cgroup CPU quota.

    Examples
    --------
    >>> total, usable = cpu_count()
    >>> 1 <= usable <= total
    True
    """
    info = cpu_info()
    return info.logical, info.usable


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


# --- Section 3.7: the machine's roof, sized from its caches, at one thread count -------------------------

#: The cache the arrays of the bandwidth kernel are sized from when the machine does not say (no ``/sys``,
#: no ``sysconf``): 128 MiB, more than the last-level cache of most laptops and desktops.
FALLBACK_CACHE_BYTES = 128 * 2**20
#: Each array of the bandwidth kernel holds at least this many times the last-level cache (STREAM's rule).
STREAM_FACTOR = 4


class CacheInfo(NamedTuple):
    """The machine's last-level cache, as read by :func:`last_level_cache`."""

    level: int | None  #: cache level (3 on most machines), None when unknown
    instance_bytes: float | None  #: bytes of one cache of that level, None when unknown
    instances: int  #: distinct caches of that level (one per socket, or per chiplet on AMD), 0 when unknown
    total_bytes: float  #: bytes of all of them together: what the arrays are sized from
    source: str  #: where the size came from: "sysfs", "sysconf" or "fallback"

    def describe(self) -> str:
        """One line: the size and where it came from."""
        mib = self.total_bytes / 2**20
        if self.source == "fallback":
            return f"last-level cache unknown: assumed {mib:.0f} MiB"
        each = f" ({self.instances} x {self.instance_bytes / 2**20:.0f} MiB)" if self.instances > 1 else ""
        return f"L{self.level} cache {mib:.0f} MiB{each}, from {self.source}"


def _cache_size(text: str | None) -> float | None:
    """Bytes of a ``/sys`` cache size such as ``32768K``, ``32M`` or ``1024``; None if unreadable."""
    if text is None:
        return None
    t = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in "KMG" else t
    try:
        value = float(digits) * scale
    except ValueError:
        return None
    return value if value > 0 else None


def last_level_cache(sys_cpu="/sys/devices/system/cpu", sysconf=None) -> CacheInfo:
    """The machine's last-level cache: its size, summed over every instance, and where it was read.

    Linux describes each CPU's caches under ``/sys/devices/system/cpu/cpuN/cache/indexM`` (``level``,
    ``type``, ``size``, ``shared_cpu_list``). The highest level holding data is the last-level cache.
    One instance may serve one socket (Intel) or one chiplet of eight cores (AMD), so the instances
    are told apart by the CPUs that share them and their sizes summed: a 96-core EPYC 9654 shows
    twelve 32 MiB caches, 384 MiB in all. Without ``/sys``, ``sysconf("SC_LEVEL3_CACHE_SIZE")`` is
    tried (glibc reads it from the processor, so under a hypervisor it may report the host's whole
    cache); failing that, :data:`FALLBACK_CACHE_BYTES` is assumed.

    Parameters
    ----------
    sys_cpu : str or Path, optional
        Where Linux describes the CPUs (a copy of that tree simulates another machine).
    sysconf : callable, optional
        ``os.sysconf`` or a stand-in taking a name and returning bytes (default ``os.sysconf``
        where it exists).

    Returns
    -------
    CacheInfo

    Examples
    --------
    >>> info = last_level_cache(sys_cpu="/nonexistent", sysconf=lambda name: 0)
    >>> info.source, info.total_bytes == FALLBACK_CACHE_BYTES
    ('fallback', True)
    """
    by_level: dict[int, dict[frozenset, float]] = {}
    root = Path(sys_cpu)
    cpu_dirs = [d for d in root.glob("cpu[0-9]*") if d.name[3:].isdigit()] if root.is_dir() else []
    for cpu_dir in sorted(cpu_dirs, key=lambda d: int(d.name[3:])):
        for index in sorted((cpu_dir / "cache").glob("index[0-9]*")):
            level, size = _read(index / "level"), _cache_size(_read(index / "size"))
            kind = (_read(index / "type") or "Unified").strip()
            if level is None or size is None or kind == "Instruction" or not level.strip().isdigit():
                continue
            shared = _read(index / "shared_cpu_list")
            cpus = frozenset(_parse_cpu_list(shared)) if shared and shared.strip() else frozenset({cpu_dir.name})
            by_level.setdefault(int(level), {})[cpus] = size
    if by_level:
        top = max(by_level)
        sizes = list(by_level[top].values())
        return CacheInfo(top, max(sizes), len(sizes), float(sum(sizes)), "sysfs")
    if sysconf is None:
        sysconf = getattr(os, "sysconf", None)
    for level, name in ((3, "SC_LEVEL3_CACHE_SIZE"), (2, "SC_LEVEL2_CACHE_SIZE")):
        try:
            value = float(sysconf(name)) if sysconf is not None else 0.0
        except (ValueError, OSError, TypeError):
            value = 0.0
        if value > 0:
            return CacheInfo(level, value, 1, value, "sysconf")
    return CacheInfo(None, None, 0, float(FALLBACK_CACHE_BYTES), "fallback")


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

    Run it through :func:`with_threads` (``with_threads(k, "machine_roof", threads=k)``) so that the
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


def value_spread(values) -> RateSpread:
    """Best, median and lowest of repeated measurements of one rate (P or B of several runs).

    Parameters
    ----------
    values : array_like
        Rates, each > 0.

    Returns
    -------
    RateSpread
        Its ``spread`` is ``1 - lowest / best``.

    Examples
    --------
    >>> r = value_spread([10.0, 9.0, 9.5, 8.5, 10.0])
    >>> r.best, r.median, r.worst, round(r.spread, 3)
    (10.0, 9.5, 8.5, 0.15)
    """
    v = as_float_array("values", values).ravel()
    if v.size == 0:
        raise ValueError("values must hold at least one measurement")
    if np.any(v <= 0):
        raise ValueError(f"values must be > 0; got {v[v <= 0][0]:g}")
    return RateSpread(float(np.max(v)), float(np.median(v)), float(np.min(v)), int(v.size))


#: The environment variables that fix the thread count of the usual maths libraries when Python starts:
#: OpenBLAS (numpy's wheels), OpenMP, MKL, BLIS and Apple's Accelerate.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS")
_CHILD_MEASUREMENTS = ("bandwidth_samples", "matmul_timings", "kernel_runs", "machine_roof")
# The child loads this module and _validate only: the package's directory is registered as a bare package,
# so its __init__ (which imports the figures, matplotlib and the rest, most of a second) does not run.
_CHILD = ("import pickle, sys, types\n"
          "package = types.ModuleType('scalinglib')\n"
          "package.__path__ = [sys.argv[1]]\n"
          "sys.modules['scalinglib'] = package\n"
          "from scalinglib import probe\n"
          "name, kwargs = pickle.loads(sys.stdin.buffer.read())\n"
          "sys.stdout.buffer.write(pickle.dumps(getattr(probe, name)(**kwargs)))\n")


def with_threads(threads: int, measurement: str, /, **kwargs):
    """Run one of this module's measurements in a fresh Python whose maths library uses ``threads`` threads.

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
    package = str(Path(__file__).resolve().parent)
    done = subprocess.run([sys.executable, "-c", _CHILD, package], input=pickle.dumps((measurement, kwargs)),
                          capture_output=True, env=env, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{measurement} with {k} threads failed: {done.stderr.decode(errors='replace')[-500:]}")
    return pickle.loads(done.stdout)


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
