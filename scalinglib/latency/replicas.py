"""Replicated servers: hedged and tied requests in first-come, first-served queues (Section 3.4.5).

:func:`simulate_replicas` sends each request to one of n replicated servers (at
random, or the shorter of two queues) and, for hedged and tied requests, a second
copy to another, so that the load the copies add is felt in the queues, unlike
in :func:`scalinglib.latency.simulate_hedged_requests`. It is an event-driven
loop with a seeded random generator; :class:`ReplicaRun` holds its outcome and
says whether the run reached a steady state. All times are in seconds and rates
in requests per second.
"""

from __future__ import annotations

import math
from collections import deque
from typing import NamedTuple

import numpy as np

from .._validate import (
    check_choice,
    check_flag,
    check_fraction,
    check_nonnegative,
    check_positive,
    checked_record,
    public,
    single,
    single_whole,
)
from .queues import _NOTEBOOK, _rng, _times

__all__ = [
    "ReplicaRun",
    "simulate_replicas",
]


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
    # every argument is checked whatever the policy, so a wrong one is never ignored in silence
    q = single(check_fraction, "hedge_quantile", hedge_quantile, open_low=True, open_high=True)
    if delay is not None:
        d = single(check_nonnegative, "delay", delay)
        if kind != "hedged":
            raise ValueError(f"delay applies only to policy 'hedged'; got policy {kind!r}")
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
