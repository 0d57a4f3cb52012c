"""Work, depth and parallelism of a computation drawn as a DAG, and Brent's bounds (Sections 3.6.1, 3.6.2 and 3.6.3).

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
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np

from .._lazy import lazy_module
from .._validate import (
    check_broadcast,
    check_positive,
    check_size,
    check_whole,
    public,
    scalar_or_array,
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
    >>> from scalinglib.workdepth import reduction_tree_dag
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
    >>> from scalinglib.workdepth import sequential_sum_dag
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
    >>> from scalinglib.workdepth import reduction_tree_dag, sequential_sum_dag
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
    >>> from scalinglib.workdepth import reduction_tree_dag
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
