r"""Tails: fan-out, server latencies, hedged requests and stragglers (Section 3.4).

* **Fan-out**: a request that waits for n servers, each slow with probability
  p independently, is slow with probability :math:`1 - (1 - p)^n` (Dean and
  Barroso 2013).
* **Hedged requests** (Dean and Barroso 2013): :func:`simulate_hedged_requests`
  draws each copy's latency from the mixture of :func:`sample_server_latency`, as
  if the replicas had spare capacity (the second copies add no queueing; see
  :mod:`scalinglib.latency.replicas` for the queued version).
* **Stragglers**: a synchronous step over K workers lasts as long as the
  slowest one. If each worker needs a fixed time :math:`t_0` plus an
  exponential delay of mean :math:`\tau` (the jitter model), the expected step
  time is :math:`t_0 + \tau H_K`, with :math:`H_K = \sum_{i=1}^K 1/i \approx \ln K + 0.5772`;
  with r backup workers, the step ends when the fastest K of K + r are done,
  :math:`t_0 + \tau (H_{K+r} - H_r)` (Rényi's representation of exponential
  order statistics; backup workers as in Chen et al. 2016).

Every simulation uses a seeded random generator. All times are in seconds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import (
    check_broadcast,
    check_choice,
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
from .queues import _NOTEBOOK, MAX_REQUESTS, MAX_SAMPLES, MAX_SIGMA, _rng, _times

__all__ = [
    "fanout_slow_probability",
    "sample_server_latency",
    "HedgeResult",
    "simulate_hedged_requests",
    "harmonic_number",
    "expected_slowest_step",
    "simulate_slowest_step",
]


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
