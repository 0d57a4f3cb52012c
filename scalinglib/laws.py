"""Closed-form scaling laws: Amdahl's law, Gustafson's law and the Karp-Flatt metric (Sections 3.1 and 3.5).

Amdahl normalises the single-worker time to 1, so a serial fraction ``f`` of it
stays fixed while the remaining ``1 - f`` is divided among K workers.
Gustafson normalises the K-worker time to 1 instead: a fraction ``s`` of the
parallel run is serial, and the rest would take K times as long on one worker.
The Karp-Flatt metric runs Amdahl's law backwards, from a measured speedup to
the serial fraction that would explain it.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    check_1d,
    check_broadcast,
    check_fraction,
    check_positive,
    check_same_length,
    check_shapes,
    check_whole,
    checked_in_chunks,
    chunkable,
    public,
    scalar_or_array,
)

__all__ = [
    "amdahl_time",
    "amdahl_speedup",
    "amdahl_efficiency",
    "amdahl_ceiling",
    "largest_serial_fraction",
    "gustafson_speedup",
    "scaled_serial_fraction",
    "karp_flatt",
    "fit_amdahl",
]


def _f_and_k(f, k):
    f_arr = check_fraction("f", f)
    k_arr = check_whole("k", k, keep_int=True)
    f_arr, k_arr = check_shapes(f=f_arr, k=k_arr)
    return f_arr, k_arr


@public(checked=False)   # f or s in [0, 1] and k >= 1 keep the result finite and >= 0
def amdahl_time(f, k):
    r"""Run time on K workers when T(1) = 1 and a fraction ``f`` cannot be parallelised.

    .. math:: T(K) = f + \frac{1 - f}{K}

    Parameters
    ----------
    f : float or array_like
        Serial fraction of the single-worker time, in [0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        T(K) as a fraction of T(1).

    Raises
    ------
    ValueError
        If ``f`` is outside [0, 1] or ``k`` is not a whole number >= 1.

    Examples
    --------
    >>> amdahl_time(0.05, 2)
    0.525
    """
    f_arr, k_arr = _f_and_k(f, k)
    return scalar_or_array(f_arr + (1.0 - f_arr) / k_arr)


@public(checked=False)   # f or s in [0, 1] and k >= 1 keep the result finite and >= 0
def amdahl_speedup(f, k):
    r"""Amdahl's law: the speedup of a fixed job with serial fraction ``f`` on K workers.

    .. math:: S(K) = \frac{1}{f + (1 - f)/K}

    Parameters
    ----------
    f : float or array_like
        Serial fraction, in [0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        The speedup S(K), which never exceeds ``min(K, 1/f)``.

    Raises
    ------
    ValueError
        If ``f`` is outside [0, 1] or ``k`` is not a whole number >= 1.

    References
    ----------
    Amdahl (1967), AFIPS Spring Joint Computer Conference; see the book's bibliography.

    Examples
    --------
    >>> round(amdahl_speedup(0.05, 512), 4)
    19.2844
    >>> amdahl_speedup(0.0, [1, 2, 4])
    array([1., 2., 4.])
    """
    if type(k) is float or type(k) is int:
        if chunkable(f):                                     # long arrays: one pass, in the cache
            kk = check_whole("k", k)
            out = checked_in_chunks(f, "fraction", lambda c, o, t: _amdahl_into(c, kk, o))
            if out is not None:
                return out
    elif type(f) is float and chunkable(k):                  # worker counts, float or int64
        ff = check_fraction("f", f)
        out = checked_in_chunks(k, "whole", lambda c, o, t: _amdahl_into(ff, c, o))
        if out is not None:
            return out
    f_arr, k_arr = _f_and_k(f, k)
    return scalar_or_array(1.0 / (f_arr + (1.0 - f_arr) / k_arr))


def _amdahl_into(f, k, out):
    """1 / (f + (1 - f) / k) into ``out``, in the order numpy evaluates that expression (same bits)."""
    if type(f) is np.ndarray:
        np.subtract(1.0, f, out=out)
        out /= k
    else:
        np.divide(1.0 - f, k, out=out)
    out += f
    np.divide(1.0, out, out=out)


@public(checked=False)   # f or s in [0, 1] and k >= 1 keep the result finite and >= 0
def amdahl_efficiency(f, k):
    r"""Efficiency under Amdahl's law.

    .. math:: E(K) = \frac{S(K)}{K} = \frac{1}{K f + 1 - f}

    Parameters
    ----------
    f : float or array_like
        Serial fraction, in [0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        E(K), in (0, 1].

    Examples
    --------
    >>> round(amdahl_efficiency(0.05, 16), 4)
    0.5714
    """
    f_arr, k_arr = _f_and_k(f, k)
    return scalar_or_array(1.0 / (k_arr * f_arr + 1.0 - f_arr))


#: The smallest positive serial fraction :func:`amdahl_ceiling` takes: 1/f of anything smaller
#: overflows a float (1/f is larger than the largest float, about 1.8e308).
SMALLEST_CEILING_FRACTION = float(np.nextafter(1.0 / np.finfo(float).max, 1.0))


@public(allow_inf=True)
def amdahl_ceiling(f):
    r"""The speedup no number of workers can pass: the limit of S(K) as K grows.

    .. math:: S(\infty) = \frac{1}{f}

    Parameters
    ----------
    f : float or array_like
        Serial fraction: 0, or in [``SMALLEST_CEILING_FRACTION``, 1]. For ``f = 0`` the
        ceiling is infinite. A positive ``f`` below about 5.6e-309 is refused: its ceiling
        1/f is finite but larger than the largest float, so it would come out as the infinity
        that means "no serial part".

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> amdahl_ceiling(0.05)
    20.0
    >>> amdahl_ceiling(0.0)
    inf
    """
    f_arr = check_fraction("f", f)
    tiny = (f_arr > 0) & (f_arr < SMALLEST_CEILING_FRACTION)
    if np.any(tiny):
        bad = float(np.asarray(f_arr)[tiny].flat[0])
        raise ValueError(f"f must be 0 or at least {SMALLEST_CEILING_FRACTION:.4g}, the smallest serial fraction "
                         f"whose ceiling 1/f is a finite float; got {bad:g}")
    out = np.where(f_arr > 0, 1.0 / np.where(f_arr > 0, f_arr, 1.0), np.inf)
    return scalar_or_array(out)


@public
def largest_serial_fraction(target_efficiency, k):
    r"""The largest serial fraction that still keeps Amdahl efficiency at or above a target on K workers.

    Solving :math:`1/(K f + 1 - f) \ge E^*` for ``f`` gives

    .. math:: f_\max = \frac{1/E^* - 1}{K - 1}

    For K = 1 every fraction qualifies and the result is 1.

    Parameters
    ----------
    target_efficiency : float or array_like
        The efficiency to keep, in (0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        The serial fraction at which E(K) equals the target exactly (capped at 1).

    Examples
    --------
    >>> round(largest_serial_fraction(0.9, 32), 6)
    0.003584
    """
    e_arr = check_fraction("target_efficiency", target_efficiency, open_low=True)
    k_arr = check_whole("k", k)
    eb, kb = check_broadcast(target_efficiency=e_arr, k=k_arr)
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = (1.0 / eb - 1.0) / np.where(kb > 1, kb - 1.0, 1.0)
    out = np.where(kb > 1, np.minimum(raw, 1.0), 1.0)
    return scalar_or_array(out, e_arr, k_arr)


@public(checked=False)   # f or s in [0, 1] and k >= 1 keep the result finite and >= 0
def gustafson_speedup(s, k):
    r"""Gustafson's law: the scaled speedup of a job that grows with the number of workers.

    Normalise the run on K workers to take time 1, of which a fraction ``s`` is
    serial. One worker would need ``s`` for the serial part and ``K (1 - s)`` for
    the parallel part, so

    .. math:: S_\text{scaled}(K) = s + (1 - s) K = K + (1 - K)\, s

    Here ``s`` is measured on the *parallel* run, unlike Amdahl's ``f``, which is
    a share of the one-worker time.

    Parameters
    ----------
    s : float or array_like
        Serial fraction of the K-worker run, in [0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        The scaled speedup, a straight line in K with slope ``1 - s``.

    Raises
    ------
    ValueError
        If ``s`` is outside [0, 1] or ``k`` is not a whole number >= 1.

    References
    ----------
    J. L. Gustafson, "Reevaluating Amdahl's law", Communications of the ACM
    31(5), 1988 (the formula is credited there to E. Barsis).

    Examples
    --------
    >>> round(gustafson_speedup(0.004, 1024), 1)
    1019.9
    >>> gustafson_speedup(0.05, [1, 64])
    array([ 1.  , 60.85])
    """
    s_arr = check_fraction("s", s)
    k_arr = check_whole("k", k)
    s_arr, k_arr = check_shapes(s=s_arr, k=k_arr)
    return scalar_or_array(s_arr + (1.0 - s_arr) * k_arr)   # this form cancels least when s is near 1


@public(checked=False)   # f or s in [0, 1] and k >= 1 keep the result finite and >= 0
def scaled_serial_fraction(s, k):
    r"""Amdahl's serial fraction of the grown job that Gustafson's law describes.

    Run on one worker, the grown job takes :math:`s + (1 - s) K`, of which ``s``
    is serial, so as a *fixed* job its serial fraction is

    .. math:: f = \frac{s}{s + (1 - s) K}

    and Amdahl's law with this ``f`` gives back Gustafson's scaled speedup
    exactly: the two laws describe the same run, measured against different
    baselines.

    Parameters
    ----------
    s : float or array_like
        Serial fraction of the K-worker run, in [0, 1].
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        The serial fraction of the grown job's one-worker time, in [0, 1].

    Examples
    --------
    >>> f = scaled_serial_fraction(0.05, 64)
    >>> round(f, 6)
    0.000822
    >>> round(amdahl_speedup(f, 64), 2) == round(gustafson_speedup(0.05, 64), 2)
    True
    """
    s_arr = check_fraction("s", s)
    k_arr = check_whole("k", k)
    s_arr, k_arr = check_shapes(s=s_arr, k=k_arr)
    return scalar_or_array(s_arr / (s_arr + (1.0 - s_arr) * k_arr))


@public(signed=True)
def karp_flatt(measured_speedup, k):
    r"""The experimentally determined serial fraction of Karp and Flatt.

    Solve Amdahl's law :math:`1/S = e + (1 - e)/K` for the serial fraction that
    would explain a measured speedup:

    .. math:: e = \frac{1/S - 1/K}{1 - 1/K}

    If ``e`` stays flat as K grows, the job has a genuine serial part; if it
    climbs, something that grows with K (communication, synchronisation, load
    imbalance) is eating the speedup. A negative ``e`` means a superlinear
    measurement.

    Parameters
    ----------
    measured_speedup : float or array_like
        Measured speedup S(K) = T(1)/T(K), > 0.
    k : int or array_like
        Number of workers, a whole number >= 2 (on one worker there is nothing to explain).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        If a speedup is not > 0 or ``k`` is not a whole number >= 2.

    References
    ----------
    A. H. Karp and H. P. Flatt, "Measuring parallel processor performance",
    Communications of the ACM 33(5), 1990.

    Examples
    --------
    >>> round(karp_flatt(amdahl_speedup(0.05, 16), 16), 12)
    0.05
    >>> round(karp_flatt(6.0, 8), 4)
    0.0476
    """
    s_arr = check_positive("measured_speedup", measured_speedup)
    k_arr = check_whole("k", k, minimum=2)
    s_arr, k_arr = check_shapes(measured_speedup=s_arr, k=k_arr)
    return scalar_or_array((1.0 / s_arr - 1.0 / k_arr) / (1.0 - 1.0 / k_arr))


#: How far a speedup measured at K = 1 may stray from 1 (noise of a few percent) before a fit refuses it.
_ONE_WORKER_TOLERANCE = 0.05


def _speedup_data(k, measured_speedup):
    """Validate a set of (K, S) measurements and return them as flat float arrays of one length.

    A speedup at K = 1 far from 1 means the data are not speedups (throughputs or
    times, say): the fits would read them as perfect scaling, so they are refused.
    """
    k_arr = check_whole("k", k)
    s_arr = check_positive("measured_speedup", measured_speedup)
    check_1d("k", k_arr)
    check_1d("measured_speedup", s_arr)
    check_same_length(k=k_arr, measured_speedup=s_arr)
    off = (k_arr == 1) & (np.abs(s_arr - 1.0) > _ONE_WORKER_TOLERANCE)
    if off.any():
        raise ValueError(f"measured_speedup at K=1 is {s_arr[off][0]:g}, expected about 1: "
                         "divide throughputs by the one-worker throughput")
    return k_arr, s_arr


@public
def fit_amdahl(k, measured_speedup):
    r"""Fit Amdahl's serial fraction to measured speedups by least squares.

    Amdahl's law rearranges to a line through the origin,

    .. math:: \frac{K}{S(K)} - 1 = f\,(K - 1),

    so ``f`` is the least-squares slope :math:`\sum x y / \sum x^2` with
    :math:`x = K - 1` and :math:`y = K/S - 1`, kept inside [0, 1]. This is the
    Universal Scalability Law fit of :func:`scalinglib.usl.fit_usl` with the
    coherency term held at zero.

    Parameters
    ----------
    k : array_like
        Worker counts of the measurements, whole numbers >= 1; at least one must be >= 2.
    measured_speedup : array_like
        The speedups measured at those counts, > 0, same length as ``k``; about 1
        (within 5%) at K = 1 where that is included.

    Returns
    -------
    float
        The fitted serial fraction, in [0, 1].

    Raises
    ------
    ValueError
        If the lists differ in length, hold a bad value, have no measurement with
        K >= 2, or give a speedup far from 1 at K = 1 (throughputs not divided by
        the one-worker throughput).

    Examples
    --------
    >>> K = [1, 2, 4, 8, 16]
    >>> round(fit_amdahl(K, amdahl_speedup(0.07, K)), 12)
    0.07
    """
    k_arr, s_arr = _speedup_data(k, measured_speedup)
    x = k_arr - 1.0
    if not np.any(x > 0):
        raise ValueError("k must include at least one measurement with 2 or more workers")
    y = k_arr / s_arr - 1.0
    slope = np.dot(x, y) / np.dot(x, x)
    if not np.isfinite(slope):
        raise ValueError("k and measured_speedup are too large to fit: their products overflow a float")
    return float(np.clip(slope, 0.0, 1.0))
