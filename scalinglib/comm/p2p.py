r"""Point-to-point: the cost of one message (Section 3.8.1).

Sending ``n`` bytes from one process to another takes

.. math:: T(n) = \alpha + n\beta

seconds: a fixed latency ``alpha`` per message plus ``beta`` seconds per byte
(``1/beta`` is the link bandwidth). The two terms are equal at the
half-performance size ``n_half = alpha / beta`` (Hockney 1994), where the
effective bandwidth ``n / T(n)`` is half the link's. Every collective of
:mod:`scalinglib.comm.collectives` is priced as a schedule of such messages.
"""

from __future__ import annotations

from .._validate import (
    check_nonnegative,
    check_positive,
    check_shapes,
    public,
    scalar_or_array,
)

__all__ = [
    "p2p_time",
    "half_performance_size",
    "effective_bandwidth",
]


@public
def p2p_time(nbytes, alpha, beta):
    r"""Time to send one message of ``nbytes`` bytes: the alpha-beta (Hockney) model.

    .. math:: T(n) = \alpha + n\beta

    Parameters
    ----------
    nbytes : float or array_like
        Message size n in bytes, >= 0.
    alpha : float or array_like
        Latency per message in seconds, >= 0.
    beta : float or array_like
        Seconds per byte (the inverse of the bandwidth), >= 0.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    References
    ----------
    Hockney (1994), Parallel Computing 20(3).

    Examples
    --------
    >>> p2p_time(1e6, 5e-6, 1 / 50e9) * 1e6      # 1 MB over a 50 GB/s link with 5 us latency
    25.0
    >>> p2p_time([0, 1e9], 5e-6, 1 / 50e9)
    array([5.0000e-06, 2.0005e-02])
    """
    n = check_nonnegative("nbytes", nbytes)
    a = check_nonnegative("alpha", alpha)
    b = check_nonnegative("beta", beta)
    n, a, b = check_shapes(nbytes=n, alpha=a, beta=b)
    return scalar_or_array(a + n * b)


@public
def half_performance_size(alpha, beta):
    r"""Message size at which latency and transfer take equally long: ``alpha / beta`` bytes.

    At this size a message reaches half the link bandwidth; much smaller
    messages are latency-bound, much larger ones bandwidth-bound. Hockney
    (1994) calls it :math:`n_{1/2}`.

    Parameters
    ----------
    alpha : float or array_like
        Seconds per message, >= 0.
    beta : float or array_like
        Seconds per byte, > 0.

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> half_performance_size(5e-6, 1 / 50e9)
    250000.0
    """
    a = check_nonnegative("alpha", alpha)
    b = check_positive("beta", beta)
    a, b = check_shapes(alpha=a, beta=b)
    return scalar_or_array(a / b)


@public
def effective_bandwidth(nbytes, alpha, beta):
    r"""Bytes per second one message of ``nbytes`` achieves: ``n / (alpha + n beta)``.

    Parameters
    ----------
    nbytes : float or array_like
        Message size in bytes, > 0.
    alpha, beta : float or array_like
        Latency (s, >= 0) and time per byte (s/B, > 0).

    Returns
    -------
    float or numpy.ndarray
        Bytes/s; tends to ``1/beta`` for large messages.

    Examples
    --------
    >>> effective_bandwidth(250e3, 5e-6, 1 / 50e9) / 1e9      # at n_half: half of 50 GB/s
    25.0
    """
    n = check_positive("nbytes", nbytes)
    a = check_nonnegative("alpha", alpha)
    b = check_positive("beta", beta)
    n, a, b = check_shapes(nbytes=n, alpha=a, beta=b)
    return scalar_or_array(n / (a + n * b))
