"""Work, depth and parallelism of a computation drawn as a DAG; Brent's bounds; greedy scheduling (Section 3.6).

A computation is a :class:`networkx.DiGraph`. Each node is one operation whose
``cost`` attribute is its running time on one processor (1 when absent); an
edge ``u -> v`` says that ``v`` needs the result of ``u``. Then

* the **work** W is the sum of all costs: the time on one processor;
* the **depth** D (or span) is the costliest chain of dependent operations:
  the time on unboundedly many processors;
* the **parallelism** W/D is the largest speedup any number of processors can get.

On K processors every schedule needs at least ``max(W/K, D)``. Brent (1974)
showed that unit-time operations can be scheduled within ``D + (W - D)/K``;
Graham's list-scheduling argument (1969) gives the same bound for any greedy
schedule (one that never leaves a processor idle while an operation is ready)
with any costs. The book and :func:`brent_bounds` use the simpler, slightly
looser ``W/K + D``.

The builders make the DAGs of the section. The arithmetic ones (sums, scans,
matrix products) also record what each operation computes, so
:func:`evaluate` can run them on numbers and show that the graph really
computes what its name says.
"""

from __future__ import annotations

import heapq
import math
import numbers
from collections.abc import Hashable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._lazy import lazy_module
from ._validate import (
    as_float_array,
    check_broadcast,
    check_choice,
    check_flag,
    check_nonnegative,
    check_positive,
    check_size,
    check_whole,
    public,
    scalar_or_array,
    single,
    single_whole,
)

nx = lazy_module("networkx")      # loaded at the first graph built or checked

__all__ = [
    "COST",
    "Input",
    "work",
    "depth",
    "critical_path",
    "parallelism",
    "brent_bounds",
    "Task",
    "Schedule",
    "greedy_schedule",
    "evaluate",
    "sequential_sum_dag",
    "reduction_tree_dag",
    "hillis_steele_scan_dag",
    "blelloch_scan_dag",
    "matmul_dag",
    "matmul_work",
    "matmul_depth",
    "layer_stack_dag",
    "pipeline_dag",
]

#: Name of the node attribute holding an operation's cost (its time on one processor).
COST = "cost"

#: The most nodes a builder makes: networkx builds about 50,000 nodes a second, and work, depth and
#: greedy scheduling then take about a second each.
MAX_NODES = 50_000


def _check_nodes(names: str, count: int) -> None:
    """Refuse a builder's size before a node is made, naming the parameters that set it."""
    check_size(names, count, MAX_NODES, "what a notebook builds in about a second", "nodes of the DAG")


class Input(NamedTuple):
    """A reference to element ``index`` of the computation's input array (not a node of the graph)."""

    index: int


# ---------------------------------------------------------------------------------------------
# checking a DAG


def _cost(dag, node) -> float:
    return dag.nodes[node].get(COST, 1.0)


def _check_dag(dag) -> tuple[list, dict]:
    """Refuse what is not a DAG of costed operations; return its topological order and every node's cost."""
    if not isinstance(dag, nx.DiGraph) or dag.is_multigraph():
        raise TypeError(f"dag must be a networkx.DiGraph; got {type(dag).__name__}")
    if dag.number_of_nodes() == 0:
        raise ValueError("dag must have at least one node")
    try:
        order = list(nx.topological_sort(dag))
    except nx.NetworkXUnfeasible:
        raise ValueError(f"dag must be acyclic; it has the cycle {nx.find_cycle(dag)}") from None
    costs = {node: data.get(COST, 1.0) for node, data in dag.nodes(data=True)}
    for node, cost in costs.items():
        plain = type(cost) is float or type(cost) is int       # the usual case, checked without isinstance
        if not plain and (isinstance(cost, bool) or not isinstance(cost, numbers.Real)) or not 0 <= cost < math.inf:
            raise ValueError(f"dag: the cost of node {node!r} must be a finite number >= 0; got {cost!r}")
    if not any(c > 0 for c in costs.values()):
        raise ValueError("dag must have some work: every node costs 0")
    if not math.isfinite(math.fsum(costs.values())):
        raise ValueError("dag's costs add up to more than a float holds (beyond 1.8e308)")
    return order, costs


