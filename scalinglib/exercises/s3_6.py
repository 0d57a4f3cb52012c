"""Exercises of Section 3.6: a loop against a tree, two prefix sums, the pipeline bubble, the depth of a layer stack."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from ..workdepth import (
    blelloch_scan_dag,
    brent_bounds,
    depth,
    greedy_schedule,
    hillis_steele_scan_dag,
    layer_stack_dag,
    parallelism,
    reduction_tree_dag,
    sequential_sum_dag,
    work,
)
from .core import Part, register

N_SUM, P_SUM = 4096, 64
N_SCAN, P_SCAN = 1024, 8
SCAN_PROCESSORS = tuple(2**i for i in range(11))        # 1, 2, 4, ..., 1024
PIPE_A = (6, 12)                                        # (stages, micro-batches)
PIPE_C_STAGES, PIPE_C_BUBBLE = 8, Fraction(6, 100)
PIPE_D_STAGES = 16                                      # (d): match (a)'s bubble with 16 stages
STACK_LAYERS, STACK_WIDTH = 24, 16
LATENCY_BUDGET = 60                                     # time units for one input through the stack (3.6.4d)


@functools.cache
def _dag(kind, *args):
    builders = {"loop": sequential_sum_dag, "tree": reduction_tree_dag, "hs": hillis_steele_scan_dag,
                "blelloch": blelloch_scan_dag, "stack": layer_stack_dag}
    return builders[kind](*args)


@functools.cache
def _makespan(kind, args, p):
    return greedy_schedule(_dag(kind, *args), p).makespan


def scan_crossover():
    """Smallest processor count in 1, 2, 4, ... at which Hillis-Steele's greedy makespan beats Blelloch's."""
    for p in SCAN_PROCESSORS:
        if _makespan("hs", (N_SCAN,), p) < _makespan("blelloch", (N_SCAN,), p):
            return p
    raise RuntimeError("no crossover in the sweep")


def scan_guaranteed_crossover():
    """Exercise 3.6.2 (d): smallest processor count in 1, 2, 4, ... at which Brent's bounds alone guarantee that
    Hillis-Steele finishes first: its upper bound W/K + D below Blelloch's lower bound max(W/K, D)."""
    hs, bl = _dag("hs", N_SCAN), _dag("blelloch", N_SCAN)
    for p in SCAN_PROCESSORS:
        if brent_bounds(work(hs), depth(hs), p)[1] < brent_bounds(work(bl), depth(bl), p)[0]:
            return p
    raise RuntimeError("no guaranteed crossover in the sweep")


def microbatches_for_bubble(stages, bubble):
    """Smallest whole m with (p - 1)/m <= bubble, in exact arithmetic."""
    return math.ceil(Fraction(stages - 1) / Fraction(bubble))


def _pipeline_makespan(stages, microbatches, forward=1, backward=2):
    return (microbatches + stages - 1) * (forward + backward)


def layers_within(budget, processors=None):
    """Most layers of width STACK_WIDTH whose time for one input fits ``budget``: the greedy makespan on
    ``processors``, or the depth (unboundedly many processors) when ``processors`` is None."""
    layers = 0
    while True:
        args = (layers + 1, STACK_WIDTH)
        time = depth(_dag("stack", *args)) if processors is None else _makespan("stack", args, processors)
        if time > budget:
            return layers
        layers += 1


