r"""Latency, throughput and the tail (Section 3.4).

Four small models, each checked in the tests against a seeded simulation or a
published number:

* **Little's law** (Little 1961): in any stable system, the mean number of
  requests inside equals their arrival rate times the mean time each one spends
  inside, :math:`L = \lambda T_\text{sys}` (usually written :math:`L = \lambda W`;
  the book keeps W for the work of Section 3.6).
* **The M/M/1 queue**: requests arrive at random (a Poisson process of rate
  :math:`\lambda` per second) at one server that takes an exponentially
  distributed time of mean :math:`1/\mu` per request. With utilization
  :math:`U = \lambda/\mu < 1` the response time (waiting plus service) is
  itself exponential with rate :math:`\mu - \lambda`, so

  .. math:: \bar T = \frac{1}{\mu - \lambda} = \frac{1/\mu}{1 - U}, \qquad
            T_q = \frac{-\ln(1 - q)}{\mu - \lambda}

  for the mean and the q-quantile (any queueing text). Both grow without bound
  as :math:`U \to 1`.
* **Fan-out**: a request that waits for n servers, each slow with probability
  p independently, is slow with probability :math:`1 - (1 - p)^n` (Dean and
  Barroso 2013).
* **Stragglers**: a synchronous step over K workers lasts as long as the
  slowest one. If each worker needs a fixed time :math:`t_0` plus an
  exponential delay of mean :math:`\tau` (the jitter model), the expected step
  time is :math:`t_0 + \tau H_K`, with :math:`H_K = \sum_{i=1}^K 1/i \approx \ln K + 0.5772`;
  with b backup workers, the step ends when the fastest K of K + b are done,
  :math:`t_0 + \tau (H_{K+b} - H_b)` (Rényi's representation of exponential
  order statistics; backup workers as in Chen et al. 2016).

Hedged requests (Dean and Barroso 2013) are simulated with a seeded random
generator on the latency mixture of :func:`sample_server_latency`.

All times are in seconds and rates in requests per second.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import (
    check_broadcast,
    check_choice,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_whole,
    scalar_or_array,
)

__all__ = [
    "littles_law",
    "mm1_mean_response",
    "mm1_response_percentile",
    "QueueRun",
    "simulate_mm1",
    "fanout_slow_probability",
    "sample_server_latency",
    "HedgeResult",
    "simulate_hedged_requests",
    "harmonic_number",
    "expected_slowest_step",
    "simulate_slowest_step",
]

_LITTLE_NAMES = ("arrival_rate", "time_in_system", "number_in_system")


def littles_law(*, arrival_rate=None, time_in_system=None, number_in_system=None):
    r"""Little's law, :math:`L = \lambda T_\text{sys}`: give any two of the three, get the third.

    Parameters
    ----------
    arrival_rate : float or array_like, optional
        :math:`\lambda`, requests per second entering (equal to those leaving
        in a stable system), > 0.
    time_in_system : float or array_like, optional
        :math:`T_\text{sys}`, mean seconds a request spends inside (waiting and
        being served), > 0.
    number_in_system : float or array_like, optional
        :math:`L`, mean number of requests inside at a random instant, > 0.

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


class QueueRun(NamedTuple):
    """One simulated run of a first-come, first-served queue (seconds)."""

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


def _count(name, value, minimum=1):
    return int(check_whole(name, value, minimum))


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
        :math:`\lambda \ge 0` and :math:`\mu > 0`, with :math:`\lambda < \mu`.
        An arrival rate of 0 is refused here (no request would ever arrive).
    n_requests : int, optional
        Requests to simulate, whole >= 1 (default 100,000).
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
    lam = float(check_positive("arrival_rate", arrival_rate))
    _stable_rates(lam, service_rate)
    mu = float(service_rate)
    n = _count("n_requests", n_requests)
    rng = _rng(seed)
    gaps = rng.exponential(1.0 / lam, n)
    service = rng.exponential(1.0 / mu, n)
    arrivals = np.cumsum(gaps)
    # X_0 = 0, X_i = sum_{j < i} (s_j - a_{j+1}); then w_i = X_i - min_{j <= i} X_j
    x = np.concatenate(([0.0], np.cumsum(service[:-1] - gaps[1:])))
    wait = x - np.minimum.accumulate(x)
    response = wait + service
    return QueueRun(arrivals, arrivals + response, response)


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
        Number of samples, whole >= 1.
    seed : int or numpy.random.Generator, optional
        Seed of ``numpy.random.default_rng`` (default 0).
    median, sigma, slow_mean : float, optional
        Seconds, seconds-free shape, seconds; each > 0.
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
    count = _count("n", n)
    m = float(check_positive("median", median))
    s = float(check_positive("sigma", sigma))
    p = float(check_fraction("p_slow", p_slow))
    tail = float(check_positive("slow_mean", slow_mean))
    rng = _rng(seed)
    fast = m * np.exp(s * rng.standard_normal(count))
    hiccup = rng.random(count) < p
    return fast + np.where(hiccup, rng.exponential(tail, count), 0.0)