# ---------------------------------------------------------------------------------------------
# work, depth, parallelism


@public
def work(dag) -> float:
    r"""Total cost of every operation: the time on one processor.

    .. math:: W = \sum_v \text{cost}(v)

    Parameters
    ----------
    dag : networkx.DiGraph
        Acyclic; each node's ``cost`` attribute (default 1) is >= 0.

    Returns
    -------
    float

    Examples
    --------
    >>> work(reduction_tree_dag(8))
    7.0
    """
    _, costs = _check_dag(dag)
    return float(sum(costs.values()))


def _source_weighted(dag):
    """A copy whose edge weights are the costs of the nodes they enter, plus a start node feeding every root.

    The longest path from the start node then weighs exactly the sum of the node costs along it,
    so networkx's edge-weighted longest-path routine gives the node-weighted one.
    """
    start = object()
    weighted = nx.DiGraph()
    weighted.add_edges_from((u, v, {"weight": _cost(dag, v)}) for u, v in dag.edges)
    weighted.add_edges_from((start, v, {"weight": _cost(dag, v)}) for v in dag if dag.in_degree(v) == 0)
    return weighted, start


@public(checked=False)
def critical_path(dag) -> list:
    """The operations on a costliest chain of dependencies, first to last.

    Parameters
    ----------
    dag : networkx.DiGraph

    Returns
    -------
    list
        Nodes of ``dag``; their costs add up to :func:`depth`.

    Examples
    --------
    >>> critical_path(sequential_sum_dag(4))
    [('acc', 1), ('acc', 2), ('acc', 3)]
    """
    _check_dag(dag)
    weighted, start = _source_weighted(dag)
    path = nx.dag_longest_path(weighted, weight="weight")
    return [v for v in path if v is not start]


@public
def depth(dag) -> float:
    r"""Depth (span): the total cost of the costliest chain of dependent operations.

    .. math:: D = \max_{\text{paths } P} \sum_{v \in P} \text{cost}(v)

    It is the running time on unboundedly many processors, and no schedule can beat it.

    Parameters
    ----------
    dag : networkx.DiGraph

    Returns
    -------
    float

    Examples
    --------
    >>> depth(reduction_tree_dag(8)), depth(sequential_sum_dag(8))
    (3.0, 7.0)
    """
    order, costs = _check_dag(dag)
    # the costliest chain ending at each node, summed from the chain's start (as a path's length is)
    finish: dict = {}
    pred = dag.pred
    for v in order:
        finish[v] = max((finish[u] for u in pred[v]), default=0.0) + costs[v]
    return float(max(finish.values()))


@public
def parallelism(dag) -> float:
    r"""Work divided by depth: the largest speedup any number of processors can reach.

    .. math:: \frac{W}{D}

    Examples
    --------
    >>> round(parallelism(reduction_tree_dag(1024)), 1)
    102.3
    """
    return work(dag) / depth(dag)


