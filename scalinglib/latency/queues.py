r"""Queues: Little's law, the M/M/1 and M/M/c queues, Kingman's formula, a simulated queue (Section 3.4).

* **Little's law** (Little 1961): in any stable system, the mean number of
  requests inside equals their arrival rate times the mean time each one spends
  inside, :math:`N_\text{sys} = \lambda T_\text{sys}` (usually written
  :math:`L = \lambda W`; the book keeps L for sequence length and W for work).
* **The M/M/1 queue**: requests arrive at random (a Poisson process of rate
  :math:`\lambda` per second) at one server that takes an exponentially
  distributed time of mean :math:`1/\mu` per request. With utilization
  :math:`U = \lambda/\mu < 1` the response time (waiting plus service) is
  itself exponential with rate :math:`\mu - \lambda`, so

  .. math:: \bar T = \frac{1}{\mu - \lambda} = \frac{1/\mu}{1 - U}, \qquad
            T_q = \frac{-\ln(1 - q)}{\mu - \lambda}

  for the mean and the q-quantile (any queueing text). Both grow without bound
  as :math:`U \to 1`. For service times of any distribution, the mean wait
  grows with their squared coefficient of variation :math:`C_s^2`
  (Pollaczek-Khinchine; Kingman's formula for general arrivals).

:func:`simulate_mm1` runs such a queue with a seeded random generator and
:func:`over_seeds` summarises any seeded simulation over several seeds. The
seeded generator and the size caps here are shared by the other simulations of
``scalinglib.latency``. All times are in seconds and rates in requests per second.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .._validate import (
    as_float_array,
    check_broadcast,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_size,
    checked_record,
    public,
    scalar_or_array,
    single,
    single_whole,
)

__all__ = [
    "littles_law",
    "mm1_mean_response",
    "mm1_response_percentile",
    "mmc_mean_response",
    "kingman_mean_wait",
    "QueueRun",
    "simulate_mm1",
    "SeedSummary",
    "over_seeds",
]


_LITTLE_NAMES = ("arrival_rate", "time_in_system", "number_in_system")


@public
def littles_law(*, arrival_rate=None, time_in_system=None, number_in_system=None):
    r"""Little's law, :math:`N_\text{sys} = \lambda T_\text{sys}`: give any two of the three, get the third.

    Parameters
    ----------
    arrival_rate : float or array_like, optional
        :math:`\lambda`, requests per second entering (equal to those leaving
        in a stable system), > 0.
    time_in_system : float or array_like, optional
        :math:`T_\text{sys}`, mean seconds a request spends inside (waiting and
        being served), > 0.
    number_in_system : float or array_like, optional
        :math:`N_\text{sys}`, mean number of requests inside at a random instant, > 0.

    Returns
    -------
    float or numpy.ndarray
        The quantity that was not given.

    Raises
    ------
    TypeError
        Not exactly two of the three were given (the message names all three).
    ValueError
        A given value is not > 0.

    References
    ----------
    J. D. C. Little, "A Proof for the Queuing Formula: L = lambda W",
    Operations Research 9(3), 383-387 (1961).

    Examples
    --------
    >>> littles_law(arrival_rate=200.0, time_in_system=0.25)     # requests in flight
    50.0
    >>> littles_law(number_in_system=64, time_in_system=2.0)     # requests per second
    32.0
    """
    given = {"arrival_rate": arrival_rate, "time_in_system": time_in_system, "number_in_system": number_in_system}
    present = [name for name, value in given.items() if value is not None]
    if len(present) != 2:
        missing = ", ".join(name for name in _LITTLE_NAMES if name not in present) or "none"
        raise TypeError(
            "littles_law needs exactly two of arrival_rate, time_in_system, number_in_system "
            f"(as keywords); got {len(present)}, missing: {missing}"
        )
    values = {name: check_positive(name, given[name]) for name in present}
    a, b = check_broadcast(**values)
    if "number_in_system" not in present:
        result = a * b
    elif "arrival_rate" in present:   # T_sys = L / lambda
        result = values["number_in_system"] / values["arrival_rate"]
    else:                             # lambda = L / T_sys
        result = values["number_in_system"] / values["time_in_system"]
    return scalar_or_array(np.asarray(result, dtype=float), *values.values())


def _stable_rates(arrival_rate, service_rate):
    lam = check_nonnegative("arrival_rate", arrival_rate)
    mu = check_positive("service_rate", service_rate)
    lb, mb = check_broadcast(arrival_rate=lam, service_rate=mu)
    unstable = lb >= mb
    if unstable.any():
        index = tuple(int(i) for i in np.argwhere(unstable)[0])
        where = "" if lb.ndim == 0 else f" (at index {index[0] if len(index) == 1 else index})"
        raise ValueError(
            "arrival_rate must be < service_rate for a stable queue (utilization below 1); "
            f"got arrival_rate {lb[unstable].flat[0]:g} >= service_rate {mb[unstable].flat[0]:g}{where}"
        )
    return lam, mu, lb, mb


@public
def mm1_mean_response(arrival_rate, service_rate):
    r"""Mean response time (queueing plus service) of an M/M/1 queue.

    .. math:: \bar T = \frac{1}{\mu - \lambda} = \frac{1/\mu}{1 - U}, \qquad U = \lambda / \mu

    Parameters
    ----------
    arrival_rate : float or array_like
        :math:`\lambda`, requests per second, >= 0 and below ``service_rate``.
    service_rate : float or array_like
        :math:`\mu`, requests per second the server completes when busy, > 0.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        A rate out of range, or ``arrival_rate >= service_rate`` (the queue
        grows without bound and has no steady state).

    Examples
    --------
    >>> mm1_mean_response(0.0, 100.0)      # an idle server: just the 10 ms service time
    0.01
    >>> round(mm1_mean_response(90.0, 100.0), 6)   # 90% busy: ten times the service time
    0.1
    """
    lam, mu, lb, mb = _stable_rates(arrival_rate, service_rate)
    return scalar_or_array(1.0 / (mb - lb), lam, mu)


@public
def mmc_mean_response(arrival_rate, service_rate, servers):
    r"""Mean response time of an M/M/c queue: ``servers`` servers sharing one first-come, first-served queue.

    With offered load :math:`a = \lambda/\mu` and utilization :math:`U = a/c`,
    a request waits with the Erlang C probability

    .. math:: \Pr[\text{wait}] = \frac{\dfrac{a^c}{c!\,(1 - U)}}{\sum_{k=0}^{c-1} \dfrac{a^k}{k!}
              + \dfrac{a^c}{c!\,(1 - U)}}, \qquad \bar T = \frac{1}{\mu} + \frac{\Pr[\text{wait}]}{c\,\mu - \lambda}

    (any queueing text). For :math:`c = 1` it is the M/M/1 queue
    (:math:`\Pr[\text{wait}] = U`), for :math:`c = 2`, :math:`\Pr[\text{wait}] = 2U^2/(1 + U)`.

    Parameters
    ----------
    arrival_rate : float or array_like
        :math:`\lambda`, requests per second to the whole queue, >= 0 and
        below ``servers * service_rate``.
    service_rate : float or array_like
        :math:`\mu`, requests per second one server completes, > 0.
    servers : int
        :math:`c`, whole from 1 to 1,000,000 (one number). Up to 64 servers the
        Erlang B recursion runs term by term; above, one vectorised sum in
        logarithms gives the same value (the time grows with ``servers`` times
        the number of arrival rates, which together may be at most 20,000,000).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    TypeError
        An array for ``servers``.
    ValueError
        A value out of range, or ``arrival_rate >= servers * service_rate``
        (no steady state).

    Examples
    --------
    >>> round(1e3 * mmc_mean_response(160.0, 100.0, 2), 2)     # ms: two servers at U = 0.8
    27.78
    >>> round(1e3 * mmc_mean_response(800.0, 100.0, 10), 2)    # ten servers sharing one queue
    12.05
    >>> mmc_mean_response(80.0, 100.0, 1) == mm1_mean_response(80.0, 100.0)
    True
    """
    c = single_whole("servers", servers, maximum=MAX_SERVERS, why="a queue the Erlang sum handles in a second")
    lam = check_nonnegative("arrival_rate", arrival_rate)
    mu = check_positive("service_rate", service_rate)
    lb, mb = check_broadcast(arrival_rate=lam, service_rate=mu)
    unstable = lb >= c * mb
    if unstable.any():
        raise ValueError(
            f"arrival_rate must be < servers x service_rate ({c} x {mb[unstable].flat[0]:g}) for a stable "
            f"queue (utilization below 1); got arrival_rate {lb[unstable].flat[0]:g}")
    a = lb / mb
    if c > _ERLANG_LOOP:
        check_size("arrival_rate and servers", np.size(a) * c, 20_000_000, "about a second of arithmetic",
                   "values of arrival_rate x servers")
    blocking = _erlang_b(c, a)
    wait = c * blocking / (c - a * (1 - blocking))         # Erlang C from Erlang B
    return scalar_or_array(1.0 / mb + wait / (c * mb - lb))


#: Servers up to which :func:`mmc_mean_response` runs the Erlang B recursion term by term; above
#: it, one vectorised sum in logarithms (the same value to about 1e-13).
_ERLANG_LOOP = 64
#: The most servers :func:`mmc_mean_response` takes: its sum over a million terms takes about 50 ms.
MAX_SERVERS = 1_000_000


def _erlang_b(c: int, a):
    """Erlang B, the blocking probability of c servers at offered load a (a scalar or an array)."""
    if c <= _ERLANG_LOOP:
        blocking = np.ones_like(a)      # the recursion B(k) = a B(k-1) / (k + a B(k-1))
        for k in range(1, c + 1):
            blocking = a * blocking / (k + a * blocking)
        return blocking
    # 1/B(c, a) = sum_{k=0}^{c} c! / (k! a^(c-k)) = sum_k exp(L_k - (c - k) ln a), L_k = ln(c!/k!)
    logs = np.log(np.arange(1.0, c + 1.0))
    big_l = np.concatenate((np.cumsum(logs[::-1])[::-1], [0.0]))
    steps = np.arange(c, -1, -1, dtype=float)          # c - k
    flat = np.atleast_1d(np.asarray(a, dtype=float)).ravel()
    out = np.zeros_like(flat)
    for i, load in enumerate(flat):
        if load > 0:
            r = big_l - steps * np.log(load)
            top = r.max()
            out[i] = np.exp(-(top + np.log(np.sum(np.exp(r - top)))))
    return out.reshape(np.shape(a)) if np.ndim(a) else out[0]


@public
def mm1_response_percentile(q, arrival_rate, service_rate):
    r"""The q-quantile of the M/M/1 response time.

    The response time is exponential with rate :math:`\mu - \lambda`, so

    .. math:: T_q = \frac{-\ln(1 - q)}{\mu - \lambda}.

    The 99th percentile (q = 0.99) is :math:`\ln 100 \approx 4.6` times the mean.

    Parameters
    ----------
    q : float or array_like
        The quantile, strictly between 0 and 1 (0.99 for p99).
    arrival_rate : float or array_like
        :math:`\lambda`, requests per second, >= 0 and below ``service_rate``.
    service_rate : float or array_like
        :math:`\mu`, requests per second, > 0.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        q outside (0, 1), a rate out of range, or an unstable queue.

    Examples
    --------
    >>> round(mm1_response_percentile(0.5, 50.0, 100.0) * 1e3, 2)    # ms, median at 50% load
    13.86
    >>> round(mm1_response_percentile(0.99, 90.0, 100.0) * 1e3, 1)   # ms, p99 at 90% load
    460.5
    """
    qq = check_fraction("q", q, open_low=True, open_high=True)
    lam, mu, lb, mb = _stable_rates(arrival_rate, service_rate)
    qb, lb, mb = check_broadcast(q=qq, arrival_rate=lb, service_rate=mb)
    return scalar_or_array(-np.log1p(-qb) / (mb - lb), qq, lam, mu)


@public
def kingman_mean_wait(utilization, mean_service, scv_service, scv_arrival=1.0):
    r"""Mean time a request waits in the queue of one server before its service starts.

    Kingman's formula for a single first-come, first-served server:

    .. math:: \bar T_\text{wait} \approx \frac{U}{1 - U}\,\frac{C_a^2 + C_s^2}{2}\,\bar s,

    with :math:`\bar s` the mean service time, :math:`C_s^2 = \mathrm{Var}(s)/\bar s^2`
    the squared coefficient of variation of the service times and :math:`C_a^2`
    that of the gaps between arrivals. For Poisson arrivals (:math:`C_a^2 = 1`,
    the default) it is exact: the Pollaczek-Khinchine formula of the M/G/1
    queue. Exponential service (:math:`C_s^2 = 1`) gives the M/M/1 wait
    :math:`U \bar s/(1 - U)`; constant service (:math:`C_s^2 = 0`) halves it. The
    mean response time is :math:`\bar T_\text{wait} + \bar s`.

    Parameters
    ----------
    utilization : float or array_like
        :math:`U`, the share of time the server is busy, in [0, 1).
    mean_service : float or array_like
        :math:`\bar s`, seconds, > 0.
    scv_service : float or array_like
        :math:`C_s^2`, >= 0 (1 for exponential service times).
    scv_arrival : float or array_like, optional
        :math:`C_a^2`, >= 0 (default 1: Poisson arrivals, where the formula is exact).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        A value out of range (``utilization`` of 1 or more has no steady state).

    References
    ----------
    J. F. C. Kingman, "The single server queue in heavy traffic", Proceedings
    of the Cambridge Philosophical Society 57(4), 902-904 (1961).

    Examples
    --------
    >>> round(1e3 * kingman_mean_wait(0.8, 0.010, 1.0), 6)     # ms: the M/M/1 wait, 50 ms - 10 ms
    40.0
    >>> round(1e3 * kingman_mean_wait(0.8, 0.010, 0.0), 6)     # ms: constant service halves it
    20.0
    >>> round(kingman_mean_wait(0.8, 0.010, 13.0) / kingman_mean_wait(0.8, 0.010, 1.0), 6)   # (1 + 13) / 2
    7.0
    """
    u = check_fraction("utilization", utilization, open_high=True)
    s = check_positive("mean_service", mean_service)
    cs = check_nonnegative("scv_service", scv_service)
    ca = check_nonnegative("scv_arrival", scv_arrival)
    ub, sb, csb, cab = check_broadcast(utilization=u, mean_service=s, scv_service=cs, scv_arrival=ca)
    return scalar_or_array(ub / (1.0 - ub) * (cab + csb) / 2.0 * sb, u, s, cs, ca)


def _times(name, value) -> np.ndarray:
    """A one-dimensional array of finite times >= 0."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of times; got {type(value).__name__}")
    if value.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {value.shape}")
    return check_nonnegative(name, value)