class HedgeResult(NamedTuple):
    """Outcome of :func:`simulate_hedged_requests` (seconds, and a fraction)."""

    baseline: np.ndarray  #: latency of each request sent once
    hedged: np.ndarray  #: latency of the same requests with a hedge: min(primary, delay + backup)
    delay: float  #: how long a request waits before its second copy is sent
    extra_load: float  #: second copies sent per request: the share still pending at ``delay``


def simulate_hedged_requests(n_requests=200_000, hedge_quantile=0.95, seed=0, *, delay=None, **latency):
    r"""Seeded simulation of hedged requests (Dean and Barroso 2013).

    Each request goes to one replica. If no answer has come back after
    ``delay`` seconds, a second copy goes to another replica, and the request
    completes with whichever answer arrives first (the other is cancelled):

    .. math:: T_\text{hedged} = \min(T_1,\ d + T_2).

    Both replicas draw their latency independently from
    :func:`sample_server_latency` (keyword arguments ``latency`` are passed to
    it). By default the delay is the ``hedge_quantile`` (95th percentile) of a
    separate calibration sample, as a real client would estimate it from past
    requests, so about 5% of requests send a second copy.

    Parameters
    ----------
    n_requests : int, optional
        Requests simulated, whole >= 1 (default 200,000).
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
        the second copies sent per request.

    Examples
    --------
    >>> r = simulate_hedged_requests(seed=0)
    >>> round(r.extra_load, 2)
    0.05
    >>> bool(np.all(r.hedged <= r.baseline))    # a hedge never makes a request slower
    True
    """
    n = _count("n_requests", n_requests)
    rng = _rng(seed)
    if delay is None:
        q = float(check_fraction("hedge_quantile", hedge_quantile, open_low=True, open_high=True))
        history = sample_server_latency(n, rng, **latency)
        d = float(np.quantile(history, q))
    else:
        d = float(check_nonnegative("delay", delay))
    primary = sample_server_latency(n, rng, **latency)
    backup = sample_server_latency(n, rng, **latency)
    hedged = np.minimum(primary, d + backup)
    return HedgeResult(primary, hedged, d, float(np.mean(primary > d)))


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
    if k.size and k.max() > 10_000_000:
        raise ValueError(f"n must be a whole number from 0 to 10,000,000; got {k.max():g}")
    top = int(k.max()) if k.size else 0
    table = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, top + 1))))
    return scalar_or_array(table[k.astype(int)], k)


def expected_slowest_step(k, base_time, jitter, backups=0):
    r"""Expected time of a synchronous step over k workers, each with exponential jitter.

    Each worker needs ``base_time`` plus an exponentially distributed delay of
    mean ``jitter`` (independent between workers and steps). The step waits for
    the slowest worker, or, with b backup workers, for the fastest k of k + b:

    .. math:: \mathbb{E}[T_\text{step}] = t_0 + \tau\,(H_{k+b} - H_b),

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
        b, extra workers whose results are not needed (the slowest b are
        dropped), whole >= 0 (default 0).

    Returns
    -------
    float or numpy.ndarray
        Seconds.

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
    spread = np.asarray(harmonic_number(kb + bb)) - np.asarray(harmonic_number(bb))
    return scalar_or_array(t0b + taub * spread, kk, t0, tau, b)


_JITTER_MODELS = ("exponential", "gaussian")


def simulate_slowest_step(k, base_time, jitter, n_steps=10_000, seed=0, *, model="exponential", backups=0):
    r"""Seeded Monte-Carlo of synchronous step times over k workers.

    Each worker's time is ``base_time`` plus a random delay: exponential with
    mean ``jitter`` (``model="exponential"``, the model of
    :func:`expected_slowest_step`), or normal with standard deviation
    ``jitter`` (``model="gaussian"``; a worker can then be faster than
    ``base_time``). A step lasts until k of the k + ``backups`` workers are done.

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
    kk = _count("k", k)
    t0 = float(check_nonnegative("base_time", base_time))
    tau = float(check_nonnegative("jitter", jitter))
    steps = _count("n_steps", n_steps)
    b = _count("backups", backups, minimum=0)
    kind = check_choice("model", model, _JITTER_MODELS)
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
    return out
