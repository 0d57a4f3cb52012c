"""Records of a measurement, and the fits read off them (Sections 3.7 and 3.8).

The fits are plain functions, tested on synthetic data:

* :func:`fit_rate` fits ``t = t0 + amount / rate`` (bandwidth from bytes,
  FLOP/s from FLOPs);
* :func:`fit_alpha_beta` fits ``t = alpha + n beta`` to message times;
* :func:`best_rate` reads the highest rate off a set of timings (a roofline's
  ceilings are the best the machine was seen to do), :func:`rate_spread`
  the best, median and slowest, and :func:`value_spread` the same off
  repeated measurements of one rate.

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

from typing import NamedTuple

import numpy as np

from .._validate import (
    as_float_array,
    check_nonnegative,
    check_positive,
    checked_record,
    least_squares,
    public,
    single,
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
    "value_spread",
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
    FLOP/s of ``matmul_timings`` is read this way rather than fitted:
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