@public
def brent_bounds(work, depth, k):
    r"""Brent's bounds on the time of a computation on K processors (parameter ``k``).

    .. math:: \max\Bigl(\frac{W}{K},\, D\Bigr) \;\le\; T_K \;\le\; \frac{W}{K} + D

    The lower bound holds for every schedule: K processors do at most K units
    of work per unit of time, and no processor count shortens a chain of
    dependencies. The upper bound holds for every greedy schedule, one that
    never leaves a processor idle while an operation is ready. It is the
    simpler form of the sharper :math:`D + (W - D)/K`, which Brent proved for
    unit-time operations and Graham's list-scheduling argument gives for any
    greedy schedule with any costs.

    Parameters
    ----------
    work : float or array_like
        W, > 0.
    depth : float or array_like
        D, > 0 and at most ``work``.
    k : int or array_like
        K, the number of processors, a whole number >= 1.

    Returns
    -------
    tuple of (float or numpy.ndarray)
        ``(lower, upper)``.

    Raises
    ------
    ValueError
        If a value is out of range or ``depth`` exceeds ``work``.

    References
    ----------
    R. P. Brent, "The parallel evaluation of general arithmetic expressions",
    Journal of the ACM 21(2), 1974. R. L. Graham, "Bounds on multiprocessing
    timing anomalies", SIAM Journal on Applied Mathematics 17(2), 1969.

    Examples
    --------
    >>> brent_bounds(1023, 10, 16)
    (63.9375, 73.9375)
    >>> brent_bounds(1023, 10, [1, 1024])[0]
    array([1023.,   10.])
    """
    w_arr = check_positive("work", work)
    d_arr = check_positive("depth", depth)
    p_arr = check_whole("k", k)
    wb, db, pb = check_broadcast(work=w_arr, depth=d_arr, k=p_arr)
    too_deep = db > wb * (1 + 1e-12)
    if np.any(too_deep):
        raise ValueError(f"depth must be at most work (a chain cannot cost more than everything); "
                         f"got depth {db[too_deep].flat[0]:g} > work {wb[too_deep].flat[0]:g}")
    lower = np.maximum(wb / pb, db)
    upper = wb / pb + db
    return scalar_or_array(lower, w_arr, d_arr, p_arr), scalar_or_array(upper, w_arr, d_arr, p_arr)


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


# ---------------------------------------------------------------------------------------------
# running an arithmetic DAG on numbers


@public(signed=True)
def evaluate(dag, values) -> list[float]:
    """Run an arithmetic DAG from the builders on numbers and return its outputs in order.

    Each node's ``op`` (``"add"``, ``"mul"``, ``"copy"`` or ``"zero"``) is applied to
    its ``sources`` (other nodes, or :class:`Input` references into ``values``).

    Parameters
    ----------
    dag : networkx.DiGraph
        A DAG made by :func:`sequential_sum_dag`, :func:`reduction_tree_dag`,
        :func:`hillis_steele_scan_dag`, :func:`blelloch_scan_dag` or :func:`matmul_dag`.
    values : sequence of float
        The input array, of the length the DAG was built for.

    Returns
    -------
    list of float
        The outputs, in the order of ``dag.graph["outputs"]``.

    Raises
    ------
    TypeError
        If ``values`` holds something other than real numbers.
    ValueError
        If the DAG was not made by an arithmetic builder, or ``values`` has the
        wrong length or holds NaN or infinity.

    Examples
    --------
    >>> evaluate(hillis_steele_scan_dag(5), [1, 2, 3, 4, 5])
    [1.0, 3.0, 6.0, 10.0, 15.0]
    >>> evaluate(blelloch_scan_dag(4), [1, 2, 3, 4])
    [0.0, 1.0, 3.0, 6.0]
    """
    _check_dag(dag)
    if "outputs" not in dag.graph or "inputs" not in dag.graph:
        raise ValueError("this DAG describes timing only; evaluate needs one made by an arithmetic builder")
    if not (values is None or isinstance(values, (str, bytes, list, tuple, np.ndarray, numbers.Number))):
        values = np.asarray(values)   # a range or another iterable of numbers
    x = as_float_array("values", values)
    if x.shape != (dag.graph["inputs"],):
        raise ValueError(f"values must hold {dag.graph['inputs']} numbers; got shape {x.shape}")
    result: dict = {}

    def read(ref):
        return x[ref.index] if isinstance(ref, Input) else result[ref]

    for v in nx.topological_sort(dag):
        op, sources = dag.nodes[v]["op"], dag.nodes[v]["sources"]
        args = [read(s) for s in sources]
        result[v] = {"add": lambda a: a[0] + a[1], "mul": lambda a: a[0] * a[1],
                     "copy": lambda a: a[0], "zero": lambda a: 0.0}[op](args)
    return [float(read(ref)) for ref in dag.graph["outputs"]]


# ---------------------------------------------------------------------------------------------
# builders


def _cost_value(name, value, allow_zero=False):
    return single(check_nonnegative if allow_zero else check_positive, name, value)


