"""Strong and weak scaling with a serial part and a growing communication term (Section 3.3),
and a memory-spill model of superlinear speedup (Section 3.1).

One unit of work takes time 1 on one worker: a serial part ``s`` and a
parallel part ``1 - s``. Communication costs ``c * log2(K)``, a stand-in for
tree-shaped collectives whose depth grows with the logarithm of the worker count.
"""

from __future__ import annotations

import numpy as np

from ._validate import (
    as_count,
    check_at_least,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_shapes,
    check_whole,
    checked_in_chunks,
    chunkable,
    public,
    scalar_or_array,
)

__all__ = [
    "strong_time",
    "weak_time",
    "strong_model_efficiency",
    "weak_model_efficiency",
    "best_worker_count",
    "isoefficiency_work",
    "spill_time",
]


def _k_s_c(k, s, c):
    k_arr = check_whole("k", k, keep_int=True)
    s_arr = check_fraction("s", s)
    c_arr = check_nonnegative("c", c)
    k_arr, s_arr, c_arr = check_shapes(k=k_arr, s=s_arr, c=c_arr)
    return k_arr, s_arr, c_arr


def _strong(k, s, c):
    if type(k) is np.ndarray and k.ndim and type(s) is float and type(c) is float:
        out = np.divide(1.0 - s, k)            # one array for the result and one temporary; the sums
        out += s                               # in the order of the expression below, so every result
        comm = np.log2(k)                      # is the same to the last bit (a seed table prints
        comm *= c                              # T(8) = 0.19875, rounded at its fourth decimal)
        out += comm
        return out
    return s + (1.0 - s) / k + c * np.log2(k)


def _strong_into(s, c):
    """``compute`` for :func:`checked_in_chunks`: the operations of :func:`_strong`, in its order."""
    a = 1.0 - s
    divide, add, log2, multiply = np.divide, np.add, np.log2, np.multiply

    def compute(k, out, scratch):
        divide(a, k, out=out)
        add(out, s, out=out)
        log2(k, out=scratch)
        multiply(scratch, c, out=scratch)
        add(out, scratch, out=out)
    return compute


def _weak(k, s, c, w=None):
    return s + (1.0 - s if w is None else w) + c * np.log2(k)


#: The largest communication coefficient :func:`strong_time` takes: log2 K is at most 1,024 for any
#: float K, so c log2 K, and with it the time, stays finite.
MAX_C = 1e305


@public(checked=False)   # every term is >= 0, and MAX_C keeps their sum finite: no result check needed
def strong_time(k, s, c):
    r"""Time of a fixed job on K workers: serial part, divided parallel part, growing communication.

    .. math:: T_\text{strong}(K) = s + \frac{1 - s}{K} + c \log_2 K

    Parameters
    ----------
    k : int or array_like
        Number of workers, a whole number >= 1.
    s : float or array_like
        Serial fraction of the one-worker time, in [0, 1].
    c : float or array_like
        Communication coefficient (time per doubling of K, in units of T(1)), >= 0
        and at most 1e305 (so that ``c log2 K`` stays finite).

    Returns
    -------
    float or numpy.ndarray
        T(K) in units of the one-worker time.

    Examples
    --------
    >>> round(strong_time(64, 0.05, 0.01), 4)
    0.1248
    >>> strong_time([1, 2], 0.05, 0.01)
    array([1.   , 0.535])
    """
    if chunkable(k) and type(s) is float and type(c) is float:     # a long array: one pass, in the cache
        ss, cc = check_fraction("s", s), check_nonnegative("c", c)
        if cc <= MAX_C:
            out = checked_in_chunks(k, "whole", _strong_into(ss, cc))
            if out is not None:
                return out
    kk, ss, cc = _k_s_c(k, s, c)
    top = cc if type(cc) is float else (float(np.max(cc)) if np.size(cc) else 0.0)
    if top > MAX_C:
        raise ValueError(f"c must be <= {MAX_C:g} (c log2 K would overflow a float); got {top:g}")
    return scalar_or_array(_strong(kk, ss, cc))


