"""The DAGs of Section 3.6, and running the arithmetic ones on numbers (Sections 3.6.4, 3.6.5 and 3.6.6).

The builders make the DAGs of the section: a sequential sum and a reduction
tree, the Hillis-Steele and Blelloch scans, a matrix product, a stack of layers
and a pipeline of micro-batches. The arithmetic ones (sums, scans, matrix
products) also record what each operation computes, so :func:`evaluate` can
run them on numbers and show that the graph really computes what its name says.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._lazy import lazy_module
from .._validate import (
    as_float_array,
    check_flag,
    check_nonnegative,
    check_positive,
    public,
    single,
    single_whole,
)
from .measures import Input, _check_dag, _check_nodes

nx = lazy_module("networkx")      # loaded at the first graph built or checked

__all__ = [
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
    >>> from scalinglib.workdepth import depth, work
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
    >>> from scalinglib.workdepth import depth, work
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
    >>> from scalinglib.workdepth import depth, work
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
    >>> from scalinglib.workdepth import depth, work
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
    >>> from scalinglib.workdepth import depth, work
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
    >>> from scalinglib.workdepth import depth, parallelism, work
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
    >>> from scalinglib.workdepth import depth, work
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
