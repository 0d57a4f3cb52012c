r"""Latency, throughput and the tail (Section 3.4).

Four small models, each checked in the tests against a seeded simulation or a
published number:

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
* **Fan-out**: a request that waits for n servers, each slow with probability
  p independently, is slow with probability :math:`1 - (1 - p)^n` (Dean and
  Barroso 2013).
* **Stragglers**: a synchronous step over K workers lasts as long as the
  slowest one. If each worker needs a fixed time :math:`t_0` plus an
  exponential delay of mean :math:`\tau` (the jitter model), the expected step
  time is :math:`t_0 + \tau H_K`, with :math:`H_K = \sum_{i=1}^K 1/i \approx \ln K + 0.5772`;
  with r backup workers, the step ends when the fastest K of K + r are done,
  :math:`t_0 + \tau (H_{K+r} - H_r)` (Rényi's representation of exponential
  order statistics; backup workers as in Chen et al. 2016).

Hedged and tied requests (Dean and Barroso 2013) are simulated twice, both
times with a seeded random generator. :func:`simulate_hedged_requests` draws
each copy's latency from the mixture of :func:`sample_server_latency`, as if
the replicas had spare capacity (the second copies add no queueing).
:func:`simulate_replicas` puts the copies into first-come, first-served queues
of replicated servers, so that the load they add is felt.

All times are in seconds and rates in requests per second.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._validate import (
    as_float_array,
    check_broadcast,
    check_choice,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_size,
    check_whole,
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
    "fanout_slow_probability",
    "sample_server_latency",
    "HedgeResult",
    "simulate_hedged_requests",
    "ReplicaRun",
    "simulate_replicas",
    "harmonic_number",
    "expected_slowest_step",
    "simulate_slowest_step",
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


@public
def fanout_slow_probability(p_slow, n):
    r"""Chance that a request fanned out to n servers meets at least one slow one.

    .. math:: P = 1 - (1 - p)^n

    for servers that are slow independently with probability p each. The user
    waits for the slowest reply, so this is the chance the whole request is slow.

    Parameters
    ----------
    p_slow : float or array_like
        Probability that one server is slow, in [0, 1].
    n : int or array_like
        Servers the request waits for, whole >= 1.

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    J. Dean and L. A. Barroso, "The Tail at Scale", Communications of the ACM
    56(2), 74-80 (2013): with 1 server in 100 slow, a request to 100 servers is
    slow 63% of the time; with 1 in 10,000 and 2,000 servers, almost one in five.

    Examples
    --------
    >>> round(fanout_slow_probability(0.01, 100), 3)
    0.634
    >>> round(fanout_slow_probability(1e-4, 2000), 3)
    0.181
    """
    p = check_fraction("p_slow", p_slow)
    k = check_whole("n", n)
    pb, kb = check_broadcast(p_slow=p, n=k)
    with np.errstate(divide="ignore"):
        log_fast = np.log1p(-pb)       # -inf when p = 1
    prob = np.where(pb >= 1.0, 1.0, -np.expm1(kb * np.where(pb >= 1.0, 0.0, log_fast)))
    return scalar_or_array(prob, p, k)


@public
def sample_server_latency(n, seed=0, *, median=0.010, sigma=0.3, p_slow=0.02, slow_mean=0.3):
    r"""Response times of a healthy server with occasional hiccups (seconds).

    The model, a mixture with a slow tail:

    * every request takes a **fast-path** time drawn from a log-normal
      distribution with the given ``median`` (10 ms) and shape ``sigma`` (0.3,
      so 95% of fast-path times lie within a factor :math:`e^{1.96 \sigma} \approx 1.8`
      of the median);
    * with probability ``p_slow`` (2%) a **hiccup** adds an exponentially
      distributed delay of mean ``slow_mean`` (300 ms): a garbage-collection
      pause, a busy disk, a queue behind a large request.

    The defaults give a p50 near 10 ms, a p95 near 18 ms, a p99 near 0.2 s and a
    p99.9 near 0.9 s: a fast median and a tail a hundred times slower, the shape
    Dean and Barroso (2013) describe.

    Parameters
    ----------
    n : int
        Number of samples, whole from 1 to 5,000,000.
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng`` (default 0).
    median, sigma, slow_mean : float, optional
        Seconds, seconds-free shape, seconds; each > 0, and ``sigma`` at most 10
        (beyond it the fast path's spread overflows to infinite latencies).
    p_slow : float, optional
        Probability of a hiccup, in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``n`` latencies in seconds.

    Examples
    --------
    >>> x = sample_server_latency(200_000, seed=0)
    >>> [round(float(np.quantile(x, q)) * 1e3) for q in (0.5, 0.99)]    # ms
    [10, 224]
    """
    count = single_whole("n", n, maximum=MAX_SAMPLES, why=_NOTEBOOK)
    m = single(check_positive, "median", median)
    s = single(check_positive, "sigma", sigma)
    if s > MAX_SIGMA:
        raise ValueError(f"sigma must be <= {MAX_SIGMA:g} (a log-normal shape past it overflows to infinite "
                         f"latencies); got {s:g}")
    p = single(check_fraction, "p_slow", p_slow)
    tail = single(check_positive, "slow_mean", slow_mean)
    rng = _rng(seed)
    fast = m * np.exp(s * rng.standard_normal(count))
    hiccup = rng.random(count) < p
    return fast + np.where(hiccup, rng.exponential(tail, count), 0.0)


def _check_hedge_result(run) -> None:
    baseline, hedged = _times("baseline", run.baseline), _times("hedged", run.hedged)
    if baseline.shape != hedged.shape:
        raise ValueError(f"baseline and hedged must have the same length; got {baseline.size} and {hedged.size}")
    single(check_nonnegative, "delay", run.delay)
    single(check_fraction, "extra_load", run.extra_load)


@checked_record(_check_hedge_result)
class HedgeResult(NamedTuple):
    """Outcome of :func:`simulate_hedged_requests` (seconds, and a fraction)."""

    baseline: np.ndarray  #: latency of each request sent once
    hedged: np.ndarray  #: latency of the same requests with a hedge: min(primary, delay + backup)
    delay: float  #: how long a request waits before its second copy is sent
    extra_load: float  #: second copies sent per request (copies, not server-seconds): the share pending at ``delay``


@public
def simulate_hedged_requests(n_requests=200_000, hedge_quantile=0.95, seed=0, *, delay=None, **latency):
    r"""Seeded simulation of hedged requests (Dean and Barroso 2013), on replicas with spare capacity.

    Each request goes to one replica. If no answer has come back after a
    delay :math:`\delta`, a second copy goes to another replica, and the
    request completes with whichever answer arrives first (the other is
    cancelled):

    .. math:: T_\text{hedged} = \min(T_1,\ \delta + T_2).

    Both replicas draw their latency independently from
    :func:`sample_server_latency` (keyword arguments ``latency`` are passed to
    it). By default the delay is the ``hedge_quantile`` (95th percentile) of a
    separate calibration sample, as a real client would estimate it from past
    requests, so about 5% of requests send a second copy.

    Two assumptions make this the most favourable case:

    * **headroom**: :math:`T_2` is drawn from the same distribution whether
      hedging is on or off, as if the replicas had unlimited spare capacity. The
      second copies are real work, though, and on a busy server they lengthen
      every queue; :func:`simulate_replicas` puts them into queues.
    * **independence**: the two copies' latencies are independent, fast path
      included. A request that is slow because of its own size is slow on
      both replicas.

    Parameters
    ----------
    n_requests : int, optional
        Requests simulated, whole from 1 to 2,000,000 (default 200,000).
    hedge_quantile : float, optional
        Quantile of the latency at which to hedge, in (0, 1); ignored when
        ``delay`` is given.
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).
    delay : float, optional
        Hedge delay in seconds, >= 0, instead of the calibrated quantile.
    **latency
        ``median``, ``sigma``, ``p_slow``, ``slow_mean`` of the latency model.

    Returns
    -------
    HedgeResult
        The extra load is the fraction of requests still pending at the delay:
        the second copies sent per request. It counts copies, not
        server-seconds; a copy cancelled early costs less than a full request.

    Raises
    ------
    TypeError
        An array where one number is taken (``n_requests``,
        ``hedge_quantile``, ``delay`` or a latency parameter).
    ValueError
        A value out of its range.

    Examples
    --------
    >>> r = simulate_hedged_requests(seed=0)
    >>> round(r.extra_load, 2)
    0.05
    >>> bool(np.all(r.hedged <= r.baseline))    # a hedge never makes a request slower here
    True
    """
    n = single_whole("n_requests", n_requests, maximum=MAX_REQUESTS, why=_NOTEBOOK)
    rng = _rng(seed)
    if delay is None:
        q = single(check_fraction, "hedge_quantile", hedge_quantile, open_low=True, open_high=True)
        history = sample_server_latency(n, rng, **latency)
        d = float(np.quantile(history, q))
    else:
        d = single(check_nonnegative, "delay", delay)
    primary = sample_server_latency(n, rng, **latency)
    backup = sample_server_latency(n, rng, **latency)
    hedged = np.minimum(primary, d + backup)
    return HedgeResult(primary, hedged, d, float(np.mean(primary > d)))


#: Requests of :func:`simulate_replicas`, an event-driven loop in Python (one to two seconds at the cap).
MAX_REPLICA_REQUESTS = 500_000
#: Servers of :func:`simulate_replicas`.
MAX_REPLICA_SERVERS = 10_000

#: A run whose second half has a mean response this many times the first half's is taken as drifting.
DRIFT_LIMIT = 1.5


def _check_replica_run(run) -> None:
    _times("response", run.response)
    check_choice("policy", run.policy, _POLICIES)
    single(check_fraction, "utilization", run.utilization, open_low=True, open_high=True)
    if not (isinstance(run.delay, float) and run.delay == float("inf")):   # inf: no second copy is sent
        single(check_nonnegative, "delay", run.delay)
    for name in ("copies", "extra_work", "busy", "drift"):
        single(check_nonnegative, name, getattr(run, name))
    check_flag("steady", run.steady)


@checked_record(_check_replica_run)
class ReplicaRun(NamedTuple):
    """Outcome of :func:`simulate_replicas` (seconds, and fractions)."""

    response: np.ndarray  #: response time of each request after the warm-up, in arrival order
    policy: str  #: "none", "two_choices", "hedged" or "tied"
    utilization: float  #: load of the requests themselves, per server: lambda x mean service time
    delay: float  #: seconds before a second copy is sent: inf without copies, 0 for tied requests
    copies: float  #: second copies sent per request (0 without hedging, 1 for tied requests)
    extra_work: float  #: server-seconds spent on cancelled copies, per server-second of completed work
    busy: float  #: measured share of time the servers were busy, cancelled work included
    drift: float  #: mean response of the second half of ``response`` over that of the first half
    steady: bool  #: False when the run shows no steady state (see :func:`simulate_replicas`)


_POLICIES = ("none", "two_choices", "hedged", "tied")


def _served_once(policy, arrivals, where, service, n_servers):
    """:func:`_replica_queues` for the policies that serve each request once: "none", "two_choices", "tied".

    First come, first served, a copy starts when its server has finished every copy served there
    before it, so one pass in arrival order gives the event loop's times with the same
    floating-point operations (a copy starts at its arrival or at the finish before it, and ends its
    service time later). Ties go as the event loop breaks them: finishes before an arrival at the
    same time, then the lower server first; a tied request whose two servers are both idle starts
    on the first. Completed work is summed in the order the event loop completes it (by finish time,
    then server).
    """
    n = len(arrivals)
    free = [-math.inf] * n_servers    # when each server finishes the copies it has been given
    finish = [0.0] * n
    server = [0] * n
    work = [0.0] * n
    tied, choose = policy == "tied", policy == "two_choices"
    held = [deque() for _ in range(n_servers)] if choose else None   # finish times of the requests at a server
    for i in range(n):
        t = arrivals[i]
        c = 2 * i
        s = where[c]
        if tied:
            b = where[c + 1]
            fs, fb = free[s], free[b]
            if fs > t and (fb <= t or fb < fs or (fb == fs and b < s)):
                s, c = b, c + 1         # the twin starts first; this copy is withdrawn unserved
        elif choose:                    # the server with fewer requests, waiting or in service (ties: the first)
            b = where[c + 1]
            qs, qb = held[s], held[b]
            while qs and qs[0] <= t:
                qs.popleft()
            while qb and qb[0] <= t:
                qb.popleft()
            if len(qb) < len(qs):
                s = where[c] = b
        start = free[s]
        f = (t if start <= t else start) + service[c]
        free[s] = finish[i] = f
        server[i] = s
        work[i] = service[c]
        if choose:
            held[s].append(f)
    finish = np.asarray(finish)
    done = float(np.cumsum(np.asarray(work)[np.lexsort((server, finish))])[-1]) if n else 0.0   # in sequence
    return finish, done, 0.0, n if tied else 0


def _replica_queues(policy, arrivals, where, service, delay, n_servers):
    """Event-driven run of ``n_servers`` first-come, first-served queues.

    Request i has copies 2i (primary) and 2i + 1 (second); ``where[c]`` is the server of copy c and
    ``service[c]`` its service time. Returns (finish times, completed server-seconds, cancelled
    server-seconds, second copies sent).
    """
    import heapq

    n = len(arrivals)
    hedge, tied, choose = policy == "hedged", policy == "tied", policy == "two_choices"
    queue = [deque() for _ in range(n_servers)]
    job = [-1] * n_servers            # copy in service at each server, -1 when idle
    started = [0.0] * n_servers       # when that copy started
    version = [0] * n_servers         # bumped when a copy in service is stopped, to void its completion
    state = bytearray(2 * n)          # 0 not sent, 1 queued, 2 in service, 3 done, 4 cancelled
    finish = [0.0] * n
    heap = []
    push, pop = heapq.heappush, heapq.heappop
    done_work = cancelled_work = 0.0
    copies = 0

    def start_next(s, t):
        q = queue[s]
        while q:
            c = q.popleft()
            if state[c] != 1:          # cancelled while it waited: removing it costs nothing
                continue
            state[c] = 2
            job[s], started[s] = c, t
            if tied and state[c ^ 1] == 1:
                state[c ^ 1] = 4       # tied: the twin is withdrawn as soon as this copy starts
            push(heap, (t + service[c], 0, s, version[s]))
            return
        job[s] = -1

    i, inf = 0, float("inf")
    next_arrival = arrivals[0] if n else inf
    while i < n or heap:
        if heap and heap[0][0] <= next_arrival:
            t, kind, x, ver = pop(heap)
            if kind == 0:                              # a copy finishes at server x
                if ver != version[x]:
                    continue
                c = job[x]
                done_work += service[c]
                state[c] = 3
                finish[c >> 1] = t
                twin = c ^ 1
                if state[twin] == 1:
                    state[twin] = 4
                elif state[twin] == 2:                 # the loser is stopped mid-service
                    s = where[twin]
                    cancelled_work += t - started[s]
                    state[twin] = 4
                    version[s] += 1
                    start_next(s, t)
                start_next(x, t)
            elif state[2 * x] != 3:                    # the hedge timer of request x, still pending
                c = 2 * x + 1
                state[c] = 1
                copies += 1
                s = where[c]
                queue[s].append(c)
                if job[s] < 0:
                    start_next(s, t)
        else:
            t = next_arrival
            c = 2 * i
            state[c] = 1
            if choose:                                 # one copy, to the server with fewer requests (ties: the first)
                a, b = where[c], where[c + 1]
                if len(queue[b]) + (job[b] >= 0) < len(queue[a]) + (job[a] >= 0):
                    where[c] = b
            s = where[c]
            queue[s].append(c)
            if tied:
                state[c + 1] = 1
                copies += 1
                queue[where[c + 1]].append(c + 1)
            if job[s] < 0:
                start_next(s, t)
            if tied and job[where[c + 1]] < 0:
                start_next(where[c + 1], t)
            if hedge:
                push(heap, (t + delay, 1, i, 0))
            i += 1
            next_arrival = arrivals[i] if i < n else inf
    return np.asarray(finish), done_work, cancelled_work, copies


def _hedged_queues(arrivals, where, service, delay, n_servers):
    """:func:`_replica_queues` for ``"hedged"``, with the same events in the same order and the same result.

    Every request's timer runs for the same ``delay``, so the timers fire in arrival order: the next one
    is that of the oldest request whose timer has not fired, and only the finishes need a heap. Ties
    go as in the event loop: a finish, then a timer (the older request first), then an arrival.
    """
    import heapq

    n = len(arrivals)
    queue = [deque() for _ in range(n_servers)]
    job = [-1] * n_servers            # copy in service at each server, -1 when idle
    started = [0.0] * n_servers       # when that copy started
    version = [0] * n_servers         # bumped when a copy in service is stopped, to void its completion
    state = bytearray(2 * n)          # 0 not sent, 1 queued, 2 in service, 3 done, 4 cancelled
    finish = [0.0] * n
    heap = []                         # finishes: (time, server, version)
    push, pop = heapq.heappush, heapq.heappop
    done_work = cancelled_work = 0.0
    copies = 0
    inf = float("inf")

    def start_next(s, t):
        q = queue[s]
        while q:
            c = q.popleft()
            if state[c] == 1:          # a copy cancelled while it waited is dropped at no cost
                state[c] = 2
                job[s], started[s] = c, t
                push(heap, (t + service[c], s, version[s]))
                return
        job[s] = -1

    i = h = 0                         # next request to arrive; oldest request whose timer has not fired
    next_arrival = arrivals[0] if n else inf
    while True:
        first = heap[0][0] if heap else inf
        timer = arrivals[h] + delay if h < i else inf
        if heap and first <= timer and first <= next_arrival:      # a copy finishes
            t, x, ver = pop(heap)
            if ver != version[x]:
                continue
            c = job[x]
            done_work += service[c]
            state[c] = 3
            finish[c >> 1] = t
            twin = c ^ 1
            if state[twin] == 1:
                state[twin] = 4
            elif state[twin] == 2:                 # the loser is stopped mid-service
                s = where[twin]
                cancelled_work += t - started[s]
                state[twin] = 4
                version[s] += 1
                start_next(s, t)
            start_next(x, t)
        elif h < i and timer <= next_arrival:      # the hedge timer of request h
            c = 2 * h + 1
            h += 1
            if state[c - 1] != 3:                  # its first copy is still pending: a second one is sent
                state[c] = 1
                copies += 1
                s = where[c]
                queue[s].append(c)
                if job[s] < 0:
                    start_next(s, timer)
        elif i < n:                                # request i arrives
            t = next_arrival
            c = 2 * i
            state[c] = 1
            s = where[c]
            queue[s].append(c)
            if job[s] < 0:
                start_next(s, t)
            i += 1
            next_arrival = arrivals[i] if i < n else inf
        else:
            break
    return np.asarray(finish), done_work, cancelled_work, copies


@public(allow_inf=("delay",))
def simulate_replicas(utilization, policy="none", n_servers=10, n_requests=50_000, seed=0, *,
                      delay=None, hedge_quantile=0.95, service_time=0.010, same_work=True, warmup=0.1):
    r"""Seeded simulation of replicated servers with queues: random routing, the shorter of two queues, hedged or tied requests.

    ``n_servers`` identical servers each serve one request at a time, first
    come first served. Requests arrive at random (a Poisson process) at a total
    rate :math:`\Lambda = n\,U/\bar s`, so that each server would be busy a
    share :math:`U` (``utilization``) of the time if every request were served
    once. Each request is given two different servers chosen at random, and
    needs an exponentially distributed service time of mean :math:`\bar s`
    (``service_time``). Four policies:

    * ``"none"``: one copy, to the first of its two servers: random routing.
      Each server is then an M/M/1 queue with :math:`\lambda = U/\bar s`, so
      :math:`T_q = -\ln(1-q)\,\bar s/(1-U)`.
    * ``"two_choices"``: one copy, to whichever of its two servers holds
      fewer requests (waiting or in service) when it arrives, the first on a
      tie: the "power of two choices" (Mitzenmacher 2001), load balancing
      without copies.
    * ``"hedged"``: if the request has not finished :math:`\delta`
      (``delay``) seconds after it arrived, a second copy joins the queue of
      another server chosen at random. The first copy to finish answers; the
      other is removed from its queue (free) or stopped mid-service (its
      server-seconds so far are the **extra work**). The second copies are
      real load: they lengthen the queue they join. Without ``delay`` the
      simulation first runs ``"none"`` on the same random draws and hedges at
      its ``hedge_quantile``.
    * ``"tied"``: both copies join two servers' queues on arrival, each
      server told of the other; when one copy starts service the other is
      withdrawn. Cancellation is taken as instant, so no work is wasted (Dean
      and Barroso add a short delay to avoid two idle servers starting at
      once). First come, first served, the copy that starts first is the one
      at the server with less unfinished work when the request arrived: with
      ``same_work=True`` a tied request is served exactly as if it had joined
      the less-loaded of its two servers, measured in work (join the least
      work of two). With two servers every request is tied to both and the
      pair is an M/M/2 queue: :math:`\bar T = \bar s + \Pr[\text{wait}]\,\bar s/(2(1 - U))`
      with :math:`\Pr[\text{wait}] = 2U^2/(1+U)`.

    With ``same_work=True`` (the default) a request needs the same service
    time on either server, its own work, so a second copy can only escape a
    long queue, not a slow server; with ``same_work=False`` each copy draws its
    own time (slowness that belongs to the server), and at a load near zero a
    hedged request takes :math:`\min(S_1, \delta + S_2)`. Queues start empty;
    the first ``warmup`` share of the requests is dropped from ``response``.

    **Steady state.** Copies add load: the offered load, cancelled work
    included, is :math:`U\,(1 + \text{extra work})`. If it reaches 1 the
    queues grow for as long as the run lasts, and the percentiles grow with
    the number of requests: they describe the run, not the system. A run is
    reported ``steady=False`` when that load is >= 1, or when it drifts: the
    mean response of the second half of ``response`` is at least
    ``DRIFT_LIMIT`` (1.5) times that of the first half. The drift test is a
    heuristic: near saturation a stable run can wander (at :math:`U = 0.95`,
    50,000 requests, one copy, the ratio stayed between 0.66 and 1.42 over
    20 seeds), and a barely unstable one drifts slowly.

    Parameters
    ----------
    utilization : float
        :math:`U`, in (0, 1): the load of the requests themselves. Hedging adds
        to it; if the total passes 1 the queues grow for the whole run (no
        steady state, ``steady=False``).
    policy : {"none", "two_choices", "hedged", "tied"}, optional
    n_servers : int, optional
        Servers, whole from 2 to 10,000 (default 10).
    n_requests : int, optional
        Requests simulated, whole from 1 to 500,000 (default 50,000; about 0.2 s,
        twice that for ``"hedged"`` without ``delay``).
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng`` (default 0). Every policy uses the
        same arrivals, servers and service times for the same seed.
    delay : float, optional
        :math:`\delta`, seconds >= 0, for ``"hedged"`` only.
    hedge_quantile : float, optional
        In (0, 1) (default 0.95): where to hedge when ``delay`` is not given.
    service_time : float, optional
        :math:`\bar s`, mean service time in seconds, > 0 (default 0.010).
    same_work : bool, optional
        Whether both copies of a request need the same service time (default True).
    warmup : float, optional
        Share of the first requests left out of ``response``, in [0, 1) (default 0.1).

    Returns
    -------
    ReplicaRun
        ``response`` (seconds), the ``delay`` used (inf for ``"none"``, 0 for
        ``"tied"``), ``copies`` (second copies sent per request),
        ``extra_work`` (server-seconds of cancelled copies over those of
        completed ones; 0 except when hedging), ``busy`` (measured share of
        time the servers worked), ``drift`` (second half's mean response over
        the first half's) and ``steady``.

    Raises
    ------
    TypeError
        An array where one number is taken, or ``same_work`` not True or False.
    ValueError
        A value out of its range, an unknown policy, or ``delay`` with a policy
        other than ``"hedged"``.

    References
    ----------
    J. Dean and L. A. Barroso, "The Tail at Scale", Communications of the ACM
    56(2), 74-80 (2013), for hedged and tied requests.
    M. Mitzenmacher, "The Power of Two Choices in Randomized Load Balancing",
    IEEE Transactions on Parallel and Distributed Systems 12(10), 1094-1104
    (2001), for the shorter of two queues.

    Examples
    --------
    >>> none = simulate_replicas(0.8, "none", seed=2)
    >>> round(1e3 * float(np.mean(none.response)))      # ms; M/M/1: 10 ms / (1 - 0.8) = 50 ms
    51
    >>> tied = simulate_replicas(0.8, "tied", n_servers=2, seed=2)
    >>> round(1e3 * float(np.mean(tied.response)))      # ms; M/M/2: 10 + 0.711 x 10 / 0.4 = 27.8 ms
    28
    >>> hedged = simulate_replicas(0.8, "hedged", seed=2)     # hedged at the p95 of "none"
    >>> round(hedged.copies, 3), round(hedged.extra_work, 3), hedged.steady
    (0.033, 0.009, True)
    >>> storm = simulate_replicas(0.9, "hedged", seed=2, delay=0.02)    # copies for most requests
    >>> round(0.9 * (1 + storm.extra_work), 2), storm.steady            # offered load > 1: no steady state
    (1.07, False)
    """
    u = single(check_fraction, "utilization", utilization, open_low=True, open_high=True)
    kind = check_choice("policy", policy, _POLICIES)
    servers = single_whole("n_servers", n_servers, minimum=2, maximum=MAX_REPLICA_SERVERS, why=_NOTEBOOK)
    n = single_whole("n_requests", n_requests, maximum=MAX_REPLICA_REQUESTS,
                     why="a notebook-sized simulation: each request is an event of a Python loop")
    mean = single(check_positive, "service_time", service_time)
    same = check_flag("same_work", same_work)
    drop = single(check_fraction, "warmup", warmup, open_high=True)
    if delay is not None:
        if kind != "hedged":
            raise ValueError(f"delay applies only to policy 'hedged'; got policy {kind!r}")
        d = single(check_nonnegative, "delay", delay)
    elif kind == "hedged":
        q = single(check_fraction, "hedge_quantile", hedge_quantile, open_low=True, open_high=True)
    rng = _rng(seed)
    arrivals = np.cumsum(rng.exponential(mean / (servers * u), n))
    if not np.isfinite(arrivals[-1]):
        raise ValueError(f"utilization {u:g} and service_time {mean:g} s put the arrivals beyond what a float "
                         "holds (the run would last longer than 1e308 s)")
    primary = rng.integers(0, servers, n)
    second = (primary + rng.integers(1, servers, n)) % servers      # another server, uniformly
    work = rng.exponential(mean, (n, 2))
    if same:
        work[:, 1] = work[:, 0]
    where = np.column_stack((primary, second)).ravel().tolist()
    service = work.ravel().tolist()
    times = arrivals.tolist()
    first = int(drop * n)
    if kind == "hedged" and delay is None:
        finish = _served_once("none", times, where, service, servers)[0]
        d = float(np.quantile(finish[first:] - arrivals[first:], q))
    elif kind != "hedged":
        d = 0.0 if kind == "tied" else float("inf")
    if kind == "hedged":
        finish, done, cancelled, copies = _hedged_queues(times, where, service, d, servers)
    else:      # the same times as the event loop, in one pass
        finish, done, cancelled, copies = _served_once(kind, times, where, service, servers)
    busy = (done + cancelled) / (servers * (finish.max() - arrivals[0]))
    response = finish[first:] - arrivals[first:]
    half = len(response) // 2
    drift = float(response[half:].mean() / response[:half].mean()) if half else 1.0
    extra = cancelled / done
    steady = bool(u * (1 + extra) < 1 and drift < DRIFT_LIMIT)
    return ReplicaRun(response, kind, u, d, copies / n, extra, busy, drift, steady)


#: The largest n :func:`harmonic_number` tabulates (a table of 80 MB).
_HARMONIC_MAX = 10_000_000


@public
def harmonic_number(n):
    r"""The harmonic number :math:`H_n = \sum_{i=1}^{n} 1/i` (:math:`H_0 = 0`).

    :math:`H_n \approx \ln n + 0.5772`: it grows by about 0.69 each time n doubles.

    Parameters
    ----------
    n : int or array_like
        Whole number >= 0 (up to 10,000,000).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> harmonic_number(4)       # 1 + 1/2 + 1/3 + 1/4
    2.083333333333333
    >>> harmonic_number([0, 1, 2])
    array([0. , 1. , 1.5])
    """
    k = check_whole("n", n, minimum=0)
    if k.size and k.max() > _HARMONIC_MAX:
        raise ValueError(f"n must be a whole number from 0 to {_HARMONIC_MAX:,}; got {k.max():,.0f}")
    top = int(k.max()) if k.size else 0
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, top + 1))))
    return scalar_or_array(table[k.astype(int)], k)


@public
def expected_slowest_step(k, base_time, jitter, backups=0):
    r"""Expected time of a synchronous step over k workers, each with exponential jitter.

    Each worker needs ``base_time`` plus an exponentially distributed delay of
    mean ``jitter`` (independent between workers and steps). The step waits for
    the slowest worker, or, with r backup workers, for the fastest k of k + r:

    .. math:: \mathbb{E}[T_\text{step}] = t_0 + \tau\,(H_{k+r} - H_r),

    with :math:`H` the harmonic numbers; without backups, :math:`t_0 + \tau H_k
    \approx t_0 + \tau(\ln k + 0.5772)`.

    Parameters
    ----------
    k : int or array_like
        Workers whose results the step needs, whole >= 1.
    base_time : float or array_like
        :math:`t_0`, seconds of work without jitter, >= 0.
    jitter : float or array_like
        :math:`\tau`, mean of the exponential delay, seconds, >= 0.
    backups : int or array_like, optional
        r, extra workers whose results are not needed (the slowest r are
        dropped), whole >= 0 (default 0). ``k + backups`` may be at most
        10,000,000 (the range of :func:`harmonic_number`).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Raises
    ------
    ValueError
        A value out of range, or ``k + backups`` above 10,000,000.

    References
    ----------
    J. Chen, X. Pan, R. Monga, S. Bengio, R. Jozefowicz, "Revisiting
    Distributed Synchronous SGD", arXiv:1604.00981 (2016), for backup workers.

    Examples
    --------
    >>> expected_slowest_step(1, 1.0, 0.05)              # one worker: t0 + tau
    1.05
    >>> round(expected_slowest_step(1024, 1.0, 0.05), 4)
    1.3754
    >>> round(expected_slowest_step(1024, 1.0, 0.05, backups=16), 4)
    1.2072
    """
    kk = check_whole("k", k)
    t0 = check_nonnegative("base_time", base_time)
    tau = check_nonnegative("jitter", jitter)
    b = check_whole("backups", backups, minimum=0)
    kb, t0b, taub, bb = check_broadcast(k=kk, base_time=t0, jitter=tau, backups=b)
    total = kb + bb
    if total.size and total.max() > _HARMONIC_MAX:
        at = np.unravel_index(int(np.argmax(total)), total.shape)
        raise ValueError(f"k + backups must be at most {_HARMONIC_MAX:,} workers in all; got k {kb[at]:,.0f} "
                         f"+ backups {bb[at]:,.0f} = {total[at]:,.0f}")
    spread = np.asarray(harmonic_number(kb + bb)) - np.asarray(harmonic_number(bb))
    return scalar_or_array(t0b + taub * spread, kk, t0, tau, b)


_JITTER_MODELS = ("exponential", "gaussian")
#: Random delays one :func:`simulate_slowest_step` may draw, (k + backups) x n_steps (about a second).
MAX_DRAWS = 50_000_000


@public
def simulate_slowest_step(k, base_time, jitter, n_steps=10_000, seed=0, *, model="exponential", backups=0):
    r"""Seeded Monte-Carlo of synchronous step times over k workers.

    Each worker's time is ``base_time`` plus a random delay: exponential with
    mean ``jitter`` (``model="exponential"``, the model of
    :func:`expected_slowest_step`), or normal with standard deviation
    ``jitter`` (``model="gaussian"``; a worker can then be faster than
    ``base_time``, but never finishes before it starts: a worker's time is
    truncated at zero, which matters only when ``jitter`` is a sizeable part of
    ``base_time``). A step lasts until k of the k + ``backups`` workers are done.
    Every argument is one number (an array is refused with a TypeError).
    The random delays drawn, ``(k + backups) x n_steps``, may number at most
    50,000,000 (about a second; 4,096 workers over the default 10,000 steps
    fit), and ``k + backups`` at most 10,000,000.

    Parameters
    ----------
    k : int
        Workers needed, whole >= 1.
    base_time, jitter : float
        Seconds, each >= 0.
    n_steps : int, optional
        Steps simulated, whole >= 1 (default 10,000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).
    model : str, optional
        ``"exponential"`` (default) or ``"gaussian"``.
    backups : int, optional
        Extra workers whose results are not waited for, whole >= 0.

    Returns
    -------
    numpy.ndarray
        ``n_steps`` step times in seconds.

    Examples
    --------
    >>> steps = simulate_slowest_step(64, 1.0, 0.05, n_steps=20_000, seed=3)
    >>> round(float(steps.mean()), 2), round(expected_slowest_step(64, 1.0, 0.05), 2)
    (1.24, 1.24)
    """
    kk = single_whole("k", k, maximum=_HARMONIC_MAX, why=_NOTEBOOK)
    t0 = single(check_nonnegative, "base_time", base_time)
    tau = single(check_nonnegative, "jitter", jitter)
    steps = single_whole("n_steps", n_steps, maximum=MAX_DRAWS, why=_NOTEBOOK)
    b = single_whole("backups", backups, minimum=0, maximum=_HARMONIC_MAX, why=_NOTEBOOK)
    kind = check_choice("model", model, _JITTER_MODELS)
    check_size("k + backups", kk + b, _HARMONIC_MAX, _NOTEBOOK, f"k {kk:,} + backups {b:,} workers")
    check_size("(k + backups) x n_steps", (kk + b) * steps, MAX_DRAWS, _NOTEBOOK,
               f"({kk:,} + {b:,}) x {steps:,} random delays")
    rng = _rng(seed)
    width = kk + b
    rows = max(1, 2_000_000 // width)   # draw in chunks of about two million numbers
    out = np.empty(steps)
    for start in range(0, steps, rows):
        m = min(rows, steps - start)
        if kind == "exponential":
            delays = rng.exponential(tau, (m, width)) if tau > 0 else np.zeros((m, width))
        else:
            delays = tau * rng.standard_normal((m, width))
        # the step ends when the k-th fastest worker finishes
        kth = np.partition(delays, kk - 1, axis=1)[:, kk - 1] if b else delays.max(axis=1)
        out[start:start + m] = t0 + kth
    if kind == "gaussian":      # a worker cannot finish before it starts: its time is truncated at zero
        np.maximum(out, 0.0, out=out)
    return out