def _op(dag, node, op, sources, cost, level, x):
    """Add an arithmetic node, with an edge from every source that is itself a node."""
    dag.add_node(node, op=op, sources=tuple(sources), cost=cost, level=level, x=float(x))
    dag.add_edges_from((s, node) for s in sources if not isinstance(s, Input))


@public
def sequential_sum_dag(n, cost=1.0):
    """Summing n numbers with a loop: n - 1 additions, each waiting for the one before.

    W = D = n - 1: no parallelism at all.

    Parameters
    ----------
    n : int
        Numbers to add, whole from 2 to 50,001 (a DAG of at most 50,000 nodes).
    cost : float
        Time of one addition, > 0.

    Examples
    --------
    >>> dag = sequential_sum_dag(8)
    >>> work(dag), depth(dag), evaluate(dag, range(8))
    (7.0, 7.0, [28.0])
    """
    n = single_whole("n", n, 2)
    _check_nodes("n", n - 1)
    cost = _cost_value("cost", cost)
    dag = nx.DiGraph(name=f"sequential sum of {n}", inputs=n)
    previous = Input(0)
    for i in range(1, n):
        _op(dag, ("acc", i), "add", (previous, Input(i)), cost, i, i)
        previous = ("acc", i)
    dag.graph["outputs"] = [previous]
    return dag


