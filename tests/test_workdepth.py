"""Section 3.6: work and depth of the example DAGs, what they compute, Brent's bounds, the greedy scheduler.

The scheduler is checked against the bounds on every example DAG and, with
hypothesis, on random DAGs with random costs; every schedule is also checked
for being a schedule at all (dependencies respected, one operation per
processor at a time, every operation exactly once).
"""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib.figures.s3_6 import EXAMPLES
from scalinglib.workdepth import Input

EPS = 1e-9


def ceil_log2(n):
    return (n - 1).bit_length()


# --- closed forms of every builder ------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64, 100, 1024])
def test_sums(n):
    loop, tree = sl.sequential_sum_dag(n), sl.reduction_tree_dag(n)
    assert sl.work(loop) == sl.depth(loop) == n - 1
    assert sl.work(tree) == n - 1 and sl.depth(tree) == ceil_log2(n)
    assert sl.parallelism(loop) == 1.0


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64, 100, 1024])
def test_hillis_steele(n):
    dag = sl.hillis_steele_scan_dag(n)
    L = ceil_log2(n)
    assert sl.work(dag) == n * L - 2**L + 1 and sl.depth(dag) == L


@pytest.mark.parametrize("n", [2, 4, 8, 64, 1024])
def test_blelloch(n):
    dag = sl.blelloch_scan_dag(n)
    assert sl.work(dag) == 2 * (n - 1) and sl.depth(dag) == 2 * math.log2(n)


