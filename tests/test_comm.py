"""The communication cost models of Section 3.8: every collective formula against its closed form
(Thakur, Rabenseifner and Gropp 2005), limiting cases, lower bounds, the NCCL tests' bus-bandwidth
factors, crossovers, refusals, the figures, and every number the section's prose quotes."""

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import scalinglib as sl
from scalinglib.figures import s3_8

ALPHA, BETA = 5e-6, 1 / 50e9
powers_of_two = st.integers(min_value=0, max_value=14).map(lambda k: 2**k)
any_p = st.integers(min_value=1, max_value=5000)
sizes = st.floats(min_value=0.0, max_value=1e12)
alphas = st.floats(min_value=0.0, max_value=1e-3)
betas = st.floats(min_value=0.0, max_value=1e-8)
gammas = st.floats(min_value=0.0, max_value=1e-9)

ALL_PAIRS = [(c, a) for c in sl.COLLECTIVES for a in sl.ALGORITHMS[c]]


def closed_form(collective, algorithm, n, p, alpha, beta, gamma):
    """The costs as Thakur et al. (2005) write them, typed out independently of the library."""
    lg = math.log2(p)
    clg = math.ceil(lg - 1e-12)
    f = (p - 1) / p
    return {
        ("broadcast", "binomial_tree"): clg * (alpha + n * beta),
        ("broadcast", "scatter_allgather"): (clg + p - 1) * alpha + 2 * f * n * beta,
        ("reduce", "binomial_tree"): clg * (alpha + n * beta + n * gamma),
        ("reduce", "rabenseifner"): 2 * lg * alpha + 2 * f * n * beta + f * n * gamma,
        ("allgather", "ring"): (p - 1) * alpha + f * n * beta,
        ("allgather", "recursive_doubling"): lg * alpha + f * n * beta,
        ("reduce_scatter", "ring"): (p - 1) * alpha + f * n * beta + f * n * gamma,
        ("reduce_scatter", "recursive_halving"): lg * alpha + f * n * beta + f * n * gamma,
        ("allreduce", "ring"): 2 * (p - 1) * alpha + 2 * f * n * beta + f * n * gamma,
        ("allreduce", "binomial_tree"): 2 * clg * (alpha + n * beta) + clg * n * gamma,
        ("allreduce", "recursive_doubling"): lg * (alpha + n * beta + n * gamma),
        ("allreduce", "rabenseifner"): 2 * lg * alpha + 2 * f * n * beta + f * n * gamma,
        ("alltoall", "pairwise"): (p - 1) * alpha + f * n * beta,
        ("alltoall", "bruck"): clg * alpha + clg * n / 2 * beta,
    }[(collective, algorithm)]


@pytest.fixture
def fig():
    figure = plt.figure()
    yield figure
    plt.close(figure)


# --- one message --------------------------------------------------------------------------------

@given(sizes, alphas, betas)
def test_p2p_time_is_alpha_plus_n_beta(n, a, b):
    assert sl.p2p_time(n, a, b) == a + n * b


@given(st.floats(min_value=1e-9, max_value=1e-3), st.floats(min_value=1e-13, max_value=1e-8))
def test_half_performance_size_reaches_half_the_bandwidth(a, b):
    half = sl.half_performance_size(a, b)
    assert math.isclose(sl.effective_bandwidth(half, a, b), 0.5 / b, rel_tol=1e-9)
    assert math.isclose(sl.p2p_time(half, a, b), 2 * a, rel_tol=1e-9)


# --- every formula against its closed form --------------------------------------------------------

