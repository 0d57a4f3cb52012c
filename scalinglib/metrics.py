"""Speedup and efficiency: the two numbers every later model refines (Section 3.1).

All times are in seconds (any common unit works, since only ratios matter).
"""

from __future__ import annotations

from ._validate import check_positive, check_shapes, check_whole, public, scalar_or_array

__all__ = ["speedup", "efficiency", "weak_efficiency"]


@public
def speedup(t1, tk):
    r"""Speedup of a fixed job: how many times faster K workers finished it.

    .. math:: S(K) = \frac{T(1)}{T(K)}

    Parameters
    ----------
    t1 : float or array_like
        Time of the job on one worker, in seconds, > 0. Use the best
        single-machine time you can get, not a crippled baseline.
    tk : float or array_like
        Time of the same job on K workers, in seconds, > 0.

    Returns
    -------
    float or numpy.ndarray
        The speedup (dimensionless). A float when both inputs are scalars.

    Raises
    ------
    ValueError
        If a time is zero, negative, NaN or infinite, or the shapes do not broadcast.
    TypeError
        If a time is not a real number.

    Examples
    --------
    >>> speedup(600.0, 60.0)
    10.0
    >>> speedup(1.0, [0.5, 0.25])
    array([2., 4.])
    """
    t1_arr = check_positive("t1", t1)
    tk_arr = check_positive("tk", tk)
    t1_arr, tk_arr = check_shapes(t1=t1_arr, tk=tk_arr)
    return scalar_or_array(t1_arr / tk_arr)


@public
def efficiency(t1, tk, k):
    r"""Parallel (strong-scaling) efficiency: the share of the K workers doing useful work.

    .. math:: E(K) = S(K)/K = T(1) / (K \cdot T(K))

    Parameters
    ----------
    t1 : float or array_like
        Time on one worker, in seconds, > 0.
    tk : float or array_like
        Time of the same job on ``k`` workers, in seconds, > 0.
    k : int or array_like
        Number of workers, a whole number >= 1.

    Returns
    -------
    float or numpy.ndarray
        The efficiency; 1 is ideal, above 1 means the baseline was handicapped
        (superlinear speedup, usually a memory-hierarchy effect).

    Raises
    ------
    ValueError
        If a time is not > 0 or ``k`` is not a whole number >= 1.

    Examples
    --------
    >>> efficiency(600.0, 60.0, 8)
    1.25
    >>> round(efficiency(1.0, 1 / 180, 256), 4)
    0.7031
    """
    t1_arr = check_positive("t1", t1)
    tk_arr = check_positive("tk", tk)
    k_arr = check_whole("k", k)
    t1_arr, tk_arr, k_arr = check_shapes(t1=t1_arr, tk=tk_arr, k=k_arr)
    return scalar_or_array(t1_arr / (k_arr * tk_arr))


@public
def weak_efficiency(t1, tk):
    r"""Weak-scaling efficiency: did a K-times-larger job still finish in the time of the small one?

    .. math:: E_\text{weak}(K) = \frac{T(1)}{T(K)}

    where ``tk`` comes from a run whose problem is K times larger than the one behind ``t1``.

    Parameters
    ----------
    t1 : float or array_like
        Time of the one-worker problem, in seconds, > 0.
    tk : float or array_like
        Time of the K-times-larger problem on K workers, in seconds, > 0.

    Returns
    -------
    float or numpy.ndarray
        The weak-scaling efficiency; 1 means the time did not move at all.

    Examples
    --------
    >>> round(weak_efficiency(1.0, 1.07), 4)
    0.9346
    """
    t1_arr = check_positive("t1", t1)
    tk_arr = check_positive("tk", tk)
    t1_arr, tk_arr = check_shapes(t1=t1_arr, tk=tk_arr)
    return scalar_or_array(t1_arr / tk_arr)
