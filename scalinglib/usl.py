"""The Universal Scalability Law: Amdahl's law plus a cost that grows with every pair of workers (Section 3.5).

Gunther's model divides K workers' ideal speedup by two penalties: contention
``sigma`` (the share of the work that queues for something only one worker can
hold at a time, Amdahl's serial fraction by another name) and coherency
``kappa`` (the cost of keeping every pair of workers consistent, which grows
like K squared)::

    S(K) = K / (1 + sigma (K - 1) + kappa K (K - 1))

With ``kappa = 0`` this is Amdahl's law with ``f = sigma``. With ``kappa > 0`` the
speedup peaks and then falls: past the peak, added workers make the job slower.

Two fits are offered. :func:`fit_usl` is the linearised one, ordinary least squares on
``K/S - 1``: quick and exact on exact data, but on noisy data it weights the largest K most (the
error of ``K/S`` grows like K) and carries the noise of the one-worker measurement into every
speedup. :func:`fit_usl_throughput` fits the throughputs themselves, by nonlinear least squares
on their logarithms, with the one-worker throughput as a third unknown: every point counts by its
relative error, and X(1) is one point among the others.

The names sigma and kappa are Gunther's later notation; the chapter keeps
alpha and beta for the latency and per-byte time of Section 3.8. Under the USL
the Karp-Flatt fraction is the straight line e(K) = sigma + kappa K.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import (
    check_broadcast,
    check_nonnegative,
    check_positive,
    check_whole,
    checked_record,
    least_squares,
    public,
    scalar_or_array,
    single,
)
from .laws import _speedup_data

__all__ = ["usl_speedup", "USLFit", "fit_usl", "USLThroughputFit", "fit_usl_throughput", "usl_peak_workers"]


@public
def usl_speedup(k, sigma, kappa):
    r"""Speedup on K workers under the Universal Scalability Law.

    .. math:: S(K) = \frac{K}{1 + \sigma (K - 1) + \kappa K (K - 1)}

    Parameters
    ----------
    k : int or array_like
        Number of workers, a whole number >= 1.
    sigma : float or array_like
        Contention coefficient, >= 0 (Amdahl's serial fraction when ``kappa = 0``).
    kappa : float or array_like
        Coherency coefficient, >= 0 (a cost paid per pair of workers).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    ValueError
        If ``k`` is not a whole number >= 1 or a coefficient is negative.

    References
    ----------
    N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, chapter 4.

    Examples
    --------
    >>> round(usl_speedup(32, 0.05, 0.0), 4) == round(1 / (0.05 + 0.95 / 32), 4)
    True
    >>> usl_speedup([1, 10, 100], 0.0, 0.01)
    array([1.        , 5.26315789, 1.        ])
    """
    k_arr = check_whole("k", k)
    a_arr = check_nonnegative("sigma", sigma)
    b_arr = check_nonnegative("kappa", kappa)
    kb, ab, bb = check_broadcast(k=k_arr, sigma=a_arr, kappa=b_arr)
    return scalar_or_array(kb / (1.0 + ab * (kb - 1.0) + bb * kb * (kb - 1.0)), k_arr, a_arr, b_arr)


def _check_usl_fit(fit) -> tuple[float, float]:
    return single(check_nonnegative, "sigma", fit.sigma), single(check_nonnegative, "kappa", fit.kappa)


@checked_record(_check_usl_fit)
class USLFit(NamedTuple):
    """Coefficients fitted by :func:`fit_usl`; unpacks as ``sigma, kappa = fit_usl(...)``.

    Both are finite numbers >= 0 (checked when the record is made).
    """

    sigma: float
    kappa: float


@public
def fit_usl(k, measured_speedup):
    r"""Fit the Universal Scalability Law to measured speedups.

    The law rearranges to a linear model with no intercept,

    .. math:: \frac{K}{S(K)} - 1 = \sigma\,(K - 1) + \kappa\,K(K - 1),

    which is solved by least squares with both coefficients kept >= 0 (a
    two-variable non-negative least-squares problem: the unconstrained solution
    if it is feasible, else the better of the two one-coefficient fits).

    Parameters
    ----------
    k : array_like
        Worker counts, whole numbers >= 1, at least two of them distinct and >= 2.
    measured_speedup : array_like
        Speedups T(1)/T(K) measured at those counts, > 0, same length as ``k``.
        Where K = 1 is included its speedup must be about 1 (within 5%):
        throughputs must first be divided by the one-worker throughput.

    Returns
    -------
    USLFit
        ``(sigma, kappa)`` as plain floats.

    Raises
    ------
    ValueError
        If the lists differ in length, hold a bad value, have fewer than two
        distinct worker counts >= 2, or give a speedup far from 1 at K = 1.

    Examples
    --------
    >>> K = [1, 2, 4, 8, 16, 32, 64]
    >>> sigma, kappa = fit_usl(K, usl_speedup(K, 0.03, 0.0005))
    >>> round(sigma, 10), round(kappa, 10)
    (0.03, 0.0005)
    >>> fit_usl([1, 2, 4, 8], [950, 1847, 3341, 5820])   # throughputs, not speedups
    Traceback (most recent call last):
    ...
    ValueError: measured_speedup at K=1 is 950, expected about 1: divide throughputs by the one-worker throughput
    """
    k_arr, s_arr = _speedup_data(k, measured_speedup)
    if np.unique(k_arr[k_arr >= 2]).size < 2:
        raise ValueError("k must include at least two different worker counts of 2 or more to fit two coefficients")
    x_a = k_arr - 1.0
    x_b = k_arr * (k_arr - 1.0)
    y = k_arr / s_arr - 1.0
    design = np.column_stack([x_a, x_b])
    sigma, kappa = least_squares(design, y, "k and measured_speedup")
    if sigma >= 0 and kappa >= 0:
        return USLFit(float(sigma), float(kappa))
    # the best non-negative fit lies on an edge: one coefficient at zero, the other its own fit
    candidates = []
    for column, which in ((x_a, "sigma"), (x_b, "kappa")):
        coef = max(0.0, float(np.dot(column, y) / np.dot(column, column)))
        residual = float(np.sum((y - coef * column) ** 2))
        candidates.append((residual, which, coef))
    _, which, coef = min(candidates)
    return USLFit(coef, 0.0) if which == "sigma" else USLFit(0.0, coef)


def _check_throughput_fit(fit) -> tuple[float, float, float]:
    sigma, kappa = single(check_nonnegative, "sigma", fit.sigma), single(check_nonnegative, "kappa", fit.kappa)
    return sigma, kappa, single(check_positive, "x1", fit.x1)


@checked_record(_check_throughput_fit)
class USLThroughputFit(NamedTuple):
    """Coefficients fitted by :func:`fit_usl_throughput`: ``sigma, kappa, x1 = fit_usl_throughput(...)``.

    ``x1`` is the fitted one-worker throughput, in the unit of the throughputs given.
    """

    sigma: float
    kappa: float
    x1: float


def _log_residuals(params, k, log_x):
    """Residuals of log X(K) about the USL with the best log X(1) for ``params``, and their Jacobian."""
    sigma, kappa = params
    d = 1.0 + sigma * (k - 1.0) + kappa * k * (k - 1.0)
    c = log_x - np.log(k) + np.log(d)              # = log X(1) + residual
    jac = np.column_stack([(k - 1.0) / d, k * (k - 1.0) / d])
    return c - c.mean(), jac - jac.mean(axis=0), float(c.mean())


def _fit_log(k, log_x, start, free):
    """Projected Levenberg-Marquardt on the centred log residuals, over the coefficients in ``free``."""
    params = np.where(free, np.maximum(start, 0.0), 0.0)
    r, jac, _ = _log_residuals(params, k, log_x)
    cost, damping = float(r @ r), 1e-3
    for _ in range(200):
        j = jac[:, free]
        normal = j.T @ j
        step = np.zeros(2)
        try:
            step[free] = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-300), -j.T @ r)
        except np.linalg.LinAlgError:
            break
        trial = np.maximum(params + step, 0.0)
        r_new, jac_new, _ = _log_residuals(trial, k, log_x)
        new_cost = float(r_new @ r_new)
        if new_cost <= cost:
            converged = cost - new_cost <= 1e-12 * cost or np.allclose(trial, params, rtol=1e-9, atol=1e-14)
            params, r, jac, cost, damping = trial, r_new, jac_new, new_cost, max(damping / 10, 1e-12)
            if converged:
                break
        else:
            damping *= 10
            if damping > 1e12:
                break
    return params, cost


@public
def fit_usl_throughput(k, throughput):
    r"""Fit the Universal Scalability Law to measured throughputs by nonlinear least squares.

    The model is :math:`X(K) = X_1\,K / (1 + \sigma (K - 1) + \kappa K (K - 1))`, with the
    one-worker throughput :math:`X_1` a third unknown. The fit minimises the squared
    differences of :math:`\log X`: each point counts by its relative error, whatever its K,
    and the measurement at K = 1 is one point like the others instead of the divisor of
    all of them. Both coefficients are kept >= 0 (projected Levenberg-Marquardt, started
    from the linearised fit of :func:`fit_usl` and checked against the best fit with either
    coefficient at zero).

    Parameters
    ----------
    k : array_like
        Worker counts, whole numbers >= 1, at least three points and two distinct counts >= 2.
    throughput : array_like
        Measured throughputs (or speedups, or 1/T(K)), > 0, same length as ``k``.

    Returns
    -------
    USLThroughputFit
        ``(sigma, kappa, x1)``.

    Raises
    ------
    ValueError
        If the lists differ in length, hold a bad value or have too few points.

    Examples
    --------
    >>> K = np.array([1, 2, 4, 8, 16, 32, 64])
    >>> fit = fit_usl_throughput(K, 950 * usl_speedup(K, 0.03, 0.0005))
    >>> round(fit.sigma, 6), round(fit.kappa, 8), round(fit.x1, 3)
    (0.03, 0.0005, 950.0)
    """
    k_arr = check_whole("k", k)
    x_arr = check_positive("throughput", throughput)
    if k_arr.ndim != 1 or x_arr.shape != k_arr.shape:
        raise ValueError(f"k and throughput must be flat lists of one length; got shapes {k_arr.shape} and "
                         f"{x_arr.shape}")
    if k_arr.size < 3 or np.unique(k_arr[k_arr >= 2]).size < 2:
        raise ValueError("k must hold at least three points, two of them at different worker counts of 2 or more, "
                         "to fit three unknowns")
    k_arr = k_arr.astype(float)
    log_x = np.log(x_arr)
    if not np.all(np.isfinite(log_x)):
        raise ValueError("throughput is too large or too small to fit")
    # start from the linearised fit on X/X(smallest K) rescaled to a speedup
    first = int(np.argmin(k_arr))
    ratio = x_arr / x_arr[first] * usl_speedup(k_arr[first], 0.0, 0.0)
    y = k_arr / ratio - 1.0
    design = np.column_stack([k_arr - 1.0, k_arr * (k_arr - 1.0)])
    start = np.maximum(least_squares(design, y, "k and throughput"), 0.0)
    params, cost = _fit_log(k_arr, log_x, start, np.array([True, True]))
    if not np.all(params > 0):           # on an edge: the better of the two one-coefficient fits
        for free in (np.array([True, False]), np.array([False, True])):
            edge, edge_cost = _fit_log(k_arr, log_x, start, free)
            if edge_cost < cost:
                params, cost = edge, edge_cost
    _, _, log_x1 = _log_residuals(params, k_arr, log_x)
    return USLThroughputFit(float(params[0]), float(params[1]), float(np.exp(log_x1)))


@public(allow_inf=True)
def usl_peak_workers(sigma, kappa):
    r"""The worker count at which the USL speedup peaks.

    Setting the derivative of :math:`S(K)` to zero gives

    .. math:: K^* = \sqrt{\frac{1 - \sigma}{\kappa}}

    Past :math:`K^*` every added worker makes the job slower. The result is a
    real number (the best whole count is its floor or its ceiling); it is
    infinite when ``kappa = 0`` (Amdahl's law never turns down) and 1 when the
    formula gives less than one worker.

    Parameters
    ----------
    sigma : float or array_like
        Contention coefficient, >= 0.
    kappa : float or array_like
        Coherency coefficient, >= 0.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> round(usl_peak_workers(0.03, 0.0005), 2)
    44.05
    >>> usl_peak_workers(0.05, 0.0)
    inf
    >>> usl_peak_workers(0.0, 1e-320)     # too small a kappa to divide by: the peak is out of reach
    inf
    """
    a_arr = check_nonnegative("sigma", sigma)
    b_arr = check_nonnegative("kappa", kappa)
    ab, bb = check_broadcast(sigma=a_arr, kappa=b_arr)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # a tiny kappa: the peak is at infinity
        raw = np.sqrt(np.maximum(1.0 - ab, 0.0) / np.where(bb > 0, bb, 1.0))
    out = np.where(bb > 0, np.maximum(raw, 1.0), np.inf)
    return scalar_or_array(out, a_arr, b_arr)