def _check_queue_run(run) -> None:
    for name in run._fields:
        _times(name, getattr(run, name))
    if not run.arrivals.shape == run.departures.shape == run.response.shape:
        raise ValueError("arrivals, departures and response must have the same length; got "
                         f"{run.arrivals.size}, {run.departures.size} and {run.response.size}")


@checked_record(_check_queue_run)
class QueueRun(NamedTuple):
    """One simulated run of a first-come, first-served queue (seconds, finite and >= 0)."""

    arrivals: np.ndarray  #: arrival time of each request, increasing
    departures: np.ndarray  #: departure time of each request (increasing too: first come, first served)
    response: np.ndarray  #: departures - arrivals: waiting plus service


def _rng(seed):
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a whole number (or a numpy Generator); got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0; got {seed}")
    return np.random.default_rng(int(seed))


#: Why the simulations' sizes are capped: a reader's typo must not hang the notebook.
_NOTEBOOK = "a notebook-sized simulation"
#: Requests of :func:`simulate_mm1` and :func:`simulate_hedged_requests` (about half a second).
MAX_REQUESTS = 2_000_000
#: Samples of :func:`sample_server_latency` (about half a second).
MAX_SAMPLES = 5_000_000
#: Largest log-normal shape of :func:`sample_server_latency`: at sigma = 10 the fast path already
#: spans a factor e^20 (about 5e8) between its 2.5% and 97.5% quantiles; more would overflow to inf.
MAX_SIGMA = 10.0