@public
def weak_time(k, s, c, work=None):
    r"""Time on K workers when each worker keeps its own full share of work (weak scaling).

    .. math:: T_\text{weak}(K) = s + w + c \log_2 K, \qquad w = 1 - s \text{ by default}

    Parameters
    ----------
    k : int or array_like
        Number of workers, a whole number >= 1.
    s : float or array_like
        Serial part of each step, in [0, 1]; replicated, not divided.
    c : float or array_like
        Communication coefficient, >= 0.
    work : float or array_like, optional
        Parallel work per worker, >= 0. Defaults to ``1 - s``, one worker's full share.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(weak_time(128, 0.05, 0.01), 4)
    1.07
    """
    kk, ss, cc = _k_s_c(k, s, c)
    w = None
    if work is not None:
        w = check_nonnegative("work", work)
        kk, ss, cc, w = check_shapes(k=kk, s=ss, c=cc, work=w)
    return scalar_or_array(_weak(kk, ss, cc, w))


@public
def strong_model_efficiency(k, s, c):
    r"""Strong-scaling efficiency of the cost model, :math:`T(1) / (K\,T_\text{strong}(K))`.

    Examples
    --------
    >>> round(strong_model_efficiency(8, 0.05, 0.01), 4)
    0.6289
    """
    kk, ss, cc = _k_s_c(k, s, c)
    return scalar_or_array(_strong(1.0, ss, cc) / (kk * _strong(kk, ss, cc)))


@public
def weak_model_efficiency(k, s, c):
    r"""Weak-scaling efficiency of the cost model, :math:`T_\text{weak}(1) / T_\text{weak}(K) = 1/(1 + c\log_2 K)`.

    Examples
    --------
    >>> round(weak_model_efficiency(2, 0.05, 0.01), 4)
    0.9901
    """
    kk, ss, cc = _k_s_c(k, s, c)
    return scalar_or_array(_weak(1.0, ss, cc) / _weak(kk, ss, cc))


@public
def best_worker_count(s, c, *, powers_of_two=False):
    r"""The whole number of workers that minimises :math:`T_\text{strong}(K)`.

    Setting the derivative of :math:`s + (1-s)/K + c\log_2 K` to zero gives the
    continuous optimum :math:`K^* = (1 - s)\ln 2 / c`; the best whole K is the
    floor or the ceiling of it, whichever is faster (the smaller on a tie).

    Parameters
    ----------
    s : float or array_like
        Serial fraction, in [0, 1].
    c : float or array_like
        Communication coefficient, > 0 (with ``c = 0`` more workers always help).
    powers_of_two : bool, optional
        Search only K = 1, 2, 4, ... as a benchmark sweep would (default False).

    Returns
    -------
    int or numpy.ndarray of int

    Raises
    ------
    ValueError
        If ``c`` is not > 0 or ``s`` is outside [0, 1], or if ``c`` is so small
        that the best K would pass 2**53 (it is refused, never wrapped to a negative int).

    Examples
    --------
    >>> best_worker_count(0.05, 0.01)
    66
    >>> best_worker_count(0.05, 0.01, powers_of_two=True)
    64
    """
    two = check_flag("powers_of_two", powers_of_two)
    sb = check_fraction("s", s)
    cb = check_positive("c", c)
    sb, cb = check_shapes(s=sb, c=cb)
    kstar = np.maximum((1.0 - sb) * np.log(2.0) / cb, 1.0)
    if two:
        lo = 2.0 ** np.floor(np.log2(kstar))
        hi = 2.0 * lo
    else:
        lo = np.floor(kstar)
        hi = lo + 1.0
    t_lo = sb + (1.0 - sb) / lo + cb * np.log2(lo)
    t_hi = sb + (1.0 - sb) / hi + cb * np.log2(hi)
    return as_count("the best worker count (c is too small)", np.where(t_hi < t_lo, hi, lo))