@public
def reduction_tree_dag(n, cost=1.0):
    r"""Summing n numbers in a balanced binary tree: pairs, then pairs of pairs, ...

    W = n - 1 additions, D = :math:`\lceil \log_2 n \rceil` levels.

    Parameters
    ----------
    n : int
        Numbers to add, whole from 2 to 50,001 (a DAG of at most 50,000 nodes).
    cost : float
        Time of one addition, > 0.

    Examples
    --------
    >>> dag = reduction_tree_dag(1000)
    >>> work(dag), depth(dag), evaluate(dag, np.ones(1000))
    (999.0, 10.0, [1000.0])
    """
    n = single_whole("n", n, 2)
    _check_nodes("n", n - 1)
    cost = _cost_value("cost", cost)
    dag = nx.DiGraph(name=f"tree reduction of {n}", inputs=n)
    items = [(Input(i), float(i)) for i in range(n)]   # (reference, horizontal position for drawing)
    level = 0
    while len(items) > 1:
        level += 1
        merged = []
        for j in range(0, len(items) - 1, 2):
            (a, xa), (b, xb) = items[j], items[j + 1]
            node = ("sum", level, j // 2)
            _op(dag, node, "add", (a, b), cost, level, (xa + xb) / 2)
            merged.append((node, (xa + xb) / 2))
        if len(items) % 2:
            merged.append(items[-1])   # an odd one out waits for the next level
        items = merged
    dag.graph["outputs"] = [items[0][0]]
    return dag


@public
def hillis_steele_scan_dag(n, cost=1.0):
    r"""Inclusive prefix sums by doubling (Hillis and Steele): short but wasteful.

    In round r = 1, 2, ... every element i >= 2^(r-1) adds the element
    2^(r-1) places to its left (from the previous round's values). After
    :math:`L = \lceil \log_2 n \rceil` rounds element i holds
    :math:`x_0 + \dots + x_i`.

    .. math:: W = \sum_{r=0}^{L-1} (n - 2^r) = nL - 2^L + 1, \qquad D = L

    For n a power of two that is :math:`n\log_2 n - n + 1`, about
    :math:`\log_2 n` times the n - 1 additions of a loop.

    Parameters
    ----------
    n : int
        Length of the array, whole from 2 to 4,476 (the DAG's
        :math:`nL - 2^L + 1` nodes may number at most 50,000).
    cost : float
        Time of one addition, > 0.

    Examples
    --------
    >>> dag = hillis_steele_scan_dag(8)
    >>> work(dag), depth(dag)
    (17.0, 3.0)
    """
    n = single_whole("n", n, 2)
    rounds = (n - 1).bit_length()
    _check_nodes("n", n * rounds - 2**rounds + 1)
    cost = _cost_value("cost", cost)
    dag = nx.DiGraph(name=f"Hillis-Steele scan of {n}", inputs=n)
    current: list = [Input(i) for i in range(n)]
    offset, level = 1, 0
    while offset < n:
        level += 1
        updated = list(current)
        for i in range(offset, n):
            node = ("hs", level, i)
            _op(dag, node, "add", (current[i - offset], current[i]), cost, level, i)
            updated[i] = node
        current, offset = updated, offset * 2
    dag.graph["outputs"] = current
    return dag


@public
def blelloch_scan_dag(n, cost=1.0, inclusive=False):
    r"""Exclusive prefix sums, work-efficiently (Blelloch): an up-sweep and a down-sweep of a tree.

    The up-sweep is a tree reduction that leaves partial sums in place
    (n - 1 additions, :math:`\log_2 n` levels). The root is then set to zero
    (after its total has been written, which is the result's last element plus
    the last input), and the down-sweep walks back down the tree: at each node
    the left child receives the node's value (a copy, cost 0) and the right
    child receives that value plus the left child's old one (an addition).

    .. math:: W = 2(n - 1), \qquad D = 2\log_2 n

    Element i of the result holds :math:`x_0 + \dots + x_{i-1}` (and element 0 holds 0).
    With ``inclusive=True`` one more round adds each :math:`x_i` back, giving the
    inclusive scan :math:`x_0 + \dots + x_i` that :func:`hillis_steele_scan_dag`
    computes, at the price of n more additions and one more level:

    .. math:: W = 3n - 2, \qquad D = 2\log_2 n + 1

    Parameters
    ----------
    n : int
        Length of the array, a power of two from 2 to 16,384 (at most 50,000 nodes).
    cost : float
        Time of one addition, > 0 (copies and the zeroing cost nothing).
    inclusive : bool
        Add the inputs back for the inclusive scan (default False: exclusive).

    References
    ----------
    G. E. Blelloch, "Prefix sums and their applications", CMU-CS-90-190, 1990.

    Examples
    --------
    >>> dag = blelloch_scan_dag(8)
    >>> work(dag), depth(dag)
    (14.0, 6.0)
    >>> dag = blelloch_scan_dag(4, inclusive=True)
    >>> work(dag), depth(dag), evaluate(dag, [1, 2, 3, 4])
    (10.0, 5.0, [1.0, 3.0, 6.0, 10.0])
    """
    n = single_whole("n", n, 2)
    if n & (n - 1):
        raise ValueError(f"n must be a power of two for the Blelloch scan; got {n}")
    cost = _cost_value("cost", cost)
    inclusive = check_flag("inclusive", inclusive)
    _check_nodes("n", 3 * n - 2 + (n if inclusive else 0))
    levels = n.bit_length() - 1
    kind = "inclusive " if inclusive else ""
    dag = nx.DiGraph(name=f"Blelloch {kind}scan of {n}", inputs=n)
    current: list = [Input(i) for i in range(n)]
    for d in range(levels):                          # up-sweep
        half, stride = 1 << d, 2 << d
        for start in range(0, n, stride):
            left, right = start + half - 1, start + stride - 1
            node = ("up", d + 1, right)
            _op(dag, node, "add", (current[left], current[right]), cost, d + 1, right)
            current[right] = node
    root = ("zero", levels + 1, n - 1)
    _op(dag, root, "zero", (current[n - 1],), 0.0, levels + 1, n - 1)
    current[n - 1] = root
    for step, d in enumerate(reversed(range(levels)), start=levels + 2):   # down-sweep
        half, stride = 1 << d, 2 << d
        for start in range(0, n, stride):
            left, right = start + half - 1, start + stride - 1
            copy, add = ("copy", step, left), ("down", step, right)
            _op(dag, copy, "copy", (current[right],), 0.0, step, left)
            _op(dag, add, "add", (current[right], current[left]), cost, step, right)
            current[left], current[right] = copy, add
    if inclusive:                                    # one more round: add each input back
        step = 2 * levels + 2
        for i in range(n):
            node = ("incl", step, i)
            _op(dag, node, "add", (current[i], Input(i)), cost, step, i)
            current[i] = node
    dag.graph["outputs"] = current
    return dag


@public
def matmul_work(n):
    r"""Operations in the product of two n x n matrices: n^3 multiplications and n^2 (n - 1) additions.

    .. math:: W = 2n^3 - n^2

    Examples
    --------
    >>> matmul_work(64)
    520192
    """
    n = single_whole("n", n, 1)
    return 2 * n**3 - n**2


@public
def matmul_depth(n):
    r"""Depth of the n x n matrix product: one multiplication, then a tree sum of n products.

    .. math:: D = 1 + \lceil \log_2 n \rceil

    Examples
    --------
    >>> matmul_depth(64)
    7
    """
    n = single_whole("n", n, 1)
    return 1 + (n - 1).bit_length()


@public
def matmul_dag(n, cost=1.0):
    """The product C = A B of two n x n matrices as a DAG: every product in parallel, then a tree sum per entry.

    The inputs are A and B flattened one after the other (``A.ravel()`` then
    ``B.ravel()``, 2 n^2 numbers); the outputs are ``C.ravel()``.
    Work and depth match :func:`matmul_work` and :func:`matmul_depth`.

    Parameters
    ----------
    n : int
        Matrix size, whole from 1 to 29 (the DAG has 2n^3 - n^2 nodes, at most 50,000).
    cost : float
        Time of one multiplication or addition, > 0.

    Examples
    --------
    >>> dag = matmul_dag(4)
    >>> work(dag) == matmul_work(4), depth(dag) == matmul_depth(4)
    (True, True)
    """
    n = single_whole("n", n, 1)
    _check_nodes("n", 2 * n**3 - n**2)
    cost = _cost_value("cost", cost)
    dag = nx.DiGraph(name=f"{n} x {n} matrix product", inputs=2 * n * n)
    outputs = []
    for i in range(n):
        for j in range(n):
            entry = i * n + j
            items: list = []
            for k in range(n):
                node = ("mul", i, j, k)
                _op(dag, node, "mul", (Input(i * n + k), Input(n * n + k * n + j)), cost, 1, entry)
                items.append(node)
            level = 1
            while len(items) > 1:
                level += 1
                merged = []
                for t in range(0, len(items) - 1, 2):
                    node = ("add", i, j, level, t // 2)
                    _op(dag, node, "add", (items[t], items[t + 1]), cost, level, entry)
                    merged.append(node)
                if len(items) % 2:
                    merged.append(items[-1])
                items = merged
            outputs.append(items[0])
    dag.graph["outputs"] = outputs
    return dag


@public
def layer_stack_dag(layers, width, piece_cost=1.0, combine_cost=1.0):
    r"""A stack of layers, each a fan of ``width`` independent pieces followed by one combining step.

    Think of a transformer layer: attention heads (or column blocks of a weight
    matrix) computed side by side, then one step that gathers them (output
    projection, residual, normalisation). Layer i + 1 needs all of layer i.

    .. math:: W = \ell\,(w\,a + q), \qquad D = \ell\,(a + q), \qquad \frac{W}{D} = \frac{w\,a + q}{a + q} \le w

    (strictly below w when q > 0 and w > 1). The parallelism does not grow
    with the number of layers; the depth, the time of one input on unboundedly
    many processors, grows in proportion to it.

    Parameters
    ----------
    layers : int
        The number of layers, ell, whole >= 1.
    width : int
        w, pieces per layer, whole >= 1; the DAG's ``layers x (width + 1)``
        nodes may number at most 50,000.
    piece_cost : float
        a, time of one piece, > 0.
    combine_cost : float
        q, time of the combining step, >= 0.

    Examples
    --------
    >>> dag = layer_stack_dag(24, 8)
    >>> work(dag), depth(dag), parallelism(dag)
    (216.0, 48.0, 4.5)
    """
    layers = single_whole("layers", layers, 1)
    width = single_whole("width", width, 1)
    _check_nodes("layers x (width + 1)", layers * (width + 1))
    piece_cost = _cost_value("piece_cost", piece_cost)
    combine_cost = _cost_value("combine_cost", combine_cost, allow_zero=True)
    dag = nx.DiGraph(name=f"{layers} layers of width {width}")
    previous = None
    for layer in range(layers):
        combine = ("combine", layer)
        dag.add_node(combine, cost=combine_cost, level=2 * layer + 2, x=(width - 1) / 2, layer=layer,
                     label=f"{layer + 1}+")
        for j in range(width):
            piece = ("piece", layer, j)
            dag.add_node(piece, cost=piece_cost, level=2 * layer + 1, x=float(j), layer=layer,
                         label=f"{layer + 1}.{j + 1}")
            if previous is not None:
                dag.add_edge(previous, piece)
            dag.add_edge(piece, combine)
        previous = combine
    return dag


@public
def pipeline_dag(stages, microbatches, forward=1.0, backward=2.0):
    r"""A pipeline-parallel training step (GPipe schedule) as a DAG.

    A model cut into p stages, one per device, processes m micro-batches. The
    forward of micro-batch j on stage s needs stage s - 1's forward of j and
    stage s's forward of j - 1 (a stage works on one micro-batch at a time);
    after all forwards a stage runs the backwards, each needing the next
    stage's backward of the same micro-batch. Each node's ``processor``
    attribute is its stage, for :func:`greedy_schedule` with ``pinned=True``.

    With :math:`t_\text{mb} = t_f + t_b` per micro-batch and stage,

    .. math:: W = p\,m\,t_\text{mb}, \qquad D = (m + p - 1)\,t_\text{mb}, \qquad
              \frac{p\,D - W}{W} = \frac{p - 1}{m}

    the last ratio being the pipeline bubble as Narayanan et al. define it:
    idle device time over useful time (it exceeds 1 when m < p - 1). The GPipe
    paper instead reports the idle share of the total time,
    :math:`(p - 1)/(m + p - 1)`, which is one minus the utilization.

    Parameters
    ----------
    stages : int
        p, whole >= 1.
    microbatches : int
        m, whole >= 1; the DAG's ``stages x microbatches`` forward nodes (twice
        that with backwards) may number at most 50,000.
    forward : float
        Time of one stage's forward pass on one micro-batch, > 0.
    backward : float
        Time of its backward pass, >= 0 (0 leaves the backward out; about twice
        the forward is typical).

    References
    ----------
    D. Narayanan et al., the Megatron-LM training paper, SC 2021, arXiv:2104.04473
    (``narayanan2021efficient`` in the book's bibliography).

    Examples
    --------
    >>> dag = pipeline_dag(4, 8)
    >>> work(dag), depth(dag)
    (96.0, 33.0)
    """
    p = single_whole("stages", stages, 1)
    m = single_whole("microbatches", microbatches, 1)
    forward = _cost_value("forward", forward)
    backward = _cost_value("backward", backward, allow_zero=True)
    _check_nodes("stages x microbatches", p * m * (2 if backward > 0 else 1))
    dag = nx.DiGraph(name=f"pipeline, {p} stages, {m} micro-batches")
    for s in range(p):
        for j in range(m):
            dag.add_node(("F", s, j), cost=forward, processor=s, stage=s, microbatch=j, phase="forward")
            if s > 0:
                dag.add_edge(("F", s - 1, j), ("F", s, j))
            if j > 0:
                dag.add_edge(("F", s, j - 1), ("F", s, j))
    if backward > 0:
        for s in reversed(range(p)):
            for j in range(m):
                dag.add_node(("B", s, j), cost=backward, processor=s, stage=s, microbatch=j, phase="backward")
                dag.add_edge(("F", s, m - 1) if j == 0 else ("B", s, j - 1), ("B", s, j))
                if s < p - 1:
                    dag.add_edge(("B", s + 1, j), ("B", s, j))
    return dag