@public
def simulate_mm1(arrival_rate, service_rate, n_requests=100_000, seed=0):
    r"""Simulate an M/M/1 queue, first come first served, with a seeded generator.

    Inter-arrival times are exponential with mean :math:`1/\lambda`, service
    times exponential with mean :math:`1/\mu`. The waiting times follow
    Lindley's recursion :math:`w_{i+1} = \max(0,\ w_i + s_i - a_{i+1})`, computed
    without a Python loop: with :math:`X_i` the running sum of
    :math:`s_j - a_{j+1}`, :math:`w_i = X_i - \min_{j \le i} X_j`.

    Parameters
    ----------
    arrival_rate, service_rate : float
        :math:`\lambda > 0` and :math:`\mu > 0`, with :math:`\lambda < \mu`; one
        number each (an array is refused with a TypeError). An arrival rate of
        0 is refused here (no request would ever arrive).
    n_requests : int, optional
        Requests to simulate, whole from 1 to 2,000,000 (default 100,000; the
        largest takes about half a second).
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng`` (default 0): the same seed gives
        the same run.

    Returns
    -------
    QueueRun

    Examples
    --------
    >>> run = simulate_mm1(80.0, 100.0, 200_000, seed=1)
    >>> round(float(run.response.mean()) / mm1_mean_response(80.0, 100.0), 2)   # simulation / formula
    1.0
    """
    lam = single(check_positive, "arrival_rate", arrival_rate)
    mu = single(check_positive, "service_rate", service_rate)
    _stable_rates(lam, mu)
    n = single_whole("n_requests", n_requests, maximum=MAX_REQUESTS, why=_NOTEBOOK)
    rng = _rng(seed)
    gaps = rng.exponential(1.0 / lam, n)
    service = rng.exponential(1.0 / mu, n)
    arrivals = np.cumsum(gaps)
    # X_0 = 0, X_i = sum_{j < i} (s_j - a_{j+1}); then w_i = X_i - min_{j <= i} X_j
    x = np.concatenate(([0.0], np.cumsum(service[:-1] - gaps[1:])))
    wait = x - np.minimum.accumulate(x)
    response = wait + service
    return QueueRun(arrivals, arrivals + response, response)