def test_blelloch_needs_a_power_of_two():
    with pytest.raises(ValueError, match="power of two"):
        sl.blelloch_scan_dag(12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
def test_matmul_dag_matches_the_closed_forms(n):
    dag = sl.matmul_dag(n)
    assert sl.work(dag) == sl.matmul_work(n) == 2 * n**3 - n**2
    assert sl.depth(dag) == sl.matmul_depth(n) == 1 + ceil_log2(n)


@given(st.integers(1, 12), st.integers(1, 12), st.floats(0.1, 5), st.floats(0.0, 5))
def test_layer_stack(layers, width, a, q):
    """3.6.6: W = ell (w a + q), D = ell (a + q), W/D <= w, with piece cost a and combining cost q."""
    dag = sl.layer_stack_dag(layers, width, a, q)
    assert math.isclose(sl.work(dag), layers * (width * a + q), rel_tol=1e-12)
    assert math.isclose(sl.depth(dag), layers * (a + q), rel_tol=1e-12)
    assert sl.parallelism(dag) <= width + 1e-12


@given(st.integers(1, 12), st.integers(1, 24), st.sampled_from([0.0, 1.0, 2.0]))
def test_pipeline_work_depth_and_bubble(p, m, backward):
    dag = sl.pipeline_dag(p, m, forward=1.0, backward=backward)
    t = 1.0 + backward
    assert sl.work(dag) == p * m * t
    assert sl.depth(dag) == (m + p - 1) * t
    for pinned in (True, False):
        schedule = sl.greedy_schedule(dag, p, pinned=pinned)
        assert schedule.makespan == pytest.approx((m + p - 1) * t)
        # the bubble of Narayanan et al. 2021: idle device time over useful time
        assert schedule.bubble_fraction == pytest.approx((p - 1) / m)
        assert schedule.bubble_fraction == pytest.approx(sl.pipeline_bubble_fraction(p, m))


# --- the arithmetic DAGs compute what they claim ----------------------------------------------------

@given(st.integers(2, 70), st.integers(0, 2**32 - 1))
def test_sums_and_inclusive_scan_compute_the_right_numbers(n, seed):
    x = np.random.default_rng(seed).integers(-1000, 1000, n)
    assert sl.evaluate(sl.sequential_sum_dag(n), x) == [float(x.sum())]
    assert sl.evaluate(sl.reduction_tree_dag(n), x) == [float(x.sum())]
    assert sl.evaluate(sl.hillis_steele_scan_dag(n), x) == list(np.cumsum(x).astype(float))


@given(st.integers(1, 7), st.integers(0, 2**32 - 1))
def test_blelloch_computes_the_exclusive_scan(log_n, seed):
    n = 2**log_n
    x = np.random.default_rng(seed).integers(-1000, 1000, n)
    expected = np.concatenate([[0], np.cumsum(x)[:-1]]).astype(float)
    assert sl.evaluate(sl.blelloch_scan_dag(n), x) == list(expected)


@given(st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_matmul_dag_computes_the_product(n, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-9, 9, (n, n)), rng.integers(-9, 9, (n, n))
    out = sl.evaluate(sl.matmul_dag(n), np.concatenate([a.ravel(), b.ravel()]))
    assert out == list((a @ b).ravel().astype(float))


def test_every_input_feeds_the_outputs_it_should():
    # the inputs an output of the inclusive scan depends on are exactly x_0 ... x_i
    dag = sl.hillis_steele_scan_dag(16)
    for i, out in enumerate(dag.graph["outputs"]):
        if isinstance(out, Input):
            cone = {out.index}
        else:
            nodes = nx.ancestors(dag, out) | {out}
            cone = {s.index for v in nodes for s in dag.nodes[v]["sources"] if isinstance(s, Input)}
        assert cone == set(range(i + 1))


def test_evaluate_refuses_timing_only_dags_and_wrong_lengths():
    with pytest.raises(ValueError, match="timing only"):
        sl.evaluate(sl.pipeline_dag(2, 2), [1, 2])
    with pytest.raises(ValueError, match="values must hold 4 numbers"):
        sl.evaluate(sl.reduction_tree_dag(4), [1, 2, 3])


# --- depth, critical path, parallelism -------------------------------------------------------------

def test_critical_path_costs_the_depth():
    for build in EXAMPLES.values():
        dag = build()
        path = sl.critical_path(dag)
        assert all(dag.has_edge(u, v) for u, v in zip(path, path[1:]))
        assert sum(dag.nodes[v].get("cost", 1.0) for v in path) == pytest.approx(sl.depth(dag))


def test_costs_default_to_one_and_are_checked():
    dag = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    assert sl.work(dag) == 4 and sl.depth(dag) == 3
    dag.nodes["c"]["cost"] = 5
    assert sl.depth(dag) == 7 and sl.critical_path(dag) == ["a", "c", "d"]
    dag.nodes["c"]["cost"] = -1
    with pytest.raises(ValueError, match="cost of node 'c'"):
        sl.work(dag)
    for bad in ("1", None, float("nan")):      # named as the dag's, with no word of results out of range
        dag.nodes["c"]["cost"] = bad
        for call in (sl.work, sl.depth, lambda d: sl.greedy_schedule(d, 2)):
            with pytest.raises(ValueError, match=r"^dag: the cost of node 'c' must be a finite number >= 0; got") as err:
                call(dag)
            assert "beyond the range" not in str(err.value)


def test_bad_graphs_are_refused():
    with pytest.raises(ValueError, match="acyclic"):
        sl.depth(nx.DiGraph([(1, 2), (2, 1)]))
    with pytest.raises(TypeError, match="networkx.DiGraph"):
        sl.work(nx.Graph([(1, 2)]))
    with pytest.raises(ValueError, match="at least one node"):
        sl.work(nx.DiGraph())
    zero = nx.DiGraph()
    zero.add_node(1, cost=0)
    with pytest.raises(ValueError, match="every node costs 0"):
        sl.parallelism(zero)


# --- Brent's bounds -----------------------------------------------------------------------------------

def test_brent_bounds_formula_and_checks():
    lower, upper = sl.brent_bounds(100.0, 10.0, [1, 5, 10, 100])
    np.testing.assert_allclose(lower, [100, 20, 10, 10])
    np.testing.assert_allclose(upper, [110, 30, 20, 11])
    with pytest.raises(ValueError, match="depth must be at most work"):
        sl.brent_bounds(5.0, 6.0, 2)
    with pytest.raises(ValueError, match="k must be a whole number"):
        sl.brent_bounds(5.0, 1.0, 0)
    with pytest.raises(ValueError, match="work must be > 0"):
        sl.brent_bounds(0.0, 1.0, 2)


def _assert_valid(dag, schedule):
    """A schedule runs every node once, after all its inputs, and one node at a time per processor."""
    placed = {t.node: t for t in schedule.tasks}
    assert len(placed) == len(schedule.tasks) == dag.number_of_nodes()
    for u, v in dag.edges:
        assert placed[v].start >= placed[u].finish - EPS
    for t in schedule.tasks:
        assert 0 <= t.processor < schedule.p
        assert t.finish - t.start == pytest.approx(dag.nodes[t.node].get("cost", 1.0))
    by_proc = {}
    for t in sorted(schedule.tasks, key=lambda t: (t.start, t.finish)):
        if t.finish > t.start:
            assert t.start >= by_proc.get(t.processor, 0.0) - EPS
            by_proc[t.processor] = t.finish


@pytest.mark.parametrize("example", list(EXAMPLES))
@pytest.mark.parametrize("p", [1, 2, 3, 4, 7, 16, 64, 1024])
def test_greedy_schedule_obeys_brent_on_every_example(example, p):
    dag = EXAMPLES[example]()
    w, d = sl.work(dag), sl.depth(dag)
    lower, upper = sl.brent_bounds(w, d, p)
    for priority in ("critical-path", "fifo"):
        schedule = sl.greedy_schedule(dag, p, priority=priority)
        _assert_valid(dag, schedule)
        assert lower - EPS <= schedule.makespan <= upper + EPS
        assert schedule.makespan <= (w - d) / p + d + EPS      # Graham's sharper form of the upper bound
        assert schedule.busy == pytest.approx(w)


def test_one_processor_takes_the_work_and_many_take_the_depth():
    for build in EXAMPLES.values():
        dag = build()
        assert sl.greedy_schedule(dag, 1).makespan == pytest.approx(sl.work(dag))
    for build in (lambda: sl.reduction_tree_dag(256), lambda: sl.hillis_steele_scan_dag(64),
                  lambda: sl.blelloch_scan_dag(64), lambda: sl.layer_stack_dag(6, 8)):
        dag = build()
        assert sl.greedy_schedule(dag, dag.number_of_nodes()).makespan == pytest.approx(sl.depth(dag))


@st.composite
def random_dags(draw):
    """A random DAG: nodes 0 ... n-1, edges only from lower to higher numbers, random costs (some zero)."""
    n = draw(st.integers(1, 40))
    density = draw(st.floats(0.0, 0.5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dag = nx.DiGraph()
    integer_costs = draw(st.booleans())
    for v in range(n):
        cost = float(rng.integers(0, 6)) if integer_costs else float(rng.uniform(0, 3))
        dag.add_node(v, cost=cost)
    for u in range(n):
        for v in range(u + 1, n):
            if rng.random() < density:
                dag.add_edge(u, v)
    if all(dag.nodes[v]["cost"] == 0 for v in dag):
        dag.nodes[0]["cost"] = 1.0
    return dag


@given(random_dags(), st.integers(1, 12), st.sampled_from(["critical-path", "fifo"]))
def test_greedy_schedule_obeys_brent_on_random_dags(dag, p, priority):
    w, d = sl.work(dag), sl.depth(dag)
    lower, upper = sl.brent_bounds(w, d, p)
    schedule = sl.greedy_schedule(dag, p, priority=priority)
    _assert_valid(dag, schedule)
    assert lower * (1 - 1e-9) - EPS <= schedule.makespan <= (w - d) / p + d + EPS * (1 + w)
    assert schedule.makespan <= upper + EPS * (1 + w)
    assert schedule.busy == pytest.approx(w)
    _assert_greedy(dag, schedule)


def _assert_greedy(dag, schedule):
    """Greedy: whenever an operation waited after its inputs were ready, every processor was busy meanwhile."""
    finish = {t.node: t.finish for t in schedule.tasks}
    for task in schedule.tasks:
        ready = max((finish[u] for u in dag.predecessors(task.node)), default=0.0)
        if task.start <= ready + EPS:
            continue
        cuts = sorted({ready, task.start} | {x for t in schedule.tasks for x in (t.start, t.finish)
                                             if ready < x < task.start})
        for a, b in zip(cuts, cuts[1:]):
            if b - a > EPS:
                mid = (a + b) / 2
                assert sum(1 for t in schedule.tasks if t.start < mid < t.finish) == schedule.p


@given(random_dags())
def test_unboundedly_many_processors_reach_the_depth(dag):
    assert sl.greedy_schedule(dag, dag.number_of_nodes()).makespan == pytest.approx(sl.depth(dag), abs=1e-9)


def test_schedule_summary_numbers():
    schedule = sl.greedy_schedule(sl.layer_stack_dag(3, 6), 4)
    assert schedule.makespan == 9.0 and schedule.busy == 21.0
    assert schedule.idle == 4 * 9 - 21
    assert schedule.utilization == pytest.approx(21 / 36)


def test_scheduler_input_is_checked():
    dag = sl.reduction_tree_dag(8)
    with pytest.raises(ValueError, match="k must be a whole number"):
        sl.greedy_schedule(dag, 0)
    with pytest.raises(ValueError, match="priority"):
        sl.greedy_schedule(dag, 2, priority="random")
    with pytest.raises(ValueError, match="processor"):
        sl.greedy_schedule(dag, 2, pinned=True)
    with pytest.raises(ValueError, match="processor"):
        sl.greedy_schedule(sl.pipeline_dag(4, 2), 2, pinned=True)


@pytest.mark.parametrize(("builder", "args", "name"), [
    (sl.reduction_tree_dag, (1,), "n"), (sl.sequential_sum_dag, (2.5,), "n"), (sl.hillis_steele_scan_dag, (0,), "n"),
    (sl.reduction_tree_dag, (8, 0.0), "cost"), (sl.layer_stack_dag, (0, 4), "layers"),
    (sl.layer_stack_dag, (2, 4, 1.0, -1.0), "combine_cost"), (sl.pipeline_dag, (4, 0), "microbatches"),
    (sl.pipeline_dag, (4, 4, 1.0, -2.0), "backward"), (sl.matmul_dag, (0,), "n"),
])
def test_builders_refuse_bad_sizes_by_name(builder, args, name):
    with pytest.raises(ValueError, match=name):
        builder(*args)


# --- the inclusive Blelloch scan, and input checks at the boundary -----------------------------------

@pytest.mark.parametrize("n", [2, 4, 8, 64, 1024])
def test_inclusive_blelloch_costs_one_more_round(n):
    dag = sl.blelloch_scan_dag(n, inclusive=True)
    assert sl.work(dag) == 3 * n - 2 and sl.depth(dag) == 2 * math.log2(n) + 1


@given(st.integers(1, 7), st.integers(0, 2**32 - 1))
def test_inclusive_blelloch_computes_the_inclusive_scan(log_n, seed):
    n = 2**log_n
    x = np.random.default_rng(seed).integers(-1000, 1000, n)
    assert sl.evaluate(sl.blelloch_scan_dag(n, inclusive=True), x) == list(np.cumsum(x).astype(float))


def test_inclusive_flag_is_checked():
    with pytest.raises(TypeError, match="inclusive must be True or False"):
        sl.blelloch_scan_dag(8, inclusive="yes")


def test_huge_processor_counts_cost_nothing_and_keep_p():
    import time

    dag = sl.reduction_tree_dag(64)
    start = time.perf_counter()
    for p in (10**6, 10**9, 2**60):
        schedule = sl.greedy_schedule(dag, p)
        assert schedule.p == p and schedule.makespan == sl.depth(dag)
        assert schedule.utilization == pytest.approx(sl.work(dag) / (p * sl.depth(dag)))
    assert time.perf_counter() - start < 2.0
    # the same schedule as with one processor per node
    many = sl.greedy_schedule(dag, dag.number_of_nodes())
    assert sl.greedy_schedule(dag, 10**9).tasks == many.tasks


def test_pinned_schedule_on_more_processors_than_stages():
    dag = sl.pipeline_dag(4, 8)
    wide = sl.greedy_schedule(dag, 10**6, pinned=True)
    assert wide.p == 10**6 and wide.makespan == sl.greedy_schedule(dag, 4, pinned=True).makespan
    assert {t.processor for t in wide.tasks} == {0, 1, 2, 3}


@pytest.mark.parametrize("p", [[2], (2,), np.array([2, 4])])
def test_an_array_of_processor_counts_is_a_type_error(p):
    with pytest.raises(TypeError, match="k must be a single number"):
        sl.greedy_schedule(sl.reduction_tree_dag(8), p)


def test_a_zero_d_array_of_processors_is_one_number():
    assert sl.greedy_schedule(sl.reduction_tree_dag(8), np.array(2)).makespan == 4.0


@pytest.mark.parametrize("values", [list("abcdefgh"), "abcdefgh", None, [1, 2, 3, 4, 5, 6, 7, "8"]])
def test_evaluate_refuses_non_numbers_by_name(values):
    with pytest.raises(TypeError, match="values must"):
        sl.evaluate(sl.reduction_tree_dag(8), values)


def test_evaluate_takes_any_sequence_of_numbers():
    assert sl.evaluate(sl.reduction_tree_dag(8), range(8)) == [28.0]
    with pytest.raises(ValueError, match="values must be finite"):
        sl.evaluate(sl.reduction_tree_dag(2), [1.0, float("nan")])


@pytest.mark.parametrize(("builder", "args", "name"), [
    (sl.reduction_tree_dag, ([8],), "n"), (sl.layer_stack_dag, (2, np.array([4, 8])), "width"),
    (sl.reduction_tree_dag, (8, [1.0]), "cost"), (sl.pipeline_dag, (4, 8, 1.0, [2.0]), "backward"),
])
def test_builders_refuse_arrays_by_name(builder, args, name):
    with pytest.raises(TypeError, match=f"{name} must be a single number"):
        builder(*args)


def test_layer_stack_parallelism_is_below_the_width_exactly_when_both_q_and_w_allow():
    assert sl.parallelism(sl.layer_stack_dag(4, 8, 1.0, 0.0)) == 8        # q = 0: equal to w
    assert sl.parallelism(sl.layer_stack_dag(4, 1, 1.0, 1.0)) == 1        # w = 1: equal to w
    assert sl.parallelism(sl.layer_stack_dag(4, 8, 1.0, 0.5)) < 8         # q > 0 and w > 1: strictly below
