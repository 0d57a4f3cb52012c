"""Greedy list scheduling of a DAG on K processors (Section 3.6.3).

:func:`greedy_schedule` never leaves a processor idle while an operation is
ready, so by Graham's argument its makespan is within ``W/K + D`` (see
:mod:`scalinglib.workdepth.measures`). It returns a :class:`Schedule` of
:class:`Task` rows, one per operation, that a Gantt chart can draw.
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Hashable
from dataclasses import dataclass

from .._validate import (
    check_choice,
    check_flag,
    check_nonnegative,
    public,
    single,
    single_whole,
)
from .measures import _check_dag

__all__ = [
    "Task",
    "Schedule",
    "greedy_schedule",
]


# ---------------------------------------------------------------------------------------------
# greedy list scheduling


@dataclass(frozen=True)
class Task:
    """One operation as scheduled: which processor ran it, from when to when."""

    node: Hashable
    processor: int
    start: float
    finish: float

    def __post_init__(self) -> None:
        try:
            hash(self.node)
        except TypeError:
            raise TypeError(f"node must be hashable (a name a graph can hold); got {self.node!r}") from None
        object.__setattr__(self, "processor", single_whole("processor", self.processor, minimum=0))
        start = single(check_nonnegative, "start", self.start)
        finish = single(check_nonnegative, "finish", self.finish)
        if finish < start:
            raise ValueError(f"finish must be >= start; got start {start:g}, finish {finish:g}")

    @classmethod
    def _placed(cls, node, processor: int, start: float, finish: float) -> Task:
        """A task the scheduler placed: its fields hold by construction (a checked DAG's node, a
        processor below k, finish = start + a checked cost), so the checks above are skipped."""
        task = object.__new__(cls)
        task.__dict__.update(node=node, processor=processor, start=start, finish=finish)
        return task


@dataclass(frozen=True)
class Schedule:
    """The result of :func:`greedy_schedule`: every operation placed on a processor in time."""

    p: int
    tasks: tuple[Task, ...]

    def __post_init__(self) -> None:
        p = single_whole("p", self.p)
        object.__setattr__(self, "p", p)
        if isinstance(self.tasks, (str, bytes)) or not isinstance(self.tasks, (tuple, list)):
            raise TypeError(f"tasks must be a tuple of Task; got {type(self.tasks).__name__}")
        tasks = tuple(self.tasks)
        for task in tasks:
            if not isinstance(task, Task):
                raise TypeError(f"tasks must hold Task records only; got {task!r}")
            if task.processor >= p:
                raise ValueError(f"tasks must run on processors 0 ... p - 1 = {p - 1}; one runs on {task.processor}")
        object.__setattr__(self, "tasks", tasks)
        span = max((t.finish for t in tasks), default=0.0)
        if not span > 0:
            raise ValueError("tasks must do some work: the schedule's makespan is 0")
        if not math.isfinite(p * span):
            raise ValueError(f"p times the makespan must be a finite number of processor-seconds; got p = {p:,} "
                             f"and a makespan of {span:g}")

    @property
    def makespan(self) -> float:
        """Time from the start of the first operation to the end of the last."""
        return max((t.finish for t in self.tasks), default=0.0)

    @property
    def busy(self) -> float:
        """Processor time spent on operations (equals the work)."""
        return float(sum(t.finish - t.start for t in self.tasks))

    @property
    def idle(self) -> float:
        """Processor time spent waiting: p times the makespan, minus the busy time."""
        return self.p * self.makespan - self.busy

    @property
    def utilization(self) -> float:
        """Share of the p processors' time spent on operations."""
        return self.busy / (self.p * self.makespan)

    @property
    def bubble_fraction(self) -> float:
        """Idle time divided by busy time; for a GPipe pipeline, the bubble fraction (p - 1)/m.

        This is the convention of Narayanan et al. (idle over compute), which can exceed 1.
        The GPipe paper's convention, idle share of the total time, is ``1 - utilization``.
        """
        return self.idle / self.busy


PRIORITIES = ("critical-path", "fifo")