@pytest.mark.parametrize(("collective", "algorithm"), ALL_PAIRS)
@given(n=sizes, k=st.integers(min_value=0, max_value=14), a=alphas, b=betas, g=gammas)
def test_collective_matches_closed_form_for_powers_of_two(collective, algorithm, n, k, a, b, g):
    p = 2**k
    got = sl.collective_time(collective, n, p, a, b, g, algorithm=algorithm)
    assert math.isclose(got, closed_form(collective, algorithm, n, p, a, b, g), rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize(("collective", "algorithm"),
                         [pair for pair in ALL_PAIRS if pair not in sl.comm.POWER_OF_TWO_ONLY])
@given(n=sizes, p=any_p, a=alphas, b=betas, g=gammas)
def test_any_p_algorithms_match_closed_form(collective, algorithm, n, p, a, b, g):
    got = sl.collective_time(collective, n, p, a, b, g, algorithm=algorithm)
    assert math.isclose(got, closed_form(collective, algorithm, n, p, a, b, g), rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize(("collective", "algorithm"), ALL_PAIRS)
@given(n=sizes, a=alphas, b=betas, g=gammas)
def test_one_process_costs_nothing(collective, algorithm, n, a, b, g):
    assert sl.collective_time(collective, n, 1, a, b, g, algorithm=algorithm) == 0.0
    assert sl.collective_lower_bound(collective, n, 1, a, b, g) == 0.0


def test_ring_allreduce_bandwidth_term_tends_to_2n_beta():
    n = 1e9
    terms = [sl.collective_time("allreduce", n, p, 0.0, BETA, algorithm="ring") for p in (2, 16, 1024, 2**20)]
    assert all(t < 2 * n * BETA for t in terms)
    assert terms == sorted(terms)
    assert math.isclose(terms[-1], 2 * n * BETA, rel_tol=1e-5)
    for p in (2, 8, 64):   # the gap is exactly 2 n beta / p
        assert math.isclose(2 * n * BETA - sl.collective_time("allreduce", n, p, 0.0, BETA), 2 * n * BETA / p)


def test_binomial_tree_uses_ceil_log2_p_when_p_is_not_a_power_of_two():
    for p, steps in [(3, 2), (5, 3), (6, 3), (48, 6), (1000, 10), (1025, 11)]:
        assert sl.collective_cost_terms("broadcast", p, "binomial_tree") == (steps, steps, 0.0)
        assert sl.collective_cost_terms("allreduce", p, "binomial_tree")[0] == 2 * steps
    assert sl.collective_cost_terms("broadcast", 1024, "binomial_tree")[0] == 10   # exact at powers of two


@pytest.mark.parametrize(("collective", "algorithm"), sorted(sl.comm.POWER_OF_TWO_ONLY))
def test_power_of_two_algorithms_refuse_other_p(collective, algorithm):
    for p in (3, 6, 48, 1000):
        with pytest.raises(ValueError, match=r"p \(the K processes of the collective\) must be a power of two .* got " + str(p)) as info:
            sl.collective_time(collective, 1e6, p, ALPHA, BETA, algorithm=algorithm)
        for other in sl.algorithms_for(collective, p):
            assert repr(other) in str(info.value)
        assert algorithm not in sl.algorithms_for(collective, p)
    with pytest.raises(ValueError, match="power of two"):
        sl.collective_time(collective, 1e6, np.array([4, 6]), ALPHA, BETA, algorithm=algorithm)


@pytest.mark.parametrize("call", [
    lambda: sl.collective_time("allreduce", 1e6, 0, ALPHA, BETA),
    lambda: sl.collective_time("allreduce", 1e6, 2.5, ALPHA, BETA),
    lambda: sl.collective_time("allreduce", 1e6, 48, ALPHA, BETA, algorithm="rabenseifner"),
    lambda: sl.collective_times("allreduce", 1e6, 0, ALPHA, BETA),
    lambda: sl.collective_cost_terms("allreduce", 0, "ring"),
    lambda: sl.collective_lower_bound("allreduce", 1e6, 0, ALPHA, BETA),
    lambda: sl.best_algorithm("allreduce", 1e6, 0, ALPHA, BETA),
    lambda: sl.crossover_size("allreduce", "ring", "rabenseifner", 6, ALPHA, BETA),
    lambda: sl.crossover_size("allreduce", "ring", "rabenseifner", [8], ALPHA, BETA),
    lambda: sl.algorithms_for("allreduce", [2, 4]),
    lambda: sl.bus_bandwidth_factor("allreduce", 0),
    lambda: sl.bus_bandwidth("allreduce", 1e9, 0.01, 0),
    lambda: sl.collective_time("allreduce", 1e6, np.full(3, 8), ALPHA, np.full(2, BETA)),
])
def test_messages_about_p_say_it_is_the_number_of_processes(call):
    """The book writes the number of processes K; a message names the parameter p and says what it is."""
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert "p (the K processes of the collective)" in str(info.value)


def test_power_of_two_test_is_exact_for_huge_p():
    """No cast to int64: 2**63 and beyond are powers of two, 3 * 2**62 is not, and nothing warns."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for p in (2**53, 2**63, 2**64, 2**100):
            assert "rabenseifner" in sl.algorithms_for("allreduce", p)
            assert sl.collective_cost_terms("allreduce", p, "recursive_doubling")[0] == math.log2(p)
        for p in (3 * 2**62, 2**63 + 2**40, 2**53 + 2):
            assert sl.algorithms_for("allreduce", p) == ("ring", "binomial_tree")
            with pytest.raises(ValueError, match="power of two"):
                sl.collective_time("allreduce", 1e6, p, ALPHA, BETA, algorithm="rabenseifner")
    assert sl.comm._is_power_of_two(np.array([1.0, 2, 3, 4, 6, 1024, 1023, 2.0**80])).tolist() == [
        True, True, False, True, False, True, False, True]


def test_compositions():
    n, p, g = 3e8, 16, 1e-11
    t = lambda c, a: sl.collective_time(c, n, p, ALPHA, BETA, g, algorithm=a)   # noqa: E731
    assert math.isclose(t("allreduce", "ring"), t("reduce_scatter", "ring") + t("allgather", "ring"))
    assert math.isclose(t("allreduce", "rabenseifner"),
                        t("reduce_scatter", "recursive_halving") + t("allgather", "recursive_doubling"))
    assert math.isclose(t("allreduce", "binomial_tree"), t("reduce", "binomial_tree") + t("broadcast", "binomial_tree"))


@pytest.mark.parametrize(("collective", "algorithm"), ALL_PAIRS)
@given(n=sizes, k=st.integers(min_value=0, max_value=14), a=alphas, b=betas, g=gammas)
def test_no_algorithm_beats_the_lower_bound(collective, algorithm, n, k, a, b, g):
    p = 2**k
    bound = sl.collective_lower_bound(collective, n, p, a, b, g)
    assert sl.collective_time(collective, n, p, a, b, g, algorithm=algorithm) >= bound * (1 - 1e-12)


def test_ring_allreduce_reaches_the_bandwidth_and_compute_bounds():
    for p in (2, 6, 64, 1000):
        _, b_ring, c_ring = sl.collective_cost_terms("allreduce", p, "ring")
        assert sl.collective_lower_bound("allreduce", 1.0, p, 0.0, 1.0, 0.0) == b_ring
        assert sl.collective_lower_bound("allreduce", 1.0, p, 0.0, 0.0, 1.0) == c_ring


def test_arrays_broadcast_and_scalars_stay_floats():
    assert isinstance(sl.collective_time("allreduce", 1e6, 8, ALPHA, BETA), float)
    out = sl.collective_time("allreduce", [[1e3], [1e9]], [2, 8, 64], ALPHA, BETA)
    assert out.shape == (2, 3)
    assert out[1, 2] == pytest.approx(closed_form("allreduce", "ring", 1e9, 64, ALPHA, BETA, 0.0))


# --- names ---------------------------------------------------------------------------------------

def test_unknown_names_are_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="'broadcast', 'reduce', 'allgather', 'reduce_scatter', 'allreduce', 'alltoall'"):
        sl.collective_time("scatter", 1e6, 8, ALPHA, BETA)
    with pytest.raises(ValueError, match="'binomial_tree', 'scatter_allgather' for broadcast; got 'ring'"):
        sl.collective_time("broadcast", 1e6, 8, ALPHA, BETA, algorithm="ring")
    with pytest.raises(ValueError, match="'ring', 'recursive_doubling' for allgather"):
        sl.collective_time("allgather", 1e6, 8, ALPHA, BETA, algorithm="butterfly")
    with pytest.raises(TypeError, match="collective must be one of"):
        sl.collective_time(3, 1e6, 8, ALPHA, BETA)
    with pytest.raises(TypeError, match="algorithm must be one of"):
        sl.collective_time("allreduce", 1e6, 8, ALPHA, BETA, algorithm=2)


def test_spellings_are_forgiving():
    ref = sl.collective_time("allreduce", 1e6, 8, ALPHA, BETA, algorithm="rabenseifner")
    for coll in ("All-Reduce", "all_reduce", "ALLREDUCE"):
        for alg in ("Rabenseifner", "reduce-scatter+allgather", "halving doubling"):
            assert sl.collective_time(coll, 1e6, 8, ALPHA, BETA, algorithm=alg) == ref
    assert sl.collective_time("reduce-scatter", 1e6, 8, ALPHA, BETA) == sl.collective_time(
        "reduce_scatter", 1e6, 8, ALPHA, BETA, algorithm="ring")
    assert sl.collective_time("bcast", 1e6, 8, ALPHA, BETA) == sl.collective_time(
        "broadcast", 1e6, 8, ALPHA, BETA, algorithm="binomial_tree")


# --- crossovers and the best algorithm -----------------------------------------------------------

@given(st.integers(min_value=2, max_value=14), st.floats(min_value=1e-9, max_value=1e-3),
       st.floats(min_value=1e-13, max_value=1e-8))
def test_crossover_between_latency_and_bandwidth_optimal_allreduce(k, a, b):
    p = 2**k
    n_star = sl.crossover_size("allreduce", "recursive_doubling", "ring", p, a, b)
    lg, f = k, (p - 1) / p
    assert math.isclose(n_star, (2 * (p - 1) - lg) * a / ((lg - 2 * f) * b), rel_tol=1e-9)
    t = lambda n, alg: sl.collective_time("allreduce", n, p, a, b, algorithm=alg)   # noqa: E731
    assert math.isclose(t(n_star, "recursive_doubling"), t(n_star, "ring"), rel_tol=1e-9)
    assert t(n_star / 2, "recursive_doubling") < t(n_star / 2, "ring")
    assert t(n_star * 2, "recursive_doubling") > t(n_star * 2, "ring")


def test_crossover_is_none_when_the_lines_do_not_cross():
    # same bytes, fewer messages: Rabenseifner never loses to the ring at a power of two
    assert sl.crossover_size("allreduce", "rabenseifner", "ring", 64, ALPHA, BETA) is None
    assert sl.crossover_size("allreduce", "ring", "ring", 64, ALPHA, BETA) is None
    assert sl.crossover_size("allreduce", "recursive_doubling", "ring", 2, ALPHA, BETA) is None   # identical at p = 2


def test_best_algorithm_switches_with_size():
    assert sl.best_algorithm("allreduce", 1e3, 64, ALPHA, BETA) == "recursive_doubling"
    assert sl.best_algorithm("allreduce", 1e9, 64, ALPHA, BETA) == "rabenseifner"
    assert sl.best_algorithm("allreduce", 1e3, 48, ALPHA, BETA) == "binomial_tree"
    assert sl.best_algorithm("allreduce", 1e9, 48, ALPHA, BETA) == "ring"
    assert sl.best_algorithm("allreduce", 1e9, 1, ALPHA, BETA) == "ring"    # a tie: the first listed
    assert sl.best_algorithm("broadcast", 1e3, 64, ALPHA, BETA) == "binomial_tree"
    assert sl.best_algorithm("broadcast", 1e9, 64, ALPHA, BETA) == "scatter_allgather"
    winners = sl.best_algorithm("allreduce", np.array([1e3, 1e9]), 64, ALPHA, BETA)
    assert winners.tolist() == ["recursive_doubling", "rabenseifner"]
    assert sl.algorithms_for("allreduce", 48) == ("ring", "binomial_tree")


# --- bus bandwidth -------------------------------------------------------------------------------

@given(st.integers(min_value=1, max_value=10_000))
def test_bus_bandwidth_factors_follow_the_nccl_tests(p):
    assert sl.bus_bandwidth_factor("allreduce", p) == 2 * (p - 1) / p
    assert sl.bus_bandwidth_factor("reduce_scatter", p) == (p - 1) / p
    assert sl.bus_bandwidth_factor("allgather", p) == (p - 1) / p
    assert sl.bus_bandwidth_factor("broadcast", p) == 1.0
    assert sl.bus_bandwidth_factor("reduce", p) == 1.0


@pytest.mark.parametrize("collective", ["allreduce", "allgather", "reduce_scatter"])
@pytest.mark.parametrize("p", [2, 3, 8, 100, 1024])
def test_a_bandwidth_optimal_ring_shows_the_link_as_busbw(collective, p):
    n = 2**30
    t = sl.collective_time(collective, n, p, 0.0, BETA, algorithm="ring")
    assert math.isclose(sl.bus_bandwidth(collective, n, t, p), 1 / BETA, rel_tol=1e-12)
    assert math.isclose(sl.algorithm_bandwidth(n, t), 1 / BETA / sl.bus_bandwidth_factor(collective, p), rel_tol=1e-12)


@given(st.integers(min_value=2, max_value=10_000))
def test_bus_bandwidth_factor_is_the_lower_bounds_bandwidth_coefficient(p):
    for coll in sl.COLLECTIVES:
        bound = sl.collective_lower_bound(coll, 1.0, p, 0.0, 1.0, 0.0)
        assert math.isclose(sl.bus_bandwidth_factor(coll, p), bound, rel_tol=1e-12)


@pytest.mark.parametrize("p", [3, 8, 48, 1024])
def test_only_the_ring_reaches_the_bus_bandwidth_factor(p):
    """The ring reaches the factor for all-reduce, all-gather and reduce-scatter; for broadcast and reduce no
    modelled algorithm does once p > 2 (a pipelined chain would, and is not modelled)."""
    for coll in ("allreduce", "allgather", "reduce_scatter"):
        assert sl.collective_cost_terms(coll, p, "ring")[1] == pytest.approx(sl.bus_bandwidth_factor(coll, p))
    for coll in ("broadcast", "reduce"):
        for alg in sl.algorithms_for(coll, p):
            assert sl.collective_cost_terms(coll, p, alg)[1] > sl.bus_bandwidth_factor(coll, p)


# --- hierarchy and training-step communication ----------------------------------------------------

def test_hierarchical_allreduce_reduces_to_flat_rings():
    n, g = 1e9, 8
    b_in, b_out = 1 / 450e9, BETA
    one_node = sl.hierarchical_allreduce_time(n, 1, g, ALPHA, b_in, ALPHA, b_out, 1e-12)
    assert math.isclose(one_node, sl.collective_time("allreduce", n, g, ALPHA, b_in, 1e-12))
    one_per_node = sl.hierarchical_allreduce_time(n, 16, 1, ALPHA, b_in, ALPHA, b_out)
    assert math.isclose(one_per_node, sl.collective_time("allreduce", n, 16, ALPHA, b_out))


B_IN, B_OUT = 1 / 450e9, BETA


def test_multiring_reduces_to_a_plain_ring():
    n, g = 1e9, 8
    for k in (1, 4, 8):      # one node: the rings share each device's NVLink, as one ring would
        one_node = sl.multiring_allreduce_time(n, 1, g, ALPHA, B_IN, 3 * ALPHA, B_OUT, 1e-12, nics=k)
        assert math.isclose(one_node, sl.collective_time("allreduce", n, g, ALPHA, B_IN, 1e-12))
    # one device per node: every hop is a network hop
    one_per_node = sl.multiring_allreduce_time(n, 16, 1, 3 * ALPHA, B_IN, ALPHA, B_OUT, 1e-12)
    assert math.isclose(one_per_node, sl.collective_time("allreduce", n, 16, ALPHA, B_OUT, 1e-12))
    # one port per node: a single node-ordered ring, as slow as the naive ring whose every hop is on the network
    single = sl.multiring_allreduce_time(n, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics=1)
    assert math.isclose(single, sl.collective_time("allreduce", n, 32, ALPHA, B_OUT))


@given(n=st.floats(min_value=0.0, max_value=1e12), m=st.integers(min_value=2, max_value=64),
       g=st.integers(min_value=2, max_value=16), data=st.data())
def test_multiring_closed_form(n, m, g, data):
    k = data.draw(st.integers(min_value=1, max_value=g))
    a_in, a_out = data.draw(alphas), data.draw(alphas)
    b_in, b_out, gam = data.draw(betas), data.draw(betas), data.draw(gammas)
    p = m * g
    step_beta = max(b_out, min(k, g - 1) * b_in)
    expected = 2 * (p - 1) * max(a_in, a_out) + 2 * (p - 1) / p * n / k * step_beta + (p - 1) / p * n * gam
    got = sl.multiring_allreduce_time(n, m, g, a_in, b_in, a_out, b_out, gam, nics=k)
    assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-300)
    # more ports never slow it down, and it is never slower than the naive ring over the network
    if k < g:
        assert sl.multiring_allreduce_time(n, m, g, a_in, b_in, a_out, b_out, gam, nics=k + 1) <= got * (1 + 1e-12)
    if b_in <= b_out and a_in <= a_out:
        naive = sl.collective_time("allreduce", n, p, a_out, b_out, gam)
        assert got <= naive * (1 + 1e-12)


def test_multiring_busiest_nvlink_can_set_the_pace():
    """With NVLink no faster than a port, 7 chunks per step on a GPU's NVLink are slower than 1 on the network."""
    n, p = 1e9, 32
    t = sl.multiring_allreduce_time(n, 4, 8, 0.0, B_OUT, 0.0, B_OUT)
    assert math.isclose(t, 2 * (p - 1) / p * n / 8 * 7 * B_OUT)
    # with 4 ports, the busiest GPU forwards 4 chunks per step over NVLink
    t4 = sl.multiring_allreduce_time(n, 4, 8, 0.0, B_OUT, 0.0, B_OUT, nics=4)
    assert math.isclose(t4, 2 * (p - 1) / p * n / 4 * 4 * B_OUT)


def test_hierarchical_ports_and_reduction():
    n, m, g = 1e9, 4, 8
    default = sl.hierarchical_allreduce_time(n, m, g, ALPHA, B_IN, ALPHA, B_OUT, 1e-12)
    assert default == sl.hierarchical_allreduce_time(n, m, g, ALPHA, B_IN, ALPHA, B_OUT, 1e-12, nics=g)
    inside = (sl.collective_time("reduce_scatter", n, g, ALPHA, B_IN, 1e-12)
              + sl.collective_time("allgather", n, g, ALPHA, B_IN))
    for k in (1, 2, 4, 8):
        across = 2 * (m - 1) * ALPHA + 2 * (m - 1) / m * n / k * B_OUT + (m - 1) / m * n / g * 1e-12
        got = sl.hierarchical_allreduce_time(n, m, g, ALPHA, B_IN, ALPHA, B_OUT, 1e-12, nics=k)
        assert math.isclose(got, inside + across, rel_tol=1e-12)


def test_hierarchical_refuses_ports_that_do_not_divide_the_node():
    """Three ports for eight GPUs: phase 2's eight rings of n/8 cannot share them evenly (the busiest port would
    carry 3n/8, not the n/3 the formula charges), so the hierarchy refuses; the flat rings, one per port, do not."""
    for k in (3, 5, 6, 7):
        with pytest.raises(ValueError, match=rf"nics must be a divisor of per_node .*; got {k} with per_node = 8"):
            sl.hierarchical_allreduce_time(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics=k)
    with pytest.raises(ValueError, match="got 3 with per_node = 8"):          # one bad pair in an array
        sl.hierarchical_allreduce_time(1e9, 4, [8, 8], ALPHA, B_IN, ALPHA, B_OUT, nics=[4, 3])
    for k in (1, 2, 4, 8):
        assert sl.hierarchical_allreduce_time(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics=k) > 0
    assert sl.hierarchical_allreduce_time(1e9, 4, 6, ALPHA, B_IN, ALPHA, B_OUT, nics=3) > 0
    # a ring per port: three rings of n/3 on three ports is a valid layout
    n, p = 1e9, 32
    got = sl.multiring_allreduce_time(n, 4, 8, 0.0, 0.0, 0.0, B_OUT, nics=3)
    assert math.isclose(got, 2 * (p - 1) / p * n / 3 * B_OUT)


def test_cluster_functions_broadcast_and_refuse_by_name():
    for func in (sl.multiring_allreduce_time, sl.hierarchical_allreduce_time):
        out = func([[1e6], [1e9]], [2, 4, 8], 8, ALPHA, B_IN, ALPHA, B_OUT)
        assert out.shape == (2, 3)
        assert isinstance(func(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT), float)
        with pytest.raises(ValueError, match=r"nodes has shape \(3,\).*per_node has shape \(2,\)"):
            func(1e9, [2, 4, 8], [8, 8], ALPHA, B_IN, ALPHA, B_OUT)
        with pytest.raises(ValueError, match=r"nics must be a whole number from 1 to per_node .*; got 9 with per_node = 8"):
            func(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics=9)
        for bad in (0, 2.5, -1, math.nan):
            with pytest.raises(ValueError, match="nics"):
                func(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics=bad)
        with pytest.raises(TypeError, match="nics"):
            func(1e9, 4, 8, ALPHA, B_IN, ALPHA, B_OUT, nics="8")
        for name in ("nbytes", "nodes", "per_node", "alpha_intra", "beta_intra", "alpha_inter", "beta_inter",
                     "gamma"):
            args = dict(nbytes=1e9, nodes=4, per_node=8, alpha_intra=ALPHA, beta_intra=B_IN, alpha_inter=ALPHA,
                        beta_inter=B_OUT, gamma=0.0)
            args[name] = -1.0
            with pytest.raises(ValueError, match=name):
                func(**args)


@given(st.integers(min_value=1, max_value=64), st.floats(min_value=256, max_value=65536))
def test_tensor_parallel_term_is_four_ring_allreduces_per_layer(t, h):
    """Section 3.3's closed form and Section 3.8's collective model agree."""
    x, link, b_seq, seq = 150e12, 300e9, 2, 1024
    comm = 4 * sl.collective_time("allreduce", 2 * b_seq * seq * h, t, 0.0, 1 / link, algorithm="ring")
    compute = 72 * b_seq * seq * h**2 / (t * x)
    assert math.isclose(comm / compute, sl.tensor_parallel_comm_fraction(t, h, x, link), rel_tol=1e-9, abs_tol=1e-15)


@given(st.floats(min_value=1e8, max_value=1e13), st.integers(min_value=2, max_value=4096))
def test_gradient_allreduce_hiding_threshold_does_not_depend_on_model_size(n_params, d):
    x, beta = 150e12, BETA
    t_ar = sl.collective_time("allreduce", 2 * n_params, d, 0.0, beta, algorithm="ring")
    tokens = t_ar * x / (4 * n_params)
    assert math.isclose(tokens, (d - 1) / d * 2 * x * beta / 2, rel_tol=1e-9)


# --- numbers the text of Section 3.8 quotes -------------------------------------------------------

def test_section_3_8_claims():
    alpha, beta = s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA
    assert (alpha, 1 / beta) == (ALPHA, 50e9)
    assert sl.half_performance_size(alpha, beta) == pytest.approx(250_000)
    assert sl.effective_bandwidth(1e6, alpha, beta) * beta == pytest.approx(0.8)
    assert sl.p2p_time(1e3, alpha, beta) / sl.p2p_time(8, alpha, beta) - 1 < 0.005
    # ring loop = closed form, 35.07 ms for 1 GB over 8
    assert round(sl.collective_time("allreduce", 1e9, 8, alpha, beta) * 1e3, 2) == 35.07
    # crossovers at 64 processes and the winners
    cross = {pair: sl.crossover_size("allreduce", *pair, 64, alpha, beta) / 1e6
             for pair in [("recursive_doubling", "ring"), ("recursive_doubling", "rabenseifner"), ("binomial_tree", "ring")]}
    assert [round(v, 3) for v in cross.values()] == [7.442, 0.372, 2.841]
    # only the second crossover changes the winner: the ring and the tree never win at 64 processes
    sweep = np.geomspace(1.0, 2.0**30, 400)
    winners = sl.best_algorithm("allreduce", sweep, 64, alpha, beta)
    assert set(winners) == {"recursive_doubling", "rabenseifner"}
    switch = sweep[list(winners).index("rabenseifner")]
    assert sweep[list(winners).index("rabenseifner") - 1] < 0.372e6 * 1.001 and 0.372e6 * 0.999 < switch
    assert all(w == "rabenseifner" for w in winners[sweep > switch])
    # Figure 3.8.2 at 1 MiB: the ring, with 126 latencies, is the slowest of the four
    at_1mib = {a: sl.collective_time("allreduce", 2**20, 64, alpha, beta, algorithm=a)
               for a in ("ring", "binomial_tree", "recursive_doubling", "rabenseifner")}
    assert max(at_1mib, key=at_1mib.get) == "ring" and min(at_1mib, key=at_1mib.get) == "rabenseifner"
    assert sl.collective_cost_terms("allreduce", 64, "recursive_doubling")[0] == 6
    assert sl.collective_cost_terms("allreduce", 64, "rabenseifner")[0] == 12
    assert sl.collective_cost_terms("allreduce", 64, "ring")[0] == 126
    # the slider: at p = 24 only the ring and the tree compete, and the ring takes large messages
    assert sl.best_algorithm("allreduce", 2.0**28, 24, alpha, beta) == "ring"
    assert sl.best_algorithm("allreduce", 2.0**8, 24, alpha, beta) == "binomial_tree"
    # at K = 512 the ring's 1,022 latencies lose to Rabenseifner's 18 at every size of the slider
    assert sl.collective_cost_terms("allreduce", 512, "ring")[0] == 1022
    assert sl.collective_cost_terms("allreduce", 512, "rabenseifner")[0] == 18
    for size in (2**8, 2**12, 2**16, 2**20, 2**24, 2**28):
        assert (sl.collective_time("allreduce", size, 512, alpha, beta, algorithm="rabenseifner")
                < sl.collective_time("allreduce", size, 512, alpha, beta, algorithm="ring"))
    # busbw of the model ring equals NVLink's 450 GB/s
    t = sl.collective_time("allreduce", 2**30, 8, 0.0, 1 / 450e9)
    assert sl.bus_bandwidth("allreduce", 2**30, t, 8) == pytest.approx(450e9)


def test_section_3_8_c_log2_k_is_a_tree():
    """A tree all-reduce with 2 (alpha + n beta) = 0.01 reproduces Section 3.3's strong-scaling table; a ring
    moves the fastest worker count from 64 to 307."""
    alpha, beta = s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA
    grad = 5e-3 / beta
    K = 2 ** np.arange(8)
    tree = 0.05 + 0.95 / K + sl.collective_time("allreduce", grad, K, alpha, beta, algorithm="binomial_tree")
    np.testing.assert_allclose(np.round(tree, 4), [1.0, 0.535, 0.3075, 0.1988, 0.1494, 0.1297, 0.1249, 0.1275],
                               atol=6e-5)
    Ks = np.arange(1, 4097)
    ring = 0.05 + 0.95 / Ks + sl.collective_time("allreduce", grad, Ks, alpha, beta, algorithm="ring")
    tree = 0.05 + 0.95 / Ks + sl.collective_time("allreduce", grad, Ks, alpha, beta, algorithm="binomial_tree")
    assert Ks[tree.argmin()] == 64 and round(1 / tree.min(), 2) == 8.01
    assert Ks[ring.argmin()] == 307 and round(1 / ring.min(), 2) == 15.12
    # Section 3.3's smooth c log2 K turns at (1 - f) ln 2 / c = 65.85, so 66 workers; the real tree's 65th worker
    # adds a seventh level
    assert round(0.95 * np.log(2) / 0.01, 2) == 65.85
    assert sl.collective_cost_terms("allreduce", 65, "binomial_tree")[0] == 2 * 7
    assert sl.collective_cost_terms("allreduce", 64, "binomial_tree")[0] == 2 * 6


# --- 3.8.8: a training step on the hardware of Section 3.3's layout model -----------------------------

X_A100 = sl.layout.A100_ACHIEVED_FLOPS
BETA_HDR = 1 / sl.LINKS["InfiniBand HDR"].bandwidth
BETA_NVL3 = 1 / sl.LINKS["NVLink 3 (A100)"].bandwidth


def _t_ar(n_params, dp, tp, pp):
    """One GPU's gradient all-reduce: its 1/(tp) of the bf16 gradients over its data-parallel group, which has
    min(dp, 8/t) members (and ports) per node, rings laid out node by node, alpha = 5 us."""
    per_node = min(dp, 8 // tp)
    return sl.multiring_allreduce_time(2 * n_params / (tp * pp), dp // per_node, per_node, ALPHA, BETA_NVL3, ALPHA,
                                       BETA_HDR, nics=per_node)


def _rho_dp(n_params, lay, seq=2048):
    split = lay.tp * lay.pp
    exposed = max(0.0, _t_ar(n_params, lay.dp, lay.tp, lay.pp) - 4 * n_params * seq / (split * X_A100))
    return exposed / (6 * n_params * lay.microbatches * seq / (split * X_A100))


def test_section_3_8_7_hardware_is_section_3_3s():
    assert (X_A100, 1 / BETA_NVL3, 1 / BETA_HDR) == (150e12, 300e9, 25e9) == (
        150e12, sl.layout.A100_NVLINK_BANDWIDTH, 25e9)
    assert s3_8.EXAMPLE_ALPHA == ALPHA
    assert 7 * 25e9 < 300e9          # NVLink keeps pace with seven rings' chunks: the port sets the pace


def test_section_3_8_7_tensor_parallel_numbers():
    """Four ring all-reduces of 2bLh bytes per layer (t = 8, h = 12,288, one 2,048-token sequence): 6% of the
    layer's compute on NVLink 3, 76% over one HDR port; each all-reduce moves 50 MB; alpha left out."""
    t, h, seq = 8, 12288, 2048
    layer = 72 * seq * h**2 / (t * X_A100)
    ratios = [4 * sl.collective_time("allreduce", 2 * seq * h, t, 0.0, b, algorithm="ring") / layer
              for b in (BETA_NVL3, BETA_HDR)]
    assert [round(r, 3) for r in ratios] == [0.063, 0.760]
    assert round(ratios[0], 4) == round(sl.tensor_parallel_comm_fraction(t, h), 4) == 0.0633   # Section 3.2's
    assert round(2 * seq * h / 1e6) == 50
    # alpha is left out, as in Section 3.2: the four rings' 56 latencies would add 0.28 ms
    assert 4 * sl.collective_cost_terms("allreduce", t, "ring")[0] == 56
    assert round(56 * ALPHA * 1e3, 2) == 0.28


def test_section_3_8_7_hiding_threshold_by_tensor_parallel_degree():
    """13B, 256 replicas: a flat ring needs about 6,000 tokens whatever t; rings laid out by node take 0.262 s for
    every t, so B_rep* = 754 t (754, 1,509, 3,018, 6,035), and the closed form (d-1)/d (t/g) b_p X beta / 2 is close."""
    n, d, g = 13e9, 256, 8
    flat, by_node, times = [], [], []
    for t in (1, 2, 4, 8):
        f = sl.collective_time("allreduce", 2 * n / t, d, ALPHA, BETA_HDR, algorithm="ring")
        r = _t_ar(n, d, t, 1)
        flat.append(round(f * t * X_A100 / (4 * n)))
        by_node.append(round(r * t * X_A100 / (4 * n)))
        times.append(round(r, 3))
        assert r * t * X_A100 / (4 * n) == pytest.approx((d - 1) / d * t / g * 2 * X_A100 * BETA_HDR / 2, rel=0.01)
    assert flat == [5984, 5991, 6006, 6035]
    assert by_node == [754, 1509, 3018, 6035]
    assert times == [0.262] * 4
    assert round(flat[0] / by_node[0]) == 8
    # the flat-ring closed form, alpha ignored: N, t and p cancel
    assert round((d - 1) / d * 2 * X_A100 * BETA_HDR / 2) == 5977


def test_section_3_8_7_the_last_bucket_sticks_out():
    """PyTorch's default 25 MiB bucket, all-reduced after the backward pass ends: 2.8 to 4.6 ms for t = 1..8,
    against 1.06 s of compute per step at 1,024 GPUs, so rho_DP leaves it out."""
    n, d, g, bucket = 13e9, 256, 8, 25 * 2**20
    tails = []
    for t in (1, 2, 4, 8):
        per_node = g // t
        tails.append(round(sl.multiring_allreduce_time(bucket, d // per_node, per_node, ALPHA, BETA_NVL3, ALPHA,
                                                       BETA_HDR, nics=per_node) * 1e3, 1))
    assert tails == [2.8, 3.1, 3.6, 4.6]
    lay = sl.parallel_layout(1024, n, global_batch_tokens=4e6, critical_batch_tokens=4e6)
    step = 6 * n * lay.microbatches * 2048 / (lay.tp * lay.pp * X_A100)
    assert round(step, 2) == 1.06 and max(tails) / 1e3 / step < 0.005


def test_section_3_8_7_gradient_all_reduce_in_section_3_3s_layouts():
    sizes = (2 ** np.arange(3, 15)).tolist()
    rows = {g: sl.parallel_layout(g, 13e9, 4e6, 4e6) for g in sizes}
    rho = {g: _rho_dp(13e9, lay) for g, lay in rows.items()}
    e_with = {g: float(sl.scaling_efficiency(lay.tp_fraction + lay.bubble_fraction + rho[g]))
              for g, lay in rows.items()}
    # 8 GPUs: both replicas in one node, NVLink: it hides
    assert rows[8].dp == 2 and rho[8] == 0.0
    # 16 to 1,024 GPUs: t = 4, two members per node, B_rep* about 3,000 > 2,048 tokens
    assert all((rows[g].tp, rows[g].pp, rows[g].microbatches) == (4, 1, 4) for g in sizes if 16 <= g <= 1024)
    assert round(_t_ar(13e9, 256, 4, 1) * 4 * X_A100 / (4 * 13e9)) == 3018 > 2048
    assert round(rho[1024], 3) == 0.079 and max(rho[g] for g in sizes if g <= 1024) == rho[1024]
    # the closed form rho_DP = 2 (B_rep* - bL) / (3 m bL), with the printed B_rep* = 3,018 and m = 4
    b_star = _t_ar(13e9, 256, 4, 1) * 4 * X_A100 / (4 * 13e9)
    assert 2 * (b_star - 2048) / (3 * 4 * 2048) == pytest.approx(rho[1024])
    assert round(2 * (3018 - 2048) / (3 * 4 * 2048), 3) == 0.079
    # the cap: 4 micro-batches of 2,048 tokens = 8,192 tokens a replica; 4e6 / 8,192 = 488, down to 256
    assert rows[1024].microbatches * 2048 == 8192 and round(4e6 / 8192) == 488 and rows[1024].dp == 256
    assert (round(rows[1024].efficiency, 3), round(e_with[1024], 3)) == (0.939, 0.875)
    assert [round(e_with[g], 3) for g in (8, 16, 32, 64, 128, 256, 512)] == [0.939, 0.925, 0.900, 0.888, 0.881,
                                                                              0.878, 0.876]
    # past the cap: t = 8, one member per node, the threshold doubles
    assert (rows[2048].dp, rows[2048].tp, rows[2048].pp) == (256, 8, 1)
    assert round(_t_ar(13e9, 256, 8, 1) * 8 * X_A100 / (4 * 13e9)) == 6035
    assert round(rho[2048], 3) == 0.324
    assert (round(rows[2048].efficiency, 3), round(e_with[2048], 3)) == (0.869, 0.678)
    assert [round(e_with[g], 3) for g in (4096, 8192, 16384)] == [0.578, 0.447, 0.307]
    assert all(e_with[g] <= rows[g].efficiency for g in sizes)


def test_exercise_3_8_4_replicas_span_two_gpus():
    from scalinglib.exercises import check
    from scalinglib.exercises import s3_8 as ex
    assert sl.devices_to_hold(7e9, "train_mixed_adam", 80e9, usable_fraction=0.8) == ex.DP_TP == 2
    assert round(ex.dp_allreduce_seconds(), 5) == 0.27125 and round(ex.backward_seconds(4096), 3) == 0.382
    # t cancels: the threshold and the efficiency are those of a one-GPU replica
    one_gpu = sl.collective_time("allreduce", 2 * 7e9, 32, 0.0, 1 / 50e9) * 150e12 / (4 * 7e9)
    assert ex.hiding_tokens() == pytest.approx(one_gpu) and round(ex.hiding_tokens(), 2) == 2906.25
    assert round(ex.dp_efficiency(), 3) == 0.449
    # (e) rings laid out by node, four members of each group per node: the threshold shrinks by t/g = 1/4
    assert ex.hiding_tokens_by_node() == pytest.approx(ex.hiding_tokens() * ex.DP_TP / ex.DP_GPUS_PER_NODE)
    assert round(ex.hiding_tokens_by_node()) == 727
    assert check("ex-3-8-4e", 727).correct and not check("ex-3-8-4e", 2906).correct
    # the one-GPU answers (the whole gradient, the whole backward pass) are wrong now
    assert not check("ex-3-8-4a", 0.5425).correct and not check("ex-3-8-4b", 0.7646).correct
    assert check("ex-3-8-4a", 0.27).correct and check("ex-3-8-4b", 0.382).correct


# --- the drawing functions -----------------------------------------------------------------------

def _lines(ax):
    return {line.get_label(): (np.asarray(line.get_xdata()), np.asarray(line.get_ydata())) for line in ax.get_lines()}


@pytest.mark.parametrize("nbytes", [2**8, 2**12, 2**16, 2**20, 2**24, 2**28])
@pytest.mark.parametrize("p", [8, 24, 64, 512])
def test_allreduce_slider_frames(fig, nbytes, p):
    ax_c, ax_bar = s3_8.allreduce_choice(fig, nbytes, p)
    lines = _lines(ax_c)
    for alg in sl.algorithms_for("allreduce", p):
        n, t = lines[alg.replace("_", " ")]
        np.testing.assert_allclose(t, sl.collective_time("allreduce", n, p, s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA,
                                                         algorithm=alg))
    n, bound = lines["lower bound"]
    np.testing.assert_allclose(bound, sl.collective_lower_bound("allreduce", n, p, s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA))
    winner = sl.best_algorithm("allreduce", nbytes, p, s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA)
    assert ax_bar.get_title().endswith("fastest: " + winner.replace("_", " "))
    widths = [patch.get_width() for patch in ax_bar.patches]
    assert len(widths) == len(sl.algorithms_for("allreduce", p))
    assert min(widths) == pytest.approx(
        sl.collective_time("allreduce", nbytes, p, s3_8.EXAMPLE_ALPHA, s3_8.EXAMPLE_BETA, algorithm=winner) * 1e3)


def test_message_cost_and_scaling_figures(fig):
    ax_t, ax_b = s3_8.message_cost(fig, ALPHA, BETA)
    n, t = _lines(ax_t)["T(n) = \u03b1 + n\u03b2"]
    np.testing.assert_allclose(t, sl.p2p_time(n, ALPHA, BETA))
    n, bw = _lines(ax_b)["n / T(n)"]
    np.testing.assert_allclose(bw * 1e9, sl.effective_bandwidth(n, ALPHA, BETA))
    plt.close(fig)
    figure = plt.figure()
    ax = s3_8.collective_scaling(figure, 2**28, ALPHA, BETA)
    p, t = _lines(ax)["ring"]
    np.testing.assert_allclose(t, sl.collective_time("allreduce", 2**28, p, ALPHA, BETA, algorithm="ring"))
    plt.close(figure)


def test_message_cost_legend_uses_decimal_units(fig):
    _, ax_b = s3_8.message_cost(fig, ALPHA, BETA)
    labels = [text.get_text() for text in ax_b.get_legend().get_texts()]
    assert any(label.endswith("= 250 kB") for label in labels)
    assert s3_8.decimal_size_label(250_000) == "250 kB" and s3_8.decimal_size_label(1e9) == "1 GB"


def _labelled_ticks(axis):
    """Labels of the major and minor ticks inside the axis's view, once its figure is drawn (empty labels left out)."""
    lo, hi = sorted(axis.get_view_interval())
    labels = []
    for locs, formatter in ((axis.get_majorticklocs(), axis.get_major_formatter()),
                            (axis.get_minorticklocs(), axis.get_minor_formatter())):
        formatter.set_locs(locs)
        labels += [formatter(v, i) for i, v in enumerate(locs) if lo <= v <= hi]
    return [label for label in labels if label.strip()]


@pytest.mark.parametrize(("t_min_us", "t_max_us"), [(12.0, 80.0), (12.7, 75.3), (12.0, 18.0), (5.0, 5.6),
                                                  (0.3, 900.0)])
def test_pingpong_axes_always_carry_labelled_ticks(fig, t_min_us, t_max_us):
    """Whatever range the measurement spans (here none holds a power of ten), each axis shows numbers."""
    n = 8.0 * 4.0 ** np.arange(8)
    t = np.geomspace(t_min_us, t_max_us, n.size) * 1e-6
    fit = sl.fit_alpha_beta(n, t)
    ax_t, ax_b = s3_8.pingpong_fit(fig, n, t, fit.alpha, fit.beta)
    fig.draw_without_rendering()                 # ticks and labels as a drawing places them
    assert len(_labelled_ticks(ax_t.yaxis)) >= 2
    for ax in (ax_t, ax_b):
        assert len(_labelled_ticks(ax.xaxis)) >= 2
    assert len(_labelled_ticks(ax_b.yaxis)) >= 2


def test_pingpong_x_axis_with_two_close_sizes(fig):
    n = np.array([3000.0, 5000.0])
    ax_t, _ = s3_8.pingpong_fit(fig, n, 1e-5 + n * 1e-9, 1e-5, 1e-9)
    fig.draw_without_rendering()
    assert len(_labelled_ticks(ax_t.xaxis)) >= 2


def test_log_ticks():
    assert s3_8.log_ticks(12, 80) == [20.0, 30.0, 50.0]
    assert s3_8.log_ticks(12, 18) == [12.0, 14.0, 16.0, 18.0]
    assert s3_8.log_ticks(0.5, 3000) == [1.0, 10.0, 100.0, 1000.0]
    for lo, hi in [(1.01, 1.02), (13, 22), (1e-3, 2e-3), (7, 7000), (10.5, 10.9)]:
        ticks = s3_8.log_ticks(lo, hi)
        assert len(ticks) >= 2 and all(lo <= v <= hi for v in ticks)


def test_pingpong_figure_draws_the_fit(fig):
    n = np.array([8.0, 1024.0, 65536.0])
    ax_t, _ = s3_8.pingpong_fit(fig, n, 1e-5 + n * 1e-9, 1e-5, 1e-9)
    grid, t = [v for k, v in _lines(ax_t).items() if k.startswith("fit")][0]
    np.testing.assert_allclose(t, (1e-5 + grid * 1e-9) * 1e6)


def _half_entries(ax):
    return [text.get_text() for text in ax.get_legend().get_texts() if text.get_text().startswith("n\u00bd")]


def test_pingpong_half_size_line_only_inside_the_measured_sizes(fig):
    n = np.array([8.0, 1024.0, 65536.0])
    # alpha / beta = 10 kB: inside the sizes, drawn as a line and named in the legend
    _, ax_b = s3_8.pingpong_fit(fig, n, 1e-5 + n * 1e-9, 1e-5, 1e-9)
    lines = [line for line in ax_b.get_lines() if line.get_label().startswith("n\u00bd")]
    assert len(lines) == 1 and np.asarray(lines[0].get_xdata())[0] == pytest.approx(1e4)
    assert _half_entries(ax_b) == ["n\u00bd = \u03b1/\u03b2 = 10 kB"]
    lo, hi = ax_b.get_xlim()
    assert lo <= 1e4 <= hi


@pytest.mark.parametrize(("alpha", "beta", "label"), [(1e-3, 1e-9, "1 MB"), (1e-12, 1e-9, "0.001 B")])
def test_pingpong_half_size_outside_the_measured_sizes_is_named_not_drawn(alpha, beta, label):
    figure = plt.figure()
    n = np.array([8.0, 1024.0, 65536.0])
    _, ax_b = s3_8.pingpong_fit(figure, n, alpha + n * beta, alpha, beta)
    lo, hi = ax_b.get_xlim()
    assert not lo <= alpha / beta <= hi
    # no vertical line at n_1/2, but the legend says where it is and that the axis does not reach it
    drawn = [line for line in ax_b.get_lines() if line.get_label().startswith("n\u00bd")]
    assert len(drawn) == 1 and np.asarray(drawn[0].get_xdata()).size == 0
    assert _half_entries(ax_b) == [f"n\u00bd = \u03b1/\u03b2 = {label} (outside the measured sizes)"]
    plt.close(figure)


def test_size_labels():
    assert s3_8.size_label(8) == "8 B"
    assert s3_8.size_label(2**16) == "64 KiB"
    assert s3_8.size_label(2**30) == "1 GiB"


def test_section_3_8_3_ring_loop_is_the_library():
    """3.8.3 sums the ring all-reduce's steps in a loop and in closed form; the library gives the same time."""
    alpha, beta, n, k = sl.figures.s3_8.EXAMPLE_ALPHA, 1 / sl.LINKS["InfiniBand NDR"].bandwidth, 1e9, 8
    loop = sum(alpha + n / k * beta for _ in range(2 * (k - 1)))
    assert sl.collective_time("allreduce", n, k, alpha, beta, 0.0, algorithm="ring") == pytest.approx(loop)
    assert round(loop * 1e3, 4) == 35.07


def test_the_models_bus_bandwidth_stays_below_one_over_beta():
    """3.8.6: with any latency or addition cost, the model's own busbw of an all-reduce stays below the
    ping-pong's 1/beta, for every algorithm and K (the text sets the measured busbw beside it)."""
    alpha, beta, gamma = 0.7e-6, 1 / 9e9, 1 / 24e9
    for k in (2, 4, 8, 16, 64):
        for algorithm in ("ring", "recursive_doubling", "rabenseifner", "binomial_tree"):
            for n in (2.0**21, 2.0**30):
                t = sl.collective_time("allreduce", n, k, alpha, beta, gamma, algorithm=algorithm)
                assert sl.bus_bandwidth("allreduce", n, t, k) < 1 / beta


def test_all_to_all_moves_the_bound_pairwise_and_half_the_buffer_per_step_by_bruck():
    n, p = 2**26, 64
    pairwise = sl.collective_time("alltoall", n, p, 0.0, BETA, algorithm="pairwise")
    assert pairwise == sl.collective_lower_bound("alltoall", n, p, 0.0, BETA)
    assert sl.collective_time("alltoall", n, p, 0.0, BETA, algorithm="bruck") == 3 * n * BETA
    assert sl.collective_cost_terms("all-to-all", p, "bruck")[0] == 6 < sl.collective_cost_terms("alltoall", p)[0]
    assert sl.bus_bandwidth_factor("alltoall", 8) == 0.875