register(
    Part(
        "ex-3-6-1a",
        lambda: [work(_dag("loop", N_SUM)), depth(_dag("loop", N_SUM))],
        kind="numbers",
        unit=("additions", "unit steps"),
        whole=True,
        hint="A loop adds one number at a time, and each addition needs the previous total.",
    ),
    Part(
        "ex-3-6-1b",
        lambda: [work(_dag("tree", N_SUM)), depth(_dag("tree", N_SUM))],
        kind="numbers",
        unit=("additions", "unit steps"),
        whole=True,
        hint="Count the additions the tree needs in all (does pairing change how many?), and the levels it has.",
    ),
    Part(
        "ex-3-6-1c",
        lambda: parallelism(_dag("tree", N_SUM)),
        unit="ratio",
        hint="Parallelism is W / D.",
    ),
    Part(
        "ex-3-6-1d",
        lambda: list(brent_bounds(work(_dag("tree", N_SUM)), depth(_dag("tree", N_SUM)), P_SUM)),
        kind="numbers",
        unit="time units",
        hint="Lower max(W/K, D), upper W/K + D, with K = 64.",
    ),
    Part(
        "ex-3-6-1e",
        lambda: _makespan("tree", (N_SUM,), P_SUM),
        unit="unit steps",
        whole=True,
        hint="Build the tree's DAG and schedule it greedily on 64 processors; the makespan is the length of the "
        "schedule.",
    ),
    Part(
        "ex-3-6-2a",
        lambda: [work(_dag("hs", N_SCAN)), work(_dag("blelloch", N_SCAN))],
        kind="numbers",
        unit="additions",
        whole=True,
        hint="Count the additions round by round: Hillis-Steele adds at almost every position in each of its "
        "rounds; Blelloch's sweep up and sweep down each do about n_in of them.",
    ),
    Part(
        "ex-3-6-2b",
        lambda: [depth(_dag("hs", N_SCAN)), depth(_dag("blelloch", N_SCAN))],
        kind="numbers",
        unit="unit steps",
        whole=True,
        hint="Hillis-Steele: one level per doubling. Blelloch: up the tree and back down.",
    ),
    Part(
        "ex-3-6-2c",
        lambda: [_makespan("hs", (N_SCAN,), P_SCAN), _makespan("blelloch", (N_SCAN,), P_SCAN)],
        kind="numbers",
        unit="unit steps",
        whole=True,
        hint="Build both DAGs for the exercise's inputs and run sl.greedy_schedule(dag, 8) on each.",
    ),
    Part(
        "ex-3-6-2d",
        scan_guaranteed_crossover,
        unit="processors",
        whole=True,
        rounding="a power of two from the sweep",
        hint="For each K in the sweep, from 1 up to the number of elements, compare Hillis-Steele's upper bound "
        "W/K + D with Blelloch's lower bound max(W/K, D), from (a) and (b); no schedule is needed.",
    ),
    Part(
        "ex-3-6-3a",
        lambda: float(Fraction(PIPE_A[0] - 1, PIPE_A[1])),
        unit="ratio",
        sig=3,
        hint="The bubble fraction, idle over compute time as in the text, is (p - 1) / m.",
    ),
    Part(
        "ex-3-6-3b",
        lambda: _pipeline_makespan(*PIPE_A),
        unit="forward passes",
        whole=True,
        hint="The step lasts as long as the pipeline's depth, (m + p - 1) slots; each slot holds one forward and "
        "one backward pass of a micro-batch on a stage.",
    ),
    Part(
        "ex-3-6-3c",
        lambda: microbatches_for_bubble(PIPE_C_STAGES, PIPE_C_BUBBLE),
        unit="micro-batches",
        whole=True,
        rounding="up",
        hint="Solve (p - 1) / m <= 0.06 for m with p = 8, and round up.",
    ),
    Part(
        "ex-3-6-3d",
        lambda: microbatches_for_bubble(PIPE_D_STAGES, Fraction(PIPE_A[0] - 1, PIPE_A[1])),
        unit="micro-batches",
        whole=True,
        rounding="up",
        hint="Solve (p - 1) / m <= (a)'s bubble for m with p = 16, and round up if needed.",
    ),
    Part(
        "ex-3-6-4a",
        lambda: [work(_dag("stack", STACK_LAYERS, STACK_WIDTH)), depth(_dag("stack", STACK_LAYERS, STACK_WIDTH)),
                 parallelism(_dag("stack", STACK_LAYERS, STACK_WIDTH))],
        kind="numbers",
        unit=("operations", "unit steps", "ratio"),
        whole=(True, True, False),
        hint="Per layer: w pieces of cost 1 and one combine of cost 1; the pieces of a layer run side by side.",
    ),
    Part(
        "ex-3-6-4b",
        lambda: parallelism(_dag("stack", 2 * STACK_LAYERS, STACK_WIDTH)),
        unit="ratio",
        hint="How do W and D change when the number of layers doubles?",
    ),
    Part(
        "ex-3-6-4c",
        lambda: [_makespan("stack", (STACK_LAYERS, STACK_WIDTH), p) for p in (8, 64)],
        kind="numbers",
        unit="unit steps",
        whole=True,
        hint="Per layer, count the rounds its pieces need on 8 and on 64 processors, then add the combine.",
    ),
    Part(
        "ex-3-6-4d",
        lambda: [layers_within(LATENCY_BUDGET, 8), layers_within(LATENCY_BUDGET)],
        kind="numbers",
        unit=("layers", "layers"),
        whole=True,
        hint="Divide the budget by the time one layer takes: on 8 processors (see (c)), and on unboundedly many "
        "(its depth).",
    ),
)