#: The most seeds :func:`over_seeds` runs (each one is a whole simulation).
_SEEDS_MAX = 1000


def _check_seed_summary(summary) -> None:
    if not isinstance(summary.values, np.ndarray):
        raise TypeError(f"values must be a numpy array, one row per seed; got {type(summary.values).__name__}")
    if summary.values.ndim == 0 or summary.values.shape[0] < 1:
        raise ValueError(f"values must hold one row per seed; got shape {summary.values.shape}")
    for name in ("mean", "std", "low", "high"):
        # signed: a simulated quantity may be negative (a difference, a saving)
        arr = as_float_array(name, getattr(summary, name))
        if arr.shape != summary.values.shape[1:]:
            raise ValueError(f"{name} must have the shape of one seed's values {summary.values.shape[1:]}; "
                             f"got {arr.shape}")
    if np.any(np.asarray(summary.std, dtype=float) < 0):
        raise ValueError(f"std must be >= 0; got {summary.std}")


@checked_record(_check_seed_summary)
class SeedSummary(NamedTuple):
    """Mean and spread of a simulated quantity over several seeds (from :func:`over_seeds`).

    Formatting one gives the mean and the range of the seeds, ``f"{s:.1f}"`` ->
    ``"22.4 (20.9–24.1)"``; :meth:`scaled` converts units first.
    """

    mean: float | np.ndarray  #: mean over the seeds
    std: float | np.ndarray  #: standard deviation over the seeds (n - 1 in the denominator)
    low: float | np.ndarray  #: smallest value over the seeds
    high: float | np.ndarray  #: largest value over the seeds
    values: np.ndarray  #: one row per seed

    def scaled(self, factor):
        """The same summary with every value multiplied by ``factor`` (1e3 for ms, 100 for percent)."""
        f = float(factor)
        if f < 0:
            raise ValueError(f"factor must be >= 0; got {factor!r}")
        return SeedSummary(*(x * f for x in self))

    def __format__(self, spec):
        def one(x):
            return format(float(x), spec)

        if np.ndim(self.mean):
            return str(self)
        return f"{one(self.mean)} ({one(self.low)}–{one(self.high)})"