@public
def isoefficiency_work(k, s, c, target_efficiency):
    r"""Work per worker that keeps weak-scaling efficiency pinned at a target as K grows.

    With per-worker work ``w``, a worker spends ``s + w`` on its own step and
    ``c log2 K`` communicating, so its efficiency is :math:`(s + w)/(s + w + c\log_2 K)`.
    Holding that at :math:`E^*` requires

    .. math:: w(K) = \frac{E^*}{1 - E^*}\, c \log_2 K - s

    so the total problem, :math:`K\,w(K)`, must grow like :math:`K \log K` (the
    iso-efficiency function). Where the formula goes below zero, any work will do
    and 0 is returned.

    Parameters
    ----------
    k : int or array_like
        Number of workers, a whole number >= 1.
    s : float or array_like
        Serial part, in [0, 1].
    c : float or array_like
        Communication coefficient, >= 0.
    target_efficiency : float or array_like
        The efficiency to hold, in (0, 1).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(isoefficiency_work(128, 0.05, 0.01, 1 / 1.01), 4)
    6.95
    """
    kb, sb, cb = _k_s_c(k, s, c)
    eb = check_fraction("target_efficiency", target_efficiency, open_low=True, open_high=True)
    kb, sb, cb, eb = check_shapes(k=kb, s=sb, c=cb, target_efficiency=eb)
    w = eb / (1.0 - eb) * cb * np.log2(kb) - sb
    return scalar_or_array(np.maximum(w, 0.0))


@public
def spill_time(k, f, working_set, fast_memory, slowdown):
    r"""Run time when each worker's share of the data may overflow its fast memory.

    The job takes 1 time unit on one worker whose memory holds everything
    (the honest baseline). A serial part ``f`` stays fixed. The parallel part
    ``1 - f`` is split K ways, and so is the working set; whatever share of a
    worker's slice does not fit in ``fast_memory`` runs ``slowdown`` times slower:

    .. math:: T(K) = f + \frac{1 - f}{K}\Bigl[1 + (\phi - 1)\max\Bigl(0,\, 1 - \frac{M K}{V}\Bigr)\Bigr]

    with V the working set (its volume in bytes; W is the chapter's letter for
    work), M the fast memory per worker and :math:`\phi` the slowdown. Every
    slice fits once :math:`K \ge V/M`; the one-worker time is
    :math:`f + (1 - f)\,[1 + (\phi - 1)(1 - M/V)]` when :math:`V > M`.

    Parameters
    ----------
    k : int or array_like
        Number of workers, a whole number >= 1.
    f : float or array_like
        Serial fraction, in [0, 1].
    working_set : float or array_like
        V, bytes the parallel part touches, > 0.
    fast_memory : float or array_like
        M, fast memory per worker (cache, HBM) in bytes, > 0 (any unit shared
        with ``working_set`` works: only V/M matters).
    slowdown : float or array_like
        :math:`\phi`, how many times slower the spilled part runs, >= 1.

    Returns
    -------
    float or numpy.ndarray
        T(K) in units of the honest one-worker time; a float when every input is a scalar.

    Raises
    ------
    ValueError
        If ``k`` is not a whole number >= 1, ``f`` is outside [0, 1],
        ``working_set`` or ``fast_memory`` is not > 0, ``slowdown`` is below 1,
        or the shapes do not broadcast.
    TypeError
        If an argument is not a real number or an array of them.

    Examples
    --------
    >>> spill_time(1, 0.0, 4e9, 1e9, 3.0)   # three quarters spill on one worker
    2.5
    >>> spill_time(4, 0.0, 4e9, 1e9, 3.0)   # four workers: every slice fits
    0.25
    """
    k_arr = check_whole("k", k)
    f_arr = check_fraction("f", f)
    ws = check_positive("working_set", working_set)
    mem = check_positive("fast_memory", fast_memory)
    sd = check_at_least("slowdown", slowdown, 1.0)
    k_arr, f_arr, ws, mem, sd = check_shapes(k=k_arr, f=f_arr, working_set=ws, fast_memory=mem, slowdown=sd)
    spilled = np.maximum(0.0, 1.0 - mem * k_arr / ws)
    out = f_arr + (1.0 - f_arr) / k_arr * (1.0 + (sd - 1.0) * spilled)
    return scalar_or_array(out)
