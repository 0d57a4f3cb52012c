"""Algorithm bandwidth and bus bandwidth, as the NCCL tests report them (Section 3.8.5).

The NCCL tests report a collective's *algorithm bandwidth* ``algbw = n / t`` and
a *bus bandwidth* ``busbw = algbw * factor``, where the factor
(:func:`bus_bandwidth_factor`) is the bandwidth coefficient of the lower bound
(:func:`scalinglib.comm.collective_lower_bound`), so that an algorithm reaching
that bound shows a busbw equal to the per-rank link bandwidth whatever ``p``
is. The ring reaches it for all-reduce, all-gather and reduce-scatter; for
broadcast and reduce only a pipelined chain, not modelled here, approaches it.
Sizes are in bytes, times in seconds and bandwidths in bytes per second.
"""

from __future__ import annotations

import numpy as np

from .._validate import (
    check_nonnegative,
    check_positive,
    check_shapes,
    check_whole,
    public,
    scalar_or_array,
)
from .collectives import _P, _collective

__all__ = [
    "bus_bandwidth_factor",
    "algorithm_bandwidth",
    "bus_bandwidth",
]


@public
def bus_bandwidth_factor(collective, p):
    r"""The NCCL tests' factor from algorithm bandwidth to bus bandwidth.

    ``busbw = algbw * factor``, with

    ==============  ==========
    collective      factor
    ==============  ==========
    allreduce       2(p-1)/p
    reduce_scatter  (p-1)/p
    alltoall        (p-1)/p
    allgather       (p-1)/p
    broadcast       1
    reduce          1
    ==============  ==========

    For ``p > 1`` the factor is the bandwidth coefficient of the lower bound
    (:func:`collective_lower_bound`), the bytes per byte of ``n`` that some
    rank must send or receive, so an algorithm that reaches the bound at the
    link speed ``1/beta`` shows a busbw of ``1/beta`` for any ``p``, which can
    be compared with the hardware. The ring reaches it for all-reduce,
    all-gather and reduce-scatter; for broadcast and reduce a pipelined chain
    approaches it (NCCL's ring broadcast), which :data:`ALGORITHMS` does not
    model: for ``p > 2`` the binomial tree moves ``ceil(lg p)`` and
    ``scatter_allgather`` and ``rabenseifner`` ``2(p-1)/p`` bytes per byte.

    The NCCL tests cannot see which algorithm NCCL ran, so they apply these factors to every
    collective. An all-reduce whose sums are made in the switch (NVLink SHARP) moves fewer bytes
    than the bound assumes, and its busbw can exceed the link's one-way bandwidth.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    p : int or array_like
        Ranks, whole >= 1.

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    NVIDIA nccl-tests, doc/PERFORMANCE.md; nccl-tests issues 212, 274 and 366 (in-network reduction).

    Examples
    --------
    >>> bus_bandwidth_factor("allreduce", 8)
    1.75
    >>> bus_bandwidth_factor("broadcast", 8)
    1.0
    """
    return scalar_or_array(_bus_factor(_collective(collective), check_whole(_P, p)))


def _bus_factor(coll: str, pp):
    f = (pp - 1.0) / pp
    return {"allreduce": 2.0 * f, "reduce_scatter": f, "allgather": f, "alltoall": f,
            "broadcast": np.ones_like(f), "reduce": np.ones_like(f)}[coll]


@public
def algorithm_bandwidth(nbytes, seconds):
    """The NCCL tests' algorithm bandwidth: bytes of the buffer divided by the time, ``n / t``.

    Parameters
    ----------
    nbytes : float or array_like
        n in bytes (the same convention as :func:`collective_time`), >= 0.
    seconds : float or array_like
        Measured time, > 0.

    Returns
    -------
    float or numpy.ndarray
        Bytes/s.

    Examples
    --------
    >>> algorithm_bandwidth(1e9, 0.01) / 1e9
    100.0
    """
    n = check_nonnegative("nbytes", nbytes)
    t = check_positive("seconds", seconds)
    n, t = check_shapes(nbytes=n, seconds=t)
    return scalar_or_array(n / t)


@public
def bus_bandwidth(collective, nbytes, seconds, p):
    """The NCCL tests' bus bandwidth: ``algorithm_bandwidth(n, t) * bus_bandwidth_factor(collective, p)``.

    Parameters
    ----------
    collective : str
        One of :data:`COLLECTIVES`.
    nbytes : float or array_like
        n in bytes, >= 0.
    seconds : float or array_like
        Measured time, > 0.
    p : int or array_like
        Ranks, whole >= 1.

    Returns
    -------
    float or numpy.ndarray
        Bytes/s.

    Examples
    --------
    >>> bus_bandwidth("allreduce", 1e9, 0.01, 8) / 1e9
    175.0
    """
    coll = _collective(collective)
    n = check_nonnegative("nbytes", nbytes)
    t = check_positive("seconds", seconds)
    pp = check_whole(_P, p)
    n, t, pp = check_shapes(nbytes=n, seconds=t, **{_P: pp})
    return scalar_or_array((n / t) * _bus_factor(coll, pp))