@public(checked=False)   # a Schedule checks its own tasks and makespan when it is made
def greedy_schedule(dag, k, *, priority="critical-path", pinned=False) -> Schedule:
    """Schedule a DAG on K identical processors (parameter ``k``) with a greedy list scheduler.

    Whenever a processor is free and an operation is ready (all its inputs
    done), the ready operation of highest priority starts on the free processor
    with the lowest number. No processor idles while work is ready, so the
    makespan obeys Brent's bounds (see :func:`brent_bounds`).

    Parameters
    ----------
    dag : networkx.DiGraph
        Acyclic; node ``cost`` attributes (default 1) >= 0.
    k : int
        K, the number of processors, a single whole number >= 1. Any size is
        fine: at most one processor per node can ever be busy, so the scheduler
        only works with ``min(k, number of nodes)`` of them (``Schedule.p`` is ``k``).
    priority : {"critical-path", "fifo"}
        Which ready operation goes first: the one heading the costliest
        remaining chain (the usual choice, default), or the one that became
        ready first. Ties go to the earlier node in a topological order.
    pinned : bool
        If true, each node runs only on the processor named by its
        ``processor`` attribute (a pipeline stage on its own device). A pinned
        schedule is no longer greedy in Brent's sense, so his upper bound need
        not hold for it.

    Returns
    -------
    Schedule

    Raises
    ------
    TypeError
        If ``k`` is an array or list rather than one number.
    ValueError
        If ``k`` is not a whole number >= 1, ``priority`` is unknown, or a
        pinned node names a processor outside 0 ... k - 1.

    Examples
    --------
    >>> from scalinglib.workdepth import pipeline_dag, reduction_tree_dag
    >>> greedy_schedule(reduction_tree_dag(8), 2).makespan
    4.0
    >>> greedy_schedule(pipeline_dag(4, 8, backward=0), 4, pinned=True).bubble_fraction
    0.375
    >>> greedy_schedule(reduction_tree_dag(8), 10**9).makespan   # processors past the nodes idle
    3.0
    """
    order, costs = _check_dag(dag)
    procs = single_whole("k", k)
    priority = check_choice("priority", priority, PRIORITIES)
    pinned = check_flag("pinned", pinned)
    index = {v: i for i, v in enumerate(order)}
    # everything below works on positions in the topological order: i stands for node order[i]
    n = len(order)
    cost = [costs[v] for v in order]
    succ = dag._succ                  # networkx's own dict of dicts (dag.succ wraps each row in a view)
    after = [[index[w] for w in succ[v]] for v in order]
    waiting = [0] * n                 # inputs not yet done
    for targets in after:
        for j in targets:
            waiting[j] += 1
    # a ready operation waits in a heap under (rank, position): the lowest goes first
    critical = priority == "critical-path"
    if critical:                      # the costliest chain from the operation to the end goes first
        rank = [0.0] * n
        for i in range(n - 1, -1, -1):
            targets = after[i]
            rank[i] = -(cost[i] + (max(-rank[j] for j in targets) if targets else 0.0))
    # else: the operation that became ready first goes first (its rank is the time it became ready)

    home = [None] * len(order)
    if pinned:
        for i, v in enumerate(order):
            proc = dag.nodes[v].get("processor")
            if isinstance(proc, bool) or not isinstance(proc, numbers.Integral) or not 0 <= proc < procs:
                raise ValueError(f"pinned scheduling needs every node's 'processor' in 0 ... {procs - 1}; "
                                 f"node {v!r} has {proc!r}")
            home[i] = int(proc)

    ready: dict[int | None, list] = {}

    def make_ready(i, t):
        heapq.heappush(ready.setdefault(home[i], []), (rank[i] if critical else t, i))

    for i, n_in in enumerate(waiting):
        if n_in == 0:
            make_ready(i, 0.0)
    # free processors as a heap, lowest number first; at most one per node can ever be busy, so a
    # huge k costs nothing, and a processor no pinned node names never works
    free = sorted(set(home)) if pinned else list(range(min(procs, len(order))))
    running: list = []
    tasks: list[Task] = []
    placed = Task._placed
    now = 0.0

    def start(proc, queue):
        _, i = heapq.heappop(queue)
        finish = now + cost[i]
        tasks.append(placed(order[i], proc, now, finish))
        heapq.heappush(running, (finish, proc, i))

    while True:
        if pinned:   # each free processor takes the best of its own ready operations
            still_free = []
            while free:
                proc = heapq.heappop(free)
                queue = ready.get(proc)
                if queue:
                    start(proc, queue)
                else:
                    still_free.append(proc)
            free = still_free   # ascending, so still a heap
        else:        # the best ready operations go to the lowest-numbered free processors
            queue = ready.get(None)
            while free and queue:
                start(heapq.heappop(free), queue)
        if not running:
            break
        now = running[0][0]
        while running and running[0][0] <= now:
            _, proc, i = heapq.heappop(running)
            heapq.heappush(free, proc)
            for j in after[i]:
                waiting[j] -= 1
                if waiting[j] == 0:
                    make_ready(j, now)
    return Schedule(procs, tuple(tasks))