@public(signed=True)
def over_seeds(simulate, n_seeds=10, first_seed=0):
    r"""Run a seeded simulation once per seed and summarise it: mean and spread over the seeds.

    One seeded run gives one draw of a random quantity; its next seed can give
    a different number. Quoting the mean over several seeds, with their range,
    says how far a single run can be trusted.

    Parameters
    ----------
    simulate : callable
        ``simulate(seed)`` returns a number, an array of numbers (the same
        shape for every seed), or a dict of numbers or arrays.
    n_seeds : int, optional
        Seeds to run, whole from 2 to 1,000 (default 10).
    first_seed : int, optional
        The seeds are ``first_seed, first_seed + 1, ...``, whole >= 0 (default 0).

    Returns
    -------
    SeedSummary, or a dict of them
        A dict (same keys) when ``simulate`` returns a dict.

    Raises
    ------
    TypeError
        ``simulate`` not callable, or results that are not numbers.
    ValueError
        ``n_seeds`` or ``first_seed`` out of range, or results whose shape
        changes between seeds.

    Examples
    --------
    >>> s = over_seeds(lambda seed: simulate_mm1(80.0, 100.0, 20_000, seed).response.mean())
    >>> round(float(s.mean), 3), s.values.shape           # seconds; the formula gives 0.050
    (0.05, (10,))
    >>> bool(s.low <= s.mean <= s.high)
    True
    >>> f"{over_seeds(lambda seed: float(seed), n_seeds=3):.1f}"     # mean (range)
    '1.0 (0.0–2.0)'
    """
    if not callable(simulate):
        raise TypeError(f"simulate must be a function of the seed; got {simulate!r}")
    n = single_whole("n_seeds", n_seeds, minimum=2)
    if n > _SEEDS_MAX:
        raise ValueError(f"n_seeds must be a whole number from 2 to {_SEEDS_MAX:,}; got {n:,}")
    first = single_whole("first_seed", first_seed, minimum=0)
    results = [simulate(seed) for seed in range(first, first + n)]
    if all(isinstance(r, Mapping) for r in results):
        keys = list(results[0])
        if any(list(r) != keys for r in results):
            raise ValueError("simulate must return a dict with the same keys for every seed")
        return {k: _summarise([r[k] for r in results], k) for k in keys}
    return _summarise(results, "simulate")


def _summarise(results, name):
    try:
        values = np.array([np.asarray(r, dtype=float) for r in results])
    except (TypeError, ValueError) as err:
        if isinstance(err, ValueError) and "inhomogeneous" in str(err):
            raise ValueError(f"{name} must return the same shape for every seed") from None
        raise TypeError(f"{name} must return numbers; got {results[0]!r}") from None
    if values.dtype == object:
        raise ValueError(f"{name} must return the same shape for every seed")

    def out(x):
        return float(x) if np.ndim(x) == 0 else x

    return SeedSummary(out(values.mean(axis=0)), out(values.std(axis=0, ddof=1)), out(values.min(axis=0)),
                       out(values.max(axis=0)), values)
